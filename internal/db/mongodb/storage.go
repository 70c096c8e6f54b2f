package mongodb

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/docbench/docbench/internal/db"
)

var _ db.StorageSizer = (*store)(nil)

// StorageChoices: the collection's block compressor is chosen when it is
// created, for the whole collection; docbench measures the server's.
func (s *store) StorageChoices(context.Context) ([]db.StorageChoice, error) { return nil, nil }

// UseStorageChoice accepts only the default.
func (s *store) UseStorageChoice(c db.StorageChoice) error {
	if c.Name != "" {
		return &db.ErrNotSupported{Backend: "mongodb", What: "storage choice " + c.Name}
	}
	return nil
}

// StorageSizes reads each document's BSON size ($bsonSize, MongoDB 4.4+;
// else the length of the document as the server returns it), in _id
// order, and collStats' storageSize and totalIndexSize.
func (s *store) StorageSizes(ctx context.Context, table string, _ bool) (*db.StorageSizes, error) {
	coll := s.database.Collection(table)
	out := &db.StorageSizes{Format: "BSON", Queries: map[string]string{}}
	pipeline := `[{"$sort": {"_id": 1}}, {"$project": {"_id": 0, "size": {"$bsonSize": "$$ROOT"}}}]`
	var sizes []int64
	cur, err := coll.Aggregate(ctx, bson.A{
		bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "size", Value: bson.D{{Key: "$bsonSize", Value: "$$ROOT"}}}}}},
	})
	if err == nil {
		out.Queries["bytes_format, bytes_stored"] = "db." + table + ".aggregate(" + pipeline + ")"
		sizes, err = readSizes(ctx, cur, func(r bson.Raw) (int64, bool) { v, ok := num(r.Lookup("size")); return int64(v), ok })
	}
	if err != nil {
		// No $bsonSize (MongoDB before 4.4, a protocol peer): the length
		// of each document the server returns.
		out.Notes = append(out.Notes, "$bsonSize: "+oneLine(err)+"; sizes are the lengths of the documents as returned")
		out.Queries["bytes_format, bytes_stored"] = "db." + table + ".find({}).sort({_id: 1}): the length of each BSON document returned"
		cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			return nil, fmt.Errorf("mongodb storage: %w", err)
		}
		if sizes, err = readSizes(ctx, cur, func(r bson.Raw) (int64, bool) { return int64(len(r)), true }); err != nil {
			return nil, err
		}
	}
	out.Formatted, out.Stored = sizes, sizes
	out.Toast = db.Missing("MongoDB keeps each document whole; WiredTiger compresses pages, not documents")
	s.collSizes(ctx, table, out)
	return out, nil
}

// readSizes reads one size from every document of cur.
func readSizes(ctx context.Context, cur *mongo.Cursor, size func(bson.Raw) (int64, bool)) ([]int64, error) {
	defer cur.Close(ctx)
	var out []int64
	for cur.Next(ctx) {
		n, ok := size(cur.Current)
		if !ok {
			return nil, fmt.Errorf("mongodb storage: no size in %s", cur.Current)
		}
		out = append(out, n)
	}
	return out, cur.Err()
}

// collSizes reads collStats' storageSize (compressed) and totalIndexSize.
func (s *store) collSizes(ctx context.Context, table string, out *db.StorageSizes) {
	out.Queries["table, indexes"] = `db.runCommand({collStats: "` + table + `"}): storageSize, totalIndexSize`
	cs, err := s.database.RunCommand(ctx, bson.D{{Key: "collStats", Value: table}}).Raw()
	if err != nil {
		reason := "collStats: " + oneLine(err)
		out.Table, out.Indexes = db.Missing(reason), db.Missing(reason)
		return
	}
	if v, ok := num(cs.Lookup("storageSize")); ok && v > 0 {
		out.Table = db.Val(v, db.Bytes)
	} else {
		out.Table = db.Missing("collStats reports no storageSize (a protocol peer stores nothing on disk)")
	}
	if v, ok := num(cs.Lookup("totalIndexSize")); ok {
		out.Indexes = db.Val(v, db.Bytes)
	} else {
		out.Indexes = db.Missing("collStats reports no totalIndexSize")
	}
}
