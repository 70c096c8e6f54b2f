package mongodb

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/probe"
)

var _ db.Prober = (*store)(nil)

// Probe reads serverStatus (opcounters, WiredTiger's log bytes: the
// journal) and collStats (size, storageSize, totalIndexSize, indexSizes,
// count). What
// the server does not report is absent with that reason; a protocol peer's
// figures are marked as the peer's.
func (s *store) Probe(ctx context.Context) (db.Snapshot, error) {
	snap := db.NewSnapshot()
	admin := s.client.Database("admin")
	status, err := admin.RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	peer := false
	if err != nil {
		reason := "serverStatus: " + oneLine(err)
		for _, k := range []string{"journal_bytes", "opcounters_insert", "opcounters_update"} {
			snap.Counters[k] = db.Missing(reason)
		}
		snap.PIDAbsent = reason
	} else {
		process, _ := status.Lookup("process").StringValueOK()
		peer = process == "java"
		if v, ok := num(status.Lookup("wiredTiger", "log", "log bytes written")); ok {
			snap.Counters["journal_bytes"] = db.Val(v, db.Bytes)
		} else {
			snap.Counters["journal_bytes"] = db.Missing("serverStatus reports no wiredTiger.log (no WiredTiger journal)")
		}
		if _, err := status.LookupErr("opcounters"); err != nil {
			for _, k := range []string{"insert", "update", "delete", "query"} {
				snap.Counters["opcounters_"+k] = db.Missing("serverStatus reports no opcounters")
			}
		} else {
			for _, k := range []string{"insert", "update", "delete", "query", "getmore", "command"} {
				if v, ok := num(status.Lookup("opcounters", k)); ok {
					snap.Counters["opcounters_"+k] = db.Val(v, db.Count)
				}
			}
		}
		if pid, ok := num(status.Lookup("pid")); ok && pid > 0 {
			name, err := probe.ProcessName(int(pid))
			if err == nil && (name == "mongod" || (peer && name == "java")) {
				snap.ServerPID = int(pid)
			} else {
				snap.PIDAbsent = fmt.Sprintf("server pid %d is not a local mongod (another machine or PID namespace)", int64(pid))
			}
		} else {
			snap.PIDAbsent = "serverStatus reports no pid"
		}
	}
	snap.Facts["counters_scope"] = "opcounters and the journal are server-wide"
	if peer {
		snap.Facts["peer"] = PeerServer + ": storage and counters are the peer's, never MongoDB's"
	}

	g := snap.Gauges
	cs, err := s.database.RunCommand(ctx, bson.D{{Key: "collStats", Value: s.coll.Name()}}).Raw()
	if err != nil {
		for _, k := range []string{"table_bytes", "index_bytes", "total_bytes", "documents"} {
			g[k] = db.Missing("collStats: " + oneLine(err))
		}
		return snap, nil
	}
	get := func(k string) (float64, bool) { return num(cs.Lookup(k)) }
	size, okSize := get("size")
	storage, okStorage := get("storageSize")
	index, okIndex := get("totalIndexSize")
	count, okCount := get("count")
	if okSize {
		g["data_size_bytes"] = db.Val(size, db.Bytes) // uncompressed BSON
	}
	switch {
	case okStorage && peer && storage == 0:
		g["table_bytes"] = db.Missing("the protocol peer reports storageSize 0 (it stores nothing on disk)")
	case okStorage:
		g["table_bytes"] = db.Val(storage, db.Bytes)
	default:
		g["table_bytes"] = db.Missing("collStats reports no storageSize")
	}
	if okIndex {
		g["index_bytes"] = db.Val(index, db.Bytes)
	}
	// The indexes beyond _id's, the ones a study asks for (the source
	// sized MongoDB's tags.term index alone).
	if v, ok := cs.Lookup("indexSizes").DocumentOK(); ok {
		if elems, err := v.Elements(); err == nil {
			sum := 0.0
			for _, e := range elems {
				if n, ok := num(e.Value()); ok && e.Key() != "_id_" {
					sum += n
				}
			}
			g["secondary_index_bytes"] = db.Val(sum, db.Bytes)
		}
	} else {
		g["secondary_index_bytes"] = db.Missing("collStats reports no indexSizes")
	}
	if t := g["table_bytes"]; t.OK() && okIndex {
		g["total_bytes"] = db.Val(t.Value+index, db.Bytes)
	} else {
		g["total_bytes"] = db.Missing("no storage size")
	}
	if okCount {
		g["documents"] = db.Val(count, db.Count)
	}
	return snap, nil
}

// num reads a BSON number.
func num(v bson.RawValue) (float64, bool) {
	switch v.Type {
	case bson.TypeInt32:
		return float64(v.Int32()), true
	case bson.TypeInt64:
		return float64(v.Int64()), true
	case bson.TypeDouble:
		return v.Double(), true
	}
	return 0, false
}
