// Package postgres registers the PostgreSQL backend (github.com/jackc/pgx/v5):
// any libpq URL, or "postgres:embedded" for a managed PostgreSQL 18 that
// docbench starts and stops itself ("postgres:embedded@13" for another
// version, version.go).
//
// Layouts (layout=): "column" (ycsb_key text primary key, data jsonb),
// "document" (the key inside the document as YCSB_KEY, found through the
// index= and pg.keylookup= of the seeds' experiments) and "relational" (one
// column per top-level field, arrays of objects in a child table joined back
// on read). doctype=json stores JSON as json instead of jsonb, doctype=text
// as plain text (layout=column), doctype=hstore flat documents as hstore
// (see hstore.go). Each session owns one connection with its statements
// prepared once; loads use COPY.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/netio"
	"github.com/docbench/docbench/internal/server"
)

// Embedded is the target that asks for a managed PostgreSQL server.
const Embedded = "postgres:embedded"

func init() {
	db.Register(db.Backend{
		Name:    "postgres",
		Schemes: []string{"postgres", "postgresql"},
		Summary: "PostgreSQL through pgx: jsonb/json/relational documents, prepared statements per worker, COPY for loads",
		Forms: []db.Form{
			{Form: "postgres://user:pass@host:port/db?sslmode=disable", Help: "any libpq URL (postgresql:// too)"},
			{Form: "postgres:embedded", Help: "managed PostgreSQL 18 downloaded from Maven Central (zonky), started and stopped by docbench"},
			{Form: "postgres:embedded@VERSION", Help: "the same, another version: a major (" + server.PostgresMajors() + ") runs the newest minor docbench knows, a full version (13.23.0) pins it"},
		},
		Options: []db.Option{
			{Name: "layout", Values: []string{"column", "document", "relational"}, Default: "column",
				Help: "column: (ycsb_key text primary key, data jsonb); document: key inside data as YCSB_KEY; relational: a column per top-level field, arrays of objects in a child table"},
			{Name: "doctype", Values: []string{"jsonb", "json", "text", "hstore"}, Default: "jsonb",
				Help: "PostgreSQL type of the document column; text (layout=column) is JSON in a text column, cast to jsonb wherever a path is read or a field updated; hstore (the extension, created if missing) holds flat documents only (document.shape=flat)"},
			{Name: "index", Values: []string{"btree", "gin", "gin_path_ops", "none"}, Default: "btree",
				Help: "layout=document key index: btree on (data->>'YCSB_KEY'), GIN jsonb_ops or jsonb_path_ops over the whole document, or none"},
			{Name: "pg.keylookup", Values: []string{"arrow", "contains", "build_object", "jsonpath"},
				Help: "layout=document key predicate: data->>'YCSB_KEY' = $1, data @> '{…}'::jsonb, data @> jsonb_build_object(…), data @@ '$.YCSB_KEY == …' (default: arrow for btree/none, contains for GIN)"},
			{Name: "pg.pathop", Values: []string{"path", "arrow", "subscript", "jsonpath"}, Default: "path",
				Help: "operator reading a nested path in projections: data #> '{a,b}', data->'a'->'b', data['a']['b'], jsonb_path_query_first(data, '$.a.b')"},
			{Name: "pg.arrayop", Values: []string{"contains", "jsonpath_match", "jsonpath_exists", "exists"}, Default: "contains",
				Help: "array membership (querykind=array): @> '[v]', @@ '$.p[*] == v', @? '$.p[*] ? (@ == v)', EXISTS over jsonb_array_elements"},
			{Name: "pg.descendantop", Values: []string{"jsonpath", "jsquery", "sqljson"}, Default: "jsonpath",
				Help: "key at any depth (querykind=descendant): data @? '$.**.k ? (@ == v)', jsquery data @@ '*.k = v' (needs the jsquery extension, e.g. Debian's postgresql-15-jsquery), JSON_EXISTS(data, '$.**.k ? (@ == $v)') (PostgreSQL 17+)"},
			{Name: "pg.compression", Values: []string{"pglz", "lz4"}, Help: "SET COMPRESSION of the document column (default: the server's default_toast_compression)"},
			{Name: "pg.storage", Values: []string{"extended", "external", "main"}, Help: "SET STORAGE of the document column (default extended)"},
			{Name: "pg.schema", Default: "docbench", Help: "schema docbench creates its tables in (created if missing)"},
			{Name: "pg.io", Values: netio.Modes, Default: string(netio.PollerOrNet()),
				Help: "how workers' connections wait for the server; blocking: their threads block in the kernel until it answers, as a C client's do, each worker holding a P (GOMAXPROCS is raised to threads + 1 unless set; Linux); poller: they wait in Go's network poller, reading and writing with raw system calls (Linux); net: through Go's net package, whose scheduler bookkeeping around each call costs client CPU; poller is the default (net off Linux): blocking did not cost less measured beside pgbench; auto: blocking with up to two threads per CPU (or fewer threads than GOMAXPROCS when you set it), where it costs less client CPU, else poller, decided for each phase's threads (net off Linux; docs/backends.md, docs/performance.md)"},
			{Name: "pg.blockingio", Values: []string{"auto", "true", "false"},
				Help: "older name, still accepted when pg.io is not set: true is pg.io=blocking, false poller, auto auto"},
			{Name: "pg.rawio", Values: []string{"true", "false"},
				Help: "older name, still accepted when pg.io is not set: false is pg.io=net (unless pg.blockingio=true)"},
			{Name: "pg.vacuum", Values: []string{"analyze", "run", "none"}, Default: "analyze",
				Help: "after a load: VACUUM (ANALYZE) the loaded tables, outside the load's figures, as pgbench does (statistics, visibility map, GIN pending entries); run: before each run's warm-up too, as pgbench does before its runs; none: leave them to autovacuum"},
			{Name: "pg.version", Help: "postgres:embedded: the PostgreSQL version, as after @ in postgres:embedded@VERSION (default " + server.DefaultPostgresVersion + "); a study can sweep it"},
			{Name: "pg.datadir", Default: server.DefaultDataDir(""),
				Help: "postgres:embedded: cluster directory kept between commands (so load then run works), one per version; temp = a fresh cluster removed at exit"},
		},
		OptionPrefixes: []string{"server."},
		Open:           open,
		Audit:          audit,
		CheckTarget:    checkTarget,
		Local:          isEmbedded,
		Ephemeral:      ephemeral,
		DataDir:        dataDir,
	})
}

// settingsReported are the server settings that decide results.
var settingsReported = []string{
	"server_version", "synchronous_commit", "fsync", "full_page_writes", "wal_level", "wal_compression",
	"shared_buffers", "effective_cache_size", "work_mem", "max_wal_size", "checkpoint_timeout",
	"default_toast_compression", "jit", "max_connections", "huge_pages", "data_checksums", "autovacuum",
}

// variant is the storage layout and access path chosen by properties.
type variant struct {
	layout      string // column, document, relational
	doctype     string // jsonb, json, text, hstore
	index       string // document layout key index: btree, gin, gin_path_ops, none
	keylookup   string // document layout key predicate: arrow, contains, build_object, jsonpath
	compression string
	storage     string
	pathop      string // projection operator for nested paths
	arrayop     string // array membership operator
	descendant  string // key-at-any-depth operator: jsonpath, jsquery, sqljson
}

func parseVariant(cfg db.OpenRequest) (variant, error) {
	v := variant{
		layout:      cfg.Prop("layout", "column"),
		doctype:     cfg.Prop("doctype", "jsonb"),
		index:       cfg.Prop("index", "btree"),
		keylookup:   cfg.Prop("pg.keylookup", ""),
		compression: cfg.Prop("pg.compression", ""),
		storage:     cfg.Prop("pg.storage", ""),
		pathop:      cfg.Prop("pg.pathop", "path"),
		arrayop:     cfg.Prop("pg.arrayop", "contains"),
		descendant:  cfg.Prop("pg.descendantop", "jsonpath"),
	}
	if v.keylookup == "" {
		v.keylookup = "arrow"
		if strings.HasPrefix(v.index, "gin") {
			v.keylookup = "contains"
		}
	}
	var errs []error // option values themselves are checked by db.Open
	if v.doctype == "json" && (strings.HasPrefix(v.index, "gin") || v.keylookup != "arrow") && v.layout == "document" {
		errs = append(errs, fmt.Errorf("property doctype=json: GIN indexes and containment/jsonpath key lookups need doctype=jsonb (json has no @>, @@ or GIN operator class)"))
	}
	if v.doctype == "hstore" {
		errs = append(errs, hstoreVariant(v)...)
	}
	if v.doctype == "text" && v.layout != "column" {
		errs = append(errs, fmt.Errorf("property doctype=text: the document column of layout=column (layout is %s)", v.layout))
	}
	if (cfg.Prop("index", "") != "" || cfg.Prop("pg.keylookup", "") != "") && v.layout != "document" {
		errs = append(errs, fmt.Errorf("properties index= and pg.keylookup= choose the key lookup of layout=document (layout is %s, whose key is a primary key column)", v.layout))
	}
	return v, errors.Join(errs...)
}

// textual says the document column holds JSON as text (json or text):
// paths and updates cast it to jsonb.
func (v variant) textual() bool { return v.doctype == "json" || v.doctype == "text" }

type store struct {
	cfg      db.OpenRequest
	v        variant
	connCfg  *pgx.ConnConfig
	admin    *pgx.Conn
	managed  *server.Postgres
	schema   string
	tableRaw string            // unquoted table name
	table    string            // schema-qualified, quoted
	settings map[string]string // server.* properties
	cols     []relColumn       // layout=relational columns
	io       netio.Mode        // pg.io (or its older names)
}

var (
	_ db.Store        = (*store)(nil)
	_ db.ThreadHolder = (*store)(nil)
	_ db.ThreadSizer  = (*store)(nil)
	_ db.IOModer      = (*session)(nil)
)

func open(ctx context.Context, cfg db.OpenRequest) (db.Store, error) {
	v, err := parseVariant(cfg)
	if err != nil {
		return nil, err
	}
	mode, err := netio.Setting(func(k string) string { return cfg.Prop(k, "") }, "pg", true, netio.PollerOrNet())
	if err != nil {
		return nil, err
	}
	s := &store{cfg: cfg, v: v, io: mode, schema: cfg.Prop("pg.schema", "docbench"), settings: map[string]string{}}
	s.setTable(cfg.Prop("table", "usertable"))
	for k, v := range cfg.Props {
		if name, ok := strings.CutPrefix(k, "server."); ok {
			s.settings[name] = v
		}
	}
	url := cfg.Target
	version, embedded, err := embeddedVersion(cfg.Target, cfg.Props)
	if err != nil {
		return nil, err
	}
	if embedded {
		var logw io.Writer
		if cfg.Log != nil {
			logw = logWriter(cfg.Log)
		}
		dir := cfg.Prop("pg.datadir", server.DefaultDataDir(version))
		if dir == "temp" {
			dir = ""
		}
		srv, err := server.StartPostgres(ctx, server.PostgresOptions{Version: version, Settings: s.settings, Log: logw, DataDir: dir})
		if err != nil {
			return nil, err
		}
		s.managed = srv
		url = srv.URL
	} else if strings.HasPrefix(cfg.Target, "postgres:") && !strings.HasPrefix(cfg.Target, "postgres://") {
		return nil, fmt.Errorf("target %q: want postgres://…, %s or %s@VERSION", cfg.Target, Embedded, Embedded)
	}
	cc, err := pgx.ParseConfig(url)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("target %s: %v", db.Redact(cfg.Target), err)
	}
	if s.managed == nil && len(s.settings) > 0 {
		// A server we do not manage: apply server.* as session settings.
		if cc.RuntimeParams == nil {
			cc.RuntimeParams = map[string]string{}
		}
		for k, v := range s.settings {
			cc.RuntimeParams[k] = v
		}
	}
	// Statements pgx watches (all but the sessions' own, netio.Watch) are
	// stopped on the server too when their context is cancelled.
	cc.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: netio.CancelGrace}
	}
	s.connCfg = cc
	s.admin, err = pgx.ConnectConfig(ctx, cc)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("target %s: %s", db.Redact(cfg.Target), connectError(err, cc))
	}
	return s, nil
}

// connectError says in one line why connecting failed. The server's own
// answer comes first (`database "x" does not exist on 127.0.0.1:5432`),
// whatever failed before it: with sslmode=prefer pgconn tries TLS, then
// plaintext, and reports both. A host that does not resolve is said once.
// Otherwise pgconn's lines (one per attempt) are folded, each distinct once.
func connectError(err error, cc *pgx.ConnConfig) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s on %s", pe.Message, net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))))
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return fmt.Sprintf("cannot resolve host %q (%s)", dns.Name, dns.Err)
	}
	var parts []string
	seen := map[string]bool{}
	for _, l := range strings.Split(err.Error(), "\n") {
		l = strings.TrimSuffix(strings.TrimSpace(l), ":")
		if l != "" && !seen[l] {
			seen[l] = true
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, ": ")
}

func (s *store) setTable(name string) {
	s.tableRaw = name
	s.table = pgx.Identifier{s.schema, name}.Sanitize()
}

type logWriter func(format string, args ...any)

func (l logWriter) Write(p []byte) (int, error) {
	l("%s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func (s *store) Close() error {
	var errs []error
	if s.admin != nil {
		errs = append(errs, s.admin.Close(context.Background()))
	}
	if s.managed != nil {
		errs = append(errs, s.managed.Stop())
	}
	return errors.Join(errs...)
}

func (s *store) Info(ctx context.Context) (db.Info, error) {
	info := db.Info{Backend: "postgres", Settings: map[string]string{}, Layout: map[string]string{
		"layout": s.v.layout, "table": s.table, "doctype": s.v.doctype}}
	if s.managed != nil {
		info.Settings["managed"] = "embedded " + s.managed.Version
	}
	switch s.v.layout {
	case "column":
		info.Layout["key"] = "ycsb_key text PRIMARY KEY (btree)"
		info.Layout["document"] = "data " + s.v.doctype
	case "relational":
		info.Layout["key"] = "ycsb_key text PRIMARY KEY (btree)"
		info.Layout["document"] = "one column per top-level field; arrays of objects in child tables"
	case "document":
		info.Layout["key"] = map[string]string{
			"btree": "btree on (data->>'YCSB_KEY')", "gin": "GIN (data jsonb_ops)",
			"gin_path_ops": "GIN (data jsonb_path_ops)", "none": "no index (sequential scan)"}[s.v.index]
		if s.v.doctype == "hstore" {
			info.Layout["key"] = map[string]string{"btree": "btree on (data->'YCSB_KEY')", "gin": "GIN (data gin_hstore_ops)",
				"none": "no index (sequential scan)"}[s.v.index]
		}
		info.Layout["keylookup"] = s.v.keylookup
		info.Layout["document"] = "data " + s.v.doctype + " with YCSB_KEY inside"
	}
	if s.v.compression != "" {
		info.Layout["compression"] = s.v.compression
	}
	if s.v.storage != "" {
		info.Layout["storage"] = s.v.storage
	}
	info.Layout["pathop"] = s.v.pathop
	info.Layout["arrayop"] = s.v.arrayop
	if ixs, err := s.secondaryIndexes(ctx); err != nil {
		info.Layout["secondary_indexes"] = "unknown (" + err.Error() + ")"
	} else {
		db.SetIndexLayout(info.Layout, ixs)
	}
	rows, err := s.admin.Query(ctx, "SELECT name, setting, coalesce(unit, '') FROM pg_settings WHERE name = ANY($1)", settingsReported)
	if err != nil {
		return info, fmt.Errorf("postgres settings: %w", err)
	}
	for rows.Next() {
		var name, val, unit string
		if err := rows.Scan(&name, &val, &unit); err != nil {
			rows.Close()
			return info, err
		}
		info.Settings[name] = withUnit(val, unit)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return info, err
	}
	info.Version = info.Settings["server_version"]
	delete(info.Settings, "server_version")
	s.flavourSettings(ctx, info.Settings)
	return info, nil
}

// withUnit renders a pg_settings value with its unit ("8kB" × 16384 → "16384×8kB").
func withUnit(v, unit string) string {
	if unit == "" {
		return v
	}
	if unit[0] >= '0' && unit[0] <= '9' {
		return v + "×" + unit
	}
	return v + unit
}

func quoteLiteral(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// textArray renders a text[] literal ('{a,b}' with elements quoted).
func textArray(segs []string) string {
	var b strings.Builder
	b.WriteByte('{')
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	for i, s := range segs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(esc.Replace(s))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}
