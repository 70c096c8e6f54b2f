package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/study"
)

func (a *app) compareCommand() *cobra.Command {
	var strict bool
	var metrics []string
	cmd := &cobra.Command{
		Use:   "compare RESULT.json RESULT.json... | compare OLD_DIR NEW_DIR",
		Short: "Print results side by side with a fairness audit, or the per-point changes between two study directories",
		Long: `compare prints phase results side by side — throughput, p50/p99 per operation,
write volume per operation, storage, CPU per operation — and audits the targets:
what is equal, what differs, and which differences change the meaning of the
comparison (durability, key index, secondary indexes, compression, memory,
clients). With --strict a difference in durability class or key-index class
makes the command fail.

Given two study directories, compare prints, benchstat-style, each series of
the new study against the same series of the old one: medians with their
spread, the change, and the Mann-Whitney U test's p-value ("~" when the
difference is not significant).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dirs := countDirs(args); dirs > 0 {
				if dirs != 2 || len(args) != 2 {
					return &ExitError{Code: 2, Err: fmt.Errorf("compare: give two study directories (OLD_DIR NEW_DIR) or result files, not a mix")}
				}
				return study.Compare(a.stdout, args[0], args[1], metrics)
			}
			var results []*report.Result
			for _, path := range args {
				r, err := loadResult(path)
				if err != nil {
					return &ExitError{Code: 2, Err: err}
				}
				results = append(results, r)
			}
			findings := writeCompare(a.stdout, args, results)
			if fails := probe.StrictFailures(findings); strict && len(fails) > 0 {
				return &ExitError{Code: 1, Err: fmt.Errorf("--strict: %s", strings.Join(fails, "; "))}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail when the targets' durability class or key-index class differ")
	cmd.Flags().StringSliceVar(&metrics, "metric", nil, "study directories: only these metrics (throughput, p99, wal_bytes_per_update, …)")
	return cmd
}

// countDirs counts the arguments that are directories.
func countDirs(args []string) int {
	n := 0
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			n++
		}
	}
	return n
}

// readResult reads one result file; errors name the file.
func loadResult(path string) (*report.Result, error) {
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
		return nil, fmt.Errorf("%s: not a docbench result (want a JSON document with \"schema\": %q)", path, report.Schema)
	}
	if *head.Schema != report.Schema {
		return nil, fmt.Errorf("%s: schema %q, this docbench reads %q", path, *head.Schema, report.Schema)
	}
	var r report.Result
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: malformed result: %v", path, err)
	}
	return &r, nil
}

// label names the i-th result (A, B, …).
func label(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("R%d", i+1)
}

// writeCompare prints the side-by-side table and the audit; it returns the
// audit's findings.
func writeCompare(w io.Writer, paths []string, rs []*report.Result) []probe.Finding {
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
		fmt.Fprintf(w, "%s = %s: %s %s · %s · %d thread(s)%s\n", label(i), paths[i], r.Phase, r.Target.Target, ver, r.Options.Threads, state)
	}
	fmt.Fprintln(w)
	// Figures a server cannot give are footnotes: the table stays narrow and
	// each reason is said once, below it.
	var reasons []string
	foot := func(why string) string {
		for i, r := range reasons {
			if r == why {
				return fmt.Sprintf("absent [%d]", i+1)
			}
		}
		reasons = append(reasons, why)
		return fmt.Sprintf("absent [%d]", len(reasons))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{""}
	for i := range rs {
		head = append(head, label(i))
	}
	row := func(name string, cell func(r *report.Result) string) {
		cells := []string{name}
		for _, r := range rs {
			cells = append(cells, cell(r))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	row("throughput ops/s", func(r *report.Result) string { return fmt.Sprintf("%.1f", r.Throughput) })
	for _, name := range opNamesOf(rs) {
		row(name+" p50/p99 µs", func(r *report.Result) string {
			for _, op := range r.Ops {
				if op.Name == name && op.Service != nil {
					return fmt.Sprintf("%.1f / %.1f", op.Service.P50, op.Service.P99)
				}
			}
			return "-"
		})
	}
	server := func(f func(s *probe.Server) db.Figure) func(r *report.Result) string {
		return func(r *report.Result) string {
			if r.Server == nil {
				return foot("the result has no server section")
			}
			if r.Server.Absent != "" {
				return foot(r.Server.Absent)
			}
			if fig := f(r.Server); !fig.OK() {
				return foot(fig.Absent)
			}
			return probe.FormatFigure(f(r.Server))
		}
	}
	row("write volume/op", func(r *report.Result) string {
		if r.Server == nil || r.Server.Absent != "" {
			return server(nil)(r)
		}
		for _, k := range probe.WriteCounters {
			if f, ok := r.Server.PerOp[k+"_per_op"]; ok {
				if !f.OK() {
					return k + " " + foot(f.Absent)
				}
				return k + " " + probe.FormatFigure(f)
			}
			if f, ok := r.Server.Counters[k]; ok && !f.OK() {
				return k + " " + foot(f.Absent)
			}
		}
		return foot("not reported")
	})
	row("write volume/write", func(r *report.Result) string {
		if r.Server == nil || r.Server.Absent != "" {
			return "-"
		}
		for _, k := range probe.WriteCounters {
			if f, ok := r.Server.PerOp[k+"_per_write"]; ok {
				if !f.OK() {
					return foot(f.Absent)
				}
				return probe.FormatFigure(f)
			}
		}
		return "-"
	})
	row("storage total", server(func(s *probe.Server) db.Figure { return probe.Get(s.Storage, "total_bytes") }))
	row("bytes/document", server(func(s *probe.Server) db.Figure { return probe.Get(s.Storage, "bytes_per_document") }))
	row("× raw JSON", server(func(s *probe.Server) db.Figure { return probe.Get(s.Storage, "ratio_to_raw_json") }))
	cpu := func(f func(c *probe.CPU) db.Figure) func(s *probe.Server) db.Figure {
		return func(s *probe.Server) db.Figure {
			if s.CPU == nil {
				return db.Missing("not reported")
			}
			return f(s.CPU)
		}
	}
	row("server CPU µs/op", server(cpu(func(c *probe.CPU) db.Figure { return c.ServerUSOp })))
	row("docbench CPU µs/op", server(cpu(func(c *probe.CPU) db.Figure { return c.HarnessUSOp })))
	row("flagged plans", func(r *report.Result) string {
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
	})
	tw.Flush()
	for i, r := range reasons {
		fmt.Fprint(w, wrapHang(fmt.Sprintf("[%d] %s", i+1, r), "  ", "      ", 100))
	}

	// The audit.
	var ts []probe.Target
	for i, r := range rs {
		a := r.Audit
		if a == nil {
			c := probe.Classify(r.Target.Backend, r.Target.Settings, r.Target.Layout, r.Options.Threads)
			a = &c
		}
		ts = append(ts, probe.Target{Name: label(i) + " " + r.Target.Backend, Backend: r.Target.Backend, Audit: *a})
	}
	findings := probe.Compare(ts)
	fmt.Fprintln(w, "\nfairness audit")
	var names []string
	for i := range rs {
		names = append(names, label(i))
	}
	for _, l := range probe.Lines(findings, names) {
		fmt.Fprint(w, wrapHang(l, "  ", "      ", 100))
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
func opNamesOf(rs []*report.Result) []string {
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
