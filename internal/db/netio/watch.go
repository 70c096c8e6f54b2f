package netio

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// A Watch lets a session's statements honour their context without the
// watch a driver sets up on every call under a cancellable one. pgconn
// makes a channel and a context.AfterFunc, which adds an entry to the parent
// context's children under its lock (a lock all the workers of a run
// share); go-sql-driver/mysql wakes its watcher goroutine twice and
// database/sql starts a goroutine per query. That costs a few microseconds
// of client CPU per statement (docs/performance.md).
//
// A Watch registers one context.AfterFunc per context it is given, and the
// statements run under a context that is never done, so the driver watches
// nothing. When the context is cancelled while a statement is in flight,
// the connection's deadline is set to now (as pgconn's default handler
// does): the blocked read or write fails, and the statement with it. The
// deadline is cleared when the statement returns.
//
// A Watch belongs to one session: Begin and End are called by the
// session's goroutine, around each statement. A nil *Watch watches nothing:
// Begin returns the caller's context, for the driver to watch.
type Watch struct {
	conn        net.Conn
	mu          sync.Mutex
	done        <-chan struct{} // the Done channel of the context watched
	stop        func() bool     // stops the watch
	busy        bool            // a statement is in flight
	interrupted bool            // the deadline was set during it
}

// NewWatch returns a watch interrupting statements on conn.
func NewWatch(conn net.Conn) *Watch { return &Watch{conn: conn} }

// Begin is called before a statement under ctx. It returns the context to
// give the driver, or ctx's error when ctx is already done.
func (w *Watch) Begin(ctx context.Context) (context.Context, error) {
	done := ctx.Done()
	if w == nil || done == nil { // the driver's to watch, or never done
		return ctx, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if done != w.done { // contexts done together share their channel
		if w.stop != nil {
			w.stop()
		}
		w.done = done
		w.stop = context.AfterFunc(ctx, func() { w.cancelled(done) })
	}
	// Under the lock: either the callback has run (ctx's error is set
	// before it runs) or it will find the statement in flight.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w.busy = true
	return context.Background(), nil
}

// End is called when the statement begun under ctx has returned err (its
// results read and closed). A statement interrupted by ctx fails with ctx's
// error.
func (w *Watch) End(ctx context.Context, err error) error {
	if w == nil || ctx.Done() == nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.busy = false
	if w.interrupted {
		w.interrupted = false
		_ = w.conn.SetDeadline(time.Time{})
		if err != nil {
			return fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
	}
	return err
}

// cancelled interrupts the statement in flight, if any, when the context
// whose Done channel is done is cancelled.
func (w *Watch) cancelled(done <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if done != w.done || !w.busy || w.interrupted {
		return
	}
	w.interrupted = true
	_ = w.conn.SetDeadline(time.Now())
}

// Close stops the watch.
func (w *Watch) Close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop != nil {
		w.stop()
		w.stop, w.done = nil, nil
	}
}
