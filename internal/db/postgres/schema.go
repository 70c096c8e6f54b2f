package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/docbench/docbench/internal/db"
)

// Setup creates the schema, the table of the layout, its key index, the
// secondary indexes and the column's compression and storage.
func (s *store) Setup(ctx context.Context, sc db.Schema, recreate bool) error {
	s.setTable(sc.Table)
	if err := s.variantNeeds(); err != nil {
		return err
	}
	if s.v.descendant == "jsquery" {
		if err := s.ensureJsquery(ctx); err != nil {
			return err
		}
	}
	if s.v.doctype == "hstore" {
		if err := s.hstoreSetup(ctx, sc); err != nil {
			return err
		}
	}
	if _, err := s.admin.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{s.schema}.Sanitize()); err != nil {
		return fmt.Errorf("postgres setup: schema %s: %w", s.schema, err)
	}
	create, err := s.claim(ctx, s.table, s.schema+"."+s.tableRaw, recreate)
	if err != nil {
		return err
	}
	var stmts []string
	ident := func(suffix string) string { return pgx.Identifier{sc.Table + "_" + suffix}.Sanitize() }
	switch s.v.layout {
	case "column":
		stmts = append(stmts, "CREATE TABLE IF NOT EXISTS "+s.table+" (ycsb_key text PRIMARY KEY, data "+s.v.doctype+" NOT NULL)")
	case "document":
		stmts = append(stmts, "CREATE TABLE IF NOT EXISTS "+s.table+" (data "+s.v.doctype+" NOT NULL)")
		switch {
		case s.v.doctype == "hstore":
			stmts = append(stmts, s.hstoreKeyIndex(ident)...)
		case s.v.index == "btree":
			stmts = append(stmts, "CREATE INDEX IF NOT EXISTS "+ident("ycsb_key")+" ON "+s.table+" ((data->>'YCSB_KEY'))")
		case s.v.index == "gin":
			stmts = append(stmts, "CREATE INDEX IF NOT EXISTS "+ident("gin")+" ON "+s.table+" USING gin (data)")
		case s.v.index == "gin_path_ops":
			stmts = append(stmts, "CREATE INDEX IF NOT EXISTS "+ident("gin_path_ops")+" ON "+s.table+" USING gin (data jsonb_path_ops)")
		}
	case "relational":
		stmts = append(stmts, s.relationalDDL(sc)...)
	}
	marked := []string{}
	if create {
		marked = append(marked, s.table)
	}
	for _, c := range s.cols {
		if c.child == "" {
			continue
		}
		createChild, err := s.claim(ctx, c.child, s.schema+"."+s.tableRaw+"__"+c.Name, recreate)
		if err != nil {
			return err
		}
		if createChild {
			marked = append(marked, c.child)
		}
	}
	mark := quoteLiteral(sc.Mark.Text())
	for _, t := range marked {
		stmts = append(stmts, "COMMENT ON TABLE "+t+" IS "+mark)
	}
	for _, q := range stmts {
		if _, err := s.admin.Exec(ctx, q); err != nil {
			return fmt.Errorf("postgres setup: %s: %w", q, err)
		}
	}
	if err := s.setColumnOptions(ctx); err != nil {
		return err
	}
	for i, ix := range sc.Indexes {
		name := ident(fmt.Sprintf("idx%d", i))
		q, err := s.indexDDL(name, ix)
		if err != nil {
			return err
		}
		if _, err := s.admin.Exec(ctx, q); err != nil {
			return fmt.Errorf("postgres secondaryindex=%s: %s: %w", ix.Path, q, err)
		}
		// The comment names the path: Info reads it back from the catalog
		// (without it, by the index's definition).
		q = "COMMENT ON INDEX " + pgx.Identifier{s.schema}.Sanitize() + "." + name + " IS " + quoteLiteral(db.IndexPathComment+ix.Path)
		if _, err := s.admin.Exec(ctx, q); err != nil {
			s.cfg.Logf("postgres: %s: %v: the audit names the index by its definition", q, err)
		}
	}
	return nil
}

// indexesSQL lists the indexes of the table and of its child tables
// (layout=relational) but their primary keys: the comment docbench gave
// its own, and the definition from USING on.
const indexesSQL = `
SELECT i.relname, t.relname = $2, coalesce(obj_description(x.indexrelid, 'pg_class'), ''),
       regexp_replace(pg_get_indexdef(x.indexrelid), '^.* USING ', '')
FROM pg_index x
JOIN pg_class i ON i.oid = x.indexrelid
JOIN pg_class t ON t.oid = x.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
WHERE n.nspname = $1 AND NOT x.indisprimary AND (t.relname = $2 OR left(t.relname, length($2) + 2) = $2 || '__')`

// secondaryIndexes reads the table's secondary indexes from the catalog:
// every index but the primary key and the key index of layout=document.
func (s *store) secondaryIndexes(ctx context.Context) ([]db.CatalogIndex, error) {
	rows, err := s.admin.Query(ctx, indexesSQL, s.schema, s.tableRaw)
	if err != nil {
		return nil, fmt.Errorf("postgres catalog: %w", err)
	}
	defer rows.Close()
	var out []db.CatalogIndex
	for rows.Next() {
		var name, comment, def string
		var main bool
		if err := rows.Scan(&name, &main, &comment, &def); err != nil {
			return nil, fmt.Errorf("postgres catalog: %w", err)
		}
		if main && s.v.layout == "document" && slices.Contains([]string{"ycsb_key", "gin", "gin_path_ops"}, strings.TrimPrefix(name, s.tableRaw+"_")) {
			continue
		}
		path, _ := strings.CutPrefix(comment, db.IndexPathComment)
		if path == comment {
			path = ""
		}
		out = append(out, db.CatalogIndex{Path: path, Def: def})
	}
	return out, rows.Err()
}

// claim readies a table (quoted, schema-qualified; name as the user knows
// it) for Setup: one docbench did not create is *db.ErrNotOurs; with
// recreate, one of docbench's is dropped. It returns whether the table is
// to be created, and marked.
func (s *store) claim(ctx context.Context, table, name string, recreate bool) (bool, error) {
	m, exists, ours, err := s.mark(ctx, table)
	if err != nil {
		return false, err
	}
	drop, create, err := db.Claim(s.cfg, name, m, exists, ours, recreate)
	if drop {
		err = s.dropOwned(ctx, table, name)
	}
	return create, err
}

// mark reads the mark on a table (quoted, schema-qualified): whether it
// exists, and whether it is docbench's.
func (s *store) mark(ctx context.Context, table string) (m db.Mark, exists, ours bool, err error) {
	var comment string
	err = s.admin.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL, coalesce(obj_description(to_regclass($1), 'pg_class'), '')",
		table).Scan(&exists, &comment)
	if err != nil {
		return m, false, false, fmt.Errorf("postgres: looking for %s: %w", table, err)
	}
	m, ours = db.ParseMark(comment)
	if !ours && s.managed != nil {
		m, ours = db.Managed, true
	}
	return m, exists, ours, nil
}

// dropOwned drops a table of docbench's and the tables of docbench's that
// reference it (layout=relational's child tables). Without CASCADE: an
// object of the user's that depends on it keeps it, and is named.
func (s *store) dropOwned(ctx context.Context, table, name string) error {
	rows, err := s.admin.Query(ctx, `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname), coalesce(obj_description(c.oid, 'pg_class'), '')
		FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE k.confrelid = to_regclass($1) AND k.contype = 'f' AND k.conrelid <> k.confrelid`, table)
	if err != nil {
		return fmt.Errorf("postgres: tables referencing %s: %w", name, err)
	}
	children, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
		var c [2]string
		return c, r.Scan(&c[0], &c[1])
	})
	if err != nil {
		return fmt.Errorf("postgres: tables referencing %s: %w", name, err)
	}
	for _, c := range children {
		if _, ours := db.ParseMark(c[1]); ours {
			if err := s.dropTable(ctx, c[0], c[0]); err != nil {
				return err
			}
		}
	}
	return s.dropTable(ctx, table, name)
}

// dropTable drops one table, and names what of the user's stops it.
func (s *store) dropTable(ctx context.Context, table, name string) error {
	_, err := s.admin.Exec(ctx, "DROP TABLE IF EXISTS "+table)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "2BP01" { // dependent_objects_still_exist
		detail := strings.Join(strings.Fields(pe.Detail), " ")
		return fmt.Errorf("%s was created by docbench but cannot be dropped: %s; drop those objects yourself or choose another table (-p table=NAME)", name, detail)
	}
	if err != nil {
		return fmt.Errorf("postgres: drop %s: %w", name, err)
	}
	return nil
}

var _ db.TableOwner = (*store)(nil)

// Owns reports *db.ErrNotOurs for a table that exists and that docbench
// did not create.
func (s *store) Owns(ctx context.Context, table string) error {
	m, exists, ours, err := s.mark(ctx, pgx.Identifier{s.schema, table}.Sanitize())
	if err != nil {
		return err
	}
	_, _, err = db.Claim(s.cfg, s.schema+"."+table, m, exists, ours, false)
	return err
}

// Drop drops table (in the store's schema) when docbench created it.
func (s *store) Drop(ctx context.Context, table string) error {
	q := pgx.Identifier{s.schema, table}.Sanitize()
	name := s.schema + "." + table
	_, exists, ours, err := s.mark(ctx, q)
	switch {
	case err != nil:
		return err
	case !exists:
		return nil
	case !ours:
		return &db.ErrNotOurs{Table: name}
	}
	return s.dropOwned(ctx, q, name)
}

// setColumnOptions applies pg.compression and pg.storage to the document
// column; a server that cannot is named with its reason.
func (s *store) setColumnOptions(ctx context.Context) error {
	if s.v.layout == "relational" {
		if s.v.compression != "" || s.v.storage != "" {
			return fmt.Errorf("pg.compression and pg.storage apply to the document column of layout=column or document, not layout=relational")
		}
		return nil
	}
	for prop, clause := range map[string]string{"pg.compression": "COMPRESSION " + s.v.compression, "pg.storage": "STORAGE " + strings.ToUpper(s.v.storage)} {
		val := s.v.compression
		if prop == "pg.storage" {
			val = s.v.storage
		}
		if val == "" {
			continue
		}
		q := "ALTER TABLE " + s.table + " ALTER COLUMN data SET " + clause
		if _, err := s.admin.Exec(ctx, q); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) {
				msg := pe.Message
				if pe.Detail != "" {
					msg += " (" + pe.Detail + ")"
				}
				return fmt.Errorf("property %s=%s: this server cannot: %s", prop, val, msg)
			}
			return fmt.Errorf("property %s=%s: %w", prop, val, err)
		}
	}
	return nil
}

// predExpr is the jsonb expression a predicate or secondary index on a
// dotted path uses; queries and indexes must spell it identically.
func (s *store) predExpr(path string) string {
	if s.v.layout == "relational" {
		return s.relPredExpr(path)
	}
	if s.v.doctype == "hstore" && path != "" {
		return "(data -> " + quoteLiteral(path) + ")"
	}
	if path == "" {
		if s.v.textual() {
			return "(data::jsonb)"
		}
		return "data"
	}
	e := "(" + s.jsonData() + " #> " + quoteLiteral(textArray(db.PathSegments(path))) + ")"
	if s.v.textual() {
		e = "(" + e + "::jsonb)"
	}
	return e
}

// indexDDL returns the statement creating a secondary index: a btree on the
// path's value, or for an array a GIN (jsonb_path_ops) answering @>.
func (s *store) indexDDL(name string, ix db.Index) (string, error) {
	if s.v.layout == "relational" {
		return s.relIndexDDL(name, ix)
	}
	if s.v.doctype == "hstore" {
		return s.hstoreIndexDDL(name, ix)
	}
	path := ix.Path
	if ix.ArrayRoot != "" {
		path = ix.ArrayRoot // GIN over the array answers @> on its elements
	}
	expr := s.predExpr(path)
	if ix.Array {
		return "CREATE INDEX IF NOT EXISTS " + name + " ON " + s.table + " USING gin ((" + expr + ") jsonb_path_ops)", nil
	}
	return "CREATE INDEX IF NOT EXISTS " + name + " ON " + s.table + " ((" + expr + "))", nil
}

// errNoJsquery says where jsquery comes from when the server lacks it.
const errNoJsquery = "pg.descendantop=jsquery: the server has no jsquery extension (Debian: apt-get install postgresql-15-jsquery; the embedded PostgreSQL 18 does not ship it): use pg.descendantop=jsonpath"

// ensureJsquery creates the jsquery extension, or says the server has none.
func (s *store) ensureJsquery(ctx context.Context) error {
	return s.ensureExtension(ctx, "jsquery", errNoJsquery)
}

// ensureExtension creates an extension, or answers missing when the server
// has none to create.
func (s *store) ensureExtension(ctx context.Context, name, missing string) error {
	var n int
	if err := s.admin.QueryRow(ctx, "SELECT count(*) FROM pg_available_extensions WHERE name = $1", name).Scan(&n); err != nil {
		return fmt.Errorf("postgres: looking for %s: %w", name, err)
	}
	if n == 0 {
		return errors.New(missing)
	}
	if _, err := s.admin.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("postgres: CREATE EXTENSION %s: %w", name, err)
	}
	return nil
}

var _ db.Remarker = (*store)(nil)

// ReadMark returns the mark of table (in the store's schema).
func (s *store) ReadMark(ctx context.Context, table string) (db.Mark, bool, error) {
	m, exists, ours, err := s.mark(ctx, pgx.Identifier{s.schema, table}.Sanitize())
	return m, exists && ours, err
}

// Remark replaces the mark of table (the comment of its main table).
func (s *store) Remark(ctx context.Context, table string, m db.Mark) error {
	q := "COMMENT ON TABLE " + pgx.Identifier{s.schema, table}.Sanitize() + " IS " + quoteLiteral(m.Text())
	if _, err := s.admin.Exec(ctx, q); err != nil {
		return fmt.Errorf("postgres: marking %s.%s: %w", s.schema, table, err)
	}
	return nil
}
