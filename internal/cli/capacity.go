package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/capacity"
	"github.com/docbench/docbench/internal/engine"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
)

// capacityFlags are the flags of `docbench capacity`.
type capacityFlags struct {
	target        string
	workloads     []string
	props         []string
	threads       int
	slos          []string
	maxErrorShare string
	precision     string
	confidence    string
	minWindows    int
	above         string
	maxTime       time.Duration
	trial         time.Duration
	warmup        time.Duration
	ladder        string
	out, html     string
	format        string
	seed          uint64
	shard         shardFlags
	force         bool
}

func (a *app) capacityCommand() *cobra.Command {
	f := &capacityFlags{}
	cmd := &cobra.Command{
		Use:   "capacity -t TARGET -P WORKLOAD [--slo 'p99<5ms'] [--slo 'READ.p99<2ms'] [--confidence 95%] [--precision 5%] [--max-time 10m]",
		Short: "Find the band of rates a loaded target sustains with its latency SLOs held",
		Long: `capacity answers "how many operations per second does this target sustain while
p99 stays under X?" as a band: the highest rate that held every SLO with
confidence, the lowest rate above it that failed with confidence, and the
rates between that stayed within the target's noise.

It runs fixed-rate trials, each after its own warm-up, latency from each
operation's intended start: a closed-loop probe, a geometric bracket from half
its throughput, a bisection of the band to --precision, and a last look at the
holding edge on the state the search left. Each trial counts, second by second,
the operations over each SLO's bound; a rate is decided on the windows of all
its trials together: it holds when the one-sided upper confidence bound of the
share over the bound lies under what the SLO allows (1 % for p99), fails when
the lower bound lies above it, and is looked at again otherwise (up to two
looks, then it is undecided). Bursts are accounted for: consecutive windows are
batched until they are no longer correlated, and the interval widens by the
bursts' design effect. A look is long enough for the operations a decision
needs (410 for p99 at 95 %, up to eight trials; a rate that would need more is
not looked at); a look stops as soon as its windows fail the rate with
confidence. A trial whose p99 or throughput still trends is looked at
again twice as long, then leaves the rate undecided. A trial the client could
not drive (schedule lag, docbench's CPU at its cores, every worker busy) is
labelled generator-limited, and so is a band bounded by one. When no rate
holds, the answer says why: an operation that breaks the SLO at any rate (named),
the client (and the fix), or too few operations.

It prints the band first, the evidence at each rate and the trials, and writes
the result (--out) and an HTML report with the latency-vs-rate curve and the
band shaded (--html). Without --slo the SLO is p99<5ms. Exit status: 0 when a
rate held, 99 when none did (as a missed --threshold), 1 when the search cannot
run, 130 when interrupted, 2 on bad input. docs/capacity.md says more.

With --shard K/N the shards cannot bisect (each sees only its share of the
latency): every shard runs the same ladder of rates (--ladder LOW:HIGH over all
shards, steps of --precision) at rate/N, each trial in its own time slot from
--start-at, and ` + "`docbench merge`" + ` judges each rung on the merged windows.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.capacitySpec(cmd, f)
			if err != nil {
				return err
			}
			res, err := a.capacity(cmd.Context(), c)
			if res == nil {
				return err
			}
			if werr := a.writeCapacity(res, c.format, c.out, c.html); werr != nil {
				return errors.Join(err, werr)
			}
			if err != nil {
				return err
			}
			return capacityExit(res)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.target, "target", "t", "", "database target, loaded beforehand (docbench load)")
	fl.StringArrayVarP(&f.workloads, "workload", "P", nil, "workload file or built-in name; repeatable")
	fl.StringArrayVarP(&f.props, "property", "p", nil, "property key=value; repeatable")
	fl.IntVar(&f.threads, "threads", 0, "client threads (overrides threadcount): they must be enough to carry the rate")
	fl.StringArrayVar(&f.slos, "slo", nil, "latency bound a rate must hold, e.g. 'p99<5ms' or 'READ.p99<2ms'; repeatable (default p99<5ms)")
	fl.StringVar(&f.maxErrorShare, "max-error-share", "0.1%", "share of failed operations above which a rate fails (100% = no limit)")
	fl.StringVar(&f.precision, "precision", "5%", "stop narrowing the band once its failing edge is within this share above its holding edge")
	fl.StringVar(&f.confidence, "confidence", "95%", "confidence of each rate's verdict")
	fl.IntVar(&f.minWindows, "min-windows", capacity.DefaultMinWindows, "fewest one-second windows a rate is decided on: fewer may miss the bursts of a checkpoint or a stall")
	fl.StringVar(&f.above, "above", "", "no longer used: the band's failing edge is measured with confidence")
	_ = fl.MarkDeprecated("above", "the band's failing edge is measured with confidence; the flag is ignored")
	fl.DurationVar(&f.maxTime, "max-time", 10*time.Minute, "bound of the whole search; at it, the band so far is reported, unconfirmed")
	fl.DurationVar(&f.trial, "trial", capacity.DefaultTrial, "measured length of a look at a rate (longer when its operations are too few, or it trended)")
	fl.DurationVar(&f.warmup, "warmup", 2*time.Second, "warm-up before each trial, discarded")
	fl.StringVar(&f.ladder, "ladder", "", "with --shard: the rates LOW:HIGH (ops/s over all shards) every shard runs, in steps of --precision")
	fl.StringVar(&f.out, "out", "capacity.json", "result file (\"\" for none)")
	fl.StringVar(&f.html, "html", "capacity.html", "HTML report with the latency-vs-throughput curve (\"\" for none)")
	fl.StringVar(&f.format, "format", "text", "report on stdout: text, json or jsonl")
	fl.BoolVar(&f.force, "force", false, forceHelp)
	fl.Uint64Var(&f.seed, "seed", 1, "seed of documents and key choices")
	f.shard.add(fl)
	_ = cmd.MarkFlagRequired("target")
	_ = cmd.MarkFlagRequired("workload")
	return cmd
}

// capacitySpec is a validated capacity command: the search, and where its
// result goes.
type capacitySpec struct {
	engine.Search
	out, html, format string
}

func (a *app) capacitySpec(cmd *cobra.Command, f *capacityFlags) (*capacitySpec, error) {
	usage := func(err error) error { return &ExitError{Code: exitUsage, Err: err} }
	props, err := propsFromFlags(f.workloads, f.props)
	if err != nil {
		return nil, err
	}
	if cmd.Flags().Changed("threads") {
		props.Set("threadcount", strconv.Itoa(f.threads), "--threads")
	}
	// Every trial runs for its duration, whatever operationcount says.
	props.Set("operationcount", "0", "capacity")
	var cfg capacity.Spec
	if len(f.slos) == 0 {
		f.slos = []string{DefaultSLO}
	}
	for _, text := range f.slos {
		s, err := engine.ParseSLO(text)
		if err != nil {
			return nil, usage(err)
		}
		cfg.SLOs = append(cfg.SLOs, s)
	}
	if cfg.MaxErrorShare, err = capacity.ParseShare(f.maxErrorShare); err != nil {
		return nil, usage(fmt.Errorf("--max-error-share %w", err))
	}
	if cfg.Precision, err = capacity.ParseShare(f.precision); err != nil || cfg.Precision == 0 {
		return nil, usage(fmt.Errorf("--precision %q: want a share such as 5%% or 0.05", f.precision))
	}
	if cfg.Confidence, err = capacity.ParseShare(f.confidence); err != nil || cfg.Confidence == 0 {
		return nil, usage(fmt.Errorf("--confidence %q: want a share such as 95%% or 0.95", f.confidence))
	}
	if f.trial < time.Second {
		return nil, usage(fmt.Errorf("--trial %s: want at least 1s (a look is judged on its one-second windows)", f.trial))
	}
	cfg.Trial, cfg.MinWindows = f.trial, f.minWindows
	if f.minWindows < 1 {
		return nil, usage(fmt.Errorf("--min-windows %d: want 1 or more", f.minWindows))
	}
	if err := cfg.Validate(); err != nil {
		return nil, usage(err)
	}
	switch format := strings.ToLower(f.format); format {
	case "text", "json", "jsonl":
	default:
		return nil, usage(fmt.Errorf("--format %q: want text, json or jsonl", f.format))
	}
	if f.maxTime <= 0 || f.warmup < 0 {
		return nil, usage(errors.New("--max-time and --warmup: want positive durations"))
	}
	for _, p := range []struct{ flag, path string }{{"--out", f.out}, {"--html", f.html}} {
		if p.path != "" {
			if err := report.CheckWritable(p.path); err != nil {
				return nil, usage(fmt.Errorf("%s %s: %w", p.flag, p.path, err))
			}
		}
	}
	sh, err := f.shard.parse(time.Now())
	if err != nil {
		return nil, err
	}
	c := &capacitySpec{out: f.out, html: f.html, format: strings.ToLower(f.format),
		Search: engine.Search{Config: cfg, MaxTime: f.maxTime, Trial: f.trial,
			Phase: &engine.Phase{Kind: runner.Run, Target: f.target, Files: f.workloads, Props: props, Shard: sh, Encode: true, Quiet: true, Force: f.force,
				Opts: runner.Options{Phase: runner.Run, Warmup: f.warmup, Seed: f.seed, MaxErrorShare: -1}}}}
	switch {
	case sh.Shard.Sharded() && f.ladder == "":
		return nil, usage(errors.New("--shard: a sharded search runs a fixed ladder of rates: give --ladder LOW:HIGH (ops/s over all shards)"))
	case sh.Shard.Sharded() && sh.StartAt.IsZero():
		return nil, usage(errors.New("--shard: shards line up their trials from --start-at: give it (docbench kube job does)"))
	case f.ladder != "":
		lo, hi, ok := strings.Cut(f.ladder, ":")
		l, err1 := strconv.ParseFloat(lo, 64)
		h, err2 := strconv.ParseFloat(hi, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, usage(fmt.Errorf("--ladder %q: want LOW:HIGH in ops/s, e.g. 1000:8000", f.ladder))
		}
		if c.Ladder, err = capacity.Ladder(l, h, cfg.Precision); err != nil {
			return nil, usage(err)
		}
	}
	return c, nil
}

// DefaultSLO is the SLO of a capacity search given none (the quickstart's).
const DefaultSLO = "p99<5ms"

// capacity runs the search on the target and returns its result (also,
// with the error, when it failed or was interrupted after trials ran).
func (a *app) capacity(ctx context.Context, c *capacitySpec) (*report.Result, error) {
	res, err := a.engine().Capacity(ctx, &c.Search)
	return res, notLoaded(err, c.Phase.Target, c.Phase.Files, nil)
}

// writeCapacity prints the result and writes its file and HTML report.
func (a *app) writeCapacity(res *report.Result, format, out, html string) error {
	if err := a.emit(res, format, out); err != nil {
		return err
	}
	return a.writeCapacityHTML(res, html)
}

// writeCapacityHTML writes the HTML report of a capacity result, with its
// latency-vs-rate curve, to html ("": none). A shard's part of a sharded
// search has none: the merge judges it and writes the report.
func (a *app) writeCapacityHTML(res *report.Result, html string) error {
	if html == "" || res.Capacity == nil || res.Capacity.Limit == "shard" {
		return nil
	}
	var b strings.Builder
	if err := report.RenderHTML(&b, []*report.StudyReport{report.CapacityReport(res)}); err != nil {
		return err
	}
	if err := report.WriteFileAtomic(html, []byte(b.String())); err != nil {
		return fmt.Errorf("--html %s: %w", html, err)
	}
	fmt.Fprintf(a.stderr, "wrote %s\n", html)
	return nil
}

// capacityExit is the exit status of a finished search: as for thresholds,
// 99 when no rate holds the SLO.
func capacityExit(res *report.Result) error {
	c := res.Capacity
	if c.Rate > 0 || c.Limit == "shard" {
		return nil
	}
	return &ExitError{Code: ExitThresholds, Err: errors.New("capacity: no rate holds " + strings.Join(c.SLO, ", ") + ": " + c.Absent)}
}
