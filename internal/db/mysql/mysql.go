// Package mysql registers the MySQL/MariaDB backend
// (github.com/go-sql-driver/mysql): mysql://user:pass@host:port/db (also
// mariadb://…), or "mariadb:local" for a private MariaDB of the local install
// that docbench starts and stops itself.
//
// The server is detected from SELECT VERSION() (MySQL 8.x or MariaDB; also
// go-mysql-server, the MySQL 8 peer of the tests, as a MySQL-8-compatible
// flavour without MySQL's MEMBER OF and multi-valued indexes: see
// docs/backends.md) and spoken to in its dialect. Layouts: "generated" (the seeds': data JSON plus
// a STORED generated key column extracted from the document's YCSB_KEY) and
// "column" (a plain key column plus data JSON). Secondary indexes are
// generated columns with indexes, which queries name (MariaDB uses such an
// index only then); array paths get a multi-valued index on MySQL 8. Each
// session owns one connection with its statements prepared once; loads use
// multi-row INSERTs, one statement per batch.
package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/netio"
	"github.com/docbench/docbench/internal/db/sqldb"
	"github.com/docbench/docbench/internal/server"
)

// Local is the target that asks for a private MariaDB of the local install.
const Local = "mariadb:local"

// Layouts.
const (
	layoutGenerated = "generated"
	layoutColumn    = "column"
)

func init() {
	db.Register(db.Backend{
		Name:    "mysql",
		Schemes: []string{"mysql", "mariadb"},
		Summary: "MySQL 8 and MariaDB through go-sql-driver/mysql: JSON documents, prepared statements per worker, multi-row INSERT for loads",
		Forms: []db.Form{
			{Form: "mysql://user:pass@host:port/db", Help: "MySQL 8.x or MariaDB (mariadb:// too); the database is created if missing; ?param=value passes driver parameters or session variables"},
			{Form: Local, Help: "private MariaDB of the local install (apt-get install mariadb-server), started and stopped by docbench, fresh and empty for each command (for studies and quickstart -t); server.NAME=VALUE sets server variables"},
		},
		Options: []db.Option{
			{Name: "layout", Values: []string{layoutGenerated, layoutColumn}, Default: layoutGenerated,
				Help: "generated: data JSON + ycsb_key STORED generated from data's YCSB_KEY (primary key on MySQL, unique key on MariaDB, which refuses a primary key on a generated column); column: ycsb_key VARCHAR primary key + data JSON"},
			{Name: "mysql.io", Values: netio.Modes, Default: string(netio.Auto),
				Help: "how workers' connections wait for the server, as pg.io: blocking (threads block in the kernel, each worker holding a P; Linux), poller (raw system calls, waiting in Go's network poller; Linux), net (Go's net package), auto, the default (blocking with up to two threads per CPU, else poller, decided for each phase's threads; net off Linux: beside sysbench, blocking cost less client CPU per read than the poller). Each session watches its context once instead of the driver and database/sql per statement, in every mode (docs/backends.md, docs/performance.md)"},
			{Name: "mysql.rawio", Values: []string{"true", "false"},
				Help: "older name, still accepted when mysql.io is not set: false is mysql.io=net (unless mysql.blockingio=true)"},
			{Name: "mysql.blockingio", Values: []string{"auto", "true", "false"},
				Help: "older name, still accepted when mysql.io is not set: true is mysql.io=blocking, false poller, auto auto"},
		},
		OptionPrefixes: []string{"server."},
		Open:           open,
		Audit:          audit,
		Local:          isLocal,
		Ephemeral:      func(target string, _ map[string]string) bool { return isLocal(target) },
		DataDir: func(target string, _ map[string]string) (string, bool) {
			if isLocal(target) {
				return os.TempDir(), false // mariadb:local's throwaway data directory
			}
			return "", false
		},
	})
}

// settingsReported are the server variables that decide results.
// transaction_isolation is tx_isolation on MariaDB before 11.1.
var settingsReported = []string{
	"innodb_flush_log_at_trx_commit", "sync_binlog", "log_bin", "binlog_format",
	"innodb_buffer_pool_size", "innodb_doublewrite", "innodb_log_file_size",
	"transaction_isolation", "tx_isolation", "innodb_flush_method", "innodb_page_size",
	"max_connections",
}

// dialect is what differs between the servers.
type dialect struct {
	mariadb bool
	// compat names a MySQL-compatible engine that is not MySQL, which
	// speaks MySQL 8's dialect without all of its features:
	// "go-mysql-server" (VERSION() 8.0.31-go-mysql-server, the MySQL 8 peer
	// docbench's tests run against) has no MEMBER OF, multi-valued indexes,
	// EXPLAIN FORMAT=JSON or InnoDB counters. "" for MySQL and MariaDB.
	compat   string
	version  string // VERSION()
	major    int
	memberOf bool // MySQL 8.0.17+: MEMBER OF, multi-valued indexes
}

// gmsCompat is the compat of go-mysql-server (and what VERSION() carries).
const gmsCompat = "go-mysql-server"

// jsonArg is a placeholder whose text is parsed as a JSON value.
func (d dialect) jsonArg() string {
	if d.mariadb {
		return "JSON_EXTRACT(?, '$')"
	}
	return "CAST(? AS JSON)"
}

func (d dialect) flavour() string {
	switch {
	case d.mariadb:
		return "mariadb"
	case d.compat != "":
		return "mysql8-compatible " + d.compat
	}
	return "mysql"
}

func detect(version string) dialect {
	d := dialect{version: version, mariadb: strings.Contains(strings.ToLower(version), "mariadb")}
	f := strings.FieldsFunc(version, func(r rune) bool { return r < '0' || r > '9' })
	nums := make([]int, 3)
	for i := 0; i < len(f) && i < 3; i++ {
		nums[i], _ = strconv.Atoi(f[i])
	}
	d.major = nums[0]
	if strings.Contains(strings.ToLower(version), gmsCompat) {
		d.compat = gmsCompat
		return d // none of MySQL 8.0.17's MEMBER OF and multi-valued indexes
	}
	if !d.mariadb {
		d.memberOf = nums[0] > 8 || (nums[0] == 8 && (nums[1] > 0 || nums[2] >= 17))
	}
	return d
}

type store struct {
	cfg      db.OpenRequest
	sqlDB    *sql.DB
	managed  *server.MariaDB
	d        dialect
	layout   string
	database string // quoted
	dbName   string
	tableNm  string
	table    string              // `db`.`table`
	indexes  map[string]indexCol // secondary paths the table has
	loaded   bool                // indexes read from the catalog
	// noArrayIndex are array paths Setup was asked to index on a server
	// without multi-valued indexes (MariaDB): their queries scan.
	noArrayIndex []string
	io           netio.Mode // mysql.io (or its older names)
	killer       killer     // stops cancelled statements on the server
}

var (
	_ db.ThreadHolder = (*store)(nil)
	_ db.ThreadSizer  = (*store)(nil)
	_ db.IOModer      = (*session)(nil)
)

// indexCol is a secondary path's generated column.
type indexCol struct {
	col     string // generated column; "" for a MySQL multi-valued index
	numeric bool   // DOUBLE (the path holds numbers), else VARCHAR text
}

var (
	_ db.Store       = (*store)(nil)
	_ db.SetupRunner = (*store)(nil)
)

// parseTarget turns mysql://user:pass@host:port/db?params into a driver
// configuration and the database name.
func parseTarget(target string) (*mysql.Config, string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, "", errors.New(strings.ReplaceAll(err.Error(), target, db.Redact(target)))
	}
	if u.Scheme != "mysql" && u.Scheme != "mariadb" || u.Host == "" || u.Opaque != "" {
		return nil, "", fmt.Errorf("want mysql://user:pass@host:port/db, mariadb://… or %s", Local)
	}
	// Parameters go through the driver's own parser: its options, or
	// session variables set on every connection.
	cfg, err := mysql.ParseDSN("/?" + u.RawQuery)
	if err != nil {
		return nil, "", err
	}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "3306"
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return nil, "", fmt.Errorf("port %q: want 1-65535", port)
	}
	cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, port)
	name := strings.Trim(u.Path, "/")
	if name == "" {
		name = "docbench"
	}
	if strings.Contains(name, "/") {
		return nil, "", fmt.Errorf("database %q: want one name", name)
	}
	// Tables are named with their database: no default database, so that
	// Setup can create it.
	cfg.DBName = ""
	// Rows affected counts matched rows: an update that writes the same
	// value is not "not found".
	cfg.ClientFoundRows = true
	cfg.InterpolateParams = false
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	return cfg, name, nil
}

// mode is the I/O mode of the sessions of a phase of s.cfg.Threads.
func (s *store) mode() netio.Mode { return netio.Resolve(s.io, s.cfg.Threads) }

// HoldsThreads says whether sessions block their threads in the kernel
// (mysql.io=blocking, netio.BlockingConn); auto: when that pays for the
// phase's threads.
func (s *store) HoldsThreads() bool { return s.mode() == netio.Blocking }

// SetThreads sizes the sessions opened next for a phase of threads: auto
// decides their I/O mode for it.
func (s *store) SetThreads(_ context.Context, threads int) error {
	s.cfg.Threads = threads
	return nil
}

func open(ctx context.Context, c db.OpenRequest) (db.Store, error) {
	mode, err := netio.Setting(func(k string) string { return c.Prop(k, "") }, "mysql", false, netio.Auto)
	if err != nil {
		return nil, err
	}
	s := &store{cfg: c, io: mode, layout: c.Prop("layout", layoutGenerated), indexes: map[string]indexCol{}}
	if s.layout != layoutGenerated && s.layout != layoutColumn {
		return nil, fmt.Errorf("property layout=%q: MySQL/MariaDB layouts are %s, %s", s.layout, layoutGenerated, layoutColumn)
	}
	settings := map[string]string{}
	for k, v := range c.Props {
		if name, ok := strings.CutPrefix(k, "server."); ok {
			settings[name] = v
		}
	}
	target := c.Target
	if strings.EqualFold(target, Local) {
		var logw io.Writer
		if c.Log != nil {
			logw = logWriter(c.Log)
		}
		srv, err := server.StartMariaDB(ctx, server.MariaDBOptions{Settings: settings, Log: logw})
		if err != nil {
			return nil, err
		}
		s.managed = srv
		target = srv.URL
		settings = nil
	}
	cfg, name, err := parseTarget(target)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("target %s: %v", db.Redact(c.Target), err)
	}
	if len(settings) > 0 {
		// A server we do not manage: server.* become session variables.
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		for k, v := range settings {
			cfg.Params[k] = v
		}
	}
	// Sessions dial their own connection (see NewSession), of the phase's
	// I/O mode: one released to the pool would be reused without its dial.
	cfg.DialFunc = rawDial(cfg.Timeout, s.mode)
	cfg.Logger = quietTimeouts{cfg.Logger}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("target %s: %v", db.Redact(c.Target), err)
	}
	s.sqlDB = sql.OpenDB(conn)
	s.sqlDB.SetMaxIdleConns(0)
	var version string
	if err := s.sqlDB.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		s.Close()
		return nil, fmt.Errorf("target %s: %v", db.Redact(c.Target), oneLine(err))
	}
	s.d = detect(version)
	s.dbName = name
	s.database = quoteIdent(name)
	s.setTable(c.Prop("table", "usertable"))
	return s, nil
}

// setTable names the table: s.table, quoted and qualified by the
// database, is how sessions, setup statements and {table} in statements of
// the user's name it.
func (s *store) setTable(name string) {
	s.tableNm = name
	s.table = s.database + "." + quoteIdent(name)
}

// ExecSetup runs a setup statement of the user's (statement.setup).
func (s *store) ExecSetup(ctx context.Context, text string) error {
	return sqldb.ExecSetup(ctx, s.sqlDB, s.table, text)
}

type logWriter func(format string, args ...any)

func (l logWriter) Write(p []byte) (int, error) {
	l("%s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func oneLine(err error) error {
	if msg := err.Error(); strings.Contains(msg, "\n") {
		return errors.New(strings.Join(strings.Fields(msg), " "))
	}
	return err
}

func (s *store) Close() error {
	var errs []error
	if s.sqlDB != nil {
		errs = append(errs, s.killer.close(), s.sqlDB.Close())
	}
	if s.managed != nil {
		errs = append(errs, s.managed.Stop())
	}
	return errors.Join(errs...)
}

// keyColumn is the definition of the key column.
func (s *store) keyColumn() string {
	const typ = "VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
	switch {
	case s.layout == layoutColumn:
		return "ycsb_key " + typ + " NOT NULL PRIMARY KEY"
	case s.d.mariadb:
		// MariaDB: "Primary key cannot be defined upon a generated column".
		return "ycsb_key " + typ + " GENERATED ALWAYS AS (JSON_UNQUOTE(JSON_EXTRACT(data, '$.YCSB_KEY'))) STORED UNIQUE KEY"
	default:
		return "ycsb_key " + typ + " GENERATED ALWAYS AS (JSON_UNQUOTE(JSON_EXTRACT(data, '$.YCSB_KEY'))) STORED NOT NULL PRIMARY KEY"
	}
}

func (s *store) Setup(ctx context.Context, sc db.Schema, recreate bool) error {
	if sc.Table != "" {
		s.setTable(sc.Table)
	}
	if _, err := s.sqlDB.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+s.database+" CHARACTER SET utf8mb4"); err != nil {
		return fmt.Errorf("%s setup: database %s: %w", s.d.flavour(), s.dbName, err)
	}
	if err := s.claim(ctx, s.tableNm, recreate); err != nil {
		return err
	}
	var stmts []string
	var cols string
	if s.layout == layoutColumn {
		cols = s.keyColumn() + ", data JSON NOT NULL"
	} else {
		cols = "data JSON NOT NULL, " + s.keyColumn()
	}
	if s.d.compat == gmsCompat {
		// go-mysql-server (v0.20.0) fails updates of a table with a
		// generated key once ALTER TABLE has added a generated column
		// ("unable to find field with index 3 in row of 3 columns"): a new
		// table gets its index columns at once.
		for _, ix := range sc.Indexes {
			if !ix.Array {
				name := quoteIdent(indexName(ix.Path))
				cols += ", " + s.indexColumn(ix.Path, numericPath(sc.Columns, ix.Path)) + ", INDEX " + name + " (" + name + ")"
			}
		}
	}
	// The mark is the comment of a table created now; an existing table
	// (of docbench's: claim said so) keeps its own.
	stmts = append(stmts, "CREATE TABLE IF NOT EXISTS "+s.table+" ("+cols+") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COMMENT="+
		quoteLiteral(sc.Mark.Text()))
	for _, q := range stmts {
		if _, err := s.sqlDB.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s setup: %s: %w", s.d.flavour(), q, err)
		}
	}
	// The table may be new (recreated, or another one): what it has is in
	// the catalog, not in what an earlier Setup read.
	s.loaded = false
	if err := s.loadIndexes(ctx); err != nil {
		return err
	}
	s.noArrayIndex = nil
	for _, ix := range sc.Indexes {
		if _, ok := s.indexes[ix.Path]; ok {
			continue
		}
		if ix.Array && !s.d.memberOf {
			// No multi-valued indexes: array queries scan. Info says so.
			s.noArrayIndex = append(s.noArrayIndex, ix.Path)
			s.cfg.Logf("%s %s has no multi-valued indexes: array queries on %s scan the table", s.d.flavour(), s.d.version, ix.Path)
			continue
		}
		q := s.indexDDL(ix, numericPath(sc.Columns, ix.Path))
		if _, err := s.sqlDB.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s setup: %s: %w", s.d.flavour(), q, err)
		}
	}
	s.loaded = false
	return s.loadIndexes(ctx)
}

// claim readies table for Setup: one docbench did not create is
// *db.ErrNotOurs; with recreate, one of docbench's is dropped.
func (s *store) claim(ctx context.Context, table string, recreate bool) error {
	m, exists, ours, err := s.mark(ctx, table)
	if err != nil {
		return err
	}
	drop, _, err := db.Claim(s.cfg, s.dbName+"."+table, m, exists, ours, recreate)
	if drop {
		err = s.dropTable(ctx, table)
	}
	return err
}

// mark reads the comment of a table (a view counts as the user's).
func (s *store) mark(ctx context.Context, table string) (m db.Mark, exists, ours bool, err error) {
	var comment string
	err = s.sqlDB.QueryRowContext(ctx, "SELECT COALESCE(TABLE_COMMENT, '') FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
		s.dbName, table).Scan(&comment)
	if errors.Is(err, sql.ErrNoRows) {
		return m, false, false, nil
	}
	if err != nil {
		return m, false, false, fmt.Errorf("%s: looking for %s.%s: %w", s.d.flavour(), s.dbName, table, err)
	}
	m, ours = db.ParseMark(comment)
	if !ours && s.managed != nil {
		m, ours = db.Managed, true
	}
	return m, true, ours, nil
}

func (s *store) dropTable(ctx context.Context, table string) error {
	q := "DROP TABLE IF EXISTS " + s.database + "." + quoteIdent(table)
	if _, err := s.sqlDB.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %s: %w", s.d.flavour(), q, err)
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
	_, _, err = db.Claim(s.cfg, s.dbName+"."+table, m, exists, ours, false)
	return err
}

// Drop drops table when docbench created it.
func (s *store) Drop(ctx context.Context, table string) error {
	_, exists, ours, err := s.mark(ctx, table)
	switch {
	case err != nil || !exists:
		return err
	case !ours:
		return &db.ErrNotOurs{Table: s.dbName + "." + table}
	}
	return s.dropTable(ctx, table)
}

var _ db.Remarker = (*store)(nil)

// ReadMark returns the mark of table.
func (s *store) ReadMark(ctx context.Context, table string) (db.Mark, bool, error) {
	m, exists, ours, err := s.mark(ctx, table)
	return m, exists && ours, err
}

// Remark replaces the mark of table (its comment).
func (s *store) Remark(ctx context.Context, table string, m db.Mark) error {
	q := "ALTER TABLE " + s.database + "." + quoteIdent(table) + " COMMENT = " + quoteLiteral(m.Text())
	if _, err := s.sqlDB.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: marking %s.%s: %w", s.d.flavour(), s.dbName, table, err)
	}
	return nil
}

// indexDDL is the statement that indexes a secondary path: a MySQL 8
// multi-valued index on an array's string elements (queries use MEMBER OF
// on the same expression), else a generated column (DOUBLE when numeric,
// else the unquoted text) with a btree index.
func (s *store) indexDDL(ix db.Index, numeric bool) string {
	name := indexName(ix.Path)
	path := quoteLiteral(jsonPath(ix.Path))
	if ix.Array {
		return fmt.Sprintf("ALTER TABLE %s ADD INDEX %s ((CAST(JSON_EXTRACT(data, %s) AS CHAR(255) ARRAY))) COMMENT %s",
			s.table, quoteIdent(name), path, quoteLiteral(pathComment+ix.Path))
	}
	return fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s, ADD INDEX %s (%s)",
		s.table, s.indexColumn(ix.Path, numeric), quoteIdent(name), quoteIdent(name))
}

// indexColumn is the definition of a secondary path's generated column.
func (s *store) indexColumn(path string, numeric bool) string {
	jp := quoteLiteral(jsonPath(path))
	def := "VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin GENERATED ALWAYS AS (JSON_UNQUOTE(JSON_EXTRACT(data, " + jp + ")))"
	if numeric {
		def = "DOUBLE GENERATED ALWAYS AS (CAST(JSON_EXTRACT(data, " + jp + ") AS DOUBLE))"
	}
	return quoteIdent(indexName(path)) + " " + def + " " + s.d.indexColumnKind() + " COMMENT " + quoteLiteral(pathComment+path)
}

// indexColumnKind is how a secondary path's generated column is kept:
// VIRTUAL (computed on read, only the index stored), except on
// go-mysql-server, whose queries on a table with a VIRTUAL column fail
// (v0.20.0: "unable to find field with index 1 in row of 1 columns", or a
// panic), so there it is STORED.
func (d dialect) indexColumnKind() string {
	if d.compat == gmsCompat {
		return "STORED"
	}
	return "VIRTUAL"
}

// numericPath reports whether the schema declares path a number (a
// top-level field, or a member of a top-level object's declared members).
func numericPath(cols []db.Column, path string) bool {
	segs := db.PathSegments(path)
	for i, seg := range segs {
		var found *db.Column
		for j := range cols {
			if cols[j].Name == seg {
				found = &cols[j]
				break
			}
		}
		if found == nil {
			return false
		}
		if i == len(segs)-1 {
			return found.Type == "integer" || found.Type == "number"
		}
		cols = found.Members
	}
	return false
}

// pathComment prefixes the comment of the generated columns and indexes
// docbench creates for secondary paths; the path follows.
const pathComment = db.IndexPathComment

// loadIndexes reads the secondary paths the table has from the catalog, so
// that a run after a load in another process finds them.
func (s *store) loadIndexes(ctx context.Context) error {
	if s.loaded {
		return nil
	}
	idx := map[string]indexCol{}
	q := "SELECT COLUMN_NAME, COLUMN_COMMENT, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_COMMENT LIKE 'docbench path: %'"
	rows, err := s.sqlDB.QueryContext(ctx, q, s.dbName, s.tableNm)
	if err != nil {
		return fmt.Errorf("%s catalog: %w", s.d.flavour(), err)
	}
	for rows.Next() {
		var col, comment, typ string
		if err := rows.Scan(&col, &comment, &typ); err != nil {
			rows.Close()
			return err
		}
		idx[strings.TrimPrefix(comment, pathComment)] = indexCol{col: col, numeric: strings.EqualFold(typ, "double")}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if s.d.memberOf {
		q = "SELECT DISTINCT INDEX_COMMENT FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND INDEX_COMMENT LIKE 'docbench path: %'"
		rows, err := s.sqlDB.QueryContext(ctx, q, s.dbName, s.tableNm)
		if err != nil {
			return fmt.Errorf("%s catalog: %w", s.d.flavour(), err)
		}
		for rows.Next() {
			var comment string
			if err := rows.Scan(&comment); err != nil {
				rows.Close()
				return err
			}
			if p := strings.TrimPrefix(comment, pathComment); idx[p].col == "" {
				idx[p] = indexCol{} // multi-valued: no column
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	s.indexes, s.loaded = idx, true
	return nil
}

// indexName is the generated column (and index) name for a path:
// ix_address_zip, with a hash when the path is not a plain identifier.
func indexName(path string) string {
	var b strings.Builder
	b.WriteString("ix_")
	plain := true
	for _, r := range path {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		case r == '.':
			b.WriteByte('_')
			plain = false
		default:
			b.WriteByte('_')
			plain = false
		}
	}
	name := b.String()
	if len(name) > 48 {
		name, plain = name[:48], false
	}
	if !plain {
		h := fnv.New32a()
		h.Write([]byte(path))
		name += fmt.Sprintf("_%08x", h.Sum32())
	}
	return name
}

func (s *store) Info(ctx context.Context) (db.Info, error) {
	info := db.Info{Backend: "mysql", Version: s.d.version, Settings: map[string]string{"flavour": s.d.flavour()},
		Layout: map[string]string{"layout": s.layout, "table": s.table, "document": "data JSON"}}
	if s.d.mariadb {
		info.Layout["document"] = "data JSON (MariaDB: LONGTEXT with a json_valid CHECK)"
	}
	if s.managed != nil {
		info.Settings["managed"] = "local MariaDB " + s.managed.Version
	}
	if s.d.compat != "" {
		info.Settings["compatible_with"] = "MySQL 8 (" + s.d.compat + ", not MySQL: no InnoDB, no MEMBER OF or multi-valued indexes)"
	}
	switch {
	case s.layout == layoutColumn && s.d.compat != "":
		info.Layout["key"] = "ycsb_key VARCHAR(255) PRIMARY KEY"
	case s.layout == layoutColumn:
		info.Layout["key"] = "ycsb_key VARCHAR(255) PRIMARY KEY (clustered)"
	case s.d.compat != "":
		info.Layout["key"] = "ycsb_key STORED generated from data's YCSB_KEY, PRIMARY KEY"
	case s.d.mariadb:
		info.Layout["key"] = "ycsb_key STORED generated from data's YCSB_KEY, UNIQUE KEY (MariaDB refuses a PRIMARY KEY on a generated column: rows are clustered by a hidden row id)"
	default:
		info.Layout["key"] = "ycsb_key STORED generated from data's YCSB_KEY, PRIMARY KEY (clustered)"
	}
	info.Layout["merge"] = "JSON_SET of each top-level member (values replaced whole, nulls kept, as PostgreSQL's ||)"
	switch {
	case s.d.mariadb:
		info.Layout["partial"] = "JSON_SET (MariaDB rewrites the whole value)"
	case s.d.compat != "":
		info.Layout["partial"] = "JSON_SET"
	default:
		info.Layout["partial"] = "JSON_SET (in place when possible)"
	}
	if err := s.loadIndexes(ctx); err == nil {
		for p, ix := range s.indexes {
			info.Layout["index "+p] = s.describeIndex(ix)
		}
	}
	if ixs, err := s.secondaryIndexes(ctx); err != nil {
		info.Layout["secondary_indexes"] = "unknown (" + err.Error() + ")"
	} else {
		db.SetIndexLayout(info.Layout, ixs)
	}
	for _, p := range s.noArrayIndex {
		info.Layout["index "+p] = "none: " + s.d.flavour() + " has no multi-valued indexes, array queries scan"
	}
	names := make([]string, len(settingsReported))
	for i, n := range settingsReported {
		names[i] = quoteLiteral(n)
	}
	// Literals, not placeholders: SHOW is not preparable everywhere.
	q := "SHOW GLOBAL VARIABLES WHERE Variable_name IN (" + strings.Join(names, ", ") + ")"
	rows, err := s.sqlDB.QueryContext(ctx, q)
	if err != nil {
		return info, fmt.Errorf("%s settings: %w", s.d.flavour(), err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, val string
		if err := rows.Scan(&name, &val); err != nil {
			return info, err
		}
		if name == "tx_isolation" {
			name = "transaction_isolation"
		}
		info.Settings[name] = val
	}
	return info, rows.Err()
}

// jsonPath renders a dotted path as a JSON path: $.address.zip, with
// members that are not plain identifiers quoted ($."a b").
func jsonPath(path string) string {
	var b strings.Builder
	b.WriteByte('$')
	for _, seg := range db.PathSegments(path) {
		b.WriteByte('.')
		if isIdent(seg) {
			b.WriteString(seg)
		} else {
			q, _ := json.Marshal(seg)
			b.Write(q)
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// quoteLiteral quotes a string literal for the default sql_mode (backslash
// escapes on). Literals carry only paths and names docbench renders.
func quoteLiteral(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", "''").Replace(s) + "'"
}
