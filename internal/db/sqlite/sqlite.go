// Package sqlite registers the "sqlite:PATH" backend (github.com/mattn/go-sqlite3,
// the C library): table (ycsb_key text primary key, data blob) holding
// SQLite's binary JSONB, in WAL mode.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"unsafe"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/sqlstmt"
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
			{Name: "layout", Values: []string{"column"}, Default: "column",
				Help: "the one SQLite layout: (ycsb_key text primary key, data)"},
			{Name: "doctype", Values: []string{"jsonb", "text"}, Default: "jsonb",
				Help: "SQLite storage of the document: binary JSONB in a blob, or JSON text"},
		},
		Open: open,
	})
}

type store struct {
	doctype string // jsonb or text
	indexes []string
	path    string
	db      *sql.DB
	table   string
	props   map[string]string
	sync    string
	jmode   string
}

var _ db.Store = (*store)(nil)

func open(ctx context.Context, cfg db.Config) (db.Store, error) {
	path := strings.TrimPrefix(cfg.Target, "sqlite:")
	path = strings.TrimPrefix(path, "//")
	if path == "" {
		return nil, fmt.Errorf("target %q: want sqlite:PATH", cfg.Target)
	}
	s := &store{path: path, props: cfg.Props,
		sync:  strings.ToLower(cfg.Prop("sqlite.synchronous", "full")),
		jmode: strings.ToLower(cfg.Prop("sqlite.journal_mode", "wal")),
		table: cfg.Prop("table", "usertable"),
	}
	s.doctype = strings.ToLower(cfg.Prop("doctype", "jsonb")) // values checked by db.Open
	if cfg.Existing {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("target %s: %w: %s does not exist", cfg.Target, db.ErrNoTable, path)
		}
	}
	q := url.Values{}
	q.Set("_journal_mode", s.jmode)
	q.Set("_synchronous", s.sync)
	q.Set("_busy_timeout", "30000")
	q.Set("_txlock", "immediate")
	var err error
	s.db, err = sql.Open("sqlite3", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", cfg.Target, err)
	}
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("target %s: %w", cfg.Target, err)
	}
	return s, nil
}

// quote quotes an SQL identifier.
func quote(id string) string { return `"` + strings.ReplaceAll(id, `"`, `""`) + `"` }

func (s *store) Setup(ctx context.Context, sc db.Schema, recreate bool) error {
	s.table = sc.Table
	t := quote(sc.Table)
	if recreate {
		if _, err := s.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return fmt.Errorf("sqlite %s: drop table: %w", s.path, err)
		}
	}
	typ := "BLOB"
	if s.doctype == "text" {
		typ = "TEXT"
	}
	_, err := s.db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+t+" (ycsb_key TEXT PRIMARY KEY, data "+typ+" NOT NULL)")
	if err != nil {
		return fmt.Errorf("sqlite %s: create table: %w", s.path, err)
	}
	return s.createIndexes(ctx, sc)
}

func (s *store) Info(ctx context.Context) (db.Info, error) {
	info := db.Info{Backend: "sqlite", Settings: map[string]string{}, Layout: map[string]string{
		"table": s.table, "key": "ycsb_key TEXT PRIMARY KEY", "document": "data BLOB (jsonb)"}}
	if s.doctype == "text" {
		info.Layout["document"] = "data TEXT (json)"
	}
	if len(s.indexes) > 0 {
		info.Layout["secondary_indexes"] = strings.Join(s.indexes, "; ")
	}
	if err := s.db.QueryRowContext(ctx, "select sqlite_version()").Scan(&info.Version); err != nil {
		return info, fmt.Errorf("sqlite %s: %w", s.path, err)
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return info, err
	}
	defer conn.Close()
	for _, p := range []string{"journal_mode", "synchronous", "page_size", "cache_size", "busy_timeout"} {
		var v string
		if err := conn.QueryRowContext(ctx, "PRAGMA "+p).Scan(&v); err == nil {
			if p == "synchronous" {
				v = map[string]string{"0": "off", "1": "normal", "2": "full", "3": "extra"}[v]
			}
			info.Settings[p] = v
		}
	}
	info.Settings["path"] = s.path
	return info, nil
}

func (s *store) Close() error { return s.db.Close() }

func (s *store) NewSession(ctx context.Context) (db.Session, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite %s: %w", s.path, err)
	}
	t := quote(s.table)
	ss := &session{conn: conn, table: t, proj: map[string]*sql.Stmt{}, paths: map[string]string{}, queries: map[string]*sql.Stmt{}, texts: map[*sql.Stmt]string{}}
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = conn.PrepareContext(ctx, q)
		ss.texts[st] = q
		return st
	}
	ss.fn = "jsonb"
	if s.doctype == "text" {
		ss.fn = "json"
	}
	ss.insert = prep("INSERT INTO " + t + " (ycsb_key, data) VALUES (?, " + ss.fn + "(?))")
	ss.read = prep("SELECT json(data) FROM " + t + " WHERE ycsb_key = ?")
	ss.replace = prep("UPDATE " + t + " SET data = " + ss.fn + "(?) WHERE ycsb_key = ?")
	ss.scan = prep("SELECT json(data) FROM " + t + " WHERE ycsb_key >= ? ORDER BY ycsb_key LIMIT ?")
	ss.del = prep("DELETE FROM " + t + " WHERE ycsb_key = ?")
	if err != nil {
		conn.Close()
		if strings.Contains(err.Error(), "no such table") {
			return nil, fmt.Errorf("sqlite %s: %w (%v)", s.path, db.ErrNoTable, err)
		}
		return nil, fmt.Errorf("sqlite %s: prepare: %w", s.path, err)
	}
	return ss, nil
}

type session struct {
	conn                             *sql.Conn
	table                            string
	insert, read, replace, scan, del *sql.Stmt
	proj                             map[string]*sql.Stmt // projection statements by field list
	out                              sql.RawBytes
	partial                          []*sql.Stmt       // partial updates by path count
	paths                            map[string]string // dotted path → JSON path
	args                             []any
	fn                               string               // jsonb or json: the functions writing the column
	queries                          map[string]*sql.Stmt // secondary queries by SQL text
	texts                            map[*sql.Stmt]string // statement texts, for Explain
	stmts                            sqlstmt.Cache        // statements of the user's
}

var (
	_ db.Session       = (*session)(nil)
	_ db.BatchInserter = (*session)(nil)
	_ db.Querier       = (*session)(nil)
)

// text views b as a string without copying, so that the driver binds TEXT
// (a []byte binds as BLOB: a blob key never equals a text key, and jsonb() of
// a blob reads binary JSONB). The driver copies it during the call.
func text(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func (s *session) Insert(ctx context.Context, key, doc []byte) error {
	_, err := s.insert.ExecContext(ctx, text(key), text(doc))
	return err
}

func (s *session) InsertBatch(ctx context.Context, keys, docs [][]byte) error {
	tx, err := s.conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	st := tx.StmtContext(ctx, s.insert)
	for i := range keys {
		if _, err := st.ExecContext(ctx, text(keys[i]), text(docs[i])); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

// projection returns (and prepares once) the statement reading only fields.
func (s *session) projection(ctx context.Context, fields []string, scan bool) (*sql.Stmt, error) {
	k := strings.Join(fields, "\x00")
	if scan {
		k = "scan\x00" + k
	}
	if st, ok := s.proj[k]; ok {
		return st, nil
	}
	var b strings.Builder
	b.WriteString("SELECT json_object(")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s, data -> %s", sqlString(f), sqlString(jsonPath(f))) // -> keeps JSON types (json_extract turns true into 1)
	}
	b.WriteString(") FROM " + s.table)
	if scan {
		b.WriteString(" WHERE ycsb_key >= ? ORDER BY ycsb_key LIMIT ?")
	} else {
		b.WriteString(" WHERE ycsb_key = ?")
	}
	st, err := s.conn.PrepareContext(ctx, b.String())
	if err != nil {
		return nil, err
	}
	s.proj[k], s.texts[st] = st, b.String()
	return st, nil
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
		var err error
		if st, err = s.projection(ctx, fields, false); err != nil {
			return dst, err
		}
	}
	rows, err := st.QueryContext(ctx, text(key))
	if err != nil {
		return dst, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return dst, err
		}
		return dst, db.ErrNotFound
	}
	if err := rows.Scan(&s.out); err != nil {
		return dst, err
	}
	dst = append(dst, s.out...)
	return dst, rows.Close()
}

func (s *session) Update(ctx context.Context, key []byte, u *db.Update) error {
	var res sql.Result
	var err error
	switch u.Mode {
	case db.Merge, db.Partial:
		// Merge sets each top-level member (jsonb_patch, RFC 7396, would drop
		// null members and merge nested objects).
		var st *sql.Stmt
		if st, err = s.partialStmt(ctx, len(u.Paths)); err != nil {
			return err
		}
		s.args = s.args[:0]
		for i, p := range u.Paths {
			jp, ok := s.paths[p]
			if !ok {
				jp = jsonPath(p)
				s.paths[p] = jp
			}
			s.args = append(s.args, jp, text(u.Values[i]))
		}
		s.args = append(s.args, text(key))
		res, err = st.ExecContext(ctx, s.args...)
	case db.Replace:
		res, err = s.replace.ExecContext(ctx, text(u.Doc), text(key))
	default:
		return fmt.Errorf("sqlite: update mode %v", u.Mode)
	}
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return db.ErrNotFound
	}
	return nil
}

// partialStmt prepares (once per path count) the in-place update
// data = jsonb_set(data, path1, json(value1), …).
func (s *session) partialStmt(ctx context.Context, n int) (*sql.Stmt, error) {
	for len(s.partial) <= n {
		s.partial = append(s.partial, nil)
	}
	if s.partial[n] != nil {
		return s.partial[n], nil
	}
	q := "UPDATE " + s.table + " SET data = " + s.fn + "_set(data" + strings.Repeat(", ?, json(?)", n) + ") WHERE ycsb_key = ?"
	st, err := s.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("sqlite prepare: %w (statement: %s)", err, q)
	}
	s.partial[n], s.texts[st] = st, q
	return st, nil
}

func (s *session) Scan(ctx context.Context, start []byte, count int, fields []string) (int, error) {
	st := s.scan
	if fields != nil {
		var err error
		if st, err = s.projection(ctx, fields, true); err != nil {
			return 0, err
		}
	}
	rows, err := st.QueryContext(ctx, text(start), count)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		if err := rows.Scan(&s.out); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

func (s *session) Delete(ctx context.Context, key []byte) error {
	res, err := s.del.ExecContext(ctx, text(key))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return db.ErrNotFound
	}
	return nil
}

func (s *session) Close() error {
	var errs []error
	for _, st := range []*sql.Stmt{s.insert, s.read, s.replace, s.scan, s.del} {
		errs = append(errs, st.Close())
	}
	for _, st := range s.proj {
		errs = append(errs, st.Close())
	}
	for _, st := range s.queries {
		errs = append(errs, st.Close())
	}
	errs = append(errs, s.stmts.Close())
	for _, st := range s.partial {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	errs = append(errs, s.conn.Close())
	return errors.Join(errs...)
}
