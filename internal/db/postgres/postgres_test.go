package postgres

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/db/netio"
	"github.com/docbench/docbench/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// servers are the real PostgreSQL servers every test runs against.
var servers = []string{"embedded", "debian"}

func openStore(t *testing.T, url string, props map[string]string) *store {
	t.Helper()
	st, err := db.Open(context.Background(), db.OpenRequest{Target: url, Props: props})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.(*store)
}

// openSession creates the table with the given fields on st and opens a
// session, closed when the test ends.
func openSession(tb testing.TB, ctx context.Context, st db.Store, fields ...string) db.Session {
	tb.Helper()
	return dbtest.Session(tb, ctx, st, db.Schema{Table: "usertable", Fields: fields})
}

func TestConformance(t *testing.T) {
	variants := map[string]map[string]string{
		"column":                  {"layout": "column"},
		"column-json":             {"layout": "column", "doctype": "json"},
		"column-text":             {"layout": "column", "doctype": "text"},
		"text-pathop-arrow":       {"doctype": "text", "pg.pathop": "arrow"},
		"text-pathop-subscript":   {"doctype": "text", "pg.pathop": "subscript"},
		"document":                {"layout": "document"},
		"document-json":           {"layout": "document", "doctype": "json"},
		"document-gin":            {"layout": "document", "index": "gin"},
		"document-gin_path_ops":   {"layout": "document", "index": "gin_path_ops", "pg.keylookup": "build_object"},
		"document-jsonpath":       {"layout": "document", "index": "gin", "pg.keylookup": "jsonpath"},
		"document-none":           {"layout": "document", "index": "none"},
		"relational":              {"layout": "relational"},
		"column-external-storage": {"layout": "column", "pg.storage": "external"},
		"pathop-arrow":            {"pg.pathop": "arrow", "pg.arrayop": "jsonpath_match"},
		"pathop-subscript":        {"pg.pathop": "subscript", "pg.arrayop": "jsonpath_exists"},
		"pathop-jsonpath":         {"pg.pathop": "jsonpath", "pg.arrayop": "exists"},
		"column-poller":           {"layout": "column", "pg.blockingio": "false"},
		"column-netio":            {"layout": "column", "pg.blockingio": "false", "pg.rawio": "false"},
	}
	for _, kind := range servers {
		for name, props := range variants {
			t.Run(kind+"/"+name, func(t *testing.T) {
				url := testutil.FreshDatabase(t, testutil.Postgres(t, kind))
				dbtest.Run(t, openStore(t, url, props))
			})
		}
	}
}

// catalog returns the definitions of the table's columns and indexes.
func catalog(t *testing.T, conn *pgx.Conn) (cols, indexes []string) {
	t.Helper()
	rows, err := conn.Query(context.Background(), `
		SELECT a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'docbench' AND c.relname = 'usertable' AND a.attnum > 0 AND NOT a.attisdropped
		ORDER BY a.attnum`)
	if err != nil {
		t.Fatal(err)
	}
	cols, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	rows, err = conn.Query(context.Background(), `SELECT indexdef FROM pg_indexes WHERE schemaname = 'docbench' AND tablename = 'usertable' ORDER BY indexname`)
	if err != nil {
		t.Fatal(err)
	}
	indexes, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return cols, indexes
}

func TestLayoutsCreateWhatTheyPromise(t *testing.T) {
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	for _, tc := range []struct {
		layout  string
		cols    []string
		indexes []string
	}{
		{"column", []string{"ycsb_key text", "data jsonb"},
			[]string{"CREATE UNIQUE INDEX usertable_pkey ON docbench.usertable USING btree (ycsb_key)"}},
		{"document", []string{"data jsonb"},
			[]string{"CREATE INDEX usertable_ycsb_key ON docbench.usertable USING btree (((data ->> 'YCSB_KEY'::text)))"}},
		{"document index=gin", []string{"data jsonb"},
			[]string{"CREATE INDEX usertable_gin ON docbench.usertable USING gin (data)"}},
		{"document index=gin_path_ops", []string{"data jsonb"},
			[]string{"CREATE INDEX usertable_gin_path_ops ON docbench.usertable USING gin (data jsonb_path_ops)"}},
		{"document index=none doctype=json", []string{"data json"}, nil},
		{"relational", []string{"ycsb_key text", "field0 text", "field1 text", "field2 text"},
			[]string{"CREATE UNIQUE INDEX usertable_pkey ON docbench.usertable USING btree (ycsb_key)"}},
	} {
		t.Run(tc.layout, func(t *testing.T) {
			props := map[string]string{}
			for i, f := range strings.Fields(tc.layout) {
				if i == 0 {
					props["layout"] = f
				} else {
					k, v, _ := strings.Cut(f, "=")
					props[k] = v
				}
			}
			st := openStore(t, url, props)
			if err := st.Setup(context.Background(), db.Schema{Table: "usertable", Fields: dbtest.Fields}, true); err != nil {
				t.Fatal(err)
			}
			cols, idx := catalog(t, st.admin)
			if !equal(cols, tc.cols) || !equal(idx, tc.indexes) {
				t.Fatalf("catalog: columns %q indexes %q\nwant columns %q indexes %q", cols, idx, tc.cols, tc.indexes)
			}
		})
	}
}

func TestSecondaryIndexesAndChildTables(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	st := openStore(t, url, map[string]string{"layout": "relational"})
	sc := db.Schema{Table: "usertable", Columns: dbtest.Columns,
		Indexes: []db.Index{{Path: "score"}, {Path: "items.term", Array: true}, {Path: "address.city"}}}
	if err := st.Setup(ctx, sc, true); err != nil {
		t.Fatal(err)
	}
	var defs []string
	rows, _ := st.admin.Query(ctx, `SELECT indexdef FROM pg_indexes WHERE schemaname = 'docbench' AND indexname LIKE '%idx%' ORDER BY indexname`)
	defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"CREATE INDEX usertable_idx0 ON docbench.usertable USING btree (score)",
		"CREATE INDEX usertable_idx1 ON docbench.usertable__items USING btree (term)",
		"CREATE INDEX usertable_idx2 ON docbench.usertable USING btree (((address #> '{city}'::text[])))",
	}
	if !equal(defs, want) {
		t.Fatalf("indexes %q\nwant %q", defs, want)
	}
	st2 := openStore(t, testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")), map[string]string{"layout": "column"})
	if err := st2.Setup(ctx, db.Schema{Table: "usertable", Indexes: []db.Index{{Path: "tags", Array: true}, {Path: "address.city"}}}, true); err != nil {
		t.Fatal(err)
	}
	rows, _ = st2.admin.Query(ctx, `SELECT indexdef FROM pg_indexes WHERE schemaname = 'docbench' AND indexname LIKE '%idx%' ORDER BY indexname`)
	defs, _ = pgx.CollectRows(rows, pgx.RowTo[string])
	want = []string{
		"CREATE INDEX usertable_idx0 ON docbench.usertable USING gin (((data #> '{tags}'::text[])) jsonb_path_ops)",
		"CREATE INDEX usertable_idx1 ON docbench.usertable USING btree (((data #> '{address,city}'::text[])))",
	}
	if !equal(defs, want) {
		t.Fatalf("indexes %q\nwant %q", defs, want)
	}
}

// The zonky build has no lz4; Debian's PostgreSQL 15 has it.
func TestCompressionAndStorage(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")), map[string]string{"pg.compression": "lz4"})
	err := st.Setup(ctx, db.Schema{Table: "usertable"}, true)
	if err == nil || !strings.Contains(err.Error(), "pg.compression=lz4: this server cannot") {
		t.Fatalf("lz4 on a server without it: %v", err)
	}
	st = openStore(t, testutil.FreshDatabase(t, testutil.Postgres(t, "debian")), map[string]string{"pg.compression": "lz4", "pg.storage": "main"})
	if err := st.Setup(ctx, db.Schema{Table: "usertable"}, true); err != nil {
		t.Fatal(err)
	}
	var comp, storage string
	if err := st.admin.QueryRow(ctx, `SELECT attcompression::text, attstorage::text FROM pg_attribute WHERE attrelid = 'docbench.usertable'::regclass AND attname = 'data'`).Scan(&comp, &storage); err != nil {
		t.Fatal(err)
	}
	if comp != "l" || storage != "m" {
		t.Fatalf("attcompression %q attstorage %q, want l (lz4) and m (main)", comp, storage)
	}
}

func TestDocumentLayoutKeepsKeyInside(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	st := openStore(t, url, map[string]string{"layout": "document"})
	if err := st.Setup(ctx, db.Schema{Table: "usertable"}, true); err != nil {
		t.Fatal(err)
	}
	s, err := st.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Insert(ctx, []byte("user1"), []byte(`{"field0":"a"}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.(db.BatchInserter).InsertBatch(ctx, [][]byte{[]byte("user2")}, [][]byte{[]byte(`{"field0":"b"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, []byte("user2"), &db.Update{Mode: db.Replace, Doc: []byte(`{"field0":"c"}`)}); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.admin.QueryRow(ctx, `SELECT count(*) FROM docbench.usertable WHERE data->>'YCSB_KEY' IN ('user1','user2') AND data ? 'field0'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("%d documents carry their YCSB_KEY, want 2", n)
	}
}

func TestInfoReportsSettings(t *testing.T) {
	for _, kind := range servers {
		t.Run(kind, func(t *testing.T) {
			url := testutil.FreshDatabase(t, testutil.Postgres(t, kind))
			// A server docbench does not manage: server.* becomes a session setting.
			st := openStore(t, url, map[string]string{"server.synchronous_commit": "off"})
			info, err := st.Info(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if info.Version == "" || info.Settings["synchronous_commit"] != "off" || info.Settings["shared_buffers"] == "" || info.Settings["fsync"] == "" {
				t.Fatalf("info %+v: want version, synchronous_commit=off, shared_buffers, fsync", info)
			}
		})
	}
}

func TestBadTargetsAndOptions(t *testing.T) {
	ctx := context.Background()
	for target, props := range map[string]map[string]string{
		"postgres:nonsense":                          nil,
		"postgres://127.0.0.1:1/x?connect_timeout=2": nil,
		"postgres://127.0.0.1/x":                     {"layout": "sideways"},
	} {
		if _, err := db.Open(ctx, db.OpenRequest{Target: target, Props: props}); err == nil {
			t.Errorf("Open(%s, %v) succeeded", target, props)
		} else {
			t.Logf("%s: %v", target, err)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// BenchmarkSession measures the client side of the core operations on a
// real server: ns/op includes the round trip, allocs/op is docbench's and
// the driver's. The operations run under a cancellable context, as a run's
// workers do: a context that can never be done would skip the drivers'
// watch of it.
func BenchmarkSession(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url := testutil.FreshDatabase(b, testutil.Postgres(b, "debian"))
	st, err := db.Open(ctx, db.OpenRequest{Target: url})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() }) // after the session's
	sess := openSession(b, ctx, st, "field0")
	key, doc := []byte("user1"), []byte(`{"field0":"`+strings.Repeat("x", 100)+`"}`)
	if err := sess.Insert(ctx, key, doc); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 4096)
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if buf, err = sess.Read(ctx, key, nil, buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
	u := &db.Update{Mode: db.Merge, Doc: doc}
	b.Run("update", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := sess.Update(ctx, key, u); err != nil {
				b.Fatal(err)
			}
		}
	})
	var n int
	b.Run("insert", func(b *testing.B) {
		b.ReportAllocs()
		k := make([]byte, 0, 32)
		for b.Loop() {
			n++
			k = strconv.AppendInt(append(k[:0], "new"...), int64(n), 10)
			if err := sess.Insert(ctx, k, doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A blocking connection (pg.io=blocking) still honours a cancelled context:
// the statement stops long before it would have finished.
func TestBlockingIOCancels(t *testing.T) {
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "debian"))
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DialFunc = netio.Dial(netio.Blocking, cfg.DialFunc)
	conn, err := pgconn.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, ok := conn.Conn().(*netio.BlockingConn); !ok {
		t.Fatalf("connection is a %T, not a blocking one", conn.Conn())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelWhenRunning(t, url, "SELECT pg_sleep(30)", cancel)
	start := time.Now()
	_, err = conn.Exec(ctx, "SELECT pg_sleep(30)").ReadAll()
	if err == nil {
		t.Fatal("pg_sleep(30) finished under a context cancelled while it ran")
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("cancelled after %s", el)
	}
}

// TestConnectErrorOneLine: an unreachable server gives one clean line: no
// stray ":;", each attempt's dial error once.
func TestConnectErrorOneLine(t *testing.T) {
	_, err := db.Open(context.Background(), db.OpenRequest{Target: "postgres://u:secret@127.0.0.1:1/db?connect_timeout=2"})
	if err == nil {
		t.Fatal("connected to port 1")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || strings.Contains(msg, ":;") || strings.Contains(msg, "secret") ||
		strings.Count(msg, "connection refused") != 1 {
		t.Errorf("connection error: %q", msg)
	}
}

// TestTextDoctypeNeedsColumnLayout: JSON as text is a document column of
// layout=column; the other layouts are refused with one line.
func TestTextDoctypeNeedsColumnLayout(t *testing.T) {
	for _, layout := range []string{"document", "relational"} {
		_, err := parseVariant(db.OpenRequest{Props: map[string]string{"doctype": "text", "layout": layout}})
		want := "property doctype=text: the document column of layout=column (layout is " + layout + ")"
		if err == nil || err.Error() != want {
			t.Errorf("layout=%s: err = %v, want %s", layout, err, want)
		}
	}
}
