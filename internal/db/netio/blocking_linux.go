package netio

import (
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BlockingConn is a connection whose socket is out of Go's network poller:
// a goroutine that must wait for the server waits in ppoll, a system call
// that blocks its thread in the kernel, holding its P, until the server
// answers, as a C client's thread does, and the server's write wakes that
// thread directly. A connection in the poller is woken through the thread
// that waits in epoll_wait, which then wakes another to run the goroutine;
// and an idle thread in epoll_wait is woken by every reply, even for a
// goroutine that is not parked there.
//
// Each worker on a BlockingConn holds a P while it waits, so there should
// be a P for each worker and one more (the runner raises GOMAXPROCS); with
// fewer, the runtime hands a waiting worker's P to another (ppoll is a
// system call the runtime sees, as any blocking one).
//
// The socket stays non-blocking: reads and writes are raw system calls
// that never block; ppoll, given the read and write deadlines, is the one
// that waits. It also watches an eventfd per direction, through which
// SetDeadline and Close wake a waiting call. The descriptor is closed only
// when no call uses it any more (a count of calls in flight), so that a
// Close during a Read never lets the Read touch a descriptor number the
// process has reused; a BlockingConn dropped without Close has its
// descriptors closed by the garbage collector. Reads take turns, and so do
// writes.
type BlockingConn struct {
	fd            int
	local, remote net.Addr
	// refs counts the calls using fd (Close's own included), with closed
	// set once Close was called; fd is closed when it drops to closed.
	refs    atomic.Int64
	cleanup runtime.Cleanup
	r, w    direction
}

// yieldEvery is how often a goroutine waiting on BlockingConns yields its
// P (runtime.Gosched) before it waits. A worker that never parks keeps one
// scheduling tick; after 10 ms on one tick the runtime's monitor thread
// (sysmon) preempts it and, finding it in a system call, hands its P to
// another thread, and having done so polls again every 20 µs. Measured
// beside pgbench (bench/pgbench-cpu.sh), that was 0.5 nanosleeps and 0.6
// more context switches per point read; yielding first keeps the monitor
// at its slowest pace.
const yieldEvery = 5 * time.Millisecond

// epoch is what monotonic times of yields count from.
var epoch = time.Now()

// closed is the bit of BlockingConn.refs that Close sets.
const closed = 1 << 62

// direction is a BlockingConn's state for reads or for writes.
type direction struct {
	mu       sync.Mutex   // one call at a time
	deadline atomic.Int64 // unix ns; 0: none
	wake     int          // eventfd: SetDeadline and Close write to it
	fds      [2]unix.PollFd
	ts       unix.Timespec
	drain    [8]byte
	yielded  time.Duration // the last yield, since epoch
}

// NewBlocking moves c's socket out of the network poller and returns it as
// a *BlockingConn; c is closed. It fails, leaving c open, when c has no
// socket descriptor.
func NewBlocking(c net.Conn) (*BlockingConn, error) {
	rc, err := rawConn(c)
	if err != nil {
		return nil, err
	}
	fd := -1
	var derr error
	if err := rc.Control(func(s uintptr) {
		fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, os.NewSyscallError("fcntl", derr)
	}
	k := &BlockingConn{fd: fd, local: c.LocalAddr(), remote: c.RemoteAddr()}
	for _, d := range []*direction{&k.r, &k.w} {
		if d.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
			k.closeFds()
			return nil, os.NewSyscallError("eventfd", err)
		}
	}
	k.r.fds = [2]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(k.r.wake), Events: unix.POLLIN}}
	k.w.fds = [2]unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}, {Fd: int32(k.w.wake), Events: unix.POLLIN}}
	// Closing c takes the socket out of the poller (epoll_ctl DEL); the
	// duplicate, which keeps the socket open, was never in it.
	c.Close()
	k.cleanup = runtime.AddCleanup(k, closeAll, [3]int{fd, k.r.wake, k.w.wake})
	return k, nil
}

// closeAll closes a dropped BlockingConn's descriptors.
func closeAll(fds [3]int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}

// closeFds closes the descriptors once no call uses them.
func (c *BlockingConn) closeFds() {
	c.cleanup.Stop()
	for _, fd := range []int{c.fd, c.r.wake, c.w.wake} {
		if fd > 0 {
			syscall.Close(fd)
		}
	}
}

// acquire counts a call using fd; false when the connection is closed.
func (c *BlockingConn) acquire() bool {
	for {
		v := c.refs.Load()
		if v&closed != 0 {
			return false
		}
		if c.refs.CompareAndSwap(v, v+1) {
			return true
		}
	}
}

// release ends a call using fd, closing it after Close and the last call.
func (c *BlockingConn) release() {
	if c.refs.Add(-1) == closed {
		c.closeFds()
	}
}

func (c *BlockingConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	d := &c.r
	d.mu.Lock()
	defer d.mu.Unlock()
	if !c.acquire() {
		return 0, net.ErrClosed
	}
	defer c.release()
	for {
		if err := c.wait(d); err != nil {
			return 0, err
		}
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch {
		case e == 0 && n > 0:
			return int(n), nil
		case e == syscall.EAGAIN || e == syscall.EINTR:
			continue
		case c.refs.Load()&closed != 0: // Close shut the socket down
			return 0, net.ErrClosed
		case e == 0:
			return 0, io.EOF
		}
		return 0, os.NewSyscallError("read", e)
	}
}

func (c *BlockingConn) Write(b []byte) (int, error) {
	d := &c.w
	d.mu.Lock()
	defer d.mu.Unlock()
	if !c.acquire() {
		return 0, net.ErrClosed
	}
	defer c.release()
	w := 0
	for w < len(b) {
		if c.refs.Load()&closed != 0 {
			return w, net.ErrClosed
		}
		if err := d.expired(); err != nil {
			return w, err
		}
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(c.fd), uintptr(unsafe.Pointer(&b[w])), uintptr(len(b)-w))
		switch e {
		case 0:
			w += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			if err := c.wait(d); err != nil {
				return w, err
			}
		default:
			return w, os.NewSyscallError("write", e)
		}
	}
	return w, nil
}

// expired reports a passed deadline.
func (d *direction) expired() error {
	if dl := d.deadline.Load(); dl != 0 && time.Now().UnixNano() >= dl {
		return os.ErrDeadlineExceeded
	}
	return nil
}

// wait blocks in ppoll until the socket is ready in d's direction, the
// deadline passes, or the connection is closed. A deadline set meanwhile
// wakes it (d.wake), and it waits again with the new one. It yields the P
// first when it has not for yieldEvery.
func (c *BlockingConn) wait(d *direction) error {
	if now := time.Since(epoch); now-d.yielded >= yieldEvery {
		d.yielded = now
		runtime.Gosched()
	}
	for {
		if c.refs.Load()&closed != 0 {
			return net.ErrClosed
		}
		ts := (*unix.Timespec)(nil)
		if dl := d.deadline.Load(); dl != 0 {
			left := dl - time.Now().UnixNano()
			if left <= 0 {
				return os.ErrDeadlineExceeded
			}
			d.ts = unix.NsecToTimespec(left)
			ts = &d.ts
		}
		d.fds[0].Revents, d.fds[1].Revents = 0, 0
		n, err := unix.Ppoll(d.fds[:], ts, nil)
		switch {
		case err == unix.EINTR || n == 0: // a signal, or the time is up: look again
		case err != nil:
			return os.NewSyscallError("ppoll", err)
		case d.fds[1].Revents != 0:
			_, _ = unix.Read(d.wake, d.drain[:]) // the deadline changed, or closed
		default:
			return nil
		}
	}
}

// Close shuts the socket down, which wakes the calls waiting on it; the
// descriptors are closed when the last of them returns.
func (c *BlockingConn) Close() error {
	for {
		v := c.refs.Load()
		if v&closed != 0 {
			return net.ErrClosed
		}
		if c.refs.CompareAndSwap(v, (v+1)|closed) {
			break
		}
	}
	err := syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	if err == syscall.ENOTCONN { // the other end went first
		err = nil
	}
	c.r.poke()
	c.w.poke()
	c.release()
	return os.NewSyscallError("shutdown", err)
}

// poke wakes d's waiting call, if any.
func (d *direction) poke() {
	one := [8]byte{1}
	_, _ = unix.Write(d.wake, one[:])
}

func (c *BlockingConn) LocalAddr() net.Addr  { return c.local }
func (c *BlockingConn) RemoteAddr() net.Addr { return c.remote }

func (c *BlockingConn) SetDeadline(t time.Time) error {
	c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

func (c *BlockingConn) SetReadDeadline(t time.Time) error  { return c.setDeadline(&c.r, t) }
func (c *BlockingConn) SetWriteDeadline(t time.Time) error { return c.setDeadline(&c.w, t) }

func (c *BlockingConn) setDeadline(d *direction, t time.Time) error {
	if !c.acquire() {
		return net.ErrClosed
	}
	defer c.release()
	var ns int64
	if !t.IsZero() {
		ns = t.UnixNano()
	}
	d.deadline.Store(ns)
	d.poke()
	return nil
}
