package servertest

import (
	"context"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/server/proc"
	"github.com/docbench/docbench/internal/server/proc/proctest"
)

// Owned gives the peers to the checks of proctest.
func (p *stdinPeer) Owned() *proc.Owned { return &p.own }

func mustCacheRoot(t *testing.T) string {
	root, err := proc.CacheRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// startForTest starts a peer with start, giving it up to timeout (a first
// build included) and the test's log; when it cannot start, the test fails
// in CI and is skipped elsewhere. The peer is stopped when the test ends.
func startForTest[P proctest.Server](t *testing.T, name string, timeout time.Duration, start func(context.Context, io.Writer) (P, error)) P {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	began := time.Now()
	p, err := start(ctx, proctest.Log(t))
	if err != nil {
		proctest.Unavailable(t, err)
	}
	t.Logf("started %s in %s", name, time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() { p.Stop() })
	return p
}

// checkOwnerKilled starts a peer with start from a child process (after
// warm, which starts one here, building it if needed, and skips or fails
// like the other tests), SIGKILLs the child and checks that the peer dies
// with it and that clean removes what it left.
func checkOwnerKilled[P proctest.Server](t *testing.T, start func() (P, error), warm, clean func()) {
	if proctest.OwnerChild(func(string) (P, error) { return start() }) {
		return
	}
	warm()
	child, pid, runDir := proctest.StartOwnerChild(t, "1")
	proctest.KillChild(child)
	if !proc.WaitGone(pid, 10*time.Second) {
		t.Errorf("peer %d survived its owner", pid)
		proc.Signal(pid, syscall.SIGKILL)
	}
	clean()
	proctest.CheckGone(t, "runtime dir", runDir)
}
