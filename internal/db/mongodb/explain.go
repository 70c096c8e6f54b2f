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

var _ db.Explainer = (*store)(nil)

// PeerNoExplain is the Access of every plan when the server is the
// mongo-java-server test peer, which has no explain command.
const PeerNoExplain = "unavailable: the server does not support explain (mongo-java-server peer)"

// Explain shows the plan of each operation the request uses: the explain
// command (verbosity queryPlanner) of the find, update and aggregate
// commands a session sends, with the same filters, projections, sorts and
// pipelines and representative values. Access is the winning plan's stages
// from the root down ("FETCH → IXSCAN {field1: 1} field1_1", "EXPRESS_IXSCAN
// _id_", "IDHACK", "COLLSCAN"); a key lookup, update, scan or secondary query
// whose winning plan has a COLLSCAN is flagged. explain covers no insert.
//
// A server without explain (the mongo-java-server test peer) gives each
// plan the reason instead: never a plan it did not give.
func (s *store) Explain(ctx context.Context, r *db.ExplainRequest) ([]db.Plan, error) {
	ss := newSession(s.coll)
	coll := s.coll.Name()
	var plans []db.Plan
	peer := s.isPeer(ctx)
	explain := func(op string, cmd bson.D) {
		plans = append(plans, s.explain(ctx, op, cmd, peer))
	}
	key := r.Key
	if r.Has("READ") || r.Has("READ-MODIFY-WRITE") {
		for i, f := range r.Reads {
			if i == 2 {
				break // projections of other fields plan alike
			}
			// FindOne: find with limit 1 and a single batch.
			cmd := bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: clone(ss.keyFilter(key))}}
			if f != nil {
				cmd = append(cmd, bson.E{Key: "projection", Value: ss.projectionFor(f).raw})
			}
			explain("READ", append(cmd, bson.E{Key: "limit", Value: int64(1)}, bson.E{Key: "singleBatch", Value: true}))
		}
	}
	if r.Has("SCAN") {
		fs, d := docStart(nil)
		d = append(d, bsonDocument)
		d = appendCString(d, "_id")
		gte, d := docStart(d)
		d = appendStringElement(d, "$gte", key)
		d = docEnd(d, gte)
		cmd := bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: bson.Raw(docEnd(d, fs))}, {Key: "sort", Value: ss.idSort}}
		if len(r.Reads) > 0 && r.Reads[0] != nil {
			cmd = append(cmd, bson.E{Key: "projection", Value: ss.projectionFor(r.Reads[0]).raw})
		}
		explain("SCAN", append(cmd, bson.E{Key: "limit", Value: int64(max(r.ScanCount, 1))}))
	}
	if (r.Has("UPDATE") || r.Has("READ-MODIFY-WRITE")) && r.Update != nil {
		u, err := updateDoc(r.Update)
		if err != nil {
			return plans, err
		}
		explain("UPDATE", bson.D{{Key: "update", Value: coll}, {Key: "updates", Value: bson.A{
			bson.D{{Key: "q", Value: clone(ss.keyFilter(key))}, {Key: "u", Value: u}}}}})
	}
	if r.Has("INSERT") {
		plans = append(plans, db.Plan{Op: "INSERT", Statement: "insert into " + coll,
			Access: "not explained: MongoDB's explain does not cover insert (an insert looks up no document)"})
	}
	for i := range r.Queries {
		q := &r.Queries[i]
		op := "QUERY-" + strings.ToUpper(q.Kind.String())
		if !r.Has(op) {
			continue
		}
		cmd, err := ss.queryCommand(coll, q)
		if err != nil {
			return plans, err
		}
		explain(op, cmd)
	}
	return plans, nil
}

// isPeer reports whether the server is the mongo-java-server peer.
func (s *store) isPeer(ctx context.Context) bool {
	status, err := s.client.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
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

func (s *store) explain(ctx context.Context, op string, cmd bson.D, peer bool) db.Plan {
	p := db.Plan{Op: op}
	if b, err := bson.MarshalExtJSON(cmd, false, false); err == nil {
		p.Statement = string(b)
	}
	res, err := s.database.RunCommand(ctx, bson.D{{Key: "explain", Value: cmd}, {Key: "verbosity", Value: "queryPlanner"}}).Raw()
	if err != nil {
		var ce mongo.CommandError
		switch {
		case peer && errors.As(err, &ce) && ce.Code == 59: // CommandNotFound
			p.Access = PeerNoExplain
		case errors.As(err, &ce) && ce.Code == 59:
			p.Access = "unavailable: the server has no explain command (" + oneLine(err) + ")"
		default:
			p.Access = "not explained: " + oneLine(err)
		}
		return p
	}
	p.Plan = res.String()
	p.Access, p.Flag = readPlan(res, op, s.coll.Name())
	return p
}

// readPlan summarises an explain result: the winning plan's stages, and a
// flag when an operation that looks documents up scans the collection.
func readPlan(res bson.Raw, op, coll string) (access, flag string) {
	stages, ok := winningStages(res)
	if !ok {
		return "not explained: the explain output has no queryPlanner.winningPlan", ""
	}
	for _, st := range stages {
		if op != "INSERT" && strings.HasPrefix(st, "COLLSCAN") {
			flag = "no index used: COLLSCAN of " + coll
			if op == "QUERY-AGGREGATE" {
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
