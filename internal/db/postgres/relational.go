package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/db"
)

// layout=relational: the seeds' "unwrap" comparison. Each top-level field
// gets a column of its SQL type (objects and arrays of scalars stay jsonb);
// each array of objects gets a child table (ycsb_key, pos, one column per
// member) joined back on read. Documents are decomposed in Go on write.

// relColumn is one column of the relational layout.
type relColumn struct {
	db.Column
	sqlType string      // of a scalar or jsonb column
	child   string      // quoted child table, for an array of objects
	members []relColumn // child table columns
}

func sqlType(jsonType string) string {
	switch jsonType {
	case "string":
		return "text"
	case "integer":
		return "bigint"
	case "number":
		return "double precision"
	case "boolean":
		return "boolean"
	}
	return "jsonb"
}

func (s *store) relColumns(sc db.Schema) []relColumn {
	cols := sc.Columns
	if len(cols) == 0 {
		for _, f := range sc.Fields {
			cols = append(cols, db.Column{Name: f, Type: "string"})
		}
	}
	out := make([]relColumn, len(cols))
	for i, c := range cols {
		rc := relColumn{Column: c, sqlType: sqlType(c.Type)}
		if c.Type == "array" && c.Items == "object" && len(c.Members) > 0 {
			rc.child = pgx.Identifier{s.schema, s.tableRaw + "__" + c.Name}.Sanitize()
			for _, m := range c.Members {
				rc.members = append(rc.members, relColumn{Column: m, sqlType: sqlType(m.Type)})
			}
		}
		out[i] = rc
	}
	return out
}

func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

func (s *store) relationalDDL(sc db.Schema) []string {
	s.cols = s.relColumns(sc)
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS " + s.table + " (ycsb_key text PRIMARY KEY")
	var children []string
	for _, c := range s.cols {
		if c.child != "" {
			var cb strings.Builder
			cb.WriteString("CREATE TABLE IF NOT EXISTS " + c.child + " (ycsb_key text NOT NULL REFERENCES " + s.table +
				" ON DELETE CASCADE, pos int NOT NULL")
			for _, m := range c.members {
				cb.WriteString(", " + ident(m.Name) + " " + m.sqlType)
			}
			cb.WriteString(", PRIMARY KEY (ycsb_key, pos))")
			children = append(children, cb.String())
			continue
		}
		b.WriteString(", " + ident(c.Name) + " " + c.sqlType)
	}
	b.WriteString(")")
	return append([]string{b.String()}, children...)
}

func (s *store) relColumn(name string) (*relColumn, bool) {
	for i := range s.cols {
		if s.cols[i].Name == name {
			return &s.cols[i], true
		}
	}
	return nil, false
}

// relArrayExpr rebuilds an array of objects from its child table.
func (s *store) relArrayExpr(c *relColumn, member string) string {
	elem := "c." + ident(member)
	if member == "" {
		elem = buildObject(c.members, "c.")
	} else if m := findMember(c, member); m != nil && m.sqlType != "jsonb" {
		elem = "to_jsonb(" + elem + ")"
	}
	// No child rows read as absent (NULL), not as [].
	return "(SELECT jsonb_agg(" + elem + " ORDER BY c.pos) FROM " + c.child +
		" c WHERE c.ycsb_key = " + s.table + ".ycsb_key)"
}

func findMember(c *relColumn, name string) *relColumn {
	for i := range c.members {
		if c.members[i].Name == name {
			return &c.members[i]
		}
	}
	return nil
}

// buildObject is jsonb_build_object over columns, chunked below PostgreSQL's
// 100-argument limit.
func buildObject(cols []relColumn, prefix string) string {
	var parts []string
	for start := 0; start < len(cols); start += 50 {
		var b strings.Builder
		b.WriteString("jsonb_build_object(")
		for i, c := range cols[start:min(start+50, len(cols))] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quoteLiteral(c.Name) + "::text, " + prefix + ident(c.Name))
		}
		b.WriteString(")")
		parts = append(parts, b.String())
	}
	if len(parts) == 0 {
		return "'{}'::jsonb"
	}
	return strings.Join(parts, " || ")
}

func (s *store) relDocExpr() string {
	var parts []string
	var plain []relColumn
	for i := range s.cols {
		c := &s.cols[i]
		if c.child != "" {
			parts = append(parts, "jsonb_build_object("+quoteLiteral(c.Name)+"::text, "+s.relArrayExpr(c, "")+")")
		} else {
			plain = append(plain, *c)
		}
	}
	// A column cannot tell an absent field from a null one: nulls are left out.
	return "jsonb_strip_nulls(" + strings.Join(append([]string{buildObject(plain, s.table+".")}, parts...), " || ") + ")"
}

// relValueExpr reads the value at a dotted path as jsonb.
func (s *store) relValueExpr(path string) string {
	segs := db.PathSegments(path)
	c, ok := s.relColumn(segs[0])
	if !ok {
		return "NULL::jsonb"
	}
	col := s.table + "." + ident(c.Name)
	switch {
	case c.child != "":
		member := ""
		if len(segs) > 1 {
			member = segs[1]
		}
		return s.relArrayExpr(c, member)
	case len(segs) == 1 && c.sqlType != "jsonb":
		return "to_jsonb(" + col + ")"
	case len(segs) == 1:
		return col
	}
	return col + " #> " + quoteLiteral(textArray(segs[1:]))
}

// relIndexDDL creates a secondary index in relational terms: on a column,
// on a child table's member column, or GIN on a jsonb column.
func (s *store) relIndexDDL(name string, ix db.Index) (string, error) {
	segs := db.PathSegments(ix.Path)
	c, ok := s.relColumn(segs[0])
	switch {
	case !ok:
		return "", fmt.Errorf("postgres layout=relational: secondaryindex=%s: no such column", ix.Path)
	case c.child != "" && len(segs) == 2:
		return "CREATE INDEX IF NOT EXISTS " + name + " ON " + c.child + " (" + ident(segs[1]) + ")", nil
	case c.child != "":
		return "CREATE INDEX IF NOT EXISTS " + name + " ON " + c.child + " (ycsb_key)", nil
	case ix.Array || (c.sqlType == "jsonb" && len(segs) == 1):
		return "CREATE INDEX IF NOT EXISTS " + name + " ON " + s.table + " USING gin (" + s.relPredExpr(ix.Path) + " jsonb_path_ops)", nil
	}
	return "CREATE INDEX IF NOT EXISTS " + name + " ON " + s.table + " ((" + s.relPredExpr(ix.Path) + "))", nil
}

// relPredExpr is the jsonb value of a path for predicates and indexes: a
// top-level scalar is compared through its column (see relQuerySQL).
func (s *store) relPredExpr(path string) string {
	segs := db.PathSegments(path)
	c, ok := s.relColumn(segs[0])
	if ok && c.child == "" && len(segs) > 1 {
		return "(" + ident(c.Name) + " #> " + quoteLiteral(textArray(segs[1:])) + ")"
	}
	if ok && c.child == "" {
		return ident(c.Name)
	}
	return "NULL::jsonb"
}

// relCompare returns the predicate "path OP $1" in relational terms: a
// typed column against the JSON value cast to its type, an object path
// as jsonb, an array-of-objects member through EXISTS on the child table.
func (s *store) relCompare(path, op string) (string, error) {
	segs := db.PathSegments(path)
	c, ok := s.relColumn(segs[0])
	if !ok {
		return "", fmt.Errorf("postgres layout=relational: no column for path %q", path)
	}
	switch {
	case c.child != "" && len(segs) == 2:
		m := findMember(c, segs[1])
		if m == nil {
			return "", fmt.Errorf("postgres layout=relational: no member %q in %s", segs[1], c.Name)
		}
		return "EXISTS (SELECT 1 FROM " + c.child + " c WHERE c.ycsb_key = " + s.table + ".ycsb_key AND c." +
			ident(m.Name) + " " + op + " " + castParam(m.sqlType) + ")", nil
	case c.child != "":
		return "", fmt.Errorf("postgres layout=relational: path %q", path)
	case len(segs) == 1 && c.sqlType != "jsonb":
		return ident(c.Name) + " " + op + " " + castParam(c.sqlType), nil
	}
	return s.relPredExpr(path) + " " + op + " $1::jsonb", nil
}

func castParam(sqlType string) string {
	if sqlType == "jsonb" {
		return "$1::jsonb"
	}
	return "($1::jsonb #>> '{}')::" + sqlType
}

func (s *store) relQuerySQL(q *db.Query) (string, error) {
	sel := s.relDocExpr()
	if q.Fields != nil {
		sel = s.projectExpr(q.Fields)
	}
	from := " FROM " + s.table
	page := " LIMIT $2 OFFSET $3"
	switch q.Kind {
	case db.QueryField:
		w, err := s.relCompare(q.Path, "=")
		return "SELECT " + sel + from + " WHERE " + w + page, err
	case db.QueryRange:
		w, err := s.relCompare(q.Path, ">=")
		if err != nil {
			return "", err
		}
		return "SELECT " + sel + from + " WHERE " + w + " ORDER BY " + s.relPredExpr(q.Path) + ", ycsb_key" + page, nil
	case db.QueryArray:
		c, ok := s.relColumn(q.Path)
		if !ok || c.child != "" {
			return "", &db.ErrNotSupported{Backend: "postgres layout=relational", What: "array membership on " + q.Path}
		}
		return "SELECT " + sel + from + " WHERE " + ident(c.Name) + " @> jsonb_build_array($1::jsonb)" + page, nil
	case db.QueryContains:
		c, ok := s.relColumn(q.Path)
		switch {
		case ok && c.child != "":
			// [{"m": v}] → a child row whose member m equals v.
			return "SELECT " + sel + from + " WHERE EXISTS (SELECT 1 FROM " + c.child + " c WHERE c.ycsb_key = " +
				s.table + ".ycsb_key AND to_jsonb(c) @> (($1::jsonb)->0))" + page, nil
		case ok:
			return "SELECT " + sel + from + " WHERE " + ident(c.Name) + " @> $1::jsonb" + page, nil
		}
		return "SELECT " + sel + from + " WHERE " + s.relDocExpr() + " @> $1::jsonb" + page, nil
	case db.QueryAggregate:
		agg := "count(*)"
		if q.Func == "avg" || q.Func == "sum" {
			agg = q.Func + "((" + s.relValueExpr(q.AggPath) + " #>> '{}')::numeric)"
		}
		return "SELECT " + s.relValueExpr(q.Path) + ", " + agg + from + " GROUP BY 1", nil
	}
	return "", fmt.Errorf("postgres: query kind %v", q.Kind)
}

// relSession writes decomposed documents.
type relSession struct {
	st    *store
	batch pgx.Batch
}

func newRelSession(st *store) *relSession { return &relSession{st: st} }

func (r *relSession) statements() map[string]string {
	st := r.st
	var names, params []string
	for i, c := range st.cols {
		if c.child == "" {
			names = append(names, ident(c.Name))
			params = append(params, fmt.Sprintf("$%d", i+2))
		}
	}
	stmts := map[string]string{
		"insert": "INSERT INTO " + st.table + " (ycsb_key" + prefixComma(names) + ") VALUES ($1" + prefixComma(params) + ")",
	}
	for i, c := range st.cols {
		if c.child == "" {
			continue
		}
		cols, ps := []string{"ycsb_key", "pos"}, []string{"$1", "$2"}
		for j, m := range c.members {
			cols = append(cols, ident(m.Name))
			ps = append(ps, fmt.Sprintf("$%d", j+3))
		}
		stmts[fmt.Sprintf("child%d", i)] = "INSERT INTO " + c.child + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(ps, ", ") + ")"
		stmts[fmt.Sprintf("childdel%d", i)] = "DELETE FROM " + c.child + " WHERE ycsb_key = $1"
	}
	return stmts
}

func prefixComma(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return ", " + strings.Join(xs, ", ")
}

// scalar converts a JSON value to the Go value bound to a column.
func scalar(raw json.RawMessage, sqlType string) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if sqlType == "jsonb" {
		return []byte(raw), nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	switch sqlType {
	case "bigint":
		if f, ok := v.(float64); ok {
			return int64(f), nil
		}
	case "double precision":
		if f, ok := v.(float64); ok {
			return f, nil
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case "text":
		if s, ok := v.(string); ok {
			return s, nil
		}
		return string(raw), nil // a value of another type kept as its JSON text
	}
	return nil, fmt.Errorf("value %s does not fit a %s column", raw, sqlType)
}

// queueDoc queues the statements writing doc under key (main row + children).
func (r *relSession) queueDoc(key, doc []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		return fmt.Errorf("postgres layout=relational: %w", err)
	}
	args := []any{string(key)}
	for _, c := range r.st.cols {
		if c.child != "" {
			continue
		}
		v, err := scalar(m[c.Name], c.sqlType)
		if err != nil {
			return fmt.Errorf("postgres layout=relational: field %s: %w", c.Name, err)
		}
		args = append(args, v)
	}
	r.batch.Queue("insert", args...)
	return r.queueChildren(key, m, false)
}

// queueChildren queues the child rows of every array of objects present in m
// (after deleting the old ones when replace).
func (r *relSession) queueChildren(key []byte, m map[string]json.RawMessage, replace bool) error {
	for i, c := range r.st.cols {
		raw, ok := m[c.Name]
		if c.child == "" || !ok {
			continue
		}
		if replace {
			r.batch.Queue(fmt.Sprintf("childdel%d", i), string(key))
		}
		var elems []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return fmt.Errorf("postgres layout=relational: field %s: want an array of objects: %w", c.Name, err)
		}
		for pos, e := range elems {
			args := []any{string(key), pos}
			for _, mem := range c.members {
				v, err := scalar(e[mem.Name], mem.sqlType)
				if err != nil {
					return fmt.Errorf("postgres layout=relational: %s.%s: %w", c.Name, mem.Name, err)
				}
				args = append(args, v)
			}
			r.batch.Queue(fmt.Sprintf("child%d", i), args...)
		}
	}
	return nil
}

// send runs the queued statements in one round trip, as one implicit
// transaction (a batch ends with a single Sync: PostgreSQL commits all of
// it or none), not between BEGIN and COMMIT, which would cost two more
// round trips than the document layouts' single statement pays.
func (r *relSession) send(ctx context.Context, conn *pgx.Conn) error {
	defer func() { r.batch = pgx.Batch{} }()
	res := conn.SendBatch(ctx, &r.batch)
	for range r.batch.Len() {
		if _, err := res.Exec(); err != nil {
			res.Close()
			return err
		}
	}
	return res.Close()
}

func (r *relSession) insert(ctx context.Context, conn *pgx.Conn, key, doc []byte) error {
	if err := r.queueDoc(key, doc); err != nil {
		return err
	}
	return r.send(ctx, conn)
}

func (r *relSession) insertBatch(ctx context.Context, conn *pgx.Conn, keys, docs [][]byte) error {
	for i := range keys {
		if err := r.queueDoc(keys[i], docs[i]); err != nil {
			return err
		}
	}
	return r.send(ctx, conn)
}

func (r *relSession) delete(ctx context.Context, conn *pgx.Conn, key []byte) error {
	tag, err := conn.Exec(ctx, "DELETE FROM "+r.st.table+" WHERE ycsb_key = $1", string(key))
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return db.ErrNotFound
	}
	return nil
}

// update sets columns: merge and replace write the given top-level fields
// (replace also nulls the others and rewrites every child table); partial
// sets a column or a path inside an object column.
func (r *relSession) update(ctx context.Context, conn *pgx.Conn, key []byte, u *db.Update) error {
	st := r.st
	var sets []string
	args := []any{string(key)}
	m := map[string]json.RawMessage{}
	switch u.Mode {
	case db.Merge, db.Replace:
		if err := json.Unmarshal(u.Doc, &m); err != nil {
			return fmt.Errorf("postgres layout=relational: %w", err)
		}
		for _, c := range st.cols {
			raw, ok := m[c.Name]
			if c.child != "" || (!ok && u.Mode == db.Merge) {
				continue
			}
			v, err := scalar(raw, c.sqlType)
			if err != nil {
				return fmt.Errorf("postgres layout=relational: field %s: %w", c.Name, err)
			}
			args = append(args, v)
			sets = append(sets, fmt.Sprintf("%s = $%d", ident(c.Name), len(args)))
		}
	case db.Partial:
		for i, p := range u.Paths {
			segs := db.PathSegments(p)
			c, ok := st.relColumn(segs[0])
			if !ok || c.child != "" {
				return &db.ErrNotSupported{Backend: "postgres layout=relational", What: "a partial update of " + p}
			}
			if len(segs) == 1 {
				v, err := scalar(u.Values[i], c.sqlType)
				if err != nil {
					return err
				}
				args = append(args, v)
				sets = append(sets, fmt.Sprintf("%s = $%d", ident(c.Name), len(args)))
				continue
			}
			args = append(args, segs[1:], []byte(u.Values[i]))
			sets = append(sets, fmt.Sprintf("%s = jsonb_set(%s, $%d::text[], $%d::jsonb)", ident(c.Name), ident(c.Name), len(args)-1, len(args)))
		}
	}
	if len(sets) > 0 {
		r.batch.Queue("UPDATE "+st.table+" SET "+strings.Join(sets, ", ")+" WHERE ycsb_key = $1", args...)
	} else {
		r.batch.Queue("SELECT 1 FROM "+st.table+" WHERE ycsb_key = $1", args...)
	}
	if err := r.queueChildren(key, m, true); err != nil {
		return err
	}
	defer func() { r.batch = pgx.Batch{} }()
	n := r.batch.Len()
	// One statement autocommits, as the document layouts' update does; with
	// child rows, an explicit transaction, so that a key that is not there
	// leaves no child rows behind.
	var sender interface {
		SendBatch(context.Context, *pgx.Batch) pgx.BatchResults
	} = conn
	var tx pgx.Tx
	if n > 1 {
		var err error
		if tx, err = conn.Begin(ctx); err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		sender = tx
	}
	res := sender.SendBatch(ctx, &r.batch)
	tag, err := res.Exec()
	if err != nil {
		res.Close()
		return err
	}
	for range n - 1 {
		if _, err := res.Exec(); err != nil {
			res.Close()
			return err
		}
	}
	if err := res.Close(); err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return db.ErrNotFound
	}
	if tx != nil {
		return tx.Commit(ctx)
	}
	return nil
}
