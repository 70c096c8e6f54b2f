package postgres

import (
	"context"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// blockingDial wraps dial so that the connection's descriptor is in
// blocking mode: a worker's read then blocks its thread in the kernel until
// the server answers, as a C client's does, instead of parking the
// goroutine on the network poller and waking it (and another thread to
// look for work) through the Go scheduler. Deadlines, which pgconn sets
// only when a context is cancelled or a connection is being closed, shut
// the socket down when they pass: the connection is then unusable, as
// pgconn treats it after a timeout anyway.
func blockingDial(dial pgconn.DialFunc) pgconn.DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		fc, ok := c.(interface{ File() (*os.File, error) })
		if !ok {
			return c, nil
		}
		f, err := fc.File() // a duplicate descriptor
		if err != nil {
			return c, nil
		}
		bc := &blockingConn{f: f, fd: int(f.Fd()), local: c.LocalAddr(), remote: c.RemoteAddr()} // Fd: blocking mode
		c.Close()
		return bc, nil
	}
}

// blockingConn is a net.Conn over a blocking descriptor.
type blockingConn struct {
	f             *os.File
	fd            int
	local, remote net.Addr
	mu            sync.Mutex
	timer         *time.Timer
}

func (c *blockingConn) Read(b []byte) (int, error)  { return c.f.Read(b) }
func (c *blockingConn) Write(b []byte) (int, error) { return c.f.Write(b) }
func (c *blockingConn) LocalAddr() net.Addr         { return c.local }
func (c *blockingConn) RemoteAddr() net.Addr        { return c.remote }

func (c *blockingConn) Close() error {
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	return c.f.Close()
}

func (c *blockingConn) SetDeadline(t time.Time) error      { return c.deadline(t) }
func (c *blockingConn) SetReadDeadline(t time.Time) error  { return c.deadline(t) }
func (c *blockingConn) SetWriteDeadline(t time.Time) error { return c.deadline(t) }

// deadline shuts the socket down at t (zero: no deadline).
func (c *blockingConn) deadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if t.IsZero() {
		return nil
	}
	if d := time.Until(t); d > 0 {
		c.timer = time.AfterFunc(d, c.expire)
		return nil
	}
	c.expire()
	return nil
}

func (c *blockingConn) expire() { _ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR) }
