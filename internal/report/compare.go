package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
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
	return DecodeResult(path, b)
}

// DecodeResult decodes the result b read from path (a file, or an entry
// of an archive, named so in errors), checking its schema.
func DecodeResult(path string, b []byte) (*Result, error) {
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
// operation, server-side figures), between two results what changed
// beyond the noise of their windows (writeSignificance), and the fairness
// audit of their targets; names[i] says where rs[i] came from. It returns
// the audit's findings.
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
	if len(rs) == 2 {
		WriteSetupWarning(w, SetupDifferences(rs[0], rs[1]))
	}
	fmt.Fprintln(w)
	if allCapacity(rs) {
		// A capacity result's answer is its band, not its last trial.
		writeCapacityCompare(w, rs)
		return writeAudit(w, rs)
	}
	writeCompareTable(w, rs)
	if len(rs) == 2 {
		writeSignificance(w, rs[0], rs[1])
	}
	return writeAudit(w, rs)
}

// SetupDifferences lists what differs between the setups of two results
// beyond the target's kind (which the fairness audit judges): the target,
// the server's version, the phase, the workload files and properties, the
// threads and docbench's version.
func SetupDifferences(a, b *Result) []string {
	var out []string
	diff := func(what, x, y string) {
		if x != y {
			out = append(out, fmt.Sprintf("%s %s → %s", what, orUnset(x), orUnset(y)))
		}
	}
	diff("target", a.Target.Target, b.Target.Target)
	diff("server", strings.TrimSpace(a.Target.Backend+" "+a.Target.Version), strings.TrimSpace(b.Target.Backend+" "+b.Target.Version))
	diff("phase", a.Phase, b.Phase)
	diff("workload files", strings.Join(a.Workload.Files, ", "), strings.Join(b.Workload.Files, ", "))
	if props := PropertyDifferences(a.Workload.Properties, b.Workload.Properties); len(props) > 0 {
		out = append(out, "properties: "+strings.Join(props, ", "))
	}
	diff("threads", strconv.Itoa(a.Options.Threads), strconv.Itoa(b.Options.Threads))
	diff("docbench", a.Tool.Version, b.Tool.Version)
	return out
}

// WriteSetupWarning prints the differences of setup under one warning,
// one a line; nothing when there are none.
func WriteSetupWarning(w io.Writer, diffs []string) {
	if len(diffs) == 0 {
		return
	}
	fmt.Fprintln(w, "warning: the setups differ, so a change may not be the one you made:")
	for _, d := range diffs {
		fmt.Fprintln(w, "  "+d)
	}
}

func orUnset(v string) string {
	if v == "" {
		return "(unset)"
	}
	return v
}

// PropertyDifferences lists the properties whose values differ between a
// and b ("recordcount 20000 → 2000", "index (unset) → gin"), by name.
func PropertyDifferences(a, b map[string]string) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		if x, y := a[k], b[k]; x != y {
			out = append(out, fmt.Sprintf("%s %s → %s", k, orUnset(x), orUnset(y)))
		}
	}
	return out
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
	t.rowChange(name, cell, nil)
}

// rowChange is a row that, between two results, ends with B's change
// from A in percent (values gives each result's figures; nil, or a figure
// absent on either side, leaves the cell empty).
func (t *compareTable) rowChange(name string, cell func(r *Result) string, values func(r *Result) []float64) {
	cells := []string{name}
	for _, r := range t.rs {
		cells = append(cells, cell(r))
	}
	if len(t.rs) == 2 {
		var ch []string
		if values != nil {
			a, b := values(t.rs[0]), values(t.rs[1])
			for i := range a {
				if i < len(b) {
					ch = append(ch, pctChange(a[i], b[i]))
				}
			}
		}
		cells = append(cells, strings.Join(ch, " / "))
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t")+"\t")
}

// pctChange is the change from a to b in percent ("+4.2%").
func pctChange(a, b float64) string {
	switch {
	case a == b:
		return "0"
	case a == 0:
		return "from 0"
	}
	return fmt.Sprintf("%+.1f%%", (b/a-1)*100)
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
	if len(rs) == 2 {
		head = append(head, "B vs A")
	}
	fmt.Fprintln(t.tw, strings.Join(head, "\t")+"\t")
	t.rowChange("throughput ops/s", func(r *Result) string { return fmt.Sprintf("%.1f", r.Throughput) },
		func(r *Result) []float64 { return []float64{r.Throughput} })
	for _, name := range opNamesOf(rs) {
		service := func(r *Result) *Latency {
			for _, op := range r.Ops {
				if op.Name == name {
					return op.Service
				}
			}
			return nil
		}
		t.rowChange(name+" p50/p99 µs", func(r *Result) string {
			if l := service(r); l != nil {
				return fmt.Sprintf("%.1f / %.1f", l.P50, l.P99)
			}
			return "-"
		}, func(r *Result) []float64 {
			if l := service(r); l != nil {
				return []float64{l.P50, l.P99}
			}
			return nil
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
