package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
)

// TestOwnership: docbench drops only the tables its docbench_tables names.
func TestOwnership(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mine.db")
	var log dbtest.Log
	st, err := db.Open(context.Background(), db.OpenRequest{Target: "sqlite:" + path, Log: log.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	exec := func(t *testing.T, q string) {
		t.Helper()
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rows := func(t *testing.T, table string) int {
		var n int
		raw.QueryRow("SELECT count(*) FROM sqlite_schema WHERE name = ?", table).Scan(&n)
		if n == 0 {
			return -1
		}
		if err := raw.QueryRow("SELECT count(*) FROM " + quote(table)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	dbtest.RunOwner(t, dbtest.Owner{Store: st, Logged: log.String, Rows: rows,
		Foreign: func(t *testing.T, table string) {
			exec(t, "CREATE TABLE "+table+" (id int)")
			exec(t, "INSERT INTO "+table+" VALUES (1)")
			exec(t, "CREATE VIEW "+table+"_view AS SELECT * FROM "+table)
		}})
	if rows(t, "orders_view") != 1 {
		t.Error("the view on the user's table is gone")
	}
}
