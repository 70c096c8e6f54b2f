package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/docbench/docbench/internal/capacity"
	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
)

// Search is a capacity search to run: its phase (a run whose rate and
// length each trial sets), the search's configuration, and its bounds. A
// Ladder (a sharded search's part) replaces the search by fixed rungs.
type Search struct {
	Phase   *Phase
	Config  capacity.Spec
	MaxTime time.Duration // no trial starts that would end after it
	Trial   time.Duration // a rung's length
	Ladder  []float64     // ops/s over all shards; nil: search
}

// trialSlack is the time a shard's trial slot allows beyond its warm-up
// and measured part: opening sessions, draining, writing.
const trialSlack = 1500 * time.Millisecond

// Capacity opens the search's target (which must be loaded) and runs the
// search on it.
func (e *Engine) Capacity(ctx context.Context, s *Search) (*report.Result, error) {
	pr, err := Prepare(s.Phase)
	if err != nil {
		return nil, err
	}
	store, err := e.Open(ctx, s.Phase.Target, pr.Config, true)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	return e.CapacityOn(ctx, store, s, pr)
}

// CapacityOn runs the search on an opened store and returns its result
// (also, with the error, when it failed or was interrupted after trials
// ran): the trials, the band and the figures of the holding edge's last
// trial.
func (e *Engine) CapacityOn(ctx context.Context, store db.Store, s *Search, pr *Prepared) (*report.Result, error) {
	sp := s.Phase
	pt := probe.Take(ctx, store)
	inProcess := pt.Err == nil && pt.Snap.InProcess

	capRes := &report.Capacity{MaxErrorShare: s.Config.MaxErrorShare, Precision: s.Config.Precision, Confidence: s.Config.Confidence,
		MinWindows: s.Config.MinWindows, Ladder: s.Ladder}
	for _, slo := range s.Config.SLOs {
		capRes.SLO = append(capRes.SLO, slo.Text)
		capRes.Bounds = append(capRes.Bounds, slo.Bound)
	}
	shards := 1
	if sp.Shard.Shard.Sharded() {
		shards = sp.Shard.Shard.Count
	}
	settled := sp.Settled
	// one runs a trial: its rate (0: closed loop, total over all shards),
	// length and start are passed to the phase, never set on the shared
	// configuration.
	one := func(tp trialParams) (report.Trial, *report.Result, error) {
		tsp, tcfg := *sp, *pr.Config
		tsp.Settled = settled
		tcfg.Target = tp.rate / float64(shards)
		tcfg.MaxExecutionTime = tp.duration
		if !tp.startAt.IsZero() {
			tsp.Opts.StartAt = tp.startAt
		}
		tsp.Opts.Enough = tp.enough
		res, err := e.Run(ctx, store, &tsp, &Prepared{Config: &tcfg, Workload: pr.Workload, DocOps: pr.DocOps})
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
		t.Windows = Windows(s.Config, res.Series)
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
	if s.Ladder != nil {
		last, runErr = e.ladder(ctx, s, capRes, one)
	} else {
		last, runErr = e.search(ctx, s, capRes, one)
	}
	if last == nil {
		return nil, runErr
	}
	res := *last
	res.Phase = "capacity"
	res.Capacity = capRes
	res.Complete = runErr == nil && capRes.Limit != "interrupted"
	res.Thresholds = nil
	if sp.Shard.Used() {
		shardResult(&res, &runner.Outcome{Phase: runner.Run, Began: capRes.Trials[0].Start}, sp.Shard, pr.Workload)
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

// search runs the search's trials until it ends, max-time passes or ctx
// is done, and records them and the verdict in capRes.
func (e *Engine) search(ctx context.Context, sc *Search, capRes *report.Capacity, one trialFunc) (*report.Result, error) {
	started := time.Now()
	s, err := capacity.New(sc.Config)
	if err != nil {
		return nil, badInput(err)
	}
	var last *report.Result
	atRate := map[float64]*report.Result{} // the last trial at each rate
	warmup := sc.Phase.Opts.Warmup
	for {
		tr, ok := s.Next()
		if !ok {
			break
		}
		if time.Since(started)+tr.Duration+warmup > sc.MaxTime {
			s.Stop("max-time")
			break
		}
		var partial []capacity.Window
		enough := func(names []string, iv *measure.Interval) bool {
			partial = append(partial, IntervalWindow(sc.Config, names, iv))
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
		o := Observe(sc.Config, &t)
		if err != nil {
			o.Failed = errText(err)
		}
		j := s.Observe(o)
		Evaluate(sc.Config, &t, j)
		if tr.Stage == capacity.ClosedLoop {
			t.Verdict = fmt.Sprintf("closed loop: %.0f ops/s", t.Throughput)
		}
		capRes.Trials = append(capRes.Trials, t)
		if res != nil && tr.Rate > 0 {
			atRate[tr.Rate] = res
		}
		e.progress(tr, &t, s.Remaining(), eta(started, len(capRes.Trials), s.Remaining(), sc.MaxTime))
	}
	Result(capRes, s.Verdict())
	if r := atRate[capRes.Rate]; r != nil && capRes.Rate > 0 {
		last = r // the top-level figures are those of the holding edge's last trial
	}
	if capRes.Limit == "interrupted" {
		return last, runner.ErrInterrupted
	}
	return last, nil
}

// ladder runs a shard's part of a sharded search: every rung of the
// ladder at rate/N, each in its slot from the phase's start. The shard
// does not judge: the merge does, on the merged windows.
func (e *Engine) ladder(ctx context.Context, sc *Search, capRes *report.Capacity, one trialFunc) (*report.Result, error) {
	var last *report.Result
	slot := sc.Phase.Opts.Warmup + sc.Trial + trialSlack
	start := sc.Phase.Shard.StartAt
	capRes.Limit, capRes.Absent = "shard", "a shard's part of a sharded search: docbench merge judges the SLO on the merged trials"
	for i, rate := range sc.Ladder {
		t, res, err := one(trialParams{n: i + 1, stage: capacity.Rung, rate: rate, duration: sc.Trial, look: 1, startAt: start.Add(time.Duration(i) * slot)})
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
		if e.Stderr != nil {
			fmt.Fprintf(e.Stderr, "trial %d/%d ladder %s ops/s (this shard %s): achieved %s ops/s\n", i+1, len(sc.Ladder),
				report.FormatNumber(rate), report.FormatNumber(rate/float64(sc.Phase.Shard.Shard.Count)), report.FormatNumber(t.Throughput))
		}
	}
	return last, nil
}

// eta estimates the time a search has left after n trials: the remaining
// trials at the mean time a trial took so far (warm-up, drain and the
// looks stretched at low rates included), within max-time.
func eta(started time.Time, n, remaining int, maxTime time.Duration) time.Duration {
	if n == 0 || remaining == 0 {
		return 0
	}
	spent := time.Since(started)
	d := spent / time.Duration(n) * time.Duration(remaining)
	if maxTime > 0 {
		d = min(d, max(maxTime-spent, 0))
	}
	return d
}

// progress prints one line per trial on Stderr.
func (e *Engine) progress(tr capacity.Step, t *report.Trial, remaining int, left time.Duration) {
	if e.Stderr == nil {
		return
	}
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
		eta = fmt.Sprintf(" · ETA ~%s (~%d trials)", left.Round(time.Second), remaining)
	}
	stage := string(tr.Stage) + " " + target
	if tr.Stage == capacity.ClosedLoop {
		stage = target
	}
	fmt.Fprintf(e.Stderr, "trial %d %s: achieved %s ops/s, %s · %s%s\n", tr.N, stage, report.FormatNumber(t.Throughput), p99, verdict, eta)
}

// errText is err on one line ("" for nil): pgx joins its attempts with
// newlines.
func errText(err error) string {
	if err == nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "; ")
}
