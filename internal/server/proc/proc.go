// Package proc is what docbench's private servers (internal/server) and its
// test peers (internal/server/servertest) share: each lives in its own
// runtime directory os.TempDir()/docbench-KIND-*, which holds OwnerFile, the
// PID of the docbench process that started it; its process runs in its own
// process group and dies with that docbench; Stop escalates signals until it
// has exited and removes the runtime directory; a stale-cleanup pass removes
// what a dead docbench left behind; and what is downloaded or built lives in
// one cache directory. All of it is Unix's: on Windows every start fails
// with the one error Supported returns.
package proc

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

// OwnerFile, in a runtime directory, holds the PID of its docbench process.
const OwnerFile = "owner.pid"

// Alive reports whether a process with this PID exists (never on Windows,
// where no server of ours runs).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := Signal(pid, 0)
	return err == nil || err == syscall.EPERM
}

// ReadPID returns the decimal number on the first line of path, or 0.
func ReadPID(path string) int {
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

// WritePID writes pid as the one line of path.
func WritePID(path string, pid int) error {
	return os.WriteFile(path, []byte(strconv.Itoa(pid)+"\n"), 0o644)
}

// NewRunDir creates a runtime directory os.TempDir()/pattern and writes our
// PID into its OwnerFile.
func NewRunDir(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	if err := WritePID(filepath.Join(dir, OwnerFile), os.Getpid()); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// CleanStaleDirs removes the runtime directories os.TempDir()/pattern whose
// docbench process is gone, once stopServer(dir) has stopped the server left
// running in one; stopServer returns false for a server it cannot prove is
// ours, whose directory is then left alone. So are directories of live
// owners, and young directories without an owner file: NewRunDir writes it
// right after creating the directory, so they belong to a docbench that is
// starting up.
func CleanStaleDirs(pattern string, stopServer func(dir string) bool) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), pattern))
	for _, dir := range dirs {
		owner := ReadPID(filepath.Join(dir, OwnerFile))
		if owner == 0 {
			if fi, err := os.Stat(dir); err != nil || time.Since(fi.ModTime()) < time.Minute {
				continue
			}
		} else if Alive(owner) {
			continue
		}
		if stopServer(dir) {
			os.RemoveAll(dir)
		}
	}
}

// WaitFor polls cond every 20ms, for up to d, until it holds, and reports
// whether it did.
func WaitFor(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
	}
}

// WaitGone waits up to d for pid to exit.
func WaitGone(pid int, d time.Duration) bool {
	return WaitFor(d, func() bool { return !Alive(pid) })
}

// KillAndWait SIGKILLs pid and waits up to d for it to be gone.
func KillAndWait(pid int, d time.Duration) {
	Signal(pid, syscall.SIGKILL)
	WaitGone(pid, d)
}

// Owned is the part of a running private server that this process owns:
// its runtime directory and, once started, its process.
type Owned struct {
	RunDir string
	Cmd    *exec.Cmd
	Done   chan struct{} // closed when the server process has exited

	stopOnce sync.Once
	stopErr  error
}

// Started records the process StartOwned started and its done channel.
func (o *Owned) Started(cmd *exec.Cmd, done chan struct{}) { o.Cmd, o.Done = cmd, done }

// Kill ends the server process with SIGKILL, as a crash would, and waits
// until it has exited; Shutdown still cleans up afterwards. Tests use it to
// see how docbench behaves when the database dies under a run.
func (o *Owned) Kill() error {
	if o.Cmd == nil || o.Cmd.Process == nil {
		return errors.New("server not started by this process")
	}
	if err := o.Cmd.Process.Kill(); err != nil {
		return err
	}
	select {
	case <-o.Done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("pid %d did not exit after SIGKILL", o.Cmd.Process.Pid)
	}
}

// Shutdown is the body of every server's Stop: once, halt the process (when
// it was started), remove the runtime directory, then call release (may be
// nil). The first error is kept and returned by every call.
func (o *Owned) Shutdown(halt func() error, release func()) error {
	o.stopOnce.Do(func() {
		if o.Cmd != nil {
			o.stopErr = halt()
		}
		if err := os.RemoveAll(o.RunDir); err != nil && o.stopErr == nil {
			o.stopErr = err
		}
		if release != nil {
			release()
		}
	})
	return o.stopErr
}

// Prepare sets the working directory and a clean environment (no PG*
// variables from the caller, C locale) of a server command, and resets its
// process attributes.
func Prepare(cmd *exec.Cmd, dir string) {
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", "LANG=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
}

// StartOwned starts a server process in its own process group, so that a
// terminal ^C reaches docbench, which stops the server in order, and with
// deathSig sent to it when docbench dies. The channel it returns is closed
// once the process has exited.
func StartOwned(cmd *exec.Cmd, deathSig syscall.Signal) (chan struct{}, error) {
	if err := Supported(); err != nil {
		return nil, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	setOwnGroup(cmd.SysProcAttr)
	setParentDeath(cmd.SysProcAttr, deathSig)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	return done, nil
}

// A StopStep sends Sig (none when 0) and waits up to Wait for the exit.
type StopStep struct {
	Sig  syscall.Signal
	Wait time.Duration
}

// StopProcess runs steps, ending with SIGKILL, until the process of cmd has
// exited (done is closed); name is for the error.
func StopProcess(cmd *exec.Cmd, done <-chan struct{}, name string, steps ...StopStep) error {
	for _, step := range steps {
		select {
		case <-done:
			return nil
		default:
		}
		if step.Sig != 0 {
			cmd.Process.Signal(step.Sig)
		}
		select {
		case <-done:
			return nil
		case <-time.After(step.Wait):
		}
	}
	return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", name, cmd.Process.Pid)
}

// WaitListening polls ready every 10ms until it returns the port the server
// listens on (0: not yet), then confirms with a TCP connect to it. It gives
// up after a minute, or when done is closed: "WHAT exited during startup".
func WaitListening(ctx context.Context, done <-chan struct{}, what string, ready func() int) (int, error) {
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

// Tail returns the last n lines of b, trimmed.
func Tail(b []byte, n int) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// IsExecutableFile reports whether path is a regular file with an execute bit.
func IsExecutableFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
