package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"strings"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/netio"
	"github.com/docbench/docbench/internal/db/sqldb"
)

// session owns one connection and the statements prepared on it; the
// database/sql part shared with SQLite is sqldb.Session.
type session struct {
	sqldb.Session
	d       dialect
	layout  string
	indexes map[string]indexCol

	readAll string     // select expression of a whole document
	io      netio.Mode // of the session's connection

	insert, read, merge, replace, scan, del *sql.Stmt

	batch   map[int]*sql.Stmt    // multi-row INSERT by row count
	queries map[string]*queryStm // secondary queries by shape

	doc  []byte // generated layout: documents with their key
	offs []int
}

var (
	_ db.Session       = (*session)(nil)
	_ db.BatchInserter = (*session)(nil)
	_ db.Querier       = (*session)(nil)
	_ db.Statementer   = (*session)(nil)
	_ db.Scripter      = (*session)(nil)
)

// sqlDialect is what the shared database/sql session needs to know of the
// server's dialect.
func (d dialect) sqlDialect() sqldb.Dialect {
	return sqldb.Dialect{
		Name:     d.flavour(),
		JSONPath: jsonPath,
		Select:   selectFields,
		SetPaths: func(table string, n int) string {
			// data = JSON_SET(data, ?, value, ?, value, …): in place on MySQL 8.
			return "UPDATE " + table + " SET data = JSON_SET(data" + strings.Repeat(", ?, "+d.jsonArg(), n) + ") WHERE ycsb_key = ?"
		},
	}
}

// selectFields reads one column per field, assembled by the session into
// an object keyed by the fields as given.
func selectFields(fields []string) (string, [][]byte) {
	var b strings.Builder
	keys := make([][]byte, 0, len(fields))
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("JSON_EXTRACT(data, " + quoteLiteral(jsonPath(f)) + ")")
		k, _ := json.Marshal(f)
		keys = append(keys, append(k, ':'))
	}
	if len(fields) == 0 {
		b.WriteString("1")
	}
	return b.String(), keys
}

func (s *store) NewSession(ctx context.Context) (db.Session, error) {
	if err := s.loadIndexes(ctx); err != nil {
		return nil, err
	}
	var nc net.Conn // the connection dialled for the session (rawDial)
	conn, err := s.sqlDB.Conn(context.WithValue(ctx, dialSlot{}, &nc))
	if err != nil {
		return nil, fmt.Errorf("target %s: %v", db.Redact(s.cfg.Target), oneLine(err))
	}
	ss := &session{Session: sqldb.Session{Conn: conn, Table: s.table, Dialect: s.d.sqlDialect()},
		d: s.d, layout: s.layout, indexes: s.indexes, batch: map[int]*sql.Stmt{}, queries: map[string]*queryStm{}}
	if nc == nil {
		ss.Close()
		return nil, fmt.Errorf("target %s: the session's connection was not dialled for it", db.Redact(s.cfg.Target))
	}
	ss.Watch, ss.io = netio.NewWatch(nc), netio.ModeOf(nc)
	// A cancelled statement is stopped on the server by its connection id.
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		ss.Close()
		return nil, fmt.Errorf("target %s: %v", db.Redact(s.cfg.Target), oneLine(err))
	}
	ss.Watch.OnCancel(func(ctx context.Context) error { return s.killer.kill(ctx, s.sqlDB, id) })
	s.killer.prepare(ctx, s.sqlDB)
	ss.readAll = "data"
	if s.layout == layoutGenerated {
		ss.readAll = "JSON_REMOVE(data, '$.YCSB_KEY')"
	}
	t := s.table
	insert := "INSERT INTO " + t + " (data) VALUES (?)"
	if s.layout == layoutColumn {
		insert = "INSERT INTO " + t + " (ycsb_key, data) VALUES (?, ?)"
	}
	err = ss.PrepareAll(ctx,
		sqldb.Prep{Dst: &ss.read, Text: "SELECT " + ss.readAll + " FROM " + t + " WHERE ycsb_key = ?"},
		sqldb.Prep{Dst: &ss.merge, Text: "UPDATE " + t + " SET data = JSON_MERGE_PATCH(data, " + s.d.jsonArg() + ") WHERE ycsb_key = ?"},
		sqldb.Prep{Dst: &ss.replace, Text: "UPDATE " + t + " SET data = ? WHERE ycsb_key = ?"},
		sqldb.Prep{Dst: &ss.scan, Text: "SELECT " + ss.readAll + " FROM " + t + " WHERE ycsb_key >= ? ORDER BY ycsb_key LIMIT ?"},
		sqldb.Prep{Dst: &ss.del, Text: "DELETE FROM " + t + " WHERE ycsb_key = ?"},
		sqldb.Prep{Dst: &ss.insert, Text: insert})
	if err != nil {
		ss.Close()
		if me := (*mysqldrv.MySQLError)(nil); errors.As(err, &me) && me.Number == 1146 { // ER_NO_SUCH_TABLE
			return nil, fmt.Errorf("%s: %w (%v)", s.d.flavour(), db.ErrNoTable, errors.Unwrap(err))
		}
		return nil, err
	}
	return ss, nil
}

// IOMode is the I/O mode of the session's connection.
func (s *session) IOMode() string { return string(s.io) }

// withKey appends doc with "YCSB_KEY" as its first member to s.doc
// (generated layout) and returns the appended part's start.
func (s *session) withKey(key, doc []byte) int {
	start := len(s.doc)
	s.doc = db.AppendWithKey(s.doc, key, doc)
	return start
}

// Keys and documents are bound as []byte: the driver sends them as strings
// and copies them into its packet during the call.

func (s *session) Insert(ctx context.Context, key, doc []byte) error {
	var err error
	if s.layout == layoutGenerated {
		s.doc = s.doc[:0]
		s.withKey(key, doc)
		_, err = s.Exec(ctx, s.insert, s.doc)
	} else {
		_, err = s.Exec(ctx, s.insert, key, doc)
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
			b.WriteString("INSERT INTO " + s.Table + " (data) VALUES ")
			row = "(?)"
		} else {
			b.WriteString("INSERT INTO " + s.Table + " (ycsb_key, data) VALUES ")
		}
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(row)
		}
		var err error
		if st, err = s.Prepare(ctx, b.String()); err != nil {
			return fmt.Errorf("batch of %d: %w", n, err)
		}
		s.batch[n] = st
	}
	s.Args = s.Args[:0]
	if s.layout == layoutGenerated {
		s.doc, s.offs = s.doc[:0], s.offs[:0]
		for i := range keys {
			s.offs = append(s.offs, s.withKey(keys[i], docs[i]))
		}
		s.offs = append(s.offs, len(s.doc))
		for i := range n {
			s.Args = append(s.Args, s.doc[s.offs[i]:s.offs[i+1]])
		}
	} else {
		for i := range keys {
			s.Args = append(s.Args, keys[i], docs[i])
		}
	}
	_, err := s.Exec(ctx, st, s.Args...)
	return err
}

func (s *session) Read(ctx context.Context, key []byte, fields []string, dst []byte) ([]byte, error) {
	if fields == nil {
		return s.ReadDoc(ctx, s.read, nil, dst, key)
	}
	p, err := s.Projection(ctx, fields, false)
	if err != nil {
		return dst, err
	}
	return s.ReadDoc(ctx, p.Stmt, p.Keys, dst, key)
}

func (s *session) Update(ctx context.Context, key []byte, u *db.Update) error {
	var res sql.Result
	var err error
	switch u.Mode {
	case db.Merge:
		if len(u.Paths) == 0 || len(u.Paths) != len(u.Values) {
			// No member list: the server's own merge (RFC 7396).
			res, err = s.Exec(ctx, s.merge, u.Doc, key)
			break
		}
		// Set each top-level member whole, as PostgreSQL's || does
		// (JSON_MERGE_PATCH would drop nulls and merge nested objects).
		res, err = s.Set(ctx, key, u.Paths, u.Values)
	case db.Replace:
		if s.layout == layoutGenerated {
			s.doc = s.doc[:0]
			s.withKey(key, u.Doc)
			res, err = s.Exec(ctx, s.replace, s.doc, key)
		} else {
			res, err = s.Exec(ctx, s.replace, u.Doc, key)
		}
	case db.Partial:
		if len(u.Paths) != len(u.Values) || len(u.Paths) == 0 {
			return fmt.Errorf("%s: partial update with %d paths and %d values", s.d.flavour(), len(u.Paths), len(u.Values))
		}
		res, err = s.Set(ctx, key, u.Paths, u.Values)
	default:
		return fmt.Errorf("%s: update mode %v", s.d.flavour(), u.Mode)
	}
	return sqldb.Affected(res, err)
}

func (s *session) Scan(ctx context.Context, start []byte, count int, fields []string) (int, error) {
	if fields == nil {
		return s.Count(ctx, s.scan, 1, start, count)
	}
	p, err := s.Projection(ctx, fields, true)
	if err != nil {
		return 0, err
	}
	return s.Count(ctx, p.Stmt, sqldb.Columns(p.Keys), start, count)
}

func (s *session) Delete(ctx context.Context, key []byte) error {
	res, err := s.Exec(ctx, s.del, key)
	return sqldb.Affected(res, err)
}

var maxLimit = int64(math.MaxInt64)
