// Package sqlite registers the "sqlite:PATH" backend (github.com/mattn/go-sqlite3,
// the C library): table (ycsb_key text primary key, data blob) holding
// SQLite's binary JSONB, in WAL mode.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/sqldb"
)

func init() {
	db.Register(db.Backend{
		Name:    "sqlite",
		Schemes: []string{"sqlite"},
		Summary: "SQLite (C library via mattn/go-sqlite3), documents as JSONB in a blob column, WAL mode",
		Forms: []db.Form{
			{Form: "sqlite:PATH", Help: "database file (created if missing); table (ycsb_key text primary key, data blob) holding jsonb"},
		},
		Options: []db.Option{
			{Name: "sqlite.synchronous", Values: []string{"off", "normal", "full", "extra"}, Default: "full",
				Help: "PRAGMA synchronous; full = durable at commit (the fair default against PostgreSQL's synchronous_commit=on)"},
			{Name: "sqlite.journal_mode", Values: []string{"wal", "delete", "truncate", "memory"}, Default: "wal",
				Help: "PRAGMA journal_mode"},
			{Name: "sqlite.checkpoint", Values: []string{"auto", "background"}, Default: "auto",
				Help: "WAL checkpoints: auto = SQLite's, by the connection whose commit takes the WAL past 1000 frames (inside a worker's operation); " +
					"background = automatic checkpoints off; a connection of docbench's runs PRAGMA wal_checkpoint(PASSIVE) every 50 ms and RESTART at 10,000 frames, as servers built on SQLite do"},
			{Name: "sqlite.writes", Values: []string{"concurrent", "serialized"}, Default: "concurrent",
				Help: "concurrent = every worker's connection asks SQLite for the write lock, and one that finds it taken sleeps in SQLite's busy handler (1, 2, 5, 10, 15 ms…); " +
					"serialized = docbench's workers take one lock of docbench's around every write, as an application with a single writer connection does: at most one asks SQLite, the others queue without sleeping"},
			{Name: "layout", Values: []string{"column"}, Default: "column",
				Help: "the one SQLite layout: (ycsb_key text primary key, data)"},
			{Name: "doctype", Values: []string{"jsonb", "text"}, Default: "jsonb",
				Help: "SQLite storage of the document: binary JSONB in a blob, or JSON text"},
		},
		Open:  open,
		Audit: audit,
		// The engine runs inside docbench, on the file of this machine.
		Local: func(string) bool { return true },
		InDir: func(target, dir string) string {
			scheme, path, _ := strings.Cut(target, ":")
			if filepath.IsAbs(path) {
				return target
			}
			return scheme + ":" + filepath.Join(dir, path)
		},
		DataDir: func(target string, _ map[string]string) (string, bool) {
			_, path, _ := strings.Cut(target, ":")
			return filepath.Dir(path), false
		},
	})
}

type store struct {
	cfg     db.OpenRequest
	doctype string // jsonb or text
	// notIndexed are the secondary paths Setup could not index.
	notIndexed []string
	path       string
	db         *sql.DB
	table      string
	props      map[string]string
	sync       string
	jmode      string
	ckpt       *checkpointer // sqlite.checkpoint=background; nil for auto
	wmu        *writeLock    // sqlite.writes=serialized; nil for concurrent
}

// writeLock, under sqlite.writes=serialized, is held around every write of
// a store's sessions and its checkpointer's RESTART. A writer waiting for
// it gives up when its context ends. Its methods do nothing on a nil lock:
// writers then contend in SQLite's busy handler.
type writeLock struct{ c chan struct{} }

func newWriteLock() *writeLock { return &writeLock{c: make(chan struct{}, 1)} }

// lock takes the lock, or returns why not once ctx is done.
func (l *writeLock) lock(ctx context.Context) error {
	if l == nil {
		return nil
	}
	select {
	case l.c <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("sqlite: waiting for the write lock (sqlite.writes=serialized): %w", ctx.Err())
	}
}

func (l *writeLock) unlock() {
	if l != nil {
		<-l.c
	}
}

var (
	_ db.Store       = (*store)(nil)
	_ db.SetupRunner = (*store)(nil)
)

func open(ctx context.Context, cfg db.OpenRequest) (db.Store, error) {
	path := strings.TrimPrefix(cfg.Target, "sqlite:")
	path = strings.TrimPrefix(path, "//")
	if path == "" {
		return nil, fmt.Errorf("target %q: want sqlite:PATH", cfg.Target)
	}
	s := &store{cfg: cfg, path: path, props: cfg.Props,
		sync:  strings.ToLower(cfg.Prop("sqlite.synchronous", "full")),
		jmode: strings.ToLower(cfg.Prop("sqlite.journal_mode", "wal")),
		table: cfg.Prop("table", "usertable"),
	}
	s.doctype = strings.ToLower(cfg.Prop("doctype", "jsonb")) // values checked by db.Open
	if strings.EqualFold(cfg.Prop("sqlite.writes", "concurrent"), "serialized") {
		s.wmu = newWriteLock()
	}
	if cfg.Existing {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("target %s: %w: %s does not exist", cfg.Target, db.ErrNoTable, path)
		}
	}
	if dir := filepath.Dir(path); path != ":memory:" {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return nil, &db.BadTarget{Err: fmt.Errorf("target %s: directory %s does not exist: create it first (docbench creates the database file, not its directory)", cfg.Target, dir)}
		}
	}
	q := url.Values{}
	q.Set("_journal_mode", s.jmode)
	q.Set("_synchronous", s.sync)
	q.Set("_busy_timeout", "30000")
	q.Set("_txlock", "immediate")
	driver := "sqlite3"
	background := strings.EqualFold(cfg.Prop("sqlite.checkpoint", "auto"), "background")
	if background {
		if s.jmode != "wal" {
			return nil, &db.BadTarget{Err: fmt.Errorf("property sqlite.checkpoint=background: needs sqlite.journal_mode=wal (checkpoints are of the WAL), not %s", s.jmode)}
		}
		driver = driverNoAutoCheckpoint
	}
	var err error
	s.db, err = sql.Open(driver, "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", cfg.Target, err)
	}
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("target %s: %w", cfg.Target, err)
	}
	if background {
		if s.ckpt, err = startCheckpointer(ctx, s.db, s.wmu); err != nil {
			s.db.Close()
			return nil, fmt.Errorf("target %s: checkpointer: %w", cfg.Target, err)
		}
	}
	return s, nil
}

// quote quotes an SQL identifier.
func quote(id string) string { return `"` + strings.ReplaceAll(id, `"`, `""`) + `"` }

func (s *store) Setup(ctx context.Context, sc db.Schema, recreate bool) error {
	s.table = sc.Table
	t := quote(sc.Table)
	m, exists, ours, err := s.mark(ctx, sc.Table)
	if err != nil {
		return err
	}
	drop, create, err := db.Claim(s.cfg, sc.Table+" in "+s.path, m, exists, ours, recreate)
	if drop {
		err = s.dropTable(ctx, sc.Table)
	}
	if err != nil {
		return err
	}
	typ := "BLOB"
	if s.doctype == "text" {
		typ = "TEXT"
	}
	if create {
		// The table and its mark are made together.
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("sqlite %s: %w", s.path, err)
		}
		defer tx.Rollback()
		for _, q := range []string{
			"CREATE TABLE IF NOT EXISTS " + marks + " (name TEXT PRIMARY KEY, mark TEXT NOT NULL)",
			"CREATE TABLE " + t + " (ycsb_key TEXT PRIMARY KEY, data " + typ + " NOT NULL)",
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("sqlite %s: create table: %w", s.path, err)
			}
		}
		if _, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO "+marks+" (name, mark) VALUES (?, ?)", sc.Table, sc.Mark.Text()); err != nil {
			return fmt.Errorf("sqlite %s: marking %s: %w", s.path, sc.Table, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("sqlite %s: create table: %w", s.path, err)
		}
	}
	return s.createIndexes(ctx, sc)
}

// marks is the table where docbench records the tables it created in a
// database file (SQLite has no table comments): name → db.Mark text.
const marks = "docbench_tables"

// mark reads the mark of table: whether it exists (a view, too), and
// whether docbench created it.
func (s *store) mark(ctx context.Context, table string) (m db.Mark, exists, ours bool, err error) {
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = ? AND type IN ('table', 'view')", table).Scan(&n); err != nil {
		return m, false, false, fmt.Errorf("sqlite %s: %w", s.path, err)
	}
	if n == 0 {
		return m, false, false, nil
	}
	var text string
	err = s.db.QueryRowContext(ctx, "SELECT mark FROM "+marks+" WHERE name = ?", table).Scan(&text)
	if err != nil && !errors.Is(err, sql.ErrNoRows) && !strings.Contains(err.Error(), "no such table") {
		return m, true, false, fmt.Errorf("sqlite %s: %w", s.path, err)
	}
	m, ours = db.ParseMark(text)
	return m, true, ours, nil
}

// dropTable drops a table of docbench's and its mark.
func (s *store) dropTable(ctx context.Context, table string) error {
	if _, err := s.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+quote(table)); err != nil {
		return fmt.Errorf("sqlite %s: drop %s: %w", s.path, table, err)
	}
	if _, err := s.db.ExecContext(ctx, "DELETE FROM "+marks+" WHERE name = ?", table); err != nil {
		return fmt.Errorf("sqlite %s: drop %s: %w", s.path, table, err)
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
	_, _, err = db.Claim(s.cfg, table+" in "+s.path, m, exists, ours, false)
	return err
}

// Drop drops table when docbench created it.
func (s *store) Drop(ctx context.Context, table string) error {
	_, exists, ours, err := s.mark(ctx, table)
	switch {
	case err != nil || !exists:
		return err
	case !ours:
		return &db.ErrNotOurs{Table: table + " in " + s.path}
	}
	return s.dropTable(ctx, table)
}

var _ db.Remarker = (*store)(nil)

// ReadMark returns the mark of table.
func (s *store) ReadMark(ctx context.Context, table string) (db.Mark, bool, error) {
	m, exists, ours, err := s.mark(ctx, table)
	return m, exists && ours, err
}

// Remark replaces the mark of table (its row in docbench_tables).
func (s *store) Remark(ctx context.Context, table string, m db.Mark) error {
	if _, err := s.db.ExecContext(ctx, "UPDATE "+marks+" SET mark = ? WHERE name = ?", m.Text(), table); err != nil {
		return fmt.Errorf("sqlite %s: marking %s: %w", s.path, table, err)
	}
	return nil
}

func (s *store) Info(ctx context.Context) (db.Info, error) {
	info := db.Info{Backend: "sqlite", Settings: map[string]string{}, Layout: map[string]string{
		"table": s.table, "key": "ycsb_key TEXT PRIMARY KEY", "document": "data BLOB (jsonb)"}}
	if s.doctype == "text" {
		info.Layout["document"] = "data TEXT (json)"
	}
	if ixs, err := s.secondaryIndexes(ctx); err != nil {
		info.Layout["secondary_indexes"] = "unknown (" + err.Error() + ")"
	} else {
		db.SetIndexLayout(info.Layout, ixs)
	}
	if len(s.notIndexed) > 0 {
		info.Layout["not_indexed"] = strings.Join(s.notIndexed, "; ")
	}
	if err := s.db.QueryRowContext(ctx, "select sqlite_version()").Scan(&info.Version); err != nil {
		return info, fmt.Errorf("sqlite %s: %w", s.path, err)
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return info, err
	}
	defer conn.Close()
	for _, p := range []string{"journal_mode", "synchronous", "page_size", "cache_size", "busy_timeout", "wal_autocheckpoint"} {
		var v string
		if err := conn.QueryRowContext(ctx, "PRAGMA "+p).Scan(&v); err == nil {
			if p == "synchronous" {
				v = map[string]string{"0": "off", "1": "normal", "2": "full", "3": "extra"}[v]
			}
			info.Settings[p] = v
		}
	}
	info.Settings["path"] = s.path
	info.Settings["checkpoint"] = "auto: by the committing connection past wal_autocheckpoint frames"
	if s.ckpt != nil {
		info.Settings["checkpoint"] = fmt.Sprintf("background: PASSIVE every %v, RESTART at %d frames, on a connection of docbench's", checkpointEvery, restartFrames)
	}
	info.Settings["writes"] = "concurrent: each worker's connection asks SQLite for the write lock; contenders sleep in the busy handler"
	if s.wmu != nil {
		info.Settings["writes"] = "serialized: docbench's workers take one in-process lock around every write; at most one asks SQLite"
	}
	return info, nil
}

func (s *store) Close() error {
	if s.ckpt != nil {
		s.ckpt.close()
	}
	return s.db.Close()
}

// tableSQL is the table as statements name it: quoted. Sessions, setup
// statements and {table} in statements of the user's all use it.
func (s *store) tableSQL() string { return quote(s.table) }

// ExecSetup runs a setup statement of the user's (statement.setup).
func (s *store) ExecSetup(ctx context.Context, text string) error {
	return sqldb.ExecSetup(ctx, s.db, s.tableSQL(), text)
}

func (s *store) NewSession(ctx context.Context) (db.Session, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite %s: %w", s.path, err)
	}
	fn := "jsonb" // the functions writing the column
	if s.doctype == "text" {
		fn = "json"
	}
	t := s.tableSQL()
	ss := &session{Session: sqldb.Session{Conn: conn, Table: t, Dialect: sqlDialect(fn)}, queries: map[string]*sql.Stmt{}, wmu: s.wmu}
	err = ss.PrepareAll(ctx,
		sqldb.Prep{Dst: &ss.insert, Text: "INSERT INTO " + t + " (ycsb_key, data) VALUES (?, " + fn + "(?))"},
		sqldb.Prep{Dst: &ss.read, Text: "SELECT json(data) FROM " + t + " WHERE ycsb_key = ?"},
		sqldb.Prep{Dst: &ss.replace, Text: "UPDATE " + t + " SET data = " + fn + "(?) WHERE ycsb_key = ?"},
		sqldb.Prep{Dst: &ss.scan, Text: "SELECT json(data) FROM " + t + " WHERE ycsb_key >= ? ORDER BY ycsb_key LIMIT ?"},
		sqldb.Prep{Dst: &ss.del, Text: "DELETE FROM " + t + " WHERE ycsb_key = ?"})
	if err != nil {
		ss.Close()
		if strings.Contains(err.Error(), "no such table") {
			return nil, fmt.Errorf("sqlite %s: %w (%v)", s.path, db.ErrNoTable, errors.Unwrap(err))
		}
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	return ss, nil
}

// sqlDialect is SQLite's for the shared database/sql session; fn is jsonb
// or json, the functions writing the column.
func sqlDialect(fn string) sqldb.Dialect {
	return sqldb.Dialect{
		Name:     "sqlite",
		JSONPath: jsonPath,
		Select:   selectFields,
		SetPaths: func(table string, n int) string {
			// data = jsonb_set(data, path1, json(value1), …)
			return "UPDATE " + table + " SET data = " + fn + "_set(data" + strings.Repeat(", ?, json(?)", n) + ") WHERE ycsb_key = ?"
		},
		TextArgs: true,
	}
}

// session owns one connection and the statements prepared on it; the
// database/sql part shared with MySQL is sqldb.Session.
type session struct {
	sqldb.Session
	insert, read, replace, scan, del *sql.Stmt
	queries                          map[string]*sql.Stmt // secondary queries by SQL text
	wmu                              *writeLock           // the store's
	// readOnly says, per statement text of the user's, whether SQLite
	// finds it read-only (sqlite.writes=serialized).
	readOnly map[string]bool
}

var (
	_ db.Session       = (*session)(nil)
	_ db.BatchInserter = (*session)(nil)
	_ db.Querier       = (*session)(nil)
	_ db.Statementer   = (*session)(nil)
	_ db.Scripter      = (*session)(nil)
)

// Keys and documents are bound as strings viewing their bytes
// (sqldb.Text), so that the driver binds TEXT: a []byte binds as BLOB, a
// blob key never equals a text key, and jsonb() of a blob reads binary
// JSONB. The driver copies them during the call.

func (s *session) Insert(ctx context.Context, key, doc []byte) error {
	if err := s.wmu.lock(ctx); err != nil {
		return err
	}
	defer s.wmu.unlock()
	_, err := s.insert.ExecContext(ctx, sqldb.Text(key), sqldb.Text(doc))
	return err
}

func (s *session) InsertBatch(ctx context.Context, keys, docs [][]byte) error {
	if err := s.wmu.lock(ctx); err != nil {
		return err
	}
	defer s.wmu.unlock()
	tx, err := s.Conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	st := tx.StmtContext(ctx, s.insert)
	for i := range keys {
		if _, err := st.ExecContext(ctx, sqldb.Text(keys[i]), sqldb.Text(docs[i])); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

// selectFields reads fields as one JSON object, built by the server.
func selectFields(fields []string) (string, [][]byte) {
	var b strings.Builder
	b.WriteString("json_object(")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s, data -> %s", sqlString(f), sqlString(jsonPath(f))) // -> keeps JSON types (json_extract turns true into 1)
	}
	b.WriteString(")")
	return b.String(), nil
}

func sqlString(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// jsonPath turns a dotted path into an SQLite JSON path ("$.a.b").
func jsonPath(path string) string {
	var b strings.Builder
	b.WriteByte('$')
	for _, seg := range db.PathSegments(path) {
		b.WriteByte('.')
		b.WriteString(jsonPathKey(seg))
	}
	return b.String()
}

// jsonPathKey quotes a key for a JSON path when it is not a plain identifier.
func jsonPathKey(k string) string {
	for _, c := range k {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return `"` + strings.ReplaceAll(k, `"`, `\"`) + `"`
		}
	}
	return k
}

func (s *session) Read(ctx context.Context, key []byte, fields []string, dst []byte) ([]byte, error) {
	st := s.read
	if fields != nil {
		p, err := s.Projection(ctx, fields, false)
		if err != nil {
			return dst, err
		}
		st = p.Stmt
	}
	return s.ReadDoc(ctx, st, nil, dst, sqldb.Text(key))
}

func (s *session) Update(ctx context.Context, key []byte, u *db.Update) error {
	if err := s.wmu.lock(ctx); err != nil {
		return err
	}
	defer s.wmu.unlock()
	var res sql.Result
	var err error
	switch u.Mode {
	case db.Merge, db.Partial:
		// Merge sets each top-level member (jsonb_patch, RFC 7396, would drop
		// null members and merge nested objects).
		res, err = s.Set(ctx, key, u.Paths, u.Values)
	case db.Replace:
		res, err = s.replace.ExecContext(ctx, sqldb.Text(u.Doc), sqldb.Text(key))
	default:
		return fmt.Errorf("sqlite: update mode %v", u.Mode)
	}
	return sqldb.Affected(res, err)
}

func (s *session) Scan(ctx context.Context, start []byte, count int, fields []string) (int, error) {
	st := s.scan
	if fields != nil {
		p, err := s.Projection(ctx, fields, true)
		if err != nil {
			return 0, err
		}
		st = p.Stmt
	}
	return s.Count(ctx, st, 1, sqldb.Text(start), count)
}

func (s *session) Delete(ctx context.Context, key []byte) error {
	if err := s.wmu.lock(ctx); err != nil {
		return err
	}
	defer s.wmu.unlock()
	res, err := s.del.ExecContext(ctx, sqldb.Text(key))
	return sqldb.Affected(res, err)
}

// Statement runs a statement of the user's (statement.sql); under
// sqlite.writes=serialized one that SQLite does not find read-only takes
// the write lock.
func (s *session) Statement(ctx context.Context, text string, args []any) (int, error) {
	if s.wmu != nil {
		ro, err := s.isReadOnly(text)
		if err != nil {
			return 0, err
		}
		if !ro {
			if err := s.wmu.lock(ctx); err != nil {
				return 0, err
			}
			defer s.wmu.unlock()
		}
	}
	return s.Session.Statement(ctx, text, args)
}

// Script runs a script of the user's (statement.file) in one transaction:
// BEGIN IMMEDIATE when a statement writes, so that the transaction takes
// the write lock at once rather than fail to upgrade a read; under
// sqlite.writes=serialized such a script takes the store's write lock.
func (s *session) Script(ctx context.Context, stmts []string, args []any) error {
	begin := "BEGIN"
	for _, text := range stmts {
		ro, err := s.isReadOnly(text)
		if err != nil {
			return err
		}
		if !ro {
			begin = "BEGIN IMMEDIATE"
		}
	}
	if begin != "BEGIN" && s.wmu != nil {
		if err := s.wmu.lock(ctx); err != nil {
			return err
		}
		defer s.wmu.unlock()
	}
	return s.ScriptIn(ctx, begin, stmts, args)
}

// isReadOnly reports whether SQLite finds a statement of the user's
// read-only (sqlite3_stmt_readonly: a WITH … UPDATE writes, a WITH …
// SELECT does not), asked once per text.
func (s *session) isReadOnly(text string) (bool, error) {
	if ro, ok := s.readOnly[text]; ok {
		return ro, nil
	}
	var ro bool
	err := s.Conn.Raw(func(dc any) error {
		st, err := dc.(driver.Conn).Prepare(sqldb.Expand(text, s.Table))
		if err != nil {
			return err
		}
		defer st.Close()
		r, ok := st.(interface{ Readonly() bool }) // mattn/go-sqlite3's SQLiteStmt
		if !ok {
			return fmt.Errorf("the driver's statement (%T) does not say whether it writes", st)
		}
		ro = r.Readonly()
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("sqlite statement: %w", err)
	}
	if s.readOnly == nil {
		s.readOnly = map[string]bool{}
	}
	s.readOnly[text] = ro
	return ro, nil
}
