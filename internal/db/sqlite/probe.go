package sqlite

import (
	"context"
	"fmt"
	"os"

	"github.com/docbench/docbench/internal/db"
)

var _ db.Prober = (*store)(nil)

// Probe reports the database's storage: page_count × page_size, the pages of
// the table and of its indexes (the dbstat virtual table, when compiled in),
// the WAL file's size and the document count. SQLite keeps no cumulative
// count of WAL frames (the WAL file is reused after every checkpoint), so
// the write volume is absent with that reason; SQLite runs inside docbench,
// so its CPU is the harness's. With sqlite.checkpoint=background the
// checkpoints that copied frames, their time and the RESTART checkpoints
// among them are counters too.
func (s *store) Probe(ctx context.Context) (db.Snapshot, error) {
	snap := db.NewSnapshot()
	snap.InProcess = true
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return snap, fmt.Errorf("sqlite probe: %w", err)
	}
	defer conn.Close()
	var pages, size, free float64
	if err := conn.QueryRowContext(ctx, "SELECT page_count, page_size, freelist_count FROM pragma_page_count(), pragma_page_size(), pragma_freelist_count()").Scan(&pages, &size, &free); err != nil {
		return snap, fmt.Errorf("sqlite probe: %w", err)
	}
	g := snap.Gauges
	g["total_bytes"] = db.Val(pages*size, db.Bytes)
	g["page_count"] = db.Val(pages, db.Pages)
	g["free_pages"] = db.Val(free, db.Pages)
	g["page_size"] = db.Val(size, db.Bytes)
	if fi, err := os.Stat(s.path + "-wal"); err == nil {
		g["wal_file_size"] = db.Val(float64(fi.Size()), db.Bytes)
	}
	var docs float64
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM "+quote(s.table)).Scan(&docs); err != nil {
		g["documents"] = db.Missing(err.Error())
	} else {
		g["documents"] = db.Val(docs, db.Count)
	}
	// dbstat: pages per table and index.
	rows, err := conn.QueryContext(ctx, `SELECT s.name, m.type, sum(s.pgsize) FROM dbstat s
		JOIN sqlite_schema m ON m.name = s.name WHERE m.tbl_name = ? GROUP BY s.name, m.type`, s.table)
	if err != nil {
		reason := "dbstat not compiled in: " + err.Error()
		g["table_bytes"], g["index_bytes"] = db.Missing(reason), db.Missing(reason)
	} else {
		var table, index float64
		for rows.Next() {
			var name, typ string
			var n float64
			if err := rows.Scan(&name, &typ, &n); err != nil {
				rows.Close()
				return snap, err
			}
			if typ == "index" {
				index += n
				g["index:"+name] = db.Val(n, db.Bytes)
			} else {
				table += n
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return snap, err
		}
		g["table_bytes"], g["index_bytes"] = db.Val(table, db.Bytes), db.Val(index, db.Bytes)
	}
	snap.Counters["wal_file_bytes"] = db.Missing("SQLite keeps no cumulative count of WAL frames: the WAL file is reused after each checkpoint")
	snap.Counters["rows_updated"] = db.Missing("SQLite keeps no row counters")
	if s.ckpt != nil {
		n, spent, restarts, err := s.ckpt.figures()
		if err != nil {
			reason := "the background checkpointer stopped: " + err.Error()
			for _, k := range []string{"checkpoints", "checkpoint_s", "checkpoint_restarts"} {
				snap.Counters[k] = db.Missing(reason)
			}
		} else {
			snap.Counters["checkpoints"] = db.Val(float64(n), db.Count)
			snap.Counters["checkpoint_s"] = db.Val(spent.Seconds(), db.Second)
			snap.Counters["checkpoint_restarts"] = db.Val(float64(restarts), db.Count)
		}
	}
	return snap, nil
}
