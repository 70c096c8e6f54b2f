package runner

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/testutil"
	"github.com/docbench/docbench/internal/workload"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// Queries take their predicate values from the generated data, so every
// query NewDocOps prepares finds documents on every backend.
func TestPreparedQueriesFindPlantedDocuments(t *testing.T) {
	targets := map[string]string{
		"sqlite":   "sqlite:" + filepath.Join(t.TempDir(), "q.db"),
		"postgres": testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")),
	}
	cases := []map[string]string{
		{"document.shape": "reviews", "querykind": "field", "query.path": "product_group", "secondaryindex": "product_group"},
		{"document.shape": "customer", "querykind": "contains", "query.path": "visited_places.country"},
		{"document.shape": "customer", "querykind": "field", "query.path": "address.prev_address.city"},
		{"document.shape": "bookmarks", "querykind": "contains", "query.path": "tags.term", "secondaryindex": "tags.term"},
		{"document.shape": "customer", "querykind": "array", "query.path": "devices"},
		{"document.shape": "bookmarks", "querykind": "contains", "query.path": "tags.term", "query.form": "document"},
		{"document.shape": "customer", "querykind": "contains", "query.path": "visited_places.country", "query.form": "document"},
		{"document.shape": "reviews", "querykind": "range", "query.path": "review_date", "query.limit": "5"},
		{"document.shape": "reviews", "querykind": "aggregate", "query.path": "product_group", "query.aggpath": "review_rating"},
	}
	for name, target := range targets {
		for _, c := range cases {
			t.Run(name+"/"+c["document.shape"]+"/"+c["querykind"]+"/"+c["query.path"]+"/"+c["query.form"], func(t *testing.T) {
				props := map[string]string{"recordcount": "300", "queryproportion": "0.5", "readproportion": "0.5", "updateproportion": "0", "batchsize": "100"}
				for k, v := range c {
					props[k] = v
				}
				store, wl, docOps := setup(t, target, props)
				if _, err := Execute(context.Background(), store, wl, docOps, Options{Phase: Load, Threads: 1}); err != nil {
					t.Fatal(err)
				}
				s, err := store.NewSession(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if len(docOps.queries) == 0 {
					t.Fatal("no queries prepared")
				}
				for i := range min(len(docOps.queries), 20) {
					q := &docOps.queries[i]
					n, err := s.(db.Querier).Query(context.Background(), q)
					if err != nil {
						t.Fatalf("%+v: %v", q, err)
					}
					if n == 0 {
						t.Errorf("query %s %s %s found nothing", q.Kind, q.Path, q.Value)
					}
				}
				indexed := c["secondaryindex"] != ""
				noted := strings.Contains(strings.Join(docOps.Notes, "\n"), "no secondary index")
				if c["query.form"] == "document" {
					if docOps.queries[0].Path != "" || !strings.Contains(strings.Join(docOps.Notes, "\n"), "whole document") {
						t.Errorf("query.form=document: query on %q, notes %q; want the whole document", docOps.queries[0].Path, docOps.Notes)
					}
				} else if c["querykind"] != "aggregate" && indexed == noted {
					t.Errorf("notes %q: an unindexed query must be noted, an indexed one not", docOps.Notes)
				}
			})
		}
	}
}

// A partial update changes only the chosen path; a merge only the chosen
// top-level fields.
func TestUpdatesTouchOnlyWhatThePlanSays(t *testing.T) {
	ctx := context.Background()
	for mode, props := range map[string]map[string]string{
		"partial": {"updatepath": "address.zip"},
		"merge":   {"updatefields": "2"},
	} {
		t.Run(mode, func(t *testing.T) {
			p := map[string]string{"document.shape": "customer", "recordcount": "50", "readproportion": "0", "updateproportion": "1",
				"operationcount": "200", "requestdistribution": "uniform"}
			for k, v := range props {
				p[k] = v
			}
			store, wl, docOps := setup(t, "sqlite:"+filepath.Join(t.TempDir(), "u.db"), p)
			if _, err := Execute(ctx, store, wl, docOps, Options{Phase: Load, Threads: 1}); err != nil {
				t.Fatal(err)
			}
			if _, err := Execute(ctx, store, wl, docOps, Options{Phase: Run, Threads: 1}); err != nil {
				t.Fatal(err)
			}
			s, _ := store.NewSession(ctx)
			defer s.Close()
			th := wl.NewThread(0)
			changedKeys := 0
			for k := range int64(50) {
				key := th.AppendKey(nil, k)
				got, err := s.Read(ctx, key, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := docOps.Shape.AppendDoc(nil, key, k, docRand())
				diff := diffPaths(t, got, want)
				if len(diff) > 0 {
					changedKeys++
				}
				for _, d := range diff {
					if mode == "partial" && d != "address.zip" {
						t.Fatalf("key %s: %s changed", key, d)
					}
				}
				if mode == "merge" && !sameTopLevel(t, got, want) {
					t.Fatalf("key %s: merge added or removed top-level fields:\n%s\n%s", key, got, want)
				}
			}
			if changedKeys < 40 {
				t.Fatalf("only %d of 50 documents changed after 200 updates", changedKeys)
			}
		})
	}
}

// dataintegrity verifies reads of any shape against the regenerated
// document; a document changed behind docbench's back is counted as an error.
func TestDataIntegrityOnShapes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "i.db")
	props := map[string]string{"document.shape": "customer", "recordcount": "100", "operationcount": "2000",
		"readproportion": "1", "updateproportion": "0", "dataintegrity": "true", "readfields": "30%"}
	store, wl, docOps := setup(t, "sqlite:"+path, props)
	if _, err := Execute(ctx, store, wl, docOps, Options{Phase: Load, Threads: 1}); err != nil {
		t.Fatal(err)
	}
	out, err := Execute(ctx, store, wl, docOps, Options{Phase: Run, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if v := opIndex(t, out, "VERIFY"); out.Failed != 0 || count(out, "VERIFY") != count(out, "READ") {
		t.Fatalf("%d failed on intact data: %v", out.Failed, out.Totals.Messages[v])
	}
	// Corrupt every document's email behind docbench's back.
	s, _ := store.NewSession(ctx)
	th := wl.NewThread(0)
	for k := range int64(100) {
		u := &db.Update{Mode: db.Partial, Paths: []string{"email"}, Values: [][]byte{[]byte(`"tampered"`)}}
		if err := s.Update(ctx, th.AppendKey(nil, k), u); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	props["readfields"] = "100%"
	store2, wl2, plan2 := setupNoRecreate(t, "sqlite:"+path, props)
	out, err = Execute(ctx, store2, wl2, plan2, Options{Phase: Run, Threads: 1, MaxErrorShare: -1})
	if err != nil {
		t.Fatal(err)
	}
	v := opIndex(t, out, "VERIFY")
	if out.Totals.Errors[v] == 0 || !strings.Contains(out.Totals.Messages[v][0].Message, "email differs") {
		t.Fatalf("tampered documents not detected: %d errors %v", out.Totals.Errors[v], out.Totals.Messages[v])
	}
}

// Statements of the user's run prepared, with parameters drawn from keys,
// numbers and values found in the documents, on every SQL backend.
func TestStatements(t *testing.T) {
	ctx := context.Background()
	cases := map[string]struct{ target, sql string }{
		"sqlite":   {"sqlite:" + filepath.Join(t.TempDir(), "s.db"), "SELECT data ->> '$.product_group' FROM {table} WHERE ycsb_key = ? AND ? > 0 AND data ->> '$.product_group' <> ?"},
		"postgres": {testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")), "SELECT data->'product_group' FROM {table} WHERE ycsb_key = $1 AND $2::int > 0 AND data->>'product_group' <> $3"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			props := map[string]string{"document.shape": "reviews", "recordcount": "200", "operationcount": "500",
				"readproportion": "0", "updateproportion": "0", "statementproportion": "1", "statement.sql": c.sql,
				"statement.params": "key,int:1:9,text:product_group", "statement.name": "probe",
				"statement.setup": "CREATE INDEX IF NOT EXISTS stmt_setup_idx ON {table} (ycsb_key)"}
			store, wl, docOps := setup(t, c.target, props)
			if _, err := Execute(ctx, store, wl, docOps, Options{Phase: Load, Threads: 1}); err != nil {
				t.Fatal(err)
			}
			out, err := Execute(ctx, store, wl, docOps, Options{Phase: Run, Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			i := int(workload.OpStatement)
			if out.Names[i] != "STATEMENT-PROBE" || out.Totals.Service[i].TotalCount() != 500 || out.Totals.Errors[i] != 0 {
				t.Fatalf("%s: %d ok, %d errors %v", out.Names[i], out.Totals.Service[i].TotalCount(), out.Totals.Errors[i], out.Totals.Messages[i])
			}
		})
	}
}

func TestWrapFragment(t *testing.T) {
	for _, c := range []struct{ path, frag, want string }{
		{"", `{"a":1}`, `{"a":1}`},
		{"tags", `[{"term":"x"}]`, `{"tags":[{"term":"x"}]}`},
		{"a.b", `[{"m":1}]`, `{"a":{"b":[{"m":1}]}}`},
	} {
		if got := string(wrapFragment(c.path, []byte(c.frag))); got != c.want {
			t.Errorf("wrapFragment(%q, %s) = %s, want %s", c.path, c.frag, got, c.want)
		}
	}
}

// TestQueryValueFindsTheRareTerm: query.value makes every query look for one
// value; a search for the bookmarks' planted term finds exactly the
// documents the generator planted it in.
func TestQueryValueFindsTheRareTerm(t *testing.T) {
	props := map[string]string{"recordcount": "5000", "batchsize": "500", "document.shape": "bookmarks",
		"queryproportion": "1", "readproportion": "0", "updateproportion": "0",
		"querykind": "contains", "query.path": "tags.term", "query.limit": "0", "query.value": document.RareTerm100}
	store, wl, docOps := setup(t, "sqlite:"+filepath.Join(t.TempDir(), "rare.db"), props)
	if _, err := Execute(context.Background(), store, wl, docOps, Options{Phase: Load, Threads: 1}); err != nil {
		t.Fatal(err)
	}
	if len(docOps.queries) != 1 || !strings.Contains(string(docOps.queries[0].Value), `"`+document.RareTerm100+`"`) {
		t.Fatalf("queries: %+v", docOps.queries)
	}
	want := 0
	r := document.NewRand()
	var buf []byte
	for k := range int64(5000) {
		buf = docOps.Shape.AppendDoc(buf[:0], nil, k, r)
		if strings.Contains(string(buf), `"term":"`+document.RareTerm100+`"`) {
			want++
		}
	}
	s, err := store.NewSession(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.(db.Querier).Query(context.Background(), &docOps.queries[0])
	if err != nil || n != want || want < 25 || want > 80 {
		t.Errorf("found %d documents (%v); the generator planted it in %d of 5000 (≈ 50)", n, err, want)
	}
}

// TestQueryValueFirstAndLast: query.value=@first or @last looks for the
// first or last element of the arrays; with document.arrayitems=sequence
// that is one value at one position in every document, which every
// PostgreSQL array operator and SQLite find in every document, returning
// the field query.fields names.
func TestQueryValueFirstAndLast(t *testing.T) {
	pg := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	targets := map[string]string{"sqlite": "sqlite:" + filepath.Join(t.TempDir(), "ends.db")}
	for _, op := range []string{"contains", "jsonpath_match", "jsonpath_exists", "exists"} {
		targets["postgres/"+op] = pg
	}
	for name, target := range targets {
		for at, want := range map[string]string{workload.QueryValueFirst: "1", workload.QueryValueLast: "7"} {
			t.Run(name+"/"+at, func(t *testing.T) {
				props := map[string]string{"recordcount": "40", "batchsize": "40", "fieldcount": "1",
					"document.arrays": "1", "document.arrayitems": "sequence", "document.arraylength": "7",
					"queryproportion": "1", "readproportion": "0", "updateproportion": "0",
					"querykind": "array", "query.path": "array0", "query.value": at, "query.limit": "0", "query.fields": "field0"}
				if op, ok := strings.CutPrefix(name, "postgres/"); ok {
					props["pg.arrayop"] = op
				}
				store, wl, docOps := setup(t, target, props)
				if _, err := Execute(context.Background(), store, wl, docOps, Options{Phase: Load, Threads: 1}); err != nil {
					t.Fatal(err)
				}
				if len(docOps.queries) != 1 || string(docOps.queries[0].Value) != want || strings.Join(docOps.queries[0].Fields, ",") != "field0" {
					t.Fatalf("queries %+v: want the one value %s, returning field0 (query.fields)", docOps.queries, want)
				}
				s, err := store.NewSession(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if n, err := s.(db.Querier).Query(context.Background(), &docOps.queries[0]); err != nil || n != 40 {
					t.Errorf("found %d of 40 documents (%v)", n, err)
				}
			})
		}
	}
	// On arrays of words, @last gives the last words of the sampled documents.
	_, docOps := newDocOps(t, "workloadc", map[string]string{"recordcount": "100", "fieldcount": "1",
		"document.arrays": "1", "document.arrayitems": "scalar", "document.arraylength": "5",
		"queryproportion": "1", "readproportion": "0", "querykind": "array", "query.path": "array0", "query.value": "@last"})
	last := map[string]bool{}
	r := document.NewRand()
	for k := range int64(100) {
		var doc struct{ Array0 []any }
		buf := docOps.Shape.AppendDoc(nil, nil, k, r)
		if err := json.Unmarshal(buf, &doc); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(doc.Array0[len(doc.Array0)-1])
		last[string(b)] = true
	}
	for _, q := range docOps.queries {
		if !last[string(q.Value)] {
			t.Errorf("@last looks for %s, the last element of no document", q.Value)
		}
	}
}
