package servertest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/server"
	"github.com/docbench/docbench/internal/server/proc"
	"github.com/docbench/docbench/internal/server/proc/proctest"
)

// TestLocalPostgres starts a cluster of the Debian install, checks that its
// settings apply and that it does not run as root, and that Stop stops the
// postmaster with its backends and removes the runtime directory.
func TestLocalPostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	p, err := StartLocalPostgres(ctx, server.PostgresOptions{
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
	err = conn.QueryRow(ctx, "select version(), current_setting('synchronous_commit'), current_setting('application_name')").Scan(&version, &syncCommit, &appName)
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, "PostgreSQL ") || !strings.Contains(version, p.Version) {
		t.Errorf("version() = %q, want PostgreSQL %s", version, p.Version)
	}
	if syncCommit != "off" || appName != "docbench test" {
		t.Errorf("synchronous_commit = %q, application_name = %q; want off, docbench test", syncCommit, appName)
	}

	pid := proc.ReadPID(filepath.Join(p.DataDir, "postmaster.pid"))
	if pid == 0 {
		t.Fatalf("no postmaster.pid in %s", p.DataDir)
	}
	if os.Geteuid() == 0 {
		status, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if strings.Contains(string(status), "\nUid:\t0\t") {
			t.Errorf("postmaster runs as root")
		}
	}
	for range 2 { // Stop is idempotent
		if err := p.Stop(); err != nil {
			t.Fatalf("Stop: %v", err)
		}
	}
	// The postmaster ran in its own process group, with all its backends.
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d still running (kill: %v)", pid, err)
	}
	proctest.CheckGone(t, "runtime dir", filepath.Dir(p.DataDir))
}
