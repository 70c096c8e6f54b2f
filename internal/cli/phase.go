package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/docbench/docbench/internal/capacity"
	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/engine"
	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
	"github.com/docbench/docbench/internal/workload"
)

// phaseFlags are the flags of load and run.
type phaseFlags struct {
	target    string
	workloads []string
	props     []string
	threads   int
	rate      float64
	duration  time.Duration
	warmup    time.Duration
	status    time.Duration
	out       string
	format    string
	seed      uint64
	shard     shardFlags
	prof      profileFlags
	// accounting: failed operations and pass/fail criteria
	maxErrorShare string
	thresholds    []string
	hdrLog        string
	files         []string // run's -f FILE[@WEIGHT]: statement.file
	force         bool
	latencyLimit  time.Duration
}

// forceHelp is the help of run's and capacity's --force.
const forceHelp = "run on a table whose load did not complete (by default the run refuses)"

// ExitThresholds is the exit status of a run whose measurement succeeded
// but missed a --threshold (k6's code for the same).
const ExitThresholds = 99

func (a *app) phaseCommand(phase runner.Phase) *cobra.Command {
	f := &phaseFlags{}
	use := "load -t TARGET -P WORKLOAD [-P WORKLOAD2] [-p key=value]..."
	short := "Load the records of a workload into a target (YCSB's load phase)"
	if phase == runner.Run {
		use = "run -t TARGET -P WORKLOAD ... [--rate OPS] [--duration D] [--warmup D]"
		short = "Run a workload's operations against a loaded target (YCSB's transaction phase)"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			spec, err := a.specFromFlags(cmd, phase, f)
			if err != nil {
				return err
			}
			if f.out != "" {
				if err := report.CheckWritable(f.out); err != nil {
					return &ExitError{Code: exitUsage, Err: fmt.Errorf("--out %s: %w", f.out, err)}
				}
			}
			return f.prof.profiled(func() error {
				res, err := a.engine().OpenAndRun(cmd.Context(), &spec.Phase)
				err = notLoaded(err, f.target, f.workloads, f.props)
				thresholdsOK := true
				if res != nil {
					thresholdsOK = report.CheckThresholds(res, spec.thresholds)
					if werr := a.emit(res, f.format, f.out); werr != nil {
						return errors.Join(err, werr)
					}
				}
				if err == nil && !thresholdsOK {
					return &ExitError{Code: ExitThresholds, Err: thresholdError(res)}
				}
				return err
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.target, "target", "t", "", "database target, e.g. sqlite:t.db or postgres://user@host/db (docbench targets lists them)")
	fl.StringArrayVarP(&f.workloads, "workload", "P", nil, "workload file or built-in name (workloada…workloadf); repeatable, later files override earlier")
	fl.StringArrayVarP(&f.props, "property", "p", nil, "property key=value; overrides workload files; repeatable")
	fl.IntVar(&f.threads, "threads", 0, "client threads (overrides threadcount; default: the workload's threadcount, else 1)")
	fl.StringVar(&f.out, "out", "", "write the result JSON to this file, atomically (default: none; checked before the first operation)")
	fl.StringVar(&f.format, "format", "text", "report format on stdout: text, ycsb or json")
	fl.DurationVar(&f.status, "status", 10*time.Second, "status line interval on stderr (0 = none)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of documents and key choices (same seed, same data)")
	f.shard.add(fl)
	f.prof.add(fl)
	fl.StringVar(&f.maxErrorShare, "max-error-share", "1%", "share of failed operations above which the phase fails (e.g. 1%, 0.5%, 0; 100% = no limit)")
	fl.StringArrayVar(&f.thresholds, "threshold", nil, "pass/fail criterion, k6-style, e.g. 'p99(READ)<5ms', 'throughput>10000', 'errors<0.1%'; repeatable; a miss exits 99")
	fl.StringVar(&f.hdrLog, "hdr-log", "", "stream every interval's latency histograms to this HdrHistogram log (.hlog)")
	if phase == runner.Run {
		fl.Float64Var(&f.rate, "rate", 0, "target operations/s over all threads: an open loop (overrides target; default 0: as fast as possible)")
		fl.DurationVar(&f.duration, "duration", 0, "run this long, e.g. 30s or 5m (overrides maxexecutiontime, and a workload file's operationcount; default 0: at operationcount)")
		fl.DurationVar(&f.warmup, "warmup", 0, "run this long first, e.g. 10s, and discard its measurements (default 0: none)")
		fl.StringArrayVarP(&f.files, "file", "f", nil, "a file of SQL statements run as one transaction, FILE[@WEIGHT] as pgbench's -f; repeatable; the run's only operations unless -p sets proportions (statement.file)")
		fl.BoolVar(&f.force, "force", false, forceHelp)
		fl.DurationVar(&f.latencyLimit, "latency-limit", 0, "count the operations slower than this, e.g. 5ms (pgbench -L); with --rate, skip those already this late when due")
	}
	_ = cmd.MarkFlagRequired("target")
	_ = cmd.MarkFlagRequired("workload")
	return cmd
}

// statementFiles sets statement.file from run's -f files, which, as
// pgbench's, are the run's operations: statementproportion=1 and the other
// proportions 0, unless -p sets them.
func statementFiles(props *workload.Properties, files []string) {
	props.Set("statement.file", strings.Join(files, ","), "--file")
	for _, k := range []string{"readproportion", "updateproportion", "insertproportion", "scanproportion", "readmodifywriteproportion", "queryproportion", "statementproportion"} {
		if props.Source(k) != "-p" {
			v := "0"
			if k == "statementproportion" {
				v = "1"
			}
			props.Set(k, v, "--file")
		}
	}
}

// spec is one phase to execute, and the thresholds its result is checked
// against.
type spec struct {
	engine.Phase
	thresholds []report.Threshold
}

func (a *app) specFromFlags(cmd *cobra.Command, phase runner.Phase, f *phaseFlags) (*spec, error) {
	props, err := propsFromFlags(f.workloads, f.props)
	if err != nil {
		return nil, err
	}
	if err := nonNegative(map[string]time.Duration{"warmup": f.warmup, "duration": f.duration, "latency-limit": f.latencyLimit}); err != nil {
		return nil, err
	}
	fl := cmd.Flags()
	if fl.Changed("threads") {
		props.Set("threadcount", strconv.Itoa(f.threads), "--threads")
	}
	if fl.Changed("rate") {
		props.Set("target", strconv.FormatFloat(f.rate, 'f', -1, 64), "--rate")
	}
	if fl.Changed("duration") {
		props.Set("maxexecutiontime", strconv.FormatFloat(f.duration.Seconds(), 'f', -1, 64), "--duration")
		// A duration typed on the command line runs for that long: a
		// workload file's operationcount (YCSB's files say 1000) does not
		// cut it short; one given with -p beside it still may.
		if props.Source("operationcount") != "-p" {
			props.Set("operationcount", "0", "--duration")
		}
	}
	if len(f.files) > 0 {
		statementFiles(props, f.files)
	}
	if err := report.CheckFormat(f.format); err != nil {
		return nil, &ExitError{Code: 2, Err: err}
	}
	maxErr, err := maxErrorShare(f.maxErrorShare)
	if err != nil {
		return nil, &ExitError{Code: exitUsage, Err: fmt.Errorf("--max-error-share %w", err)}
	}
	var ts []report.Threshold
	for _, text := range f.thresholds {
		t, err := report.ParseThreshold(text)
		if err != nil {
			return nil, &ExitError{Code: exitUsage, Err: fmt.Errorf("--threshold: %w", err)}
		}
		ts = append(ts, t)
	}
	sh, err := f.shard.parse(time.Now())
	if err != nil {
		return nil, err
	}
	return &spec{Phase: engine.Phase{Kind: phase, Target: f.target, Files: f.workloads, Props: props, Recreate: phase == runner.Load,
		HdrLog: f.hdrLog, Force: f.force,
		Opts: runner.Options{Phase: phase, Warmup: f.warmup, Status: f.status, Seed: f.seed, StartAt: sh.StartAt,
			MaxErrorShare: maxErr, LatencyLimit: f.latencyLimit},
		Shard: sh}, thresholds: ts}, nil
}

// maxErrorShare reads --max-error-share, a share (capacity.ParseShare), as
// the runner's limit: 100 % is none (-1), and 0 any failure (0 itself
// would mean the runner's default).
func maxErrorShare(s string) (float64, error) {
	v, err := capacity.ParseShare(s)
	switch {
	case err != nil:
		return 0, err
	case v == 1:
		return -1, nil
	case v == 0:
		return math.SmallestNonzeroFloat64, nil
	}
	return v, nil
}

// thresholdError lists the thresholds a result missed.
func thresholdError(res *report.Result) error {
	var miss []string
	for _, t := range res.Thresholds {
		if !t.Pass {
			miss = append(miss, fmt.Sprintf("%s (measured %s)", t.Threshold, t.Measured()))
		}
	}
	return fmt.Errorf("%d of %d thresholds failed: %s", len(miss), len(res.Thresholds), strings.Join(miss, "; "))
}

// config is engine.Config: the properties validated with every backend's
// options and the document properties known.
func config(props *workload.Properties) (*workload.Config, error) { return engine.Config(props) }

// buildDocOps is engine.Build.
func buildDocOps(cfg *workload.Config, seed uint64) (*workload.Workload, *runner.DocOps, error) {
	return engine.Build(cfg, seed)
}

// engine is the engine the commands run phases with: notes and progress
// on stderr, the live progress line when stderr is a terminal.
func (a *app) engine() *engine.Engine {
	e := &engine.Engine{Stderr: a.stderr, Tool: tool()}
	if f, ok := a.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		e.Progress = true
	}
	return e
}

// open opens a target for a validated configuration (engine.Open).
func (a *app) open(ctx context.Context, target string, cfg *workload.Config, existing bool) (db.Store, error) {
	return a.engine().Open(ctx, target, cfg, existing)
}

// notLoaded turns a backend's ErrNoTable into the command that loads the
// target, with the same workload files and properties.
func notLoaded(err error, target string, files, props []string) error {
	if !errors.Is(err, db.ErrNoTable) {
		return err
	}
	load := []string{"docbench", "load", "-t", db.Redact(target)}
	for _, f := range files {
		load = append(load, "-P", f)
	}
	for _, p := range props {
		load = append(load, "-p", p)
	}
	return &ExitError{Code: exitUsage, Err: fmt.Errorf("%s holds no docbench table: load it first: %s (%v)",
		db.Redact(target), strings.Join(load, " "), err)}
}

// emit prints a result in the chosen format and writes the JSON file. A
// result is never lost: when the file cannot be written, the JSON goes to a
// fallback file whose path is printed (or, failing that, to stdout).
func (a *app) emit(res *report.Result, format, out string) error {
	if err := report.Write(a.stdout, format, res); err != nil {
		return err
	}
	if f := strings.ToLower(format); f == "" || f == "text" {
		probe.WriteText(a.stdout, res.Server, res.Audit)
	}
	// Where the result went, on stderr: stdout stays the format asked for.
	if out == "" {
		if f := strings.ToLower(format); f != "json" && f != "jsonl" {
			fmt.Fprintln(a.stderr, "result: printed above only (--out FILE.json keeps the whole result, for `docbench report` and `docbench compare`)")
		}
		return nil
	}
	b, err := report.Marshal(res)
	if err != nil {
		return err
	}
	werr := report.WriteFileAtomic(out, b)
	if werr == nil {
		fmt.Fprintf(a.stderr, "result: %s (docbench report %s makes its HTML report)\n", out, out)
		return nil
	}
	fallback := filepath.Join(os.TempDir(), fmt.Sprintf("docbench-result-%s.json", time.Now().Format("20060102-150405.000")))
	if err := report.WriteFileAtomic(fallback, b); err == nil {
		return fmt.Errorf("--out %s: %w; the result is in %s", out, werr, fallback)
	}
	if _, err := a.stdout.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("--out %s: %w; printing the result failed too: %v", out, werr, err)
	}
	return fmt.Errorf("--out %s: %w; the result JSON is printed above", out, werr)
}
