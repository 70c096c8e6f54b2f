// Package netio is what the network backends share below their drivers:
// connections whose reads and writes are raw system calls, waiting in the
// network poller (Conn) or blocked in the kernel (KernelConn), and one
// context watch per session instead of the drivers' per statement (Watch).
package netio

import (
	"context"
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// DialFunc is a driver's dial function.
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// RawDial wraps dial so that the connections it makes read and write with
// raw system calls (see Conn).
func RawDial(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return Raw(c), nil
	}
}

// Conn is a net.Conn whose reads and writes are raw system calls on the
// non-blocking socket, waiting on the network poller only when the socket
// is not ready (EAGAIN), as net's own reads and writes do. What it leaves
// out is the scheduler's bookkeeping around each call (entersyscall and
// exitsyscall): a read or write of a non-blocking socket never blocks, so
// there is nothing for it to hand over, and on a 2-core machine shared with
// the server its side effects cost more than the call (the P handed to
// another thread during a loopback write, sysmon woken after each call to
// watch the next; docs/performance.md). Deadlines, Close and addresses are
// the underlying connection's. Unlike a net.Conn, a Conn takes one Read and
// one Write at a time (as the drivers use it): each direction keeps its
// call's state in the Conn, so that the functions given to the RawConn are
// bound once and allocate nothing.
type Conn struct {
	net.Conn
	rc syscall.RawConn

	rbuf   []byte
	rn     int
	rerrno syscall.Errno
	readFn func(fd uintptr) bool

	wbuf    []byte
	wn      int
	werrno  syscall.Errno
	writeFn func(fd uintptr) bool
}

// Raw returns c with raw reads and writes (a *Conn), or c itself when it
// has no descriptor to make them on.
func Raw(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	r := &Conn{Conn: c, rc: rc}
	r.readFn, r.writeFn = r.read, r.write // bound once: no allocation per call
	return r
}

func (c *Conn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
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
func (c *Conn) read(fd uintptr) bool {
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

func (c *Conn) Write(b []byte) (int, error) {
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
func (c *Conn) write(fd uintptr) bool {
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
