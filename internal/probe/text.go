package probe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/docbench/docbench/internal/db"
)

// textCounters are the counters the text block shows, in order.
var textCounters = []string{"wal_bytes", "wal_fpi", "wal_records", "redo_bytes", "binlog_bytes", "journal_bytes",
	"wal_file_bytes", "wal_frames", "checkpoints", "checkpoint_s", "checkpoint_restarts",
	"rows_inserted", "rows_updated", "rows_hot_updated", "rows_deleted",
	"heap_blks_read", "heap_blks_hit", "toast_blks_read", "toast_blks_hit", "idx_blks_read", "idx_blks_hit",
	"pages_written", "opcounters_insert", "opcounters_update", "opcounters_query"}

// textWidth is the widest line the text block prints.
const textWidth = 100

// WriteText prints the short "server side" block of a phase: figures a
// server gives, then those it cannot give grouped by reason, each reason
// once; lines stay within 100 columns.
func WriteText(w io.Writer, s *Server, a *db.Audit) {
	if s == nil {
		return
	}
	fmt.Fprintln(w, "\nserver side")
	if s.Absent != "" {
		fmt.Fprintf(w, "  absent: %s\n", s.Absent)
		return
	}
	absent := map[string][]string{} // reason → figures
	var reasons []string
	present := func(label string, keys []string, m map[string]db.Figure) {
		var parts []string
		for _, k := range keys {
			f, ok := m[k]
			switch {
			case !ok:
			case f.OK():
				parts = append(parts, k+" "+FormatFigure(f))
			default:
				if absent[f.Absent] == nil {
					reasons = append(reasons, f.Absent)
				}
				absent[f.Absent] = append(absent[f.Absent], k)
			}
		}
		wrapped(w, label, parts)
	}
	present("counters", textCounters, s.Counters)
	var perOp []string
	for _, k := range SortedKeys(s.PerOp) {
		if !strings.HasSuffix(k, "_per_op") || len(s.PerOp) <= 2 {
			perOp = append(perOp, k)
		}
	}
	present("per op", perOp, s.PerOp)
	present("storage", []string{"table_bytes", "toast_bytes", "index_bytes", "total_bytes", "documents", "bytes_per_document",
		"raw_json_bytes_per_document", "ratio_to_raw_json"}, s.Storage)
	if c := s.CPU; c != nil {
		cpu := []string{"docbench " + FormatFigure(c.HarnessS)}
		if c.HarnessUSOp.OK() {
			cpu[0] += " (" + FormatFigure(c.HarnessUSOp) + "/op)"
		}
		if c.ServerS.OK() {
			srv := "server " + FormatFigure(c.ServerS)
			if c.ServerUSOp.OK() {
				srv += " (" + FormatFigure(c.ServerUSOp) + "/op)"
			}
			cpu = append([]string{srv}, cpu...)
		} else {
			if absent[c.ServerS.Absent] == nil {
				reasons = append(reasons, c.ServerS.Absent)
			}
			absent[c.ServerS.Absent] = append(absent[c.ServerS.Absent], "server cpu")
		}
		if c.Interpretation != "" {
			cpu = append(cpu, c.Interpretation)
		}
		wrapped(w, "cpu", cpu)
	}
	for _, r := range reasons {
		wrapped(w, "absent", []string{strings.Join(absent[r], ", ") + " — " + r})
	}
	for _, ch := range s.Checks {
		mark := "= server"
		switch {
		case ch.Explained != "":
			mark = fmt.Sprintf("(server %.0f: %s)", ch.Server, ch.Explained)
		case !ch.Match:
			mark = fmt.Sprintf("≠ server %.0f", ch.Server)
		}
		fmt.Fprintf(w, "  check: %s %d %s\n", ch.What, ch.Docbench, mark)
	}
	for _, p := range s.Plans {
		flag := ""
		if p.Flag != "" {
			flag = " ⚑ " + p.Flag
		}
		wrapped(w, "plan "+p.Op, []string{p.Access + flag})
	}
	if a != nil {
		wrapped(w, "audit", []string{"durability " + string(a.Durability) + " (" + a.DurabilityDetail + ")", "key index " + string(a.KeyIndex),
			"secondary indexes " + a.SecondaryIndexes, fmt.Sprintf("clients %d", a.Clients)})
	}
	for _, n := range s.Notes {
		wrapped(w, "note", []string{n})
	}
}

// wrapped prints "  label: a · b · c", breaking between parts (and inside
// a part too long for a line) so that no line exceeds textWidth columns.
func wrapped(w io.Writer, label string, parts []string) {
	if len(parts) == 0 {
		return
	}
	head := "  " + label + ": "
	indent := strings.Repeat(" ", 4)
	line := head
	flush := func() {
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		line = indent
	}
	for i, p := range parts {
		sep := ""
		if i > 0 {
			sep = " · "
		}
		if line != head && line != indent && width(line)+width(sep)+width(p) > textWidth {
			flush()
			sep = ""
		}
		for _, word := range strings.Fields(p) {
			if width(line)+width(sep)+width(word) > textWidth && line != head && line != indent {
				flush()
				sep = ""
			}
			line += sep + word
			sep = " "
		}
	}
	flush()
}

func width(s string) int { return utf8.RuneCountInString(s) }

// Get returns a figure of a map, or an absent one.
func Get(m map[string]db.Figure, k string) db.Figure {
	if f, ok := m[k]; ok {
		return f
	}
	return db.Missing("not reported")
}
