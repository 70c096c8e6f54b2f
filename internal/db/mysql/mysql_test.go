package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

func openStore(t *testing.T, url string, props map[string]string) *store {
	t.Helper()
	st, err := db.Open(context.Background(), db.OpenRequest{Target: url, Props: props})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.(*store)
}

// servers are the servers the backend's tests run against: MariaDB 10.11
// of the local install, and go-mysql-server, the MySQL 8 peer.
var servers = []struct {
	name string
	url  func(testing.TB) string
}{
	{"mariadb", testutil.MariaDB},
	{"mysql8peer", testutil.MySQLPeer},
}

func TestConformance(t *testing.T) {
	for _, srv := range servers {
		for _, layout := range []string{layoutGenerated, layoutColumn} {
			t.Run(srv.name+"/"+layout, func(t *testing.T) {
				url := testutil.FreshMySQLDatabase(t, srv.url(t))
				dbtest.Run(t, openStore(t, url, map[string]string{"layout": layout}))
			})
		}
		t.Run(srv.name+"/poller", func(t *testing.T) {
			url := testutil.FreshMySQLDatabase(t, srv.url(t))
			dbtest.Run(t, openStore(t, url, map[string]string{"mysql.blockingio": "false"}))
		})
		t.Run(srv.name+"/net", func(t *testing.T) {
			url := testutil.FreshMySQLDatabase(t, srv.url(t))
			dbtest.Run(t, openStore(t, url, map[string]string{"mysql.rawio": "false"}))
		})
	}
}

// cancelWhenRunning calls cancel once the server shows query running on
// another connection (the process list): the statement is in flight, not
// still on its way.
func cancelWhenRunning(t *testing.T, st *store, query string, cancel func()) {
	t.Helper()
	go func() {
		defer cancel()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			var n int
			if err := st.sqlDB.QueryRow(`SELECT count(*) FROM information_schema.PROCESSLIST
				WHERE INFO = ? AND ID <> CONNECTION_ID()`, query).Scan(&n); err != nil {
				t.Errorf("process list: %v", err)
				return
			}
			if n > 0 {
				return
			}
		}
	}()
}

// A session's statements honour their context in every I/O mode (given by
// the older names here, as study files may): cancelling interrupts the
// statement in flight; a statement under a context already cancelled is
// not sent.
func TestStatementsHonourTheirContext(t *testing.T) {
	for _, io := range []struct{ rawio, blockingio string }{{"true", "true"}, {"true", "false"}, {"false", "true"}} {
		rawio := io.rawio
		t.Run("rawio="+rawio+",blockingio="+io.blockingio, func(t *testing.T) {
			st := openStore(t, testutil.FreshMySQLDatabase(t, testutil.MariaDB(t)), map[string]string{"mysql.rawio": rawio, "mysql.blockingio": io.blockingio})
			bg := context.Background()
			if err := st.Setup(bg, db.Schema{Table: "usertable", Fields: []string{"field0"}}, true); err != nil {
				t.Fatal(err)
			}
			sess, err := st.NewSession(bg)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			if sess.(*session).Watch == nil {
				t.Fatal("the session does not watch its own context")
			}
			stmts := sess.(db.Statementer)
			ctx, cancel := context.WithCancel(bg)
			// Named after the subtest: an earlier one's SLEEP may still run.
			sleep := "SELECT SLEEP(30) /* " + t.Name() + " */"
			cancelWhenRunning(t, st, sleep, cancel)
			start := time.Now()
			if _, err := stmts.Statement(ctx, sleep, nil); !errors.Is(err, context.Canceled) {
				t.Fatalf("SLEEP(30) cancelled while running: err %v, want context.Canceled", err)
			}
			if el := time.Since(start); el > 10*time.Second {
				t.Fatalf("cancelled after %s", el)
			}
			if _, err := sess.Read(ctx, []byte("user1"), nil, nil); !errors.Is(err, context.Canceled) {
				t.Fatalf("read under a cancelled context: err %v, want context.Canceled", err)
			}
		})
	}
}

// query runs a catalog query returning strings, one row per line, columns
// separated by " ".
func query(t *testing.T, st *store, q string, args ...any) []string {
	t.Helper()
	rows, err := st.sqlDB.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		strs := make([]string, len(cols))
		for i, v := range vals {
			strs[i] = v.String // NULL: ""
		}
		out = append(out, strings.Join(strs, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLayoutsCreateWhatTheyPromise(t *testing.T) {
	url := testutil.FreshMySQLDatabase(t, testutil.MariaDB(t))
	schema := db.Schema{Table: "usertable", Fields: dbtest.Fields, Columns: []db.Column{{Name: "n", Type: "integer"}},
		Indexes: []db.Index{{Path: "address.zip"}, {Path: "n"}, {Path: "tags", Array: true}}}
	for _, tc := range []struct {
		layout  string
		cols    []string
		indexes []string
	}{
		{layoutGenerated,
			[]string{
				"data longtext  ",
				"ycsb_key varchar STORED GENERATED json_unquote(json_extract(`data`,'$.YCSB_KEY'))",
				"ix_address_zip_ varchar VIRTUAL GENERATED json_unquote(json_extract(`data`,'$.address.zip')) docbench path: address.zip",
				"ix_n double VIRTUAL GENERATED cast(json_extract(`data`,'$.n') as double) docbench path: n",
			},
			[]string{"ix_address_zip_ 1 ix_address_zip_", "ix_n 1 ix_n", "ycsb_key 0 ycsb_key"}},
		{layoutColumn,
			[]string{
				"ycsb_key varchar  ",
				"data longtext  ",
				"ix_address_zip_ varchar VIRTUAL GENERATED json_unquote(json_extract(`data`,'$.address.zip')) docbench path: address.zip",
				"ix_n double VIRTUAL GENERATED cast(json_extract(`data`,'$.n') as double) docbench path: n",
			},
			[]string{"PRIMARY 0 ycsb_key", "ix_address_zip_ 1 ix_address_zip_", "ix_n 1 ix_n"}},
	} {
		t.Run(tc.layout, func(t *testing.T) {
			st := openStore(t, url, map[string]string{"layout": tc.layout})
			if err := st.Setup(context.Background(), schema, true); err != nil {
				t.Fatal(err)
			}
			cols := query(t, st, `SELECT COLUMN_NAME, DATA_TYPE, REPLACE(EXTRA, ' GENERATED', ''),
				IF(GENERATION_EXPRESSION IS NULL OR GENERATION_EXPRESSION = '', '', CONCAT('GENERATED ', GENERATION_EXPRESSION)),
				COLUMN_COMMENT
				FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'usertable' ORDER BY ORDINAL_POSITION`, st.dbName)
			idx := query(t, st, `SELECT INDEX_NAME, NON_UNIQUE, COLUMN_NAME FROM information_schema.STATISTICS
				WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'usertable' ORDER BY INDEX_NAME = 'PRIMARY' DESC, INDEX_NAME`, st.dbName)
			// ix_address_zip_<hash>: compare up to the hash.
			for i, c := range cols {
				cols[i] = trimHash(c)
			}
			for i, c := range idx {
				idx[i] = trimHash(c)
			}
			for i := range cols {
				cols[i] = strings.Join(strings.Fields(cols[i]), " ")
			}
			want := slices.Clone(tc.cols)
			for i := range want {
				want[i] = strings.Join(strings.Fields(want[i]), " ")
			}
			if !reflect.DeepEqual(cols, want) || !reflect.DeepEqual(idx, tc.indexes) {
				t.Fatalf("catalog:\ncolumns %q\nindexes %q\nwant columns %q\nindexes %q", cols, idx, want, tc.indexes)
			}
			// A store opened later (run after load) finds the index columns.
			st2 := openStore(t, url, map[string]string{"layout": tc.layout})
			if err := st2.loadIndexes(context.Background()); err != nil {
				t.Fatal(err)
			}
			if len(st2.indexes) != 2 || st2.indexes["n"] != (indexCol{"ix_n", true}) || !strings.HasPrefix(st2.indexes["address.zip"].col, "ix_address_zip_") {
				t.Errorf("indexes read back: %v", st2.indexes)
			}
			// MariaDB has no multi-valued index for tags: Info says so.
			info, err := st.Info(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(info.Layout["index tags"], "none:") || !strings.Contains(info.Layout["index n"], "DOUBLE") {
				t.Errorf("Info layout %v: want tags without index, n DOUBLE", info.Layout)
			}
		})
	}
}

// trimHash drops the 8 hex digits after "ix_address_zip_".
func trimHash(s string) string { return hashed.ReplaceAllString(s, "ix_address_zip_") }

var hashed = regexp.MustCompile(`ix_address_zip_[0-9a-f]{8}`)

func TestGeneratedLayoutKeepsKeyInside(t *testing.T) {
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) { testGeneratedLayout(t, srv.url) })
	}
}

func testGeneratedLayout(t *testing.T, server func(testing.TB) string) {
	ctx := context.Background()
	url := testutil.FreshMySQLDatabase(t, server(t))
	st := openStore(t, url, nil) // generated is the default
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
	if err := s.(db.BatchInserter).InsertBatch(ctx, [][]byte{[]byte("user2"), []byte("user3")}, [][]byte{[]byte(`{"field0":"b"}`), []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, []byte("user2"), &db.Update{Mode: db.Replace, Doc: []byte(`{"field0":"c"}`)}); err != nil {
		t.Fatal(err)
	}
	got := query(t, st, "SELECT ycsb_key, JSON_UNQUOTE(JSON_EXTRACT(data, '$.YCSB_KEY')) FROM "+st.table+" ORDER BY ycsb_key")
	if want := []string{"user1 user1", "user2 user2", "user3 user3"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("keys in column and document: %q, want %q", got, want)
	}
	doc, err := s.Read(ctx, []byte("user2"), nil, nil)
	if err != nil || string(doc) != `{"field0": "c"}` {
		t.Fatalf("Read = %s, %v; want the document without YCSB_KEY", doc, err)
	}
	// An update that writes the same value still finds the row.
	for range 2 {
		if err := s.Update(ctx, []byte("user1"), &db.Update{Mode: db.Merge, Doc: []byte(`{"field0":"same"}`)}); err != nil {
			t.Fatalf("update to the same value: %v", err)
		}
	}
	if err := s.Delete(ctx, []byte("nokey")); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("Delete missing = %v, want ErrNotFound", err)
	}
}

func TestDialectDetection(t *testing.T) {
	for v, want := range map[string]dialect{
		"10.11.19-MariaDB-0+deb12u1": {mariadb: true, major: 10},
		"8.0.36":                     {major: 8, memberOf: true},
		"8.0.16-log":                 {major: 8},
		"8.4.3":                      {major: 8, memberOf: true},
		"9.1.0-commercial":           {major: 9, memberOf: true},
		"5.7.44":                     {major: 5},
		"11.4.2-MariaDB":             {mariadb: true, major: 11},
	} {
		want.version = v
		if got := detect(v); got != want {
			t.Errorf("detect(%q) = %+v, want %+v", v, got, want)
		}
	}
	st := openStore(t, testutil.MariaDB(t), nil)
	if !st.d.mariadb || st.d.memberOf || st.d.jsonArg() != "JSON_EXTRACT(?, '$')" {
		t.Errorf("local MariaDB detected as %+v", st.d)
	}
}

func TestInfoReportsSettings(t *testing.T) {
	url := testutil.FreshMySQLDatabase(t, testutil.MariaDB(t))
	st := openStore(t, url, map[string]string{"layout": layoutColumn})
	info, err := st.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", info)
	if info.Backend != "mysql" || !strings.Contains(info.Version, "MariaDB") || info.Settings["flavour"] != "mariadb" {
		t.Errorf("info %+v: want backend mysql, a MariaDB version, flavour mariadb", info)
	}
	// testutil starts MariaDB with innodb_flush_log_at_trx_commit=0.
	if info.Settings["innodb_flush_log_at_trx_commit"] != "0" {
		t.Errorf("innodb_flush_log_at_trx_commit = %q, want 0", info.Settings["innodb_flush_log_at_trx_commit"])
	}
	for _, name := range []string{"sync_binlog", "log_bin", "binlog_format", "innodb_buffer_pool_size",
		"innodb_doublewrite", "innodb_log_file_size", "transaction_isolation"} {
		if info.Settings[name] == "" {
			t.Errorf("setting %s not reported", name)
		}
	}
	if info.Layout["layout"] != layoutColumn || info.Layout["key"] == "" {
		t.Errorf("layout %v", info.Layout)
	}
}

// TestQueries plants documents and checks every query kind returns them, on
// indexed and unindexed paths, on both servers.
func TestQueries(t *testing.T) {
	for _, srv := range servers {
		for _, indexed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/indexed=%v", srv.name, indexed), func(t *testing.T) {
				testQueries(t, srv.url, indexed)
			})
		}
	}
}

func testQueries(t *testing.T, server func(testing.TB) string, indexed bool) {
	ctx := context.Background()
	{
		{
			url := testutil.FreshMySQLDatabase(t, server(t))
			st := openStore(t, url, nil)
			schema := db.Schema{Table: "usertable"}
			if indexed {
				schema.Indexes = []db.Index{{Path: "address.zip"}, {Path: "city"}, {Path: "n"}}
				schema.Columns = []db.Column{{Name: "n", Type: "integer"}}
			}
			if err := st.Setup(ctx, schema, true); err != nil {
				t.Fatal(err)
			}
			s, err := st.NewSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var keys, docs [][]byte
			for i := range 20 {
				keys = append(keys, fmt.Appendf(nil, "user%02d", i))
				docs = append(docs, fmt.Appendf(nil, `{"city":"c%d","address":{"zip":"z%02d"},"n":%d,"tags":["t%d","all"],"flag":%v}`,
					i%4, i, i, i%3, i%2 == 0))
			}
			if err := s.(db.BatchInserter).InsertBatch(ctx, keys, docs); err != nil {
				t.Fatal(err)
			}
			qr := s.(db.Querier)
			for _, tc := range []struct {
				q    db.Query
				want int
			}{
				{db.Query{Kind: db.QueryField, Path: "address.zip", Value: []byte(`"z07"`)}, 1},
				{db.Query{Kind: db.QueryField, Path: "city", Value: []byte(`"c1"`), Fields: []string{"address.zip", "n"}}, 5},
				{db.Query{Kind: db.QueryField, Path: "city", Value: []byte(`"c1"`), Limit: 2}, 2},
				{db.Query{Kind: db.QueryArray, Path: "tags", Value: []byte(`"all"`), Limit: 5, Offset: 17}, 3},
				{db.Query{Kind: db.QueryField, Path: "n", Value: []byte(`7`)}, 1},
				{db.Query{Kind: db.QueryField, Path: "flag", Value: []byte(`true`)}, 10},
				{db.Query{Kind: db.QueryField, Path: "city", Value: []byte(`"nowhere"`)}, 0},
				{db.Query{Kind: db.QueryContains, Value: []byte(`{"city":"c2","tags":["t0"]}`)}, 2}, // i=2 (t2) no; i=6 t0,c2; i=18 t0,c2
				{db.Query{Kind: db.QueryContains, Path: "address", Value: []byte(`{"zip":"z03"}`)}, 1},
				{db.Query{Kind: db.QueryArray, Path: "tags", Value: []byte(`"t1"`)}, 7},
				{db.Query{Kind: db.QueryArray, Path: "tags", Value: []byte(`"all"`)}, 20},
				{db.Query{Kind: db.QueryRange, Path: "address.zip", Value: []byte(`"z15"`)}, 5},
				{db.Query{Kind: db.QueryRange, Path: "address.zip", Value: []byte(`"z05"`), Limit: 4, Offset: 2}, 4},
				{db.Query{Kind: db.QueryRange, Path: "n", Value: []byte(`17`), Fields: []string{"n"}}, 3},
				{db.Query{Kind: db.QueryRange, Path: "n", Value: []byte(`2`), Limit: 100, Offset: 15}, 3},
				{db.Query{Kind: db.QueryAggregate, Path: "city", AggPath: "n", Func: "avg"}, 4},
				{db.Query{Kind: db.QueryAggregate, Path: "flag", AggPath: "n", Func: "sum"}, 2},
				{db.Query{Kind: db.QueryAggregate, Path: "city", Func: "count"}, 4},
			} {
				for range 2 { // the second run uses the prepared statement
					n, err := qr.Query(ctx, &tc.q)
					if err != nil || n != tc.want {
						t.Errorf("%v %s %s = %d, %v; want %d", tc.q.Kind, tc.q.Path, tc.q.Value, n, err, tc.want)
					}
				}
			}
			// The rows are the planted ones, in order: check through SQL the
			// query produced.
			ss := s.(*session)
			text, _, err := ss.querySQL(&db.Query{Kind: db.QueryRange, Path: "address.zip"}, classString)
			if err != nil {
				t.Fatal(err)
			}
			got := query(t, st, text, "z10", 3, 1)
			var zips []string
			for _, d := range got {
				var m struct{ Address struct{ Zip string } }
				if err := json.Unmarshal([]byte(d), &m); err != nil {
					t.Fatal(err)
				}
				zips = append(zips, m.Address.Zip)
			}
			if want := []string{"z11", "z12", "z13"}; !reflect.DeepEqual(zips, want) {
				t.Errorf("range rows %q, want %q", zips, want)
			}
			if indexed && st.d.compat != "" && !strings.Contains(text, "`ix_address_zip_") {
				t.Errorf("indexed range query does not name the generated column: %s", text)
			}
			if indexed && st.d.compat == "" { // the peer has no EXPLAIN of this shape
				if !strings.Contains(text, "`ix_address_zip_") {
					t.Errorf("indexed range query does not name the generated column: %s", text)
				}
				plan := query(t, st, "EXPLAIN "+text, "z10", 3, 0)
				if len(plan) != 1 || !strings.Contains(plan[0], "ix_address_zip_") {
					t.Errorf("plan does not use the index: %q", plan)
				}
				// A numeric range uses the DOUBLE column.
				text, _, err := ss.querySQL(&db.Query{Kind: db.QueryRange, Path: "n"}, classNumber)
				if err != nil {
					t.Fatal(err)
				}
				plan = query(t, st, "EXPLAIN "+text, 17, 3, 0)
				if !strings.Contains(text, "`ix_n`") || len(plan) != 1 || !strings.Contains(plan[0], " ix_n ") {
					t.Errorf("numeric range %s: plan %q does not use ix_n", text, plan)
				}
			}
		}
	}
}

func TestBadTargetsAndOptions(t *testing.T) {
	ctx := context.Background()
	for target, props := range map[string]map[string]string{
		"mysql:nonsense":                        nil,
		"mariadb:/tmp/x":                        nil,
		"mysql://root:secret@127.0.0.1:1/x":     nil,
		"mysql://127.0.0.1:99999/x":             nil,
		"mysql://127.0.0.1/x?timeout=forever":   nil,
		"mysql://127.0.0.1/a/b":                 nil,
		"mysql://127.0.0.1/x":                   {"layout": "sideways"},
		"mariadb://root:pw@127.0.0.1:1/x?a=%zz": nil,
	} {
		_, err := db.Open(ctx, db.OpenRequest{Target: target, Props: props})
		if err == nil {
			t.Errorf("Open(%s, %v) succeeded", target, props)
			continue
		}
		t.Logf("%s: %v", target, err)
		if msg := err.Error(); strings.Contains(msg, "\n") || strings.Contains(msg, "secret") || strings.Contains(msg, ":pw@") {
			t.Errorf("Open(%s): error is not one line without the password: %q", target, msg)
		}
	}
}

// TestLocalTarget opens "mariadb:local": a private server started for the
// store, with server.* as its settings, stopped by Close.
func TestLocalTarget(t *testing.T) {
	ctx := context.Background()
	testutil.MariaDB(t) // skips (or fails in CI) when MariaDB cannot start
	st, err := db.Open(ctx, db.OpenRequest{Target: Local, Props: map[string]string{"server.innodb_flush_log_at_trx_commit": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Settings["innodb_flush_log_at_trx_commit"] != "2" || !strings.HasPrefix(info.Settings["managed"], "local MariaDB ") {
		t.Errorf("info %+v: want innodb_flush_log_at_trx_commit=2 and managed", info)
	}
	if err := st.Setup(ctx, db.Schema{Table: "usertable"}, true); err != nil {
		t.Fatal(err)
	}
	m := st.(*store).managed
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// Stop removes the data directory once the server has exited.
	if _, err := os.Stat(m.DataDir); !os.IsNotExist(err) {
		t.Errorf("managed server's data %s still there after Close (stat: %v)", m.DataDir, err)
	}
	if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", m.Port), time.Second); err == nil {
		c.Close()
		t.Errorf("port %d still accepts connections after Close", m.Port)
	}
}

func TestParseTarget(t *testing.T) {
	cfg, name, err := parseTarget("mariadb://bob:p%40ss@db.example:3307/bench?timeout=3s&sql_mode=%27ANSI%27")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.User != "bob" || cfg.Passwd != "p@ss" || cfg.Addr != "db.example:3307" || name != "bench" ||
		cfg.Timeout.String() != "3s" || cfg.Params["sql_mode"] != "'ANSI'" || !cfg.ClientFoundRows {
		t.Errorf("parseTarget: %+v, database %q", cfg, name)
	}
	cfg, name, err = parseTarget("mysql://localhost")
	if err != nil || cfg.Addr != "localhost:3306" || name != "docbench" {
		t.Errorf("defaults: %+v %q %v", cfg, name, err)
	}
}

func TestJSONPath(t *testing.T) {
	for in, want := range map[string]string{
		"field0":          "$.field0",
		"address.geo.lat": "$.address.geo.lat",
		"a b.c":           `$."a b".c`,
		"1x":              `$."1x"`,
	} {
		if got := jsonPath(in); got != want {
			t.Errorf("jsonPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSetupRecreateKeepsIndexes: a second Setup that recreates the table
// creates its index columns again (it once trusted what the first read).
func TestSetupRecreateKeepsIndexes(t *testing.T) {
	ctx := context.Background()
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			st := openStore(t, testutil.FreshMySQLDatabase(t, srv.url(t)), nil)
			schema := db.Schema{Table: "usertable", Indexes: []db.Index{{Path: "n"}}, Columns: []db.Column{{Name: "n", Type: "integer"}}}
			for range 2 {
				if err := st.Setup(ctx, schema, true); err != nil {
					t.Fatal(err)
				}
			}
			if got := query(t, st, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'usertable' AND COLUMN_NAME = 'ix_n'", st.dbName); len(got) != 1 || st.indexes["n"].col != "ix_n" {
				t.Errorf("after the second Setup: catalog %q, indexes %v", got, st.indexes)
			}
		})
	}
}
