package cli

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/testutil"
)

// Interrupts as k6 has them, with every operation held by a lock another
// session has on the table: the first interrupt ends a run once the drain
// bound (10 s) has cancelled what is in flight, with a partial result (the
// runner's own test holds its part to the bound plus a second; the margin
// here is for a busy machine, far short of the lock's release at the end
// of the test); the second quits at once; an interrupt before the phase
// begins exits 130 too.
func TestInterruptsWhileTheTableIsLocked(t *testing.T) {
	server := testutil.Postgres(t, "embedded")
	const drain = 10 * time.Second // the runner's default
	run := func(target, res string) []string {
		return []string{"run", "-t", target, "-P", "workloada", "-p", "recordcount=100", "-p", "operationcount=0",
			"-p", "threadcount=2", "--status", "1s", "--out", res}
	}
	for _, c := range []struct {
		name       string
		lockFirst  bool          // lock before the run starts: it waits before its phase begins
		interrupts int           // how many, the second once the first is acknowledged
		within     time.Duration // the exit after the last interrupt
	}{
		{"once", false, 1, drain + 3*time.Second},
		{"twice", false, 2, 3 * time.Second},
		{"before the phase", true, 1, 3 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := testutil.FreshDatabase(t, server)
			if _, stderr, code := docbench(t, "load", "-t", target, "-P", "workloada", "-p", "recordcount=100"); code != 0 {
				t.Fatalf("load: exit %d\n%s", code, stderr)
			}
			res := filepath.Join(t.TempDir(), "r.json")
			var lock func()
			lockTable := func() {
				locker := testutil.PostgresConn(t, target)
				tx, err := locker.Begin(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { tx.Rollback(context.Background()) })
				if _, err := tx.Exec(context.Background(), "LOCK TABLE docbench.usertable IN ACCESS EXCLUSIVE MODE"); err != nil {
					t.Fatal(err)
				}
			}
			lock = lockTable
			if c.lockFirst {
				lock()
				lock = func() {}
			}
			p := startProcess(t, run(target, res)...)
			if !c.lockFirst {
				p.await(t, " operations; ") // under way
			}
			lock()
			watcher := testutil.PostgresConn(t, target)
			waitLockWaits(t, watcher, c.lockFirst)

			p.cmd.Process.Signal(syscall.SIGINT)
			if c.interrupts == 2 {
				p.await(t, "interrupt again")
				p.cmd.Process.Signal(syscall.SIGINT)
			}
			t0 := time.Now()
			code, stderr := p.wait(t, c.within)
			t.Logf("exit %d %s after the last interrupt", code, time.Since(t0).Round(time.Millisecond))
			if code != 130 {
				t.Fatalf("exit %d, want 130\n%s", code, stderr)
			}
			if c.name == "once" {
				if r := readResult(t, res); r.Complete || r.Stopped != "interrupted" {
					t.Fatalf("partial result: complete=%v stopped=%q", r.Complete, r.Stopped)
				}
			}
		})
	}
}

// waitLockWaits waits, for up to a minute, until a statement of docbench's
// waits on a lock (opening: before its phase began) or both workers do.
func waitLockWaits(t *testing.T, conn *pgx.Conn, opening bool) {
	t.Helper()
	var n int
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n >= 2 || opening && n > 0 {
			return
		}
	}
	t.Fatalf("after a minute, %d statements wait on the lock", n)
}

// process is the docbench binary running, its stderr read as it comes.
type process struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	err  strings.Builder
	eof  chan struct{}
	exit chan struct{}
}

// startProcess starts the docbench binary; it is killed at the end of the
// test if it still runs.
func startProcess(t *testing.T, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(binary(t), args...), eof: make(chan struct{}), exit: make(chan struct{})}
	pipe, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.eof)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			p.mu.Lock()
			p.err.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
	}()
	go func() {
		<-p.eof
		p.cmd.Wait()
		close(p.exit)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exit
	})
	return p
}

func (p *process) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err.String()
}

// await returns once the process's stderr holds said, for up to a minute.
func (p *process) await(t *testing.T, said string) {
	t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(p.stderr(), said) {
			return
		}
		select {
		case <-p.exit:
			t.Fatalf("docbench exited (%v) before saying %q:\n%s", p.cmd.ProcessState, said, p.stderr())
		default:
		}
	}
	t.Fatalf("docbench has not said %q after a minute:\n%s", said, p.stderr())
}

// wait returns the exit status and stderr, failing the test when the
// process has not exited within d.
func (p *process) wait(t *testing.T, d time.Duration) (int, string) {
	t.Helper()
	select {
	case <-p.exit:
		return p.cmd.ProcessState.ExitCode(), p.stderr()
	case <-time.After(d):
		t.Fatalf("docbench still runs %s after the interrupt:\n%s", d, p.stderr())
	}
	return 0, ""
}
