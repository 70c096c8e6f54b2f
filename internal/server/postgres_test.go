package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/server/proc"
	"github.com/docbench/docbench/internal/server/proc/proctest"
)

func TestEmbeddedPostgres(t *testing.T) {
	checkServer(t, StartPostgres, "PostgreSQL 18.6")
}

func checkServer(t *testing.T, startFn func(context.Context, PostgresOptions) (*Postgres, error), wantVersion string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	p, err := startFn(ctx, PostgresOptions{
		Settings: map[string]string{"synchronous_commit": "off", "application_name": "docbench test"},
		Log:      proctest.Log(t),
	})
	if err != nil {
		proctest.Unavailable(t, err)
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

	pid := p.own.Cmd.Process.Pid
	if os.Geteuid() == 0 {
		status, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if strings.Contains(string(status), "\nUid:\t0\t") {
			t.Errorf("postmaster runs as root")
		}
	}
	// The postmaster ran in its own process group, with all its backends.
	proctest.CheckStopped(t, p, -pid)
}

// TestStaleCleanup makes a running server look abandoned (its owner PID is
// a dead process) and checks that the next start stops it and removes it.
func TestStaleCleanup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, err := StartPostgres(ctx, PostgresOptions{Log: proctest.Log(t)})
	if err != nil {
		proctest.Unavailable(t, err)
	}
	defer p.Stop()
	proctest.CheckStaleCleanup(t, p, runDirPattern, CleanStale)
}

// TestOwnerKilled starts a server from a child process, SIGKILLs the child
// and checks that the server dies with it and that the next CleanStale
// removes what it left.
func TestOwnerKilled(t *testing.T) {
	if proctest.OwnerChild(func(string) (*Postgres, error) {
		return StartPostgres(context.Background(), PostgresOptions{})
	}) {
		return
	}
	// The binaries are in the cache before the child starts its server.
	if _, _, err := prepareEmbedded(context.Background(), PostgresOptions{Version: DefaultPostgresVersion}); err != nil {
		proctest.Unavailable(t, err)
	}
	child, pid, runDir := proctest.StartOwnerChild(t, "1")
	proctest.KillChild(child)
	groupGone := func() bool { return errors.Is(proc.Signal(-pid, 0), syscall.ESRCH) }
	if !proc.WaitFor(10*time.Second, groupGone) {
		t.Errorf("server processes (group %d) survived their owner", pid)
		killWait(pid)
	}
	CleanStale()
	proctest.CheckGone(t, "runtime dir", runDir)
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
