//go:build linux

package netio

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitInPpoll returns once a thread of the process waits in ppoll (only a
// BlockingConn calls it; the runtime's poller uses epoll_pwait): the
// readiness of a blocked call, read from /proc rather than guessed.
func waitInPpoll(t *testing.T) {
	t.Helper()
	want := strconv.Itoa(unix.SYS_PPOLL) + " "
	for {
		tasks, _ := filepath.Glob("/proc/self/task/*/syscall")
		for _, f := range tasks {
			if b, err := os.ReadFile(f); err == nil && strings.HasPrefix(string(b), want) {
				return
			}
		}
		runtime.Gosched()
	}
}

// A read waiting in the kernel does not stop the rest of the program, even
// on one P: ppoll is a system call the runtime sees, so a garbage
// collection (which must stop every goroutine) completes while it waits,
// and the read then returns what the server sends.
func TestBlockingWaitDoesNotStallTheRuntime(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	c, srv := loopback(t, Blocking)
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 10))
		done <- err
	}()
	waitInPpoll(t)
	runtime.GC()
	srv.Write([]byte("x"))
	if err := <-done; err != nil {
		t.Fatalf("read: %v", err)
	}
}

// Close from another goroutine ends a blocked read with net.ErrClosed,
// and the descriptor stays open (its number not reusable) until the last
// call using it has returned.
func TestBlockingCloseDuringRead(t *testing.T) {
	c, _ := loopback(t, Blocking)
	k := c.(*BlockingConn)
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 10))
		done <- err
	}()
	waitInPpoll(t)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read during Close: %v, want net.ErrClosed", err)
	}
	if open(k.fd) {
		t.Fatal("descriptor open after Close and the read returned")
	}

	c, _ = loopback(t, Blocking)
	k = c.(*BlockingConn)
	if !k.acquire() { // a call in flight
		t.Fatal("acquire on an open connection")
	}
	c.Close()
	if !open(k.fd) {
		t.Fatal("descriptor closed under a call in flight")
	}
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after Close: %v", err)
	}
	k.release()
	if open(k.fd) {
		t.Fatal("descriptor open after the last call returned")
	}
}

// A deadline in the past fails a read at once, data waiting or not, and a
// write; clearing it makes the connection usable again.
func TestBlockingPastDeadline(t *testing.T) {
	c, srv := loopback(t, Blocking)
	c.SetDeadline(time.Now().Add(-time.Second))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline, nothing sent: %v", err)
	}
	srv.Write([]byte("x"))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline, data waiting: %v", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write past its deadline: %v", err)
	}
	c.SetDeadline(time.Time{})
	if b := make([]byte, 1); func() error { _, err := c.Read(b); return err }() != nil || b[0] != 'x' {
		t.Fatal("read after the deadline was cleared")
	}
}

// A BlockingConn dropped without Close has its descriptors closed by the
// garbage collector: its peer reads the end of the stream. (The descriptor
// number itself proves nothing: another test may reuse it at once.)
func TestBlockingDroppedClosesItsDescriptors(t *testing.T) {
	srv := pipeDropped(t)
	b := make([]byte, 1)
	const bound = 10 * time.Second
	for end := time.Now().Add(bound); time.Now().Before(end); {
		runtime.GC()
		srv.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		_, err := srv.Read(b)
		switch {
		case errors.Is(err, io.EOF):
			return
		case !errors.Is(err, os.ErrDeadlineExceeded):
			t.Fatalf("the peer read %v, want the end of the stream", err)
		}
	}
	t.Fatalf("the dropped BlockingConn's socket is still open after %s of garbage collections", bound)
}

// pipeDropped makes a BlockingConn and drops it, returning its peer.
func pipeDropped(t *testing.T) (srv net.Conn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if _, err := NewBlocking(nc); err != nil {
		t.Fatal(err)
	}
	return srv
}

// open says whether fd is an open descriptor.
func open(fd int) bool {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err == nil
}
