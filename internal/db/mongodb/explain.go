package mongodb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/docbench/docbench/internal/db"
)

var _ db.StatementExplainer = (*session)(nil)

// PeerNoExplain is the Access of every plan when the server is the
// mongo-java-server test peer, which has no explain command.
const PeerNoExplain = "unavailable: the server does not support explain (mongo-java-server peer)"

// ExplainStatement shows the plan of the command the session sends for st:
// the explain command (verbosity queryPlanner) of the find, update or
// aggregate command, with the same filter, projection, sort and pipeline
// and st's values. Access is the winning plan's stages from the root down
// ("FETCH → IXSCAN {field1: 1} field1_1", "EXPRESS_IXSCAN _id_", "IDHACK",
// "COLLSCAN"); a key lookup, update, scan or secondary query whose winning
// plan has a COLLSCAN is flagged. explain covers no insert.
//
// A server without explain (the mongo-java-server test peer) gives each
// plan the reason instead: never a plan it did not give.
func (ss *session) ExplainStatement(ctx context.Context, st *db.Statement) (db.Plan, error) {
	coll, key := ss.coll.Name(), st.Key
	var cmd bson.D
	switch st.Kind {
	case db.StmtRead:
		// FindOne: find with limit 1 and a single batch.
		cmd = bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: clone(ss.keyFilter(key))}}
		if st.Fields != nil {
			cmd = append(cmd, bson.E{Key: "projection", Value: ss.projectionFor(st.Fields).raw})
		}
		cmd = append(cmd, bson.E{Key: "limit", Value: int64(1)}, bson.E{Key: "singleBatch", Value: true})
	case db.StmtScan:
		fs, d := docStart(nil)
		d = append(d, bsonDocument)
		d = appendCString(d, "_id")
		gte, d := docStart(d)
		d = appendStringElement(d, "$gte", key)
		d = docEnd(d, gte)
		cmd = bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: bson.Raw(docEnd(d, fs))}, {Key: "sort", Value: ss.idSort}}
		if st.Fields != nil {
			cmd = append(cmd, bson.E{Key: "projection", Value: ss.projectionFor(st.Fields).raw})
		}
		cmd = append(cmd, bson.E{Key: "limit", Value: int64(max(st.Count, 1))})
	case db.StmtUpdate:
		u, err := updateDoc(st.Update)
		if err != nil {
			return db.Plan{}, err
		}
		cmd = bson.D{{Key: "update", Value: coll}, {Key: "updates", Value: bson.A{
			bson.D{{Key: "q", Value: clone(ss.keyFilter(key))}, {Key: "u", Value: u}}}}}
	case db.StmtInsert:
		return db.Plan{Statement: "insert into " + coll,
			Access: "not explained: MongoDB's explain does not cover insert (an insert looks up no document)"}, nil
	case db.StmtQuery:
		var err error
		if cmd, err = ss.queryCommand(coll, st.Query); err != nil {
			return db.Plan{}, err
		}
	default:
		return db.Plan{}, fmt.Errorf("mongodb explain: statement kind %d", st.Kind)
	}
	return ss.explain(ctx, st, cmd), nil
}

// isPeer reports whether the server is the mongo-java-server peer.
func (s *session) isPeer(ctx context.Context) bool {
	status, err := s.coll.Database().Client().Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		return false
	}
	process, _ := status.Lookup("process").StringValueOK()
	return process == "java"
}

func clone(b []byte) bson.Raw { return bson.Raw(append([]byte(nil), b...)) }

// updateDoc is the update document Session.Update sends.
func updateDoc(u *db.Update) (bson.Raw, error) {
	d, err := appendUpdate(nil, u)
	if err != nil {
		return nil, fmt.Errorf("mongodb explain update: %w", err)
	}
	return bson.Raw(d), nil
}

// queryCommand is the find (or aggregate) command Session.Query sends.
func (s *session) queryCommand(coll string, q *db.Query) (bson.D, error) {
	var filter, sort []byte
	var err error
	switch q.Kind {
	case db.QueryField, db.QueryArray:
		start, d := docStart(nil)
		if d, err = appendJSONElement(d, q.Path, q.Value); err == nil {
			filter = docEnd(d, start)
		}
	case db.QueryContains:
		filter, err = s.containsFilter(nil, q.Path, q.Value)
	case db.QueryRange:
		start, d := docStart(nil)
		d = append(d, bsonDocument)
		d = appendCString(d, q.Path)
		gte, d := docStart(d)
		if d, err = appendJSONElement(d, "$gte", q.Value); err == nil {
			filter = docEnd(docEnd(d, gte), start)
		}
		start, d = docStart(nil)
		sort = docEnd(appendInt32Element(d, q.Path, 1), start)
	case db.QueryAggregate:
		var acc bson.D
		switch q.Func {
		case "avg":
			acc = bson.D{{Key: "$avg", Value: "$" + q.AggPath}}
		case "sum":
			acc = bson.D{{Key: "$sum", Value: "$" + q.AggPath}}
		case "count":
			acc = bson.D{{Key: "$sum", Value: int32(1)}}
		default:
			return nil, &db.ErrNotSupported{Backend: "mongodb", What: "aggregate function " + strconv.Quote(q.Func)}
		}
		group := bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$" + q.Path}, {Key: "value", Value: acc}}}}
		return bson.D{{Key: "aggregate", Value: coll}, {Key: "pipeline", Value: bson.A{group}}, {Key: "cursor", Value: bson.D{}}}, nil
	default:
		return nil, &db.ErrNotSupported{Backend: "mongodb", What: "query kind " + q.Kind.String()}
	}
	if err != nil {
		return nil, fmt.Errorf("mongodb %s query on %s: %w", q.Kind, q.Path, err)
	}
	cmd := bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: bson.Raw(filter)}}
	if sort != nil {
		cmd = append(cmd, bson.E{Key: "sort", Value: bson.Raw(sort)})
	}
	if q.Fields != nil {
		cmd = append(cmd, bson.E{Key: "projection", Value: s.projectionFor(q.Fields).raw})
	}
	if q.Offset > 0 {
		cmd = append(cmd, bson.E{Key: "skip", Value: int64(q.Offset)})
	}
	if q.Limit > 0 {
		cmd = append(cmd, bson.E{Key: "limit", Value: int64(q.Limit)})
	}
	return cmd, nil
}

// explain runs the explain command of cmd, st's command.
func (s *session) explain(ctx context.Context, st *db.Statement, cmd bson.D) db.Plan {
	var p db.Plan
	if b, err := bson.MarshalExtJSON(cmd, false, false); err == nil {
		p.Statement = string(b)
	}
	res, err := s.coll.Database().RunCommand(ctx, bson.D{{Key: "explain", Value: cmd}, {Key: "verbosity", Value: "queryPlanner"}}).Raw()
	if err != nil {
		var ce mongo.CommandError
		switch {
		case errors.As(err, &ce) && ce.Code == 59 && s.isPeer(ctx): // CommandNotFound
			p.Access = PeerNoExplain
		case errors.As(err, &ce) && ce.Code == 59:
			p.Access = "unavailable: the server has no explain command (" + oneLine(err) + ")"
		default:
			p.Access = "not explained: " + oneLine(err)
		}
		return p
	}
	p.Plan = res.String()
	p.Access, p.Flag = readPlan(res, st, s.coll.Name())
	return p
}

// readPlan summarises an explain result: the winning plan's stages, and a
// flag when an operation that looks documents up scans the collection.
func readPlan(res bson.Raw, st *db.Statement, coll string) (access, flag string) {
	stages, ok := winningStages(res)
	if !ok {
		return "not explained: the explain output has no queryPlanner.winningPlan", ""
	}
	for _, stage := range stages {
		if st.Kind != db.StmtInsert && strings.HasPrefix(stage, "COLLSCAN") {
			flag = "no index used: COLLSCAN of " + coll
			if st.Kind == db.StmtQuery && st.Query.Kind == db.QueryAggregate {
				flag += " (the aggregate groups every document)"
			}
			break
		}
	}
	return strings.Join(stages, " → "), flag
}

// winningStages finds the winning plans in an explain result (top-level
// queryPlanner; an aggregate's stages[0].$cursor.queryPlanner; each shard's
// under winningPlan.shards) and lists their stages from the root down. The
// slot-based engine (MongoDB 7+) puts the stage tree under
// winningPlan.queryPlan.
func winningStages(res bson.Raw) ([]string, bool) {
	var out []string
	found := false
	var find func(v bson.RawValue)
	find = func(v bson.RawValue) {
		var elems []bson.RawElement
		switch v.Type {
		case bson.TypeEmbeddedDocument:
			elems, _ = v.Document().Elements()
		case bson.TypeArray:
			vals, _ := v.Array().Values()
			for _, x := range vals {
				find(x)
			}
			return
		default:
			return
		}
		for _, e := range elems {
			if e.Key() == "winningPlan" {
				if wp, ok := e.Value().DocumentOK(); ok {
					if shards, ok := wp.Lookup("shards").ArrayOK(); ok {
						find(bson.RawValue{Type: bson.TypeArray, Value: shards})
						continue
					}
					found = true
					if qp, ok := wp.Lookup("queryPlan").DocumentOK(); ok {
						wp = qp
					}
					out = appendStages(out, wp)
				}
				continue
			}
			find(e.Value())
		}
	}
	find(bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: res})
	return out, found
}

// appendStages lists a stage and its inputs: "IXSCAN {"field1": 1} field1_1".
func appendStages(out []string, st bson.Raw) []string {
	name, _ := st.Lookup("stage").StringValueOK()
	if name == "" {
		return out
	}
	if kp, ok := st.Lookup("keyPattern").DocumentOK(); ok {
		name += " " + kp.String()
	}
	if ix, ok := st.Lookup("indexName").StringValueOK(); ok {
		name += " " + ix
	}
	out = append(out, name)
	if in, ok := st.Lookup("inputStage").DocumentOK(); ok {
		out = appendStages(out, in)
	}
	if ins, ok := st.Lookup("inputStages").ArrayOK(); ok {
		vals, _ := ins.Values()
		for _, v := range vals {
			if d, ok := v.DocumentOK(); ok {
				out = appendStages(out, d)
			}
		}
	}
	return out
}
