package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

var _ db.StorageSizer = (*store)(nil)

// StorageChoices: SQLite stores a value in its row, spilling what does not
// fit in a page to overflow pages, with no choice of its own.
func (s *store) StorageChoices(context.Context) ([]db.StorageChoice, error) { return nil, nil }

// UseStorageChoice accepts only the default.
func (s *store) UseStorageChoice(c db.StorageChoice) error {
	if c.Name != "" {
		return &db.ErrNotSupported{Backend: "sqlite", What: "storage choice " + c.Name}
	}
	return nil
}

// StorageSizes reads length(jsonb(data)) and length(data) of each document,
// the table's and its indexes' pages from dbstat when SQLite has it, and
// the database file's pages.
func (s *store) StorageSizes(ctx context.Context, table string, _ bool) (*db.StorageSizes, error) {
	format := "SQLite JSONB"
	if s.doctype == "text" {
		format = "JSON text"
	}
	out := &db.StorageSizes{Format: format, Queries: map[string]string{}}
	q := "SELECT length(jsonb(data)), length(data) FROM " + quote(table) + " ORDER BY ycsb_key"
	out.Queries["bytes_format, bytes_stored"] = q
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("sqlite storage: %s: %w", q, err)
	}
	defer rows.Close()
	for rows.Next() {
		var f, st int64
		if err := rows.Scan(&f, &st); err != nil {
			return nil, fmt.Errorf("sqlite storage: %w", err)
		}
		out.Formatted = append(out.Formatted, f)
		out.Stored = append(out.Stored, st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite storage: %w", err)
	}
	out.Toast = db.Missing("SQLite has no TOAST: a row larger than a page continues on overflow pages of the table")
	pages := `SELECT sum(s.pgsize) FILTER (WHERE m.type = 'table'), coalesce(sum(s.pgsize) FILTER (WHERE m.type = 'index'), 0)
		FROM dbstat s JOIN sqlite_schema m ON m.name = s.name WHERE m.tbl_name = ?`
	var tb, ib float64
	if err := s.db.QueryRowContext(ctx, pages, table).Scan(&tb, &ib); err != nil {
		reason := "this SQLite has no dbstat table: " + oneLineErr(err)
		out.Table, out.Indexes = db.Missing(reason), db.Missing(reason)
	} else {
		out.Queries["table, indexes"] = pages
		out.Table, out.Indexes = db.Val(tb, db.Bytes), db.Val(ib, db.Bytes)
	}
	file := "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"
	out.Queries["file"] = file
	var fb float64
	if err := s.db.QueryRowContext(ctx, file).Scan(&fb); err != nil {
		return nil, fmt.Errorf("sqlite storage: %s: %w", file, err)
	}
	out.File = db.Val(fb, db.Bytes)
	return out, nil
}

// oneLineErr is an error's text on one line.
func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
