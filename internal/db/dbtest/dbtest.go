// Package dbtest is the conformance suite every backend runs against its
// real server: the core operations must behave the same everywhere.
package dbtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/docbench/docbench/internal/db"
)

// Fields are the field names the suite's documents use.
var Fields = []string{"field0", "field1", "field2"}

func docFor(i int, tag string) map[string]string {
	m := map[string]string{}
	for _, f := range Fields {
		m[f] = fmt.Sprintf("%s-%s-%d", tag, f, i)
	}
	return m
}

func key(i int) []byte { return fmt.Appendf(nil, "user%03d", i) }

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decode(t testing.TB, b []byte) map[string]string {
	t.Helper()
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("read returned invalid JSON %q: %v", b, err)
	}
	return m
}

// Columns declares every top-level field the suite writes, with its JSON
// type, for layouts that need them (relational).
var Columns = []db.Column{
	{Name: "field0", Type: "string"}, {Name: "field1", Type: "string"}, {Name: "field2", Type: "string"},
	{Name: "name", Type: "string"}, {Name: "address", Type: "object"}, {Name: "tags", Type: "array", Items: "string"},
	{Name: "n", Type: "integer"}, {Name: "grp", Type: "string"}, {Name: "score", Type: "integer"}, {Name: "flag", Type: "boolean"},
	{Name: "items", Type: "array", Items: "object", Members: []db.Column{{Name: "term", Type: "string"}, {Name: "n", Type: "integer"}}},
}

// Run exercises a store opened on a real server. The store must be fresh
// (the suite calls Setup with recreate).
func Run(t *testing.T, store db.Store) {
	x := &suite{ctx: context.Background(), store: store}
	defer func() {
		if x.s != nil {
			x.s.Close()
		}
	}()
	x.load(t)
	x.reads(t)
	x.updates(t)
	x.updateEdges(t)
	x.keys(t)
	x.queries(t)
	x.mix(t)
	x.info(t)
}

// suite is the state the groups of checks share: a session on the store,
// holding the 20 documents load inserted (user000…user019).
type suite struct {
	ctx   context.Context
	store db.Store
	s     db.Session
}

// load sets the table up and inserts user000…user009 one by one, out of key
// order, then user010…user019 in a batch where the backend has one.
func (x *suite) load(t *testing.T) {
	schema := db.Schema{Table: "usertable", Fields: Fields, Columns: Columns,
		Indexes: []db.Index{{Path: "address.city"}, {Path: "tags", Array: true}, {Path: "score"}}}
	x.s = setupAndLoad(t, x.store, schema)
}

// reads checks point reads: whole documents, projections, a missing key.
func (x *suite) reads(t *testing.T) {
	ctx, s := x.ctx, x.s
	t.Run("read all fields", func(t *testing.T) {
		for _, i := range []int{0, 7, 15} {
			got, err := s.Read(ctx, key(i), nil, nil)
			if err != nil {
				t.Fatalf("Read %s: %v", key(i), err)
			}
			if m := decode(t, got); !reflect.DeepEqual(m, docFor(i, "v1")) {
				t.Errorf("Read %s = %v, want %v", key(i), m, docFor(i, "v1"))
			}
		}
	})
	t.Run("read appends to dst", func(t *testing.T) {
		got, err := s.Read(ctx, key(1), nil, []byte("prefix"))
		if err != nil || string(got[:6]) != "prefix" {
			t.Fatalf("Read with dst = %q, %v", got, err)
		}
	})
	t.Run("projection returns exactly the requested fields", func(t *testing.T) {
		got, err := s.Read(ctx, key(3), []string{"field1"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m := decode(t, got); !reflect.DeepEqual(m, map[string]string{"field1": "v1-field1-3"}) {
			t.Errorf("projection = %v", m)
		}
		got, err = s.Read(ctx, key(3), []string{"field2", "field0"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m := decode(t, got); !reflect.DeepEqual(m, map[string]string{"field0": "v1-field0-3", "field2": "v1-field2-3"}) {
			t.Errorf("projection = %v", m)
		}
	})
	t.Run("projection of more fields than a function takes arguments", func(t *testing.T) {
		many := make([]string, 120)
		for i := range many {
			many[i] = Fields[i%len(Fields)]
			if i >= len(Fields) {
				many[i] = fmt.Sprintf("absent%d", i)
			}
		}
		got, err := s.Read(ctx, key(3), many, nil)
		if err != nil {
			t.Fatalf("Read of 120 paths: %v", err)
		}
		if m := decode(t, withoutNulls(t, got)); m["field0"] != "v1-field0-3" || m["field2"] != "v1-field2-3" {
			t.Errorf("projection of 120 paths = %v", m)
		}
	})
	t.Run("read missing key", func(t *testing.T) {
		if _, err := s.Read(ctx, []byte("nokey"), nil, nil); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("Read missing = %v, want ErrNotFound", err)
		}
	})
}

// updates checks the three update modes.
func (x *suite) updates(t *testing.T) {
	ctx, s, store := x.ctx, x.s, x.store
	t.Run("merge update changes only the given field", func(t *testing.T) {
		if err := s.Update(ctx, key(4), &db.Update{Mode: db.Merge, Doc: []byte(`{"field1":"new"}`),
			Paths: []string{"field1"}, Values: [][]byte{[]byte(`"new"`)}}); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Read(ctx, key(4), nil, nil)
		want := docFor(4, "v1")
		want["field1"] = "new"
		if m := decode(t, got); !reflect.DeepEqual(m, want) {
			t.Errorf("after update = %v, want %v", m, want)
		}
	})
	t.Run("merge keeps null members and replaces nested objects whole", func(t *testing.T) {
		if err := s.Insert(ctx, []byte("merge1"), []byte(`{"name":"n","address":{"zip":"1","city":"c"},"n":1}`)); err != nil {
			t.Fatal(err)
		}
		u := &db.Update{Mode: db.Merge, Doc: []byte(`{"name":null,"address":{"zip":"2"}}`),
			Paths: []string{"name", "address"}, Values: [][]byte{[]byte(`null`), []byte(`{"zip":"2"}`)}}
		if err := s.Update(ctx, []byte("merge1"), u); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Read(ctx, []byte("merge1"), nil, nil)
		var m, want map[string]any
		json.Unmarshal(got, &m)
		json.Unmarshal([]byte(`{"name":null,"address":{"zip":"2"},"n":1}`), &want)
		if !reflect.DeepEqual(m, want) && !nullsDropped(store) {
			t.Errorf("after merge: %s", got)
		}
		s.Delete(ctx, []byte("merge1"))
	})
	t.Run("replace writes the whole document", func(t *testing.T) {
		if err := s.Update(ctx, key(5), &db.Update{Mode: db.Replace, Doc: []byte(`{"field0":"only"}`)}); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Read(ctx, key(5), nil, nil)
		if m := decode(t, got); !reflect.DeepEqual(m, map[string]string{"field0": "only"}) {
			t.Errorf("after replace = %v", m)
		}
	})
	t.Run("partial update sets paths in place", func(t *testing.T) {
		u := &db.Update{Mode: db.Partial, Paths: []string{"field2", "field0"}, Values: [][]byte{[]byte(`"p2"`), []byte(`"p0"`)}}
		if err := s.Update(ctx, key(6), u); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Read(ctx, key(6), nil, nil)
		want := docFor(6, "v1")
		want["field2"], want["field0"] = "p2", "p0"
		if m := decode(t, got); !reflect.DeepEqual(m, want) {
			t.Errorf("after partial update = %v, want %v", m, want)
		}
	})
}

// updateEdges checks partial updates at nested paths and an update of a
// missing key.
func (x *suite) updateEdges(t *testing.T) {
	ctx, s := x.ctx, x.s
	t.Run("nested documents: paths in projections and partial updates", func(t *testing.T) {
		nested := []byte(`{"name":"n","address":{"zip":"12345","city":"c","geo":{"lat":1.5}},"tags":["a","b"],"n":3,"flag":true}`)
		if err := s.Insert(ctx, []byte("nested1"), nested); err != nil {
			t.Fatal(err)
		}
		got, err := s.Read(ctx, []byte("nested1"), []string{"address.zip", "address.geo.lat", "n", "flag"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(got, &m); err != nil {
			t.Fatalf("%s: %v", got, err)
		}
		if !reflect.DeepEqual(m, map[string]any{"address.zip": "12345", "address.geo.lat": 1.5, "n": 3.0, "flag": true}) {
			t.Errorf("nested projection = %s", got)
		}
		u := &db.Update{Mode: db.Partial, Paths: []string{"address.geo.lat"}, Values: [][]byte{[]byte(`{"deg":2}`)}}
		if err := s.Update(ctx, []byte("nested1"), u); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Read(ctx, []byte("nested1"), nil, nil)
		var whole, want map[string]any
		json.Unmarshal(got, &whole)
		json.Unmarshal([]byte(`{"name":"n","address":{"zip":"12345","city":"c","geo":{"lat":{"deg":2}}},"tags":["a","b"],"n":3,"flag":true}`), &want)
		if !reflect.DeepEqual(whole, want) {
			t.Errorf("after nested partial update: %s", got)
		}
		if err := s.Delete(ctx, []byte("nested1")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("update missing key", func(t *testing.T) {
		if err := s.Update(ctx, []byte("nokey"), &db.Update{Mode: db.Merge, Doc: []byte(`{"field0":"x"}`),
			Paths: []string{"field0"}, Values: [][]byte{[]byte(`"x"`)}}); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("Update missing = %v, want ErrNotFound", err)
		}
	})
}

// keys checks the key-ordered scan, a duplicate insert and delete.
func (x *suite) keys(t *testing.T) {
	ctx, s := x.ctx, x.s
	t.Run("scan is ordered and limited", func(t *testing.T) {
		n, err := s.Scan(ctx, key(6), 5, nil)
		if err != nil || n != 5 {
			t.Fatalf("Scan(user006, 5) = %d, %v; want 5", n, err)
		}
		n, err = s.Scan(ctx, key(17), 100, []string{"field0"})
		if err != nil || n != 3 {
			t.Fatalf("Scan(user017, 100) = %d, %v; want 3 (user017..user019)", n, err)
		}
	})
	t.Run("duplicate insert fails", func(t *testing.T) {
		if err := s.Insert(ctx, key(1), mustJSON(t, docFor(1, "dup"))); err == nil {
			// document layouts without a unique key index may accept it; then
			// the original must still be readable.
			if _, rerr := s.Read(ctx, key(1), nil, nil); rerr != nil {
				t.Fatalf("after duplicate insert: %v", rerr)
			}
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
}

// queries checks the secondary queries on planted documents, where the
// backend has them.
func (x *suite) queries(t *testing.T) {
	ctx, s := x.ctx, x.s
	t.Run("secondary queries return the planted documents", func(t *testing.T) {
		q, ok := s.(db.Querier)
		if !ok {
			t.Skip("the backend has no secondary queries")
		}
		planted := []string{
			`{"grp":"a","score":1,"tags":["x","y"],"items":[{"term":"t1","n":1}],"address":{"city":"c1"}}`,
			`{"grp":"a","score":2,"tags":["y"],"items":[{"term":"t2","n":2},{"term":"t3","n":3}],"address":{"city":"c2"}}`,
			`{"grp":"b","score":3,"tags":["z"],"items":[{"term":"t2","n":4}],"address":{"city":"c1"}}`,
			`{"grp":"b","score":4,"tags":[],"items":[],"address":{"city":"c3"}}`,
			`{"grp":"b","score":5,"tags":["x","z"],"items":[{"term":"t5","n":5}],"address":{"city":"c1"}}`,
		}
		plant(ctx, t, s, planted)
		checkQueries(ctx, t, q, []queryCase{
			{"field", db.Query{Kind: db.QueryField, Path: "address.city", Value: []byte(`"c1"`)}, 3},
			{"field limited", db.Query{Kind: db.QueryField, Path: "address.city", Value: []byte(`"c1"`), Limit: 2}, 2},
			{"field projected", db.Query{Kind: db.QueryField, Path: "address.city", Value: []byte(`"c2"`), Fields: []string{"score"}}, 1},
			{"contains", db.Query{Kind: db.QueryContains, Path: "items", Value: []byte(`[{"term":"t2"}]`)}, 2},
			{"contains document", db.Query{Kind: db.QueryContains, Path: "", Value: []byte(`{"address":{"city":"c3"}}`)}, 1},
			{"array", db.Query{Kind: db.QueryArray, Path: "tags", Value: []byte(`"z"`)}, 2},
			{"range", db.Query{Kind: db.QueryRange, Path: "score", Value: []byte(`2`), Limit: 10}, 4},
			{"range page", db.Query{Kind: db.QueryRange, Path: "score", Value: []byte(`2`), Limit: 2, Offset: 3}, 1},
			{"aggregate", db.Query{Kind: db.QueryAggregate, Path: "grp", AggPath: "score", Func: "avg"}, 3}, // a, b and the documents without grp
			{"descendant in arrays", db.Query{Kind: db.QueryDescendant, Path: "items.term", Value: []byte(`"t2"`)}, 2},
			{"descendant nested", db.Query{Kind: db.QueryDescendant, Path: "address.city", Value: []byte(`"c1"`)}, 3},
			{"descendant number", db.Query{Kind: db.QueryDescendant, Path: "items.n", Value: []byte(`4`)}, 1},
		})
		for i := range planted {
			s.Delete(ctx, fmt.Appendf(nil, "q%d", i))
		}
	})
}

// info checks that the store describes its backend and version.
func (x *suite) info(t *testing.T) {
	ctx, store := x.ctx, x.store
	t.Run("info", func(t *testing.T) {
		info, err := store.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.Backend == "" || info.Version == "" {
			t.Errorf("Info = %+v: want backend and version", info)
		}
	})
}

// nullsDropped reports layouts that cannot tell a null member from an
// absent one (a relational column).
func nullsDropped(store db.Store) bool {
	info, err := store.Info(context.Background())
	return err == nil && info.Layout["layout"] == "relational"
}

// withoutNulls drops null members (absent paths read as null on some backends).
func withoutNulls(t testing.TB, b []byte) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	for k, v := range m {
		if v == nil {
			delete(m, k)
		}
	}
	return mustJSON(t, m)
}

// plant inserts docs under the keys q0, q1, …
func plant(ctx context.Context, t *testing.T, s db.Session, docs []string) {
	t.Helper()
	for i, d := range docs {
		if err := s.Insert(ctx, fmt.Appendf(nil, "q%d", i), []byte(d)); err != nil {
			t.Fatal(err)
		}
	}
}

// queryCase is one secondary query and the number of results it must give.
type queryCase struct {
	name string
	q    db.Query
	want int
}

// checkQueries runs each case. A descendant query the backend refuses as
// not supported is logged, not failed: MongoDB and relational layouts have
// no query at any depth, and say so.
func checkQueries(ctx context.Context, t *testing.T, q db.Querier, cases []queryCase) {
	t.Helper()
	for _, tc := range cases {
		n, err := q.Query(ctx, &tc.q)
		var unsupported *db.ErrNotSupported
		if tc.q.Kind == db.QueryDescendant && errors.As(err, &unsupported) {
			t.Logf("%s: %v", tc.name, err)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		} else if n != tc.want {
			t.Errorf("%s: %d results, want %d", tc.name, n, tc.want)
		}
	}
}

// Session creates schema's table on store (dropping an existing one) and
// opens a session, closed when the test ends.
func Session(tb testing.TB, ctx context.Context, store db.Store, schema db.Schema) db.Session {
	tb.Helper()
	if err := store.Setup(ctx, schema, true); err != nil {
		tb.Fatal(err)
	}
	s, err := store.NewSession(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}
