package sqldb_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/docbench/docbench/internal/db"
	_ "github.com/docbench/docbench/internal/db/mysql"
	_ "github.com/docbench/docbench/internal/db/sqlite"
	"github.com/docbench/docbench/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// A table whose name needs quoting: {table} names the same table in the
// statements of the user's (each session's) and in the setup statements
// (the store's) as docbench's own statements do, on both database/sql
// backends.
func TestTableQuotedAlike(t *testing.T) {
	const table = `user "t" 1`
	targets := []struct {
		name   string
		target func(t *testing.T) string
		props  map[string]string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "q.db") }, nil},
		{"mariadb", func(t *testing.T) string { return testutil.FreshMySQLDatabase(t, testutil.MariaDB(t)) },
			map[string]string{"layout": "column"}},
	}
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := db.Open(ctx, db.OpenRequest{Target: tc.target(t), Props: tc.props})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if err := st.Setup(ctx, db.Schema{Table: table}, true); err != nil {
				t.Fatal(err)
			}
			sess, err := st.NewSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			for _, k := range []string{"k1", "k2", "k3"} {
				if err := sess.Insert(ctx, []byte(k), []byte(`{"a":1}`)); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.(db.SetupRunner).ExecSetup(ctx, "DELETE FROM {table} WHERE ycsb_key = 'k2'"); err != nil {
				t.Fatalf("setup statement on %q: %v", table, err)
			}
			n, err := sess.(db.Statementer).Statement(ctx, "SELECT ycsb_key FROM {table} WHERE ycsb_key <> ?", []any{"k3"})
			if err != nil {
				t.Fatalf("statement on %q: %v", table, err)
			}
			if n != 1 {
				t.Errorf("statement of the user's counts %d rows other than k3, want 1 (k1: k2 deleted by the setup statement)", n)
			}
			if _, err := sess.Read(ctx, []byte("k2"), nil, nil); !errors.Is(err, db.ErrNotFound) {
				t.Errorf("read k2 after the setup statement deleted it: %v, want not found", err)
			}
		})
	}
}
