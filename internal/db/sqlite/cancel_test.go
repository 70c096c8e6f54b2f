package sqlite

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
)

// A cancelled statement stops in the library (the driver calls
// sqlite3_interrupt when the context is done): a write that would never end
// holds the database's write lock while it runs, and the lock is free once
// it is cancelled; the session's next statements run.
func TestCancelStopsTheStatement(t *testing.T) {
	bg := context.Background()
	st := openTemp(t, nil).(*store)
	sess := dbtest.Session(t, bg, st, db.Schema{Table: "usertable", Fields: []string{"field0"}})
	probe, err := st.db.Conn(bg)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	if _, err := probe.ExecContext(bg, "PRAGMA busy_timeout = 0"); err != nil {
		t.Fatal(err)
	}
	key, doc := []byte("user1"), []byte(`{"field0":"x"}`)
	if err := sess.Insert(bg, key, doc); err != nil {
		t.Fatal(err)
	}
	// The write transaction begins before the endless subquery runs (on
	// the first row).
	endless := `DELETE FROM {table} WHERE
		(WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r) < 0`
	err = dbtest.CancelStopsServer(t, func(ctx context.Context) error {
		_, err := sess.(db.Statementer).Statement(ctx, endless, nil)
		return err
	}, func() ([]string, error) {
		_, err := probe.ExecContext(bg, "BEGIN IMMEDIATE")
		if err != nil && strings.Contains(err.Error(), "locked") {
			return []string{"a write holds the database's lock"}, nil
		}
		if err != nil {
			return nil, err
		}
		_, err = probe.ExecContext(bg, "ROLLBACK")
		return nil, err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled statement: %v, want context.Canceled", err)
	}
	key = []byte("user2")
	if err := sess.Insert(bg, key, doc); err != nil {
		t.Fatalf("insert after the cancel: %v", err)
	}
	if got, err := sess.Read(bg, key, nil, nil); err != nil || !strings.Contains(string(got), `"x"`) {
		t.Fatalf("read after the cancel: %q, %v", got, err)
	}
}
