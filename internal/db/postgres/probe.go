package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/probe"
)

var _ db.Prober = (*store)(nil)

// Probe reads the server's own view: the WAL insert position and pg_stat_wal
// (cluster-wide), the table's row counters and buffer statistics, and the
// sizes of its heap, TOAST relation and indexes (child tables of
// layout=relational apart). It writes nothing.
func (s *store) Probe(ctx context.Context) (db.Snapshot, error) {
	snap := db.NewSnapshot()
	c := s.admin
	var vnum int
	if err := c.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&vnum); err != nil {
		return snap, fmt.Errorf("postgres probe: %w", err)
	}
	// Other backends flush their statistics when they exit (sessions have
	// just closed) or within a second: wait until the counters settle.
	s.awaitStats(ctx, vnum)

	var lsn string
	var pos float64
	walSQL := "SELECT pg_current_wal_insert_lsn()::text, pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::float8"
	if vnum < 100000 { // the same functions under their 9.6 names
		walSQL = "SELECT pg_current_xlog_insert_location()::text, pg_xlog_location_diff(pg_current_xlog_insert_location(), '0/0')::float8"
	}
	err := c.QueryRow(ctx, walSQL).Scan(&lsn, &pos)
	if err != nil {
		snap.Counters["wal_bytes"] = db.Missing("pg_current_wal_insert_lsn: " + oneLine(err))
	} else {
		snap.Counters["wal_bytes"] = db.Val(pos, db.Bytes)
		snap.Facts["wal_insert_lsn"] = lsn
	}
	if vnum >= 140000 {
		var recs, fpi, bytes float64
		if err := c.QueryRow(ctx, "SELECT wal_records::float8, wal_fpi::float8, wal_bytes::float8 FROM pg_stat_wal").Scan(&recs, &fpi, &bytes); err != nil {
			snap.Counters["wal_records"] = db.Missing("pg_stat_wal: " + oneLine(err))
			snap.Counters["wal_fpi"] = db.Missing("pg_stat_wal: " + oneLine(err))
		} else {
			snap.Counters["wal_records"] = db.Val(recs, db.Count)
			snap.Counters["wal_fpi"] = db.Val(fpi, db.Count)
			snap.Counters["wal_stat_bytes"] = db.Val(bytes, db.Bytes)
		}
	} else {
		snap.Counters["wal_records"] = db.Missing("pg_stat_wal needs PostgreSQL 14")
		snap.Counters["wal_fpi"] = db.Missing("pg_stat_wal needs PostgreSQL 14")
	}
	snap.Facts["counters_scope"] = "WAL is cluster-wide; row and buffer counters are the docbench table's"

	if err := s.probeTables(ctx, &snap); err != nil {
		return snap, err
	}
	snap.ServerPID, snap.PIDAbsent = s.serverPID(ctx)
	return snap, nil
}

// awaitStats waits (up to two seconds, four before PostgreSQL 15) until the cluster's row and WAL counters
// stop moving, so that exited sessions' statistics are in.
func (s *store) awaitStats(ctx context.Context, vnum int) {
	q := "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::float8 FROM pg_stat_user_tables"
	if vnum >= 140000 {
		q = "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::float8 + (SELECT wal_records FROM pg_stat_wal)::float8 FROM pg_stat_user_tables"
	}
	if vnum >= 150000 {
		_, _ = s.admin.Exec(ctx, "SELECT pg_stat_force_next_flush()")
	}
	// Before PostgreSQL 15 a statistics collector process receives the
	// counters and writes them to a file readers take up to half a second
	// old: look as long, and wait longer.
	step, wait := 40*time.Millisecond, 2*time.Second
	if vnum < 150000 {
		step, wait = 300*time.Millisecond, 4*time.Second
	}
	last, same := -1.0, 0
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); {
		_, _ = s.admin.Exec(ctx, "SELECT pg_stat_clear_snapshot()")
		var v float64
		if err := s.admin.QueryRow(ctx, q).Scan(&v); err != nil {
			return
		}
		var others int
		_ = s.admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND state = 'active'").Scan(&others)
		if v == last && others == 0 {
			same++
			if same >= 2 {
				return
			}
		} else {
			same = 0
		}
		last = v
		time.Sleep(step)
	}
}

// relation sizes and counters of the table, its TOAST relation, its indexes
// and its child tables (layout=relational: table__field).
const tablesSQL = `
SELECT c.oid::regclass::text, c.relname = $2 AS main,
       pg_relation_size(c.oid, 'main')::float8,
       (pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm'))::float8,
       coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0)::float8,
       pg_indexes_size(c.oid)::float8,
       pg_total_relation_size(c.oid)::float8,
       coalesce(t.n_tup_ins, 0)::float8, coalesce(t.n_tup_upd, 0)::float8, coalesce(t.n_tup_del, 0)::float8,
       coalesce(t.n_tup_hot_upd, 0)::float8, coalesce(t.n_live_tup, 0)::float8,
       coalesce(io.heap_blks_read, 0)::float8, coalesce(io.heap_blks_hit, 0)::float8,
       coalesce(io.toast_blks_read, 0)::float8, coalesce(io.toast_blks_hit, 0)::float8,
       coalesce(io.idx_blks_read, 0)::float8, coalesce(io.idx_blks_hit, 0)::float8,
       coalesce(io.tidx_blks_read, 0)::float8, coalesce(io.tidx_blks_hit, 0)::float8
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_stat_user_tables t ON t.relid = c.oid
LEFT JOIN pg_statio_user_tables io ON io.relid = c.oid
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND (c.relname = $2 OR left(c.relname, length($2) + 2) = $2 || '__')
ORDER BY 2 DESC, 1`

func (s *store) probeTables(ctx context.Context, snap *db.Snapshot) error {
	rows, err := s.admin.Query(ctx, tablesSQL, s.schema, s.tableRaw)
	if err != nil {
		return fmt.Errorf("postgres probe: %w", err)
	}
	defer rows.Close()
	found, live := false, 0.0
	add := func(m map[string]db.Figure, k string, v float64, unit string) {
		f := m[k]
		m[k] = db.Val(f.Value+v, unit)
	}
	for rows.Next() {
		var name string
		var main bool
		var v [18]float64
		dst := []any{&name, &main}
		for i := range v {
			dst = append(dst, &v[i])
		}
		if err := rows.Scan(dst...); err != nil {
			return fmt.Errorf("postgres probe: %w", err)
		}
		g, k := snap.Gauges, snap.Counters
		if main {
			found = true
			live = v[9]
			g["table_bytes"] = db.Val(v[0], db.Bytes)
			g["table_fsm_vm_bytes"] = db.Val(v[1], db.Bytes)
			g["toast_bytes"] = db.Val(v[2], db.Bytes)
			g["index_bytes"] = db.Val(v[3], db.Bytes)
			k["rows_inserted"] = db.Val(v[5], db.Count)
			k["rows_updated"] = db.Val(v[6], db.Count)
			k["rows_deleted"] = db.Val(v[7], db.Count)
			k["rows_hot_updated"] = db.Val(v[8], db.Count)
		} else {
			add(g, "child_tables_bytes", v[4], db.Bytes)
			add(k, "child_rows_inserted", v[5], db.Count)
			add(k, "child_rows_deleted", v[7], db.Count)
		}
		add(g, "total_bytes", v[4], db.Bytes)
		for i, n := range []string{"heap_blks_read", "heap_blks_hit", "toast_blks_read", "toast_blks_hit", "idx_blks_read", "idx_blks_hit", "tidx_blks_read", "tidx_blks_hit"} {
			add(k, n, v[10+i], db.Pages)
		}
		// Buffers touched, found in shared buffers or read: the heap's, the
		// TOAST relation's with its index, and the indexes'.
		add(k, "heap_buffers", v[10]+v[11], db.Pages)
		add(k, "toast_buffers", v[12]+v[13]+v[16]+v[17], db.Pages)
		add(k, "index_buffers", v[14]+v[15], db.Pages)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres probe: %w", err)
	}
	if !found {
		for _, n := range []string{"table_bytes", "toast_bytes", "index_bytes", "total_bytes", "documents"} {
			snap.Gauges[n] = db.Missing("table " + s.table + " does not exist")
		}
		return nil
	}
	s.countDocuments(ctx, snap, live)
	if err := s.probeToast(ctx, snap); err != nil {
		return err
	}
	// Each index of the main table.
	irows, err := s.admin.Query(ctx, `SELECT i.indexrelid::regclass::text, pg_relation_size(i.indexrelid)::float8
		FROM pg_index i WHERE i.indrelid = to_regclass($1) ORDER BY 1`, s.table)
	if err != nil {
		return fmt.Errorf("postgres probe: %w", err)
	}
	defer irows.Close()
	for irows.Next() {
		var name string
		var size float64
		if err := irows.Scan(&name, &size); err != nil {
			return err
		}
		snap.Gauges["index:"+name] = db.Val(size, db.Bytes)
	}
	return irows.Err()
}

// serverPID finds the postmaster when the server runs on this machine: the
// parent of the probe connection's backend, if it is a postgres process.
func (s *store) serverPID(ctx context.Context) (int, string) {
	host := s.connCfg.Host
	if !strings.HasPrefix(host, "/") && host != "localhost" && host != "127.0.0.1" && host != "::1" {
		return 0, "server on " + host + ": its processes are not visible from here"
	}
	var backend int
	if err := s.admin.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return 0, oneLine(err)
	}
	ppid, err := probe.ParentPID(backend)
	if err != nil {
		return 0, fmt.Sprintf("backend %d not visible on this machine (another PID namespace or host)", backend)
	}
	name, err := probe.ProcessName(ppid)
	if err != nil || (name != "postgres" && name != "postmaster") {
		return 0, fmt.Sprintf("backend %d's parent is %q, not a postmaster (another PID namespace?)", backend, name)
	}
	return ppid, ""
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// toastSample is how many documents probeToast inspects: enough for shares,
// few enough that deTOASTing them for their raw length stays cheap.
const toastSample = 1000

// probeToast says how the documents are stored (the "how is it stored" of
// Bartunov and Glukhov, "Understanding JSONB Performance", PGConf.NYC 2021):
// the shares of a sample stored inline uncompressed, compressed in line, and
// out of line in the TOAST table (pg_column_compression;
// pg_column_toast_chunk_id, PostgreSQL 17+), and their stored size against
// their raw JSON length (pg_column_size against octet_length of the text).
func (s *store) probeToast(ctx context.Context, snap *db.Snapshot) error {
	g := snap.Gauges
	names := []string{"doc_sample", "doc_inline_share", "doc_compressed_inline_share", "doc_external_share", "doc_compressed_share", "doc_stored_to_raw"}
	if s.v.layout == "relational" {
		for _, n := range names {
			g[n] = db.Missing("layout=relational has no document column")
		}
		return nil
	}
	var ver int
	if err := s.admin.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&ver); err != nil {
		return fmt.Errorf("postgres probe: %w", err)
	}
	external, compressed := "NULL::bool", "NULL::bool"
	if ver >= 170000 {
		external = "pg_column_toast_chunk_id(data) IS NOT NULL"
	}
	if ver >= 140000 {
		compressed = "pg_column_compression(data) IS NOT NULL"
	}
	q := `SELECT count(*)::float8,
		count(*) FILTER (WHERE ` + external + `)::float8,
		count(*) FILTER (WHERE ` + compressed + `)::float8,
		count(*) FILTER (WHERE ` + compressed + ` AND NOT (` + external + `))::float8,
		coalesce(sum(pg_column_size(data)), 0)::float8, coalesce(sum(octet_length(data::text)), 0)::float8
		FROM (SELECT data FROM ` + s.table + ` LIMIT ` + fmt.Sprint(toastSample) + `) d`
	var n, ext, comp, compInline, stored, raw float64
	var extN, compInlineN *float64
	note, err := s.uncounted(ctx, func(tx pgx.Tx, _ bool) error {
		return tx.QueryRow(ctx, q).Scan(&n, &extN, &comp, &compInlineN, &stored, &raw)
	})
	if err != nil {
		return fmt.Errorf("postgres probe (TOAST): %w", err)
	}
	if note != "" {
		snap.Facts["probe_sample"] = "the TOAST sample's reads are in the next phase's buffer counters " + note
	}
	g["doc_sample"] = db.Val(n, db.Count)
	if n == 0 {
		for _, k := range names[1:] {
			g[k] = db.Missing("no documents")
		}
		return nil
	}
	g["doc_compressed_share"] = db.Val(comp/n, "share")
	if raw > 0 {
		g["doc_stored_to_raw"] = db.Val(stored/raw, "ratio")
	}
	if ver < 140000 {
		for _, k := range names[1:5] {
			g[k] = db.Missing("telling compressed values apart needs pg_column_compression (PostgreSQL 14)")
		}
		return nil
	}
	if ver < 170000 {
		for _, k := range []string{"doc_inline_share", "doc_compressed_inline_share", "doc_external_share"} {
			g[k] = db.Missing("telling in-line from out-of-line values needs pg_column_toast_chunk_id (PostgreSQL 17)")
		}
		return nil
	}
	if extN != nil {
		ext = *extN
	}
	if compInlineN != nil {
		compInline = *compInlineN
	}
	g["doc_external_share"] = db.Val(ext/n, "share")
	g["doc_compressed_inline_share"] = db.Val(compInline/n, "share")
	g["doc_inline_share"] = db.Val((n-ext-compInline)/n, "share")
	return nil
}

// countDocuments sets the documents the table holds: counted, not
// n_live_tup (live), the statistics' estimate, which an ANALYZE
// (autovacuum's too) sets from its sample, losing the rows a load inserts
// meanwhile. Only where the count's reads go uncounted: otherwise a whole
// scan would land in the next phase's buffer counters, and documents is
// the estimate, with a fact saying so.
func (s *store) countDocuments(ctx context.Context, snap *db.Snapshot, live float64) {
	var docs float64
	note, err := s.uncounted(ctx, func(tx pgx.Tx, counted bool) error {
		if counted {
			docs = live
			return nil
		}
		return tx.QueryRow(ctx, "SELECT count(*)::float8 FROM "+s.table).Scan(&docs)
	})
	switch {
	case err != nil:
		snap.Gauges["documents"] = db.Missing("count(*): " + oneLine(err))
		return
	case note != "":
		snap.Facts[probe.DocumentsEstimated] = "documents is n_live_tup, the statistics' estimate: counting them would add a scan to the next phase's buffer counters " + note
	}
	snap.Gauges["documents"] = db.Val(docs, db.Count)
}

// uncounted runs f, a read of the table's documents, in a transaction
// with track_counts off, so that the buffers it touches are not counted in
// the next phase's figures (a snapshot's sample comes after its counters).
// Only a superuser may turn track_counts off: without it, f runs counted
// (told so), and uncounted says why.
func (s *store) uncounted(ctx context.Context, f func(tx pgx.Tx, counted bool) error) (string, error) {
	tx, err := s.admin.Begin(ctx)
	if err != nil {
		return "", err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "SAVEPOINT docbench_probe"); err != nil {
		return "", err
	}
	note := ""
	if _, err := tx.Exec(ctx, "SET LOCAL track_counts = off"); err != nil {
		if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT docbench_probe"); err != nil {
			return "", err
		}
		note = "(SET track_counts = off: " + oneLine(err) + ")"
	}
	return note, f(tx, note != "")
}
