package mysql

import (
	"context"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

// TestOwnership: docbench drops only tables whose comment is its mark.
func TestOwnership(t *testing.T) {
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			url := testutil.FreshMySQLDatabase(t, srv.url(t))
			var log dbtest.Log
			opened, err := db.Open(context.Background(), db.OpenRequest{Target: url, Log: log.Logf})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { opened.Close() })
			st := opened.(*store)
			exec := func(t *testing.T, q string) {
				t.Helper()
				if _, err := st.sqlDB.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			rows := func(t *testing.T, table string) int {
				var n int
				st.sqlDB.QueryRow("SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", st.dbName, table).Scan(&n)
				if n == 0 {
					return -1
				}
				if err := st.sqlDB.QueryRow("SELECT count(*) FROM " + st.database + "." + quoteIdent(table)).Scan(&n); err != nil {
					t.Fatalf("%s: %v", table, err)
				}
				return n
			}
			var fixed string
			if srv.name == "mysql8peer" {
				fixed = "go-mysql-server accepts ALTER TABLE ... COMMENT and keeps the comment the table was created with"
			}
			dbtest.RunOwner(t, dbtest.Owner{Store: st, Logged: log.String, Rows: rows, FixedMarks: fixed,
				Foreign: func(t *testing.T, table string) {
					exec(t, "CREATE DATABASE IF NOT EXISTS "+st.database)
					exec(t, "CREATE TABLE "+st.database+"."+table+" (id int)")
					exec(t, "INSERT INTO "+st.database+"."+table+" VALUES (1)")
					exec(t, "CREATE VIEW "+st.database+"."+table+"_view AS SELECT * FROM "+st.database+"."+table)
				}})
			var views int // counted in the catalog: the MySQL 8 peer cannot read a view without a default database
			st.sqlDB.QueryRow("SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'orders_view'", st.dbName).Scan(&views)
			if views != 1 {
				t.Error("the view on the user's table is gone")
			}
		})
	}
}
