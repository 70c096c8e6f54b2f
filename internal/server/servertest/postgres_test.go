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

// TestLocalPostgres starts a cluster of the highest Debian install and
// checks that it is that version, that it does not run as root (but as the
// package's "postgres" user), and that Stop stops the postmaster with its
// backends and removes the runtime directory. (Settings, logs and the rest
// of a start are TestEmbeddedPostgres's, on the same code path.)
func TestLocalPostgres(t *testing.T) {
	bin, err := LocalPostgresBinDir()
	if err != nil {
		proctest.Unavailable(t, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, err := StartLocalPostgres(ctx, server.PostgresOptions{})
	if err != nil {
		proctest.Unavailable(t, err)
	}
	defer p.Stop()
	if p.BinDir != bin {
		t.Errorf("started from %s, want the highest install %s", p.BinDir, bin)
	}
	conn, err := pgx.Connect(ctx, p.URL)
	if err != nil {
		t.Fatal(err)
	}
	var version string
	err = conn.QueryRow(ctx, "select version()").Scan(&version)
	conn.Close(ctx)
	if err != nil || !strings.HasPrefix(version, "PostgreSQL "+p.Version) {
		t.Errorf("version() = %q, %v; want PostgreSQL %s", version, err, p.Version)
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
	if err := proc.Signal(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d still running (kill: %v)", pid, err)
	}
	proctest.CheckGone(t, "runtime dir", filepath.Dir(p.DataDir))
}
