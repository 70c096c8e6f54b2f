package postgres

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// servers are the real PostgreSQL servers every test runs against.
var servers = []string{"embedded", "debian"}

func openStore(t *testing.T, url string, props map[string]string) *store {
	t.Helper()
	st, err := db.Open(context.Background(), db.Config{Target: url, Props: props})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.(*store)
}

func TestConformance(t *testing.T) {
	for _, kind := range servers {
		for _, layout := range []string{"column", "document"} {
			t.Run(kind+"/"+layout, func(t *testing.T) {
				url := testutil.FreshDatabase(t, testutil.Postgres(t, kind))
				dbtest.Run(t, openStore(t, url, map[string]string{"layout": layout}))
			})
		}
	}
}

// catalog returns the definitions of the table's columns and indexes.
func catalog(t *testing.T, conn *pgx.Conn) (cols, indexes []string) {
	t.Helper()
	rows, err := conn.Query(context.Background(), `
		SELECT a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'docbench' AND c.relname = 'usertable' AND a.attnum > 0 AND NOT a.attisdropped
		ORDER BY a.attnum`)
	if err != nil {
		t.Fatal(err)
	}
	cols, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	rows, err = conn.Query(context.Background(), `SELECT indexdef FROM pg_indexes WHERE schemaname = 'docbench' AND tablename = 'usertable' ORDER BY indexname`)
	if err != nil {
		t.Fatal(err)
	}
	indexes, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return cols, indexes
}

func TestLayoutsCreateWhatTheyPromise(t *testing.T) {
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	for _, tc := range []struct {
		layout  string
		cols    []string
		indexes []string
	}{
		{"column", []string{"ycsb_key text", "data jsonb"},
			[]string{"CREATE UNIQUE INDEX usertable_pkey ON docbench.usertable USING btree (ycsb_key)"}},
		{"document", []string{"data jsonb"},
			[]string{"CREATE INDEX usertable_ycsb_key ON docbench.usertable USING btree (((data ->> 'YCSB_KEY'::text)))"}},
	} {
		t.Run(tc.layout, func(t *testing.T) {
			st := openStore(t, url, map[string]string{"layout": tc.layout})
			if err := st.Setup(context.Background(), db.Schema{Table: "usertable", Fields: dbtest.Fields}, true); err != nil {
				t.Fatal(err)
			}
			cols, idx := catalog(t, st.admin)
			if !equal(cols, tc.cols) || !equal(idx, tc.indexes) {
				t.Fatalf("catalog: columns %q indexes %q\nwant columns %q indexes %q", cols, idx, tc.cols, tc.indexes)
			}
		})
	}
}

func TestDocumentLayoutKeepsKeyInside(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	st := openStore(t, url, map[string]string{"layout": "document"})
	if err := st.Setup(ctx, db.Schema{Table: "usertable"}, true); err != nil {
		t.Fatal(err)
	}
	s, err := st.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Insert(ctx, []byte("user1"), []byte(`{"field0":"a"}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.(db.BatchInserter).InsertBatch(ctx, [][]byte{[]byte("user2")}, [][]byte{[]byte(`{"field0":"b"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, []byte("user2"), &db.Update{Mode: db.Replace, Doc: []byte(`{"field0":"c"}`)}); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.admin.QueryRow(ctx, `SELECT count(*) FROM docbench.usertable WHERE data->>'YCSB_KEY' IN ('user1','user2') AND data ? 'field0'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("%d documents carry their YCSB_KEY, want 2", n)
	}
}

func TestInfoReportsSettings(t *testing.T) {
	for _, kind := range servers {
		t.Run(kind, func(t *testing.T) {
			url := testutil.FreshDatabase(t, testutil.Postgres(t, kind))
			// A server docbench does not manage: server.* becomes a session setting.
			st := openStore(t, url, map[string]string{"server.synchronous_commit": "off"})
			info, err := st.Info(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if info.Version == "" || info.Settings["synchronous_commit"] != "off" || info.Settings["shared_buffers"] == "" || info.Settings["fsync"] == "" {
				t.Fatalf("info %+v: want version, synchronous_commit=off, shared_buffers, fsync", info)
			}
		})
	}
}

func TestBadTargetsAndOptions(t *testing.T) {
	ctx := context.Background()
	for target, props := range map[string]map[string]string{
		"postgres:nonsense":                          nil,
		"postgres://127.0.0.1:1/x?connect_timeout=2": nil,
		"postgres://127.0.0.1/x":                     {"layout": "sideways"},
	} {
		if _, err := db.Open(ctx, db.Config{Target: target, Props: props}); err == nil {
			t.Errorf("Open(%s, %v) succeeded", target, props)
		} else {
			t.Logf("%s: %v", target, err)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
