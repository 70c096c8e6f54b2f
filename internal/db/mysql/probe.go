package mysql

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/probe"
)

var _ db.Prober = (*store)(nil)

// statusCounters maps the server's global status variables to docbench's
// counter names. Redo: Innodb_lsn_current (MariaDB) or
// Innodb_redo_log_current_lsn (MySQL 8.0.30+); both are server-wide.
var statusCounters = map[string]string{
	"innodb_lsn_current":               "redo_bytes",
	"innodb_redo_log_current_lsn":      "redo_bytes",
	"innodb_os_log_written":            "redo_written_bytes",
	"innodb_rows_inserted":             "rows_inserted",
	"innodb_rows_updated":              "rows_updated",
	"innodb_rows_deleted":              "rows_deleted",
	"innodb_rows_read":                 "rows_read",
	"innodb_buffer_pool_reads":         "buffer_pool_reads",
	"innodb_buffer_pool_read_requests": "buffer_pool_read_requests",
	"innodb_data_written":              "data_written_bytes",
	"handler_write":                    "handler_write",
	"handler_update":                   "handler_update",
	"handler_delete":                   "handler_delete",
	"handler_read_key":                 "handler_read_key",
	"handler_read_next":                "handler_read_next",
	"handler_read_rnd_next":            "handler_read_rnd_next",
}

// Probe reads the redo position and InnoDB/handler counters (server-wide),
// the binary log's size, and the table's data and index length after
// ANALYZE TABLE (which runs after the counters are read).
func (s *store) Probe(ctx context.Context) (db.Snapshot, error) {
	snap := db.NewSnapshot()
	if s.d.compat != "" {
		// go-mysql-server answers SHOW GLOBAL STATUS with placeholders that
		// stay 0 whatever is written: no counter rather than a false zero.
		for _, key := range statusCounters {
			snap.Counters[key] = db.Missing(s.d.compat + " has no InnoDB: its status counters stay 0")
		}
		snap.Facts["counters"] = s.d.compat + ": no redo, row or handler counters"
		s.probeStorage(ctx, &snap)
		return snap, nil
	}
	names := make([]string, 0, len(statusCounters))
	for n := range statusCounters {
		names = append(names, quoteLiteral(n))
	}
	rows, err := s.sqlDB.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE lower(Variable_name) IN ("+strings.Join(names, ", ")+")")
	if err != nil {
		return snap, fmt.Errorf("%s probe: %w", s.d.flavour(), err)
	}
	for rows.Next() {
		var name, val string
		if err := rows.Scan(&name, &val); err != nil {
			rows.Close()
			return snap, err
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			continue
		}
		key := statusCounters[strings.ToLower(name)]
		unit := db.Count
		if strings.HasSuffix(key, "_bytes") {
			unit = db.Bytes
		}
		snap.Counters[key] = db.Val(v, unit)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return snap, err
	}
	// MariaDB has no Innodb_rows_*: the handler counters count the same
	// row writes (of every table, temporary ones included).
	for rows, handler := range map[string]string{"rows_inserted": "handler_write", "rows_updated": "handler_update", "rows_deleted": "handler_delete"} {
		if _, ok := snap.Counters[rows]; !ok {
			if f, ok := snap.Counters[handler]; ok {
				snap.Counters[rows] = f
				snap.Facts["rows_counters"] = "rows_* are Handler_write/update/delete: the server has no Innodb_rows_*"
			}
		}
	}
	if _, ok := snap.Counters["redo_bytes"]; !ok {
		snap.Counters["redo_bytes"] = db.Missing("the server reports no redo LSN (Innodb_lsn_current / Innodb_redo_log_current_lsn)")
	}
	snap.Facts["counters_scope"] = "redo, row and handler counters are server-wide"
	// An UPDATE that sets the values a row has is matched, not changed:
	// neither Handler_update nor Innodb_rows_updated counts it.
	snap.Facts[probe.UnchangedUncounted] = "MySQL"
	if s.d.mariadb {
		snap.Facts[probe.UnchangedUncounted] = "MariaDB"
	}

	var logBin string
	_ = s.sqlDB.QueryRowContext(ctx, "SELECT @@log_bin").Scan(&logBin)
	if logBin == "1" || strings.EqualFold(logBin, "ON") {
		if b, err := s.binlogBytes(ctx); err != nil {
			snap.Counters["binlog_bytes"] = db.Missing("SHOW BINARY LOGS: " + err.Error())
		} else {
			snap.Counters["binlog_bytes"] = db.Val(b, db.Bytes)
		}
	} else {
		snap.Counters["binlog_bytes"] = db.Missing("binary log off (log_bin=OFF)")
	}

	s.probeStorage(ctx, &snap)
	return snap, nil
}

// probeStorage reads the table's sizes, fresh after ANALYZE TABLE, its
// document count and the server's PID.
func (s *store) probeStorage(ctx context.Context, snap *db.Snapshot) {
	g := snap.Gauges
	if _, err := s.sqlDB.ExecContext(ctx, "ANALYZE TABLE "+s.table); err != nil {
		snap.Facts["analyze"] = "ANALYZE TABLE failed: " + err.Error()
	}
	var data, index, free float64
	err := s.sqlDB.QueryRowContext(ctx, `SELECT data_length, index_length, data_free FROM information_schema.TABLES
		WHERE table_schema = ? AND table_name = ?`, s.dbName, s.tableNm).Scan(&data, &index, &free)
	if err != nil {
		for _, n := range []string{"table_bytes", "index_bytes", "total_bytes", "documents"} {
			g[n] = db.Missing("information_schema.TABLES: " + err.Error())
		}
	} else {
		g["table_bytes"] = db.Val(data, db.Bytes)
		g["index_bytes"] = db.Val(index, db.Bytes)
		g["data_free_bytes"] = db.Val(free, db.Bytes)
		g["total_bytes"] = db.Val(data+index, db.Bytes)
		var n float64
		if err := s.sqlDB.QueryRowContext(ctx, "SELECT count(*) FROM "+s.table).Scan(&n); err != nil {
			g["documents"] = db.Missing(err.Error())
		} else {
			g["documents"] = db.Val(n, db.Count)
		}
	}
	snap.ServerPID, snap.PIDAbsent = s.serverPID(ctx)
}

func (s *store) binlogBytes(ctx context.Context) (float64, error) {
	rows, err := s.sqlDB.QueryContext(ctx, "SHOW BINARY LOGS")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var total float64
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return 0, err
		}
		if len(vals) > 1 {
			n, _ := strconv.ParseFloat(fmt.Sprint(string(asBytes(vals[1]))), 64)
			total += n
		}
	}
	return total, rows.Err()
}

func asBytes(v any) []byte {
	switch x := v.(type) {
	case []byte:
		return x
	case int64:
		return []byte(strconv.FormatInt(x, 10))
	}
	return []byte(fmt.Sprint(v))
}

// serverPID reads the server's pid file when it is on this machine.
func (s *store) serverPID(ctx context.Context) (int, string) {
	var file string
	if err := s.sqlDB.QueryRowContext(ctx, "SELECT @@pid_file").Scan(&file); err != nil {
		return 0, "@@pid_file: " + err.Error()
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, "pid file " + file + " not readable here (server on another machine?)"
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, "pid file " + file + ": " + err.Error()
	}
	name, err := probe.ProcessName(pid)
	if err != nil || (name != "mariadbd" && name != "mysqld") {
		return 0, fmt.Sprintf("process %d of pid file %s is %q, not the server", pid, file, name)
	}
	return pid, ""
}
