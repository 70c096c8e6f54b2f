//go:build linux

package netio

import (
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// rawAvailable says that this system has PollerConn and BlockingConn.
const rawAvailable = true

// PollerConn is a net.Conn whose reads and writes are raw system calls on
// the non-blocking socket, waiting in Go's network poller only when the
// socket is not ready (EAGAIN), as net's own reads and writes do. What it
// leaves out is the scheduler's bookkeeping around each call (entersyscall
// and exitsyscall): a read or write of a non-blocking socket never blocks,
// so there is nothing for it to hand over, and on a 2-core machine shared
// with the server its side effects cost more than the call (the P handed to
// another thread during a loopback write, sysmon woken after each call to
// watch the next; docs/performance.md). Deadlines, Close and addresses are
// the underlying connection's. Reads take turns, and so do writes: each
// direction keeps its call's state in the PollerConn, so that the functions
// given to the RawConn are bound once and allocate nothing.
type PollerConn struct {
	net.Conn
	rc syscall.RawConn

	rmu sync.Mutex // one Read at a time
	wmu sync.Mutex // one Write at a time

	rbuf   []byte
	rn     int
	rerrno syscall.Errno
	readFn func(fd uintptr) bool

	wbuf    []byte
	wn      int
	werrno  syscall.Errno
	writeFn func(fd uintptr) bool
}

// NewPoller returns c with raw reads and writes (a *PollerConn), or an
// error when c has no descriptor to make them on.
func NewPoller(c net.Conn) (*PollerConn, error) {
	rc, err := rawConn(c)
	if err != nil {
		return nil, err
	}
	r := &PollerConn{Conn: c, rc: rc}
	r.readFn, r.writeFn = r.read, r.write // bound once: no allocation per call
	return r, nil
}

// rawConn is c's descriptor, or an error saying why there is none.
func rawConn(c net.Conn) (syscall.RawConn, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("a %T has no socket descriptor", c)
	}
	return sc.SyscallConn()
}

func (c *PollerConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.rbuf, c.rn, c.rerrno = b, 0, 0
	err := c.rc.Read(c.readFn)
	c.rbuf = nil
	switch {
	case err != nil: // a deadline, or closed
		return 0, err
	case c.rerrno != 0:
		return 0, os.NewSyscallError("read", c.rerrno)
	case c.rn == 0:
		return 0, io.EOF
	}
	return c.rn, nil
}

// read makes one read of the socket; false: not ready, wait.
func (c *PollerConn) read(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.rbuf[0])), uintptr(len(c.rbuf)))
		switch e {
		case 0:
			c.rn = int(n)
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		c.rerrno = e
		return true
	}
}

func (c *PollerConn) Write(b []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf, c.wn, c.werrno = b, 0, 0
	err := c.rc.Write(c.writeFn)
	n := c.wn
	c.wbuf = nil
	switch {
	case err != nil:
		return n, err
	case c.werrno != 0:
		return n, os.NewSyscallError("write", c.werrno)
	}
	return n, nil
}

// write writes what is left of the buffer; false: the socket's buffer is
// full, wait.
func (c *PollerConn) write(fd uintptr) bool {
	for c.wn < len(c.wbuf) {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&c.wbuf[c.wn])), uintptr(len(c.wbuf)-c.wn))
		switch e {
		case 0:
			c.wn += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			c.werrno = e
			return true
		}
	}
	return true
}
