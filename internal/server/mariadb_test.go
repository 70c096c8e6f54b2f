package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/docbench/docbench/internal/server/proc"
	"github.com/docbench/docbench/internal/server/proc/proctest"
)

// connectMariaDB opens the URL StartMariaDB returns (mysql://root@host:port/db).
func connectMariaDB(t *testing.T, rawURL string) *sql.DB {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = u.User.Username(), "tcp", u.Host, strings.TrimPrefix(u.Path, "/")
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestMariaDB(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	m, err := StartMariaDB(ctx, MariaDBOptions{
		Settings: map[string]string{"innodb_flush_log_at_trx_commit": "2", "max_connections": "77"},
		Log:      proctest.Log(t),
	})
	if err != nil {
		proctest.Unavailable(t, err)
	}
	t.Logf("started MariaDB %s in %s at %s", m.Version, time.Since(began).Round(time.Millisecond), m.URL)
	defer m.Stop()
	if want := fmt.Sprintf("mysql://root@127.0.0.1:%d/%s", m.Port, MariaDBDatabase); m.URL != want {
		t.Errorf("URL = %q, want %q", m.URL, want)
	}

	db := connectMariaDB(t, m.URL)
	var version, database string
	var flush, maxConn int
	if err := db.QueryRowContext(ctx, "SELECT VERSION(), DATABASE(), @@innodb_flush_log_at_trx_commit, @@max_connections").
		Scan(&version, &database, &flush, &maxConn); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(version, "MariaDB") || version != m.Version {
		t.Errorf("VERSION() = %q, want the MariaDB version %q", version, m.Version)
	}
	if database != MariaDBDatabase || flush != 2 || maxConn != 77 {
		t.Errorf("database %q, innodb_flush_log_at_trx_commit %d, max_connections %d; want %s, 2, 77", database, flush, maxConn, MariaDBDatabase)
	}
	var bind string
	db.QueryRowContext(ctx, "SELECT @@bind_address").Scan(&bind)
	if bind != "127.0.0.1" {
		t.Errorf("bind_address = %q, want 127.0.0.1", bind)
	}
	db.Close()

	proctest.CheckStopped(t, m, -m.own.Cmd.Process.Pid)
}

func TestMariaDBBadSettingShowsLog(t *testing.T) {
	if _, _, err := mariaBinaries(); err != nil {
		proctest.Unavailable(t, err)
	}
	_, err := StartMariaDB(context.Background(), MariaDBOptions{Settings: map[string]string{"no_such_variable": "1"}})
	if err == nil {
		t.Fatal("start with an unknown variable succeeded")
	}
	t.Log(err)
	if !strings.Contains(err.Error(), "server log:") || !strings.Contains(err.Error(), "no_such_variable") {
		t.Errorf("error does not carry the log proc.Tail naming the variable: %v", err)
	}
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), mariaRunDirPattern))
	for _, d := range dirs {
		if proc.ReadPID(filepath.Join(d, proc.OwnerFile)) == os.Getpid() {
			t.Errorf("failed start left %s", d)
		}
	}
}

// TestMariaDBStaleCleanup makes a running server look abandoned (its owner
// is a dead process) and checks that the cleanup stops it and removes it.
func TestMariaDBStaleCleanup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m, err := StartMariaDB(ctx, MariaDBOptions{})
	if err != nil {
		proctest.Unavailable(t, err)
	}
	defer m.Stop()
	proctest.CheckStaleCleanup(t, m, mariaRunDirPattern, CleanStaleMariaDB)
}

// TestMariaDBOwnerKilled starts a server from a child process, SIGKILLs the
// child and checks that the server dies with it and that the next cleanup
// removes what it left.
func TestMariaDBOwnerKilled(t *testing.T) {
	if proctest.OwnerChild(func(string) (*MariaDB, error) {
		return StartMariaDB(context.Background(), MariaDBOptions{})
	}) {
		return
	}
	if _, _, err := mariaBinaries(); err != nil {
		proctest.Unavailable(t, err)
	}
	child, pid, runDir := proctest.StartOwnerChild(t, "1")
	proctest.KillChild(child)
	gone := func() bool { return errors.Is(proc.Signal(-pid, 0), syscall.ESRCH) || zombie(pid) }
	if !proc.WaitFor(10*time.Second, gone) {
		t.Errorf("mariadbd (pid %d) survived its owner", pid)
		proc.Signal(pid, syscall.SIGKILL)
	}
	CleanStaleMariaDB()
	proctest.CheckGone(t, "runtime dir", runDir)
}

func TestMariaDBVersionParse(t *testing.T) {
	bin, _, err := mariaBinaries()
	if err != nil {
		proctest.Unavailable(t, err)
	}
	v, err := mariaVersion(context.Background(), bin)
	if err != nil || !strings.Contains(v, "MariaDB") {
		t.Errorf("mariaVersion = %q, %v", v, err)
	}
}
