package dbtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/docbench/docbench/internal/db"
)

// RunFlat is the conformance suite for stores that hold flat documents of
// text fields only (YCSB's records, document.shape=flat; PostgreSQL
// doctype=hstore): the core operations of Run, and the secondary queries a
// flat document can answer (field, containment, range on top-level
// strings). The store must be fresh.
func RunFlat(t *testing.T, store db.Store) {
	ctx := context.Background()
	schema := db.Schema{Table: "usertable", Fields: Fields, Indexes: []db.Index{{Path: "field1"}}}
	s := setupAndLoad(t, store, schema)
	defer s.Close()
	expect := func(t *testing.T, k []byte, fields []string, want map[string]string) {
		t.Helper()
		got, err := s.Read(ctx, k, fields, nil)
		if err != nil {
			t.Fatalf("Read %s %v: %v", k, fields, err)
		}
		if m := decode(t, got); !reflect.DeepEqual(m, want) {
			t.Errorf("Read %s %v = %v, want %v", k, fields, m, want)
		}
	}
	t.Run("read whole and projected", func(t *testing.T) {
		expect(t, key(0), nil, docFor(0, "v1"))
		expect(t, key(15), nil, docFor(15, "v1"))
		expect(t, key(3), []string{"field2", "field0"}, map[string]string{"field0": "v1-field0-3", "field2": "v1-field2-3"})
		if _, err := s.Read(ctx, []byte("nokey"), nil, nil); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("Read missing = %v, want ErrNotFound", err)
		}
	})
	t.Run("text that needs quoting survives", func(t *testing.T) {
		odd := map[string]string{"field0": "a\"b\\c", "field1": "tab\there\nnew line", "field2": "=> , é \u2603 😀"}
		if err := s.Insert(ctx, []byte("odd"), mustJSON(t, odd)); err != nil {
			t.Fatal(err)
		}
		expect(t, []byte("odd"), nil, odd)
		if err := s.(db.BatchInserter).InsertBatch(ctx, [][]byte{[]byte("odd2")}, [][]byte{mustJSON(t, odd)}); err != nil {
			t.Fatal(err)
		}
		expect(t, []byte("odd2"), nil, odd)
		s.Delete(ctx, []byte("odd"))
		s.Delete(ctx, []byte("odd2"))
	})
	t.Run("updates: merge, replace, partial", func(t *testing.T) {
		if err := s.Update(ctx, key(4), &db.Update{Mode: db.Merge, Doc: []byte(`{"field1":"new"}`),
			Paths: []string{"field1"}, Values: [][]byte{[]byte(`"new"`)}}); err != nil {
			t.Fatal(err)
		}
		want := docFor(4, "v1")
		want["field1"] = "new"
		expect(t, key(4), nil, want)
		if err := s.Update(ctx, key(5), &db.Update{Mode: db.Replace, Doc: []byte(`{"field0":"only"}`)}); err != nil {
			t.Fatal(err)
		}
		expect(t, key(5), nil, map[string]string{"field0": "only"})
		u := &db.Update{Mode: db.Partial, Paths: []string{"field2", "field0"}, Values: [][]byte{[]byte(`"p2"`), []byte(`"p\"0"`)}}
		if err := s.Update(ctx, key(6), u); err != nil {
			t.Fatal(err)
		}
		want = docFor(6, "v1")
		want["field2"], want["field0"] = "p2", `p"0`
		expect(t, key(6), nil, want)
		if err := s.Update(ctx, []byte("nokey"), &db.Update{Mode: db.Partial, Paths: []string{"field0"},
			Values: [][]byte{[]byte(`"x"`)}}); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("Update missing = %v, want ErrNotFound", err)
		}
	})
	t.Run("scan is ordered and limited", func(t *testing.T) {
		if n, err := s.Scan(ctx, key(6), 5, nil); err != nil || n != 5 {
			t.Fatalf("Scan(user006, 5) = %d, %v; want 5", n, err)
		}
		if n, err := s.Scan(ctx, key(17), 100, []string{"field0"}); err != nil || n != 3 {
			t.Fatalf("Scan(user017, 100) = %d, %v; want 3", n, err)
		}
	})
	t.Run("delete", func(t *testing.T) {
		if err := s.Delete(ctx, key(19)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Read(ctx, key(19), nil, nil); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("read after delete = %v", err)
		}
	})
	t.Run("secondary queries on flat fields", func(t *testing.T) {
		q := s.(db.Querier)
		var docs []string
		for i, grp := range []string{"a", "a", "b", "b", "b"} {
			docs = append(docs, fmt.Sprintf(`{"field0":"q%d","field1":"%s","field2":"s%d"}`, i, grp, i))
		}
		plant(ctx, t, s, docs)
		checkQueries(ctx, t, q, []queryCase{
			{"field", db.Query{Kind: db.QueryField, Path: "field1", Value: []byte(`"b"`)}, 3},
			{"field limited", db.Query{Kind: db.QueryField, Path: "field1", Value: []byte(`"b"`), Limit: 2}, 2},
			{"field projected", db.Query{Kind: db.QueryField, Path: "field1", Value: []byte(`"a"`), Fields: []string{"field2"}}, 2},
			{"contains path", db.Query{Kind: db.QueryContains, Path: "field1", Value: []byte(`"a"`)}, 2},
			{"contains document", db.Query{Kind: db.QueryContains, Value: []byte(`{"field1":"b","field2":"s3"}`)}, 1},
			{"range page", db.Query{Kind: db.QueryRange, Path: "field1", Value: []byte(`"b"`), Limit: 2, Offset: 1}, 2},
		})
	})
	t.Run("info", func(t *testing.T) {
		info, err := store.Info(ctx)
		if err != nil || info.Backend == "" || info.Version == "" {
			t.Errorf("Info = %+v, %v: want backend and version", info, err)
		}
	})
}

// setupAndLoad creates the suite's table and a session, and inserts
// user000…user019: 10 single inserts out of key order, then 10 in one batch
// (one by one where the backend has no batches).
func setupAndLoad(t *testing.T, store db.Store, schema db.Schema) db.Session {
	t.Helper()
	ctx := context.Background()
	if err := store.Setup(ctx, schema, true); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	s, err := store.NewSession(ctx)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	// Insert 10 single, 10 batched (if supported), out of key order.
	for _, i := range []int{5, 3, 9, 1, 7, 0, 2, 8, 4, 6} {
		if err := s.Insert(ctx, key(i), mustJSON(t, docFor(i, "v1"))); err != nil {
			t.Fatalf("Insert %s: %v", key(i), err)
		}
	}
	var keys, docs [][]byte
	for i := 10; i < 20; i++ {
		keys = append(keys, key(i))
		docs = append(docs, mustJSON(t, docFor(i, "v1")))
	}
	if bi, ok := s.(db.BatchInserter); ok {
		if err := bi.InsertBatch(ctx, keys, docs); err != nil {
			t.Fatalf("InsertBatch: %v", err)
		}
	} else {
		for i := range keys {
			if err := s.Insert(ctx, keys[i], docs[i]); err != nil {
				t.Fatalf("Insert: %v", err)
			}
		}
	}
	return s
}
