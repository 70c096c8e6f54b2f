package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// A Launch is one start of a server process this process owns: the
// PostgreSQL and MariaDB servers and the test peers all start this way.
type Launch struct {
	Cmd      *exec.Cmd      // prepared: arguments, directory, environment, account
	Name     string         // for "NAME exited during startup"
	What     string         // names the start in its error: "postgres on port 5432"
	Output   string         // the file for its stdout and stderr
	DeathSig syscall.Signal // sent to it when docbench dies
	// Started, when set, is told the PID once the process runs.
	Started func(pid int)
	// Ready returns the port the server accepts connections on; 0: not yet.
	Ready func() int
	// Halt stops it when it does not come up.
	Halt func(cmd *exec.Cmd, done <-chan struct{}) error
	// Logs are where the server writes: the error of a failed start carries
	// the tail of the first that is not empty.
	Logs []string
}

// Run starts the process in its own process group (see StartOwned) and
// waits until it listens (see WaitListening). It returns the port and the
// channel closed when the process exits. When the server does not come up
// it is halted, and the error names l.What and carries the tail of its log.
func (l *Launch) Run(ctx context.Context) (port int, done chan struct{}, err error) {
	out, err := os.OpenFile(l.Output, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, nil, err
	}
	defer out.Close() // the child has its own copy
	l.Cmd.Stdout, l.Cmd.Stderr = out, out
	done, err = StartOwned(l.Cmd, l.DeathSig)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", l.What, err)
	}
	if l.Started != nil {
		l.Started(l.Cmd.Process.Pid)
	}
	port, err = WaitListening(ctx, done, l.Name, l.Ready)
	if err != nil {
		l.Halt(l.Cmd, done)
		var log []byte
		for _, f := range l.Logs {
			if log, _ = os.ReadFile(f); len(log) > 0 {
				break
			}
		}
		return 0, nil, fmt.Errorf("%s: %w; server log:\n%s", l.What, err, Tail(log, 15))
	}
	return port, done, nil
}
