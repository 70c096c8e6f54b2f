package postgres

import (
	"context"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

func TestAudit(t *testing.T) {
	on := map[string]string{"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on", "shared_buffers": "16384×8kB"}
	for _, tc := range []struct {
		name             string
		settings, layout map[string]string
		want             db.Audit
	}{
		{"primary key", on, map[string]string{"key": "ycsb_key text PRIMARY KEY (btree)"}, db.Audit{
			Durability: db.DurableAtCommit, DurabilityDetail: "synchronous_commit=on, fsync=on, full_page_writes=on",
			KeyIndex: db.KeyPrimaryBtree, KeyIndexDetail: "ycsb_key text PRIMARY KEY (btree)", SecondaryIndexes: "none",
			Compression: "TOAST pglz (documents over ~2 kB)", Memory: "shared_buffers=16384×8kB"}},
		{"GIN, async", map[string]string{"fsync": "on", "synchronous_commit": "off", "default_toast_compression": "lz4"},
			map[string]string{"key": "GIN (data jsonb_ops)", "keylookup": "contains", "secondary_indexes": "address.zip btree"}, db.Audit{
				Durability: db.Async, DurabilityDetail: "synchronous_commit=off",
				KeyIndex: db.KeyGINDocument, KeyIndexDetail: "GIN (data jsonb_ops), lookup contains", SecondaryIndexes: "address.zip btree",
				Compression: "TOAST lz4 (documents over ~2 kB)", Memory: "unknown"}},
		{"expression btree, no fsync", map[string]string{"fsync": "OFF ", "synchronous_commit": "on"},
			map[string]string{"key": "btree on (data->>'YCSB_KEY')", "compression": "pglz", "storage": "external"}, db.Audit{
				Durability: db.NoFsync, DurabilityDetail: "fsync=off, synchronous_commit=on",
				KeyIndex: db.KeyExpressionBtree, KeyIndexDetail: "btree on (data->>'YCSB_KEY')", SecondaryIndexes: "none",
				Compression: "none (STORAGE EXTERNAL)", Memory: "unknown"}},
		{"no index", nil, map[string]string{"key": "no index (sequential scan)"}, db.Audit{
			Durability: db.DurabilityUnknown, KeyIndex: db.KeyNone, KeyIndexDetail: "no index (sequential scan)", SecondaryIndexes: "none",
			Compression: "TOAST pglz (documents over ~2 kB)", Memory: "unknown"}},
	} {
		if got := audit(tc.settings, tc.layout); got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
	// Through the registry, as an old result file is audited.
	if a := db.Classify("postgres", nil, nil); a.DurabilityDetail != "settings not recorded" || a.KeyIndex != db.KeyNone {
		t.Errorf("nothing recorded: %+v", a)
	}
}

func TestLocalAndEphemeral(t *testing.T) {
	for _, tc := range []struct {
		target           string
		props            map[string]string
		local, throwaway bool
	}{
		{"postgres:embedded", nil, true, false},
		{"postgres:embedded", map[string]string{"pg.datadir": "temp"}, true, true},
		{"postgres:embedded", map[string]string{"pg.datadir": "/var/tmp/pg"}, true, false},
		{"postgres://u@db.example:5432/x", map[string]string{"pg.datadir": "temp"}, false, false},
	} {
		if l, e := db.IsLocal(tc.target), db.IsEphemeral(tc.target, tc.props); l != tc.local || e != tc.throwaway {
			t.Errorf("%s %v: local %v, ephemeral %v; want %v, %v", tc.target, tc.props, l, e, tc.local, tc.throwaway)
		}
	}
}

// TestIndexAudit: a run's audit lists the secondary indexes the catalog
// has, docbench's by path and the user's own by definition, on PostgreSQL
// 18 and 15, in each layout.
func TestIndexAudit(t *testing.T) {
	for _, kind := range servers {
		for _, layout := range []string{"column", "document", "relational"} {
			t.Run(kind+"/"+layout, func(t *testing.T) {
				url := testutil.FreshDatabase(t, testutil.Postgres(t, kind))
				open := func(t *testing.T, props map[string]string) db.Store {
					return openStore(t, url, map[string]string{"layout": layout, "table": props["table"]})
				}
				dbtest.RunIndexes(t, open, "address.city, score, tags")
				if layout != "column" {
					return
				}
				conn := testutil.PostgresConn(t, url)
				if _, err := conn.Exec(context.Background(), "CREATE INDEX mine ON docbench.ixaudit ((data->>'name'))"); err != nil {
					t.Fatal(err)
				}
				info, err := open(t, map[string]string{"table": "ixaudit"}).Info(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %s", info.Layout["secondary_indexes"], info.Layout["secondary_index_definitions"])
				if got, want := info.Layout["secondary_indexes"], "address.city, btree (((data ->> 'name'::text))), score, tags"; got != want {
					t.Fatalf("with the user's index: %q, want %q (%s)", got, want, info.Layout["secondary_index_definitions"])
				}
			})
		}
	}
}
