package mysql

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

// describeIndex says how a secondary path is indexed.
func (s *store) describeIndex(ix indexCol) string {
	switch {
	case ix.col == "":
		return "multi-valued index on the array elements"
	case ix.numeric:
		return "generated column " + ix.col + " DOUBLE (" + s.d.indexColumnKind() + ") with a btree index"
	}
	return "generated column " + ix.col + " VARCHAR(255) (" + s.d.indexColumnKind() + ") with a btree index"
}

// secondaryIndexes reads the table's indexes from
// information_schema.STATISTICS, but the primary key and the key column's
// own: docbench's by their path (the column's or the index's comment),
// another's by its type and columns.
func (s *store) secondaryIndexes(ctx context.Context) ([]db.CatalogIndex, error) {
	if err := s.loadIndexes(ctx); err != nil {
		return nil, err
	}
	byCol := map[string]string{}
	for p, ix := range s.indexes {
		if ix.col != "" {
			byCol[ix.col] = p
		}
	}
	rows, err := s.sqlDB.QueryContext(ctx, `SELECT INDEX_NAME, COALESCE(COLUMN_NAME, ''), COALESCE(INDEX_COMMENT, ''), COALESCE(INDEX_TYPE, '')
		FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY INDEX_NAME, SEQ_IN_INDEX`, s.dbName, s.tableNm)
	if err != nil {
		return nil, fmt.Errorf("%s catalog: %w", s.d.flavour(), err)
	}
	defer rows.Close()
	type index struct{ cols, comment, kind string }
	var names []string
	found := map[string]*index{}
	for rows.Next() {
		var name, col, comment, kind string
		if err := rows.Scan(&name, &col, &comment, &kind); err != nil {
			return nil, fmt.Errorf("%s catalog: %w", s.d.flavour(), err)
		}
		ix := found[name]
		if ix == nil {
			ix = &index{comment: comment, kind: kind}
			found[name] = ix
			names = append(names, name)
		} else {
			ix.cols += ", "
		}
		ix.cols += cmp.Or(col, "(expression)")
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s catalog: %w", s.d.flavour(), err)
	}
	var out []db.CatalogIndex
	for _, name := range names {
		ix := found[name]
		if name == "PRIMARY" || ix.cols == "ycsb_key" {
			continue
		}
		path, ok := strings.CutPrefix(ix.comment, pathComment)
		if !ok {
			path = byCol[ix.cols]
		}
		if ic, ok := s.indexes[path]; ok && path != "" {
			out = append(out, db.CatalogIndex{Path: path, Def: s.describeIndex(ic)})
			continue
		}
		out = append(out, db.CatalogIndex{Def: strings.TrimSpace(ix.kind + " (" + ix.cols + ")")})
	}
	return out, nil
}
