package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/netio"
)

// keyPred returns the WHERE predicate finding a document by key ($1) and the
// expression scans order by.
func (s *store) keyPred() (pred, order string) {
	switch {
	case s.v.doctype == "hstore":
		return s.hstoreKeyPred()
	case s.v.layout != "document":
		return "ycsb_key = $1", "ycsb_key"
	case s.v.keylookup == "contains":
		return "data @> $1::jsonb", "(data->>'YCSB_KEY')"
	case s.v.keylookup == "build_object":
		return "data @> jsonb_build_object('YCSB_KEY', $1::text)", "(data->>'YCSB_KEY')"
	case s.v.keylookup == "jsonpath":
		return "data @@ $1::jsonpath", "(data->>'YCSB_KEY')"
	}
	return "(data->>'YCSB_KEY') = $1", "(data->>'YCSB_KEY')"
}

// docExpr is the expression reading a whole document (without YCSB_KEY).
func (s *store) docExpr() string {
	if s.v.doctype == "hstore" {
		return s.hstoreDocExpr()
	}
	switch s.v.layout {
	case "document":
		if s.v.textual() {
			return "(data::jsonb - 'YCSB_KEY')"
		}
		return "(data - 'YCSB_KEY')"
	case "relational":
		return s.relDocExpr()
	}
	return "data"
}

// valueExpr reads the value at a dotted path (for projections).
func (s *store) valueExpr(path string) string {
	if s.v.layout == "relational" {
		return s.relValueExpr(path)
	}
	if s.v.doctype == "hstore" {
		return s.predExpr(path)
	}
	segs := db.PathSegments(path)
	switch s.v.pathop {
	case "arrow":
		e := s.jsonData()
		for _, seg := range segs {
			e += "->" + quoteLiteral(seg)
		}
		return e
	case "subscript":
		e := s.jsonbData()
		if s.v.textual() {
			e = "(" + e + ")"
		}
		for _, seg := range segs {
			e += "[" + quoteLiteral(seg) + "]"
		}
		return e
	case "jsonpath":
		return "jsonb_path_query_first(" + s.jsonbData() + ", " + quoteLiteral(jsonPathOf(segs)) + ")"
	}
	if len(segs) == 1 {
		return s.jsonData() + "->" + quoteLiteral(path)
	}
	return s.jsonData() + " #> " + quoteLiteral(textArray(segs))
}

// jsonPathOf renders segments as an SQL/JSON path ($."a"."b").
func jsonPathOf(segs []string) string {
	var b strings.Builder
	b.WriteString("$")
	for _, s := range segs {
		b.WriteString(`."` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`)
	}
	return b.String()
}

// asDoctype converts a jsonb expression to the column's type.
func (s *store) asDoctype(jsonbExpr string) string {
	if s.v.textual() {
		return "(" + jsonbExpr + ")::" + s.v.doctype
	}
	return jsonbExpr
}

// jsonbData is the document column as jsonb.
func (s *store) jsonbData() string {
	if s.v.textual() {
		return "data::jsonb"
	}
	return "data"
}

// jsonData is the document column where json's operators (-> and #>) read
// it: as it is, or cast to json from text.
func (s *store) jsonData() string {
	if s.v.doctype == "text" {
		return "(data::json)"
	}
	return "data"
}

// mode is the I/O mode of the sessions of a phase of s.cfg.Threads.
func (s *store) mode() netio.Mode { return netio.Resolve(s.io, s.cfg.Threads) }

// HoldsThreads says whether sessions block their threads in the kernel
// (pg.io=blocking, netio.BlockingConn); auto: when that pays for the
// phase's threads.
func (s *store) HoldsThreads() bool { return s.mode() == netio.Blocking }

// SetThreads sizes the sessions opened next for a phase of threads: auto
// decides their I/O mode for it.
func (s *store) SetThreads(_ context.Context, threads int) error {
	s.cfg.Threads = threads
	return nil
}

// IOMode is the I/O mode of the session's connection (below TLS, if any).
func (s *session) IOMode() string { return string(netio.ModeOf(s.pg.Conn())) }

func (s *store) NewSession(ctx context.Context) (db.Session, error) {
	if err := s.variantNeeds(); err != nil {
		return nil, err
	}
	cc := s.connCfg
	if m := s.mode(); m != netio.Net {
		cc = cc.Copy()
		cc.DialFunc = netio.Dial(m, cc.DialFunc)
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("target %s: %v", db.Redact(s.cfg.Target), err)
	}
	pred, order := s.keyPred()
	ss := &session{conn: conn, pg: conn.PgConn(), st: s, pred: pred, order: order, proj: map[string]string{},
		segs: map[string][]string{}, queries: map[string]string{}}
	ss.watch = netio.NewWatch(ss.pg.Conn())
	ss.watch.OnCancel(ss.cancel)
	stmts := map[string]string{
		"read":   "SELECT " + s.docExpr() + " FROM " + s.table + " WHERE " + pred,
		"scan":   "SELECT " + s.docExpr() + " FROM " + s.table + " WHERE " + order + " >= $1 ORDER BY " + order + " LIMIT $2",
		"delete": "DELETE FROM " + s.table + " WHERE " + pred,
	}
	switch s.v.layout {
	case "column":
		stmts["insert"] = "INSERT INTO " + s.table + " (ycsb_key, data) VALUES ($1, $2::" + s.v.doctype + ")"
		stmts["merge"] = "UPDATE " + s.table + " SET data = " + s.asDoctype(s.jsonbData()+" || $2::jsonb") + " WHERE " + pred
		stmts["replace"] = "UPDATE " + s.table + " SET data = $2::" + s.v.doctype + " WHERE " + pred
	case "document":
		stmts["insert"] = "INSERT INTO " + s.table + " (data) VALUES ($1::" + s.v.doctype + ")"
		stmts["merge"] = "UPDATE " + s.table + " SET data = " + s.asDoctype(s.jsonbData()+" || $2::jsonb") + " WHERE " + pred
		stmts["replace"] = "UPDATE " + s.table + " SET data = $2::" + s.v.doctype + " WHERE " + pred // $2 carries YCSB_KEY
	case "relational":
		ss.rel = newRelSession(s)
		for k, q := range ss.rel.statements() {
			stmts[k] = q
		}
	}
	if s.v.doctype == "hstore" {
		s.hstoreStatements(stmts, pred)
	}
	ss.descs = make(map[string]*pgconn.StatementDescription, len(stmts))
	for name, q := range stmts {
		d, err := conn.Prepare(ctx, name, q)
		if err != nil {
			conn.Close(ctx)
			if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && (pe.Code == "42P01" || pe.Code == "3F000") {
				// undefined_table, invalid_schema_name: never loaded
				return nil, fmt.Errorf("postgres: %w (%v)", db.ErrNoTable, err)
			}
			return nil, fmt.Errorf("postgres prepare: %w (statement: %s)", err, q)
		}
		ss.descs[name] = d
	}
	return ss, nil
}

type session struct {
	conn *pgx.Conn
	// pg is conn's protocol connection. The core operations of the column
	// and document layouts run their prepared statements on it directly,
	// with text parameters and results in reused buffers: pgx's Query
	// (argument boxing and encoding, its Rows, the statement cache) cost a
	// few microseconds of client CPU per operation (docs/performance.md).
	pg      *pgconn.PgConn
	watch   *netio.Watch                            // the context of pg's statements
	params  [][]byte                                // parameters of the current statement
	descs   map[string]*pgconn.StatementDescription // prepared statements by name
	num     []byte                                  // a number parameter as text
	st      *store
	pred    string
	order   string
	proj    map[string]string   // field list → prepared statement name
	partial []string            // partial update statement names by path count
	segs    map[string][]string // dotted path → segments (text[] parameter)
	queries map[string]string   // query shape → prepared statement name
	args    []any
	keyBuf  []byte // key predicate argument for containment/jsonpath lookups
	doc     []byte // document layout: the document with its key
	rows    [][]any
	rel     *relSession
	hs      hstoreBuf // doctype=hstore conversions
	stmts   userStmts // statements of the user's by text
	direct  direct    // the messages of run
}

var (
	_ db.Session       = (*session)(nil)
	_ db.BatchInserter = (*session)(nil)
	_ db.Querier       = (*session)(nil)
)

// keyArg is the argument $1 of the key predicate, for pgx's query path.
func (s *session) keyArg(key []byte) any {
	p := s.keyParam(key)
	if s.st.v.layout == "document" && s.st.v.keylookup == "jsonpath" {
		return string(p) // jsonpath has no binary input from []byte
	}
	return p
}

// withKey returns doc with "YCSB_KEY" as its first member (document layout).
func (s *session) withKey(key, doc []byte) []byte {
	s.doc = db.AppendWithKey(s.doc[:0], key, doc)
	return s.doc
}

func (s *session) Insert(ctx context.Context, key, doc []byte) error {
	if s.st.v.doctype == "hstore" {
		return s.hstoreInsert(ctx, key, doc)
	}
	var err error
	switch s.st.v.layout {
	case "document":
		_, err = s.execTag(ctx, "insert", s.withKey(key, doc))
	case "relational":
		err = s.rel.insert(ctx, s.conn, key, doc)
	default:
		_, err = s.execTag(ctx, "insert", key, doc)
	}
	return err
}

func (s *session) InsertBatch(ctx context.Context, keys, docs [][]byte) error {
	if s.st.v.layout == "relational" {
		return s.rel.insertBatch(ctx, s.conn, keys, docs)
	}
	if s.st.v.doctype == "hstore" {
		return s.hstoreInsertBatch(ctx, keys, docs)
	}
	s.rows = s.rows[:0]
	cols := []string{"ycsb_key", "data"}
	if s.st.v.layout == "document" {
		cols = []string{"data"}
	}
	for i := range keys {
		if s.st.v.layout == "document" {
			s.rows = append(s.rows, []any{append([]byte(nil), s.withKey(keys[i], docs[i])...)})
		} else {
			s.rows = append(s.rows, []any{keys[i], docs[i]})
		}
	}
	_, err := s.conn.CopyFrom(ctx, pgx.Identifier{s.st.schema, s.st.tableRaw}, cols, pgx.CopyFromRows(s.rows))
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
	q := "SELECT " + s.st.projectExpr(fields) + " FROM " + s.st.table
	if scan {
		q += " WHERE " + s.order + " >= $1 ORDER BY " + s.order + " LIMIT $2"
	} else {
		q += " WHERE " + s.pred
	}
	name := fmt.Sprintf("proj%d", len(s.proj))
	d, err := s.conn.Prepare(ctx, name, q)
	if err != nil {
		return "", fmt.Errorf("postgres prepare: %w (statement: %s)", err, q)
	}
	s.descs[name] = d
	s.proj[k] = name
	return name, nil
}

// projectExpr builds the JSON object of the given paths, in chunks of 50
// pairs: jsonb_build_object takes at most 100 arguments.
func (s *store) projectExpr(fields []string) string {
	var parts []string
	for start := 0; start < len(fields); start += 50 {
		var b strings.Builder
		b.WriteString("jsonb_build_object(")
		for i, f := range fields[start:min(start+50, len(fields))] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quoteLiteral(f) + "::text, " + s.valueExpr(f))
		}
		b.WriteString(")")
		parts = append(parts, b.String())
	}
	if len(parts) == 0 {
		return "'{}'::jsonb"
	}
	return "(" + strings.Join(parts, " || ") + ")"
}

func (s *session) Read(ctx context.Context, key []byte, fields []string, dst []byte) ([]byte, error) {
	stmt := "read"
	if fields != nil {
		var err error
		if stmt, err = s.projection(ctx, fields, false); err != nil {
			return dst, err
		}
	}
	s.params = append(s.params[:0], s.keyParam(key))
	dst, rows, err := s.run(ctx, stmt, dst)
	if err != nil {
		return dst, err
	}
	if rows == 0 {
		return dst, db.ErrNotFound
	}
	return dst, nil
}

// exec runs a prepared statement on the protocol connection with the given
// text parameters (kept in s.params; nil is SQL NULL) and text results. The
// statement's description, kept from preparing it, spares a Describe (and
// the decoding of a row description) per execution. ctx is watched by
// s.watch, not by pgconn; the caller reads the results and hands the
// reader to finish.
func (s *session) exec(ctx context.Context, stmt string, params ...[]byte) (*pgconn.ResultReader, error) {
	pctx, err := s.watch.Begin(ctx)
	if err != nil {
		return nil, err
	}
	s.params = append(s.params[:0], params...)
	if d := s.descs[stmt]; d != nil {
		return s.pg.ExecStatement(pctx, d, s.params, nil, nil), nil
	}
	return s.pg.ExecPrepared(pctx, stmt, s.params, nil, nil), nil
}

// cancel asks the server to stop the statement in flight (a CancelRequest
// on a connection of its own), for the session's watch.
func (s *session) cancel(ctx context.Context) error {
	err := s.pg.CancelRequest(ctx)
	// The server hands the request to the session's backend as a signal,
	// which may land a moment later: wait before the session's next
	// statement can start, as pgx's CancelRequestContextWatcherHandler does.
	time.Sleep(100 * time.Millisecond)
	return err
}

// finish closes the results of a statement run by exec under ctx.
func (s *session) finish(ctx context.Context, rr *pgconn.ResultReader) (pgconn.CommandTag, error) {
	tag, err := rr.Close()
	return tag, s.watch.End(ctx, err)
}

// execTag runs a prepared statement that returns no rows, for the count
// of rows it wrote.
func (s *session) execTag(ctx context.Context, stmt string, params ...[]byte) (int64, error) {
	s.params = append(s.params[:0], params...)
	_, rows, err := s.run(ctx, stmt, nil)
	return rows, err
}

// keyParam is keyArg as a text parameter.
func (s *session) keyParam(key []byte) []byte {
	switch {
	case s.st.v.layout != "document" || s.st.v.doctype == "hstore":
		return key
	case s.st.v.keylookup == "contains":
		s.keyBuf = append(append(append(s.keyBuf[:0], `{"YCSB_KEY":"`...), key...), `"}`...)
		return s.keyBuf
	case s.st.v.keylookup == "jsonpath":
		s.keyBuf = append(append(append(s.keyBuf[:0], `$.YCSB_KEY == "`...), key...), '"')
		return s.keyBuf
	}
	return key
}

func (s *session) Update(ctx context.Context, key []byte, u *db.Update) error {
	if s.st.v.layout == "relational" {
		return s.rel.update(ctx, s.conn, key, u)
	}
	if s.st.v.doctype == "hstore" {
		return s.hstoreUpdate(ctx, key, u)
	}
	var rows int64
	var err error
	switch u.Mode {
	case db.Merge:
		rows, err = s.execTag(ctx, "merge", s.keyParam(key), u.Doc)
	case db.Replace:
		doc := u.Doc
		if s.st.v.layout == "document" {
			doc = s.withKey(key, doc)
		}
		rows, err = s.execTag(ctx, "replace", s.keyParam(key), doc)
	case db.Partial:
		var name string
		if name, err = s.partialStmt(ctx, len(u.Paths)); err != nil {
			return err
		}
		s.args = append(s.args[:0], s.keyArg(key))
		for i, p := range u.Paths {
			s.args = append(s.args, s.segments(p), u.Values[i])
		}
		var tag pgconn.CommandTag
		tag, err = s.conn.Exec(ctx, name, s.args...)
		rows = tag.RowsAffected()
	default:
		return fmt.Errorf("postgres: update mode %v", u.Mode)
	}
	if err != nil {
		return err
	}
	if rows == 0 {
		return db.ErrNotFound
	}
	return nil
}

// segments returns a path's segments, split once per path.
func (s *session) segments(p string) []string {
	segs, ok := s.segs[p]
	if !ok {
		segs = db.PathSegments(p)
		s.segs[p] = segs
	}
	return segs
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
	expr := s.st.jsonbData()
	for i := range n {
		expr = fmt.Sprintf("jsonb_set(%s, $%d::text[], $%d::jsonb)", expr, 2+2*i, 3+2*i)
	}
	name := fmt.Sprintf("partial%d", n)
	q := "UPDATE " + s.st.table + " SET data = " + s.st.asDoctype(expr) + " WHERE " + s.pred
	if s.st.v.doctype == "hstore" {
		q = s.st.hstorePartialSQL(n, s.pred)
	}
	if _, err := s.conn.Prepare(ctx, name, q); err != nil {
		return "", fmt.Errorf("postgres prepare: %w (statement: %s)", err, q)
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
	s.num = strconv.AppendInt(s.num[:0], int64(count), 10)
	rr, err := s.exec(ctx, stmt, start, s.num)
	if err != nil {
		return 0, err
	}
	n := 0
	for rr.NextRow() {
		_ = rr.Values()[0]
		n++
	}
	_, err = s.finish(ctx, rr)
	return n, err
}

func (s *session) Delete(ctx context.Context, key []byte) error {
	if s.st.v.layout == "relational" {
		return s.rel.delete(ctx, s.conn, key)
	}
	rows, err := s.execTag(ctx, "delete", s.keyParam(key))
	if err != nil {
		return err
	}
	if rows == 0 {
		return db.ErrNotFound
	}
	return nil
}

func (s *session) Close() error {
	s.watch.Close()
	return s.conn.Close(context.Background())
}

// FlushStats has the server take this session's counters now
// (db.StatsFlusher). From PostgreSQL 15 a backend reports them when it goes
// idle, at most once a second: pg_stat_force_next_flush() makes the end of
// its own statement report them. Before 15 it sends them to the collector
// at the end of a transaction at least half a second after the last: one
// statement after that long sends them.
func (s *session) FlushStats(ctx context.Context) error {
	if serverMajor(s.conn) >= 15 {
		_, err := s.conn.Exec(ctx, "SELECT pg_stat_force_next_flush()")
		return err
	}
	select {
	case <-time.After(510 * time.Millisecond):
	case <-ctx.Done():
		return ctx.Err()
	}
	_, err := s.conn.Exec(ctx, "SELECT 1")
	return err
}

var _ db.StatsFlusher = (*session)(nil)
