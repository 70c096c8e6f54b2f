// Package server starts and stops the private database servers docbench
// manages: PostgreSQL from the zonky binaries on Maven Central
// ("postgres:embedded", also of an installed PostgreSQL) and MariaDB of the
// local install ("mariadb:local"). The test peers (MongoDB, MySQL 8) and the
// Debian PostgreSQL cluster tests use are in internal/server/servertest; the
// process plumbing they share is internal/server/proc.
package server

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/docbench/docbench/internal/server/proc"
)

// DefaultPostgresVersion is the zonky artifact version StartPostgres uses.
const DefaultPostgresVersion = "18.6.0"

// PostgresOptions configures a private PostgreSQL server.
type PostgresOptions struct {
	// Version of the zonky binaries (StartPostgres only); default DefaultPostgresVersion.
	Version string
	// Settings are extra server parameters, passed as -c name=value.
	Settings map[string]string
	// Log receives progress messages (first download); may be nil.
	Log io.Writer
	// DataDir, when set, is a persistent cluster directory: created (initdb,
	// or a copy of the template) when missing or empty, reused otherwise,
	// and NOT removed by Stop. Empty: a private temporary cluster as today.
	//
	// One docbench at a time may run a server on it (a second start fails
	// with "data directory X is in use by another docbench (pid N)"); it must
	// hold a cluster of the same major version. As root the server account
	// must own it and be able to traverse its parents. See DefaultDataDir.
	DataDir string
}

// Postgres is a running private PostgreSQL server, owned by this process:
// it listens on 127.0.0.1 only, trusts every local connection, and dies with
// us. Stop it with Stop.
type Postgres struct {
	URL     string // postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable
	Port    int
	DataDir string // persistent (PostgresOptions.DataDir) or inside the runtime directory
	Version string // as reported by `postgres --version`, e.g. "18.6"
	BinDir  string // directory of postgres, initdb, pg_ctl, …
	LogFile string // server log (stderr of the postmaster)

	own  proc.Owned // runtime directory and postmaster
	lock *dataLock  // held while a persistent DataDir is ours
}

// StartPostgres starts a private server from the zonky PostgreSQL binaries,
// downloading and caching them on first use. As root the server runs as the
// system user "docbench" (created if absent). When the binaries cannot be
// had, the error is one line starting "embedded PostgreSQL unavailable:".
func StartPostgres(ctx context.Context, o PostgresOptions) (*Postgres, error) {
	if err := proc.Supported(); err != nil {
		return nil, err
	}
	if o.Version == "" {
		o.Version = DefaultPostgresVersion
	}
	bin, acct, err := prepareEmbedded(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("embedded PostgreSQL unavailable: %w", err)
	}
	p, err := start(ctx, bin, acct, o)
	if err != nil {
		return nil, fmt.Errorf("embedded PostgreSQL %s: %w", o.Version, err)
	}
	return p, nil
}

func prepareEmbedded(ctx context.Context, o PostgresOptions) (string, *account, error) {
	root, err := proc.CacheRoot()
	if err != nil {
		return "", nil, err
	}
	unlock, err := proc.LockCache(root)
	if err != nil {
		return "", nil, fmt.Errorf("cache directory: %w", err)
	}
	defer unlock()
	acct, err := serverAccount(embeddedUser, true)
	if err != nil {
		return "", nil, err
	}
	bin, err := embeddedBinaries(ctx, root, o.Version, o.Log)
	return bin, acct, err
}

// StartInstalledPostgres starts a private cluster from the PostgreSQL
// binaries in binDir (postgres, initdb), such as a distribution's install;
// as root the server runs as runAs, an existing system user (the account
// the distribution's package creates). o.Version is ignored. Its errors do
// not name binDir: the caller says which install it chose.
func StartInstalledPostgres(ctx context.Context, binDir, runAs string, o PostgresOptions) (*Postgres, error) {
	if err := proc.Supported(); err != nil {
		return nil, err
	}
	acct, err := serverAccount(runAs, false)
	if err != nil {
		return nil, err
	}
	return start(ctx, binDir, acct, o)
}

// start is the one code path for every binary source: a fresh cluster in a
// new runtime directory (or the persistent o.DataDir), run postgres as our
// child, wait until it is ready.
func start(ctx context.Context, bin string, acct *account, o PostgresOptions) (_ *Postgres, err error) {
	CleanStale()
	version, err := binVersion(ctx, bin)
	if err != nil {
		return nil, err
	}
	var lock *dataLock
	if o.DataDir != "" {
		if o.DataDir, err = filepath.Abs(o.DataDir); err != nil {
			return nil, err
		}
		if lock, err = openDataDir(ctx, bin, version, o.DataDir, acct); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				lock.release()
			}
		}()
	}
	runDir, err := proc.NewRunDir(runDirPattern)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(runDir)
		}
	}()
	if err := acct.chown(runDir); err != nil {
		return nil, err
	}
	p := &Postgres{
		DataDir: filepath.Join(runDir, "data"),
		Version: version,
		BinDir:  bin,
		LogFile: filepath.Join(runDir, "server.log"),
		own:     proc.Owned{RunDir: runDir},
		lock:    lock,
	}
	if o.DataDir != "" {
		// CleanStale follows this pointer to stop an abandoned server, and
		// never removes what it points to.
		p.DataDir = o.DataDir
		if err := os.WriteFile(filepath.Join(runDir, dataDirFile), []byte(o.DataDir+"\n"), 0o644); err != nil {
			return nil, err
		}
	}
	sock := filepath.Join(runDir, "sock")
	if err := os.Mkdir(sock, 0o700); err != nil {
		return nil, err
	}
	if err := acct.chown(sock); err != nil {
		return nil, err
	}

	if o.DataDir == "" {
		if err := initData(ctx, bin, version, p.DataDir, acct); err != nil {
			return nil, err
		}
	}

	port, err := launchServer(ctx, &p.own, "could not bind", func(port int) *proc.Launch {
		return p.launch(port, sock, acct, o.Settings)
	})
	if err != nil {
		return nil, err
	}
	p.Port = port
	p.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return p, nil
}

// launch describes a start of the postmaster on port.
func (p *Postgres) launch(port int, sock string, acct *account, settings map[string]string) *proc.Launch {
	args := []string{"-D", p.DataDir, "-p", strconv.Itoa(port), "-k", sock, "-c", "listen_addresses=127.0.0.1"}
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		args = append(args, "-c", k+"="+settings[k])
	}
	// exec.Command, not CommandContext: the server outlives ctx.
	cmd := exec.Command(filepath.Join(p.BinDir, "postgres"), args...)
	proc.Prepare(cmd, p.own.RunDir)
	acct.apply(cmd)
	return &proc.Launch{Cmd: cmd, Name: "server", What: fmt.Sprintf("postgres on port %d", port),
		Output: p.LogFile, Logs: []string{p.LogFile},
		// When we die, SIGQUIT: an immediate shutdown, by the postmaster,
		// of all its backends.
		DeathSig: syscall.SIGQUIT,
		Ready: func() int {
			if postmasterReady(p.DataDir, cmd.Process.Pid) {
				return port
			}
			if majorNumber(p.Version) < 10 && postmasterListening(p.DataDir, cmd.Process.Pid) && acceptsConnections(port) {
				return port // 9.6 writes no "ready" into postmaster.pid
			}
			return 0
		},
		Halt: stopPostmaster,
	}
}

// postmasterReady reports whether postmaster.pid in dataDir says that the
// postmaster pid is "ready" (line 8, PostgreSQL 10+).
func postmasterReady(dataDir string, pid int) bool {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	return len(lines) >= 8 && strings.TrimSpace(lines[0]) == strconv.Itoa(pid) && strings.TrimSpace(lines[7]) == "ready"
}

// Kill ends the postmaster with SIGKILL, as a crash would (its backends
// remain until Stop); Stop still cleans up afterwards. Tests use it to see
// how docbench behaves when the database dies under a run.
func (p *Postgres) Kill() error { return p.own.Kill() }

// Stop shuts the server down (fast shutdown: SIGINT, then SIGQUIT and
// SIGKILL if it takes too long) and removes its runtime directory: socket,
// log and, unless it is a persistent PostgresOptions.DataDir, the data. A
// persistent data directory is left, cleanly shut down, for the next start.
// It is idempotent.
func (p *Postgres) Stop() error {
	return p.own.Shutdown(func() error { return stopPostmaster(p.own.Cmd, p.own.Done) }, p.lock.release)
}

// stopPostmaster escalates SIGINT → SIGQUIT → SIGKILL until the postmaster
// has exited (its backends exit before it does on SIGINT and SIGQUIT).
func stopPostmaster(cmd *exec.Cmd, done <-chan struct{}) error {
	return proc.StopProcess(cmd, done, "postgres",
		proc.StopStep{Sig: syscall.SIGINT, Wait: 30 * time.Second}, proc.StopStep{Sig: syscall.SIGQUIT, Wait: 5 * time.Second}, proc.StopStep{Sig: syscall.SIGKILL, Wait: 5 * time.Second})
}

// binVersion runs `postgres --version`: "postgres (PostgreSQL) 15.14 (Debian …)".
func binVersion(ctx context.Context, bin string) (string, error) {
	out, err := exec.CommandContext(ctx, filepath.Join(bin, "postgres"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s/postgres --version: %w", bin, err)
	}
	f := strings.Fields(string(out))
	if len(f) < 3 {
		return "", fmt.Errorf("%s/postgres --version: unexpected output %q", bin, out)
	}
	return f[2], nil
}
