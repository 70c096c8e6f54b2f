package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
)

func openTemp(t *testing.T, props map[string]string) db.Store {
	t.Helper()
	st, err := db.Open(context.Background(), db.OpenRequest{Target: "sqlite:" + filepath.Join(t.TempDir(), "t.db"), Props: props})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// openTable is openTemp with docbench's table usertable (one field) made.
func openTable(t *testing.T, props map[string]string) db.Store {
	t.Helper()
	st := openTemp(t, props)
	if err := st.Setup(context.Background(), db.Schema{Table: "usertable", Fields: []string{"field0"}}, true); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestConformance(t *testing.T) {
	dbtest.Run(t, openTemp(t, nil))
	t.Run("doctype=text", func(t *testing.T) { dbtest.Run(t, openTemp(t, map[string]string{"doctype": "text"})) })
	t.Run("writes=serialized", func(t *testing.T) { dbtest.Run(t, openTemp(t, map[string]string{"sqlite.writes": "serialized"})) })
}

func TestExpressionIndexes(t *testing.T) {
	st := openTemp(t, nil).(*store)
	dbtest.Run(t, st)
	rows, err := st.db.Query(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'usertable_idx%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var defs []string
	for rows.Next() {
		var d string
		rows.Scan(&d)
		defs = append(defs, d)
	}
	want := []string{
		`CREATE INDEX "usertable_idx0" ON "usertable" ((data ->> '$.address.city'))`,
		`CREATE INDEX "usertable_idx2" ON "usertable" ((data ->> '$.score'))`,
	}
	if strings.Join(defs, "\n") != strings.Join(want, "\n") {
		t.Fatalf("indexes %q, want %q", defs, want)
	}
	info, _ := st.Info(context.Background())
	if info.Layout["secondary_indexes"] != "address.city, score" || !strings.HasPrefix(info.Layout["not_indexed"], "tags (SQLite has no index") {
		t.Fatalf("the indexes, and the array index SQLite cannot build, are not recorded: %v", info.Layout)
	}
	var plan string
	var id, parent, notused int
	if err := st.db.QueryRow(`EXPLAIN QUERY PLAN SELECT 1 FROM usertable WHERE (data ->> '$.score') >= 3`).Scan(&id, &parent, &notused, &plan); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "usertable_idx2") {
		t.Fatalf("range query does not use the expression index: %s", plan)
	}
}

func TestStoresTextKeysAndJSONB(t *testing.T) {
	st := openTemp(t, nil).(*store)
	dbtest.Run(t, st)
	var keyType, dataType string
	var valid int
	err := st.db.QueryRow(`SELECT typeof(ycsb_key), typeof(data), json_valid(data, 8) FROM usertable LIMIT 1`).Scan(&keyType, &dataType, &valid)
	if err != nil {
		t.Fatal(err)
	}
	if keyType != "text" || dataType != "blob" || valid != 1 {
		t.Fatalf("key %s, data %s, jsonb valid %d; want text, blob (jsonb), 1", keyType, dataType, valid)
	}
}

func TestInfoReportsDurability(t *testing.T) {
	st := openTemp(t, map[string]string{"sqlite.synchronous": "normal"})
	info, err := st.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.Settings["journal_mode"] != "wal" || info.Settings["synchronous"] != "normal" {
		t.Fatalf("settings %v: want journal_mode=wal synchronous=normal", info.Settings)
	}
}

func TestBadOption(t *testing.T) {
	_, err := db.Open(context.Background(), db.OpenRequest{Target: "sqlite:" + filepath.Join(t.TempDir(), "t.db"),
		Props: map[string]string{"sqlite.synchronous": "sometimes"}})
	if err == nil || err.Error() != `property sqlite.synchronous=sometimes: sqlite accepts off, normal, full, extra` {
		t.Fatalf("err = %v", err)
	}
}

// BenchmarkSession measures the client side of the core operations: ns/op
// includes SQLite's own work, allocs/op is docbench's plus database/sql's
// and the driver's (database/sql allocates per call; docbench's share is
// what a change here must not grow).
func BenchmarkSession(b *testing.B) {
	dbtest.Bench(b, db.OpenRequest{Target: "sqlite:" + filepath.Join(b.TempDir(), "b.db"),
		Props: map[string]string{"sqlite.synchronous": "off"}}, "SELECT data FROM {table} WHERE ycsb_key = ?")
}

func TestTargetInDir(t *testing.T) {
	for target, want := range map[string]string{
		"sqlite:study.sqlite": "sqlite:/out/study.sqlite",
		"sqlite:sub/x.db":     "sqlite:/out/sub/x.db",
		"sqlite:/abs/x.db":    "sqlite:/abs/x.db",
		"postgres:embedded":   "postgres:embedded",
		"nosuchbackend:x.db":  "nosuchbackend:x.db",
	} {
		if got := db.TargetInDir(target, "/out"); got != want {
			t.Errorf("TargetInDir(%q) = %q, want %q", target, got, want)
		}
	}
}
