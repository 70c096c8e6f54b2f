package runner

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/testutil"
)

// An interrupted phase ends within its drain bound (plus a second) although
// every operation in flight waits on a lock another session holds: the
// first interrupt stops new operations, the drain bound then cancels the
// waiting ones, on the server too. During the warm-up, no measured part
// starts after it.
func TestInterruptEndsWithinTheDrainBound(t *testing.T) {
	const (
		threads = 3
		drain   = time.Second
	)
	server := testutil.Postgres(t, "embedded")
	for _, c := range []struct {
		name   string
		warmup time.Duration
	}{
		{"warm-up", time.Hour},
		{"measured", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := testutil.FreshDatabase(t, server)
			store, wl, docOps := setup(t, target, map[string]string{"recordcount": "100", "operationcount": "0",
				"readproportion": "0.5", "updateproportion": "0.5"})
			table := pgx.Identifier{"docbench", wl.Config().Table}.Sanitize()
			watcher := testutil.PostgresConn(t, target)

			// The sessions are open (they prepare their statements, which
			// the lock would hold too) once the warm-up says it starts or
			// the measured part is about to.
			open := make(chan struct{})
			var once sync.Once
			said := &onSay{said: []byte("warm-up for"), do: func() { once.Do(func() { close(open) }) }}
			measured := false
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				out *Outcome
				err error
			}
			done := make(chan result, 1)
			go func() {
				out, err := Execute(ctx, store, wl, docOps, Options{Phase: Run, Threads: threads, Drain: drain,
					Warmup: c.warmup, Stderr: said, OnMeasure: func() {
						measured = true
						once.Do(func() { close(open) })
					}})
				done <- result{out, err}
			}()
			// Registered after the store's Close and before the lock's
			// release, so that a phase still waiting is let go and awaited
			// before its store closes.
			t.Cleanup(func() { <-done })
			select {
			case <-open:
			case r := <-done:
				t.Fatalf("the phase returned (%v) before it began", r.err)
			case <-time.After(time.Minute):
				t.Fatal("the phase never began")
			}

			locker := testutil.PostgresConn(t, target)
			tx, err := locker.Begin(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tx.Rollback(context.Background()) })
			if _, err := tx.Exec(context.Background(), "LOCK TABLE "+table+" IN ACCESS EXCLUSIVE MODE"); err != nil {
				t.Fatal(err)
			}
			waitWaiting(t, watcher, func(n int) bool { return n >= threads }, "every worker waiting on the lock")

			cancel()
			t0 := time.Now()
			var r result
			select {
			case r = <-done:
				done <- r // for the cleanup
			case <-time.After(drain + time.Second):
				t.Fatalf("the phase has not returned %s after the interrupt (drain bound %s)", drain+time.Second, drain)
			}
			t.Logf("returned %s after the interrupt", time.Since(t0).Round(time.Millisecond))
			if !errors.Is(r.err, ErrInterrupted) {
				t.Fatalf("interrupted phase: %v, want ErrInterrupted", r.err)
			}
			if r.out == nil || r.out.Complete || r.out.EndedBy != "interrupted" {
				t.Fatalf("outcome %+v, want interrupted", r.out)
			}
			if c.warmup > 0 && (measured || r.out.Ops != 0) {
				t.Fatalf("a measured part ran after the interrupted warm-up (OnMeasure called: %v, %d operations)", measured, r.out.Ops)
			}
			// Cancelled on the server too: no statement of the phase still
			// waits there.
			waitWaiting(t, watcher, func(n int) bool { return n == 0 }, "no statement waiting on the lock")
		})
	}
}

// waitWaiting polls, for up to a minute, until ok holds of the number of
// the database's statements waiting on a lock.
func waitWaiting(t *testing.T, conn *pgx.Conn, ok func(int) bool, what string) {
	t.Helper()
	var n int
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if ok(n) {
			return
		}
	}
	t.Fatalf("still not %s after a minute: %d statements wait on a lock", what, n)
}

// onSay calls do at each write that holds said.
type onSay struct {
	said []byte
	do   func()
}

func (w *onSay) Write(p []byte) (int, error) {
	if bytes.Contains(p, w.said) {
		w.do()
	}
	return len(p), nil
}

// An interrupt while the sessions are still opening (preparing their
// statements, held by the lock) is an interrupt, not the target's failure.
func TestInterruptWhileSessionsOpen(t *testing.T) {
	target := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	store, wl, docOps := setup(t, target, map[string]string{"recordcount": "100", "operationcount": "0"})
	watcher := testutil.PostgresConn(t, target)
	locker := testutil.PostgresConn(t, target)
	tx, err := locker.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(context.Background(), "LOCK TABLE "+pgx.Identifier{"docbench", wl.Config().Table}.Sanitize()+" IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Execute(ctx, store, wl, docOps, Options{Phase: Run, Threads: 2, Drain: time.Second})
		done <- err
	}()
	t.Cleanup(func() { <-done })
	waitWaiting(t, watcher, func(n int) bool { return n > 0 }, "a session opening")
	cancel()
	select {
	case err := <-done:
		done <- err
		if !errors.Is(err, ErrInterrupted) {
			t.Fatalf("interrupted while opening: %v, want ErrInterrupted", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the phase has not returned 10s after the interrupt")
	}
}
