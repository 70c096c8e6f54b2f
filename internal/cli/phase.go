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
	"github.com/docbench/docbench/internal/document"
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
	maxErrorRate string
	thresholds   []string
	hdrLog       string
}

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
				res, err := a.execute(cmd.Context(), spec)
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
	fl.StringVar(&f.maxErrorRate, "max-error-rate", "1%", "share of failed operations above which the phase fails (e.g. 1%, 0.5%, 0; 100% = no limit)")
	fl.StringArrayVar(&f.thresholds, "threshold", nil, "pass/fail criterion, k6-style, e.g. 'p99(READ)<5ms', 'throughput>10000', 'errors<0.1%'; repeatable; a miss exits 99")
	fl.StringVar(&f.hdrLog, "hdr-log", "", "stream every interval's latency histograms to this HdrHistogram log (.hlog)")
	if phase == runner.Run {
		fl.Float64Var(&f.rate, "rate", 0, "target operations/s over all threads: an open loop (overrides target; default 0: as fast as possible)")
		fl.DurationVar(&f.duration, "duration", 0, "run this long, e.g. 30s or 5m (overrides maxexecutiontime, and a workload file's operationcount; default 0: at operationcount)")
		fl.DurationVar(&f.warmup, "warmup", 0, "run this long first, e.g. 10s, and discard its measurements (default 0: none)")
	}
	_ = cmd.MarkFlagRequired("target")
	_ = cmd.MarkFlagRequired("workload")
	return cmd
}

// spec is one phase to execute.
type spec struct {
	phase    runner.Phase
	target   string
	files    []string
	props    *workload.Properties
	opts     runner.Options
	quiet    bool // no status output (quickstart prints its own)
	recreate bool
	by       string // the command marked on the table a load creates (db.Mark)
	shard    shardSpec
	// thresholds are checked on the result; hdrLog is the --hdr-log path.
	thresholds []report.Threshold
	hdrLog     string
	// encode keeps each second's histograms in the result's series (a
	// capacity trial's steady-state check merges them); settled skips the
	// settling before a run (done before an earlier trial).
	encode  bool
	settled bool
}

func (a *app) specFromFlags(cmd *cobra.Command, phase runner.Phase, f *phaseFlags) (*spec, error) {
	props, err := propsFromFlags(f.workloads, f.props)
	if err != nil {
		return nil, err
	}
	if err := nonNegative(map[string]time.Duration{"warmup": f.warmup, "duration": f.duration}); err != nil {
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
	if err := report.CheckFormat(f.format); err != nil {
		return nil, &ExitError{Code: 2, Err: err}
	}
	maxErr, err := maxErrorShare(f.maxErrorRate)
	if err != nil {
		return nil, &ExitError{Code: exitUsage, Err: fmt.Errorf("--max-error-rate %w", err)}
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
	return &spec{phase: phase, target: f.target, files: f.workloads, props: props, recreate: phase == runner.Load,
		thresholds: ts, hdrLog: f.hdrLog,
		opts: runner.Options{Phase: phase, Warmup: f.warmup, Status: f.status, Seed: f.seed, StartAt: sh.startAt,
			MaxErrorRate: maxErr},
		shard: sh}, nil
}

// maxErrorShare reads --max-error-rate, a share (capacity.ParseShare), as
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

// config validates the properties (with every backend's options and the
// document properties known).
func config(props *workload.Properties) (*workload.Config, error) {
	keys, prefixes := db.Known()
	keys = append(keys, document.Keys()...)
	cfg, err := workload.ParseConfig(props, workload.Known{Keys: keys, Prefixes: prefixes})
	if err != nil {
		return nil, &ExitError{Code: 2, Err: err}
	}
	return cfg, nil
}

// execute opens the target, runs one phase and returns its result; on
// failure after measuring began, the partial result comes back with the error.
func (a *app) execute(ctx context.Context, sp *spec) (*report.Result, error) {
	// Everything is validated before the target is touched: a bad document
	// property must not leave a database file behind.
	cfg, wl, docOps, err := preparePhase(sp)
	if err != nil {
		return nil, err
	}
	store, err := a.open(ctx, sp.target, cfg, sp.phase == runner.Run)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	return a.runPhase(ctx, store, sp, cfg, wl, docOps)
}

// preparePhase validates the phase's properties, applies its shard and
// builds its workload and document operations: once, before the target is
// touched (open checks the target's own options).
func preparePhase(sp *spec) (*workload.Config, *workload.Workload, *runner.DocOps, error) {
	cfg, err := config(sp.props)
	if err != nil {
		return nil, nil, nil, err
	}
	cfg.ApplyShard(sp.shard.shard) // this shard's operations and rate
	wl, docOps, err := buildDocOps(cfg, sp.opts.Seed)
	return cfg, wl, docOps, err
}

// open opens a target for a validated configuration.
// existing says the phase needs loaded data (run, verify).
func (a *app) open(ctx context.Context, target string, cfg *workload.Config, existing bool) (db.Store, error) {
	if err := db.Check(target, cfg.Props); err != nil {
		return nil, &ExitError{Code: exitUsage, Err: err}
	}
	logf := func(format string, args ...any) { fmt.Fprintf(a.stderr, format+"\n", args...) }
	st, err := db.Open(ctx, db.Config{Target: target, Props: cfg.Props, Threads: int(cfg.ThreadCount), Log: logf, Existing: existing})
	return st, notOurs(err)
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

// runPhase runs one phase, prepared by preparePhase, against an opened store.
func (a *app) runPhase(ctx context.Context, store db.Store, sp *spec, cfg *workload.Config,
	wl *workload.Workload, docOps *runner.DocOps) (*report.Result, error) {
	opts := sp.opts
	opts.Threads = int(cfg.ThreadCount)
	opts.Rate = cfg.Target
	opts.Duration = cfg.MaxExecutionTime
	opts.EncodeIntervals = sp.shard.used() || sp.encode // merged second by second
	if !sp.quiet {
		opts.Stderr = a.stderr
		if f, ok := a.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			opts.Progress = true
		}
		for _, n := range cfg.Notes {
			fmt.Fprintf(a.stderr, "note: %s\n", n)
		}
	}
	schema := markedSchema(docOps.Schema(), sp.by, wl, cfg.Props)
	switch {
	case sp.recreate && sp.shard.shard.Sharded():
		if err := setupShared(ctx, store, schema); err != nil {
			return nil, notOurs(err)
		}
	case sp.recreate:
		if err := store.Setup(ctx, schema, true); err != nil {
			return nil, notOurs(err)
		}
	}
	info, err := store.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", db.Redact(sp.target), err)
	}
	// The server's view starts where docbench's counting does: after the
	// warm-up, with no operation in flight.
	var before *probe.Point
	opts.OnMeasure = func() { before = probe.Take(ctx, store) }
	if sp.hdrLog != "" {
		f, err := os.Create(sp.hdrLog)
		if err != nil {
			return nil, &ExitError{Code: exitUsage, Err: fmt.Errorf("--hdr-log: %w", err)}
		}
		defer f.Close()
		opts.HdrLog = f
	}
	var settled []string
	if sp.phase == runner.Run && !sp.settled {
		settled = settle(ctx, store, db.BeforeRun)
		if ctx.Err() != nil { // interrupted while settling: nothing was measured
			return nil, runner.ErrInterrupted
		}
	}
	out, runErr := runner.Execute(ctx, store, wl, docOps, opts)
	if out == nil {
		return nil, runErr
	}
	res := report.Build(out, info, sp.target)
	res.Tool = tool()
	res.Environment = report.ReadEnvironment()
	res.Environment.GoMaxProcs = out.Procs
	res.Environment.IOMode = out.IOMode
	res.Workload = report.Workload{Files: sp.files, Properties: sp.props.Map()}
	res.Options = report.Options{Threads: opts.Threads, TargetRate: opts.Rate, DurationS: opts.Duration.Seconds(),
		WarmupS: opts.Warmup.Seconds(), Seed: opts.Seed, BatchSize: out.Batch}
	switch {
	case opts.MaxErrorRate == 0:
		res.MaxErrorRate = runner.DefaultMaxErrorRate
	case opts.MaxErrorRate > math.SmallestNonzeroFloat64:
		res.MaxErrorRate = opts.MaxErrorRate
	}
	res.Notes = append(res.Notes, cfg.Notes...)
	res.Notes = append(res.Notes, settled...)
	res.EndedBy, res.Notes = endedBy(out, sp.phase, cfg, opts.Duration, res.Notes)
	if sp.shard.used() {
		shardResult(res, out, sp.shard, wl)
	} else if sp.encode {
		report.EncodeSeries(res, out)
	}
	if sp.phase == runner.Run {
		res.Notes = append(res.Notes, docOps.Notes...)
	}
	if out.Batch > 1 {
		res.Notes = append(res.Notes, fmt.Sprintf("loaded in batches of %d: INSERT-BATCH latency is per batch; operations and throughput count records", out.Batch))
	}
	if runErr != nil && !errors.Is(runErr, runner.ErrInterrupted) {
		res.Error = runErr.Error()
	}
	if out.Stopped == "failure streak" {
		// The database stopped answering: asking it for its figures
		// would only wait on it.
		res.Notes = append(res.Notes, "server-side figures absent: the database stopped answering during the phase")
		return res, runErr
	}
	if before == nil { // interrupted during the warm-up
		before = probe.Take(ctx, store)
	}
	res.Server = runner.ServerSide(ctx, store, before, out, wl, docOps)
	res.Audit = new(probe.Classify(res.Target.Backend, res.Target.Settings, res.Target.Layout, res.Options.Threads))
	if sp.phase == runner.Load && runErr == nil && out.Complete {
		res.Notes = append(res.Notes, settle(ctx, store, db.AfterLoad)...)
		if ctx.Err() != nil { // interrupted while settling: the load is kept, the exit says so
			runErr = runner.ErrInterrupted
		}
	}
	return res, runErr
}

// settle brings a loaded table to the steady state a run expects (db.Settler),
// after the load's figures were taken or before a run's warm-up, and says so
// in a note.
func settle(ctx context.Context, store db.Store, when db.SettleStage) []string {
	st, ok := store.(db.Settler)
	if !ok {
		return nil
	}
	stage, phase := "after the load", "the load's"
	if when == db.BeforeRun {
		stage, phase = "before the run", "the run's"
	}
	t0 := time.Now()
	what, err := st.Settle(ctx, when)
	switch {
	case err != nil:
		return []string{fmt.Sprintf("%s: %v (the table is as autovacuum left it)", stage, err)}
	case what == "":
		return nil
	}
	return []string{fmt.Sprintf("%s: %s took %.2g s, outside %s figures", stage, what, time.Since(t0).Seconds(), phase)}
}

// buildDocOps builds the workload, the document shape and the document
// operations of a phase.
func buildDocOps(cfg *workload.Config, seed uint64) (*workload.Workload, *runner.DocOps, error) {
	wl, err := workload.New(cfg, seed)
	if err != nil {
		return nil, nil, &ExitError{Code: 2, Err: err}
	}
	spec, err := document.ParseSpec(cfg.Props, wl.FieldLengths(), cfg.FieldCount, cfg.FieldNamePrefix)
	if err != nil {
		return nil, nil, &ExitError{Code: 2, Err: err}
	}
	shape, err := document.New(spec, seed)
	if err != nil {
		return nil, nil, &ExitError{Code: 2, Err: err}
	}
	docOps, err := runner.NewDocOps(wl, shape, seed)
	if err != nil {
		return nil, nil, &ExitError{Code: 2, Err: err}
	}
	return wl, docOps, nil
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

// endedBy names the limit that ended a phase and, when the user set both a
// count and a duration, says which one ended it first.
func endedBy(out *runner.Outcome, phase runner.Phase, cfg *workload.Config, limit time.Duration, notes []string) (string, []string) {
	count, n := "operationcount", cfg.OperationCount
	if phase == runner.Load {
		count, n = "insertcount", cfg.InsertCount
	}
	switch out.EndedBy {
	case "count":
		if limit > 0 {
			notes = append(notes, fmt.Sprintf("%s=%d ended the phase after %.3g s, before its duration of %s (-p %s=0 runs for the whole duration)",
				count, n, out.Elapsed().Seconds(), limit, count))
		}
		return count, notes
	case "duration":
		if n > 0 {
			notes = append(notes, fmt.Sprintf("the duration (%s) ended the phase before %s=%d: %d done", limit, count, n, out.Ops))
		}
	}
	return out.EndedBy, notes
}
