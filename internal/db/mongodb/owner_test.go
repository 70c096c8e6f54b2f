package mongodb

import (
	"context"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

// TestOwnership: docbench drops only the collections its
// docbench_collections names.
func TestOwnership(t *testing.T) {
	ctx := context.Background()
	u := testutil.FreshMongoDatabase(t, testutil.MongoDB(t))
	var log dbtest.Log
	opened, err := db.Open(ctx, db.OpenRequest{Target: u, Log: log.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { opened.Close() })
	st := opened.(*store)
	rows := func(t *testing.T, coll string) int {
		names, err := st.database.ListCollectionNames(ctx, bson.D{{Key: "name", Value: coll}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(names, coll) {
			return -1
		}
		n, err := rawCollection(t, u, coll).CountDocuments(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	dbtest.RunOwner(t, dbtest.Owner{Store: st, Logged: log.String, Rows: rows,
		Foreign: func(t *testing.T, coll string) {
			if _, err := rawCollection(t, u, coll).InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
				t.Fatal(err)
			}
		}})
}
