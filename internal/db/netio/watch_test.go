package netio

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// A server that does not answer a watch's cancel: the statement's wait is
// broken by the deadline (CancelGrace later), End returns only once the
// cancel has, with the context's error and the cancel's, and leaves no
// deadline behind.
func TestWatchCancelUnanswered(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	w := NewWatch(client)
	defer w.Close()
	release := make(chan struct{})
	var calls, returned atomic.Int32
	w.OnCancel(func(ctx context.Context) error {
		calls.Add(1)
		<-release
		returned.Store(1)
		return errors.New("no answer")
	})

	ctx, cancel := context.WithCancel(context.Background())
	if _, err := w.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	_, err := client.Read(make([]byte, 1)) // the server never writes
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read under a cancelled statement: %v, want the deadline's error", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- w.End(ctx, err) }()
	close(release)
	err = <-ended
	if returned.Load() != 1 {
		t.Fatal("End returned before the cancel did")
	}
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "no answer") {
		t.Fatalf("End: %v, want context.Canceled naming the cancel's failure", err)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("cancel called %d times, want 1", n)
	}

	// The next statement, under another context, reads what the server
	// sends: no deadline left behind, no cancel.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	if _, err := w.Begin(ctx2); err != nil {
		t.Fatal(err)
	}
	go server.Write([]byte("x"))
	if _, err := client.Read(make([]byte, 1)); err != nil {
		t.Fatalf("read of the next statement: %v", err)
	}
	if err := w.End(ctx2, nil); err != nil || calls.Load() != 1 {
		t.Fatalf("next statement: End %v, cancel called %d times", err, calls.Load())
	}
}

// A context cancelled between statements: its callback, whenever it runs
// (before the next statement under another context or during it; called
// here at each of those moments rather than left to the scheduler), sets
// no deadline and asks for no cancel.
func TestWatchCancelledBetweenStatements(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	w := NewWatch(client)
	defer w.Close()
	var calls atomic.Int32
	w.OnCancel(func(context.Context) error { calls.Add(1); return nil })
	read := func(what string) {
		t.Helper()
		go server.Write([]byte("x"))
		if _, err := client.Read(make([]byte, 1)); err != nil {
			t.Fatalf("read %s: %v (a deadline left behind?)", what, err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	if _, err := w.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	read("of the first statement")
	if err := w.End(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	w.cancelled(ctx.Done()) // the callback, run now: no statement in flight
	if _, err := w.Begin(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Begin under the cancelled context: %v, want context.Canceled", err)
	}

	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	if _, err := w.Begin(ctx2); err != nil {
		t.Fatal(err)
	}
	w.cancelled(ctx.Done()) // the callback, run late: during another context's statement
	read("under another context")
	if err := w.End(ctx2, nil); err != nil {
		t.Fatalf("End under another context: %v", err)
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("cancel called %d times, want none", n)
	}
}
