package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

func TestHstoreConformance(t *testing.T) {
	variants := map[string]map[string]string{
		"column-hstore":       {"layout": "column", "doctype": "hstore"},
		"document-hstore":     {"layout": "document", "doctype": "hstore"},
		"document-hstore-gin": {"layout": "document", "doctype": "hstore", "index": "gin"},
	}
	for _, kind := range servers {
		for name, props := range variants {
			t.Run(kind+"/"+name, func(t *testing.T) {
				url := testutil.FreshDatabase(t, testutil.Postgres(t, kind))
				dbtest.RunFlat(t, openStore(t, url, props))
			})
		}
	}
}

// TestHstoreRefuses checks the one-line refusals: properties hstore cannot
// take, and documents that are not flat maps of strings.
func TestHstoreRefuses(t *testing.T) {
	for props, want := range map[string]string{
		"layout=relational":                     "doctype=hstore: the document column of layout=column or layout=document",
		"layout=document index=gin_path_ops":    "index=gin_path_ops: jsonb_path_ops is a jsonb operator class",
		"layout=document pg.keylookup=jsonpath": "pg.keylookup=jsonpath: with doctype=hstore",
		"pg.pathop=arrow":                       "pg.pathop=arrow: doctype=hstore has no nested paths",
	} {
		p := map[string]string{"doctype": "hstore"}
		for _, f := range strings.Fields(props) {
			k, v, _ := strings.Cut(f, "=")
			p[k] = v
		}
		_, err := db.Open(context.Background(), db.OpenRequest{Target: "postgres://127.0.0.1:1/none", Props: p})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", props, err, want)
		}
	}
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	st := openStore(t, url, map[string]string{"doctype": "hstore"})
	err := st.Setup(context.Background(), db.Schema{Table: "usertable", Fields: dbtest.Fields, Columns: dbtest.Columns}, true)
	if err == nil || err.Error() != "doctype=hstore needs document.shape=flat (hstore is a flat map of text values): field address is an object" {
		t.Errorf("nested schema: %v", err)
	}
}

// TestHstoreContainmentUsesGIN checks that the key lookup by containment,
// a merge and containment on the document, in both query forms, use the
// GIN (gin_hstore_ops) index.
func TestHstoreContainmentUsesGIN(t *testing.T) {
	ctx := context.Background()
	for _, kind := range servers {
		t.Run(kind, func(t *testing.T) {
			url := testutil.FreshDatabase(t, testutil.Postgres(t, kind))
			st := openStore(t, url, map[string]string{"layout": "document", "doctype": "hstore", "index": "gin"})
			if err := st.Setup(ctx, db.Schema{Table: "usertable", Fields: dbtest.Fields}, true); err != nil {
				t.Fatal(err)
			}
			sess, err := st.NewSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			var keys, docs [][]byte
			for i := range 3000 {
				d, _ := json.Marshal(map[string]string{"field0": fmt.Sprint("a", i), "field1": fmt.Sprint("b", i%50), "field2": "c"})
				keys, docs = append(keys, fmt.Appendf(nil, "user%05d", i)), append(docs, d)
			}
			if err := sess.(db.BatchInserter).InsertBatch(ctx, keys, docs); err != nil {
				t.Fatal(err)
			}
			if _, err := st.admin.Exec(ctx, "ANALYZE "+st.table); err != nil {
				t.Fatal(err)
			}
			key := []byte("user00042")
			queries := []db.Query{
				{Kind: db.QueryContains, Path: "field0", Value: []byte(`"a17"`)},
				{Kind: db.QueryContains, Value: []byte(`{"field0":"a17"}`)},
			}
			plans, err := db.Explain(ctx, st, &db.ExplainRequest{Statements: []db.Statement{
				{Kind: db.StmtRead, Key: key},
				{Kind: db.StmtUpdate, Key: key, Update: &db.Update{Mode: db.Merge, Doc: []byte(`{"field1":"x"}`)}},
				{Kind: db.StmtUpdate, Key: key, Update: &db.Update{Mode: db.Partial, Paths: []string{"field1"}, Values: [][]byte{[]byte(`"y"`)}}},
				{Kind: db.StmtUpdate, Key: key, Update: &db.Update{Mode: db.Replace, Doc: []byte(`{"field1":"z"}`)}},
				{Kind: db.StmtQuery, Query: &queries[0]},
				{Kind: db.StmtQuery, Query: &queries[1]},
				{Kind: db.StmtInsert, Key: []byte("new"), Doc: []byte(`{"field0":"n"}`)},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if len(plans) != 7 || plans[6].Access != "Insert on usertable" {
				t.Fatalf("%d plans: %+v", len(plans), plans)
			}
			plans = plans[:6]
			// On 3000 small rows the planner may prefer a scan: the flag
			// then says the index can serve it.
			for _, p := range plans {
				if !strings.Contains(p.Access, "usertable_gin") && !strings.Contains(p.Flag, "an index can serve it: ") ||
					!strings.Contains(p.Access+p.Flag, "Bitmap Index Scan using usertable_gin") {
					t.Errorf("%s: %s (%s); statement %s", p.Op, p.Access, p.Flag, p.Statement)
				}
			}
		})
	}
}

func TestAppendHstore(t *testing.T) {
	for in, want := range map[string]string{
		`{}`:                                ``,
		` { "a" : "x" , "b":null } `:        `"a"=>"x", "b"=>NULL`,
		`{"q\"k":"v\\w"}`:                   `"q\"k"=>"v\\w"`,
		`{"u":"\u00e9\ud83d\ude00\n\t/\/"}`: "\"u\"=>\"é😀\n\t//\"",
	} {
		got, err := appendHstore(nil, []byte(in))
		if err != nil || string(got) != want {
			t.Errorf("appendHstore(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		`{"a":1}`:         "want a JSON string, not a number",
		`{"a":{"b":"c"}}`: "not a number, boolean, object or array",
		`{"a":"x"`:        "want , or }",
		`{"a":"x"} x`:     "text after the JSON object",
		`["a"]`:           "not a JSON object",
		`{"a":"\u0000"}`:  "PostgreSQL text cannot hold it",
		`{"a":"x\q"}`:     "bad escape",
	} {
		if _, err := appendHstore(nil, []byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("appendHstore(%s) = %v, want %q", in, err, want)
		}
	}
}

// FuzzAppendHstore checks that every JSON object the encoder accepts is an
// object of strings (and nulls) and that hstore's reading of the output is
// the same map.
func FuzzAppendHstore(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"x","b":null}`, `{"q\"k":"v\\w\u00e9"}`, `{"a":1}`, `{"a":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := appendHstore(nil, in)
		if err != nil {
			return
		}
		var want map[string]*string
		if json.Unmarshal(in, &want) != nil {
			t.Fatalf("accepted %q, which is not a JSON object of strings", in)
		}
		m, err := parseHstore(string(got))
		if err != nil {
			t.Fatalf("%q → %q: %v", in, got, err)
		}
		if len(m) > len(want) {
			t.Fatalf("%q → %q: %d pairs, want %d", in, got, len(m), len(want))
		}
		for k, v := range want {
			g, ok := m[k]
			if !ok && !strings.ContainsRune(k, '\uFFFD') {
				t.Fatalf("%q → %q: key %q missing", in, got, k)
			}
			if ok && ((v == nil) != (g == nil) || v != nil && *v != *g && !strings.ContainsRune(*v, '\uFFFD')) {
				t.Fatalf("%q → %q: key %q", in, got, k)
			}
		}
	})
}

// parseHstore reads hstore's text form as the server does (for the fuzz test).
func parseHstore(s string) (map[string]*string, error) {
	m := map[string]*string{}
	quoted := func() (string, error) {
		if !strings.HasPrefix(s, `"`) {
			return "", fmt.Errorf("want \" at %q", s)
		}
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
				if i < len(s) {
					b.WriteByte(s[i])
				}
			case '"':
				s = s[i+1:]
				return b.String(), nil
			default:
				b.WriteByte(s[i])
			}
		}
		return "", fmt.Errorf("unterminated")
	}
	for s != "" {
		k, err := quoted()
		if err != nil {
			return nil, err
		}
		var ok bool
		if s, ok = strings.CutPrefix(s, "=>"); !ok {
			return nil, fmt.Errorf("want => at %q", s)
		}
		if rest, ok := strings.CutPrefix(s, "NULL"); ok {
			m[k], s = nil, rest
		} else {
			v, err := quoted()
			if err != nil {
				return nil, err
			}
			m[k] = &v
		}
		s = strings.TrimPrefix(s, ", ")
	}
	return m, nil
}

// BenchmarkHstoreConvert shows the write path's conversions allocate nothing.
func BenchmarkHstoreConvert(b *testing.B) {
	doc := []byte(`{"field0":"` + strings.Repeat("x", 100) + `","field1":"a\"b","field2":"` + strings.Repeat("y", 100) + `"}`)
	ss := &session{st: &store{v: variant{layout: "document", doctype: "hstore"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ss.hstoreDoc([]byte("user0001"), doc); err != nil {
			b.Fatal(err)
		}
		ss.hs.copy = appendCopyText(ss.hs.copy[:0], ss.hs.doc)
	}
}
