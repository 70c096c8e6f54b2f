package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// A private MariaDB lives, like a private PostgreSQL, in its own runtime
// directory os.TempDir()/docbench-mariadb-*: ownerFile, the data directory
// "data", the socket, the pid file and the error log.
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

	runDir string
	cmd    *exec.Cmd
	done   chan struct{} // closed when mariadbd has exited

	stopOnce sync.Once
	stopErr  error
}

// StartMariaDB starts a private server from the local MariaDB install
// (Debian's mariadb-server: mariadbd and mariadb-install-db), in a fresh data
// directory, on a free port, and creates the database MariaDBDatabase. When
// MariaDB is not installed the error is one line starting
// "local MariaDB unavailable:".
func StartMariaDB(ctx context.Context, o MariaDBOptions) (_ *MariaDB, err error) {
	mariadbd, installDB, err := mariaBinaries()
	if err != nil {
		return nil, fmt.Errorf("local MariaDB unavailable: %w", err)
	}
	CleanStaleMariaDB()
	version, err := mariaVersion(ctx, mariadbd)
	if err != nil {
		return nil, fmt.Errorf("local MariaDB unavailable: %w", err)
	}
	runDir, err := os.MkdirTemp("", mariaRunDirPattern)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(runDir)
		}
	}()
	if err := os.WriteFile(filepath.Join(runDir, ownerFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return nil, err
	}
	m := &MariaDB{
		DataDir: filepath.Join(runDir, "data"),
		Version: version,
		Binary:  mariadbd,
		LogFile: filepath.Join(runDir, "error.log"),
		runDir:  runDir,
	}
	began := time.Now()
	if err := m.installDB(ctx, installDB); err != nil {
		return nil, fmt.Errorf("MariaDB %s: %w", version, err)
	}
	// The port is free when we pick it but may be taken before mariadbd
	// binds it (parallel test binaries): retry with another port.
	for attempt := 0; ; attempt++ {
		err = m.launch(ctx, o.Settings)
		if err == nil {
			break
		}
		if attempt == 2 || !strings.Contains(err.Error(), "Bind on TCP/IP port") {
			return nil, fmt.Errorf("MariaDB %s: %w", version, err)
		}
	}
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
			if p := filepath.Join(d, name); isExecutable(p) {
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

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
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
	cmd.Dir = m.runDir
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", "LANG=C"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("mariadb-install-db: %w; output:\n%s", err, tail(out, 15))
	}
	return nil
}

// launch runs mariadbd on a free port and waits until it accepts
// connections.
func (m *MariaDB) launch(ctx context.Context, settings map[string]string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	args := []string{"--no-defaults",
		"--datadir=" + m.DataDir,
		"--socket=" + filepath.Join(m.runDir, "mariadbd.sock"),
		"--port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1",
		"--pid-file=" + filepath.Join(m.runDir, mariaPIDFile),
		"--log-error=" + m.LogFile,
		"--skip-name-resolve",
	}
	args = append(args, serverUserArgs()...)
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		args = append(args, "--"+k+"="+settings[k])
	}
	os.Remove(m.LogFile) // a retry starts a fresh log
	// exec.Command, not CommandContext: the server outlives ctx.
	cmd := exec.Command(m.Binary, args...)
	cmd.Dir = m.runDir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", "LANG=C"}
	out, err := os.OpenFile(filepath.Join(m.runDir, "stderr.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer out.Close() // the child has its own copy
	cmd.Stdout, cmd.Stderr = out, out
	// Own process group: a terminal ^C reaches docbench, which stops the
	// server in order. mariadbd keeps nothing worth a clean shutdown when
	// its owner dies: the data directory is temporary.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeath(cmd.SysProcAttr, syscall.SIGKILL)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("mariadbd: %w", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	if err := m.waitReady(ctx, port, done); err != nil {
		stopMariaDB(cmd, done)
		log, _ := os.ReadFile(m.LogFile)
		if len(log) == 0 {
			log, _ = os.ReadFile(filepath.Join(m.runDir, "stderr.log"))
		}
		return fmt.Errorf("mariadbd on port %d: %w; server log:\n%s", port, err, tail(log, 15))
	}
	m.cmd, m.done, m.Port = cmd, done, port
	m.URL = fmt.Sprintf("mysql://root@127.0.0.1:%d/%s", port, MariaDBDatabase)
	return nil
}

// waitReady waits for "ready for connections" in the error log, then
// confirms with a TCP connect.
func (m *MariaDB) waitReady(ctx context.Context, port int, done <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return errors.New("server exited during startup")
		case <-ctx.Done():
			return fmt.Errorf("not ready: %w", ctx.Err())
		case <-tick.C:
		}
		b, err := os.ReadFile(m.LogFile)
		if err != nil || !strings.Contains(string(b), "ready for connections") {
			continue
		}
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
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

// Stop shuts the server down (SIGTERM, then SIGKILL if it takes too long)
// and removes its runtime directory with the data. It is idempotent.
func (m *MariaDB) Stop() error {
	m.stopOnce.Do(func() {
		if m.cmd != nil {
			m.stopErr = stopMariaDB(m.cmd, m.done)
		}
		if err := os.RemoveAll(m.runDir); err != nil && m.stopErr == nil {
			m.stopErr = err
		}
	})
	return m.stopErr
}

// stopMariaDB sends SIGTERM (a normal shutdown), then SIGKILL.
func stopMariaDB(cmd *exec.Cmd, done <-chan struct{}) error {
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGTERM, 30 * time.Second}, {syscall.SIGKILL, 5 * time.Second}} {
		select {
		case <-done:
			return nil
		default:
		}
		cmd.Process.Signal(step.sig)
		select {
		case <-done:
			return nil
		case <-time.After(step.wait):
		}
	}
	return fmt.Errorf("mariadbd (pid %d) did not exit after SIGKILL", cmd.Process.Pid)
}

// CleanStaleMariaDB stops private MariaDB servers whose docbench process is
// gone and removes their runtime directories; StartMariaDB calls it.
// Directories of live owners, young directories without an owner file (a
// docbench starting up) and servers it cannot prove are ours are left alone.
func CleanStaleMariaDB() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), mariaRunDirPattern))
	for _, dir := range dirs {
		owner := readPID(filepath.Join(dir, ownerFile))
		if owner == 0 {
			if fi, err := os.Stat(dir); err != nil || time.Since(fi.ModTime()) < time.Minute {
				continue
			}
		} else if alive(owner) {
			continue
		}
		if pid := readPID(filepath.Join(dir, mariaPIDFile)); alive(pid) && !zombie(pid) {
			if !isMariaDBOf(pid, filepath.Join(dir, "data")) {
				continue // cannot prove it is ours: leave it
			}
			syscall.Kill(pid, syscall.SIGKILL) // its data goes with the directory
			for i := 0; i < 250 && alive(pid); i++ {
				time.Sleep(20 * time.Millisecond)
			}
		}
		os.RemoveAll(dir)
	}
}

// isMariaDBOf reports whether pid is a mariadbd serving dataDir (it chdirs
// into its data directory). Without /proc it reports false.
func isMariaDBOf(pid int, dataDir string) bool {
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil || strings.TrimSpace(string(comm)) != "mariadbd" {
		return false
	}
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	if err != nil {
		return false
	}
	want, err := filepath.EvalSymlinks(dataDir)
	if err != nil {
		want = dataDir
	}
	return cwd == want
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
