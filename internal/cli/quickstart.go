package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/study"
)

// quickFlags are quickstart's settings: small enough to finish in well
// under two minutes on two cores, large enough that the numbers mean
// something. The study itself is studies/quickstart.yaml.
type quickFlags struct {
	out      string
	records  int
	threads  int
	duration time.Duration
	warmup   time.Duration
	quick    bool
	force    bool
	targets  []string
}

func (a *app) quickstartCommand() *cobra.Command {
	f := &quickFlags{}
	cmd := &cobra.Command{
		Use:   "quickstart [--out DIR] [-t TARGET]...",
		Short: "Load the same documents into managed PostgreSQL 18 and SQLite (and -t targets), run YCSB A and C on each, compare",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.out == "" {
				f.out = filepath.Join("docbench-results", time.Now().UTC().Format("20060102-150405"))
			} else if err := checkOutParent(f.out); err != nil {
				return err
			}
			return a.quickstart(cmd.Context(), cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "results directory (default ./docbench-results/<timestamp>/)")
	fl.IntVar(&f.records, "records", 20000, "records to load (recordcount)")
	fl.IntVar(&f.threads, "threads", 4, "client threads")
	fl.DurationVar(&f.duration, "duration", 15*time.Second, "measured time per workload")
	fl.DurationVar(&f.warmup, "warmup", 3*time.Second, "discarded warm-up per workload")
	fl.BoolVar(&f.quick, "quick", false, quickUsage)
	fl.BoolVar(&f.force, "force", false, "write into a --out directory that is not empty")
	fl.StringArrayVarP(&f.targets, "target", "t", nil, "also run on this target (repeatable), e.g. mysql://… or mongodb://…; NAME=TARGET names it in the report, else it is named as written")
	return cmd
}

// quickRow is one line of the side-by-side table.
type quickRow struct {
	workload, op string
	byTarget     map[string]report.Op
}

func (a *app) quickstart(ctx context.Context, cmd *cobra.Command, f *quickFlags) error {
	started := time.Now()
	st, err := study.Load("quickstart")
	if err != nil {
		return err
	}
	// --quick shrinks the study first; flags given explicitly still win.
	fl := cmd.Flags()
	if f.quick {
		st.ApplyQuick()
	}
	if !f.quick || fl.Changed("records") {
		st.Properties["recordcount"] = strconv.Itoa(f.records)
	}
	st.Threads = f.threads
	if !f.quick || fl.Changed("duration") {
		st.Duration = study.Duration(f.duration)
	}
	if !f.quick || fl.Changed("warmup") {
		st.Warmup = study.Duration(f.warmup)
	}
	if err := checkOutDir(f.out, f.force); err != nil {
		return err
	}
	if err := a.preflight(ctx, st, f.targets); err != nil {
		return err
	}
	quick := ""
	if f.quick {
		quick = " (--quick: a smoke test, not figures to quote)"
	}
	fmt.Fprintf(a.stderr, "docbench quickstart%s: %s records, workloads A and C, %s each (+%s warm-up), %d threads; results in %s\n",
		quick, st.Properties["recordcount"], st.Duration.D(), st.Warmup.D(), st.Threads, f.out)
	m, runErr := study.Execute(ctx, st, executor{a}, study.Options{Out: f.out, Quick: f.quick, ExtraTargets: f.targets, Log: a.stderr})
	if m == nil {
		return &ExitError{Code: 2, Err: runErr}
	}
	d, err := study.Read(f.out)
	if err != nil {
		return errors.Join(runErr, err)
	}
	results := map[string]map[string]*report.Result{}
	var ran []string
	for _, run := range m.Runs {
		res := d.Results[run.File]
		if res == nil || run.Capacity {
			continue
		}
		if results[run.Target] == nil {
			results[run.Target] = map[string]*report.Result{}
			ran = append(ran, run.Target)
		}
		results[run.Target][run.Workload] = res
	}
	if len(ran) == 0 {
		return errors.Join(runErr, fmt.Errorf("quickstart: no target could run"))
	}
	// What the study found first, then the table, then its caveats.
	var buf bytes.Buffer
	for _, l := range append(d.Markers(), d.Headlines()...) {
		buf.WriteString(l + "\n")
	}
	buf.WriteString("\n" + quickLegend(st, ran, results) + "\n")
	var skipped []string
	for _, s := range d.Skipped() {
		name, _, _ := strings.Cut(s, ": ")
		skipped = append(skipped, name)
	}
	if writeSideBySide(&buf, append(ran, skipped...), results) {
		buf.WriteString("* an incomplete run (interrupted or failed): its figures cover only part of it\n")
	}
	if c := d.Caveats(); len(c) > 0 {
		buf.WriteString("\n" + strings.Join(c, "\n") + "\n")
	}
	if m.Incomplete != "" {
		fmt.Fprintf(&buf, "\nINCOMPLETE after %s (%s); results in %s\n", time.Since(started).Round(time.Second), m.Incomplete, f.out)
	} else {
		fmt.Fprintf(&buf, "\nfinished in %s; results in %s\n", time.Since(started).Round(time.Second), f.out)
	}
	if err := report.WriteFileAtomic(filepath.Join(f.out, "summary.txt"), buf.Bytes()); err != nil {
		return err
	}
	if _, err := a.stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, filepath.Join(f.out, "report.html"))
	return runErr
}

// writeSideBySide prints throughput and p50/p99 per operation, targets side
// by side, marking incomplete runs with "*"; it reports whether it did.
func writeSideBySide(w io.Writer, targets []string, results map[string]map[string]*report.Result) (marked bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "workload\toperation\t")
	for _, t := range targets {
		fmt.Fprintf(tw, "%s ops/s\tp50 µs\tp99 µs\terrors\t", t)
	}
	fmt.Fprintln(tw)
	for _, wl := range []string{"load", "workloada", "workloadc"} {
		rows := []*quickRow{{workload: wl, op: "[OVERALL]", byTarget: map[string]report.Op{}}}
		index := map[string]*quickRow{}
		for _, t := range targets {
			res := results[t][wl]
			if res == nil {
				continue
			}
			rows[0].byTarget[t] = report.Op{Count: res.Operations, Throughput: res.Throughput}
			for _, op := range res.Ops {
				r := index[op.Name]
				if r == nil {
					r = &quickRow{workload: wl, op: op.Name, byTarget: map[string]report.Op{}}
					index[op.Name] = r
					rows = append(rows, r)
				}
				r.byTarget[t] = op
			}
		}
		label := wl
		for _, t := range targets {
			if res := results[t][wl]; res != nil && !res.Complete {
				label, marked = wl+" *", true
			}
		}
		for _, r := range rows {
			name := r.op
			if name == "INSERT-BATCH" {
				name += " (" + batchSizes(targets, results, wl) + " docs)"
			}
			fmt.Fprintf(tw, "%s\t%s\t", label, name)
			for _, t := range targets {
				op, ok := r.byTarget[t]
				switch {
				case results[t] == nil && r.op == "[OVERALL]":
					fmt.Fprint(tw, "skipped\t\t\t\t") // the reason is under the table
				case !ok:
					fmt.Fprint(tw, "-\t-\t-\t-\t")
				case op.Service == nil:
					fmt.Fprintf(tw, "%.0f\t\t\t%s\t", op.Throughput, errCell(op, r.op))
				default:
					fmt.Fprintf(tw, "%.0f\t%.0f\t%.0f\t%d\t", op.Throughput, op.Service.P50, op.Service.P99, op.Errors)
				}
			}
			fmt.Fprintln(tw)
		}
	}
	tw.Flush()
	return marked
}

// quickLegend says in one line what the table's workloads are: YCSB A and
// C, and the load's batches.
func quickLegend(st *study.File, targets []string, results map[string]map[string]*report.Result) string {
	var parts []string
	for _, w := range st.Workloads {
		parts = append(parts, w.Name+" = "+study.Describe(st, w))
	}
	if b := batchSizes(targets, results, "load"); b != "" {
		parts = append(parts, "load = batches of "+b+" documents (INSERT-BATCH counts batches, [OVERALL] documents)")
	}
	return strings.Join(parts, "; ")
}

// batchSizes is the load's batch size ("500"), or the targets' sizes when
// they differ ("postgres 500, mongodb 100"); "" without batches.
func batchSizes(targets []string, results map[string]map[string]*report.Result, wl string) string {
	var sizes []string
	seen := map[int]bool{}
	for _, t := range targets {
		if res := results[t][wl]; res != nil && res.Options.BatchSize > 0 {
			sizes = append(sizes, t+" "+strconv.Itoa(res.Options.BatchSize))
			seen[res.Options.BatchSize] = true
		}
	}
	if len(seen) == 1 {
		for n := range seen {
			return strconv.Itoa(n)
		}
	}
	return strings.Join(sizes, ", ")
}

func errCell(op report.Op, name string) string {
	if name == "[OVERALL]" {
		return ""
	}
	return strconv.FormatInt(op.Errors, 10)
}
