package netio

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"testing"
	"time"
)

// kernelPair returns a KernelConn client and the server's end of a
// loopback TCP connection.
func kernelPair(t *testing.T) (*KernelConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv := <-accepted
	if srv == nil {
		t.Fatal("accept failed")
	}
	kc, err := Kernel(c)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := kc.(*KernelConn)
	if !ok {
		t.Fatalf("a TCP connection was not moved to the kernel: %T", kc)
	}
	t.Cleanup(func() { k.Close(); srv.Close() })
	return k, srv
}

// A KernelConn carries what a net.Conn does: a write far larger than the
// socket's buffers (it blocks until the reader has read), reads in pieces,
// deadlines noticed while a read waits, Close, and EOF.
func TestKernelConnReadsWritesAndDeadlines(t *testing.T) {
	c, srv := kernelPair(t)

	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<20) // 16 MiB
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(srv, int64(len(big))))
		got <- b
	}()
	if n, err := c.Write(big); n != len(big) || err != nil {
		t.Fatalf("write of 16 MiB: %d, %v", n, err)
	}
	if b := <-got; !bytes.Equal(b, big) {
		t.Fatalf("the server read %d bytes, not what was written", len(b))
	}

	go srv.Write(big)
	back, err := io.ReadAll(io.LimitReader(c, int64(len(big))))
	if err != nil || !bytes.Equal(back, big) {
		t.Fatalf("read back %d bytes, %v", len(back), err)
	}

	// A deadline set while a read waits stops it (as netio.Watch does).
	start := time.Now()
	time.AfterFunc(100*time.Millisecond, func() { c.SetDeadline(time.Now()) })
	if _, err := c.Read(make([]byte, 10)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline: %v", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("deadline honoured after %s", el)
	}
	c.SetDeadline(time.Time{})

	srv.Close()
	if n, err := c.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Fatalf("read after the other end closed: %d, %v", n, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(make([]byte, 10)); err == nil {
		t.Fatal("read of a closed connection succeeded")
	}
}

// A read blocked in the kernel does not stop the rest of the program, even
// on one P: it yields every time slice, and a garbage collection (which
// must stop every goroutine) completes while it waits.
func TestKernelConnWaitDoesNotStallTheRuntime(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	c, _ := kernelPair(t)
	done := make(chan error, 1)
	c.SetDeadline(time.Now().Add(time.Second))
	go func() {
		_, err := c.Read(make([]byte, 10))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // the read is waiting
	start := time.Now()
	runtime.GC()
	if el := time.Since(start); el > 500*time.Millisecond {
		t.Errorf("a garbage collection took %s while a read waited", el)
	}
	if err := <-done; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read: %v", err)
	}
}

// A KernelConn's read and write of a small message allocate nothing.
func TestKernelConnAllocatesNothing(t *testing.T) {
	c, srv := kernelPair(t)
	msg, buf, sbuf := []byte("ping"), make([]byte, 16), make([]byte, 16)
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(srv, sbuf[:len(msg)]); err != nil {
			t.Fatal(err)
		}
		if _, err := srv.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf[:len(msg)]); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per round trip", allocs)
	}
}
