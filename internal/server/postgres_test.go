package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// unavailable fails in CI and skips elsewhere (design.md: CI never skips).
func unavailable(t *testing.T, err error) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(err)
	}
	t.Skip(err)
}

type logWriter struct{ t *testing.T }

func (w logWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

func TestEmbeddedPostgres(t *testing.T) {
	checkServer(t, StartPostgres, "PostgreSQL 18.6")
}

func TestLocalPostgres(t *testing.T) {
	checkServer(t, StartLocalPostgres, "PostgreSQL ")
}

func checkServer(t *testing.T, startFn func(context.Context, PostgresOptions) (*Postgres, error), wantVersion string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	p, err := startFn(ctx, PostgresOptions{
		Settings: map[string]string{"synchronous_commit": "off", "application_name": "docbench test"},
		Log:      logWriter{t},
	})
	if err != nil {
		unavailable(t, err)
	}
	t.Logf("started PostgreSQL %s in %s at %s", p.Version, time.Since(began).Round(time.Millisecond), p.URL)
	defer p.Stop()

	conn, err := pgx.Connect(ctx, p.URL)
	if err != nil {
		t.Fatal(err)
	}
	var version, syncCommit, appName string
	if err := conn.QueryRow(ctx, "select version()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, wantVersion) || !strings.Contains(version, p.Version) {
		t.Errorf("version() = %q, want prefix %q and %q", version, wantVersion, p.Version)
	}
	conn.QueryRow(ctx, "show synchronous_commit").Scan(&syncCommit)
	conn.QueryRow(ctx, "select setting from pg_settings where name = 'application_name'").Scan(&appName)
	if syncCommit != "off" || appName != "docbench test" {
		t.Errorf("synchronous_commit = %q, application_name = %q; want off, docbench test", syncCommit, appName)
	}
	conn.Close(ctx)

	pid := p.cmd.Process.Pid
	if os.Geteuid() == 0 {
		status, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if strings.Contains(string(status), "\nUid:\t0\t") {
			t.Errorf("postmaster runs as root")
		}
	}
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := p.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	// The postmaster ran in its own process group, with all its backends.
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d still has processes (kill: %v)", pid, err)
	}
	if _, err := os.Stat(p.runDir); !os.IsNotExist(err) {
		t.Errorf("runtime dir %s still there (stat: %v)", p.runDir, err)
	}
}

// TestStaleCleanup makes a running server look abandoned (its owner PID is
// a dead process) and checks that the next start stops it and removes it.
func TestStaleCleanup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := StartPostgres
	if _, err := localBinDir(); err == nil {
		start = StartLocalPostgres // no download needed
	}
	p, err := start(ctx, PostgresOptions{Log: logWriter{t}})
	if err != nil {
		unavailable(t, err)
	}
	defer p.Stop()

	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	owner := filepath.Join(p.runDir, ownerFile)
	if err := os.WriteFile(owner, []byte(strconv.Itoa(dead.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A young directory without owner file belongs to a starting docbench.
	young, err := os.MkdirTemp("", runDirPattern)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(young)

	CleanStale()

	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("stale postmaster still running")
	}
	if _, err := os.Stat(p.runDir); !os.IsNotExist(err) {
		t.Errorf("stale runtime dir %s still there (stat: %v)", p.runDir, err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("young runtime dir removed: %v", err)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("Stop after cleanup: %v", err)
	}
}

// TestOwnerKilled starts a server from a child process, SIGKILLs the child
// and checks that the server dies with it and that the next CleanStale
// removes what it left.
func TestOwnerKilled(t *testing.T) {
	if os.Getenv("DOCBENCH_TEST_CHILD") != "" {
		p, err := StartLocalPostgres(context.Background(), PostgresOptions{})
		if err != nil {
			fmt.Println("error", err)
			return
		}
		fmt.Println(p.cmd.Process.Pid, p.runDir)
		time.Sleep(time.Minute)
		return
	}
	if _, err := localBinDir(); err != nil {
		unavailable(t, err)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestOwnerKilled$")
	child.Env = append(os.Environ(), "DOCBENCH_TEST_CHILD=1")
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	var pid int
	var runDir string
	if _, err := fmt.Sscan(line, &pid, &runDir); err != nil {
		child.Process.Kill()
		t.Fatalf("child said %q", line)
	}
	child.Process.Kill()
	child.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(-pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("server processes (group %d) survived their owner", pid)
		killWait(pid)
	}
	CleanStale()
	if _, err := os.Stat(runDir); !os.IsNotExist(err) {
		t.Errorf("runtime dir %s left behind (stat: %v)", runDir, err)
	}
}

func TestUnavailableIsOneLine(t *testing.T) {
	dead, _ := url.Parse("http://127.0.0.1:1") // nothing listens there
	httpClient = &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(dead)}}
	defer func() { httpClient = http.DefaultClient }()
	root := t.TempDir()
	_, err := embeddedBinaries(context.Background(), root, "0.0.0-nonexistent", nil)
	if err == nil {
		t.Fatal("download through a dead proxy succeeded")
	}
	if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "download https://repo1.maven.org/") {
		t.Errorf("error is not one line naming the URL: %q", err)
	}
	t.Log(err)
}
