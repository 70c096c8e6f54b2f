package mysql

import (
	"context"
	"fmt"

	"github.com/docbench/docbench/internal/db"
)

var _ db.StorageSizer = (*store)(nil)

// StorageChoices: InnoDB keeps a large value on overflow pages of its own
// by the row format, with no choice per column here.
func (s *store) StorageChoices(context.Context) ([]db.StorageChoice, error) { return nil, nil }

// UseStorageChoice accepts only the default.
func (s *store) UseStorageChoice(c db.StorageChoice) error {
	if c.Name != "" {
		return &db.ErrNotSupported{Backend: s.d.flavour(), What: "storage choice " + c.Name}
	}
	return nil
}

// StorageSizes reads each document's size (MySQL: JSON_STORAGE_SIZE of
// its binary JSON; MariaDB, whose JSON is text: LENGTH), then the table's
// data and index length after ANALYZE TABLE.
func (s *store) StorageSizes(ctx context.Context, table string, _ bool) (*db.StorageSizes, error) {
	if s.layout != layoutColumn {
		return nil, &db.ErrNotSupported{Backend: s.d.flavour(), What: "storage figures of layout=" + s.layout + " (layout=column only)"}
	}
	t := s.database + "." + quoteIdent(table)
	out := &db.StorageSizes{Format: "MySQL binary JSON", Queries: map[string]string{}}
	size := "JSON_STORAGE_SIZE(data)"
	if s.d.mariadb {
		out.Format, size = "JSON text (LONGTEXT)", "LENGTH(data)"
	}
	q := "SELECT " + size + " FROM " + t + " ORDER BY ycsb_key"
	out.Queries["bytes_format, bytes_stored"] = q
	rows, err := s.sqlDB.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s storage: %s: %w", s.d.flavour(), q, err)
	}
	defer rows.Close()
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("%s storage: %w", s.d.flavour(), err)
		}
		out.Formatted = append(out.Formatted, n)
		out.Stored = append(out.Stored, n)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out.Toast = db.Missing("InnoDB keeps large values on overflow pages, counted in the table")
	if _, err := s.sqlDB.ExecContext(ctx, "ANALYZE TABLE "+t); err != nil {
		out.Notes = append(out.Notes, "ANALYZE TABLE failed: "+err.Error())
	}
	sizes := "SELECT data_length, index_length FROM information_schema.TABLES WHERE table_schema = ? AND table_name = ?"
	out.Queries["table, indexes"] = "ANALYZE TABLE " + t + "; " + sizes
	var data, index float64
	if err := s.sqlDB.QueryRowContext(ctx, sizes, s.dbName, table).Scan(&data, &index); err != nil {
		reason := "information_schema.TABLES: " + err.Error()
		out.Table, out.Indexes = db.Missing(reason), db.Missing(reason)
	} else {
		out.Table, out.Indexes = db.Val(data, db.Bytes), db.Val(index, db.Bytes)
	}
	return out, nil
}
