package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
	"github.com/docbench/docbench/internal/study"
	"github.com/docbench/docbench/internal/workload"
)

// quickUsage is the one description of --quick (study and quickstart).
const quickUsage = "a smoke run that checks the study works, not figures to quote: one round, 2 s runs, at most the first and last value of each sweep, the study's quick properties (docs/studies.md)"

// executor runs a study's phases through the same path as load and run.
type executor struct{ a *app }

var (
	_ study.Executor         = executor{}
	_ study.CapacityExecutor = executor{}
)

func (e executor) Validate(props *workload.Properties) error {
	cfg, err := config(props)
	if err != nil {
		return err
	}
	_, _, err = buildPlan(cfg, 1)
	return err
}

func (e executor) Open(ctx context.Context, target string, props *workload.Properties) (db.Store, error) {
	cfg, err := config(props)
	if err != nil {
		return nil, err
	}
	return e.a.open(ctx, target, cfg, false)
}

func (e executor) Phase(ctx context.Context, store db.Store, target string, files []string, props *workload.Properties,
	phase runner.Phase, warmup time.Duration) (*report.Result, error) {
	cfg, err := config(props)
	if err != nil {
		return nil, err
	}
	sp := &spec{phase: phase, target: target, files: files, props: props, quiet: true, recreate: phase == runner.Load,
		opts: runner.Options{Phase: phase, Seed: 1, Warmup: warmup}}
	wl, plan, err := preparePhase(cfg, sp)
	if err != nil {
		return nil, err
	}
	return e.a.runPhase(ctx, store, sp, cfg, wl, plan)
}

// Capacity runs a study's capacity search on an opened store, as
// `docbench capacity` does, quietly but for its progress lines.
func (e executor) Capacity(ctx context.Context, store db.Store, target string, files []string, props *workload.Properties,
	run study.CapacityRun) (*report.Result, error) {
	props.Set("operationcount", "0", "capacity")
	cfg, err := config(props)
	if err != nil {
		return nil, err
	}
	c := &capacitySpec{cfg: run.Config, maxTime: run.MaxTime, trial: run.Trial,
		phase: &spec{phase: runner.Run, target: target, files: files, props: props, encode: true, quiet: true,
			opts: runner.Options{Phase: runner.Run, Seed: 1, Warmup: run.Warmup, MaxErrorRate: -1}}}
	wl, plan, err := preparePhase(cfg, c.phase)
	if err != nil {
		return nil, err
	}
	return e.a.capacityOn(ctx, store, c, cfg, wl, plan)
}

func (a *app) studyCommand() *cobra.Command {
	var out string
	var quick, force bool
	var targets []string
	var prof profileFlags
	cmd := &cobra.Command{
		Use:   "study FILE|NAME [--quick] [--out DIR] [-t TARGET]...",
		Short: "Run a study (a matrix of targets, workloads, sweeps and rounds) and write its report",
		Long: "Runs a study file, or a built-in study: " + strings.Join(study.Names(), ", ") + `.
Built-in studies run on postgres:embedded and SQLite plus every target named with -t.
The study directory gets the study file as run, one result JSON per (target, point,
round), results.csv, summary.md and report.html.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := study.Load(args[0])
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			if out == "" {
				out = filepath.Join("docbench-results", f.Name+"-"+time.Now().UTC().Format("20060102-150405"))
			}
			if err := checkOutDir(out, force); err != nil {
				return err
			}
			if err := a.preflight(cmd.Context(), f, targets); err != nil {
				return err
			}
			return prof.profiled(func() error { return a.runStudy(cmd.Context(), f, out, quick, targets) })
		},
	}
	fl := cmd.Flags()
	prof.add(fl)
	fl.StringVar(&out, "out", "", "study directory (default ./docbench-results/<study>-<timestamp>/)")
	fl.BoolVar(&quick, "quick", false, quickUsage)
	fl.BoolVar(&force, "force", false, "write into a --out directory that is not empty")
	fl.StringArrayVarP(&targets, "target", "t", nil, "also run on this target (repeatable)")
	return cmd
}

func (a *app) runStudy(ctx context.Context, f *study.File, out string, quick bool, targets []string) error {
	fmt.Fprintf(a.stderr, "docbench study %s → %s\n", f.Name, out)
	m, err := study.Execute(ctx, f, executor{a}, study.Options{Out: out, Quick: quick, ExtraTargets: targets, Log: a.stderr})
	if m == nil && err != nil {
		return &ExitError{Code: 2, Err: err} // the study's properties: nothing ran
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, filepath.Join(out, "report.html"))
	if n := m.ThresholdFailures(); n > 0 {
		return &ExitError{Code: ExitThresholds, Err: fmt.Errorf("%d run(s) missed a threshold (see thresholds_failed in %s)", n, filepath.Join(out, "runs.json"))}
	}
	return nil
}

func (a *app) reportCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR",
		Short: "Re-render results.csv, summary.md and report.html of a study directory from its result files",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := study.WriteOutputs(args[0]); err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, filepath.Join(args[0], "report.html"))
			return nil
		},
	}
}
