package capacity

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Spec is what a search looks for, how surely and how finely.
type Spec struct {
	SLOs []SLO
	// MaxErrorShare is the share of failed operations above which a rate
	// fails (0.001 = 0.1 %); negative: no limit.
	MaxErrorShare float64
	// Confidence is the confidence of each rate's verdict (default 0.95).
	Confidence float64
	// Precision is the relative width the band is narrowed to: the search
	// stops once (lowest failing − highest holding rate) ≤ Precision ×
	// the highest holding rate, or once the rates between are within the
	// noise.
	Precision float64
	// Trial is the measured length of a look (default 10 s); the search
	// lengthens a look when its operations are too few to decide, or when
	// the one before still trended.
	Trial time.Duration
	// MaxLooks bounds the looks at one rate before it is called within the
	// noise (default 2; the confirmation may add one).
	MaxLooks int
	// Growth is the factor of the geometric bracket steps (default 2).
	Growth float64
	// MinRate is the lowest rate tried (default 1 op/s): below it, no
	// rate meets the SLO.
	MinRate float64
	// MaxTrials bounds the search (default 60).
	MaxTrials int
	// NoConfirm skips the confirmation look at the holding edge.
	NoConfirm bool
	// MinWindows is the fewest windows (seconds) a share is decided on
	// (default 10): bursts come every few seconds, and a shorter span may
	// hold none of them. A --quick study lowers it, and says so.
	MinWindows int
}

// Defaults of Config.
const (
	DefaultPrecision  = 0.05
	DefaultConfidence = 0.95
	DefaultTrial      = 10 * time.Second
	DefaultMaxLooks   = 2
	defaultGrowth     = 2
	defaultMaxTrials  = 60
	// maxStretch bounds how much longer than Config.Trial a look is made
	// to gather the operations a decision needs.
	maxStretch = 8
	// shortfall: a rate whose looks issued below (1 − shortfall) × the
	// rate did not sustain it.
	shortfall = 0.05
	// Steady state: a look trends when its last third's throughput is
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
func (c *Spec) Validate() error {
	if len(c.SLOs) == 0 {
		return errors.New("--slo: at least one SLO is needed, e.g. --slo 'p99<5ms'")
	}
	if c.Precision == 0 {
		c.Precision = DefaultPrecision
	}
	if c.Precision < 0.001 || c.Precision >= 1 || math.IsNaN(c.Precision) {
		return fmt.Errorf("--precision %g: want a share between 0.1%% and 100%% (e.g. 5%%)", c.Precision)
	}
	if c.Confidence == 0 {
		c.Confidence = DefaultConfidence
	}
	if !(c.Confidence >= 0.5 && c.Confidence < 1) {
		return fmt.Errorf("--confidence %g: want a share from 50%% to below 100%% (e.g. 95%%)", c.Confidence)
	}
	if c.Trial == 0 {
		c.Trial = DefaultTrial
	}
	if c.Trial < time.Second {
		return fmt.Errorf("--trial %s: want at least 1s (a look is judged on its one-second windows)", c.Trial)
	}
	if c.MaxLooks <= 0 {
		c.MaxLooks = DefaultMaxLooks
	}
	if c.MinWindows <= 0 {
		c.MinWindows = DefaultMinWindows
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
	return nil
}

// lookLevel is the confidence each look at a rate is tested at: up to
// MaxLooks looks and a confirmation share the error the rate may have
// (Bonferroni), so that looking again until a verdict comes does not make
// one likelier than 1 − Confidence by chance.
func (c *Spec) lookLevel() float64 {
	return 1 - (1-c.Confidence)/float64(c.MaxLooks+1)
}

// Stage names a trial's part in the search.
type Stage string

// The stages of a search.
const (
	ClosedLoop Stage = "closed-loop" // how fast at all
	Bracket    Stage = "bracket"     // geometric steps to a holding and a failing rate
	Bisect     Stage = "bisect"      // halving the band to the precision
	Confirm    Stage = "confirm"     // the holding edge once more, on the state the search left
	Rung       Stage = "ladder"      // a sharded search's fixed rate
)

// Step is the next trial to run: at Rate ops/s (0: closed loop) for
// Duration. Look counts the trials at this rate so far, this one included;
// Extended says it is longer than Config.Trial, Why why.
type Step struct {
	N        int
	Stage    Stage
	Rate     float64
	Duration time.Duration
	Look     int
	Extended bool
	Why      string
}

// Window is what one window (a second) of a trial counted: all its
// operations and the failed ones, and per SLO the successful operations it
// counts and how many of them were over the bound (a mean SLO: the sum of
// their latencies, µs).
type Window struct {
	Operations, Errors int64
	SLO                []Tally
}

// Observation is what the caller measured in a trial.
type Observation struct {
	// Throughput counts successful operations per second.
	Throughput float64
	// Issued is the operations issued per second of the trial's schedule
	// (0: unknown, Throughput stands in): an open loop that falls behind
	// leaves operations of its schedule unissued. ScheduledS is the
	// schedule's length (0: unknown).
	Issued     float64
	ScheduledS float64
	ErrorShare float64
	// Latency is, per SLO in order, the trial's own value (µs) of the
	// SLO's metric (response time from the intended start); NaN when
	// absent. Service is the same of the service time (NaN when unknown).
	Latency []float64
	Service []float64
	// Windows are the trial's windows in time order: the evidence the
	// rate is decided on, pooled with its other trials'.
	Windows []Window
	// Early and Late are the first and last third of the trial's windows;
	// nil when the trial was too short to have thirds.
	Early, Late *Third
	// LagP99 is the schedule lag's p99 (µs; 0 when none).
	LagP99 float64
	// ClientCPU is docbench's CPU over the trial as a share of the cores
	// it may use; NaN when it says nothing of the client (an engine inside
	// docbench).
	ClientCPU float64
	// WorkerBusy is the share of the workers' time spent in operations.
	WorkerBusy float64
	// Failed says the trial could not run to its end (the database
	// stopped answering, a worker failed): its rate fails.
	Failed string
	// Ops are the trial's figures per operation type (nil: unknown): they
	// name the operation that breaks an SLO or held the workers.
	Ops []OpFigure
}

// Third is the first or last third of a trial's windows.
type Third struct {
	Throughput float64
	P99        float64 // µs; NaN when none
}

// Decision is a rate's verdict.
type Decision string

// The verdicts of a rate.
const (
	Pending   Decision = ""          // more looks follow
	Holds     Decision = "holds"     // every SLO held with confidence
	Fails     Decision = "fails"     // an SLO failed with confidence, or the rate was not sustained
	Undecided Decision = "undecided" // within the noise after every look allowed
)

// Judgement is a trial's verdict: its own (Pass, Why: the point figures of
// this trial alone, for the reader) and the rate's after it (Decision on
// the pooled evidence of every trial at the rate).
type Judgement struct {
	Pass bool
	// Why says why a trial failed on its own figures, in one line
	// ("p99<5ms: 7.1ms").
	Why string
	// Trending says how a trial's figures still moved; Unsteady is set
	// when that left the rate undecided.
	Trending string
	Unsteady bool
	// GeneratorLimited says why the client set the pace, not the server.
	GeneratorLimited string
	// Decision is the rate's verdict after this trial (Pending: another
	// look follows), Evidence what it rests on, in one line.
	Decision Decision
	Evidence string
	// Criteria are the pooled estimates behind Decision, per SLO (and the
	// errors, when limited).
	Criteria []Criterion
}

// Criterion is one SLO (or the error limit) judged on a rate's pooled
// windows: the share of operations over the bound (a mean: the mean)
// against its Limit.
type Criterion struct {
	Name  string
	Limit float64
	// Kind: "share" (a quantile: the share over the bound), "mean",
	// "errors", or "point" (max, min: judged on the values measured).
	Kind     string
	Estimate Estimate
	Decision Decision
	// TooFew says the operations (MinOps needed) or the windows
	// (MinWindows needed; Windows had) were too few to decide.
	TooFew              bool
	MinOps              int64
	Windows, MinWindows int
}

// Judge judges one open-loop trial at rate against cfg on its own figures
// (its point values: what the reader sees trial by trial).
func Judge(cfg Spec, rate float64, o Observation) Judgement {
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
		behind := fmt.Sprintf("issued %s ops/s, < %.0f%% of the rate: the target fell behind", grouped(issued), (1-shortfall)*100)
		if h := heldBy(o); h != "" {
			behind += " (" + h + ")"
		}
		why = append(why, behind)
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
func trend(cfg Spec, o Observation) string {
	e, l := o.Early, o.Late
	if e == nil || l == nil {
		return ""
	}
	var out []string
	if e.Throughput > 0 && l.Throughput < (1-trendThroughput)*e.Throughput {
		out = append(out, fmt.Sprintf("throughput fell from %s to %s ops/s", grouped(e.Throughput), grouped(l.Throughput)))
	}
	if !math.IsNaN(e.P99) && !math.IsNaN(l.P99) && l.P99 > trendP99*e.P99 && l.P99 > trendFloor*tightest(cfg.SLOs) {
		out = append(out, fmt.Sprintf("p99 rose from %s to %s", formatUS(e.P99), formatUS(l.P99)))
	}
	return strings.Join(out, ", ")
}

// generatorLimited says why the client, not the server, limited a trial,
// or "".
func generatorLimited(cfg Spec, o Observation) string {
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
	Step
	Observation
	Judgement
}

// Band is a search's answer: the highest rate that held with confidence,
// the lowest rate above it that failed with confidence, and the rates
// between that stayed undecided (the target's noise).
type Band struct {
	Holds, Fails float64 // 0: none found
	Undecided    []float64
}

// Verdict is the end of a search.
type Verdict struct {
	// Band's holding edge is the sustainable rate: 0 with Absent saying
	// why.
	Band
	Absent     string
	ClosedLoop float64
	// Confirmed says the holding edge held again in a last look, on the
	// data and server state the search left.
	Confirmed bool
	// Limit: slo (the band is as narrow as the precision), noise (rates
	// in the band stayed undecided), generator, max-time, interrupted, no
	// passing rate, no operations, max-trials (see report.Capacity).
	Limit            string
	GeneratorLimited string
	// FailWhy says why the failing edge failed; Wide why a band wider
	// than 1.5× is that wide ("" when narrower).
	FailWhy, Wide string
	// Rates are the decided rates in ascending order.
	Rates []RateVerdict
}

// RateVerdict is one rate's verdict with the looks behind it.
type RateVerdict struct {
	Rate     float64
	Looks    int
	Decision Decision
	Evidence string
	Criteria []Criterion
	// Generator says why the client limited the failing looks ("" when
	// one of them was not).
	Generator string
}

// rate is the looks at one rate so far.
type rate struct {
	RateVerdict
	obs       []Observation
	trended   bool   // the last look trended and was not yet extended
	confirmed bool   // the confirmation look ran
	server    bool   // a look failed on its own figures without the client limiting it
	unsteady  bool   // left undecided because its figures still trended
	clientGen string // why the client limited its last generator-limited look
	culprit   *Culprit
	why       string // the last failing look's own reason
}

// Search is a capacity search in progress. Call Next for the trial to run,
// Observe with its figures, until Next reports the end; then Verdict.
//
// Each rate is decided on the pooled windows of every trial run at it:
// per SLO, the share of operations over the bound with one-sided
// confidence bounds that account for bursts (Share). A rate holds when
// every upper bound lies under the share the SLO allows, fails when a lower
// bound lies above it (or it was not sustained), and is looked at again
// otherwise, up to MaxLooks, before it is called undecided: within the
// target's noise. A clear rate is decided on its first look; the looks go
// to the rates near the knee. The search brackets geometrically from half
// the closed-loop throughput, bisects the band until it is as narrow as
// the precision (or, once a rate in it stayed undecided, until each edge is
// within twice the precision of the undecided rates), and looks once more
// at the holding edge, on the state the search left.
type Search struct {
	cfg     Spec
	records []Record
	pending *Step
	cur     *rate // the rate being looked at, until its verdict
	rates   []*rate
	done    *Verdict
	closed  float64 // closed-loop throughput
	// culpritFound: an operation breaks the SLO at any rate, whatever
	// else limited the looks.
	culpritFound bool
}

// New starts a search; cfg is validated first.
func New(cfg Spec) (*Search, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Search{cfg: cfg}, nil
}

// Records returns the trials so far.
func (s *Search) Records() []Record { return s.records }

// Next returns the trial to run, or false when the search has ended.
func (s *Search) Next() (Step, bool) {
	if s.done != nil {
		return Step{}, false
	}
	if s.pending != nil {
		return *s.pending, true
	}
	if len(s.records) >= s.cfg.MaxTrials {
		s.finish("max-trials", fmt.Sprintf("the search reached %d trials", s.cfg.MaxTrials))
		return Step{}, false
	}
	t := Step{N: len(s.records) + 1, Duration: s.cfg.Trial, Look: 1}
	switch {
	case len(s.records) == 0:
		t.Stage = ClosedLoop
	case s.cur != nil:
		t.Stage, t.Rate = s.records[len(s.records)-1].Stage, s.cur.Rate
		t.Look = s.cur.Looks + 1
		t.Duration, t.Why = s.lookLength(s.cur)
		t.Extended = t.Duration > s.cfg.Trial
	default:
		stage, r, ok := s.nextRate()
		if !ok {
			return Step{}, false
		}
		t.Stage, t.Rate = stage, r
		if x := s.find(r); x != nil {
			s.cur = x
			t.Look = x.Looks + 1
			t.Duration, t.Why = s.lookLength(x)
			t.Extended = t.Duration > s.cfg.Trial
		} else {
			s.cur = &rate{RateVerdict: RateVerdict{Rate: r}}
			s.rates = append(s.rates, s.cur)
			t.Duration, t.Why = s.lookLength(s.cur)
			t.Extended = t.Duration > s.cfg.Trial
		}
	}
	s.pending = &t
	return t, true
}

// Enough reports whether the windows the pending trial has measured so far
// (in time order), pooled with its rate's earlier trials, already fail the
// rate with confidence: the trial may stop there. A clear failure is
// decided within seconds; a rate holds only on whole looks.
func (s *Search) Enough(partial []Window) bool {
	if s.pending == nil || s.pending.Stage == ClosedLoop || s.cur == nil {
		return false
	}
	obs := append(append([]Observation(nil), s.cur.obs...), Observation{Windows: partial})
	level := s.cfg.lookLevel()
	for i, slo := range s.cfg.SLOs {
		if slo.quantile() == 0 && slo.Metric != "mean" {
			continue // max, min: judged on the whole trial's values
		}
		if judgeSLO(slo, windowsOf(obs, i), nil, i, level, s.cfg.MinWindows).Decision == Fails {
			return true
		}
	}
	return s.cfg.MaxErrorShare >= 0 && judgeErrors(s.cfg.MaxErrorShare, errorWindows(obs), level).Decision == Fails
}

// lookLength is how long the next look at r runs, and why when longer than
// a trial: long enough for the operations a decision needs, or twice as
// long after a look that trended.
func (s *Search) lookLength(r *rate) (time.Duration, string) {
	d, why := s.cfg.Trial, ""
	if r.trended {
		d, why = 2*s.cfg.Trial, "the last look still trended"
	}
	if need := s.needOps(r); need > 0 && r.Rate > 0 {
		secs := 1.25 * float64(need) / r.Rate
		if want := time.Duration(math.Ceil(secs)) * time.Second; want > d {
			d = min(want, maxStretch*s.cfg.Trial)
			why = fmt.Sprintf("%d more operations needed to decide", need)
		}
	}
	if need := s.minOpsFirst(); r.Looks == 0 && need > 0 && r.Rate > 0 {
		// A first look long enough to reach the operations a verdict
		// needs: at a low rate a look of --trial would hold too few.
		secs := 1.25 * float64(need) / r.Rate
		if want := time.Duration(math.Ceil(secs)) * time.Second; want > d {
			d = min(want, maxStretch*s.cfg.Trial)
			why = fmt.Sprintf("%d operations needed to decide at this rate", need)
		}
	}
	return d, why
}

// needOps is how many more operations the rate's most demanding criterion
// needs before it can be decided (0: enough).
func (s *Search) needOps(r *rate) int64 {
	var need int64
	for _, c := range r.Criteria {
		if c.TooFew {
			need = max(need, c.MinOps-c.Estimate.N)
		}
	}
	return need
}

func (s *Search) find(r float64) *rate {
	for _, x := range s.rates {
		if x.Rate == r {
			return x
		}
	}
	return nil
}

// edges are the band so far: the lowest failing rate, the highest holding
// rate below it, and the undecided rates between (ascending). A rate that
// held above a failing one is left out: the band is on the safe side.
func (s *Search) edges() (lo, hi float64, und []float64) {
	for _, r := range s.rates {
		if r.Decision == Fails && (hi == 0 || r.Rate < hi) {
			hi = r.Rate
		}
	}
	for _, r := range s.rates {
		if r.Decision == Holds && r.Rate > lo && (hi == 0 || r.Rate < hi) {
			lo = r.Rate
		}
	}
	for _, r := range s.rates {
		if r.Decision == Undecided && r.Rate > lo && (hi == 0 || r.Rate < hi) {
			und = append(und, r.Rate)
		}
	}
	slices.Sort(und)
	return lo, hi, und
}

// nextRate picks the next rate to look at, or ends the search.
func (s *Search) nextRate() (Stage, float64, bool) {
	lo, hi, und := s.edges()
	switch {
	case len(s.rates) == 0:
		first := max(s.closed/s.cfg.Growth, s.cfg.MinRate)
		if why := s.tooLow(first); why != "" {
			s.finish("no passing rate", why)
			return "", 0, false
		}
		return Bracket, first, true
	case lo == 0:
		// No holding rate yet: step down from the lowest rate tried,
		// unless an operation breaks the SLO whatever the rate.
		if c, at, ok := s.anyRateCulprit(); ok {
			s.culpritFound = true
			s.finish("no passing rate", fmt.Sprintf("an operation breaks the SLO at any rate: %s (at %s and %s ops/s alike: a lower rate does not shorten it)",
				c, trimRate(at[0]), trimRate(at[1])))
			return "", 0, false
		}
		low := s.lowestLooked()
		next := low / s.cfg.Growth
		if next < s.cfg.MinRate {
			s.finish("no passing rate", fmt.Sprintf("no rate down to %.3g ops/s held the SLO with %s confidence", low, pct(s.cfg.Confidence)))
			return "", 0, false
		}
		if why := s.tooLow(next); why != "" {
			s.finish("no passing rate", why)
			return "", 0, false
		}
		return Bracket, next, true
	case hi == 0:
		// No failing rate yet: step up from the highest rate tried.
		high := 0.0
		for _, r := range s.rates {
			high = max(high, r.Rate)
		}
		return Bracket, high * s.cfg.Growth, true
	}
	// Bisect the band to the precision. Once a rate in it stayed
	// undecided, the noise, not the bisection, sets the band's width: only
	// the gap below the undecided rates (the holding edge: the figure a
	// reader takes) is narrowed, to four times the precision.
	gaps, want := [][2]float64{{lo, hi}}, s.cfg.Precision
	if len(und) > 0 {
		gaps, want = [][2]float64{{lo, und[0]}}, 4*s.cfg.Precision
	}
	// A holding edge near the failing one is confirmed before the gap above
	// it is narrowed: when it does not hold again, that narrowing was
	// spent on a band that moves down.
	if r := s.find(lo); !s.cfg.NoConfirm && !r.confirmed && r.Looks <= s.cfg.MaxLooks && hi/lo-1 <= 4*s.cfg.Precision {
		return Confirm, lo, true
	}
	for _, g := range gaps {
		if g[1]/g[0]-1 > want {
			return Bisect, (g[0] + g[1]) / 2, true
		}
	}
	if r := s.find(lo); !s.cfg.NoConfirm && !r.confirmed && r.Looks <= s.cfg.MaxLooks {
		return Confirm, lo, true
	}
	if mid, ok := s.widestGap(lo, hi, und); ok {
		return Bisect, mid, true
	}
	s.finish(s.bandLimit(), "")
	return "", 0, false
}

// widestGap is the middle of the widest gap between the band's edges and
// the undecided rates inside it, while the band is wider than narrowBand
// and the gap wider than four times the precision: the time the search
// has left goes where a verdict narrows the band most.
func (s *Search) widestGap(lo, hi float64, und []float64) (float64, bool) {
	if hi/lo <= narrowBand {
		return 0, false
	}
	pts := append(append([]float64{lo}, und...), hi)
	best, mid := 4*s.cfg.Precision, 0.0
	for i := 1; i < len(pts); i++ {
		if g := pts[i]/pts[i-1] - 1; g > best && s.find((pts[i]+pts[i-1])/2) == nil {
			best, mid = g, (pts[i]+pts[i-1])/2
		}
	}
	return mid, mid > 0
}

// bandLimit names why a finished band is as wide as it is.
func (s *Search) bandLimit() string {
	if _, _, und := s.edges(); len(und) > 0 {
		return "noise"
	}
	return "slo"
}

// Observe takes the figures of the trial Next returned and judges it.
func (s *Search) Observe(o Observation) Judgement {
	if s.pending == nil {
		panic("capacity: Observe without a pending trial")
	}
	t := *s.pending
	s.pending = nil
	if t.Stage == ClosedLoop {
		j := Judgement{Pass: o.Throughput > 0}
		s.closed = o.Throughput
		if o.Throughput <= 0 {
			j.Why = "no operation succeeded"
			s.records = append(s.records, Record{t, o, j})
			s.finish("no operations", "no operation succeeded in the closed-loop probe")
			return j
		}
		s.records = append(s.records, Record{t, o, j})
		return j
	}
	j := Judge(s.cfg, t.Rate, o)
	r := s.cur
	r.obs = append(r.obs, o)
	r.Looks++
	if t.Stage == Confirm {
		r.confirmed = true
	}
	extended := t.Duration > s.cfg.Trial && r.trended
	r.trended = false
	d := s.cfg.decide(r, s.cfg.lookLevel())
	// No look left at this rate: its looks are spent, or this was the
	// confirmation, which looks once — a rate that held and then does not
	// hold again is within the noise.
	last := r.Looks >= s.cfg.MaxLooks+boolInt(r.confirmed) || t.Stage == Confirm
	switch {
	case d != Fails && j.Trending != "" && !extended && !last:
		// A look that still moves cannot show a steady state: look again,
		// twice as long.
		r.trended = true
		d = Pending
		r.Evidence = "still trending (" + j.Trending + "): looked at again, twice as long; " + r.Evidence
	case d != Fails && j.Trending != "":
		// Still moving: whether the rate holds in the steady state is
		// not what these looks can tell.
		d, j.Unsteady = Undecided, true
		r.Evidence = "not steady (" + j.Trending + ") after a look twice as long, or in its last look; " + r.Evidence
	case d == Pending && last:
		d = Undecided
	}
	switch {
	case j.Pass:
	case j.GeneratorLimited == "":
		r.server, r.Generator = true, ""
	case !r.server:
		r.Generator = j.GeneratorLimited
	}
	if !j.Pass {
		r.why = j.Why
		if c, ok := culprit(s.cfg, Observation{Ops: pooledOps(r.obs)}); ok {
			r.culprit = &c
		}
	}
	r.unsteady = r.unsteady || j.Unsteady
	if j.GeneratorLimited != "" {
		r.clientGen = j.GeneratorLimited
	}
	j.Decision, j.Evidence, j.Criteria = d, r.Evidence, r.Criteria
	s.records = append(s.records, Record{t, o, j})
	if d != Pending {
		r.Decision = d
		s.cur = nil
	}
	return j
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// decide judges a rate on the pooled windows of its looks at level,
// setting its criteria and evidence; Pending when another look may decide
// it.
func (cfg *Spec) decide(r *rate, level float64) Decision {
	r.Criteria = r.Criteria[:0]
	var why []string
	// Not sustained: the schedule fell behind, or a look could not run.
	var ops, sched float64
	for _, o := range r.obs {
		if o.Failed != "" {
			r.Evidence = "a look could not run to its end: " + o.Failed
			return Fails
		}
		ops += cmp.Or(o.Issued, o.Throughput) * cmp.Or(o.ScheduledS, 1)
		sched += cmp.Or(o.ScheduledS, 1)
	}
	if issued := ops / sched; issued < (1-shortfall)*r.Rate {
		r.Evidence = fmt.Sprintf("issued %s ops/s, under %.0f%% of the rate: the target fell behind", grouped(issued), (1-shortfall)*100)
		if h := heldBy(r.obs[len(r.obs)-1]); h != "" {
			r.Evidence += " (" + h + ")"
		}
		return Fails
	}
	decided := Holds
	see := func(c Criterion) {
		r.Criteria = append(r.Criteria, c)
		why = append(why, c.String())
		switch {
		case c.Decision == Fails:
			decided = Fails
		case c.Decision != Holds && decided != Fails:
			decided = Pending
		}
	}
	for i, slo := range cfg.SLOs {
		see(judgeSLO(slo, windowsOf(r.obs, i), r.obs, i, level, cfg.MinWindows))
	}
	if cfg.MaxErrorShare >= 0 {
		see(judgeErrors(cfg.MaxErrorShare, errorWindows(r.obs), level))
	}
	r.Evidence = strings.Join(why, "; ")
	return decided
}

// windowsOf are SLO i's tallies, look by look.
func windowsOf(obs []Observation, i int) [][]Tally {
	out := make([][]Tally, len(obs))
	for k, o := range obs {
		for _, w := range o.Windows {
			if i < len(w.SLO) {
				out[k] = append(out[k], w.SLO[i])
			}
		}
	}
	return out
}

// errorWindows are the failed operations among all, look by look.
func errorWindows(obs []Observation) [][]Tally {
	out := make([][]Tally, len(obs))
	for k, o := range obs {
		for _, w := range o.Windows {
			out[k] = append(out[k], Tally{N: w.Operations, Over: float64(w.Errors)})
		}
	}
	return out
}

// judgeSLO decides one SLO on a rate's pooled windows at level.
func judgeSLO(slo SLO, ws [][]Tally, obs []Observation, i int, level float64, minWindows int) Criterion {
	c := Criterion{Name: slo.Text}
	switch q := slo.quantile(); {
	case q > 0:
		c.Kind, c.Limit = "share", (100-q)/100
		c.Estimate = Share(ws, level)
		c.MinOps, c.Windows, c.MinWindows = MinOperations(c.Limit, level), windows(ws), minWindows
		switch {
		case c.Estimate.N < c.MinOps:
			c.TooFew = true
		case c.Estimate.Lo > c.Limit:
			// A burst the windows did not hold would only add to the
			// share: a failure needs no minimum span.
			c.Decision = Fails
		case c.Windows < minWindows:
			c.TooFew = true
		case c.Estimate.Hi < c.Limit:
			c.Decision = Holds
		}
	case slo.Metric == "mean":
		c.Kind, c.Limit = "mean", slo.Bound
		c.Estimate = Mean(ws, level)
		c.MinOps = 100
		switch {
		case c.Estimate.N < c.MinOps:
			c.TooFew = true
		case c.Estimate.Hi < c.Limit || slo.Inclusive && c.Estimate.Hi == c.Limit:
			c.Decision = Holds
		case c.Estimate.Lo > c.Limit:
			c.Decision = Fails
		}
	default:
		// max, min: a statement about the values measured, not a share: it
		// holds when every look's value does.
		c.Kind, c.Limit = "point", slo.Bound
		n, _ := total(ws)
		c.Estimate = Estimate{N: n, Level: level, Design: 1}
		c.Decision = Holds
		for _, o := range obs {
			v := math.NaN()
			if i < len(o.Latency) {
				v = o.Latency[i]
			}
			c.Estimate.Value = max(c.Estimate.Value, v)
			if !slo.holds(v) {
				c.Decision = Fails
			}
		}
	}
	return c
}

// DefaultMinWindows is the default of Config.MinWindows.
const DefaultMinWindows = 10

func windows(ws [][]Tally) int {
	n := 0
	for _, w := range ws {
		n += len(w)
	}
	return n
}

// judgeErrors decides the error limit: a rate fails when the share of
// failed operations lies above the limit with confidence; with none failed
// it holds.
func judgeErrors(limit float64, ws [][]Tally, level float64) Criterion {
	c := Criterion{Name: "errors ≤ " + pct(limit), Kind: "errors", Limit: limit, Estimate: Share(ws, level), MinOps: 100}
	switch {
	case c.Estimate.Over == 0:
		c.Decision = Holds
	case limit < 1e-9:
		c.Decision = Fails // any failure fails
	case c.Estimate.N < c.MinOps:
		c.TooFew = true
	case c.Estimate.Hi <= limit:
		c.Decision = Holds
	case c.Estimate.Lo > limit:
		c.Decision = Fails
	}
	return c
}

// String says a criterion's estimate and verdict in a few words:
// "p99<5ms: 0.42% over (0.11–0.93%) < 1%: holds".
func (c Criterion) String() string {
	e := c.Estimate
	verdict := string(c.Decision)
	if c.Decision == Pending {
		verdict = "undecided"
	}
	switch {
	case c.TooFew && e.N < c.MinOps:
		return fmt.Sprintf("%s: %d operations, too few to decide (%d needed)", c.Name, e.N, c.MinOps)
	case c.TooFew:
		return fmt.Sprintf("%s: %d windows, too few to decide (%d needed)", c.Name, c.Windows, c.MinWindows)
	}
	switch c.Kind {
	case "share", "errors":
		what := "over"
		if c.Kind == "errors" {
			what = "failed"
		}
		return fmt.Sprintf("%s: %s %s of %d (%s–%s at %s) vs %s: %s", c.Name, pct(e.Value), what, e.N, pct(e.Lo), pct(e.Hi),
			pct(e.Level), pct(c.Limit), verdict)
	case "mean":
		return fmt.Sprintf("%s: mean %s (%s–%s at %s): %s", c.Name, formatUS(e.Value), formatUS(e.Lo), formatUS(e.Hi), pct(e.Level), verdict)
	}
	return fmt.Sprintf("%s: %s measured: %s", c.Name, formatUS(e.Value), verdict)
}

// Stop ends the search early (max-time, interrupted): the band is what the
// decided rates give so far.
func (s *Search) Stop(limit string) {
	if s.done == nil {
		s.pending, s.cur = nil, nil
		s.finish(limit, "the search ended ("+limit+") before any rate held the SLO with confidence")
	}
}

// finish records the verdict: the band of the decided rates. A search
// that found no holding rate has no rate: absent says why.
func (s *Search) finish(limit, absent string) {
	lo, hi, und := s.edges()
	v := &Verdict{Band: Band{Holds: lo, Fails: hi, Undecided: und}, Limit: limit, ClosedLoop: s.closed}
	if r := s.find(lo); r != nil && r.confirmed && r.Decision == Holds {
		v.Confirmed = true
	}
	if v.Holds == 0 {
		v.Absent = s.absentWhy(limit, absent, hi)
	}
	if r := s.find(hi); r != nil {
		v.FailWhy = r.failWhy()
	}
	v.Wide = s.wideWhy(lo, hi, und)
	if r := s.find(hi); r != nil && r.Generator != "" && !s.culpritFound && (v.Holds > 0 || limit == "no passing rate") {
		// What failed above the rate was the client, not the server.
		v.Limit = "generator"
		v.GeneratorLimited = fmt.Sprintf("at %s ops/s: %s", grouped(hi), r.Generator)
	}
	for _, r := range s.rates {
		if r.Decision != Pending {
			v.Rates = append(v.Rates, r.RateVerdict)
		}
	}
	slices.SortFunc(v.Rates, func(a, b RateVerdict) int { return cmp.Compare(a.Rate, b.Rate) })
	s.done = v
}

// absentWhy says in one line why no rate held: the client was the limit
// (with the fix), an operation breaks the SLO, or the evidence was too
// thin; then the rates left undecided and why.
func (s *Search) absentWhy(limit, absent string, hi float64) string {
	if absent == "" {
		absent = "no rate held the SLO with confidence"
	}
	if r := s.find(hi); s.culpritFound {
		// the operation, not the client's lag, is the answer
	} else if r != nil && r.Generator != "" {
		absent = fmt.Sprintf("the client was the limit, not the server: at %s ops/s %s%s; %s", trimRate(hi), r.Generator, generatorFix(r.Generator), absent)
	} else if r != nil && r.culprit != nil && !strings.Contains(absent, r.culprit.Op) {
		absent = fmt.Sprintf("at %s ops/s %s; %s", trimRate(hi), r.culprit, absent)
	} else if rates, gen := s.clientLimitedUndecided(); gen != "" {
		absent = fmt.Sprintf("the client limited the looks at %s ops/s (%s)%s; %s", strings.Join(rates, ", "), gen, generatorFix(gen), absent)
	}
	if und := s.undecided(); len(und) > 0 {
		absent += fmt.Sprintf("; %s within this target's noise", rateList(und))
		if thin := s.thinRates(); len(thin) > 0 {
			absent += fmt.Sprintf(" (too few operations to decide at %s ops/s)", strings.Join(thin, ", "))
		}
	}
	return absent
}

// clientLimitedUndecided are the undecided rates with a look the client
// limited, and why it limited the first of them.
func (s *Search) clientLimitedUndecided() ([]string, string) {
	var rs []float64
	gen := ""
	for _, r := range s.rates {
		if r.Decision == Undecided && r.clientGen != "" {
			rs = append(rs, r.Rate)
			gen = cmp.Or(gen, r.clientGen)
		}
	}
	slices.Sort(rs)
	var out []string
	for _, r := range rs {
		out = append(out, trimRate(r))
	}
	return out, gen
}

// generatorFix is what to do about a client that limited a search.
func generatorFix(gen string) string {
	if strings.Contains(gen, "--threads") {
		return ""
	}
	return " — docbench could not keep its schedule: run it where it has spare cores (fewer jobs beside it, or another machine)"
}

// thinRates are the undecided rates whose operations were too few.
func (s *Search) thinRates() []string {
	var out []string
	for _, r := range s.rates {
		if r.Decision != Undecided {
			continue
		}
		for _, c := range r.Criteria {
			if c.TooFew {
				out = append(out, trimRate(r.Rate))
				break
			}
		}
	}
	return out
}

// failWhy says why a failing rate failed, in a few words: the client, the
// operation that broke the SLO, or its last failing look's figures.
func (r *rate) failWhy() string {
	switch {
	case r.Decision != Fails:
		return ""
	case r.culprit != nil:
		return r.culprit.String()
	case r.Generator != "":
		return "the client was the limit: " + r.Generator
	case r.why != "":
		return r.why
	}
	return r.Evidence
}

func (s *Search) undecided() []float64 {
	var out []float64
	for _, r := range s.rates {
		if r.Decision == Undecided {
			out = append(out, r.Rate)
		}
	}
	slices.Sort(out)
	return out
}

// rateList says rates in words: "4,000 and 6,000 ops/s were".
func rateList(rs []float64) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, trimRate(r))
	}
	if len(parts) == 1 {
		return parts[0] + " ops/s was"
	}
	return strings.Join(parts, ", ") + " ops/s were"
}

// grouped is v rounded to a whole number with its thousands grouped
// ("9,668"), as the reports print rates.
func grouped(v float64) string {
	d := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	neg := strings.HasPrefix(d, "-")
	d = strings.TrimPrefix(d, "-")
	for i := len(d) - 3; i > 0; i -= 3 {
		d = d[:i] + "," + d[i:]
	}
	if neg {
		d = "-" + d
	}
	return d
}

// Done reports whether the search has ended.
func (s *Search) Done() bool { return s.done != nil }

// Verdict returns the end of a finished search (nil before).
func (s *Search) Verdict() *Verdict { return s.done }

// Remaining estimates the trials still to run (for an ETA): near the knee
// a rate takes two looks on average.
func (s *Search) Remaining() int {
	if s.done != nil {
		return 0
	}
	confirm := 1
	if s.cfg.NoConfirm {
		confirm = 0
	}
	lo, hi, _ := s.edges()
	switch {
	case len(s.records) == 0:
		return 1 + 2 + 2*bisections(s.cfg.Growth, s.cfg.Precision) + confirm
	case lo == 0 && hi > 0:
		// Stepping down: one step more, or as many as remain to the
		// lowest rate worth a look, then the band between.
		steps := 1
		for r := s.lowestLooked() / s.cfg.Growth; steps < 3 && r >= s.cfg.MinRate && s.tooLow(r) == ""; r /= s.cfg.Growth {
			steps++
		}
		if s.tooLow(s.lowestLooked()/s.cfg.Growth) != "" {
			return 0
		}
		return steps + 2*bisections(s.cfg.Growth, s.cfg.Precision) + confirm
	case lo == 0 || hi == 0:
		return 1 + 2*bisections(s.cfg.Growth, s.cfg.Precision) + confirm
	}
	return 2*bisections(hi/lo, s.cfg.Precision) + confirm
}

// bisections is how many halvings bring a band of ratio r to p.
func bisections(r, p float64) int {
	if r-1 <= p {
		return 0
	}
	return int(math.Ceil(math.Log2((r - 1) / p)))
}

func formatUS(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "-"
	}
	return time.Duration(v * 1e3).Round(time.Microsecond).String()
}

func pct(share float64) string { return fmt.Sprintf("%.3g%%", share*100) }
