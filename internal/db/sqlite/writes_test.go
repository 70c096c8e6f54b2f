package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
)

// TestSerializedWrites: under sqlite.writes=serialized every write of a
// session waits for the store's write lock, reads and queries do not, and
// the results say which mode ran.
func TestSerializedWrites(t *testing.T) {
	ctx := context.Background()
	st := openTable(t, map[string]string{"sqlite.writes": "serialized"})
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if w := info.Settings["writes"]; w != "serialized: docbench's workers take one in-process lock around every write; at most one asks SQLite" {
		t.Fatalf("settings.writes %q: want the serialized mode", w)
	}
	sess, err := st.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := sess.Insert(ctx, []byte("user1"), []byte(`{"field0":"a"}`)); err != nil {
		t.Fatal(err)
	}
	s := st.(*store)
	stmt := sess.(db.Statementer)
	writes := map[string]func() error{
		"insert": func() error { return sess.Insert(ctx, []byte("user2"), []byte(`{"field0":"b"}`)) },
		"update": func() error {
			return sess.Update(ctx, []byte("user1"), &db.Update{Mode: db.Partial, Paths: []string{"field0"}, Values: [][]byte{[]byte(`"c"`)}})
		},
		"batch": func() error {
			return sess.(db.BatchInserter).InsertBatch(ctx, [][]byte{[]byte("user3")}, [][]byte{[]byte(`{"field0":"d"}`)})
		},
		"statement": func() error {
			_, err := stmt.Statement(ctx, "UPDATE {table} SET data = data WHERE ycsb_key = 'user1'", nil)
			return err
		},
		"delete": func() error { return sess.Delete(ctx, []byte("user3")) },
	}
	for _, name := range []string{"insert", "update", "batch", "statement", "delete"} {
		s.wmu.lock()
		done := make(chan error, 1)
		go func() { done <- writes[name]() }()
		select {
		case err := <-done:
			s.wmu.unlock()
			t.Fatalf("%s finished (%v) while the write lock was held", name, err)
		case <-time.After(50 * time.Millisecond):
		}
		// A read and a read-only statement do not wait for it.
		if _, err := sess.Read(ctx, []byte("user1"), nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := stmt.Statement(ctx, "SELECT count(*) FROM {table}", nil); err != nil {
			t.Fatal(err)
		}
		s.wmu.unlock()
		if err := <-done; err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// TestConcurrentWritesByDefault: without the option no lock of docbench's
// stands between the workers and SQLite.
func TestConcurrentWritesByDefault(t *testing.T) {
	st := openTemp(t, nil)
	info, err := st.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.(*store).wmu != nil || info.Settings["writes"] != "concurrent: each worker's connection asks SQLite for the write lock; contenders sleep in the busy handler" {
		t.Fatalf("settings.writes %q: want concurrent writes by default", info.Settings["writes"])
	}
}

// TestReadOnly: which statements take the write lock; the check runs with
// every statement and allocates nothing.
func TestReadOnly(t *testing.T) {
	for text, want := range map[string]bool{
		"SELECT count(*) FROM {table}": true, "  with t AS (SELECT 1) SELECT * FROM t": true,
		"values (1)": true, "EXPLAIN QUERY PLAN SELECT 1": true, "": true,
		"UPDATE {table} SET data = data": false, "\tinsert into t VALUES (1)": false, "DELETE FROM t": false,
	} {
		if got := readOnly(text); got != want {
			t.Errorf("readOnly(%q) = %v, want %v", text, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { readOnly("  UPDATE {table} SET data = data WHERE ycsb_key = ?") }); n != 0 {
		t.Errorf("readOnly allocates %v times per call", n)
	}
}
