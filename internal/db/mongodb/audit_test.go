package mongodb

import (
	"context"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

func TestAudit(t *testing.T) {
	key := map[string]string{"key": "_id (string, unique index)"}
	for _, tc := range []struct {
		name             string
		settings, layout map[string]string
		want             db.Audit
	}{
		{"journaled", map[string]string{"w": "1", "journal": "true", "server": "mongod", "wiredTigerCacheSizeBytes": "268435456"}, key,
			db.Audit{Durability: db.DurableAtCommit, DurabilityDetail: "write concern j=true, w=1",
				KeyIndex: db.KeyIDIndex, KeyIndexDetail: "_id (string, unique index)", SecondaryIndexes: "none",
				Compression: "WiredTiger block compression (server default snappy)", Memory: "WiredTiger cache=256.00 MiB"}},
		{"without j", map[string]string{"w": "1", "journal": "false"}, map[string]string{"key": "_id", "indexes": "a_1, b_1"},
			db.Audit{Durability: db.Async, DurabilityDetail: "write concern w=1 without j: journaled at the commit interval",
				KeyIndex: db.KeyIDIndex, KeyIndexDetail: "_id", SecondaryIndexes: "a_1, b_1",
				Compression: "WiredTiger block compression (server default snappy)", Memory: "unknown"}},
		{"server default, peer", map[string]string{"w": "majority", "server": PeerServer}, key,
			db.Audit{Durability: db.Async, DurabilityDetail: "write concern w=majority, journal= (server default: journaled at the commit interval)",
				KeyIndex: db.KeyIDIndex, KeyIndexDetail: "_id (string, unique index)", SecondaryIndexes: "none",
				Compression: "none (protocol peer)", Memory: "unknown", Reference: PeerServer}},
	} {
		if got := audit(tc.settings, tc.layout); got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
	if db.IsLocal("mongodb://127.0.0.1:27017/x") || db.IsEphemeral("mongodb://127.0.0.1:27017/x", nil) {
		t.Error("a MongoDB URI is neither local nor ephemeral")
	}
}

// TestIndexAudit: a run's audit lists the indexes listIndexes answers,
// _id's aside.
func TestIndexAudit(t *testing.T) {
	u := testutil.FreshMongoDatabase(t, testutil.MongoDB(t))
	dbtest.RunIndexes(t, func(t *testing.T, props map[string]string) db.Store {
		st, err := db.Open(context.Background(), db.OpenRequest{Target: u, Props: props})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}, "address.city, score, tags")
}
