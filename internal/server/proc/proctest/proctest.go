// Package proctest holds the checks the tests of internal/server and
// internal/server/servertest share: that a private server stops, that stale
// cleanup removes what a dead docbench left, and that a server dies with the
// process that started it.
package proctest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/server/proc"
)

// Unavailable fails in CI and skips elsewhere (design.md: CI never skips):
// the server the test needs cannot start.
func Unavailable(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(err)
	}
	t.Skip(err)
}

// Log is a writer for a server's progress messages that logs each one.
func Log(t testing.TB) io.Writer { return logWriter{t} }

type logWriter struct{ t testing.TB }

func (w logWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// Server is what the checks need of a private server (a Postgres, MariaDB
// or test peer): the part this process owns, and Stop. The tests of each
// package give its servers the Owned method.
type Server interface {
	Owned() *proc.Owned
	Stop() error
}

// CheckGone checks that path no longer exists.
func CheckGone(t testing.TB, what, path string) {
	t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s %s still there (stat: %v)", what, path, err)
	}
}

// CheckStopped stops srv twice (Stop is idempotent), then checks that
// kill(probe, 0) finds no process (probe is -pid for a process group) and
// that the runtime directory is gone.
func CheckStopped(t testing.TB, srv Server, probe int) {
	t.Helper()
	if err := srv.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if err := proc.Signal(probe, 0); !errors.Is(err, syscall.ESRCH) {
		what := fmt.Sprintf("process %d", probe)
		if probe < 0 {
			what = fmt.Sprintf("process group %d", -probe)
		}
		t.Errorf("%s still running (kill: %v)", what, err)
	}
	CheckGone(t, "runtime dir", srv.Owned().RunDir)
}

// CheckStaleCleanup makes the running server srv look abandoned (its owner
// is a dead process), next to a young runtime directory (pattern) without an
// owner file, a docbench starting up. It checks that clean stops the server
// and removes its runtime directory but leaves the young one, and that Stop
// still succeeds afterwards.
func CheckStaleCleanup(t testing.TB, srv Server, pattern string, clean func()) {
	t.Helper()
	s := srv.Owned()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := proc.WritePID(filepath.Join(s.RunDir, proc.OwnerFile), dead.Process.Pid); err != nil {
		t.Fatal(err)
	}
	young, err := os.MkdirTemp("", pattern)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(young)

	clean()

	select {
	case <-s.Done:
	case <-time.After(10 * time.Second):
		t.Fatalf("stale %s (pid %d) still running", filepath.Base(s.Cmd.Path), s.Cmd.Process.Pid)
	}
	CheckGone(t, "stale runtime dir", s.RunDir)
	if _, err := os.Stat(young); err != nil {
		t.Errorf("young runtime dir removed: %v", err)
	}
	if err := srv.Stop(); err != nil {
		t.Errorf("Stop after cleanup: %v", err)
	}
}

// childEnv, set in a child process started by StartOwnerChild, carries the
// value the parent passed.
const childEnv = "DOCBENCH_TEST_CHILD"

// OwnerChild reports whether this process is a child started by
// StartOwnerChild. If so, it starts a server with start(value), prints the
// PID of the server process and its runtime directory for the parent (or
// "error …"), and sleeps until the parent kills it.
func OwnerChild[S Server](start func(value string) (S, error)) bool {
	value := os.Getenv(childEnv)
	if value == "" {
		return false
	}
	srv, err := start(value)
	if err != nil {
		fmt.Println("error", err)
		return true
	}
	fmt.Println(srv.Owned().Cmd.Process.Pid, srv.Owned().RunDir)
	time.Sleep(time.Minute)
	return true
}

// StartOwnerChild runs the current test again in a child process (where
// OwnerChild starts a server) and returns the child and the server's PID and
// runtime directory. The child is killed, if still running, when the test
// ends.
func StartOwnerChild(t testing.TB, value string) (child *exec.Cmd, pid int, runDir string) {
	t.Helper()
	child = exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
	child.Env = append(os.Environ(), childEnv+"="+value)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if _, err := fmt.Sscan(line, &pid, &runDir); err != nil {
		t.Fatalf("child said %q", line)
	}
	return child, pid, runDir
}

// KillChild kills a child from StartOwnerChild and reaps it.
func KillChild(child *exec.Cmd) {
	child.Process.Kill()
	child.Wait()
}
