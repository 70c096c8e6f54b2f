package mongodb

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/testutil"
)

var explainQueries = []db.Query{
	{Kind: db.QueryField, Path: "field1", Value: []byte(`"v7"`), Limit: 10, Offset: 2},
	{Kind: db.QueryContains, Path: "tags", Value: []byte(`[{"term":"t1"}]`), Fields: []string{"field0"}},
	{Kind: db.QueryArray, Path: "labels", Value: []byte(`"l1"`)},
	{Kind: db.QueryRange, Path: "n", Value: []byte(`5`), Limit: 3},
	{Kind: db.QueryAggregate, Path: "field0", AggPath: "n", Func: "avg"},
}

func fullRequest() *db.ExplainRequest {
	key := []byte("user1")
	r := &db.ExplainRequest{Statements: []db.Statement{
		{Kind: db.StmtRead, Key: key},
		{Kind: db.StmtRead, Key: key, Fields: []string{"field0", "address.zip"}},
		{Kind: db.StmtScan, Key: key, Count: 10},
		{Kind: db.StmtUpdate, Key: key, Update: &db.Update{Mode: db.Partial, Paths: []string{"field0"}, Values: [][]byte{[]byte(`"new"`)}}},
		{Kind: db.StmtInsert, Key: key, Doc: []byte(`{"field0":"x"}`)},
	}}
	for i := range explainQueries {
		r.Statements = append(r.Statements, db.Statement{Kind: db.StmtQuery, Query: &explainQueries[i]})
	}
	return r
}

// TestExplainPeer: mongo-java-server has no explain command. Every plan
// says so, and none carries a plan, an access path or a flag it did not get
// from the server; the statement is the command docbench sends.
func TestExplainPeer(t *testing.T) {
	ctx := context.Background()
	st, _ := openPeer(t, "")
	sess := setup(t, st, db.Index{Path: "field1"})
	if err := sess.Insert(ctx, []byte("user1"), []byte(`{"field0":"a","field1":"v7","n":6}`)); err != nil {
		t.Fatal(err)
	}
	plans, err := db.Explain(ctx, st, fullRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 10 {
		t.Fatalf("%d plans, want 10 (2 reads, scan, update, insert, 5 queries): %+v", len(plans), plans)
	}
	for _, p := range plans {
		t.Logf("%-15s %s | %s", p.Op, p.Statement, p.Access)
		if p.Flag != "" || p.Plan != "" {
			t.Errorf("%s: flag %q plan %q from a server that explains nothing", p.Op, p.Flag, p.Plan)
		}
		want := PeerNoExplain
		if p.Op == "INSERT" {
			want = "not explained: MongoDB's explain does not cover insert"
		}
		if !strings.HasPrefix(p.Access, want) {
			t.Errorf("%s: access %q, want %q", p.Op, p.Access, want)
		}
		if p.Statement == "" {
			t.Errorf("%s: no statement", p.Op)
		}
	}
}

// TestExplainCommandsAreTheSessions: the commands Explain explains are the
// ones a session sends for the same operations (filter, projection, sort,
// skip, limit; update's q and u; the pipeline), as seen on the wire.
func TestExplainCommandsAreTheSessions(t *testing.T) {
	ctx := context.Background()
	uri := testutil.FreshMongoDatabase(t, testutil.MongoDB(t))
	co, dbName, _, err := clientOptions(db.OpenRequest{Target: uri})
	if err != nil {
		t.Fatal(err)
	}
	sent := map[string][]bson.Raw{} // by command name, explain's unwrapped
	record := true
	co.SetMonitor(&event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if !record {
			return
		}
		if e.CommandName == "explain" {
			inner := e.Command.Lookup("explain").Document()
			name := inner.Index(0).Key()
			sent["explain "+name] = append(sent["explain "+name], inner)
			return
		}
		sent[e.CommandName] = append(sent[e.CommandName], e.Command)
	}})
	client, err := mongo.Connect(co)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Disconnect(context.Background()) })
	st := &store{client: client, database: client.Database(dbName)}
	st.coll = st.database.Collection("usertable")
	record = false
	sess := setup(t, st)
	if err := sess.Insert(ctx, []byte("user1"), []byte(`{"field0":"a","field1":"v7","n":6}`)); err != nil {
		t.Fatal(err)
	}
	r := fullRequest()
	record = true
	for _, st := range r.Statements {
		var err error
		switch st.Kind {
		case db.StmtRead:
			_, err = sess.Read(ctx, st.Key, st.Fields, nil)
		case db.StmtScan:
			_, err = sess.Scan(ctx, st.Key, st.Count, st.Fields)
		case db.StmtUpdate:
			err = sess.Update(ctx, st.Key, st.Update)
		case db.StmtQuery:
			_, err = sess.(db.Querier).Query(ctx, st.Query)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Explain(ctx, st, r); err != nil {
		t.Fatal(err)
	}
	record = false
	field := func(c bson.Raw, path ...string) string {
		v, err := c.LookupErr(path...)
		if err != nil {
			return "<none>"
		}
		b, _ := bson.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, false, false)
		return string(b)
	}
	compare := func(name string, fields ...[]string) {
		ran, explained := sent[name], sent["explain "+name]
		if len(ran) != len(explained) || len(ran) == 0 {
			t.Fatalf("%s: %d sent by the session, %d explained", name, len(ran), len(explained))
		}
		for i := range ran {
			for _, f := range fields {
				if a, b := field(ran[i], f...), field(explained[i], f...); a != b {
					t.Errorf("%s #%d %s: session %s, explained %s", name, i, strings.Join(f, "."), a, b)
				}
			}
		}
	}
	compare("find", []string{"filter"}, []string{"projection"}, []string{"sort"}, []string{"skip"}, []string{"limit"})
	compare("update", []string{"updates", "0", "q"}, []string{"updates", "0", "u"})
	compare("aggregate", []string{"pipeline"})
	if n := len(sent["find"]); n != 7 {
		t.Errorf("%d finds, want 7 (2 reads, scan, 4 queries)", n)
	}
}

// Explain results as MongoDB returns them (shapes from MongoDB 4.4–8.0:
// classic and slot-based engines, express path, aggregate, sharded); the
// test peer has no explain, so these are fixtures of the server's format.
func TestReadPlan(t *testing.T) {
	read, update, scan := db.Statement{Kind: db.StmtRead}, db.Statement{Kind: db.StmtUpdate}, db.Statement{Kind: db.StmtScan}
	field := db.Statement{Kind: db.StmtQuery, Query: &db.Query{Kind: db.QueryField}}
	aggregate := db.Statement{Kind: db.StmtQuery, Query: &db.Query{Kind: db.QueryAggregate}}
	for name, tc := range map[string]struct {
		st                 db.Statement
		json, access, flag string
	}{
		"8.0 express _id": {read, `{"queryPlanner":{"winningPlan":{"isCached":false,"stage":"EXPRESS_IXSCAN","keyPattern":"{ _id: 1 }","indexName":"_id_"},"rejectedPlans":[]},"ok":1}`,
			`EXPRESS_IXSCAN _id_`, ""},
		"classic idhack": {update, `{"queryPlanner":{"winningPlan":{"stage":"UPDATE","inputStage":{"stage":"IDHACK"}}},"ok":1}`,
			"UPDATE → IDHACK", ""},
		"collscan": {field, `{"queryPlanner":{"winningPlan":{"stage":"LIMIT","limitAmount":10,"inputStage":{"stage":"COLLSCAN","filter":{"field1":{"$eq":"v7"}},"direction":"forward"}}},"ok":1}`,
			"LIMIT → COLLSCAN", "no index used: COLLSCAN of usertable"},
		"fetch ixscan": {field, `{"queryPlanner":{"winningPlan":{"stage":"FETCH","inputStage":{"stage":"IXSCAN","keyPattern":{"field1":1},"indexName":"field1_1","direction":"forward"}}},"ok":1}`,
			`FETCH → IXSCAN {"field1": {"$numberInt":"1"}} field1_1`, ""},
		"sbe queryPlan": {scan, `{"explainVersion":"2","queryPlanner":{"winningPlan":{"queryPlan":{"stage":"FETCH","inputStage":{"stage":"IXSCAN","keyPattern":{"_id":1},"indexName":"_id_"}},"slotBasedPlan":{"stages":"..."}}},"ok":1}`,
			`FETCH → IXSCAN {"_id": {"$numberInt":"1"}} _id_`, ""},
		"aggregate cursor": {aggregate, `{"stages":[{"$cursor":{"queryPlanner":{"winningPlan":{"stage":"PROJECTION_SIMPLE","inputStage":{"stage":"COLLSCAN","direction":"forward"}}}}},{"$group":{"_id":"$field0"}}],"ok":1}`,
			"PROJECTION_SIMPLE → COLLSCAN", "no index used: COLLSCAN of usertable (the aggregate groups every document)"},
		"sharded": {read, `{"queryPlanner":{"winningPlan":{"stage":"SINGLE_SHARD","shards":[{"shardName":"s0","winningPlan":{"stage":"IDHACK"}}]}},"ok":1}`,
			"IDHACK", ""},
		"no planner": {read, `{"ok":1}`, "not explained: the explain output has no queryPlanner.winningPlan", ""},
	} {
		var doc bson.Raw
		if err := bson.UnmarshalExtJSON([]byte(tc.json), false, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		access, flag := readPlan(doc, &tc.st, "usertable")
		if access != tc.access || flag != tc.flag {
			t.Errorf("%s: access %q flag %q, want %q %q", name, access, flag, tc.access, tc.flag)
		}
	}
}
