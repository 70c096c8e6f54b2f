// Package mongodb registers the MongoDB backend (go.mongodb.org/mongo-driver/v2):
// any MongoDB URI, mongodb:// or mongodb+srv://.
//
// Documents are stored as native BSON, one per key, with the key as a string
// _id: a JSON object becomes an embedded document, an array an array, a
// number int32, int64 or double, and so on — not a binary blob holding the
// JSON, as YCSB's MongoDB binding stores it (which made the seeds'
// comparisons unfair). The runner's JSON is converted straight to BSON in a
// reused buffer, without reflection. Reads use find with a projection on the
// dotted paths, updates $set (merge and partial) or replaceOne, scans a
// sorted find with a limit, loads unordered insertMany; secondary queries
// are find filters (dotted equality, $elemMatch, $gte) and $group pipelines.
//
// # Durability
//
// Write and read concern come from the URI (w, journal,
// readConcernLevel) and are recorded in Info.Settings. When the URI sets no
// write concern (neither w nor journal), docbench uses w=1, j=true: the
// write is acknowledged after it reached the primary's on-disk journal, the
// counterpart of a durable SQL commit (PostgreSQL synchronous_commit=on,
// InnoDB innodb_flush_log_at_trx_commit=1), so that the comparison with
// SQL targets is fair. Set w/journal in the URI to measure anything else
// (e.g. journal=false for MongoDB's own default with w=1); the settings then
// say "writeConcernFrom": "URI".
//
// # Tests
//
// The tests run against mongo-java-server (internal/server/servertest.StartMongoPeer),
// a wire-protocol peer that keeps data in memory. It is a protocol peer,
// never a performance reference: Info detects it and says so in
// Settings["server"], and no number measured against it is MongoDB's.
package mongodb

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/docbench/docbench/internal/db"
)

// DefaultDatabase is the database used when the URI names none.
const DefaultDatabase = "docbench"

// PeerServer is Info.Settings["server"] when the target is the
// mongo-java-server test peer.
const PeerServer = "mongo-java-server (protocol peer, not MongoDB)"

func init() {
	db.Register(db.Backend{
		Name:    "mongodb",
		Schemes: []string{"mongodb", "mongodb+srv"},
		Summary: "MongoDB through mongo-driver v2: native BSON documents keyed by _id, $set updates, unordered insertMany loads",
		Forms: []db.Form{
			{Form: "mongodb://user:pass@host:port/db?w=1&journal=true",
				Help: "any MongoDB URI; database defaults to " + DefaultDatabase + "; without w/journal docbench writes with w=1, j=true (durable, like a synchronous SQL commit)"},
			{Form: "mongodb+srv://user:pass@cluster.example.net/db", Help: "DNS seed list URI (e.g. Atlas)"},
		},
		Open:  open,
		Audit: audit,
	})
}

type store struct {
	cfg      db.OpenRequest
	client   *mongo.Client
	database *mongo.Database
	coll     *mongo.Collection
	settings map[string]string // what the URI (or docbench's default) set
}

var (
	_ db.Store       = (*store)(nil)
	_ db.ThreadSizer = (*store)(nil)
)

func open(ctx context.Context, cfg db.OpenRequest) (db.Store, error) {
	co, dbName, settings, err := clientOptions(cfg)
	if err != nil {
		return nil, err
	}
	s := &store{cfg: cfg, settings: settings}
	if s.client, err = mongo.Connect(co); err != nil {
		return nil, badTarget(cfg.Target, err)
	}
	// Say what is awaited: the driver is silent until it gives up.
	said := make(chan struct{})
	waiting := time.AfterFunc(time.Second, func() {
		defer close(said)
		cfg.Logf("waiting for %s (gives up after %s; serverSelectionTimeoutMS in the URI sets it)",
			db.Redact(cfg.Target), *co.ServerSelectionTimeout)
	})
	err = s.client.Ping(ctx, nil)
	if !waiting.Stop() {
		<-said // the line comes before whatever follows open
	}
	if err != nil {
		s.client.Disconnect(context.Background())
		return nil, badTarget(cfg.Target, err)
	}
	s.database = s.client.Database(dbName)
	s.coll = s.database.Collection(cfg.Prop("table", "usertable"))
	return s, nil
}

// SetThreads sizes the connection pool for a phase of threads (one
// connection per worker past the driver's default of 100, unless the URI
// sets maxPoolSize): a client with another pool size replaces the store's.
func (s *store) SetThreads(ctx context.Context, threads int) error {
	cfg := s.cfg
	cfg.Threads = threads
	co, _, settings, err := clientOptions(cfg)
	if err != nil {
		return err
	}
	if settings["maxPoolSize"] == s.settings["maxPoolSize"] {
		s.cfg = cfg
		return nil
	}
	client, err := mongo.Connect(co)
	if err == nil {
		err = client.Ping(ctx, nil)
	}
	if err != nil {
		if client != nil {
			client.Disconnect(context.Background())
		}
		return badTarget(cfg.Target, err)
	}
	s.Close()
	s.cfg, s.settings, s.client = cfg, settings, client
	s.database = client.Database(s.database.Name())
	s.coll = s.database.Collection(s.coll.Name())
	return nil
}

func badTarget(target string, err error) error {
	msg := oneLine(err)
	if m := unreachable.FindAllStringSubmatch(msg, -1); strings.Contains(msg, "server selection error") && m != nil {
		var servers []string
		for _, s := range m {
			servers = append(servers, s[1]+": "+s[2])
		}
		msg = "no server reachable in time (" + strings.Join(servers, "; ") + ")"
	}
	return fmt.Errorf("target %s: %s", db.Redact(target), msg)
}

// unreachable picks each server and its last error out of the driver's
// server selection error.
var unreachable = regexp.MustCompile(`Addr: ([^,]+), Type: \w+, Last error: ([^}]+?) }`)

// clientOptions reads the URI: the driver's options with docbench's
// default write concern and pool size applied, the database, and the
// settings to record.
func clientOptions(cfg db.OpenRequest) (*options.ClientOptions, string, map[string]string, error) {
	target := cfg.Target
	if !strings.HasPrefix(target, "mongodb://") && !strings.HasPrefix(target, "mongodb+srv://") {
		return nil, "", nil, fmt.Errorf("target %q: want mongodb://… or mongodb+srv://… (a MongoDB URI)", db.Redact(target))
	}
	cs, err := connstring.ParseAndValidate(target)
	if err != nil {
		return nil, "", nil, badTarget(target, err)
	}
	co := options.Client().ApplyURI(target)
	if err := co.Validate(); err != nil {
		return nil, "", nil, badTarget(target, err)
	}
	settings := map[string]string{"writeConcernFrom": "URI"}
	if co.WriteConcern == nil {
		co.SetWriteConcern(DefaultWriteConcern())
		settings["writeConcernFrom"] = "docbench default (URI sets no w or journal): durable, like a synchronous SQL commit"
	}
	wc := co.WriteConcern
	settings["w"] = "server default"
	if wc.W != nil {
		settings["w"] = fmt.Sprint(wc.W)
	}
	settings["journal"] = "server default"
	if wc.Journal != nil {
		settings["journal"] = strconv.FormatBool(*wc.Journal)
	}
	settings["readConcernLevel"] = "server default"
	if co.ReadConcern != nil && co.ReadConcern.Level != "" {
		settings["readConcernLevel"] = co.ReadConcern.Level
	}
	if cs.ReadPreference != "" {
		settings["readPreference"] = cs.ReadPreference
	}
	// One client for all sessions, as MongoDB applications (and YCSB's
	// binding) use it: each in-flight operation takes a pooled connection,
	// so the pool must hold one connection per worker.
	if co.MaxPoolSize == nil && cfg.Threads > 100 {
		co.SetMaxPoolSize(uint64(cfg.Threads))
	}
	settings["maxPoolSize"] = "100 (driver default)"
	if co.MaxPoolSize != nil {
		settings["maxPoolSize"] = strconv.FormatUint(*co.MaxPoolSize, 10)
	}
	// The driver waits 30 s for a server it cannot reach, on every
	// operation: a benchmark wants to hear of a dead server in seconds.
	// serverSelectionTimeoutMS in the URI still wins.
	if co.ServerSelectionTimeout == nil {
		co.SetServerSelectionTimeout(DefaultServerSelectionTimeout)
	}
	settings["serverSelectionTimeout"] = co.ServerSelectionTimeout.String()
	dbName := cs.Database
	if dbName == "" {
		dbName = DefaultDatabase
	}
	return co, dbName, settings, nil
}

// DefaultServerSelectionTimeout bounds the wait for a reachable server
// when the URI sets no serverSelectionTimeoutMS.
const DefaultServerSelectionTimeout = 5 * time.Second

// DefaultWriteConcern is the write concern docbench uses when the URI sets
// none: w=1, j=true (see the package documentation).
func DefaultWriteConcern() *writeconcern.WriteConcern {
	j := true
	return &writeconcern.WriteConcern{W: 1, Journal: &j}
}

// oneLine flattens a driver error to one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

func (s *store) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.client.Disconnect(ctx)
}

// Setup drops (with recreate) and creates the collection and its secondary
// indexes: an ascending index on each dotted path, multikey when the path
// holds arrays (MongoDB makes that choice itself).
func (s *store) Setup(ctx context.Context, sc db.Schema, recreate bool) error {
	s.coll = s.database.Collection(sc.Table)
	name := s.database.Name() + "." + sc.Table
	m, exists, ours, err := s.mark(ctx, sc.Table)
	if err != nil {
		return err
	}
	drop, create, err := db.Claim(s.cfg, name, m, exists, ours, recreate)
	if drop {
		err = s.dropCollection(ctx, sc.Table)
	}
	if err != nil {
		return err
	}
	if create {
		// The mark first: a collection of docbench's never goes unmarked.
		if _, err := s.database.Collection(marks).ReplaceOne(ctx, bson.D{{Key: "_id", Value: sc.Table}},
			bson.D{{Key: "_id", Value: sc.Table}, {Key: "mark", Value: sc.Mark.Text()}},
			options.Replace().SetUpsert(true)); err != nil {
			return fmt.Errorf("mongodb setup: marking %s: %w", name, err)
		}
		if err := s.database.CreateCollection(ctx, sc.Table); err != nil {
			var ce mongo.CommandError
			if !errors.As(err, &ce) || ce.Code != 48 { // 48: NamespaceExists
				return fmt.Errorf("mongodb setup: create collection %s: %w", sc.Table, err)
			}
		}
	}
	if len(sc.Indexes) > 0 {
		models := make([]mongo.IndexModel, len(sc.Indexes))
		for i, ix := range sc.Indexes {
			models[i] = mongo.IndexModel{Keys: bson.D{{Key: ix.Path, Value: 1}}}
		}
		if _, err := s.coll.Indexes().CreateMany(ctx, models); err != nil {
			return fmt.Errorf("mongodb setup: create indexes on %s: %w", sc.Table, err)
		}
	}
	return nil
}

// marks is the collection where docbench records the collections it
// created in a database (collMod, and so collection metadata, is not
// everywhere): {_id: name, mark: db.Mark text}.
const marks = "docbench_collections"

// mark reads the mark of a collection: whether it exists (a view, too), and
// whether docbench created it.
func (s *store) mark(ctx context.Context, coll string) (m db.Mark, exists, ours bool, err error) {
	names, err := s.database.ListCollectionNames(ctx, bson.D{{Key: "name", Value: coll}})
	if err != nil {
		return m, false, false, fmt.Errorf("mongodb: looking for %s: %w", coll, err)
	}
	if !slices.Contains(names, coll) { // the wire peer lists every collection
		return m, false, false, nil
	}
	var doc struct {
		Mark string `bson:"mark"`
	}
	err = s.database.Collection(marks).FindOne(ctx, bson.D{{Key: "_id", Value: coll}}).Decode(&doc)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return m, true, false, fmt.Errorf("mongodb: reading the mark of %s: %w", coll, err)
	}
	m, ours = db.ParseMark(doc.Mark)
	return m, true, ours, nil
}

// dropCollection drops a collection of docbench's, then its mark.
func (s *store) dropCollection(ctx context.Context, coll string) error {
	if err := s.database.Collection(coll).Drop(ctx); err != nil {
		return fmt.Errorf("mongodb: drop %s: %w", coll, err)
	}
	if _, err := s.database.Collection(marks).DeleteOne(ctx, bson.D{{Key: "_id", Value: coll}}); err != nil {
		return fmt.Errorf("mongodb: drop the mark of %s: %w", coll, err)
	}
	return nil
}

var _ db.TableOwner = (*store)(nil)

// Owns reports *db.ErrNotOurs for a table that exists and that docbench
// did not create.
func (s *store) Owns(ctx context.Context, table string) error {
	m, exists, ours, err := s.mark(ctx, table)
	if err != nil {
		return err
	}
	_, _, err = db.Claim(s.cfg, s.database.Name()+"."+table, m, exists, ours, false)
	return err
}

// Drop drops the collection table when docbench created it.
func (s *store) Drop(ctx context.Context, table string) error {
	_, exists, ours, err := s.mark(ctx, table)
	switch {
	case err != nil || !exists:
		return err
	case !ours:
		return &db.ErrNotOurs{Table: s.database.Name() + "." + table}
	}
	return s.dropCollection(ctx, table)
}

var _ db.Remarker = (*store)(nil)

// ReadMark returns the mark of the collection table.
func (s *store) ReadMark(ctx context.Context, table string) (db.Mark, bool, error) {
	m, exists, ours, err := s.mark(ctx, table)
	return m, exists && ours, err
}

// Remark replaces the mark of the collection table.
func (s *store) Remark(ctx context.Context, table string, m db.Mark) error {
	if _, err := s.database.Collection(marks).UpdateOne(ctx, bson.D{{Key: "_id", Value: table}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "mark", Value: m.Text()}}}}); err != nil {
		return fmt.Errorf("mongodb: marking %s.%s: %w", s.database.Name(), table, err)
	}
	return nil
}

// Info reports the server version (buildInfo), storage engine and
// WiredTiger cache size (serverStatus; left out when the server does not
// report them, and noted when serverStatus is not permitted), topology, and
// the write/read concern in effect.
func (s *store) Info(ctx context.Context) (db.Info, error) {
	info := db.Info{Backend: "mongodb", Settings: map[string]string{}, Layout: map[string]string{
		"database":   s.database.Name(),
		"collection": s.coll.Name(),
		"key":        "_id (string, unique index)",
		"document":   "native BSON",
	}}
	for k, v := range s.settings {
		info.Settings[k] = v
	}
	if ixs, err := s.secondaryIndexes(ctx); err != nil {
		info.Layout["secondary_indexes"] = "unknown (" + oneLine(err) + ")"
	} else {
		db.SetIndexLayout(info.Layout, ixs)
	}
	admin := s.client.Database("admin")
	build, err := admin.RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Raw()
	if err != nil {
		return info, fmt.Errorf("mongodb buildInfo: %w", err)
	}
	if v, ok := build.Lookup("version").StringValueOK(); ok {
		info.Version = v
	}
	if v, ok := build.Lookup("gitVersion").StringValueOK(); ok {
		info.Settings["gitVersion"] = v
	}
	status, err := admin.RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		// e.g. a user without the clusterMonitor role: say so, go on
		info.Settings["serverStatus"] = "unavailable: " + oneLine(err)
		status = nil
	}
	process, _ := status.Lookup("process").StringValueOK()
	if process == "java" {
		// mongo-java-server: its numbers are never MongoDB's.
		info.Settings["server"] = PeerServer
		info.Version += " (mongo-java-server peer)"
	} else if process != "" {
		info.Settings["server"] = process
	}
	if v, ok := status.Lookup("storageEngine", "name").StringValueOK(); ok {
		info.Settings["storageEngine"] = v
	}
	if v, ok := numberValue(status.Lookup("wiredTiger", "cache", "maximum bytes configured")); ok {
		info.Settings["wiredTigerCacheSizeBytes"] = v
	}
	var hello bson.Raw
	if hello, err = admin.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Raw(); err == nil {
		msg, _ := hello.Lookup("msg").StringValueOK()
		set, isSet := hello.Lookup("setName").StringValueOK()
		switch {
		case msg == "isdbgrid":
			info.Settings["topology"] = "sharded (mongos)"
			// The cluster's shard count, as the router says it (needs the
			// clusterMonitor role; left out otherwise). Unverified here: no
			// sharded cluster can run on the test machines.
			if ls, err := admin.RunCommand(ctx, bson.D{{Key: "listShards", Value: 1}}).Raw(); err == nil {
				if arr, ok := ls.Lookup("shards").ArrayOK(); ok {
					if vals, err := arr.Values(); err == nil {
						info.Settings["shards"] = fmt.Sprint(len(vals))
					}
				}
			}
		case isSet:
			info.Settings["topology"] = "replica set " + set
		default:
			info.Settings["topology"] = "standalone"
		}
	}
	return info, nil
}

// numberValue renders an int32, int64 or double as an integer string.
func numberValue(v bson.RawValue) (string, bool) {
	switch v.Type {
	case bson.TypeInt32:
		return strconv.FormatInt(int64(v.Int32()), 10), true
	case bson.TypeInt64:
		return strconv.FormatInt(v.Int64(), 10), true
	case bson.TypeDouble:
		return strconv.FormatFloat(v.Double(), 'f', -1, 64), true
	}
	return "", false
}

func (s *store) NewSession(ctx context.Context) (db.Session, error) {
	return newSession(s.coll), nil
}

// secondaryIndexes reads the collection's indexes (listIndexes) but _id's:
// one ascending key is its path, another key pattern is its definition.
func (s *store) secondaryIndexes(ctx context.Context) ([]db.CatalogIndex, error) {
	cur, err := s.coll.Indexes().List(ctx)
	if err != nil {
		return nil, fmt.Errorf("mongodb listIndexes: %w", err)
	}
	defer cur.Close(ctx)
	var out []db.CatalogIndex
	for cur.Next(ctx) {
		name, _ := cur.Current.Lookup("name").StringValueOK()
		key, ok := cur.Current.Lookup("key").DocumentOK()
		if name == "_id_" || !ok {
			continue
		}
		elems, err := key.Elements()
		if err != nil {
			return nil, fmt.Errorf("mongodb listIndexes: %w", err)
		}
		var parts []string
		for _, e := range elems {
			v, ok := e.Value().StringValueOK() // "text", "hashed", "2dsphere"
			if n, isNum := num(e.Value()); isNum {
				v, ok = strconv.FormatFloat(n, 'g', -1, 64), true
			}
			if !ok {
				v = e.Value().String()
			}
			parts = append(parts, e.Key()+": "+v)
		}
		def := "{" + strings.Join(parts, ", ") + "}"
		if len(elems) == 1 {
			if n, ok := num(elems[0].Value()); ok && n == 1 {
				out = append(out, db.CatalogIndex{Path: elems[0].Key(), Def: def})
				continue
			}
		}
		out = append(out, db.CatalogIndex{Def: def})
	}
	return out, cur.Err()
}
