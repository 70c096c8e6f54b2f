package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/sqlstmt"
)

// session owns one connection and the statements prepared on it.
type session struct {
	conn    *sql.Conn
	d       dialect
	layout  string
	table   string
	indexes map[string]indexCol

	readAll string // select expression of a whole document

	insert, read, merge, replace, scan, del *sql.Stmt

	batch   map[int]*sql.Stmt    // multi-row INSERT by row count
	partial []*sql.Stmt          // JSON_SET update by path count
	proj    map[string]*proj     // projection by field list (+ scan flag)
	queries map[string]*queryStm // secondary queries by shape
	paths   map[string]string    // dotted path → JSON path
	texts   map[*sql.Stmt]string // statement texts, for Explain

	args  []any
	raw   []sql.RawBytes
	dest  []any
	key   []byte        // scratch: statement cache keys
	stmts sqlstmt.Cache // statements of the user's
	doc   []byte        // generated layout: documents with their key
	offs  []int
}

// proj is a prepared projection: one column per path, assembled into a
// JSON object keyed by the paths as given.
type proj struct {
	stmt *sql.Stmt
	keys [][]byte // `"path":` per column
}

var (
	_ db.Session       = (*session)(nil)
	_ db.BatchInserter = (*session)(nil)
	_ db.Querier       = (*session)(nil)
)

func (s *store) NewSession(ctx context.Context) (db.Session, error) {
	if err := s.loadIndexes(ctx); err != nil {
		return nil, err
	}
	conn, err := s.sqlDB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("target %s: %v", db.Redact(s.cfg.Target), oneLine(err))
	}
	ss := &session{conn: conn, d: s.d, layout: s.layout, table: s.table, indexes: s.indexes,
		batch: map[int]*sql.Stmt{}, proj: map[string]*proj{}, queries: map[string]*queryStm{}, paths: map[string]string{}, texts: map[*sql.Stmt]string{}}
	ss.readAll = "data"
	if s.layout == layoutGenerated {
		ss.readAll = "JSON_REMOVE(data, '$.YCSB_KEY')"
	}
	t := s.table
	stmts := []struct {
		dst **sql.Stmt
		q   string
	}{
		{&ss.read, "SELECT " + ss.readAll + " FROM " + t + " WHERE ycsb_key = ?"},
		{&ss.merge, "UPDATE " + t + " SET data = JSON_MERGE_PATCH(data, " + s.d.jsonArg() + ") WHERE ycsb_key = ?"},
		{&ss.replace, "UPDATE " + t + " SET data = ? WHERE ycsb_key = ?"},
		{&ss.scan, "SELECT " + ss.readAll + " FROM " + t + " WHERE ycsb_key >= ? ORDER BY ycsb_key LIMIT ?"},
		{&ss.del, "DELETE FROM " + t + " WHERE ycsb_key = ?"},
	}
	if s.layout == layoutColumn {
		stmts = append(stmts, struct {
			dst **sql.Stmt
			q   string
		}{&ss.insert, "INSERT INTO " + t + " (ycsb_key, data) VALUES (?, ?)"})
	} else {
		stmts = append(stmts, struct {
			dst **sql.Stmt
			q   string
		}{&ss.insert, "INSERT INTO " + t + " (data) VALUES (?)"})
	}
	for _, st := range stmts {
		if *st.dst, err = conn.PrepareContext(ctx, st.q); err != nil {
			conn.Close()
			if me := (*mysqldrv.MySQLError)(nil); errors.As(err, &me) && me.Number == 1146 { // ER_NO_SUCH_TABLE
				return nil, fmt.Errorf("%s: %w (%v)", s.d.flavour(), db.ErrNoTable, err)
			}
			return nil, fmt.Errorf("%s prepare: %w (statement: %s)", s.d.flavour(), err, st.q)
		}
		ss.texts[*st.dst] = st.q
	}
	return ss, nil
}

// withKey appends doc with "YCSB_KEY" as its first member to s.doc
// (generated layout) and returns the appended part's start.
func (s *session) withKey(key, doc []byte) int {
	start := len(s.doc)
	s.doc = append(s.doc, `{"YCSB_KEY":"`...)
	s.doc = append(s.doc, key...) // keys are plain ASCII: no escaping needed
	s.doc = append(s.doc, '"')
	if len(doc) > 2 {
		s.doc = append(s.doc, ',')
		s.doc = append(s.doc, doc[1:]...)
	} else {
		s.doc = append(s.doc, '}')
	}
	return start
}

// Keys and documents are bound as []byte: the driver sends them as strings
// and copies them into its packet during the call.

func (s *session) Insert(ctx context.Context, key, doc []byte) error {
	var err error
	if s.layout == layoutGenerated {
		s.doc = s.doc[:0]
		s.withKey(key, doc)
		_, err = s.insert.ExecContext(ctx, s.doc)
	} else {
		_, err = s.insert.ExecContext(ctx, key, doc)
	}
	return err
}

// InsertBatch writes the batch with one multi-row INSERT, prepared once per
// row count.
func (s *session) InsertBatch(ctx context.Context, keys, docs [][]byte) error {
	n := len(keys)
	if n == 0 {
		return nil
	}
	st, ok := s.batch[n]
	if !ok {
		var b strings.Builder
		row := "(?, ?)"
		if s.layout == layoutGenerated {
			b.WriteString("INSERT INTO " + s.table + " (data) VALUES ")
			row = "(?)"
		} else {
			b.WriteString("INSERT INTO " + s.table + " (ycsb_key, data) VALUES ")
		}
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(row)
		}
		var err error
		if st, err = s.conn.PrepareContext(ctx, b.String()); err != nil {
			return fmt.Errorf("%s prepare batch of %d: %w", s.d.flavour(), n, err)
		}
		s.batch[n] = st
	}
	s.args = s.args[:0]
	if s.layout == layoutGenerated {
		s.doc, s.offs = s.doc[:0], s.offs[:0]
		for i := range keys {
			s.offs = append(s.offs, s.withKey(keys[i], docs[i]))
		}
		s.offs = append(s.offs, len(s.doc))
		for i := range n {
			s.args = append(s.args, s.doc[s.offs[i]:s.offs[i+1]])
		}
	} else {
		for i := range keys {
			s.args = append(s.args, keys[i], docs[i])
		}
	}
	_, err := st.ExecContext(ctx, s.args...)
	return err
}

// jsonPath returns the JSON path of a dotted path, cached.
func (s *session) jsonPath(p string) string {
	if jp, ok := s.paths[p]; ok {
		return jp
	}
	jp := jsonPath(p)
	s.paths[p] = jp
	return jp
}

// projection returns the prepared statement reading only fields.
func (s *session) projection(ctx context.Context, fields []string, scan bool) (*proj, error) {
	s.key = s.key[:0]
	if scan {
		s.key = append(s.key, "scan\x00"...)
	}
	for _, f := range fields {
		s.key = append(s.key, f...)
		s.key = append(s.key, 0)
	}
	if p, ok := s.proj[string(s.key)]; ok {
		return p, nil
	}
	p := &proj{}
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("JSON_EXTRACT(data, " + quoteLiteral(s.jsonPath(f)) + ")")
		k, _ := json.Marshal(f)
		p.keys = append(p.keys, append(k, ':'))
	}
	if len(fields) == 0 {
		b.WriteString("1")
	}
	b.WriteString(" FROM " + s.table)
	if scan {
		b.WriteString(" WHERE ycsb_key >= ? ORDER BY ycsb_key LIMIT ?")
	} else {
		b.WriteString(" WHERE ycsb_key = ?")
	}
	var err error
	if p.stmt, err = s.conn.PrepareContext(ctx, b.String()); err != nil {
		return nil, fmt.Errorf("%s prepare: %w (statement: %s)", s.d.flavour(), err, b.String())
	}
	s.proj[string(s.key)], s.texts[p.stmt] = p, b.String()
	return p, nil
}

// scanDest returns n reusable scan destinations.
func (s *session) scanDest(n int) []any {
	for len(s.raw) < n {
		s.raw = append(s.raw, nil)
	}
	s.dest = s.dest[:0]
	for i := range n {
		s.dest = append(s.dest, &s.raw[i])
	}
	return s.dest
}

// appendObject appends the current row of a projection as a JSON object;
// paths the document lacks (SQL NULL) are left out.
func (s *session) appendObject(dst []byte, p *proj) []byte {
	dst = append(dst, '{')
	first := true
	for i, k := range p.keys {
		if s.raw[i] == nil {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, k...)
		dst = append(dst, s.raw[i]...)
	}
	return append(dst, '}')
}

func (s *session) Read(ctx context.Context, key []byte, fields []string, dst []byte) ([]byte, error) {
	st, n := s.read, 1
	var p *proj
	if fields != nil {
		var err error
		if p, err = s.projection(ctx, fields, false); err != nil {
			return dst, err
		}
		st, n = p.stmt, max(len(fields), 1)
	}
	rows, err := st.QueryContext(ctx, key)
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
	if err := rows.Scan(s.scanDest(n)...); err != nil {
		return dst, err
	}
	if p != nil {
		dst = s.appendObject(dst, p)
	} else {
		dst = append(dst, s.raw[0]...)
	}
	if err := rows.Close(); err != nil {
		return dst, err
	}
	return dst, rows.Err()
}

func (s *session) Update(ctx context.Context, key []byte, u *db.Update) error {
	var res sql.Result
	var err error
	switch u.Mode {
	case db.Merge:
		if len(u.Paths) == 0 || len(u.Paths) != len(u.Values) {
			// No member list: the server's own merge (RFC 7396).
			res, err = s.merge.ExecContext(ctx, u.Doc, key)
			break
		}
		// Set each top-level member whole, as PostgreSQL's || does
		// (JSON_MERGE_PATCH would drop nulls and merge nested objects).
		res, err = s.set(ctx, key, u)
	case db.Replace:
		if s.layout == layoutGenerated {
			s.doc = s.doc[:0]
			s.withKey(key, u.Doc)
			res, err = s.replace.ExecContext(ctx, s.doc, key)
		} else {
			res, err = s.replace.ExecContext(ctx, u.Doc, key)
		}
	case db.Partial:
		if len(u.Paths) != len(u.Values) || len(u.Paths) == 0 {
			return fmt.Errorf("%s: partial update with %d paths and %d values", s.d.flavour(), len(u.Paths), len(u.Values))
		}
		res, err = s.set(ctx, key, u)
	default:
		return fmt.Errorf("%s: update mode %v", s.d.flavour(), u.Mode)
	}
	return affected(res, err)
}

// set writes each of u.Paths to its value with JSON_SET.
func (s *session) set(ctx context.Context, key []byte, u *db.Update) (sql.Result, error) {
	st, err := s.partialStmt(ctx, len(u.Paths))
	if err != nil {
		return nil, err
	}
	s.args = s.args[:0]
	for i, p := range u.Paths {
		s.args = append(s.args, s.jsonPath(p), u.Values[i])
	}
	s.args = append(s.args, key)
	return st.ExecContext(ctx, s.args...)
}

// affected turns "no row matched" into ErrNotFound (the connection reports
// matched rows: CLIENT_FOUND_ROWS).
func affected(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return db.ErrNotFound
	}
	return nil
}

// partialStmt prepares (once per path count) the in-place update
// data = JSON_SET(data, ?, value, ?, value, …).
func (s *session) partialStmt(ctx context.Context, n int) (*sql.Stmt, error) {
	for len(s.partial) <= n {
		s.partial = append(s.partial, nil)
	}
	if s.partial[n] != nil {
		return s.partial[n], nil
	}
	var b strings.Builder
	b.WriteString("UPDATE " + s.table + " SET data = JSON_SET(data")
	for range n {
		b.WriteString(", ?, " + s.d.jsonArg())
	}
	b.WriteString(") WHERE ycsb_key = ?")
	st, err := s.conn.PrepareContext(ctx, b.String())
	if err != nil {
		return nil, fmt.Errorf("%s prepare: %w (statement: %s)", s.d.flavour(), err, b.String())
	}
	s.partial[n], s.texts[st] = st, b.String()
	return st, nil
}

func (s *session) Scan(ctx context.Context, start []byte, count int, fields []string) (int, error) {
	st, n := s.scan, 1
	if fields != nil {
		p, err := s.projection(ctx, fields, true)
		if err != nil {
			return 0, err
		}
		st, n = p.stmt, max(len(fields), 1)
	}
	rows, err := st.QueryContext(ctx, start, count)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	dest := s.scanDest(n)
	read := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return read, err
		}
		read++
	}
	return read, rows.Err()
}

func (s *session) Delete(ctx context.Context, key []byte) error {
	res, err := s.del.ExecContext(ctx, key)
	return affected(res, err)
}

func (s *session) Close() error {
	var errs []error
	for _, st := range []*sql.Stmt{s.insert, s.read, s.merge, s.replace, s.scan, s.del} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	for _, st := range s.batch {
		errs = append(errs, st.Close())
	}
	errs = append(errs, s.stmts.Close())
	for _, st := range s.partial {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	for _, p := range s.proj {
		errs = append(errs, p.stmt.Close())
	}
	for _, q := range s.queries {
		errs = append(errs, q.stmt.Close())
	}
	errs = append(errs, s.conn.Close())
	return errors.Join(errs...)
}

var maxLimit = int64(math.MaxInt64)
