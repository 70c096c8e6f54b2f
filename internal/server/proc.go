package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// What every private server (PostgreSQL, MariaDB, the MongoDB peer) shares:
// it lives in its own runtime directory os.TempDir()/docbench-KIND-*, which
// holds ownerFile, the PID of the docbench process that started it; its
// process runs in its own process group and dies with that docbench; Stop
// escalates signals until it has exited and removes the runtime directory;
// and a CleanStale* function removes what a dead docbench left behind.

// ownerFile, in a runtime directory, holds the PID of its docbench process.
const ownerFile = "owner.pid"

// alive reports whether a process with this PID exists.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// readPID returns the decimal number on the first line of path, or 0.
func readPID(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	if !s.Scan() {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(s.Text()))
	return pid
}

// writePID writes pid as the one line of path.
func writePID(path string, pid int) error {
	return os.WriteFile(path, []byte(strconv.Itoa(pid)+"\n"), 0o644)
}

// newRunDir creates a runtime directory os.TempDir()/pattern and writes our
// PID into its ownerFile.
func newRunDir(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	if err := writePID(filepath.Join(dir, ownerFile), os.Getpid()); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// cleanStaleDirs removes the runtime directories os.TempDir()/pattern whose
// docbench process is gone, once stopServer(dir) has stopped the server left
// running in one; stopServer returns false for a server it cannot prove is
// ours, whose directory is then left alone. So are directories of live
// owners, and young directories without an owner file: newRunDir writes it
// right after creating the directory, so they belong to a docbench that is
// starting up.
func cleanStaleDirs(pattern string, stopServer func(dir string) bool) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), pattern))
	for _, dir := range dirs {
		owner := readPID(filepath.Join(dir, ownerFile))
		if owner == 0 {
			if fi, err := os.Stat(dir); err != nil || time.Since(fi.ModTime()) < time.Minute {
				continue
			}
		} else if alive(owner) {
			continue
		}
		if stopServer(dir) {
			os.RemoveAll(dir)
		}
	}
}

// waitFor polls cond every 20ms, for up to d, until it holds, and reports
// whether it did.
func waitFor(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
	}
}

// waitGone waits up to d for pid to exit.
func waitGone(pid int, d time.Duration) bool {
	return waitFor(d, func() bool { return !alive(pid) })
}

// killAndWait SIGKILLs pid and waits up to d for it to be gone.
func killAndWait(pid int, d time.Duration) {
	syscall.Kill(pid, syscall.SIGKILL)
	waitGone(pid, d)
}

// serverProc is the part of a running private server that this process owns:
// its runtime directory and its process.
type serverProc struct {
	runDir string
	cmd    *exec.Cmd
	done   chan struct{} // closed when the server process has exited

	stopOnce sync.Once
	stopErr  error
}

// Kill ends the server process with SIGKILL, as a crash would, and waits
// until it has exited; Stop still cleans up afterwards. Tests use it to
// see how docbench behaves when the database dies under a run.
func (s *serverProc) Kill() error {
	if s.cmd == nil || s.cmd.Process == nil {
		return errors.New("server not started by this process")
	}
	if err := s.cmd.Process.Kill(); err != nil {
		return err
	}
	select {
	case <-s.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("pid %d did not exit after SIGKILL", s.cmd.Process.Pid)
	}
}

// shutdown is the body of every Stop: once, halt the process (when it was
// started), remove the runtime directory, then call release (may be nil).
// The first error is kept and returned by every call.
func (s *serverProc) shutdown(halt func() error, release func()) error {
	s.stopOnce.Do(func() {
		if s.cmd != nil {
			s.stopErr = halt()
		}
		if err := os.RemoveAll(s.runDir); err != nil && s.stopErr == nil {
			s.stopErr = err
		}
		if release != nil {
			release()
		}
	})
	return s.stopErr
}

// prepare sets the working directory, a clean environment (no PG* variables
// from the caller, C locale) and the account of a server command.
func prepare(cmd *exec.Cmd, dir string, acct *account) {
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", "LANG=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	acct.apply(cmd)
}

// startOwned starts a server process in its own process group, so that a
// terminal ^C reaches docbench, which stops the server in order, and with
// deathSig sent to it when docbench dies. The channel it returns is closed
// once the process has exited.
func startOwned(cmd *exec.Cmd, deathSig syscall.Signal) (chan struct{}, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setParentDeath(cmd.SysProcAttr, deathSig)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	return done, nil
}

// A stopStep sends sig (none when 0) and waits up to wait for the exit.
type stopStep struct {
	sig  syscall.Signal
	wait time.Duration
}

// stopProcess runs steps, ending with SIGKILL, until the process of cmd has
// exited (done is closed); name is for the error.
func stopProcess(cmd *exec.Cmd, done <-chan struct{}, name string, steps ...stopStep) error {
	for _, step := range steps {
		select {
		case <-done:
			return nil
		default:
		}
		if step.sig != 0 {
			cmd.Process.Signal(step.sig)
		}
		select {
		case <-done:
			return nil
		case <-time.After(step.wait):
		}
	}
	return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", name, cmd.Process.Pid)
}

// waitListening polls ready every 10ms until it returns the port the server
// listens on (0: not yet), then confirms with a TCP connect to it. It gives
// up after a minute, or when done is closed: "WHAT exited during startup".
func waitListening(ctx context.Context, done <-chan struct{}, what string, ready func() int) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return 0, errors.New(what + " exited during startup")
		case <-ctx.Done():
			return 0, fmt.Errorf("not ready: %w", ctx.Err())
		case <-tick.C:
		}
		port := ready()
		if port <= 0 {
			continue
		}
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
		if err == nil {
			c.Close()
			return port, nil
		}
	}
}

// retryBind runs launch, which starts a server on a port from freePort, up
// to three times while it fails with an error containing bindErr: the port is
// free when we pick it but may be taken before the server binds it (parallel
// test binaries).
func retryBind(bindErr string, launch func() error) error {
	for attempt := 0; ; attempt++ {
		err := launch()
		if err == nil || attempt == 2 || !strings.Contains(err.Error(), bindErr) {
			return err
		}
	}
}

// freePort asks the kernel for a free TCP port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail returns the last n lines of b, trimmed.
func tail(b []byte, n int) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// isExecutableFile reports whether path is a regular file with an execute bit.
func isExecutableFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
