package postgres

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// A ctxWatch lets a session's statements honour their context without the
// watch pgconn sets up on every call under a cancellable one (a channel, a
// context.AfterFunc, and an entry in the parent context's children taken
// under its lock, which all the workers of a run share: 4 allocations and
// a few microseconds of client CPU per statement, docs/performance.md).
// It registers one context.AfterFunc per context it is given, and the
// statements run under context.Background(). When the context is cancelled
// while a statement is in flight, the connection's deadline is set to now,
// as pgconn's default handler does, and it is cleared when the statement
// returns.
type ctxWatch struct {
	conn        net.Conn
	mu          sync.Mutex
	done        <-chan struct{} // the Done channel of the context watched
	stop        func() bool     // stops the watch
	busy        bool            // a statement under ctx is in flight
	interrupted bool            // the deadline was set during it
}

// begin is called before a statement under ctx. It returns the context to
// give pgconn, or ctx's error when it is already done.
func (w *ctxWatch) begin(ctx context.Context) (context.Context, error) {
	done := ctx.Done()
	if done == nil { // never done: nothing to watch
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
	// Under the lock: either the callback has run (and ctx's error is set
	// before it runs) or it will find the statement in flight.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w.busy = true
	return context.Background(), nil
}

// end is called when the statement begun under ctx has returned err (its
// results read and closed). A statement interrupted by ctx fails with ctx's
// error.
func (w *ctxWatch) end(ctx context.Context, err error) error {
	if ctx.Done() == nil {
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
func (w *ctxWatch) cancelled(done <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if done != w.done || !w.busy || w.interrupted {
		return
	}
	w.interrupted = true
	_ = w.conn.SetDeadline(time.Now())
}

// close stops the watch.
func (w *ctxWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop != nil {
		w.stop()
		w.stop, w.done = nil, nil
	}
}
