package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/db"
)

var _ db.StorageSizer = (*store)(nil)

// StorageChoices are STORAGE MAIN and EXTERNAL, and the compression method
// the server does not use by default (lz4 when it is built in).
func (s *store) StorageChoices(ctx context.Context) ([]db.StorageChoice, error) {
	out := []db.StorageChoice{
		{Name: "STORAGE MAIN", Props: map[string]string{"pg.storage": "main"}},
		{Name: "STORAGE EXTERNAL", Props: map[string]string{"pg.storage": "external"}},
	}
	var ver int
	var def string
	var lz4 bool
	err := s.admin.QueryRow(ctx, `SELECT current_setting('server_version_num')::int,
		coalesce((SELECT setting FROM pg_settings WHERE name = 'default_toast_compression'), ''),
		coalesce((SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'), false)`).Scan(&ver, &def, &lz4)
	if err != nil {
		return nil, fmt.Errorf("postgres: storage choices: %w", err)
	}
	switch {
	case ver < 140000:
		out = append(out, db.StorageChoice{Name: "COMPRESSION lz4", Missing: "lz4: column compression needs PostgreSQL 14"})
	case def == "lz4":
		out = append(out, db.StorageChoice{Name: "COMPRESSION pglz", Props: map[string]string{"pg.compression": "pglz"}})
	case lz4:
		out = append(out, db.StorageChoice{Name: "COMPRESSION lz4", Props: map[string]string{"pg.compression": "lz4"}})
	default:
		out = append(out, db.StorageChoice{Name: "COMPRESSION lz4", Missing: "lz4: not built into this server"})
	}
	return out, nil
}

// UseStorageChoice sets pg.storage and pg.compression of the next Setup.
func (s *store) UseStorageChoice(c db.StorageChoice) error {
	if err := s.storageLayout(); err != nil {
		return err
	}
	s.v.storage = s.cfg.Prop("pg.storage", "")
	s.v.compression = s.cfg.Prop("pg.compression", "")
	if v, ok := c.Props["pg.storage"]; ok {
		s.v.storage = v
	}
	if v, ok := c.Props["pg.compression"]; ok {
		s.v.compression = v
	}
	return nil
}

// storageLayout refuses a layout whose documents are not one value per
// row: the relational one spreads them over columns and a child table.
func (s *store) storageLayout() error {
	if s.v.layout == "relational" {
		return &db.ErrNotSupported{Backend: "postgres", What: "storage figures of layout=relational (a document is not one value there)"}
	}
	return nil
}

// keyOrder is the expression of a document's key (the column, or
// YCSB_KEY inside the document).
func (s *store) keyOrder() string {
	_, order := s.keyPred()
	return order
}

// StorageSizes reads pg_column_size of each document as stored and of its
// value re-made uncompressed (data::text::jsonb), pg_column_compression,
// pg_column_toast_chunk_id (PostgreSQL 17+), the TOAST relation's chunks
// per chunk_id, and the relations' sizes.
func (s *store) StorageSizes(ctx context.Context, table string, formatted bool) (*db.StorageSizes, error) {
	if err := s.storageLayout(); err != nil {
		return nil, err
	}
	t := pgx.Identifier{s.schema, table}.Sanitize()
	var ver int
	if err := s.admin.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&ver); err != nil {
		return nil, fmt.Errorf("postgres storage: %w", err)
	}
	out := &db.StorageSizes{Format: s.v.doctype, Queries: map[string]string{}}
	compressed, chunkID := "NULL::text", "NULL::oid"
	if ver >= 140000 {
		compressed = "pg_column_compression(data)::text"
	} else {
		out.Notes = append(out.Notes, "telling compressed values apart needs pg_column_compression (PostgreSQL 14)")
	}
	if ver >= 170000 {
		chunkID = "pg_column_toast_chunk_id(data)"
	} else {
		out.Notes = append(out.Notes, "telling in-line from out-of-line values per document needs pg_column_toast_chunk_id (PostgreSQL 17)")
	}
	// The size of the value as made from its text, 4-byte header and
	// uncompressed: an uncompressed value in the row is its own size; the
	// others are made again.
	format := "pg_column_size(data::text::" + s.v.doctype + ")"
	switch {
	case !formatted:
		format = "NULL::int"
	case ver >= 140000:
		// A value of at most 127 bytes in a row has a 1-byte header, 3
		// bytes less than the 4-byte one it is made with.
		format = "CASE WHEN " + compressed + " IS NULL AND pg_column_size(data) < 2032 THEN pg_column_size(data) + " +
			"CASE WHEN pg_column_size(data) <= 127 THEN 3 ELSE 0 END ELSE " + format + " END"
	}
	docs := "SELECT " + format + ", pg_column_size(data), " + compressed + ", " + chunkID +
		" FROM " + t + " ORDER BY " + s.keyOrder()
	out.Queries["bytes_format, bytes_stored, place"] = docs
	ids, err := s.docSizes(ctx, docs, ver >= 140000, out)
	if err != nil {
		return nil, err
	}
	if err := s.chunks(ctx, t, ids, ver >= 170000, out); err != nil {
		return nil, err
	}
	sizes := "SELECT pg_relation_size(c.oid), coalesce(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0), pg_indexes_size(c.oid) FROM pg_class c WHERE c.oid = '" +
		t + "'::regclass"
	out.Queries["table, toast, indexes"] = sizes
	var heap, toast, idx float64
	if err := s.admin.QueryRow(ctx, sizes).Scan(&heap, &toast, &idx); err != nil {
		return nil, fmt.Errorf("postgres storage: %s: %w", sizes, err)
	}
	out.Table, out.Toast, out.Indexes = db.Val(heap, db.Bytes), db.Val(toast, db.Bytes), db.Val(idx, db.Bytes)
	return out, nil
}

// docSizes fills the per-document figures; it returns the chunk_id of
// each document stored out of line (PostgreSQL 17+), in key order.
// methods says whether the query reads each value's compression method
// (PostgreSQL 14+).
func (s *store) docSizes(ctx context.Context, q string, methods bool, out *db.StorageSizes) ([]uint32, error) {
	rows, err := s.admin.Query(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("postgres storage: %s: %w", q, err)
	}
	defer rows.Close()
	var ids []uint32
	for rows.Next() {
		var formatted *int64
		var stored int64
		var method *string
		var id *uint32
		if err := rows.Scan(&formatted, &stored, &method, &id); err != nil {
			return nil, fmt.Errorf("postgres storage: %w", err)
		}
		if formatted != nil {
			out.Formatted = append(out.Formatted, *formatted)
		}
		out.Stored = append(out.Stored, stored)
		switch {
		case id != nil:
			out.Place = append(out.Place, db.OutOfLine)
			ids = append(ids, *id)
		case !s.placeKnown(out) && method != nil:
			out.Place = append(out.Place, db.Compressed)
		case !s.placeKnown(out) && methods:
			out.Place = append(out.Place, db.Uncompressed)
		case !s.placeKnown(out):
			out.Place = append(out.Place, db.PlaceUnknown)
		case method != nil:
			out.Place = append(out.Place, db.CompressedInLine)
		default:
			out.Place = append(out.Place, db.InLine)
		}
	}
	return ids, rows.Err()
}

// placeKnown says whether the server tells in-line from out-of-line
// values per document (PostgreSQL 17+: no note says it cannot).
func (s *store) placeKnown(out *db.StorageSizes) bool { return len(out.Notes) == 0 }

// chunks counts the TOAST relation's chunks per chunk_id: per document
// stored out of line, in key order when ids maps them (PostgreSQL 17+).
func (s *store) chunks(ctx context.Context, t string, ids []uint32, byDoc bool, out *db.StorageSizes) error {
	var toast string
	if err := s.admin.QueryRow(ctx, "SELECT coalesce(reltoastrelid::regclass::text, '') FROM pg_class WHERE oid = $1::regclass", t).Scan(&toast); err != nil {
		return fmt.Errorf("postgres storage: TOAST relation of %s: %w", t, err)
	}
	if toast == "" || toast == "-" {
		return nil
	}
	q := "SELECT chunk_id, count(*) FROM " + toast + " GROUP BY chunk_id ORDER BY chunk_id"
	out.Queries["chunks_per_doc"] = q
	rows, err := s.admin.Query(ctx, q)
	if err != nil {
		return fmt.Errorf("postgres storage: %s: %w", q, err)
	}
	defer rows.Close()
	per := map[uint32]int64{}
	var order []int64
	for rows.Next() {
		var id uint32
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			return fmt.Errorf("postgres storage: %w", err)
		}
		per[id] = n
		order = append(order, n)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if !byDoc {
		out.Chunks = order
		return nil
	}
	out.Chunks = make([]int64, len(ids))
	for i, id := range ids {
		out.Chunks[i] = per[id]
	}
	return nil
}

var _ db.ReadCoster = (*store)(nil)

// ReadCost runs EXPLAIN (ANALYZE, BUFFERS) of data -> field at key twice
// (the first warms the caches) and reads the plan's shared buffers hit and
// read: heap, index and TOAST pages, the detoasting included.
func (s *store) ReadCost(ctx context.Context, table string, key []byte, field string) (db.Figure, string, error) {
	t := pgx.Identifier{s.schema, table}.Sanitize()
	read := "SELECT data -> " + quoteLiteral(field) + " FROM " + t + " WHERE " + s.keyOrder() + " = " + quoteLiteral(string(key))
	q := "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, FORMAT JSON) " + read
	var plans []struct {
		Plan struct {
			Hit  *float64 `json:"Shared Hit Blocks"`
			Read *float64 `json:"Shared Read Blocks"`
		}
	}
	for range 2 {
		if err := s.admin.QueryRow(ctx, q).Scan(&plans); err != nil {
			return db.Figure{}, q, fmt.Errorf("postgres: %s: %w", q, err)
		}
	}
	if len(plans) == 0 || plans[0].Plan.Hit == nil {
		return db.Missing("EXPLAIN gave no buffer counts"), q, nil
	}
	n := *plans[0].Plan.Hit
	if plans[0].Plan.Read != nil {
		n += *plans[0].Plan.Read
	}
	return db.Val(n, db.Pages), q, nil
}
