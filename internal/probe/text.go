package probe

import (
	"fmt"
	"io"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

// textCounters are the counters the text block shows, in order.
var textCounters = []string{"wal_bytes", "wal_fpi", "wal_records", "redo_bytes", "binlog_bytes", "journal_bytes",
	"wal_file_bytes", "wal_frames", "rows_inserted", "rows_updated", "rows_hot_updated", "rows_deleted",
	"heap_blks_read", "heap_blks_hit", "toast_blks_read", "toast_blks_hit", "idx_blks_read", "idx_blks_hit",
	"pages_written", "opcounters_insert", "opcounters_update", "opcounters_query"}

// WriteText prints the short "server side" block of a phase.
func WriteText(w io.Writer, s *Server, a *Audit) {
	if s == nil {
		return
	}
	fmt.Fprintln(w, "\nserver side")
	if s.Absent != "" {
		fmt.Fprintf(w, "  absent: %s\n", s.Absent)
		return
	}
	var parts []string
	for _, k := range textCounters {
		if f, ok := s.Counters[k]; ok {
			parts = append(parts, k+" "+FormatFigure(f))
		}
	}
	line(w, "counters", parts)
	parts = parts[:0]
	for _, k := range SortedKeys(s.PerOp) {
		if strings.HasSuffix(k, "_per_op") && len(s.PerOp) > 2 {
			continue
		}
		parts = append(parts, k+" "+FormatFigure(s.PerOp[k]))
	}
	line(w, "per op", parts)
	parts = parts[:0]
	for _, k := range []string{"table_bytes", "toast_bytes", "index_bytes", "total_bytes", "documents", "bytes_per_document", "raw_json_bytes_per_document", "ratio_to_raw_json"} {
		if f, ok := s.Storage[k]; ok {
			parts = append(parts, k+" "+FormatFigure(f))
		}
	}
	line(w, "storage", parts)
	if c := s.CPU; c != nil {
		fmt.Fprintf(w, "  cpu: server %s (%s/op) · docbench %s (%s/op)", FormatFigure(c.ServerS), FormatFigure(c.ServerUSOp),
			FormatFigure(c.HarnessS), FormatFigure(c.HarnessUSOp))
		if c.Interpretation != "" {
			fmt.Fprintf(w, " · %s", c.Interpretation)
		}
		fmt.Fprintln(w)
	}
	for _, ch := range s.Checks {
		mark := "= server"
		if !ch.Match {
			mark = fmt.Sprintf("≠ server %.0f", ch.Server)
		}
		fmt.Fprintf(w, "  check: %s %d %s\n", ch.What, ch.Docbench, mark)
	}
	for _, p := range s.Plans {
		flag := ""
		if p.Flag != "" {
			flag = " ⚑ " + p.Flag
		}
		fmt.Fprintf(w, "  plan %s: %s%s\n", p.Op, p.Access, flag)
	}
	if a != nil {
		fmt.Fprintf(w, "  audit: durability %s (%s) · key index %s · clients %d\n", a.Durability, a.DurabilityDetail, a.KeyIndex, a.Clients)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

func line(w io.Writer, label string, parts []string) {
	if len(parts) == 0 {
		return
	}
	fmt.Fprintf(w, "  %s: %s\n", label, strings.Join(parts, " · "))
}

// Get returns a figure of a map, or an absent one.
func Get(m map[string]db.Figure, k string) db.Figure {
	if f, ok := m[k]; ok {
		return f
	}
	return db.Missing("not reported")
}
