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
// A deadline stops the client's wait, not the server's work: the statement
// runs on until it ends. A watch given a server-side cancel (OnCancel)
// calls it instead, in a goroutine of its own, and sets the deadline
// CancelGrace later: a statement the server stops fails with the server's
// error and leaves the connection usable; one the server does not stop in
// time is broken off by the deadline as before. End waits for the cancel
// to return, so that it cannot stop the session's next statement.
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
	cancel      func(context.Context) error
	req         *cancelReq // the server-side cancel of the statement in flight
}

// cancelReq is a server-side cancel under way; err is set before done is
// closed.
type cancelReq struct {
	done chan struct{}
	err  error
}

// CancelGrace is how long a statement whose context is cancelled waits for
// the server to stop it (OnCancel) before its connection's deadline breaks
// the wait; CancelTimeout bounds the cancel itself.
const (
	CancelGrace   = time.Second
	CancelTimeout = 5 * time.Second
)

// NewWatch returns a watch interrupting statements on conn.
func NewWatch(conn net.Conn) *Watch { return &Watch{conn: conn} }

// OnCancel makes the watch ask the server to stop a statement whose context
// is cancelled: cancel is called with a context done after CancelTimeout,
// in a goroutine of its own, only on cancellation. It must return only
// when the server can no longer act on the request. Call it before the
// watch's first Begin.
func (w *Watch) OnCancel(cancel func(context.Context) error) { w.cancel = cancel }

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
	w.busy = false
	interrupted, req := w.interrupted, w.req
	w.interrupted, w.req = false, nil
	w.mu.Unlock()
	if !interrupted {
		return err
	}
	if req != nil {
		<-req.done
		if req.err != nil && err != nil {
			err = fmt.Errorf("%v; the server-side cancel failed: %v", err, req.err)
		}
	}
	_ = w.conn.SetDeadline(time.Time{})
	if err != nil {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return nil
}

// cancelled interrupts the statement in flight, if any, when the context
// whose Done channel is done is cancelled.
func (w *Watch) cancelled(done <-chan struct{}) {
	w.mu.Lock()
	if done != w.done || !w.busy || w.interrupted {
		w.mu.Unlock()
		return
	}
	w.interrupted = true
	if w.cancel == nil {
		_ = w.conn.SetDeadline(time.Now())
		w.mu.Unlock()
		return
	}
	_ = w.conn.SetDeadline(time.Now().Add(CancelGrace))
	req := &cancelReq{done: make(chan struct{})}
	w.req = req
	w.mu.Unlock()
	ctx, stop := context.WithTimeout(context.Background(), CancelTimeout)
	req.err = w.cancel(ctx)
	stop()
	close(req.done)
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
