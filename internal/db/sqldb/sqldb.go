// Package sqldb is what the database/sql backends (MySQL/MariaDB and
// SQLite) share: a session base that owns one connection and the statements
// prepared on it (with their texts, for Explain), the partial-update
// statements by path count, projections by field list, the statements of
// the user's, reusable scan destinations and the row-counting loop. What
// differs between the servers is data: a Dialect.
package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"unsafe"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/netio"
)

// Dialect is what differs between the database/sql servers.
type Dialect struct {
	// Name names the server in errors ("sqlite", "mariadb", …).
	Name string
	// JSONPath renders a dotted path in the server's JSON path syntax.
	JSONPath func(path string) string
	// Select is the select list reading fields (dotted paths) of the data
	// column. With keys nil it is one column holding the JSON object;
	// else one column per field, keys[i] the `"field":` that precedes
	// column i in the object the session assembles (NULL columns left out).
	Select func(fields []string) (list string, keys [][]byte)
	// SetPaths is the UPDATE of table that writes n JSON paths in place;
	// its arguments are n pairs (JSON path, value as JSON text), then the key.
	SetPaths func(table string, n int) string
	// TextArgs binds keys and documents as strings, not []byte (SQLite: a
	// []byte binds as a BLOB, which never equals a TEXT key).
	TextArgs bool
}

// Proj is a prepared projection: the statement and the object keys of its
// columns (nil: one column, the object itself).
type Proj struct {
	Stmt *sql.Stmt
	Keys [][]byte
}

// Session is the shared part of a database/sql session; backends embed it.
// Set Conn, Table (as statements name it: quoted, qualified where the
// server wants it) and Dialect; the rest is ready as the zero value.
type Session struct {
	Conn    *sql.Conn
	Table   string
	Dialect Dialect
	// Watch, when set, watches the statements' contexts for the driver,
	// which then gets a context that is never done (netio.Watch); nil: the
	// driver watches each statement's context itself.
	Watch *netio.Watch
	// Texts are the texts of the statements prepared through Prepare, for
	// Explain; Close closes them all.
	Texts map[*sql.Stmt]string
	// Args and Key are scratch for the backends' own statements: arguments
	// and statement-cache keys built without allocating.
	Args []any
	Key  []byte

	partial []*sql.Stmt          // partial updates by path count
	proj    map[string]*Proj     // projections by field list (+ scan flag)
	paths   map[string]string    // dotted path → JSON path
	user    map[string]*sql.Stmt // statements of the user's by text
	raw     []sql.RawBytes
	dest    []any

	params map[*sql.Stmt]int // placeholders of each statement of the user's (Script)
}

// Prepare prepares q on the session's connection and keeps its text.
func (s *Session) Prepare(ctx context.Context, q string) (*sql.Stmt, error) {
	qctx, err := s.Watch.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s prepare: %w (statement: %s)", s.Dialect.Name, err, q)
	}
	st, err := s.Conn.PrepareContext(qctx, q)
	if err = s.Watch.End(ctx, err); err != nil {
		return nil, fmt.Errorf("%s prepare: %w (statement: %s)", s.Dialect.Name, err, q)
	}
	if s.Texts == nil {
		s.Texts = map[*sql.Stmt]string{}
	}
	s.Texts[st] = q
	return st, nil
}

// Prep is a statement for PrepareAll: its text and where it goes.
type Prep struct {
	Dst  **sql.Stmt
	Text string
}

// PrepareAll prepares each statement into its destination, stopping at the
// first error.
func (s *Session) PrepareAll(ctx context.Context, stmts ...Prep) error {
	for _, p := range stmts {
		var err error
		if *p.Dst, err = s.Prepare(ctx, p.Text); err != nil {
			return err
		}
	}
	return nil
}

// JSONPath returns the JSON path of a dotted path, cached.
func (s *Session) JSONPath(p string) string {
	if jp, ok := s.paths[p]; ok {
		return jp
	}
	if s.paths == nil {
		s.paths = map[string]string{}
	}
	jp := s.Dialect.JSONPath(p)
	s.paths[p] = jp
	return jp
}

// Text views b as a string without copying; the driver copies it during
// the call it is bound to.
func Text(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// bind returns b as the dialect binds keys and documents.
func (s *Session) bind(b []byte) any {
	if s.Dialect.TextArgs {
		return Text(b)
	}
	return b
}

// PartialStmt returns the in-place update of n paths (Dialect.SetPaths),
// prepared once per path count.
func (s *Session) PartialStmt(ctx context.Context, n int) (*sql.Stmt, error) {
	for len(s.partial) <= n {
		s.partial = append(s.partial, nil)
	}
	if s.partial[n] != nil {
		return s.partial[n], nil
	}
	st, err := s.Prepare(ctx, s.Dialect.SetPaths(s.Table, n))
	if err != nil {
		return nil, err
	}
	s.partial[n] = st
	return st, nil
}

// Set writes each of paths to its value (JSON text) in the row of key.
func (s *Session) Set(ctx context.Context, key []byte, paths []string, values [][]byte) (sql.Result, error) {
	st, err := s.PartialStmt(ctx, len(paths))
	if err != nil {
		return nil, err
	}
	s.Args = s.appendSetArgs(s.Args[:0], key, paths, values)
	return s.Exec(ctx, st, s.Args...)
}

// appendSetArgs appends the arguments of PartialStmt(len(paths)).
func (s *Session) appendSetArgs(dst []any, key []byte, paths []string, values [][]byte) []any {
	for i, p := range paths {
		dst = append(dst, s.JSONPath(p), s.bind(values[i]))
	}
	return append(dst, s.bind(key))
}

// Affected turns "no row matched" into db.ErrNotFound.
func Affected(res sql.Result, err error) error {
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

// Projection returns the statement reading only fields of the row of a
// key, or with scan of the rows from a key on (arguments: start, limit),
// prepared once per field list.
func (s *Session) Projection(ctx context.Context, fields []string, scan bool) (*Proj, error) {
	s.Key = s.Key[:0]
	if scan {
		s.Key = append(s.Key, "scan\x00"...)
	}
	for _, f := range fields {
		s.Key = append(s.Key, f...)
		s.Key = append(s.Key, 0)
	}
	if p, ok := s.proj[string(s.Key)]; ok {
		return p, nil
	}
	key := string(s.Key)
	list, keys := s.Dialect.Select(fields)
	q := "SELECT " + list + " FROM " + s.Table
	if scan {
		q += " WHERE ycsb_key >= ? ORDER BY ycsb_key LIMIT ?"
	} else {
		q += " WHERE ycsb_key = ?"
	}
	st, err := s.Prepare(ctx, q)
	if err != nil {
		return nil, err
	}
	if s.proj == nil {
		s.proj = map[string]*Proj{}
	}
	p := &Proj{Stmt: st, Keys: keys}
	s.proj[key] = p
	return p, nil
}

// Columns is how many columns a statement reading documents through keys
// produces (see Proj).
func Columns(keys [][]byte) int { return max(len(keys), 1) }

// scanDest returns n reusable scan destinations.
func (s *Session) scanDest(n int) []any {
	for len(s.raw) < n {
		s.raw = append(s.raw, nil)
	}
	s.dest = s.dest[:0]
	for i := range n {
		s.dest = append(s.dest, &s.raw[i])
	}
	return s.dest
}

// ReadDoc runs st, a query of one row, and appends the document it reads to
// dst: its one column, or with keys the object of its non-NULL columns.
// No row is db.ErrNotFound.
func (s *Session) ReadDoc(ctx context.Context, st *sql.Stmt, keys [][]byte, dst []byte, args ...any) (_ []byte, err error) {
	qctx, err := s.Watch.Begin(ctx)
	if err != nil {
		return dst, err
	}
	defer func() { err = s.Watch.End(ctx, err) }()
	rows, err := st.QueryContext(qctx, args...)
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
	if err := rows.Scan(s.scanDest(Columns(keys))...); err != nil {
		return dst, err
	}
	if keys == nil {
		dst = append(dst, s.raw[0]...)
	} else {
		dst = s.appendObject(dst, keys)
	}
	if err := rows.Close(); err != nil {
		return dst, err
	}
	return dst, rows.Err()
}

// appendObject appends the current row as a JSON object; columns that are
// SQL NULL (paths the document lacks) are left out.
func (s *Session) appendObject(dst []byte, keys [][]byte) []byte {
	dst = append(dst, '{')
	first := true
	for i, k := range keys {
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

// Count runs st and returns how many rows it produced, each scanned into
// cols reusable destinations (none when cols is 0: the columns are not
// read).
func (s *Session) Count(ctx context.Context, st *sql.Stmt, cols int, args ...any) (_ int, err error) {
	return s.CountKeys(ctx, st, cols, nil, args...)
}

// CountKeys is Count appending, when keys is not nil, each row's first
// column (a secondary query's key: db.Query.Keys) to keys.
func (s *Session) CountKeys(ctx context.Context, st *sql.Stmt, cols int, keys *[]string, args ...any) (_ int, err error) {
	qctx, err := s.Watch.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { err = s.Watch.End(ctx, err) }()
	rows, err := st.QueryContext(qctx, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	dest := s.scanDest(cols)
	n := 0
	for rows.Next() {
		if cols > 0 {
			if err := rows.Scan(dest...); err != nil {
				return n, err
			}
			if keys != nil {
				*keys = append(*keys, string(s.raw[0]))
			}
		}
		n++
	}
	// Next has closed rows; the deferred Close is the only other (each Close
	// costs database/sql an allocation).
	return n, rows.Err()
}

// Exec runs st, a statement that returns no rows.
func (s *Session) Exec(ctx context.Context, st *sql.Stmt, args ...any) (sql.Result, error) {
	qctx, err := s.Watch.Begin(ctx)
	if err != nil {
		return nil, err
	}
	res, err := st.ExecContext(qctx, args...)
	return res, s.Watch.End(ctx, err)
}

// Close closes every statement prepared through the session and the
// connection.
func (s *Session) Close() error {
	s.Watch.Close()
	var errs []error
	for st := range s.Texts {
		errs = append(errs, st.Close())
	}
	errs = append(errs, s.Conn.Close())
	return errors.Join(errs...)
}
