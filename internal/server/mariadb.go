package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/docbench/docbench/internal/server/proc"
)

// A private MariaDB lives, like a private PostgreSQL, in its own runtime
// directory os.TempDir()/docbench-mariadb-*: proc.OwnerFile, the data
// directory "data", the socket, the pid file and the error log.
const (
	mariaRunDirPattern = "docbench-mariadb-*"
	mariaPIDFile       = "mariadbd.pid"
	// MariaDBDatabase is the database StartMariaDB creates; MariaDB.URL names it.
	MariaDBDatabase = "docbench"
)

// MariaDBOptions configures a private MariaDB server.
type MariaDBOptions struct {
	// Settings are server variables, passed as --name=value
	// (innodb_flush_log_at_trx_commit, innodb_buffer_pool_size, …).
	Settings map[string]string
	// Log receives progress messages; may be nil.
	Log io.Writer
}

// MariaDB is a running private MariaDB server of the local install, owned by
// this process: it listens on 127.0.0.1 only, root has no password, and it
// dies with us. Stop it with Stop.
type MariaDB struct {
	URL     string // mysql://root@127.0.0.1:PORT/docbench
	Port    int
	DataDir string
	Version string // as `mariadbd --version` reports it, e.g. "10.11.19-MariaDB-0+deb12u1"
	Binary  string // path of mariadbd
	LogFile string // the server's error log

	own proc.Owned // runtime directory and mariadbd
}

// StartMariaDB starts a private server from the local MariaDB install
// (Debian's mariadb-server: mariadbd and mariadb-install-db), in a fresh data
// directory, on a free port, and creates the database MariaDBDatabase. When
// MariaDB is not installed the error is one line starting
// "local MariaDB unavailable:".
func StartMariaDB(ctx context.Context, o MariaDBOptions) (_ *MariaDB, err error) {
	if err := proc.Supported(); err != nil {
		return nil, err
	}
	mariadbd, installDB, err := mariaBinaries()
	if err != nil {
		return nil, fmt.Errorf("local MariaDB unavailable: %w", err)
	}
	CleanStaleMariaDB()
	version, err := mariaVersion(ctx, mariadbd)
	if err != nil {
		return nil, fmt.Errorf("local MariaDB unavailable: %w", err)
	}
	runDir, err := proc.NewRunDir(mariaRunDirPattern)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(runDir)
		}
	}()
	m := &MariaDB{
		DataDir: filepath.Join(runDir, "data"),
		Version: version,
		Binary:  mariadbd,
		LogFile: filepath.Join(runDir, "error.log"),
		own:     proc.Owned{RunDir: runDir},
	}
	began := time.Now()
	if err := m.installDB(ctx, installDB); err != nil {
		return nil, fmt.Errorf("MariaDB %s: %w", version, err)
	}
	if m.Port, err = launchServer(ctx, &m.own, "Bind on TCP/IP port", func(port int) *proc.Launch { return m.launch(port, o.Settings) }); err != nil {
		return nil, fmt.Errorf("MariaDB %s: %w", version, err)
	}
	m.URL = fmt.Sprintf("mysql://root@127.0.0.1:%d/%s", m.Port, MariaDBDatabase)
	if err := m.createDatabase(ctx); err != nil {
		m.Stop()
		return nil, fmt.Errorf("MariaDB %s: %w", version, err)
	}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "started MariaDB %s on port %d in %s\n", version, m.Port, time.Since(began).Round(time.Millisecond))
	}
	return m, nil
}

// mariaBinaries finds mariadbd (in /usr/sbin on Debian) and mariadb-install-db.
func mariaBinaries() (mariadbd, installDB string, err error) {
	find := func(name string, dirs ...string) string {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		for _, d := range dirs {
			if p := filepath.Join(d, name); proc.IsExecutableFile(p) {
				return p
			}
		}
		return ""
	}
	mariadbd = find("mariadbd", "/usr/sbin", "/usr/local/sbin", "/usr/local/mysql/bin")
	installDB = find("mariadb-install-db", "/usr/bin", "/usr/local/bin", "/usr/local/mysql/scripts")
	if mariadbd == "" || installDB == "" {
		return "", "", errors.New("no mariadbd/mariadb-install-db (apt-get install mariadb-server, or scripts/install-test-deps.sh)")
	}
	return mariadbd, installDB, nil
}

// mariaVersion runs `mariadbd --version`:
// "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)".
func mariaVersion(ctx context.Context, mariadbd string) (string, error) {
	out, err := exec.CommandContext(ctx, mariadbd, "--no-defaults", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", mariadbd, err)
	}
	f := strings.Fields(string(out))
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "Ver" {
			return f[i+1], nil
		}
	}
	return "", fmt.Errorf("%s --version: unexpected output %q", mariadbd, strings.TrimSpace(string(out)))
}

// serverUserArgs: mariadbd refuses to run as root unless told --user=root.
func serverUserArgs() []string {
	if os.Geteuid() == 0 {
		return []string{"--user=root"}
	}
	return nil
}

// installDB creates the system tables in a fresh data directory.
func (m *MariaDB) installDB(ctx context.Context, installDB string) error {
	args := []string{"--no-defaults", "--datadir=" + m.DataDir,
		"--auth-root-authentication-method=normal", "--skip-test-db"}
	args = append(args, serverUserArgs()...)
	cmd := exec.CommandContext(ctx, installDB, args...)
	cmd.Dir = m.own.RunDir
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", "LANG=C"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("mariadb-install-db: %w; output:\n%s", err, proc.Tail(out, 15))
	}
	return nil
}

// launch describes a start of mariadbd on port.
func (m *MariaDB) launch(port int, settings map[string]string) *proc.Launch {
	args := []string{"--no-defaults",
		"--datadir=" + m.DataDir,
		"--socket=" + filepath.Join(m.own.RunDir, "mariadbd.sock"),
		"--port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1",
		"--pid-file=" + filepath.Join(m.own.RunDir, mariaPIDFile),
		"--log-error=" + m.LogFile,
		"--skip-name-resolve",
	}
	args = append(args, serverUserArgs()...)
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		args = append(args, "--"+k+"="+settings[k])
	}
	os.Remove(m.LogFile) // a retry starts a fresh log
	// exec.Command, not CommandContext: the server outlives ctx.
	cmd := exec.Command(m.Binary, args...)
	proc.Prepare(cmd, m.own.RunDir)
	stderr := filepath.Join(m.own.RunDir, "stderr.log")
	return &proc.Launch{Cmd: cmd, Name: "server", What: fmt.Sprintf("mariadbd on port %d", port),
		Output: stderr, Logs: []string{m.LogFile, stderr},
		// When we die, SIGKILL: mariadbd keeps nothing worth a clean
		// shutdown, the data directory is temporary.
		DeathSig: syscall.SIGKILL,
		Ready: func() int {
			// "ready for connections" in the error log
			if b, err := os.ReadFile(m.LogFile); err == nil && strings.Contains(string(b), "ready for connections") {
				return port
			}
			return 0
		},
		Halt: stopMariaDB,
	}
}

// createDatabase creates MariaDBDatabase as root over TCP.
func (m *MariaDB) createDatabase(ctx context.Context) error {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(m.Port))
	cfg.Timeout = 10 * time.Second
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+MariaDBDatabase); err != nil {
		return fmt.Errorf("create database %s: %w", MariaDBDatabase, err)
	}
	return nil
}

// Kill ends mariadbd with SIGKILL, as a crash would; Stop still cleans up
// afterwards. Tests use it to see how docbench behaves when the database
// dies under a run.
func (m *MariaDB) Kill() error { return m.own.Kill() }

// Stop shuts the server down (SIGTERM, then SIGKILL if it takes too long)
// and removes its runtime directory with the data. It is idempotent.
func (m *MariaDB) Stop() error {
	return m.own.Shutdown(func() error { return stopMariaDB(m.own.Cmd, m.own.Done) }, nil)
}

// stopMariaDB sends SIGTERM (a normal shutdown), then SIGKILL.
func stopMariaDB(cmd *exec.Cmd, done <-chan struct{}) error {
	return proc.StopProcess(cmd, done, "mariadbd",
		proc.StopStep{Sig: syscall.SIGTERM, Wait: 30 * time.Second}, proc.StopStep{Sig: syscall.SIGKILL, Wait: 5 * time.Second})
}

// CleanStaleMariaDB stops private MariaDB servers whose docbench process is
// gone and removes their runtime directories; StartMariaDB calls it.
// Directories of live owners, young directories without an owner file (a
// docbench starting up) and servers it cannot prove are ours are left alone.
func CleanStaleMariaDB() {
	proc.CleanStaleDirs(mariaRunDirPattern, func(dir string) bool {
		if pid := proc.ReadPID(filepath.Join(dir, mariaPIDFile)); proc.Alive(pid) && !zombie(pid) {
			if !isMariaDBOf(pid, filepath.Join(dir, "data")) {
				return false // cannot prove it is ours: leave it
			}
			proc.KillAndWait(pid, 5*time.Second) // its data goes with the directory
		}
		return true
	})
}

// isMariaDBOf reports whether pid is a mariadbd serving dataDir (it chdirs
// into its data directory). Without /proc it reports false.
func isMariaDBOf(pid int, dataDir string) bool {
	return proc.RunsIn(pid, "mariadbd", dataDir)
}

// zombie reports whether pid has exited but is not yet reaped.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) STATE …; comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] == 'Z'
}
