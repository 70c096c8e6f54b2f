package server

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// stdinPeer is a test peer process (the MongoDB and MySQL 8 peers): it binds
// port 0, writes the port it got to a ready file, and exits when its
// standard input closes.
type stdinPeer struct {
	serverProc               // runtime directory and process
	stdin      io.Closer     // closing it asks the peer to exit
	name       string        // "MongoDB peer", for messages
	grace      time.Duration // how long it may take to exit after stdin closes
}

// newStdinPeer is a peer that will live in runDir.
func newStdinPeer(runDir, name string, grace time.Duration) stdinPeer {
	return stdinPeer{serverProc: serverProc{runDir: runDir}, name: name, grace: grace}
}

// portFile is where the peer writes its port (the command line names it,
// which is how stale cleanup recognises our peers).
func (p *stdinPeer) portFile() string { return filepath.Join(p.runDir, peerPortFile) }

// logFile holds the peer's stdout and stderr.
func (p *stdinPeer) logFile() string { return filepath.Join(p.runDir, "peer.log") }

// launch runs cmd in the runtime directory with its output in logFile,
// records its PID and waits until it reports its port. On failure the peer
// is stopped and the error, naming what, carries the tail of the log.
func (p *stdinPeer) launch(ctx context.Context, cmd *exec.Cmd, what string) (int, error) {
	logf, err := os.OpenFile(p.logFile(), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, err
	}
	defer logf.Close() // the child has its own copy
	prepare(cmd, p.runDir, nil)
	cmd.Stdout, cmd.Stderr = logf, logf
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	done, err := startOwned(cmd, syscall.SIGKILL)
	if err != nil {
		stdin.Close()
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	p.cmd, p.stdin, p.done = cmd, stdin, done
	writePID(filepath.Join(p.runDir, peerPIDFile), cmd.Process.Pid)
	port, err := waitListening(ctx, done, p.name, func() int { return readPID(p.portFile()) })
	if err != nil {
		p.stopPeer()
		log, _ := os.ReadFile(p.logFile())
		return 0, fmt.Errorf("%s: %w; log:\n%s", what, err, tail(log, 15))
	}
	return port, nil
}

// Stop shuts the peer down (its data is in memory and is gone) and removes
// its runtime directory. It is idempotent.
func (p *stdinPeer) Stop() error {
	return p.shutdown(p.stopPeer, nil)
}

// stopPeer closes the peer's standard input (it exits on end of file), then
// escalates SIGTERM → SIGKILL until it has exited. (SIGQUIT would only make
// a JVM print a thread dump.)
func (p *stdinPeer) stopPeer() error {
	p.stdin.Close()
	return stopProcess(p.cmd, p.done, p.name,
		stopStep{0, p.grace}, stopStep{syscall.SIGTERM, 5 * time.Second}, stopStep{syscall.SIGKILL, 5 * time.Second})
}
