package mysql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

// loadExplain sets up usertable with the indexes given (recreating it, and
// loading 300 documents, when none are given).
func loadExplain(t *testing.T, st *store, indexes ...db.Index) {
	t.Helper()
	ctx := context.Background()
	schema := db.Schema{Table: "usertable", Fields: []string{"field0", "field1"}, Indexes: indexes,
		Columns: []db.Column{{Name: "field0", Type: "string"}, {Name: "field1", Type: "string"}, {Name: "n", Type: "integer"}}}
	if err := st.Setup(ctx, schema, len(indexes) == 0); err != nil {
		t.Fatal(err)
	}
	if len(indexes) == 0 {
		sess, err := st.NewSession(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		var keys, docs [][]byte
		for i := range 300 {
			keys = append(keys, fmt.Appendf(nil, "user%04d", i))
			docs = append(docs, fmt.Appendf(nil, `{"field0":"a%d","field1":"v%d","n":%d,"tags":["t%d"]}`, i, i, i, i%5))
		}
		if err := sess.(db.BatchInserter).InsertBatch(ctx, keys, docs); err != nil {
			t.Fatal(err)
		}
	}
	if st.d.compat != "" {
		return // the peer's ANALYZE TABLE fails (TestMySQL8PeerLimitations)
	}
	if _, err := st.sqlDB.ExecContext(ctx, "ANALYZE TABLE "+st.table); err != nil {
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

// TestExplainFlagsUnindexedQuery (MariaDB, both layouts): key reads, the
// scan and the update use the key's index (not flagged); a field query on
// an unindexed path is a full scan (flagged), and with secondaryindex on
// the path it reads the generated column's index (not flagged).
func TestExplainFlagsUnindexedQuery(t *testing.T) {
	ctx := context.Background()
	field := db.Query{Kind: db.QueryField, Path: "field1", Value: []byte(`"v7"`), Limit: 10}
	num := db.Query{Kind: db.QueryRange, Path: "n", Value: []byte(`295`), Limit: 10}
	for _, layout := range []string{layoutGenerated, layoutColumn} {
		t.Run(layout, func(t *testing.T) {
			url := testutil.FreshMySQLDatabase(t, testutil.MariaDB(t))
			st := openStore(t, url, map[string]string{"layout": layout})
			loadExplain(t, st)
			keyIndex := "PRIMARY"
			if layout == layoutGenerated && st.d.mariadb {
				keyIndex = "ycsb_key" // MariaDB: a unique key, not a primary key
			}
			plans, err := db.Explain(ctx, st, explainRequest(field, num))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range plans {
				t.Logf("%-12s %-70.70s | %s | flag=%q", p.Op, p.Statement, p.Access, p.Flag)
			}
			if len(plans) != 7 {
				t.Fatalf("%d plans, want 7", len(plans))
			}
			ops := []string{"READ", "SCAN", "UPDATE"}
			if layout == layoutGenerated && st.d.mariadb {
				// ycsb_key is a secondary unique key there (rows are
				// clustered by a hidden id): a scan from the first key has
				// nearly the whole table in range, and MariaDB prefers a full
				// scan and a filesort. The plan says so, and the flag.
				ops = ops[:1]
				p := planOf(t, plans, "UPDATE")[0]
				if p.Flag != "" || !strings.Contains(p.Access, "range on ycsb_key") {
					t.Errorf("UPDATE: %q %q: want range on ycsb_key", p.Access, p.Flag)
				}
				p = planOf(t, plans, "SCAN")[0]
				if !strings.Contains(p.Access, "ALL (full scan), possible keys ycsb_key") || !strings.Contains(p.Flag, "preferred it to the possible keys ycsb_key") {
					t.Errorf("SCAN from the first key: %q %q", p.Access, p.Flag)
				}
				r := &db.ExplainRequest{Statements: []db.Statement{{Kind: db.StmtScan, Key: []byte("user0290"), Count: 10}}}
				late, err := db.Explain(ctx, st, r)
				if err != nil {
					t.Fatal(err)
				}
				if p := late[0]; p.Flag != "" || !strings.Contains(p.Access, "range on ycsb_key") {
					t.Errorf("SCAN from a late key: %q %q: want range on ycsb_key", p.Access, p.Flag)
				}
			}
			for _, op := range ops {
				for _, p := range planOf(t, plans, op) {
					if p.Flag != "" || !strings.Contains(p.Access, "usertable: ") || !strings.Contains(p.Access, " on "+keyIndex) {
						t.Errorf("%s: access %q flag %q: want the key's index %s", op, p.Access, p.Flag, keyIndex)
					}
				}
			}
			reads := planOf(t, plans, "READ")
			if !strings.HasSuffix(reads[0].Statement, "WHERE ycsb_key = ?") || !strings.Contains(reads[1].Statement, "JSON_EXTRACT(data, '$.field0')") {
				t.Errorf("read statements %q, %q: want the session's", reads[0].Statement, reads[1].Statement)
			}
			if p := planOf(t, plans, "INSERT")[0]; p.Flag != "" || !strings.HasPrefix(p.Statement, "INSERT INTO") {
				t.Errorf("insert %+v", p)
			}
			for _, op := range []string{"QUERY-FIELD", "QUERY-RANGE"} {
				q := planOf(t, plans, op)[0]
				if !strings.Contains(q.Access, "usertable: ALL (full scan") || !strings.Contains(q.Flag, "no index used: full scan of usertable") {
					t.Errorf("%s unindexed: access %q flag %q: want a flagged full scan", op, q.Access, q.Flag)
				}
			}

			// secondaryindex: the queries name the generated columns and use their indexes.
			loadExplain(t, st, db.Index{Path: "field1"}, db.Index{Path: "n"})
			plans, err = db.Explain(ctx, st, explainRequest(field, num))
			if err != nil {
				t.Fatal(err)
			}
			for op, col := range map[string]string{"QUERY-FIELD": "ix_field1", "QUERY-RANGE": "ix_n"} {
				q := planOf(t, plans, op)[0]
				t.Logf("indexed %-12s %s | %s | flag=%q", op, q.Statement, q.Access, q.Flag)
				if q.Flag != "" || !strings.Contains(q.Access, " on "+col) || !strings.Contains(q.Statement, "`"+col+"`") {
					t.Errorf("%s indexed: statement %q access %q flag %q: want the index %s, named", op, q.Statement, q.Access, q.Flag, col)
				}
			}
		})
	}
}

// TestExplainMariaDBGeneratedColumnRule: MariaDB uses the index of a
// generated column only when the query names the column. The same
// predicate spelled as the column's expression is a full scan; the
// statement docbench prepares names the column and uses the index.
func TestExplainMariaDBGeneratedColumnRule(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshMySQLDatabase(t, testutil.MariaDB(t))
	st := openStore(t, url, map[string]string{"layout": layoutColumn})
	if !st.d.mariadb {
		t.Skip("MariaDB's rule")
	}
	loadExplain(t, st)
	loadExplain(t, st, db.Index{Path: "field1"})
	sess, err := st.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ss := sess.(*session)
	expr := "SELECT data FROM " + st.table + " WHERE JSON_UNQUOTE(JSON_EXTRACT(data, '$.field1')) = ? LIMIT ? OFFSET ?"
	p := ss.explain(ctx, db.StmtQuery, expr, []any{"v7", int64(10), int64(0)}, "")
	t.Logf("expression: %s | flag=%q", p.Access, p.Flag)
	if !strings.Contains(p.Flag, "full scan") {
		t.Errorf("the expression form: %q: want a full scan (MariaDB's rule)", p.Access)
	}
	plans, err := db.Explain(ctx, st, dbtest.ExplainQueries(db.Query{Kind: db.QueryField, Path: "field1", Value: []byte(`"v7"`)}))
	if err != nil {
		t.Fatal(err)
	}
	if q := plans[0]; q.Flag != "" || !strings.Contains(q.Access, "ref on ix_field1") {
		t.Errorf("docbench's statement %q: %q %q: want ref on ix_field1", q.Statement, q.Access, q.Flag)
	}
}

// TestExplainOtherQueries: an array query on MariaDB has no multi-valued
// index (flagged, saying so); an aggregate reads every document.
func TestExplainOtherQueries(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshMySQLDatabase(t, testutil.MariaDB(t))
	st := openStore(t, url, map[string]string{"layout": layoutColumn})
	loadExplain(t, st)
	plans, err := db.Explain(ctx, st, dbtest.ExplainQueries(
		db.Query{Kind: db.QueryArray, Path: "tags", Value: []byte(`"t1"`)},
		db.Query{Kind: db.QueryContains, Path: "", Value: []byte(`{"field1":"v3"}`)},
		db.Query{Kind: db.QueryAggregate, Path: "field0", AggPath: "n", Func: "avg"},
	))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plans {
		t.Logf("%-15s | %s | flag=%q", p.Op, p.Access, p.Flag)
		if !strings.Contains(p.Flag, "full scan of usertable") {
			t.Errorf("%s: %q: want flagged", p.Op, p.Access)
		}
	}
	if st.d.mariadb && !strings.Contains(planOf(t, plans, "QUERY-ARRAY")[0].Flag, "no multi-valued indexes") {
		t.Errorf("array flag %q", plans[0].Flag)
	}
}

// TestPlanSteps reads both servers' JSON: MariaDB's and MySQL 8's (format
// 1, and format 2 of MySQL 8.3+), as the servers print them.
func TestPlanSteps(t *testing.T) {
	for name, tc := range map[string]struct {
		raw  string
		want string
		full bool
	}{
		"mariadb const": {`{"query_block":{"select_id":1,"table":{"table_name":"usertable","access_type":"const","possible_keys":["PRIMARY"],"key":"PRIMARY","key_length":"1022","used_key_parts":["ycsb_key"],"ref":["const"],"rows":1,"filtered":100}}}`,
			"usertable: const on PRIMARY, ~1 rows", false},
		"mariadb filesort": {`{"query_block":{"select_id":1,"filesort":{"sort_key":"t.n","temporary_table":{"table":{"table_name":"usertable","access_type":"ALL","rows":300,"filtered":100,"attached_condition":"x"}}}}}`,
			"usertable: ALL (full scan), ~300 rows", true},
		"mysql ordering": {`{"query_block":{"select_id":1,"cost_info":{"query_cost":"1.2"},"ordering_operation":{"using_filesort":false,"table":{"table_name":"usertable","access_type":"range","possible_keys":["PRIMARY"],"key":"PRIMARY","rows_examined_per_scan":10}}}}`,
			"usertable: range on PRIMARY, ~10 rows", false},
		"mysql impossible": {`{"query_block":{"select_id":1,"message":"no matching row in const table"}}`,
			"no matching row in const table", false},
		"mysql format 2": {`{"query":"/* select#1 */ select ...","inputs":[{"operation":"Table scan on usertable","table_name":"usertable","access_type":"table","estimated_rows":300}],"operation":"Filter"}`,
			"usertable: table (full scan), ~300 rows", true},
	} {
		steps, err := planSteps(tc.raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := steps[0].String(); got != tc.want || steps[0].fullScan() != tc.full {
			t.Errorf("%s: %q (full scan %v), want %q (%v)", name, got, steps[0].fullScan(), tc.want, tc.full)
		}
	}
}
