package mongodb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// openPeer opens a store on a fresh database of the shared MongoDB
// wire-protocol peer; query is added to the URI.
func openPeer(t *testing.T, query string) (*store, string) {
	t.Helper()
	u := testutil.FreshMongoDatabase(t, testutil.MongoDB(t))
	if query != "" {
		u += "&" + query
	}
	st, err := db.Open(context.Background(), db.OpenRequest{Target: u, Threads: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.(*store), u
}

// rawCollection is the driver's view of the store's collection, for checks
// that must not go through the adapter.
func rawCollection(t *testing.T, uri, table string) *mongo.Collection {
	t.Helper()
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Disconnect(context.Background()) })
	u, _ := url.Parse(uri)
	return client.Database(strings.TrimPrefix(u.Path, "/")).Collection(table)
}

func TestConformance(t *testing.T) {
	st, _ := openPeer(t, "")
	dbtest.Run(t, st)
}

func setup(t *testing.T, st *store, indexes ...db.Index) db.Session {
	t.Helper()
	return dbtest.Session(t, context.Background(), st, db.Schema{Table: "usertable", Indexes: indexes})
}

// TestNativeBSON reads a document back with the raw driver: its members
// have native BSON types, not a binary blob as YCSB's binding stores.
func TestNativeBSON(t *testing.T) {
	st, uri := openPeer(t, "")
	s := setup(t, st)
	ctx := context.Background()
	doc := `{"s":"text","i":42,"big":9000000000,"f":2.5,"b":true,"n":null,"o":{"zip":"12345"},"a":["x",1]}`
	if err := s.Insert(ctx, []byte("user1"), []byte(doc)); err != nil {
		t.Fatal(err)
	}
	raw, err := rawCollection(t, uri, "usertable").FindOne(ctx, bson.D{{Key: "_id", Value: "user1"}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bson.Type{
		"_id": bson.TypeString, "s": bson.TypeString, "i": bson.TypeInt32, "big": bson.TypeInt64, "f": bson.TypeDouble,
		"b": bson.TypeBoolean, "n": bson.TypeNull, "o": bson.TypeEmbeddedDocument, "a": bson.TypeArray,
	}
	elems, err := raw.Elements()
	if err != nil {
		t.Fatal(err)
	}
	if len(elems) != len(want) {
		t.Errorf("stored %s: want %d members", raw, len(want))
	}
	for _, e := range elems {
		if typ := e.Value().Type; typ != want[e.Key()] {
			t.Errorf("member %s has BSON type %v, want %v", e.Key(), typ, want[e.Key()])
		}
	}
	if v, _ := raw.Lookup("o", "zip").StringValueOK(); v != "12345" {
		t.Errorf("o.zip = %v", raw.Lookup("o", "zip"))
	}
	if v, _ := raw.Lookup("i").Int32OK(); v != 42 {
		t.Errorf("i = %v", raw.Lookup("i"))
	}
	// and the adapter reads back the same JSON
	got, err := s.Read(ctx, []byte("user1"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	assertSameJSON(t, got, doc)
}

func assertSameJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestIndexesOnDottedPaths(t *testing.T) {
	st, uri := openPeer(t, "")
	setup(t, st, db.Index{Path: "address.zip"}, db.Index{Path: "tags", Array: true})
	ctx := context.Background()
	cur, err := rawCollection(t, uri, "usertable").Indexes().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for cur.Next(ctx) {
		k, err := cur.Current.LookupErr("key")
		if err != nil {
			t.Fatal(err)
		}
		elems, _ := k.Document().Elements()
		for _, e := range elems {
			keys = append(keys, e.Key())
		}
	}
	slices.Sort(keys)
	if !reflect.DeepEqual(keys, []string{"_id", "address.zip", "tags"}) {
		t.Errorf("listIndexes keys = %v, want _id, address.zip, tags", keys)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := info.Layout["secondary_index_definitions"], "{address.zip: 1}; {tags: 1}"; info.Layout["secondary_indexes"] != "address.zip, tags" || got != want {
		t.Errorf("layout secondary indexes = %q (%s), want address.zip, tags (%s)", info.Layout["secondary_indexes"], got, want)
	}
}

// TestQueries plants documents and checks that each query kind returns
// exactly the planted ones.
func TestQueries(t *testing.T) {
	st, _ := openPeer(t, "")
	s := setup(t, st, db.Index{Path: "address.zip"}, db.Index{Path: "tags", Array: true})
	ctx := context.Background()
	var keys, docs [][]byte
	for i := range 20 {
		zip := "00000"
		if i%5 == 0 {
			zip = "12345" // 0, 5, 10, 15
		}
		tags := `["common"]`
		if i%4 == 0 {
			tags = `["common","rare"]` // 0, 4, 8, 12, 16
		}
		orders := fmt.Sprintf(`[{"sku":"S-%d","qty":%d},{"sku":"X","qty":1}]`, i%3, i%2)
		keys = append(keys, fmt.Appendf(nil, "user%02d", i))
		docs = append(docs, fmt.Appendf(nil, `{"n":%d,"group":"g%d","address":{"zip":"%s","city":"c"},"tags":%s,"orders":%s}`,
			i, i%2, zip, tags, orders))
	}
	if err := s.(db.BatchInserter).InsertBatch(ctx, keys, docs); err != nil {
		t.Fatal(err)
	}
	q := s.(db.Querier)
	for _, c := range []struct {
		name string
		q    db.Query
		want int
	}{
		{"field", db.Query{Kind: db.QueryField, Path: "address.zip", Value: []byte(`"12345"`)}, 4},
		{"field with projection", db.Query{Kind: db.QueryField, Path: "address.zip", Value: []byte(`"12345"`), Fields: []string{"n"}}, 4},
		{"field limited", db.Query{Kind: db.QueryField, Path: "address.zip", Value: []byte(`"12345"`), Limit: 3}, 3},
		{"field number", db.Query{Kind: db.QueryField, Path: "n", Value: []byte(`7`)}, 1},
		{"contains object", db.Query{Kind: db.QueryContains, Path: "address", Value: []byte(`{"zip":"12345","city":"c"}`)}, 4},
		{"contains at root", db.Query{Kind: db.QueryContains, Value: []byte(`{"address":{"zip":"12345"},"tags":["rare"]}`)}, 1},      // 0
		{"contains array of objects", db.Query{Kind: db.QueryContains, Path: "orders", Value: []byte(`[{"sku":"S-1","qty":1}]`)}, 4}, // i%3==1, i odd: 1, 7, 13, 19
		{"contains array of scalars", db.Query{Kind: db.QueryContains, Path: "tags", Value: []byte(`["rare","common"]`)}, 5},
		{"array", db.Query{Kind: db.QueryArray, Path: "tags", Value: []byte(`"rare"`)}, 5},
		{"range", db.Query{Kind: db.QueryRange, Path: "n", Value: []byte(`15`)}, 5},
		{"range limit", db.Query{Kind: db.QueryRange, Path: "n", Value: []byte(`10`), Limit: 3}, 3},
		{"range offset", db.Query{Kind: db.QueryRange, Path: "n", Value: []byte(`10`), Limit: 3, Offset: 8}, 2},
		{"aggregate avg", db.Query{Kind: db.QueryAggregate, Path: "group", AggPath: "n", Func: "avg"}, 2},
		{"aggregate sum", db.Query{Kind: db.QueryAggregate, Path: "address.zip", AggPath: "n", Func: "sum"}, 2},
		{"aggregate count", db.Query{Kind: db.QueryAggregate, Path: "n", Func: "count"}, 20},
	} {
		n, err := q.Query(ctx, &c.q)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if n != c.want {
			t.Errorf("%s: %d documents, want %d", c.name, n, c.want)
		}
	}
	if _, err := q.Query(ctx, &db.Query{Kind: db.QueryAggregate, Path: "n", Func: "median"}); err == nil {
		t.Error("aggregate median: no error")
	}
	// projection on a nested path through a query's documents
	got, err := s.Read(ctx, []byte("user05"), []string{"address.zip", "orders.0.sku", "missing.path"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	assertSameJSON(t, got, `{"address.zip":"12345","orders.0.sku":"S-2"}`)
}

func TestRangeOrder(t *testing.T) {
	st, uri := openPeer(t, "")
	s := setup(t, st)
	ctx := context.Background()
	for _, i := range []int{3, 1, 4, 2, 0} {
		if err := s.Insert(ctx, fmt.Appendf(nil, "user%d", i), fmt.Appendf(nil, `{"n":%d}`, 10-i)); err != nil {
			t.Fatal(err)
		}
	}
	// what the query asks the server for: sorted by the path
	cur, err := rawCollection(t, uri, "usertable").Find(ctx, bson.D{{Key: "n", Value: bson.D{{Key: "$gte", Value: 7}}}},
		options.Find().SetSort(bson.D{{Key: "n", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var ns []int32
	for cur.Next(ctx) {
		ns = append(ns, cur.Current.Lookup("n").Int32())
	}
	if !reflect.DeepEqual(ns, []int32{7, 8, 9, 10}) {
		t.Errorf("n >= 7 sorted = %v", ns)
	}
	n, err := s.(db.Querier).Query(ctx, &db.Query{Kind: db.QueryRange, Path: "n", Value: []byte(`7`), Limit: 2, Offset: 1})
	if err != nil || n != 2 {
		t.Errorf("range = %d, %v", n, err)
	}
}

func TestWriteConcernRecorded(t *testing.T) {
	ctx := context.Background()
	st, _ := openPeer(t, "")
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Settings["w"] != "1" || info.Settings["journal"] != "true" || !strings.HasPrefix(info.Settings["writeConcernFrom"], "docbench default") {
		t.Errorf("default write concern: settings %v", info.Settings)
	}
	if info.Settings["readConcernLevel"] != "server default" {
		t.Errorf("readConcernLevel = %q", info.Settings["readConcernLevel"])
	}
	// the peer is recognised and labelled; it reports no storage engine
	if info.Settings["server"] != PeerServer || !strings.Contains(info.Version, "mongo-java-server") {
		t.Errorf("peer not labelled: version %q, settings %v", info.Version, info.Settings)
	}
	if _, ok := info.Settings["storageEngine"]; ok {
		t.Errorf("storageEngine reported for the peer: %v", info.Settings)
	}
	if _, ok := info.Settings["wiredTigerCacheSizeBytes"]; ok {
		t.Errorf("WiredTiger cache reported for the peer: %v", info.Settings)
	}
	if info.Layout["document"] != "native BSON" {
		t.Errorf("layout %v", info.Layout)
	}
	st2, _ := openPeer(t, "w=majority&journal=false&readConcernLevel=majority")
	info, err = st2.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Settings["w"] != "majority" || info.Settings["journal"] != "false" || info.Settings["writeConcernFrom"] != "URI" ||
		info.Settings["readConcernLevel"] != "majority" {
		t.Errorf("URI write concern: settings %v", info.Settings)
	}
}

func TestBadURI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range []struct{ target, want string }{
		{"mongodb://user:secret@host:notaport/db", "target mongodb://user:***@host:notaport/db: "},
		{"mongodb://localhost/db?w=1&journal=maybe", "target mongodb://localhost/db?w=1&journal=maybe: "},
		{"mongodb:localhost", `target "mongodb:localhost": want mongodb://`},
	} {
		_, err := db.Open(ctx, db.OpenRequest{Target: c.target})
		if err == nil {
			t.Errorf("%s: no error", c.target)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, c.want) || strings.Contains(msg, "\n") || strings.Contains(msg, "secret") {
			t.Errorf("%s: error %q, want one line starting %q without the password", c.target, msg, c.want)
		}
	}
}

func TestErrNotFound(t *testing.T) {
	st, _ := openPeer(t, "")
	s := setup(t, st)
	ctx := context.Background()
	for _, u := range []*db.Update{
		{Mode: db.Partial, Paths: []string{"a.b"}, Values: [][]byte{[]byte(`1`)}},
		{Mode: db.Replace, Doc: []byte(`{"a":1}`)},
	} {
		if err := s.Update(ctx, []byte("nokey"), u); !errors.Is(err, db.ErrNotFound) {
			t.Errorf("%v update of a missing key = %v", u.Mode, err)
		}
	}
	if err := s.Delete(ctx, []byte("nokey")); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("delete of a missing key = %v", err)
	}
	if err := s.Insert(ctx, []byte("k"), []byte(`{"a":`)); err == nil || !strings.Contains(err.Error(), "JSON to BSON") {
		t.Errorf("insert of bad JSON = %v", err)
	}
}

// TestDefaultWriteConcernOnTheWire checks that writes carry w:1, j:true
// when the URI sets no write concern, and the URI's otherwise.
func TestDefaultWriteConcernOnTheWire(t *testing.T) {
	base := testutil.FreshMongoDatabase(t, testutil.MongoDB(t))
	for _, c := range []struct{ query, want string }{
		{"", `{"w":1,"j":true}`},
		{"&w=majority&journal=false", `{"w":"majority","j":false}`},
	} {
		co, dbName, _, err := clientOptions(db.OpenRequest{Target: base + c.query})
		if err != nil {
			t.Fatal(err)
		}
		var sent []string
		co.SetMonitor(&event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
			if e.CommandName == "insert" || e.CommandName == "update" {
				wc, _ := appendValueJSON(nil, byte(e.Command.Lookup("writeConcern").Type), e.Command.Lookup("writeConcern").Value)
				sent = append(sent, e.CommandName+" "+string(wc))
			}
		}})
		client, err := mongo.Connect(co)
		if err != nil {
			t.Fatal(err)
		}
		s := newSession(client.Database(dbName).Collection("wc"))
		ctx := context.Background()
		if err := s.Insert(ctx, []byte("k"+c.query), []byte(`{"a":1}`)); err != nil {
			t.Fatal(err)
		}
		if err := s.Update(ctx, []byte("k"+c.query), &db.Update{Mode: db.Merge, Doc: []byte(`{"a":2}`)}); err != nil {
			t.Fatal(err)
		}
		client.Disconnect(ctx)
		want := []string{"insert " + c.want, "update " + c.want}
		if !reflect.DeepEqual(sent, want) {
			t.Errorf("URI %q: sent %q, want %q", c.query, sent, want)
		}
	}
}

// TestUnreachableSaysWhatItAwaits: an unreachable server is named while
// docbench waits, given up on in the URI's time (or 5 s), and reported in
// one clean line without the password.
func TestUnreachableSaysWhatItAwaits(t *testing.T) {
	var logged []string
	start := time.Now()
	_, err := db.Open(context.Background(), db.OpenRequest{Target: "mongodb://u:secret@127.0.0.1:1/db?serverSelectionTimeoutMS=1500",
		Log: func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }})
	took := time.Since(start)
	if err == nil {
		t.Fatal("connected to port 1")
	}
	msg := err.Error()
	if !strings.Contains(msg, "no server reachable in time (127.0.0.1:1: ") || strings.Contains(msg, "secret") || strings.Contains(msg, "\n") {
		t.Errorf("error: %q", msg)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "waiting for mongodb://u:***@127.0.0.1:1/db?serverSelectionTimeoutMS=1500 (gives up after 1.5s") {
		t.Errorf("logged: %q", logged)
	}
	if took > 5*time.Second {
		t.Errorf("gave up after %v; the URI said 1.5 s", took)
	}
}

// BenchmarkSession measures the client side of the core operations against
// the MongoDB wire peer: ns/op includes the round trip (and the peer's
// work), allocs/op is docbench's and the driver's.
func BenchmarkSession(b *testing.B) {
	dbtest.Bench(b, db.OpenRequest{Target: testutil.FreshMongoDatabase(b, testutil.MongoDB(b))}, "")
}
