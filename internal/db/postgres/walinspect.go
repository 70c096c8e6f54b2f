package postgres

import (
	"context"
	"time"

	"github.com/docbench/docbench/internal/db"
)

var _ db.IntervalProber = (*store)(nil)

// ProbeInterval reads, with pg_walinspect, how much of the WAL written
// between two snapshots were full-page images: the part of the write volume
// a checkpoint's first touch of a page costs. The extension is created when
// missing (which needs the right to); without it the figures are absent
// with the reason.
func (s *store) ProbeInterval(ctx context.Context, before, after db.Snapshot) map[string]db.Figure {
	out := map[string]db.Figure{}
	absent := func(why string) map[string]db.Figure {
		out["wal_fpi_bytes"] = db.Missing(why)
		out["wal_nonfpi_bytes"] = db.Missing(why)
		return out
	}
	start, end := before.Facts["wal_insert_lsn"], after.Facts["wal_insert_lsn"]
	if start == "" || end == "" {
		return absent("no WAL positions around the phase")
	}
	if m := serverMajor(s.admin); m > 0 && m < 15 {
		return absent("pg_walinspect needs PostgreSQL 15")
	}
	if _, err := s.admin.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_walinspect"); err != nil {
		return absent("pg_walinspect unavailable: " + oneLine(err))
	}
	// pg_walinspect reads only flushed WAL: wait for the WAL writer.
	for deadline := time.Now().Add(3 * time.Second); ; {
		var flushed bool
		if err := s.admin.QueryRow(ctx, "SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn", end).Scan(&flushed); err != nil {
			return absent("pg_current_wal_flush_lsn: " + oneLine(err))
		}
		if flushed {
			break
		}
		if time.Now().After(deadline) {
			return absent("the WAL of the phase was not flushed within 3 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	var fpi, records float64
	err := s.admin.QueryRow(ctx, `SELECT coalesce(sum(fpi_size), 0)::float8, coalesce(sum(record_size), 0)::float8
		FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn)`, start, end).Scan(&fpi, &records)
	if err != nil {
		return absent("pg_get_wal_stats: " + oneLine(err))
	}
	// record_size is the records' length less their full-page images
	// (pg_get_wal_stats' combined_size is the sum of the two).
	out["wal_fpi_bytes"] = db.Val(fpi, db.Bytes)
	out["wal_nonfpi_bytes"] = db.Val(records, db.Bytes)
	return out
}
