package capacity

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Config is what a search looks for and how finely.
type Config struct {
	SLOs []SLO
	// MaxErrorShare is the share of failed operations above which a trial
	// fails (0.001 = 0.1 %); negative: no limit.
	MaxErrorShare float64
	// Precision is the relative width of the final bracket: bisection
	// stops once (lowest fail − highest pass) ≤ Precision × highest pass.
	Precision float64
	// Growth is the factor of the geometric bracket steps (default 2).
	Growth float64
	// MinRate is the lowest rate tried (default 1 op/s): below it, no
	// rate meets the SLO.
	MinRate float64
	// MaxTrials bounds the search (default 60).
	MaxTrials int
	// Above is how far above the confirmed rate the last check runs
	// (default 0.10: 1.1× the rate), on the data and server state the
	// search left, where the SLO should fail; negative: no check.
	Above float64
}

// Defaults of Config.
const (
	DefaultPrecision = 0.05
	defaultGrowth    = 2
	defaultMaxTrials = 60
	// DefaultAbove is the default of Config.Above.
	DefaultAbove = 0.10
	// confirmations bounds the confirmations: after this many failed ones
	// the search ends unconfirmed.
	confirmations = 3
	// clearShare: a trial whose every SLO value lies below clearShare of
	// its bound, and whose errors below clearShare of their limit, passes
	// clearly and decides its rate alone; any other verdict is judged on
	// more than one trial (see vote).
	clearShare = 0.5
	// shortfall: a trial whose successful throughput is below
	// (1 − shortfall) × its rate did not sustain the rate.
	shortfall = 0.05
	// Steady state: a trial trends when its last third's throughput is
	// below (1 − trendThroughput) × its first third's, or its last third's
	// p99 is above trendP99 × its first third's and above trendFloor of
	// the tightest SLO bound (so that noise at tiny latencies is no trend).
	trendThroughput = 0.10
	trendP99        = 1.5
	trendFloor      = 0.5
	// Generator limits: schedule lag p99 above lagShare of the tightest
	// bound, docbench's CPU at cpuShare of its cores, or every worker busy
	// (busyShare) while the service time met the SLO.
	lagShare  = 0.2
	cpuShare  = 0.9
	busyShare = 0.9
)

// Validate checks a configuration and fills in its defaults.
func (c *Config) Validate() error {
	if len(c.SLOs) == 0 {
		return errors.New("--slo: at least one SLO is needed, e.g. --slo 'p99<5ms'")
	}
	if c.Precision == 0 {
		c.Precision = DefaultPrecision
	}
	if c.Precision < 0.001 || c.Precision >= 1 || math.IsNaN(c.Precision) {
		return fmt.Errorf("--precision %g: want a share between 0.1%% and 100%% (e.g. 5%%)", c.Precision)
	}
	if c.Growth == 0 {
		c.Growth = defaultGrowth
	}
	if c.Growth <= 1 {
		return fmt.Errorf("growth %g: want a factor above 1", c.Growth)
	}
	if c.MinRate <= 0 {
		c.MinRate = 1
	}
	if c.MaxTrials <= 0 {
		c.MaxTrials = defaultMaxTrials
	}
	if c.Above == 0 {
		c.Above = DefaultAbove
	}
	if math.IsNaN(c.Above) || c.Above > 1 {
		return fmt.Errorf("--above %g: want a share up to 100%% (e.g. 10%%), or 0 for no check", c.Above)
	}
	return nil
}

// Stage names a trial's part in the search.
type Stage string

// The stages of a search.
const (
	Probe   Stage = "probe"   // closed loop: how fast at all
	Bracket Stage = "bracket" // geometric steps to a passing and a failing rate
	Bisect  Stage = "bisect"  // halving the bracket to the precision
	Recheck Stage = "recheck" // the lowest failing rate once more, before confirming
	Confirm Stage = "confirm" // the accepted rate once more
	Above   Stage = "above"   // after the confirmation, Config.Above over the rate: should fail
	Rung    Stage = "ladder"  // a sharded search's fixed rate
)

// Trial is the next trial to run: at Rate ops/s (0: closed loop), twice as
// long as usual when Extended (a re-run of a trial that still trended).
type Trial struct {
	N        int
	Stage    Stage
	Rate     float64
	Extended bool
}

// Observation is what the caller measured in a trial.
type Observation struct {
	// Throughput counts successful operations per second.
	Throughput float64
	// Issued is the operations issued per second of the trial's schedule
	// (0: unknown, Throughput stands in): an open loop that falls behind
	// leaves operations of its schedule unissued.
	Issued     float64
	ErrorShare float64
	// Latency is, per SLO in order, the measured value (µs) of the SLO's
	// metric (response time from the intended start); NaN when absent.
	// Service is the same of the service time (NaN when unknown).
	Latency []float64
	Service []float64
	// Early and Late are the first and last third of the trial's windows;
	// nil when the trial was too short to have thirds.
	Early, Late *Segment
	// LagP99 is the schedule lag's p99 (µs; 0 when none).
	LagP99 float64
	// ClientCPU is docbench's CPU over the trial as a share of its cores;
	// NaN when it says nothing of the client (an engine inside docbench).
	ClientCPU float64
	// WorkerBusy is the share of the workers' time spent in operations.
	WorkerBusy float64
	// Failed says the trial could not run to its end (the database
	// stopped answering, a worker failed): it fails.
	Failed string
}

// Segment is a part of a trial's windows.
type Segment struct {
	Throughput float64
	P99        float64 // µs; NaN when none
}

// Judgement is a trial's verdict.
type Judgement struct {
	Pass bool
	// Why says why a trial failed, in one line ("p99 7.1ms ≥ 5ms").
	Why string
	// Trending says how a trial's figures still moved; Unsteady is set
	// when that rejected the trial.
	Trending string
	Unsteady bool
	// GeneratorLimited says why the client set the pace, not the server.
	GeneratorLimited string
	// Extend asks for the trial to be re-run twice as long.
	Extend bool
	// Again says this trial did not decide its rate: another trial at the
	// same rate follows. Decided is set on the trial that did, with the
	// rate's verdict in RatePass and, when more than one trial voted, in
	// Votes ("the rate passed (2 of 3 trials)").
	Again    bool
	Decided  bool
	RatePass bool
	Votes    string
}

// Judge judges one open-loop trial at rate against cfg (Extend is never
// set here: the search decides it).
func Judge(cfg Config, rate float64, o Observation) Judgement {
	var j Judgement
	var why []string
	if o.Failed != "" {
		why = append(why, o.Failed)
	}
	for i, s := range cfg.SLOs {
		v := math.NaN()
		if i < len(o.Latency) {
			v = o.Latency[i]
		}
		switch {
		case math.IsNaN(v):
			why = append(why, s.Text+": no latency measured")
		case !s.holds(v):
			why = append(why, fmt.Sprintf("%s: %s", s.Text, formatUS(v)))
		}
	}
	if cfg.MaxErrorShare >= 0 && o.ErrorShare > cfg.MaxErrorShare {
		why = append(why, fmt.Sprintf("errors %s > %s", pct(o.ErrorShare), pct(cfg.MaxErrorShare)))
	}
	if issued := cmp.Or(o.Issued, o.Throughput); rate > 0 && issued < (1-shortfall)*rate {
		why = append(why, fmt.Sprintf("issued %.0f ops/s, < %.0f%% of the rate: the target fell behind", issued, (1-shortfall)*100))
	}
	j.Trending = trend(cfg, o)
	j.Pass = len(why) == 0
	if !j.Pass { // a trial that passed needs no excuse
		j.GeneratorLimited = generatorLimited(cfg, o)
	}
	j.Why = strings.Join(why, "; ")
	return j
}

// trend says how a trial's throughput or p99 moved from its first to its
// last third, or "".
func trend(cfg Config, o Observation) string {
	e, l := o.Early, o.Late
	if e == nil || l == nil {
		return ""
	}
	var out []string
	if e.Throughput > 0 && l.Throughput < (1-trendThroughput)*e.Throughput {
		out = append(out, fmt.Sprintf("throughput fell from %.0f to %.0f ops/s", e.Throughput, l.Throughput))
	}
	if !math.IsNaN(e.P99) && !math.IsNaN(l.P99) && l.P99 > trendP99*e.P99 && l.P99 > trendFloor*tightest(cfg.SLOs) {
		out = append(out, fmt.Sprintf("p99 rose from %s to %s", formatUS(e.P99), formatUS(l.P99)))
	}
	return strings.Join(out, ", ")
}

// generatorLimited says why the client, not the server, limited a trial,
// or "".
func generatorLimited(cfg Config, o Observation) string {
	var out []string
	if bound := tightest(cfg.SLOs); o.LagP99 > lagShare*bound {
		out = append(out, fmt.Sprintf("schedule lag p99 %s (over %.0f%% of the SLO's %s)", formatUS(o.LagP99), lagShare*100, formatUS(bound)))
	}
	if !math.IsNaN(o.ClientCPU) && o.ClientCPU >= cpuShare {
		out = append(out, fmt.Sprintf("docbench used %.0f%% of its cores", o.ClientCPU*100))
	}
	if o.WorkerBusy >= busyShare && len(o.Service) == len(cfg.SLOs) {
		ok := true
		for i, s := range cfg.SLOs {
			ok = ok && s.holds(o.Service[i])
		}
		if ok {
			out = append(out, fmt.Sprintf("every worker was busy (%.0f%% of their time) while the service time held the SLO: operations queued in docbench; raise --threads", o.WorkerBusy*100))
		}
	}
	return strings.Join(out, "; ")
}

// Record is one trial of a search with what it measured and its verdict.
type Record struct {
	Trial
	Observation
	Judgement
}

// Verdict is the end of a search.
type Verdict struct {
	// Rate is the sustainable rate; 0 with Absent saying why.
	Rate       float64
	Absent     string
	LowestFail float64 // lowest failing rate above Rate (0: none)
	ClosedLoop float64
	Confirmed  bool
	// Limit: slo, generator, max-time, no passing rate, unconfirmed,
	// no operations, max-trials (see report.Capacity).
	Limit            string
	GeneratorLimited string
	// AboveRate is the rate of the check above a confirmed rate (0: none
	// run, AboveAbsent says why); AboveHeld says the SLO held there too
	// (by its vote): the search put the knee too low, or the server sped
	// up during the search.
	AboveRate   float64
	AboveHeld   bool
	AboveAbsent string
}

// Search is a capacity search in progress. Call Next for the trial to run,
// Observe with its figures, until Next reports the end; then Verdict.
//
// A rate is judged by a vote of its trials, not by one: near the knee one
// trial's p99 is noisy, and a server's background work (checkpoints,
// vacuum, compaction) makes isolated spikes at any rate. A bisection never
// revisits a rate, so one spurious failure would pin the result low. A
// trial that passes clearly (every SLO value under half its bound) decides
// its rate alone; so does a failure at or above the closed-loop throughput
// (no open loop with the same threads sustains more). Any other verdict —
// a failure, or a pass near the bound — is judged again: the rate's verdict
// is the majority of up to three independent trials. Percentiles are never
// averaged across trials; each trial is judged whole, and counted. Before
// the confirmation, a lowest failing rate just above a rate that passed
// clearly is judged once more (Recheck): a knee that sharp happens, but so
// does an unlucky vote, and only this revisits it.
type Search struct {
	cfg     Config
	records []Record
	pending *Trial
	vote    *vote // the rate being judged, until its verdict
	done    *Verdict

	closed        float64 // closed-loop throughput
	lo, hi        float64 // highest passing, lowest failing rate (0: none yet)
	loClear       bool    // the rate at lo passed clearly
	hiGenerator   string  // why the trials at hi were generator-limited, or ""
	passes, fails []outcome
	rechecked     []float64 // failing rates judged again
	next          float64   // the rate of the next bracket step
	confirmations int       // failed confirmations
	confirmed     bool      // the confirmation held; the check above follows
	aboveRan      bool      // the check above decided, aboveHeld its verdict
	aboveHeld     bool
}

// outcome is a rate's decided vote.
type outcome struct {
	rate      float64
	clear     bool   // passed on one clear trial
	generator string // failed, every failing trial generator-limited
}

// vote is the trials at one rate in one stage, until they decide it.
type vote struct {
	stage      Stage
	rate       float64
	pass, fail int
	// generator is why every failing trial was generator-limited ("" when
	// one was not: the server failed on its own).
	generator string
}

// New starts a search; cfg is validated first.
func New(cfg Config) (*Search, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Search{cfg: cfg}, nil
}

// Records returns the trials so far.
func (s *Search) Records() []Record { return s.records }

// Next returns the trial to run, or false when the search has ended.
func (s *Search) Next() (Trial, bool) {
	if s.done != nil {
		return Trial{}, false
	}
	if s.pending != nil {
		return *s.pending, true
	}
	t := Trial{N: len(s.records) + 1}
	switch {
	case len(s.records) == 0:
		t.Stage = Probe
	case s.vote != nil:
		t.Stage, t.Rate = s.vote.stage, s.vote.rate
	case s.confirmed:
		t.Stage, t.Rate = Above, s.aboveRate()
	case s.lo == 0 || s.hi == 0:
		t.Stage, t.Rate = Bracket, s.next
	case s.hi-s.lo > s.cfg.Precision*s.lo:
		t.Stage, t.Rate = Bisect, (s.lo+s.hi)/2
	case s.loClear && s.hi < s.closed && !slices.Contains(s.rechecked, s.hi):
		t.Stage, t.Rate = Recheck, s.hi
		s.rechecked = append(s.rechecked, s.hi)
	default:
		t.Stage, t.Rate = Confirm, s.lo
	}
	if len(s.records) >= s.cfg.MaxTrials {
		s.finish("max-trials", fmt.Sprintf("the search reached %d trials", s.cfg.MaxTrials))
		return Trial{}, false
	}
	if s.vote == nil && t.Stage != Probe {
		s.vote = &vote{stage: t.Stage, rate: t.Rate}
	}
	s.pending = &t
	return t, true
}

// Observe takes the figures of the trial Next returned and judges it.
func (s *Search) Observe(o Observation) Judgement {
	if s.pending == nil {
		panic("capacity: Observe without a pending trial")
	}
	t := *s.pending
	s.pending = nil
	if t.Stage == Probe {
		j := Judgement{Pass: o.Throughput > 0}
		s.records = append(s.records, Record{t, o, j})
		s.closed = o.Throughput
		if o.Throughput <= 0 {
			j.Why = "no operation succeeded"
			s.records[len(s.records)-1].Judgement = j
			s.finish("no operations", "no operation succeeded in the closed-loop probe")
			return j
		}
		s.next = max(o.Throughput/s.cfg.Growth, s.cfg.MinRate)
		return j
	}
	j := Judge(s.cfg, t.Rate, o)
	if j.Pass && j.Trending != "" {
		if !t.Extended {
			j.Pass, j.Extend = false, true
			j.Why = "still trending (" + j.Trending + "): extended once"
			s.records = append(s.records, Record{t, o, j})
			ext := t
			ext.N, ext.Extended = len(s.records)+1, true
			s.pending = &ext
			return j
		}
		j.Pass, j.Unsteady = false, true
		j.Why = "not steady after an extension (" + j.Trending + ")"
	}
	s.count(t, o, &j)
	s.records = append(s.records, Record{t, o, j})
	if j.Decided {
		v := s.vote
		s.vote = nil
		if j.RatePass {
			s.pass(t, v.pass+v.fail == 1 && t.Stage != Confirm)
		} else {
			s.fail(t, v.generator)
		}
	}
	return j
}

// count adds a judged trial to its rate's vote and sets on j whether the
// vote is decided.
func (s *Search) count(t Trial, o Observation, j *Judgement) {
	v := s.vote
	if j.Pass {
		v.pass++
	} else {
		if v.fail == 0 || v.generator != "" {
			v.generator = j.GeneratorLimited
		}
		v.fail++
	}
	n := v.pass + v.fail
	switch {
	case n == 1 && j.Pass && (t.Stage == Confirm || s.clear(o)):
		// A clear pass, or a confirmation of a rate that already passed.
		j.Decided, j.RatePass = true, true
	case n == 1 && !j.Pass && (t.Rate >= s.closed || t.Stage == Above):
		// The closed loop did no more, or the rate above the confirmed
		// one failed, as the bisection said it would: expected failures.
		j.Decided = true
	case v.pass >= 2:
		j.Decided, j.RatePass = true, true
	case v.fail >= 2:
		j.Decided = true
	default:
		j.Again = true
		return
	}
	if n > 1 {
		word := "passed"
		if !j.RatePass {
			word = "failed"
		}
		j.Votes = fmt.Sprintf("the rate %s (%d of %d trials)", word, max(v.pass, v.fail), n)
	}
}

// clear reports whether a passing trial passed with a margin: every SLO
// value under clearShare of its bound, errors under clearShare of their
// limit.
func (s *Search) clear(o Observation) bool {
	for i, slo := range s.cfg.SLOs {
		if i >= len(o.Latency) || !(o.Latency[i] < clearShare*slo.Value) {
			return false
		}
	}
	return s.cfg.MaxErrorShare < 0 || o.ErrorShare <= clearShare*s.cfg.MaxErrorShare
}

// pass takes a rate's passed vote; clear says one clear trial decided it.
func (s *Search) pass(t Trial, clear bool) {
	switch t.Stage {
	case Confirm:
		s.confirmed = true
		if s.cfg.Above < 0 {
			s.finish("slo", "")
		}
		return
	case Above:
		s.finishAbove(true)
		return
	}
	s.passes = append(s.passes, outcome{rate: t.Rate, clear: clear})
	if t.Rate > s.lo {
		s.lo, s.loClear = t.Rate, clear
	}
	if s.hi > 0 && t.Rate >= s.hi {
		// A failed rate passed when judged again: its failure was noise,
		// and the lowest failure above it bounds the bracket.
		s.hi, s.hiGenerator = 0, ""
		for _, f := range s.fails {
			if f.rate > t.Rate && (s.hi == 0 || f.rate < s.hi) {
				s.hi, s.hiGenerator = f.rate, f.generator
			}
		}
	}
	if s.hi == 0 {
		s.next = t.Rate * s.cfg.Growth
	}
}

// fail takes a rate's failed vote; generator is why every failing trial
// of it was generator-limited, or "".
func (s *Search) fail(t Trial, generator string) {
	if t.Stage == Above {
		s.finishAbove(false)
		return
	}
	s.fails = append(s.fails, outcome{rate: t.Rate, generator: generator})
	if t.Stage == Confirm {
		s.confirmations++
		if s.confirmations >= confirmations {
			s.finish("unconfirmed", fmt.Sprintf("%d confirmations failed", s.confirmations))
			return
		}
		// The accepted rate did not hold again: fall back to the highest
		// rate that passed below it, or step down. Judged twice, it is
		// not rechecked.
		s.rechecked = append(s.rechecked, t.Rate)
		s.hi, s.hiGenerator, s.lo, s.loClear = t.Rate, generator, 0, false
		for _, p := range s.passes {
			if p.rate < t.Rate && p.rate > s.lo {
				s.lo, s.loClear = p.rate, p.clear
			}
		}
		if s.lo == 0 {
			s.next = t.Rate / s.cfg.Growth
		}
		return
	}
	if s.hi == 0 || t.Rate <= s.hi {
		s.hi, s.hiGenerator = t.Rate, generator
	}
	if s.lo == 0 {
		s.next = t.Rate / s.cfg.Growth
		if s.next < s.cfg.MinRate {
			s.finish("no passing rate", fmt.Sprintf("no rate down to %.3g ops/s held the SLO", t.Rate))
		}
	}
}

// Stop ends the search early (max-time, interrupted): the verdict is the
// highest passing rate so far, unconfirmed unless its confirmation held
// before (then only the check above is missing).
func (s *Search) Stop(limit string) {
	if s.done == nil {
		s.pending, s.vote = nil, nil
		s.finish(limit, "the search ended ("+limit+") before a confirmed rate")
	}
}

// finish records the verdict: the highest passing rate so far, confirmed
// when its confirmation held. A search that found no passing rate, or
// whose confirmations kept failing, has no rate: absent says why.
func (s *Search) finish(limit, absent string) {
	v := &Verdict{Limit: limit, ClosedLoop: s.closed, LowestFail: s.hi, Rate: s.lo, Confirmed: s.confirmed}
	switch {
	case s.aboveRan:
		v.AboveRate, v.AboveHeld = s.aboveRate(), s.aboveHeld
	case s.confirmed && s.cfg.Above >= 0:
		v.AboveAbsent = "did not run (" + limit + ")"
	}
	switch limit {
	case "unconfirmed", "no passing rate", "no operations":
		v.Rate = 0
	}
	if v.Rate == 0 {
		v.Absent = absent
	}
	if s.hiGenerator != "" && (v.Confirmed || v.Limit == "no passing rate") {
		// What failed above the rate was the client, not the server.
		v.Limit = "generator"
		v.GeneratorLimited = fmt.Sprintf("at %.0f ops/s: %s", s.hi, s.hiGenerator)
	}
	s.done = v
}

// aboveRate is the rate of the check above the confirmed rate.
func (s *Search) aboveRate() float64 { return s.lo * (1 + s.cfg.Above) }

// finishAbove ends a confirmed search on its check above: held says the
// SLO held there too.
func (s *Search) finishAbove(held bool) {
	s.aboveRan, s.aboveHeld = true, held
	s.finish("slo", "")
}

// Done reports whether the search has ended.
func (s *Search) Done() bool { return s.done != nil }

// Verdict returns the end of a finished search (nil before).
func (s *Search) Verdict() *Verdict { return s.done }

// Remaining estimates the trials still to run (for an ETA): near the knee
// most rates are judged on two trials.
func (s *Search) Remaining() int {
	above := 0
	if s.cfg.Above >= 0 {
		above = 1
	}
	switch {
	case s.done != nil:
		return 0
	case s.confirmed:
		return 1
	case len(s.records) == 0:
		return 1 + 2*(2+bisections(s.cfg.Growth, s.cfg.Precision)+1) + above
	case s.lo == 0 || s.hi == 0:
		return 2*(1+bisections(s.cfg.Growth, s.cfg.Precision)+1) + above
	}
	return 2*(bisections(s.hi/s.lo, s.cfg.Precision)+1) + above
}

// bisections is how many halvings bring a bracket of ratio r to p.
func bisections(r, p float64) int {
	if r-1 <= p {
		return 0
	}
	return int(math.Ceil(math.Log2((r - 1) / p)))
}

func formatUS(v float64) string {
	return time.Duration(v * 1e3).Round(time.Microsecond).String()
}

func pct(share float64) string { return fmt.Sprintf("%.3g%%", share*100) }
