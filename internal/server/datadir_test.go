package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/server/proc"
	"github.com/docbench/docbench/internal/server/proc/proctest"
)

// persistentDir returns a data directory path below a fresh temporary
// directory whose ancestors the server account can traverse.
func persistentDir(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	for _, d := range []string{base, filepath.Dir(base)} { // …/TestX123/001 and …/TestX123
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(base, "pgdata")
}

func startPersistent(t *testing.T, ctx context.Context, dir string, settings map[string]string) *Postgres {
	t.Helper()
	p, err := StartPostgres(ctx, PostgresOptions{DataDir: dir, Settings: settings, Log: proctest.Log(t)})
	if err != nil {
		if strings.HasPrefix(err.Error(), "embedded PostgreSQL unavailable:") {
			proctest.Unavailable(t, err)
		}
		t.Fatal(err)
	}
	return p
}

func queryOne(t *testing.T, ctx context.Context, url, sql string) string {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var s string
	if err := conn.QueryRow(ctx, sql).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

func execSQL(t *testing.T, ctx context.Context, url string, sqls ...string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, sql := range sqls {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

func TestPersistentDataDir(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := persistentDir(t)

	p := startPersistent(t, ctx, dir, map[string]string{"application_name": "first"})
	defer p.Stop()
	if p.DataDir != dir {
		t.Errorf("DataDir = %s, want %s", p.DataDir, dir)
	}
	execSQL(t, ctx, p.URL, "create table kept (id int primary key, v text)", "insert into kept values (1, 'row one')")

	// A second start while the first runs: a clear one-line error.
	_, err := StartPostgres(ctx, PostgresOptions{DataDir: dir})
	want := fmt.Sprintf("data directory %s is in use by another docbench (pid %d)", dir, os.Getpid())
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("second start: %v; want one line containing %q", err, want)
	}
	t.Log(err)

	CleanStale() // an owned server and its data directory are left alone
	if v := queryOne(t, ctx, p.URL, "select v from kept"); v != "row one" {
		t.Errorf("after CleanStale: v = %q", v)
	}
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if _, err := os.Stat(p.own.RunDir); !os.IsNotExist(err) {
		t.Errorf("runtime dir %s still there (stat: %v)", p.own.RunDir, err)
	}
	CleanStale()
	for _, f := range []string{"PG_VERSION", "base"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("data directory not kept by Stop and CleanStale: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "postmaster.pid")); !os.IsNotExist(err) {
		t.Errorf("postmaster.pid left after Stop (stat: %v)", err)
	}

	// Again, with other settings: the row is there, no crash recovery ran.
	p2 := startPersistent(t, ctx, dir, map[string]string{"application_name": "second"})
	defer p2.Stop()
	if v := queryOne(t, ctx, p2.URL, "select v from kept where id = 1"); v != "row one" {
		t.Errorf("second start: v = %q, want row one", v)
	}
	if v := queryOne(t, ctx, p2.URL, "select setting from pg_settings where name = 'application_name'"); v != "second" {
		t.Errorf("second start: application_name = %q, want second", v)
	}
	log, _ := os.ReadFile(p2.LogFile)
	if !strings.Contains(string(log), "database system was shut down at") || strings.Contains(string(log), "recovery") {
		t.Errorf("second start was not after a clean shutdown; server log:\n%s", log)
	}
	if err := p2.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}

	// A failed start shows the server log and releases the directory.
	if _, err := StartPostgres(ctx, PostgresOptions{DataDir: dir, Settings: map[string]string{"shared_buffers": "bogus"}}); err == nil ||
		!strings.Contains(err.Error(), "shared_buffers") {
		t.Errorf("start with a bad setting: %v; want the server log naming shared_buffers", err)
	} else {
		t.Log(err)
	}

	// A stale postmaster.pid naming a live, unrelated process (PID reuse
	// after a crash) does not block the start.
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	stale := fmt.Sprintf("%d\n%s\n1700000000\n5432\n/tmp\n127.0.0.1\n  1234   5678\nready   \n", sleeper.Process.Pid, dir)
	if err := os.WriteFile(filepath.Join(dir, "postmaster.pid"), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	p3 := startPersistent(t, ctx, dir, nil)
	defer p3.Stop()
	if v := queryOne(t, ctx, p3.URL, "select count(*)::text from kept"); v != "1" {
		t.Errorf("third start: count = %s, want 1", v)
	}
	if err := p3.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
}

func TestPersistentDataDirErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// As root, the server's account is made as a StartPostgres would.
	acct, err := serverAccount(embeddedUser, true)
	if err != nil {
		proctest.Unavailable(t, err)
	}

	// Another major version.
	old := persistentDir(t)
	if err := os.Mkdir(old, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(old, "PG_VERSION"), []byte("17\n"), 0o600)
	acct.chown(old)
	_, err = StartPostgres(ctx, PostgresOptions{DataDir: old})
	if err == nil || !strings.Contains(err.Error(), old) || !strings.Contains(err.Error(), "PostgreSQL 17") ||
		!strings.Contains(err.Error(), "PostgreSQL 18.6") || strings.Contains(err.Error(), "\n") {
		t.Errorf("start on a PostgreSQL 17 directory: %v", err)
	}
	t.Log(err)

	// Not a data directory.
	junk := persistentDir(t)
	os.Mkdir(junk, 0o755)
	os.WriteFile(filepath.Join(junk, "notes.txt"), []byte("mine\n"), 0o644)
	_, err = StartPostgres(ctx, PostgresOptions{DataDir: junk})
	if err == nil || !strings.Contains(err.Error(), "not a PostgreSQL data directory") {
		t.Errorf("start on a non-empty non-cluster directory: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(junk, "notes.txt")); string(b) != "mine\n" {
		t.Errorf("foreign directory touched")
	}

	// As root, a parent the server account cannot enter.
	if acct != nil {
		parent := t.TempDir()
		if err := os.Chmod(parent, 0o700); err != nil {
			t.Fatal(err)
		}
		closed := filepath.Join(parent, "pgdata")
		p, err := StartPostgres(ctx, PostgresOptions{DataDir: closed})
		if err == nil {
			p.Stop()
		}
		if err == nil || !strings.Contains(err.Error(), "cannot enter") || strings.Contains(err.Error(), "\n") {
			t.Errorf("start below a closed directory: %v", err)
		}
		t.Log(err)
	}

	// Inside a runtime directory, which CleanStale would remove.
	_, err = StartPostgres(ctx, PostgresOptions{DataDir: filepath.Join(os.TempDir(), "docbench-pg-123", "data")})
	if err == nil || !strings.Contains(err.Error(), "runtime directory") {
		t.Errorf("start inside a runtime directory: %v", err)
	}
}

// TestPersistentOwnerKilled runs a server on a persistent data directory in
// a child process, checks that a start from here is refused while the child
// lives, SIGKILLs the child and starts the same directory again at once.
func TestPersistentOwnerKilled(t *testing.T) {
	if proctest.OwnerChild(func(dir string) (*Postgres, error) {
		ctx := context.Background()
		p, err := StartPostgres(ctx, PostgresOptions{DataDir: dir})
		if err != nil {
			return nil, err
		}
		conn, err := pgx.Connect(ctx, p.URL)
		if err == nil {
			_, err = conn.Exec(ctx, "create table kept (id int primary key, v text); insert into kept values (1, 'from child')")
		}
		if err != nil {
			return nil, err
		}
		return p, nil
	}) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Make sure the binaries and account are there before the child runs.
	dir := persistentDir(t)
	p := startPersistent(t, ctx, filepath.Join(filepath.Dir(dir), "warmup"), nil)
	p.Stop()

	child, pid, runDir := proctest.StartOwnerChild(t, dir)
	_, err := StartPostgres(ctx, PostgresOptions{DataDir: dir})
	want := fmt.Sprintf("data directory %s is in use by another docbench (pid %d)", dir, child.Process.Pid)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("start while the child runs: %v; want %q", err, want)
	}

	proctest.KillChild(child)
	// At once: the orphaned server may still be shutting down.
	p = startPersistent(t, ctx, dir, nil)
	defer p.Stop()
	log, _ := os.ReadFile(p.LogFile)
	for _, l := range strings.Split(string(log), "\n") {
		if strings.Contains(l, "database system was") || strings.Contains(l, "redo") {
			t.Log(l)
		}
	}
	if v := queryOne(t, ctx, p.URL, "select v from kept"); v != "from child" {
		t.Errorf("after the owner was killed: v = %q", v)
	}
	// The orphaned server has handed the directory over; its last
	// processes may still be exiting (slower under the race detector):
	// they must be gone within seconds, not linger.
	gone := false
	for deadline := time.Now().Add(10 * time.Second); !gone && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		gone = errors.Is(proc.Signal(-pid, 0), syscall.ESRCH)
	}
	if !gone {
		t.Errorf("the killed child's server (group %d) still runs 10 s after the directory was started again", pid)
	}
	proctest.CheckGone(t, "the killed child's runtime dir", runDir)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err != nil {
		t.Errorf("data directory gone: %v", err)
	}
}

func TestDefaultDataDir(t *testing.T) {
	root, err := proc.CacheRoot()
	if err != nil {
		proctest.Unavailable(t, err)
	}
	if got, want := DefaultDataDir("18.6.0"), filepath.Join(root, "data", "pg-18.6"); got != want {
		t.Errorf("DefaultDataDir(18.6.0) = %s, want %s", got, want)
	}
	if got := DefaultDataDir(""); got != DefaultDataDir(DefaultPostgresVersion) {
		t.Errorf("DefaultDataDir(\"\") = %s", got)
	}
	if majorOf("18.6") != "18" || majorOf("9.6.24") != "9.6" || strconv.Itoa(10) != majorOf("10.1") {
		t.Errorf("majorOf")
	}
}
