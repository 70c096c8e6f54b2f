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

// launch starts cmd (prepared to run in the runtime directory), records
// its PID and waits until it reports its port in portFile. On failure the
// peer is stopped and the error carries the tail of logFile.
func (p *stdinPeer) launch(ctx context.Context, cmd *exec.Cmd, portFile, logFile, what string) (int, error) {
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
	port, err := waitListening(ctx, done, p.name, func() int { return readPID(portFile) })
	if err != nil {
		p.stopPeer()
		log, _ := os.ReadFile(logFile)
		return 0, fmt.Errorf("%s: %w; log:\n%s", what, err, tail(log, 15))
	}
	return port, nil
}

// stopPeer closes the peer's standard input (it exits on end of file), then
// escalates SIGTERM → SIGKILL until it has exited. (SIGQUIT would only make
// a JVM print a thread dump.)
func (p *stdinPeer) stopPeer() error {
	p.stdin.Close()
	return stopProcess(p.cmd, p.done, p.name,
		stopStep{0, p.grace}, stopStep{syscall.SIGTERM, 5 * time.Second}, stopStep{syscall.SIGKILL, 5 * time.Second})
}
