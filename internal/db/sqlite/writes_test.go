package sqlite

import (
	"context"
	"errors"
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
	reader, err := st.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
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
		"with-update": func() error {
			_, err := stmt.Statement(ctx, "WITH k(v) AS (SELECT 'user1') UPDATE {table} SET data = data WHERE ycsb_key IN (SELECT v FROM k)", nil)
			return err
		},
		"delete": func() error { return sess.Delete(ctx, []byte("user3")) },
	}
	for _, name := range []string{"insert", "update", "batch", "statement", "with-update", "delete"} {
		if err := s.wmu.lock(ctx); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- writes[name]() }()
		select {
		case err := <-done:
			s.wmu.unlock()
			t.Fatalf("%s finished (%v) while the write lock was held", name, err)
		case <-time.After(50 * time.Millisecond):
		}
		// A read and read-only statements (of another session: a session
		// is one worker's) do not wait for it.
		if _, err := reader.Read(ctx, []byte("user1"), nil, nil); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"SELECT count(*) FROM {table}", "WITH k(v) AS (SELECT 'user1') SELECT * FROM {table} WHERE ycsb_key IN k"} {
			if _, err := reader.(db.Statementer).Statement(ctx, q, nil); err != nil {
				t.Fatal(err)
			}
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

// TestWriterWaitingForTheLockIsCancelled: under sqlite.writes=serialized a
// write that waits for the lock returns when its context ends, without
// writing.
func TestWriterWaitingForTheLockIsCancelled(t *testing.T) {
	ctx := context.Background()
	st := openTable(t, map[string]string{"sqlite.writes": "serialized"})
	sess, err := st.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	s := st.(*store)
	if err := s.wmu.lock(ctx); err != nil {
		t.Fatal(err)
	}
	writes := map[string]func(context.Context) error{
		"insert": func(ctx context.Context) error { return sess.Insert(ctx, []byte("user1"), []byte(`{"field0":"a"}`)) },
		"statement": func(ctx context.Context) error {
			_, err := sess.(db.Statementer).Statement(ctx, "INSERT INTO {table} (ycsb_key, data) VALUES ('user2', jsonb('{}'))", nil)
			return err
		},
	}
	for name, write := range writes {
		wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		start := time.Now()
		err := write(wctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
			t.Errorf("%s waiting for the lock: %v after %v; want the context's deadline", name, err, time.Since(start))
		}
	}
	s.wmu.unlock()
	var n int
	if err := s.db.QueryRow("SELECT count(*) FROM usertable").Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d rows (%v): a cancelled write wrote", n, err)
	}
	if err := sess.Insert(ctx, []byte("user1"), []byte(`{"field0":"a"}`)); err != nil {
		t.Fatalf("the lock after cancelled waits: %v", err)
	}
}

// TestReadOnly: SQLite says which statements of the user's write, a WITH
// … UPDATE among them; asked once per text, the answer then costs no
// allocation.
func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	st := openTable(t, map[string]string{"sqlite.writes": "serialized"})
	sess, err := st.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ss := sess.(*session)
	for text, want := range map[string]bool{
		"SELECT count(*) FROM {table}": true, "  with t AS (SELECT 1) SELECT * FROM t": true,
		"values (1)": true, "EXPLAIN QUERY PLAN SELECT 1": true,
		"UPDATE {table} SET data = data": false, "\tinsert into {table} VALUES ('k', jsonb('{}'))": false,
		"DELETE FROM {table}": false,
		"WITH k(v) AS (SELECT 'a') UPDATE {table} SET data = data WHERE ycsb_key IN k": false,
		"with k(v) AS (SELECT 'a') DELETE FROM {table} WHERE ycsb_key IN k":            false,
		"WITH k(v) AS (VALUES ('a')) INSERT INTO {table} SELECT v, jsonb('{}') FROM k": false,
	} {
		if got, err := ss.isReadOnly(text); err != nil || got != want {
			t.Errorf("isReadOnly(%q) = %v, %v; want %v", text, got, err, want)
		}
	}
	if _, err := ss.isReadOnly("UPDATE nosuchtable SET x = 1"); err == nil {
		t.Error("a statement SQLite cannot prepare: no error")
	}
	text := "UPDATE {table} SET data = data WHERE ycsb_key = ?"
	if _, err := ss.isReadOnly(text); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = ss.isReadOnly(text) }); n != 0 {
		t.Errorf("isReadOnly allocates %v times per call", n)
	}
}
