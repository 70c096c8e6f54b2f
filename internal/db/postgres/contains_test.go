package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/testutil"
)

// TestContainmentFormsUseTheirIndexes checks the seeds' containment search
// on a GIN index over the whole document: the whole-document form
// (data @> '{"tags":[{"term":v}]}', query.form=document) is served by the
// index, the path form ((data #> '{tags}') @> '[{"term":v}]') cannot be.
func TestContainmentFormsUseTheirIndexes(t *testing.T) {
	ctx := context.Background()
	server := testutil.Postgres(t, "embedded")
	for _, index := range []string{"gin", "gin_path_ops"} {
		t.Run(index, func(t *testing.T) {
			st := openStore(t, testutil.FreshDatabase(t, server), map[string]string{"layout": "document", "index": index})
			if err := st.Setup(ctx, db.Schema{Table: "usertable", Fields: []string{"tags"}}, true); err != nil {
				t.Fatal(err)
			}
			sess, err := st.NewSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var keys, docs [][]byte
			for i := range 5000 {
				keys = append(keys, fmt.Appendf(nil, "user%05d", i))
				docs = append(docs, fmt.Appendf(nil, `{"author":"a%d","tags":[{"term":"t%d","scheme":"s"},{"term":"u%d"}]}`, i%50, i, i%7))
			}
			if err := sess.(db.BatchInserter).InsertBatch(ctx, keys, docs); err != nil {
				t.Fatal(err)
			}
			document := db.Query{Kind: db.QueryContains, Path: "", Value: []byte(`{"tags":[{"term":"t42"}]}`), Limit: 10}
			path := db.Query{Kind: db.QueryContains, Path: "tags", Value: []byte(`[{"term":"t42"}]`), Limit: 10}
			for _, q := range []db.Query{document, path} {
				if n, err := sess.(db.Querier).Query(ctx, &q); err != nil || n != 1 {
					t.Fatalf("%s %s: %d rows, %v; want 1", q.Path, q.Value, n, err)
				}
			}
			sess.Close()
			if _, err := st.admin.Exec(ctx, "ANALYZE "+st.table); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				q       db.Query
				indexed bool
			}{{document, true}, {path, false}} {
				plans, err := db.Explain(ctx, st, &db.ExplainRequest{Statements: []db.Statement{{Kind: db.StmtQuery, Query: &tc.q}}})
				if err != nil {
					t.Fatal(err)
				}
				var p db.Plan
				for _, x := range plans {
					if x.Op == "QUERY-CONTAINS" {
						p = x
					}
				}
				if !strings.Contains(p.Statement, "@>") {
					t.Fatalf("no containment plan: %+v", plans)
				}
				// On 5000 small rows the planner may prefer a scan: the flag
				// then says the index can serve it.
				if tc.indexed && !strings.Contains(p.Access, "usertable_"+index) && !strings.Contains(p.Flag, "an index can serve it: Bitmap Heap Scan on usertable → Bitmap Index Scan using usertable_"+index) {
					t.Errorf("whole-document form on %s: access %q flag %q; want the index used", index, p.Access, p.Flag)
				}
				if !tc.indexed && !strings.Contains(p.Flag, "no index can serve") {
					t.Errorf("path form on %s: access %q flag %q; want flagged: no index can serve it", index, p.Access, p.Flag)
				}
			}
		})
	}
}
