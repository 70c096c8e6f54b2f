package netio

import (
	"context"
	"io"
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// kernelSlice bounds one blocking system call of a KernelConn: the call
// returns to Go this often while it waits, so that the runtime can stop the
// goroutine (a garbage collection waits for it) and a deadline is noticed.
const kernelSlice = 10 * time.Millisecond

// KernelConn is a connection on a blocking socket that is not in Go's
// network poller, read and written with raw system calls: a read blocks the
// goroutine's thread in the kernel, holding its P, until the server answers,
// as a C client's thread does, and the server's write wakes that thread
// directly. A connection in the poller is woken through the thread that
// waits in epoll_wait, which then wakes another to run the goroutine; and
// an idle thread in epoll_wait is woken by every reply, even for a
// goroutine that is not parked there.
//
// Each worker on a KernelConn holds a P while it waits, so there should be
// a P for each worker and one more (the runner raises GOMAXPROCS); with
// fewer, the others run when a waiting worker yields. A blocking call
// returns every kernelSlice (SO_RCVTIMEO, SO_SNDTIMEO) to check the
// deadline, and yields. Like Conn, a KernelConn takes one Read and one
// Write at a time.
type KernelConn struct {
	fd            int
	local, remote net.Addr
	deadline      atomic.Int64 // unix ns; 0: none
	closed        atomic.Bool
}

// startProcs is GOMAXPROCS as the process started: the CPUs the Go runtime
// sees (affinity and cgroup limits included), or what the user set.
var startProcs = runtime.GOMAXPROCS(0)

// KernelWaitPays says whether workers blocking in the kernel (KernelConn)
// cost less client CPU than workers waiting in the network poller: with up
// to two workers per CPU. With more, the poller's one epoll_wait hands over
// several replies at a time and runs them without a context switch each,
// and that costs less (docs/performance.md). When the user set GOMAXPROCS,
// which the runner then leaves as it is, only with fewer workers than Ps:
// a blocked worker holds its P. threads 0: unknown, one.
func KernelWaitPays(threads int) bool {
	if os.Getenv("GOMAXPROCS") != "" {
		return threads < startProcs
	}
	return threads <= 2*startProcs
}

// KernelWait reads a backend's blockingio property: "true" and "false" say
// whether sessions block in the kernel; anything else ("auto") leaves it to
// KernelWaitPays for threads.
func KernelWait(prop string, threads int) bool {
	switch prop {
	case "true":
		return true
	case "false":
		return false
	}
	return KernelWaitPays(threads)
}

// KernelDial wraps dial so that its connections are KernelConns.
func KernelDial(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return Kernel(c)
	}
}

// Kernel moves c's socket out of the network poller into blocking mode and
// returns it as a *KernelConn; c is closed. It returns c itself when c has
// no descriptor to move.
func Kernel(c net.Conn) (net.Conn, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c, nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c, nil
	}
	fd := -1
	var derr error
	if err := rc.Control(func(s uintptr) {
		syscall.ForkLock.RLock() // no child started meanwhile inherits the duplicate
		defer syscall.ForkLock.RUnlock()
		if fd, derr = syscall.Dup(int(s)); derr == nil {
			syscall.CloseOnExec(fd)
		}
	}); err != nil || derr != nil {
		return c, nil
	}
	k := &KernelConn{fd: fd, local: c.LocalAddr(), remote: c.RemoteAddr()}
	c.Close() // the original descriptor leaves the poller; the duplicate was never in it
	tv := syscall.NsecToTimeval(int64(kernelSlice))
	for _, err := range []error{
		syscall.SetNonblock(fd, false),
		syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv),
		syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv),
	} {
		if err != nil {
			syscall.Close(fd)
			return nil, os.NewSyscallError("setsockopt", err)
		}
	}
	return k, nil
}

func (c *KernelConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch e {
		case 0:
			if n == 0 {
				return 0, io.EOF
			}
			return int(n), nil
		case syscall.EAGAIN, syscall.EINTR:
			if err := c.wait(); err != nil {
				return 0, err
			}
			continue
		}
		return 0, os.NewSyscallError("read", e)
	}
}

func (c *KernelConn) Write(b []byte) (int, error) {
	w := 0
	for w < len(b) {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(c.fd), uintptr(unsafe.Pointer(&b[w])), uintptr(len(b)-w))
		switch e {
		case 0:
			w += int(n)
		case syscall.EAGAIN, syscall.EINTR:
			if err := c.wait(); err != nil {
				return w, err
			}
		default:
			return w, os.NewSyscallError("write", e)
		}
	}
	return w, nil
}

// wait is called when a blocking call returned without data (its time
// slice passed, or a signal came): it reports a closed connection or a
// passed deadline, and yields the P, so that the runtime can stop the
// goroutine (a raw system call is no preemption point) and a goroutine
// waiting for a P, when there are too few, runs.
func (c *KernelConn) wait() error {
	runtime.Gosched()
	if c.closed.Load() {
		return net.ErrClosed
	}
	if d := c.deadline.Load(); d != 0 && time.Now().UnixNano() >= d {
		return os.ErrDeadlineExceeded
	}
	return nil
}

func (c *KernelConn) Close() error {
	if c.closed.Swap(true) {
		return net.ErrClosed
	}
	_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	return syscall.Close(c.fd)
}

func (c *KernelConn) LocalAddr() net.Addr  { return c.local }
func (c *KernelConn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline, SetReadDeadline and SetWriteDeadline set one deadline for
// both directions; it is noticed within kernelSlice.
func (c *KernelConn) SetDeadline(t time.Time) error {
	var ns int64
	if !t.IsZero() {
		ns = t.UnixNano()
	}
	c.deadline.Store(ns)
	return nil
}
func (c *KernelConn) SetReadDeadline(t time.Time) error  { return c.SetDeadline(t) }
func (c *KernelConn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }
