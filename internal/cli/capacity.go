package cli

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/capacity"
	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/engine"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
	"github.com/docbench/docbench/internal/workload"
)

// capacityFlags are the flags of `docbench capacity`.
type capacityFlags struct {
	target       string
	workloads    []string
	props        []string
	threads      int
	slos         []string
	maxErrorRate string
	precision    string
	confidence   string
	minWindows   int
	above        string
	maxTime      time.Duration
	trial        time.Duration
	warmup       time.Duration
	ladder       string
	out, html    string
	format       string
	seed         uint64
	shard        shardFlags
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
bursts' design effect. Too few operations for a decision (300 for p99 at 95 %)
lengthen the next look instead; a look stops as soon as its windows fail the
rate with confidence. A trial whose p99 or throughput still trends is looked at
again twice as long, then leaves the rate undecided. A trial the client could
not drive (schedule lag, docbench's CPU at its cores, every worker busy) is
labelled generator-limited, and so is a band bounded by one.

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
	fl.StringVar(&f.maxErrorRate, "max-error-rate", "0.1%", "share of failed operations above which a rate fails (100% = no limit)")
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
	fl.Uint64Var(&f.seed, "seed", 1, "seed of documents and key choices")
	f.shard.add(fl)
	_ = cmd.MarkFlagRequired("target")
	_ = cmd.MarkFlagRequired("workload")
	return cmd
}

// capacitySpec is a validated capacity command.
type capacitySpec struct {
	phase   *spec
	cfg     capacity.Config
	maxTime time.Duration
	trial   time.Duration
	ladder  []float64
	out     string
	html    string
	format  string
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
	var cfg capacity.Config
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
	if cfg.MaxErrorShare, err = capacity.ParseShare(f.maxErrorRate); err != nil {
		return nil, usage(fmt.Errorf("--max-error-rate %w", err))
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
	c := &capacitySpec{cfg: cfg, maxTime: f.maxTime, trial: f.trial, out: f.out, html: f.html, format: strings.ToLower(f.format),
		phase: &spec{phase: runner.Run, target: f.target, files: f.workloads, props: props, shard: sh, encode: true, quiet: true,
			opts: runner.Options{Phase: runner.Run, Warmup: f.warmup, Seed: f.seed, MaxErrorRate: -1}}}
	switch {
	case sh.shard.Sharded() && f.ladder == "":
		return nil, usage(errors.New("--shard: a sharded search runs a fixed ladder of rates: give --ladder LOW:HIGH (ops/s over all shards)"))
	case sh.shard.Sharded() && sh.startAt.IsZero():
		return nil, usage(errors.New("--shard: shards line up their trials from --start-at: give it (docbench kube job does)"))
	case f.ladder != "":
		lo, hi, ok := strings.Cut(f.ladder, ":")
		l, err1 := strconv.ParseFloat(lo, 64)
		h, err2 := strconv.ParseFloat(hi, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, usage(fmt.Errorf("--ladder %q: want LOW:HIGH in ops/s, e.g. 1000:8000", f.ladder))
		}
		if c.ladder, err = capacity.Ladder(l, h, cfg.Precision); err != nil {
			return nil, usage(err)
		}
	}
	return c, nil
}

// DefaultSLO is the SLO of a capacity search given none (the quickstart's).
const DefaultSLO = "p99<5ms"

// trialSlack is the time a shard's trial slot allows beyond its warm-up and
// measured part: opening sessions, draining, writing.
const trialSlack = 1500 * time.Millisecond

// capacity runs the search on the target and returns its result (also,
// with the error, when it failed or was interrupted after trials ran).
func (a *app) capacity(ctx context.Context, c *capacitySpec) (*report.Result, error) {
	sp := c.phase
	cfg, wl, docOps, err := preparePhase(sp)
	if err != nil {
		return nil, err
	}
	store, err := a.open(ctx, sp.target, cfg, true)
	if err != nil {
		return nil, notLoaded(err, sp.target, sp.files, nil)
	}
	defer store.Close()
	return a.capacityOn(ctx, store, c, cfg, wl, docOps)
}

// capacityOn runs the search on an opened store, with the configuration,
// workload and document operations preparePhase made of c's phase.
func (a *app) capacityOn(ctx context.Context, store db.Store, c *capacitySpec, cfg *workload.Config,
	wl *workload.Workload, docOps *runner.DocOps) (*report.Result, error) {
	sp := c.phase
	pt := probe.Take(ctx, store)
	inProcess := pt.Err == nil && pt.Snap.InProcess

	capRes := &report.Capacity{MaxErrorShare: c.cfg.MaxErrorShare, Precision: c.cfg.Precision, Confidence: c.cfg.Confidence,
		MinWindows: c.cfg.MinWindows, Ladder: c.ladder}
	for _, s := range c.cfg.SLOs {
		capRes.SLO = append(capRes.SLO, s.Text)
		capRes.Bounds = append(capRes.Bounds, s.Bound)
	}
	shards := 1
	if sp.shard.shard.Sharded() {
		shards = sp.shard.shard.Count
	}
	settled := sp.settled
	// one runs a trial: its rate (0: closed loop, total over all shards),
	// length and start are passed to the phase, never set on the shared
	// configuration.
	one := func(tp trialParams) (report.Trial, *report.Result, error) {
		tsp, tcfg := *sp, *cfg
		tsp.settled = settled
		tcfg.Target = tp.rate / float64(shards)
		tcfg.MaxExecutionTime = tp.duration
		if !tp.startAt.IsZero() {
			tsp.opts.StartAt = tp.startAt
		}
		tsp.opts.Enough = tp.enough
		res, err := a.runPhase(ctx, store, &tsp, &tcfg, wl, docOps)
		settled = true
		var t report.Trial
		if res != nil {
			t = report.TrialOf(res)
		}
		t.N, t.Stage, t.Rate, t.Look, t.Extended, t.Extension = tp.n, string(tp.stage), tp.rate, tp.look, tp.extended, tp.why
		if res == nil {
			t.Error = errText(err)
			return t, nil, err
		}
		if res.EndedBy == "enough" {
			// Its rate failed within the look: the schedule ran for as
			// long as the trial did.
			t.ScheduledS, t.EndedEarly = t.DurationS, true
		}
		t.Windows = engine.Windows(c.cfg, res.Series)
		if !inProcess && res.Server != nil && res.Server.CPU != nil && res.Server.CPU.HarnessS.OK() && t.DurationS > 0 {
			// The CPUs docbench may use: GOMAXPROCS follows a cgroup's
			// quota, where runtime.NumCPU counts the machine's.
			share := res.Server.CPU.HarnessS.Value / t.DurationS / float64(runtime.GOMAXPROCS(0))
			t.ClientCPUShare = &share
		}
		return t, res, err
	}
	var last *report.Result
	var runErr error
	if c.ladder != nil {
		last, runErr = a.capacityLadder(ctx, c, capRes, one)
	} else {
		last, runErr = a.capacitySearch(ctx, c, capRes, one)
	}
	if last == nil {
		return nil, runErr
	}
	res := *last
	res.Phase = "capacity"
	res.Capacity = capRes
	res.Complete = runErr == nil && capRes.Limit != "interrupted"
	res.Thresholds = nil
	if sp.shard.used() {
		shardResult(&res, &runner.Outcome{Phase: runner.Run, Began: capRes.Trials[0].Start}, sp.shard, wl)
	}
	return &res, runErr
}

// trialParams are one trial's own parameters.
type trialParams struct {
	n        int
	stage    capacity.Stage
	rate     float64 // over all shards; 0: closed loop
	duration time.Duration
	look     int
	extended bool
	why      string
	startAt  time.Time // a shard's slot (zero: now)
	// enough ends the trial once its rate is decided (runner.Options.Enough).
	enough func(names []string, iv *measure.Interval) bool
}

// trialFunc runs one trial.
type trialFunc func(tp trialParams) (report.Trial, *report.Result, error)

// capacitySearch runs the search's trials until it ends, max-time passes
// or ctx is done, and records them and the verdict in capRes.
func (a *app) capacitySearch(ctx context.Context, c *capacitySpec, capRes *report.Capacity, one trialFunc) (*report.Result, error) {
	started := time.Now()
	s, err := capacity.New(c.cfg)
	if err != nil {
		return nil, &ExitError{Code: exitUsage, Err: err}
	}
	var last *report.Result
	atRate := map[float64]*report.Result{} // the last trial at each rate
	warmup := c.phase.opts.Warmup
	for {
		tr, ok := s.Next()
		if !ok {
			break
		}
		if time.Since(started)+tr.Duration+warmup > c.maxTime {
			s.Stop("max-time")
			break
		}
		var partial []capacity.Window
		enough := func(names []string, iv *measure.Interval) bool {
			partial = append(partial, engine.IntervalWindow(c.cfg, names, iv))
			return s.Enough(partial)
		}
		if tr.Stage == capacity.ClosedLoop {
			enough = nil
		}
		t, res, err := one(trialParams{n: tr.N, stage: tr.Stage, rate: tr.Rate, duration: tr.Duration, look: tr.Look, extended: tr.Extended,
			why: tr.Why, enough: enough})
		if res != nil {
			last = res
		} else if err != nil && !errors.Is(err, runner.ErrInterrupted) {
			return last, err // the trial could not start (sessions, statements): no search
		}
		if errors.Is(err, runner.ErrInterrupted) || ctx.Err() != nil {
			capRes.Trials = append(capRes.Trials, t)
			s.Stop("interrupted")
			break
		}
		o := engine.Observe(c.cfg, &t)
		if err != nil {
			o.Failed = oneLine(err.Error())
		}
		j := s.Observe(o)
		engine.Evaluate(c.cfg, &t, j)
		if tr.Stage == capacity.ClosedLoop {
			t.Verdict = fmt.Sprintf("closed loop: %.0f ops/s", t.Throughput)
		}
		capRes.Trials = append(capRes.Trials, t)
		if res != nil && tr.Rate > 0 {
			atRate[tr.Rate] = res
		}
		a.capacityProgress(tr, &t, s.Remaining(), c.cfg.Trial+warmup+time.Second)
	}
	engine.Result(capRes, s.Verdict())
	if r := atRate[capRes.Rate]; r != nil && capRes.Rate > 0 {
		last = r // the top-level figures are those of the holding edge's last trial
	}
	if capRes.Limit == "interrupted" {
		return last, runner.ErrInterrupted
	}
	return last, nil
}

// capacityLadder runs a shard's part of a sharded search: every rung of
// the ladder at rate/N, each in its slot from --start-at. The shard does
// not judge: the merge does, on the merged windows.
func (a *app) capacityLadder(ctx context.Context, c *capacitySpec, capRes *report.Capacity, one trialFunc) (*report.Result, error) {
	var last *report.Result
	slot := c.phase.opts.Warmup + c.trial + trialSlack
	start := c.phase.shard.startAt
	capRes.Limit, capRes.Absent = "shard", "a shard's part of a sharded search: docbench merge judges the SLO on the merged trials"
	for i, rate := range c.ladder {
		t, res, err := one(trialParams{n: i + 1, stage: capacity.Rung, rate: rate, duration: c.trial, look: 1, startAt: start.Add(time.Duration(i) * slot)})
		capRes.Trials = append(capRes.Trials, t)
		if res != nil {
			last = res
		} else if err != nil && !errors.Is(err, runner.ErrInterrupted) {
			return last, err
		}
		if errors.Is(err, runner.ErrInterrupted) || ctx.Err() != nil {
			capRes.Limit = "interrupted"
			return last, runner.ErrInterrupted
		}
		fmt.Fprintf(a.stderr, "trial %d/%d ladder %s ops/s (this shard %s): achieved %s ops/s\n", i+1, len(c.ladder),
			report.FormatNumber(rate), report.FormatNumber(rate/float64(c.phase.shard.shard.Count)), report.FormatNumber(t.Throughput))
	}
	return last, nil
}

// capacityProgress prints one line per trial on stderr.
func (a *app) capacityProgress(tr capacity.Step, t *report.Trial, remaining int, per time.Duration) {
	target := "closed loop"
	if tr.Rate > 0 {
		target = report.FormatNumber(tr.Rate) + " ops/s"
		if tr.Look > 1 {
			target += fmt.Sprintf(" (look %d)", tr.Look)
		}
	}
	p99 := "-"
	if len(t.SLO) > 0 && t.SLO[0].Absent == "" {
		p99 = fmt.Sprintf("%s measured %s", t.SLO[0].Threshold, time.Duration(t.SLO[0].Value*1e3).Round(time.Microsecond))
	}
	verdict := "the rate: looked at again"
	switch {
	case tr.Stage == capacity.ClosedLoop:
		verdict = t.Verdict
	case t.Decision != "":
		verdict = "the rate " + t.Decision
	}
	if t.GeneratorLimited != "" {
		verdict += " [generator-limited]"
	}
	eta := ""
	if remaining > 0 {
		eta = fmt.Sprintf(" · ETA ~%s (%d trials)", (time.Duration(remaining) * per).Round(time.Second), remaining)
	}
	stage := string(tr.Stage) + " " + target
	if tr.Stage == capacity.ClosedLoop {
		stage = target
	}
	fmt.Fprintf(a.stderr, "trial %d %s: achieved %s ops/s, %s · %s%s\n", tr.N, stage, report.FormatNumber(t.Throughput), p99, verdict, eta)
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
	return &ExitError{Code: ExitThresholds, Err: errors.New("capacity: no sustainable rate: " + c.Absent)}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return oneLine(err.Error())
}
