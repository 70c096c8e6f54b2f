package netio

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// conns are the two ways of making a connection's I/O raw, as the backends
// use them.
var conns = []struct {
	name string
	make func(net.Conn) (net.Conn, error)
	is   func(net.Conn) bool
}{
	{"raw", func(c net.Conn) (net.Conn, error) { return Raw(c), nil }, func(c net.Conn) bool { _, ok := c.(*Conn); return ok }},
	{"kernel", Kernel, func(c net.Conn) bool { _, ok := c.(*KernelConn); return ok }},
}

// loopback returns a client connection made by mk and the server's end of
// a loopback TCP connection.
func loopback(t *testing.T, mk func(net.Conn) (net.Conn, error)) (client, server net.Conn) {
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
	if c, err = mk(c); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); srv.Close() })
	return c, srv
}

// Both connections carry what a net.Conn does: a write far larger than the
// socket's buffers (so it must wait for the reader), reads in pieces, a
// deadline set while a read waits (as Watch sets one), EOF when the other
// end closes.
func TestConnReadsWritesAndDeadlines(t *testing.T) {
	for _, k := range conns {
		t.Run(k.name, func(t *testing.T) {
			c, srv := loopback(t, k.make)
			if !k.is(c) {
				t.Fatalf("a TCP connection was made a %T", c)
			}

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
		})
	}
}

// Both connections' read and write of a small message allocate nothing.
func TestConnAllocatesNothing(t *testing.T) {
	for _, k := range conns {
		t.Run(k.name, func(t *testing.T) {
			c, srv := loopback(t, k.make)
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
		})
	}
}
