package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/testutil"
)

// A session's statements honour their context through its one watch per
// context: cancelling interrupts the statement in flight; a context
// cancelled between statements stops the next one before it is sent, and
// statements under another context run in full. (That the watch's callback
// leaves no deadline behind, whenever it runs, netio's
// TestWatchCancelledBetweenStatements shows without leaving it to the
// scheduler.)
func TestStatementsHonourTheirContext(t *testing.T) {
	for _, blocking := range []string{"false", "true"} {
		t.Run("blockingio="+blocking, func(t *testing.T) {
			bg := context.Background()
			url := testutil.FreshDatabase(t, testutil.Postgres(t, "debian"))
			st := openStore(t, url, map[string]string{"pg.blockingio": blocking})
			if err := st.Setup(bg, db.Schema{Table: "usertable", Fields: []string{"field0"}}, true); err != nil {
				t.Fatal(err)
			}
			open := func() *session {
				t.Helper()
				sess, err := st.NewSession(bg)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { sess.Close() })
				s := sess.(*session)
				if _, err := s.conn.Prepare(bg, "slow", "SELECT pg_sleep(30)"); err != nil {
					t.Fatal(err)
				}
				return s
			}

			// Cancelled in flight: the statement stops long before it
			// would have finished, with the context's error.
			s := open()
			ctx, cancel := context.WithCancel(bg)
			cancelWhenRunning(t, url, "SELECT pg_sleep(30)", cancel)
			start := time.Now()
			_, err := s.execTag(ctx, "slow")
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("pg_sleep(30) cancelled while running: err %v, want context.Canceled", err)
			}
			if el := time.Since(start); el > 10*time.Second {
				t.Fatalf("cancelled after %s", el)
			}

			// Cancelled between statements: the next statement under it
			// is not sent; one under another context runs in full.
			s = open()
			ctx, cancel = context.WithCancel(bg)
			key, doc := []byte("user1"), []byte(`{"field0":"x"}`)
			if err := s.Insert(ctx, key, doc); err != nil {
				t.Fatal(err)
			}
			cancel()
			if _, err := s.Read(ctx, key, nil, nil); !errors.Is(err, context.Canceled) {
				t.Fatalf("read under a cancelled context: err %v, want context.Canceled", err)
			}
			ctx2, cancel2 := context.WithCancel(bg)
			defer cancel2()
			got, err := s.Read(ctx2, key, nil, nil)
			if err != nil || !strings.Contains(string(got), `"x"`) {
				t.Fatalf("read under a new context: %q, %v", got, err)
			}
			if _, err := s.conn.Prepare(bg, "short", "SELECT pg_sleep(0.3)"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.execTag(ctx2, "short"); err != nil {
				t.Fatalf("a 0.3 s statement after the first context's cancel: %v (a deadline left behind?)", err)
			}
		})
	}
}

// Under a cancellable context, as a run's workers use, a read, an update
// and an insert allocate nothing: the context is watched once per session,
// not per statement.
func TestStatementsAllocateNothingUnderACancellableContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := openStore(t, testutil.FreshDatabase(t, testutil.Postgres(t, "debian")), nil)
	sess := openSession(t, ctx, st, "field0")
	key, doc := []byte("user1"), []byte(`{"field0":"x"}`)
	if err := sess.Insert(ctx, key, doc); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 256)
	u := &db.Update{Mode: db.Merge, Doc: doc}
	k := make([]byte, 0, 32)
	n := 0
	for name, op := range map[string]func() error{
		"read":   func() (err error) { buf, err = sess.Read(ctx, key, nil, buf[:0]); return err },
		"update": func() error { return sess.Update(ctx, key, u) },
		"insert": func() error {
			n++
			k = strconv.AppendInt(append(k[:0], "new"...), int64(n), 10)
			return sess.Insert(ctx, k, doc)
		},
	} {
		var opErr error
		allocs := testing.AllocsPerRun(100, func() {
			if err := op(); err != nil {
				opErr = err
			}
		})
		if opErr != nil {
			t.Fatalf("%s: %v", name, opErr)
		}
		if allocs != 0 {
			t.Errorf("%s: %v allocations per statement, want 0", name, allocs)
		}
	}
}

// cancelWhenRunning calls cancel once the server shows query running
// (pg_stat_activity): the statement is in flight, not still on its way.
func cancelWhenRunning(t *testing.T, url, query string, cancel func()) {
	t.Helper()
	bg := context.Background()
	conn, err := pgx.Connect(bg, url)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer cancel()
		defer conn.Close(bg)
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			var n int
			if err := conn.QueryRow(bg, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND query = $1 AND state = 'active'`, query).Scan(&n); err != nil {
				t.Errorf("pg_stat_activity: %v", err)
				return
			}
			if n > 0 {
				return
			}
		}
	}()
}
