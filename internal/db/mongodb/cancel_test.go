package mongodb

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/docbench/docbench/internal/db"
)

// A cancelled operation: the driver closes the connection it is in flight
// on (a MongoDB server of 4.2 or later kills the reads of a client that
// disconnects: find, getMore, aggregate, count, distinct), the operation
// returns context.Canceled, and the session's next operations run on
// another of the pool's connections. The peer answers at once, so the
// answer to the cancelled find is held back until the driver closes the
// connection, as a server still working on it would. What the server then
// does is not shown here: the wire peer has neither long operations nor
// currentOp.
func TestCancelClosesTheOperationsConnection(t *testing.T) {
	st, uri := openPeer(t, "")
	bg := context.Background()
	if err := st.Setup(bg, db.Schema{Table: "usertable", Fields: []string{"field0"}}, true); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	d := &holdingDialer{cancel: cancel}
	var closed atomic.Int64 // connections the pool closed on an error
	pool := &event.PoolMonitor{Event: func(e *event.PoolEvent) {
		if e.Type == event.ConnectionClosed && e.Reason == event.ReasonError {
			closed.Add(1)
		}
	}}
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetDialer(d).SetPoolMonitor(pool))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(bg)
	u, _ := url.Parse(uri)
	s := newSession(client.Database(strings.TrimPrefix(u.Path, "/")).Collection("usertable"))

	key, doc := []byte("user1"), []byte(`{"field0":"x"}`)
	if err := s.Insert(bg, key, doc); err != nil {
		t.Fatal(err)
	}
	d.armed.Store(true)
	if _, err := s.Scan(ctx, key, 10, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("scan cancelled in flight: %v, want context.Canceled", err)
	}
	if closed.Load() != 1 {
		t.Fatalf("%d connections closed on the cancel, want the cancelled find's", closed.Load())
	}
	if got, err := s.Read(bg, key, nil, nil); err != nil || !strings.Contains(string(got), `"x"`) {
		t.Fatalf("read after the cancel: %q, %v", got, err)
	}
}

// holdingDialer dials the peer; once armed, the connection that sends the
// next find cancels the operation's context and holds the answer back
// until it is closed.
type holdingDialer struct {
	net.Dialer
	cancel context.CancelFunc
	armed  atomic.Bool
}

func (d *holdingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.Dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &holdingConn{Conn: c, d: d, closed: make(chan struct{})}, nil
}

type holdingConn struct {
	net.Conn
	d       *holdingDialer
	holding atomic.Bool
	once    sync.Once
	closed  chan struct{}
}

func (c *holdingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if bytes.Contains(b, []byte("\x02find\x00")) && c.d.armed.CompareAndSwap(true, false) {
		c.holding.Store(true)
		c.d.cancel()
	}
	return n, err
}

func (c *holdingConn) Read(b []byte) (int, error) {
	if c.holding.Load() {
		<-c.closed
		return 0, net.ErrClosed
	}
	return c.Conn.Read(b)
}

func (c *holdingConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}
