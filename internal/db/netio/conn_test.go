//go:build linux

package netio

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"math/big"
	"net"
	"testing"
	"time"

	"golang.org/x/net/nettest"
)

// conns are the two modes that convert a connection, as the backends use
// them.
var conns = []Mode{Poller, Blocking}

// loopback returns a client connection of mode m and the server's end of a
// loopback TCP connection.
func loopback(t testing.TB, m Mode) (client, server net.Conn) {
	t.Helper()
	c, srv, stop, err := pipe(m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return c, srv
}

// pipe is nettest.MakePipe for a client of mode m.
func pipe(m Mode) (client, server net.Conn, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, nil, err
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := Dial(m, (&net.Dialer{}).DialContext)(context.Background(), "tcp", ln.Addr().String())
	srv := <-accepted
	if err != nil || srv == nil {
		if srv != nil {
			srv.Close()
		}
		return nil, nil, nil, err
	}
	if got := ModeOf(c); got != m {
		return nil, nil, nil, &net.OpError{Op: "dial", Err: io.ErrUnexpectedEOF}
	}
	return c, srv, func() { c.Close(); srv.Close() }, nil
}

// Both modes are net.Conns as golang.org/x/net/nettest checks them: data
// both ways, concurrent reads and writes, past, present and future
// deadlines, Close during a blocked call, all methods at once.
func TestConnIsANetConn(t *testing.T) {
	for _, m := range conns {
		t.Run(string(m), func(t *testing.T) {
			nettest.TestConn(t, func() (net.Conn, net.Conn, func(), error) { return pipe(m) })
		})
	}
}

// TLS runs over both modes (the backends' sslmode=require): a handshake
// and data both ways, the client's connection converted below TLS.
func TestTLSOverConn(t *testing.T) {
	cert := selfSigned(t)
	for _, m := range conns {
		t.Run(string(m), func(t *testing.T) {
			c, srv := loopback(t, m)
			tc := tls.Client(c, &tls.Config{InsecureSkipVerify: true})
			ts := tls.Server(srv, &tls.Config{Certificates: []tls.Certificate{cert}})
			payload := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
			errc := make(chan error, 1)
			go func() {
				b := make([]byte, len(payload))
				if _, err := io.ReadFull(ts, b); err != nil {
					errc <- err
					return
				}
				_, err := ts.Write(b)
				errc <- err
			}()
			if _, err := tc.Write(payload); err != nil {
				t.Fatal(err)
			}
			back := make([]byte, len(payload))
			if _, err := io.ReadFull(tc, back); err != nil || !bytes.Equal(back, payload) {
				t.Fatalf("read back over TLS: %v", err)
			}
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
			if !tc.ConnectionState().HandshakeComplete {
				t.Fatal("no TLS handshake")
			}
		})
	}
}

// Both modes' read and write of a small message allocate nothing.
func TestConnAllocatesNothing(t *testing.T) {
	for _, m := range conns {
		t.Run(string(m), func(t *testing.T) {
			c, srv := loopback(t, m)
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

// selfSigned makes a certificate for a TLS server on loopback.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
