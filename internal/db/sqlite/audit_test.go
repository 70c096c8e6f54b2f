package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
)

func TestAudit(t *testing.T) {
	key := map[string]string{"key": "ycsb_key TEXT PRIMARY KEY"}
	for _, tc := range []struct {
		settings map[string]string
		dur      db.Durability
		detail   string
	}{
		{map[string]string{"synchronous": "full", "journal_mode": "wal"}, db.DurableAtCommit, "synchronous=full, journal_mode=wal"},
		{map[string]string{"synchronous": "EXTRA", "journal_mode": "delete"}, db.DurableAtCommit, "synchronous=extra, journal_mode=delete"},
		{map[string]string{"synchronous": "normal", "journal_mode": "wal"}, db.GroupCommit, "synchronous=normal in WAL mode: synced at checkpoints"},
		{map[string]string{"synchronous": "normal", "journal_mode": "delete"}, db.DurableAtCommit, "synchronous=normal, journal_mode=delete"},
		{map[string]string{"synchronous": "off"}, db.NoFsync, "synchronous=off"},
		{nil, db.DurabilityUnknown, ""},
	} {
		a := audit(tc.settings, key)
		if a.Durability != tc.dur || a.DurabilityDetail != tc.detail || a.KeyIndex != db.KeyPrimaryBtree {
			t.Errorf("%v: %s (%s) %s, want %s (%s) %s", tc.settings, a.Durability, a.DurabilityDetail, a.KeyIndex, tc.dur, tc.detail, db.KeyPrimaryBtree)
		}
	}
	want := db.Audit{Durability: db.DurableAtCommit, DurabilityDetail: "synchronous=full, journal_mode=wal", KeyIndex: db.KeyPrimaryBtree,
		KeyIndexDetail: "ycsb_key TEXT PRIMARY KEY", SecondaryIndexes: "address.zip", Compression: "none", Memory: "cache_size=-2000"}
	if got := audit(map[string]string{"synchronous": "full", "journal_mode": "wal", "cache_size": "-2000"},
		map[string]string{"key": "ycsb_key TEXT PRIMARY KEY", "secondary_indexes": "address.zip"}); got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if !db.IsLocal("sqlite:x.db") || db.IsEphemeral("sqlite:x.db", nil) {
		t.Error("a SQLite file is local, and not thrown away")
	}
}

// TestIndexAudit: a run's audit lists the expression indexes the file has
// (SQLite indexes no array elements: tags has none).
func TestIndexAudit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	dbtest.RunIndexes(t, func(t *testing.T, props map[string]string) db.Store {
		st, err := db.Open(context.Background(), db.OpenRequest{Target: "sqlite:" + path, Props: props})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}, "address.city, score")
}

func TestIndexedPath(t *testing.T) {
	for _, p := range []string{"a", "address.city", "a b.c", `q"x.y`, "it's"} {
		if got := indexedPath("(" + predExpr(p) + ")"); got != p {
			t.Errorf("indexedPath(%s) = %q, want %q", predExpr(p), got, p)
		}
	}
	for _, def := range []string{"(ycsb_key)", "((data ->> '$.a'), x)", "((data -> '$.a'))"} {
		if got := indexedPath(def); got != "" {
			t.Errorf("indexedPath(%s) = %q, want none", def, got)
		}
	}
}
