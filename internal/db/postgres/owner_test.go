package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

// TestOwnership: docbench drops only tables it marked, never through
// CASCADE; layout=relational's child tables are marked and dropped with
// their parent.
func TestOwnership(t *testing.T) {
	ctx := context.Background()
	for _, layout := range []string{"column", "relational"} {
		t.Run(layout, func(t *testing.T) {
			url := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
			var log dbtest.Log
			st, err := db.Open(ctx, db.OpenRequest{Target: url, Props: map[string]string{"layout": layout}, Log: log.Logf})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close(ctx) })
			exec := func(t *testing.T, q string) {
				t.Helper()
				if _, err := conn.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			rows := func(t *testing.T, table string) int {
				var n int
				var exists bool
				conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", "docbench."+table).Scan(&exists)
				if !exists {
					return -1
				}
				if err := conn.QueryRow(ctx, "SELECT count(*) FROM docbench."+pgx.Identifier{table}.Sanitize()).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			dbtest.RunOwner(t, dbtest.Owner{Store: st, Logged: log.String, Rows: rows,
				Foreign: func(t *testing.T, table string) {
					exec(t, "CREATE SCHEMA IF NOT EXISTS docbench")
					exec(t, "CREATE TABLE docbench."+table+" (id int)")
					exec(t, "INSERT INTO docbench."+table+" VALUES (1)")
					exec(t, "CREATE VIEW docbench."+table+"_view AS SELECT * FROM docbench."+table)
				}})
			if rows(t, "orders_view") != 1 {
				t.Error("the view on the user's table is gone")
			}
			if layout == "relational" && rows(t, "owned__items") != -1 {
				t.Error("the child table of a dropped table is left")
			}

			// A view of the user's on a table of docbench's keeps the table:
			// one line says why, and the view stays.
			schema := db.Schema{Table: "viewed", Fields: dbtest.Fields, Columns: dbtest.Columns}
			if err := st.Setup(ctx, schema, true); err != nil {
				t.Fatal(err)
			}
			exec(t, "CREATE VIEW docbench.mine AS SELECT * FROM docbench.viewed")
			err = st.Setup(ctx, schema, true)
			if err == nil || !strings.Contains(err.Error(), "docbench.viewed was created by docbench but cannot be dropped: view docbench.mine depends on table docbench.viewed") ||
				strings.Contains(err.Error(), "\n") {
				t.Fatalf("replacing a table with a view of the user's on it: %v", err)
			}
			if rows(t, "mine") != 0 {
				t.Error("the user's view on docbench's table is gone")
			}
		})
	}
}
