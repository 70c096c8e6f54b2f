package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
)

// loadExplain sets up usertable with the indexes given and 300 documents.
func loadExplain(t *testing.T, st db.Store, indexes ...db.Index) {
	t.Helper()
	ctx := context.Background()
	if err := st.Setup(ctx, db.Schema{Table: "usertable", Fields: []string{"field0", "field1"}, Indexes: indexes}, len(indexes) == 0); err != nil {
		t.Fatal(err)
	}
	if len(indexes) > 0 {
		return
	}
	sess, err := st.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var keys, docs [][]byte
	for i := range 300 {
		keys = append(keys, fmt.Appendf(nil, "user%04d", i))
		docs = append(docs, fmt.Appendf(nil, `{"field0":"a%d","field1":"v%d","n":%d,"tags":["t%d"]}`, i, i, i%7, i%5))
	}
	if err := sess.(db.BatchInserter).InsertBatch(ctx, keys, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := st.(*store).db.ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
}

// explainRequest is every statement of a workload, with the queries given.
func explainRequest(q ...db.Query) *db.ExplainRequest {
	return dbtest.ExplainRequest([]byte("user0007"), []byte(`{"field0":"x","field1":"y"}`), q...)
}

func planOf(t *testing.T, plans []db.Plan, op string) []db.Plan {
	t.Helper()
	var out []db.Plan
	for _, p := range plans {
		if p.Op == op {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no plan for %s in %+v", op, plans)
	}
	return out
}

// TestExplainFlagsUnindexedQuery: key lookups, the scan and the update
// search the primary key's index (not flagged); a secondary query on an
// unindexed path scans the table (flagged), and with secondaryindex on the
// path it searches the expression index (not flagged). Each statement is
// the one a session prepares.
func TestExplainFlagsUnindexedQuery(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t, nil)
	loadExplain(t, st)
	plans, err := db.Explain(ctx, st, explainRequest(db.Query{Kind: db.QueryField, Path: "field1", Value: []byte(`"v7"`), Limit: 10}))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plans {
		t.Logf("%-12s %-60.60s | %s | flag=%q", p.Op, p.Statement, p.Access, p.Flag)
	}
	if len(plans) != 6 {
		t.Fatalf("%d plans, want 6 (2 reads, scan, update, insert, query)", len(plans))
	}
	for _, op := range []string{"READ", "SCAN", "UPDATE"} {
		for _, p := range planOf(t, plans, op) {
			if p.Flag != "" || !strings.Contains(p.Access, "SEARCH usertable USING INDEX sqlite_autoindex_usertable_1 (ycsb_key") {
				t.Errorf("%s: access %q flag %q: want a search of the primary key's index", op, p.Access, p.Flag)
			}
		}
	}
	reads := planOf(t, plans, "READ")
	if reads[0].Statement != `SELECT json(data) FROM "usertable" WHERE ycsb_key = ?` || !strings.Contains(reads[1].Statement, `json_object('field0', data -> '$.field0')`) {
		t.Errorf("read statements %q, %q: want the session's", reads[0].Statement, reads[1].Statement)
	}
	if p := planOf(t, plans, "INSERT")[0]; p.Flag != "" || !strings.HasPrefix(p.Statement, "INSERT INTO") {
		t.Errorf("insert %+v", p)
	}
	q := planOf(t, plans, "QUERY-FIELD")[0]
	if !strings.Contains(q.Access, "SCAN usertable") || !strings.Contains(q.Flag, "no index used: SCAN usertable") {
		t.Errorf("unindexed query: access %q flag %q: want a flagged full scan", q.Access, q.Flag)
	}
	if !strings.Contains(q.Statement, "(data ->> '$.field1') = json_extract(?, '$')") {
		t.Errorf("query statement %q", q.Statement)
	}

	// secondaryindex=field1: the same query searches the expression index.
	loadExplain(t, st, db.Index{Path: "field1"})
	plans, err = db.Explain(ctx, st, explainRequest(db.Query{Kind: db.QueryField, Path: "field1", Value: []byte(`"v7"`), Limit: 10}))
	if err != nil {
		t.Fatal(err)
	}
	q = planOf(t, plans, "QUERY-FIELD")[0]
	t.Logf("indexed: %s | flag=%q", q.Access, q.Flag)
	if q.Flag != "" || !strings.Contains(q.Access, "SEARCH usertable USING INDEX usertable_idx0") {
		t.Errorf("indexed query: access %q flag %q: want a search of usertable_idx0", q.Access, q.Flag)
	}
}

// TestExplainOtherQueries: an array query has no index SQLite could use
// (flagged); a range query on an indexed path searches it; an aggregate
// over all documents scans (flagged, saying why).
func TestExplainOtherQueries(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t, nil)
	loadExplain(t, st)
	loadExplain(t, st, db.Index{Path: "n"})
	r := dbtest.ExplainQueries(
		db.Query{Kind: db.QueryArray, Path: "tags", Value: []byte(`"t1"`)},
		db.Query{Kind: db.QueryRange, Path: "n", Value: []byte(`6`), Limit: 5},
		db.Query{Kind: db.QueryAggregate, Path: "field0", AggPath: "n", Func: "avg"},
	)
	plans, err := db.Explain(ctx, st, r)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plans {
		t.Logf("%-15s | %s | flag=%q", p.Op, p.Access, p.Flag)
	}
	if p := planOf(t, plans, "QUERY-ARRAY")[0]; !strings.Contains(p.Flag, "SCAN usertable") {
		t.Errorf("array query %+v: want flagged", p)
	}
	if p := planOf(t, plans, "QUERY-RANGE")[0]; p.Flag != "" || !strings.Contains(p.Access, "USING INDEX usertable_idx0") {
		t.Errorf("range query %+v: want the index", p)
	}
	if p := planOf(t, plans, "QUERY-AGGREGATE")[0]; !strings.Contains(p.Flag, "groups every document") {
		t.Errorf("aggregate %+v: want flagged", p)
	}
}

func TestFullScans(t *testing.T) {
	for detail, want := range map[string]bool{
		"SCAN usertable": true,
		"SCAN usertable USING INDEX usertable_idx0":         false,
		"SCAN usertable USING COVERING INDEX usertable_idx": false,
		"SEARCH usertable USING INDEX x (ycsb_key=?)":       false,
		"SCAN je0 VIRTUAL TABLE INDEX 0:":                   false,
		"SCAN usertable2":                                   false,
		"USE TEMP B-TREE FOR GROUP BY":                      false,
	} {
		if got := len(fullScans([]eqpRow{{detail: detail}}, "usertable")) > 0; got != want {
			t.Errorf("%q: full scan %v, want %v", detail, got, want)
		}
	}
}
