package mysql

import (
	"context"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

func TestAudit(t *testing.T) {
	for _, tc := range []struct {
		name             string
		settings, layout map[string]string
		want             db.Audit
	}{
		{"MariaDB generated key, group commit", map[string]string{"innodb_flush_log_at_trx_commit": "2", "innodb_buffer_pool_size": "134217728"},
			map[string]string{"key": "ycsb_key STORED generated from data's YCSB_KEY, UNIQUE KEY",
				"index tags": "multi-valued index on the array elements", "index address.zip": "generated column g1 VARCHAR(255) (VIRTUAL) with a btree index"},
			db.Audit{Durability: db.GroupCommit, DurabilityDetail: "innodb_flush_log_at_trx_commit=2 (written at commit, synced about once a second)",
				KeyIndex: db.KeyGeneratedColumn, KeyIndexDetail: "ycsb_key STORED generated from data's YCSB_KEY, UNIQUE KEY",
				SecondaryIndexes: "address.zip: generated column g1 VARCHAR(255) (VIRTUAL) with a btree index; tags: multi-valued index on the array elements",
				Compression:      "none (InnoDB row format default)", Memory: "innodb_buffer_pool_size=128.00 MiB"}},
		{"column key, async", map[string]string{"innodb_flush_log_at_trx_commit": "0"},
			map[string]string{"key": "ycsb_key VARCHAR(255) PRIMARY KEY (clustered)"},
			db.Audit{Durability: db.Async, DurabilityDetail: "innodb_flush_log_at_trx_commit=0",
				KeyIndex: db.KeyPrimaryBtree, KeyIndexDetail: "ycsb_key VARCHAR(255) PRIMARY KEY (clustered)", SecondaryIndexes: "none",
				Compression: "none (InnoDB row format default)", Memory: "unknown"}},
		{"binary log not synced", map[string]string{"innodb_flush_log_at_trx_commit": "1", "log_bin": "ON", "sync_binlog": "0"}, nil,
			db.Audit{Durability: db.DurableAtCommit, DurabilityDetail: "innodb_flush_log_at_trx_commit=1, binary log not synced at commit (sync_binlog=0)",
				KeyIndex: db.KeyNone, SecondaryIndexes: "none", Compression: "none (InnoDB row format default)", Memory: "unknown"}},
		{"nosync", map[string]string{"innodb_flush_log_at_trx_commit": "1", "innodb_flush_method": "nosync", "innodb_buffer_pool_size": "lots"}, nil,
			db.Audit{Durability: db.NoFsync, DurabilityDetail: "innodb_flush_method=nosync",
				KeyIndex: db.KeyNone, SecondaryIndexes: "none", Compression: "none (InnoDB row format default)", Memory: "innodb_buffer_pool_size=lots"}},
		{"nothing recorded", nil, nil, db.Audit{Durability: db.DurabilityUnknown, KeyIndex: db.KeyNone, SecondaryIndexes: "none",
			Compression: "none (InnoDB row format default)", Memory: "unknown"}},
	} {
		if got := audit(tc.settings, tc.layout); got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}

func TestLocalAndEphemeral(t *testing.T) {
	for _, tc := range []struct {
		target    string
		throwaway bool
	}{{Local, true}, {"mysql://root@127.0.0.1:3306/x", false}, {"mariadb://root@db:3306/x", false}} {
		if l, e := db.IsLocal(tc.target), db.IsEphemeral(tc.target, nil); l != tc.throwaway || e != tc.throwaway {
			t.Errorf("%s: local %v, ephemeral %v; want %v", tc.target, l, e, tc.throwaway)
		}
	}
}

// TestIndexAudit: a run's audit lists the secondary indexes
// information_schema has: MariaDB has no multi-valued index (tags has
// none); the user's own index is listed by its columns.
func TestIndexAudit(t *testing.T) {
	for _, srv := range servers {
		for _, layout := range []string{layoutGenerated, layoutColumn} {
			t.Run(srv.name+"/"+layout, func(t *testing.T) {
				url := testutil.FreshMySQLDatabase(t, srv.url(t))
				open := func(t *testing.T, props map[string]string) db.Store {
					return openStore(t, url, map[string]string{"layout": layout, "table": props["table"]})
				}
				dbtest.RunIndexes(t, open, "address.city, score")
				if srv.name != "mariadb" {
					return
				}
				st := open(t, map[string]string{"table": "ixaudit"}).(*store)
				city := indexName("address.city")
				if _, err := st.sqlDB.Exec("CREATE INDEX mine ON " + st.table + " (ix_score, " + city + ")"); err != nil {
					t.Fatal(err)
				}
				info, err := st.Info(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %s", info.Layout["secondary_indexes"], info.Layout["secondary_index_definitions"])
				if got, want := info.Layout["secondary_indexes"], "BTREE (ix_score, "+city+"), address.city, score"; got != want {
					t.Fatalf("with the user's index: %q, want %q", got, want)
				}
			})
		}
	}
}
