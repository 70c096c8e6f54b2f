package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/postgres"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
	"github.com/docbench/docbench/internal/workload"
)

// quickstart settings: small enough to finish in well under two minutes on
// two cores, large enough that the numbers mean something.
type quickFlags struct {
	out      string
	records  int
	threads  int
	duration time.Duration
	warmup   time.Duration
}

func (a *app) quickstartCommand() *cobra.Command {
	f := &quickFlags{}
	cmd := &cobra.Command{
		Use:   "quickstart [--out DIR]",
		Short: "Load the same documents into managed PostgreSQL 18 and SQLite, run YCSB A and C on both, compare",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.out == "" {
				f.out = filepath.Join("docbench-results", time.Now().UTC().Format("20060102-150405"))
			}
			return a.quickstart(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "results directory (default ./docbench-results/<timestamp>/)")
	fl.IntVar(&f.records, "records", 20000, "records to load (recordcount)")
	fl.IntVar(&f.threads, "threads", 4, "client threads")
	fl.DurationVar(&f.duration, "duration", 15*time.Second, "measured time per workload")
	fl.DurationVar(&f.warmup, "warmup", 3*time.Second, "discarded warm-up per workload")
	return cmd
}

// quickRow is one line of the side-by-side table.
type quickRow struct {
	workload, op string
	byTarget     map[string]report.Op
}

func (a *app) quickstart(ctx context.Context, f *quickFlags) error {
	started := time.Now()
	targets := []string{postgres.Embedded, "sqlite:" + filepath.Join(f.out, "quickstart.sqlite")}
	fmt.Fprintf(a.stderr, "docbench quickstart: %d records, workloads A and C, %s each (+%s warm-up), %d threads; results in %s\n",
		f.records, f.duration, f.warmup, f.threads, f.out)
	results := map[string]map[string]*report.Result{} // target → workload → result
	var ran []string
	for _, target := range targets {
		rs, err := a.quickTarget(ctx, f, target)
		if errors.Is(err, runner.ErrInterrupted) || ctx.Err() != nil {
			return runner.ErrInterrupted
		}
		if err != nil {
			fmt.Fprintf(a.stderr, "%s: %v; going on without it\n", target, err)
			continue
		}
		results[target] = rs
		ran = append(ran, target)
	}
	if len(ran) == 0 {
		return fmt.Errorf("quickstart: no target could run")
	}
	var buf bytes.Buffer
	writeSideBySide(&buf, ran, results)
	fmt.Fprintf(&buf, "\nfinished in %s; results: %s\n", time.Since(started).Round(time.Second), f.out)
	if err := report.WriteFileAtomic(filepath.Join(f.out, "summary.txt"), buf.Bytes()); err != nil {
		return err
	}
	_, err := a.stdout.Write(buf.Bytes())
	return err
}

// quickTarget loads one target and runs workloads A and C on it, keeping the
// store (and a managed server) open across the phases.
func (a *app) quickTarget(ctx context.Context, f *quickFlags, target string) (map[string]*report.Result, error) {
	name := db.Redact(target)
	short := "postgres"
	if target != postgres.Embedded {
		short = "sqlite"
	}
	mk := func(wl string, phase runner.Phase) (*spec, *workload.Config, error) {
		props := workload.NewProperties()
		if err := props.LoadFile(wl); err != nil {
			return nil, nil, err
		}
		props.Set("recordcount", strconv.Itoa(f.records), "quickstart")
		props.Set("operationcount", "100000000", "quickstart")
		props.Set("threadcount", strconv.Itoa(f.threads), "quickstart")
		props.Set("maxexecutiontime", strconv.FormatFloat(f.duration.Seconds(), 'f', -1, 64), "quickstart")
		if phase == runner.Load {
			props.Set("batchsize", "500", "quickstart")
		}
		props.Set("pg.datadir", "temp", "quickstart") // a fresh cluster, removed at exit
		cfg, err := config(props)
		if err != nil {
			return nil, nil, err
		}
		sp := &spec{phase: phase, target: target, files: []string{wl}, props: props, quiet: true,
			recreate: phase == runner.Load, opts: runner.Options{Phase: phase, Seed: 1}}
		if phase == runner.Run {
			sp.opts.Warmup = f.warmup
		}
		return sp, cfg, nil
	}
	sp, cfg, err := mk("workloada", runner.Load)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(a.stderr, "%s: starting\n", name)
	store, err := a.open(ctx, target, cfg)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	out := map[string]*report.Result{}
	save := func(key string, res *report.Result) error {
		out[key] = res
		b, err := report.Marshal(res)
		if err != nil {
			return err
		}
		return report.WriteFileAtomic(filepath.Join(f.out, short+"-"+key+".json"), b)
	}
	fmt.Fprintf(a.stderr, "%s: loading %d records\n", name, f.records)
	res, err := a.runPhase(ctx, store, sp, cfg)
	if res != nil {
		if serr := save("load", res); serr != nil {
			return out, serr
		}
		fmt.Fprintf(a.stderr, "%s: loaded in %.1f s (%.0f records/s)\n", name, res.RuntimeMS/1e3, res.Throughput)
	}
	if err != nil {
		return out, err
	}
	for _, wl := range []string{"workloada", "workloadc"} {
		sp, cfg, err := mk(wl, runner.Run)
		if err != nil {
			return out, err
		}
		fmt.Fprintf(a.stderr, "%s: running %s for %s\n", name, wl, f.duration)
		res, err := a.runPhase(ctx, store, sp, cfg)
		if res != nil {
			if serr := save(wl, res); serr != nil {
				return out, serr
			}
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// writeSideBySide prints throughput and p50/p99 per operation, targets side by side.
func writeSideBySide(w io.Writer, targets []string, results map[string]map[string]*report.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "workload\toperation\t")
	for _, t := range targets {
		fmt.Fprintf(tw, "%s ops/s\tp50 µs\tp99 µs\terrors\t", shortName(t))
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
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t", r.workload, r.op)
			for _, t := range targets {
				op, ok := r.byTarget[t]
				switch {
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
}

func errCell(op report.Op, name string) string {
	if name == "[OVERALL]" {
		return ""
	}
	return strconv.FormatInt(op.Errors, 10)
}

func shortName(t string) string {
	if t == postgres.Embedded {
		return "postgres-18"
	}
	if len(t) > 6 && t[:7] == "sqlite:" {
		return "sqlite"
	}
	return t
}
