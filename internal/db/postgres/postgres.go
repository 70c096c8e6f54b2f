// Package postgres registers the PostgreSQL backend (github.com/jackc/pgx/v5):
// any libpq URL, or "postgres:embedded" for a managed PostgreSQL 18 that
// docbench starts and stops itself.
//
// Layouts: "column" (ycsb_key text primary key, data jsonb) and "document"
// (the key inside the document as YCSB_KEY, btree index on data->>'YCSB_KEY',
// as in the seeds). Each session owns one connection with its statements
// prepared once; loads use COPY.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/server"
)

// Embedded is the target that asks for a managed PostgreSQL server.
const Embedded = "postgres:embedded"

func init() {
	db.Register(db.Backend{
		Name:    "postgres",
		Schemes: []string{"postgres", "postgresql"},
		Summary: "PostgreSQL through pgx: jsonb documents, prepared statements per worker, COPY for loads",
		Forms: []db.Form{
			{Form: "postgres://user:pass@host:port/db?sslmode=disable", Help: "any libpq URL (postgresql:// too)"},
			{Form: "postgres:embedded", Help: "managed PostgreSQL 18 downloaded from Maven Central (zonky), started and stopped by docbench"},
		},
		Options: []db.Option{
			{Name: "layout", Values: []string{"column", "document"}, Default: "column",
				Help: "column: (ycsb_key text primary key, data jsonb); document: key inside data as YCSB_KEY, btree on (data->>'YCSB_KEY')"},
			{Name: "pg.schema", Default: "docbench", Help: "schema docbench creates its tables in (created if missing)"},
			{Name: "pg.datadir", Default: server.DefaultDataDir(""),
				Help: "postgres:embedded: cluster directory kept between commands (so load then run works); temp = a fresh cluster removed at exit"},
		},
		OptionPrefixes: []string{"server."},
		Open:           open,
	})
}

// settingsReported are the server settings that decide results.
var settingsReported = []string{
	"server_version", "synchronous_commit", "fsync", "full_page_writes", "wal_level", "wal_compression",
	"shared_buffers", "effective_cache_size", "work_mem", "max_wal_size", "checkpoint_timeout",
	"default_toast_compression", "jit", "max_connections", "huge_pages", "data_checksums",
}

type store struct {
	cfg      db.Config
	connCfg  *pgx.ConnConfig
	admin    *pgx.Conn
	managed  *server.Postgres
	layout   string
	schema   string
	table    string            // schema-qualified, quoted
	settings map[string]string // server.* properties
}

var _ db.Store = (*store)(nil)

func open(ctx context.Context, cfg db.Config) (db.Store, error) {
	s := &store{cfg: cfg, layout: cfg.Prop("layout", "column"), schema: cfg.Prop("pg.schema", "docbench"),
		settings: map[string]string{}}
	s.table = pgx.Identifier{s.schema, cfg.Prop("table", "usertable")}.Sanitize()
	if s.layout != "column" && s.layout != "document" {
		return nil, fmt.Errorf("property layout=%q: PostgreSQL layouts are column, document", s.layout)
	}
	for k, v := range cfg.Props {
		if name, ok := strings.CutPrefix(k, "server."); ok {
			s.settings[name] = v
		}
	}
	url := cfg.Target
	if strings.EqualFold(cfg.Target, Embedded) {
		var logw io.Writer
		if cfg.Log != nil {
			logw = logWriter(cfg.Log)
		}
		dir := cfg.Prop("pg.datadir", server.DefaultDataDir(""))
		if dir == "temp" {
			dir = ""
		}
		srv, err := server.StartPostgres(ctx, server.PostgresOptions{Settings: s.settings, Log: logw, DataDir: dir})
		if err != nil {
			return nil, err
		}
		s.managed = srv
		url = srv.URL
	} else if strings.HasPrefix(cfg.Target, "postgres:") && !strings.HasPrefix(cfg.Target, "postgres://") {
		return nil, fmt.Errorf("target %q: want postgres://… or %s", cfg.Target, Embedded)
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
	s.connCfg = cc
	s.admin, err = pgx.ConnectConfig(ctx, cc)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("target %s: %v", db.Redact(cfg.Target), err)
	}
	return s, nil
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

func (s *store) Setup(ctx context.Context, sc db.Schema, recreate bool) error {
	schema := pgx.Identifier{s.schema}.Sanitize()
	s.table = pgx.Identifier{s.schema, sc.Table}.Sanitize()
	var stmts []string
	stmts = append(stmts, "CREATE SCHEMA IF NOT EXISTS "+schema)
	if recreate {
		stmts = append(stmts, "DROP TABLE IF EXISTS "+s.table)
	}
	switch s.layout {
	case "column":
		stmts = append(stmts, "CREATE TABLE IF NOT EXISTS "+s.table+" (ycsb_key text PRIMARY KEY, data jsonb NOT NULL)")
	case "document":
		idx := pgx.Identifier{sc.Table + "_ycsb_key"}.Sanitize()
		stmts = append(stmts, "CREATE TABLE IF NOT EXISTS "+s.table+" (data jsonb NOT NULL)",
			"CREATE INDEX IF NOT EXISTS "+idx+" ON "+s.table+" ((data->>'YCSB_KEY'))")
	}
	for _, q := range stmts {
		if _, err := s.admin.Exec(ctx, q); err != nil {
			return fmt.Errorf("postgres setup: %s: %w", q, err)
		}
	}
	return nil
}

func (s *store) Info(ctx context.Context) (db.Info, error) {
	info := db.Info{Backend: "postgres", Settings: map[string]string{}, Layout: map[string]string{"layout": s.layout, "table": s.table}}
	if s.managed != nil {
		info.Settings["managed"] = "embedded " + s.managed.Version
	}
	switch s.layout {
	case "column":
		info.Layout["key"] = "ycsb_key text PRIMARY KEY (btree)"
	case "document":
		info.Layout["key"] = "btree on (data->>'YCSB_KEY')"
	}
	info.Layout["document"] = "data jsonb"
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

func (s *store) NewSession(ctx context.Context) (db.Session, error) {
	conn, err := pgx.ConnectConfig(ctx, s.connCfg)
	if err != nil {
		return nil, fmt.Errorf("target %s: %v", db.Redact(s.cfg.Target), err)
	}
	ss := &session{conn: conn, layout: s.layout, table: s.table, proj: map[string]string{}, segs: map[string][]string{}}
	keyExpr := "ycsb_key"
	readAll := "data"
	if s.layout == "document" {
		keyExpr = "(data->>'YCSB_KEY')"
		readAll = "data - 'YCSB_KEY'"
	}
	ss.keyExpr = keyExpr
	stmts := map[string]string{
		"read":    "SELECT " + readAll + " FROM " + s.table + " WHERE " + keyExpr + " = $1",
		"merge":   "UPDATE " + s.table + " SET data = data || $2::jsonb WHERE " + keyExpr + " = $1",
		"replace": "UPDATE " + s.table + " SET data = $2::jsonb WHERE " + keyExpr + " = $1",
		"scan":    "SELECT " + readAll + " FROM " + s.table + " WHERE " + keyExpr + " >= $1 ORDER BY " + keyExpr + " LIMIT $2",
		"delete":  "DELETE FROM " + s.table + " WHERE " + keyExpr + " = $1",
	}
	switch s.layout {
	case "column":
		stmts["insert"] = "INSERT INTO " + s.table + " (ycsb_key, data) VALUES ($1, $2::jsonb)"
	case "document":
		stmts["insert"] = "INSERT INTO " + s.table + " (data) VALUES ($1::jsonb)"
		// the document written must keep its key
		stmts["replace"] = "UPDATE " + s.table + " SET data = jsonb_build_object('YCSB_KEY', $1::text) || $2::jsonb WHERE " + keyExpr + " = $1"
	}
	for name, q := range stmts {
		if _, err := conn.Prepare(ctx, name, q); err != nil {
			conn.Close(ctx)
			return nil, fmt.Errorf("postgres prepare %s: %w", q, err)
		}
	}
	return ss, nil
}

type session struct {
	conn    *pgx.Conn
	layout  string
	table   string
	keyExpr string
	proj    map[string]string   // field list → prepared statement name
	partial []string            // partial update statement names by path count
	segs    map[string][]string // dotted path → segments (text[] parameter)
	args    []any
	doc     []byte  // document layout: the document with its key
	rows    [][]any // COPY rows, reused
}

var (
	_ db.Session       = (*session)(nil)
	_ db.BatchInserter = (*session)(nil)
)

// withKey returns doc with "YCSB_KEY" as its first member (document layout).
func (s *session) withKey(key, doc []byte) []byte {
	s.doc = append(s.doc[:0], `{"YCSB_KEY":"`...)
	s.doc = append(s.doc, key...) // keys are plain ASCII: no escaping needed
	s.doc = append(s.doc, '"')
	if len(doc) > 2 {
		s.doc = append(s.doc, ',')
		s.doc = append(s.doc, doc[1:]...)
	} else {
		s.doc = append(s.doc, '}')
	}
	return s.doc
}

func (s *session) Insert(ctx context.Context, key, doc []byte) error {
	var err error
	if s.layout == "document" {
		_, err = s.conn.Exec(ctx, "insert", s.withKey(key, doc))
	} else {
		_, err = s.conn.Exec(ctx, "insert", key, doc)
	}
	return err
}

func (s *session) InsertBatch(ctx context.Context, keys, docs [][]byte) error {
	s.rows = s.rows[:0]
	cols := []string{"ycsb_key", "data"}
	for i := range keys {
		if s.layout == "document" {
			d := s.withKey(keys[i], docs[i])
			s.rows = append(s.rows, []any{append([]byte(nil), d...)})
		} else {
			s.rows = append(s.rows, []any{keys[i], docs[i]})
		}
	}
	if s.layout == "document" {
		cols = []string{"data"}
	}
	ident := strings.Split(s.table, ".")
	for i := range ident {
		ident[i] = strings.Trim(ident[i], `"`)
	}
	_, err := s.conn.CopyFrom(ctx, pgx.Identifier(ident), cols, pgx.CopyFromRows(s.rows))
	return err
}

// projection returns the name of the prepared statement reading only fields.
func (s *session) projection(ctx context.Context, fields []string, scan bool) (string, error) {
	k := strings.Join(fields, "\x00")
	if scan {
		k = "scan\x00" + k
	}
	if name, ok := s.proj[k]; ok {
		return name, nil
	}
	var b strings.Builder
	b.WriteString("SELECT jsonb_build_object(")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteLiteral(f) + "::text, " + pathExpr(f))
	}
	b.WriteString(") FROM " + s.table)
	if scan {
		b.WriteString(" WHERE " + s.keyExpr + " >= $1 ORDER BY " + s.keyExpr + " LIMIT $2")
	} else {
		b.WriteString(" WHERE " + s.keyExpr + " = $1")
	}
	name := fmt.Sprintf("proj%d", len(s.proj))
	if _, err := s.conn.Prepare(ctx, name, b.String()); err != nil {
		return "", err
	}
	s.proj[k] = name
	return name, nil
}

// pathExpr is the jsonb expression for a dotted path: data->'a' for a
// top-level field, data #> '{a,b}' below.
func pathExpr(path string) string {
	segs := db.PathSegments(path)
	if len(segs) == 1 {
		return "data->" + quoteLiteral(path)
	}
	return "data #> " + quoteLiteral(textArray(segs))
}

// textArray renders a text[] literal ('{a,b}' with elements quoted).
func textArray(segs []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range segs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

func quoteLiteral(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// jsonValue returns a jsonb column value as JSON text, whichever format the
// server sent it in.
func jsonValue(rows pgx.Rows) []byte {
	v := rows.RawValues()[0]
	if rows.FieldDescriptions()[0].Format == pgx.BinaryFormatCode && len(v) > 0 {
		v = v[1:] // jsonb binary format: version byte 1, then the text
	}
	return v
}

func (s *session) Read(ctx context.Context, key []byte, fields []string, dst []byte) ([]byte, error) {
	stmt := "read"
	if fields != nil {
		var err error
		if stmt, err = s.projection(ctx, fields, false); err != nil {
			return dst, err
		}
	}
	rows, err := s.conn.Query(ctx, stmt, key)
	if err != nil {
		return dst, err
	}
	defer rows.Close()
	if !rows.Next() {
		rows.Close()
		if err := rows.Err(); err != nil {
			return dst, err
		}
		return dst, db.ErrNotFound
	}
	dst = append(dst, jsonValue(rows)...)
	rows.Close()
	return dst, rows.Err()
}

func (s *session) Update(ctx context.Context, key []byte, u *db.Update) error {
	var tag pgconn.CommandTag
	var err error
	switch u.Mode {
	case db.Merge:
		tag, err = s.conn.Exec(ctx, "merge", key, u.Doc)
	case db.Replace:
		tag, err = s.conn.Exec(ctx, "replace", key, u.Doc)
	case db.Partial:
		var name string
		if name, err = s.partialStmt(ctx, len(u.Paths)); err != nil {
			return err
		}
		s.args = append(s.args[:0], key)
		for i, p := range u.Paths {
			segs, ok := s.segs[p]
			if !ok {
				segs = db.PathSegments(p)
				s.segs[p] = segs
			}
			s.args = append(s.args, segs, u.Values[i])
		}
		tag, err = s.conn.Exec(ctx, name, s.args...)
	default:
		return fmt.Errorf("postgres: update mode %v", u.Mode)
	}
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return db.ErrNotFound
	}
	return nil
}

// partialStmt prepares (once per path count) the in-place update
// data = jsonb_set(jsonb_set(data, $2, $3), $4, $5)….
func (s *session) partialStmt(ctx context.Context, n int) (string, error) {
	for len(s.partial) <= n {
		s.partial = append(s.partial, "")
	}
	if s.partial[n] != "" {
		return s.partial[n], nil
	}
	expr := "data"
	for i := range n {
		expr = fmt.Sprintf("jsonb_set(%s, $%d::text[], $%d::jsonb)", expr, 2+2*i, 3+2*i)
	}
	name := fmt.Sprintf("partial%d", n)
	q := "UPDATE " + s.table + " SET data = " + expr + " WHERE " + s.keyExpr + " = $1"
	if _, err := s.conn.Prepare(ctx, name, q); err != nil {
		return "", fmt.Errorf("postgres prepare %s: %w", q, err)
	}
	s.partial[n] = name
	return name, nil
}

func (s *session) Scan(ctx context.Context, start []byte, count int, fields []string) (int, error) {
	stmt := "scan"
	if fields != nil {
		var err error
		if stmt, err = s.projection(ctx, fields, true); err != nil {
			return 0, err
		}
	}
	rows, err := s.conn.Query(ctx, stmt, start, count)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		_ = jsonValue(rows)
		n++
	}
	return n, rows.Err()
}

func (s *session) Delete(ctx context.Context, key []byte) error {
	tag, err := s.conn.Exec(ctx, "delete", key)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return db.ErrNotFound
	}
	return nil
}

func (s *session) Close() error {
	return s.conn.Close(context.Background())
}
