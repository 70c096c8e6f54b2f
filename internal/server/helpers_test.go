package server

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// ownedServer is what the tests need of a Postgres, MariaDB or MongoPeer.
type ownedServer interface {
	owned() *serverProc
	Stop() error
}

func (s *serverProc) owned() *serverProc { return s }

// checkGone checks that path no longer exists.
func checkGone(t *testing.T, what, path string) {
	t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s %s still there (stat: %v)", what, path, err)
	}
}

// checkStopped stops srv twice (Stop is idempotent), then checks that
// kill(probe, 0) finds no process (probe is -pid for a process group) and
// that the runtime directory is gone.
func checkStopped(t *testing.T, srv ownedServer, probe int) {
	t.Helper()
	if err := srv.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if err := syscall.Kill(probe, 0); !errors.Is(err, syscall.ESRCH) {
		what := fmt.Sprintf("process %d", probe)
		if probe < 0 {
			what = fmt.Sprintf("process group %d", -probe)
		}
		t.Errorf("%s still running (kill: %v)", what, err)
	}
	checkGone(t, "runtime dir", srv.owned().runDir)
}

// checkStaleCleanup makes the running server srv look abandoned (its owner
// is a dead process), next to a young runtime directory (pattern) without an
// owner file, a docbench starting up. It checks that clean stops the server
// and removes its runtime directory but leaves the young one, and that Stop
// still succeeds afterwards.
func checkStaleCleanup(t *testing.T, srv ownedServer, pattern string, clean func()) {
	t.Helper()
	s := srv.owned()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := writePID(filepath.Join(s.runDir, ownerFile), dead.Process.Pid); err != nil {
		t.Fatal(err)
	}
	young, err := os.MkdirTemp("", pattern)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(young)

	clean()

	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("stale %s (pid %d) still running", filepath.Base(s.cmd.Path), s.cmd.Process.Pid)
	}
	checkGone(t, "stale runtime dir", s.runDir)
	if _, err := os.Stat(young); err != nil {
		t.Errorf("young runtime dir removed: %v", err)
	}
	if err := srv.Stop(); err != nil {
		t.Errorf("Stop after cleanup: %v", err)
	}
}

// childEnv, set in a child process started by startOwnerChild, carries the
// value the parent passed.
const childEnv = "DOCBENCH_TEST_CHILD"

// ownerChild reports whether this process is a child started by
// startOwnerChild. If so, it starts a server with start(value), prints the
// PID of the server process and its runtime directory for the parent (or
// "error …"), and sleeps until the parent kills it.
func ownerChild[S ownedServer](start func(value string) (S, error)) bool {
	value := os.Getenv(childEnv)
	if value == "" {
		return false
	}
	srv, err := start(value)
	if err != nil {
		fmt.Println("error", err)
		return true
	}
	fmt.Println(srv.owned().cmd.Process.Pid, srv.owned().runDir)
	time.Sleep(time.Minute)
	return true
}

// startOwnerChild runs the current test again in a child process (where
// ownerChild starts a server) and returns the child and the server's PID and
// runtime directory. The child is killed, if still running, when the test
// ends.
func startOwnerChild(t *testing.T, value string) (child *exec.Cmd, pid int, runDir string) {
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

// killChild kills a child from startOwnerChild and reaps it.
func killChild(child *exec.Cmd) {
	child.Process.Kill()
	child.Wait()
}
