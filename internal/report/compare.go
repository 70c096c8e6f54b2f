package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/probe"
)

// ReadResult reads one result file for comparing; every error is one line
// that names the file.
func ReadResult(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(b, &head); err != nil || head.Schema == nil {
		return nil, fmt.Errorf("%s: not a docbench result (want a JSON document with \"schema\": %q)", path, Schema)
	}
	if *head.Schema != Schema {
		return nil, fmt.Errorf("%s: schema %q, this docbench reads %q", path, *head.Schema, Schema)
	}
	var r Result
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: malformed result: %v", path, err)
	}
	return &r, nil
}

// WriteCompare prints results side by side (throughput, latency per
// operation, server-side figures) and the fairness audit of their targets;
// names[i] says where rs[i] came from. It returns the audit's findings.
func WriteCompare(w io.Writer, names []string, rs []*Result) []probe.Finding {
	fmt.Fprintf(w, "docbench compare · %d results\n", len(rs))
	for i, r := range rs {
		ver := r.Target.Backend
		if r.Target.Version != "" {
			ver += " " + r.Target.Version
		}
		state := ""
		if !r.Complete {
			state = " · INCOMPLETE"
		}
		fmt.Fprintf(w, "%s = %s: %s %s · %s · %d thread(s)%s\n", compareLabel(i), names[i], r.Phase, r.Target.Target, ver, r.Options.Threads, state)
	}
	fmt.Fprintln(w)
	writeCompareTable(w, rs)
	return writeAudit(w, rs)
}

// compareLabel names the i-th result (A, B, …).
func compareLabel(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("R%d", i+1)
}

// compareTable is the side-by-side table: a row per figure, a column per
// result. Figures a server cannot give are footnotes: the table stays
// narrow and each reason is said once, below it.
type compareTable struct {
	tw      *tabwriter.Writer
	rs      []*Result
	reasons []string
}

// foot returns the cell of an absent figure, numbering its reason.
func (t *compareTable) foot(why string) string {
	for i, r := range t.reasons {
		if r == why {
			return fmt.Sprintf("absent [%d]", i+1)
		}
	}
	t.reasons = append(t.reasons, why)
	return fmt.Sprintf("absent [%d]", len(t.reasons))
}

func (t *compareTable) row(name string, cell func(r *Result) string) {
	cells := []string{name}
	for _, r := range t.rs {
		cells = append(cells, cell(r))
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t")+"\t")
}

// server makes a cell of a server-side figure.
func (t *compareTable) server(f func(s *probe.Server) db.Figure) func(r *Result) string {
	return func(r *Result) string {
		if r.Server == nil {
			return t.foot("the result has no server section")
		}
		if r.Server.Absent != "" {
			return t.foot(r.Server.Absent)
		}
		if fig := f(r.Server); !fig.OK() {
			return t.foot(fig.Absent)
		}
		return probe.FormatFigure(f(r.Server))
	}
}

func writeCompareTable(w io.Writer, rs []*Result) {
	t := &compareTable{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0), rs: rs}
	head := []string{""}
	for i := range rs {
		head = append(head, compareLabel(i))
	}
	fmt.Fprintln(t.tw, strings.Join(head, "\t")+"\t")
	t.row("throughput ops/s", func(r *Result) string { return fmt.Sprintf("%.1f", r.Throughput) })
	for _, name := range opNamesOf(rs) {
		t.row(name+" p50/p99 µs", func(r *Result) string {
			for _, op := range r.Ops {
				if op.Name == name && op.Service != nil {
					return fmt.Sprintf("%.1f / %.1f", op.Service.P50, op.Service.P99)
				}
			}
			return "-"
		})
	}
	t.row("write volume/op", t.writeVolumePerOp)
	t.row("write volume/write", t.writeVolumePerWrite)
	t.row("storage total", t.server(func(s *probe.Server) db.Figure { return probe.Get(s.Storage, "total_bytes") }))
	t.row("bytes/document", t.server(func(s *probe.Server) db.Figure { return probe.Get(s.Storage, "bytes_per_document") }))
	t.row("× raw JSON", t.server(func(s *probe.Server) db.Figure { return probe.Get(s.Storage, "ratio_to_raw_json") }))
	t.row("server CPU µs/op", t.server(cpuFigure(func(c *probe.CPU) db.Figure { return c.ServerUSOp })))
	t.row("docbench CPU µs/op", t.server(cpuFigure(func(c *probe.CPU) db.Figure { return c.HarnessUSOp })))
	t.row("flagged plans", flaggedPlans)
	t.tw.Flush()
	for i, r := range t.reasons {
		fmt.Fprint(w, WrapHang(fmt.Sprintf("[%d] %s", i+1, r), "  ", "      ", 100))
	}
}

// writeVolumePerOp is the first write counter the server reports, per
// operation.
func (t *compareTable) writeVolumePerOp(r *Result) string {
	if r.Server == nil || r.Server.Absent != "" {
		return t.server(nil)(r)
	}
	for _, k := range probe.WriteCounters {
		if f, ok := r.Server.PerOp[k+"_per_op"]; ok {
			if !f.OK() {
				return k + " " + t.foot(f.Absent)
			}
			return k + " " + probe.FormatFigure(f)
		}
		if f, ok := r.Server.Counters[k]; ok && !f.OK() {
			return k + " " + t.foot(f.Absent)
		}
	}
	return t.foot("not reported")
}

// writeVolumePerWrite is the first write counter the server reports, per
// write operation.
func (t *compareTable) writeVolumePerWrite(r *Result) string {
	if r.Server == nil || r.Server.Absent != "" {
		return "-"
	}
	for _, k := range probe.WriteCounters {
		if f, ok := r.Server.PerOp[k+"_per_write"]; ok {
			if !f.OK() {
				return t.foot(f.Absent)
			}
			return probe.FormatFigure(f)
		}
	}
	return "-"
}

// cpuFigure reads a CPU figure, absent when the server reports no CPU.
func cpuFigure(f func(c *probe.CPU) db.Figure) func(s *probe.Server) db.Figure {
	return func(s *probe.Server) db.Figure {
		if s.CPU == nil {
			return db.Missing("not reported")
		}
		return f(s.CPU)
	}
}

// flaggedPlans lists the operations whose plans were flagged.
func flaggedPlans(r *Result) string {
	if r.Server == nil {
		return "-"
	}
	var flags []string
	for _, p := range r.Server.Plans {
		if p.Flag != "" {
			flags = append(flags, p.Op)
		}
	}
	if len(flags) == 0 {
		return "none"
	}
	return strings.Join(flags, ", ")
}

// writeAudit prints the fairness audit of the results' targets and returns
// its findings.
func writeAudit(w io.Writer, rs []*Result) []probe.Finding {
	var ts []probe.Target
	for i, r := range rs {
		a := r.Audit
		if a == nil {
			c := probe.Classify(r.Target.Backend, r.Target.Settings, r.Target.Layout, r.Options.Threads)
			a = &c
		}
		ts = append(ts, probe.Target{Name: compareLabel(i) + " " + r.Target.Backend, Backend: r.Target.Backend, Audit: *a})
	}
	findings := probe.Compare(ts)
	fmt.Fprintln(w, "\nfairness audit")
	var names []string
	for i := range rs {
		names = append(names, compareLabel(i))
	}
	for _, l := range probe.Lines(findings, names) {
		fmt.Fprint(w, WrapHang(l, "  ", "      ", 100))
	}
	var phases []string
	for _, r := range rs {
		phases = append(phases, r.Phase)
	}
	if p := phases[0]; strings.Count(strings.Join(phases, ","), p) != len(phases) {
		fmt.Fprintf(w, "  ⚑ changes the meaning: the results are of different phases (%s)\n", strings.Join(phases, ", "))
	}
	return findings
}

// opNamesOf lists the operation names of all results in first-seen order.
func opNamesOf(rs []*Result) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range rs {
		for _, op := range r.Ops {
			if !seen[op.Name] {
				seen[op.Name] = true
				names = append(names, op.Name)
			}
		}
	}
	return names
}

// WrapHang breaks text into lines of at most width columns, the first
// indented by first, the others by rest.
func WrapHang(text, first, rest string, width int) string {
	var b strings.Builder
	line, empty := first, true
	for _, w := range strings.Fields(text) {
		if !empty && len([]rune(line))+1+len([]rune(w)) > width {
			b.WriteString(line + "\n")
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line += w
		empty = false
	}
	b.WriteString(line + "\n")
	return b.String()
}
