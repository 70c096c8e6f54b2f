package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/testutil"
)

// TestSettleVacuumsTheLoadedTables: after a load, Settle vacuums and
// analyzes the document table and a relational layout's child table;
// before a run it does so only with pg.vacuum=run; pg.vacuum=none leaves
// them to autovacuum.
func TestSettleVacuumsTheLoadedTables(t *testing.T) {
	ctx := context.Background()
	url := testutil.Postgres(t, "embedded")
	cases := []struct {
		name   string
		props  map[string]string
		schema db.Schema
		tables []string
	}{
		{"gin", map[string]string{"layout": "document", "index": "gin_path_ops"},
			db.Schema{Table: "usertable", Fields: []string{"v"}}, []string{"usertable"}},
		{"relational", map[string]string{"layout": "relational"},
			db.Schema{Table: "usertable", Fields: []string{"v", "items"}, Columns: []db.Column{{Name: "v", Type: "string"},
				{Name: "items", Type: "array", Items: "object", Members: []db.Column{{Name: "n", Type: "integer"}}}}},
			[]string{"usertable", "usertable__items"}},
		{"before each run", map[string]string{"layout": "document", "index": "gin", "pg.vacuum": "run"},
			db.Schema{Table: "usertable", Fields: []string{"v"}}, []string{"usertable"}},
		{"none", map[string]string{"layout": "document", "index": "gin_path_ops", "pg.vacuum": "none"},
			db.Schema{Table: "usertable", Fields: []string{"v"}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := openStore(t, testutil.FreshDatabase(t, url), c.props)
			if err := st.Setup(ctx, c.schema, true); err != nil {
				t.Fatal(err)
			}
			sess, err := st.NewSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			for i := range 500 {
				d := fmt.Appendf(nil, `{"v":"w%d","items":[{"n":%d}]}`, i%37, i)
				if c.name != "relational" {
					d = fmt.Appendf(nil, `{"v":"w%d"}`, i%37)
				}
				if err := sess.Insert(ctx, fmt.Appendf(nil, "user%d", i), d); err != nil {
					t.Fatal(err)
				}
			}
			eachRun := c.props["pg.vacuum"] == "run"
			for _, when := range []db.SettleStage{db.AfterLoad, db.BeforeRun} {
				what, err := st.Settle(ctx, when)
				if err != nil {
					t.Fatal(err)
				}
				acts := c.tables != nil && (when == db.AfterLoad || eachRun)
				if !acts {
					if what != "" {
						t.Errorf("stage %d with %v: Settle did %q", when, c.props, what)
					}
					continue
				}
				for _, table := range c.tables {
					var vacuums, analyzes int64
					err := st.admin.QueryRow(ctx, `SELECT vacuum_count, analyze_count FROM pg_stat_user_tables
						WHERE schemaname = 'docbench' AND relname = $1`, table).Scan(&vacuums, &analyzes)
					if err != nil {
						t.Fatalf("%s: %v", table, err)
					}
					if want := int64(when) + 1; vacuums < want || analyzes < want {
						t.Errorf("%s after %q (stage %d): %d vacuums, %d analyzes; want %d of each", table, what, when, vacuums, analyzes, want)
					}
				}
			}
		})
	}
}
