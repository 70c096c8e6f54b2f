package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/docbench/docbench/internal/measure"
)

// Capacity is what `docbench capacity` found: a band of rates — the
// highest that held every SLO with confidence, the lowest above it that
// failed with confidence, and the undecided ones between — and the trials
// behind it (docs/capacity.md). A capacity result is a Result whose phase
// is "capacity"; its top-level figures are those of the last trial at the
// sustainable rate, or of the last trial run.
type Capacity struct {
	SLO []string `json:"slo"`
	// Bounds are the SLOs' bounds in µs, in order.
	Bounds        []float64 `json:"slo_bounds_us"`
	MaxErrorShare float64   `json:"max_error_share"`
	Precision     float64   `json:"precision"`
	// Confidence is the confidence of each rate's verdict (0.95);
	// MinWindows the fewest one-second windows a rate was decided on.
	Confidence float64 `json:"confidence"`
	MinWindows int     `json:"min_windows,omitempty"`
	// Ladder is set on a sharded search: the fixed rates (over all
	// shards) every shard ran, in order.
	Ladder []float64 `json:"ladder_ops_per_sec,omitempty"`
	// ClosedLoop is the throughput of the closed-loop probe.
	ClosedLoop float64 `json:"closed_loop_ops_per_sec,omitempty"`
	// Rate is the sustainable rate (ops/s over all shards): the band's
	// holding edge; absent (0) with Absent saying why.
	Rate   float64 `json:"sustainable_ops_per_sec,omitempty"`
	Absent string  `json:"absent,omitempty"`
	// LowestFail is the band's failing edge: the lowest rate above Rate
	// that failed with confidence.
	LowestFail float64 `json:"lowest_failing_ops_per_sec,omitempty"`
	// Band is the answer: Rate, LowestFail and the undecided rates between.
	Band *CapacityBand `json:"band,omitempty"`
	// Confirmed: a last look at Rate, on the state the search left, held
	// the SLO again (pooled with the looks before it).
	Confirmed bool `json:"confirmed"`
	// Limit names what ended the search: "slo" (the band is as narrow as
	// the precision), "noise" (rates in the band stayed undecided: the
	// band is as narrow as this target's noise allows), "generator" (the
	// client could not drive more), "max-time", "interrupted", "no
	// passing rate", "no operations", "max-trials", "ladder top" (a
	// sharded search whose every rung held), "shard" (a shard's part,
	// judged by merge).
	Limit string `json:"limit"`
	// GeneratorLimited says why the search could not tell the server's
	// ceiling: the client was the bottleneck at the failing edge.
	GeneratorLimited string `json:"generator_limited,omitempty"`
	// FailWhy says why the failing edge failed (the client, the operation
	// that broke the SLO, or its figures); Wide why a band wider than 1.5×
	// is that wide: the rates left undecided and their slow windows.
	FailWhy string `json:"fail_why,omitempty"`
	Wide    string `json:"wide,omitempty"`
	// Rates are the decided rates, ascending, with the pooled evidence
	// of their trials.
	Rates  []CapacityRate `json:"rates,omitempty"`
	Trials []Trial        `json:"trials"`
}

// CapacityBand is a capacity search's answer as a band of rates.
type CapacityBand struct {
	Holds     float64   `json:"holds_ops_per_sec,omitempty"`
	Fails     float64   `json:"fails_ops_per_sec,omitempty"`
	Undecided []float64 `json:"undecided_ops_per_sec,omitempty"`
}

// CapacityRate is one rate's verdict on the pooled windows of its trials.
type CapacityRate struct {
	Rate     float64             `json:"target_ops_per_sec"`
	Trials   int                 `json:"trials"`
	Decision string              `json:"decision"` // holds, fails, undecided
	Evidence string              `json:"evidence"`
	Criteria []CapacityCriterion `json:"criteria,omitempty"`
}

// CapacityCriterion is one SLO (or the error limit) judged on a rate's
// pooled windows: the share of operations over the bound (a mean SLO: the
// mean, µs) with its one-sided confidence bounds, and what they rest on.
type CapacityCriterion struct {
	Name  string  `json:"name"`
	Kind  string  `json:"kind"` // share, mean, errors, point
	Limit float64 `json:"limit"`
	// Operations counted, Over them over the bound (a mean: the sum of
	// latencies, µs); Value the share (or mean), Lo and Hi its bounds at
	// Level.
	Operations int64   `json:"operations"`
	Over       float64 `json:"over"`
	Value      float64 `json:"value"`
	Lo         float64 `json:"lo"`
	// Hi is absent when unbounded (a mean on fewer than two batches).
	Hi    *float64 `json:"hi,omitempty"`
	Level float64  `json:"level"`
	// Batches of BatchWindows consecutive windows are the independent
	// samples; Lag1 their remaining autocorrelation; Design the variance
	// over the binomial's (how much the bursts widened the interval).
	Batches      int     `json:"batches"`
	BatchWindows int     `json:"batch_windows"`
	Lag1         float64 `json:"lag1"`
	Design       float64 `json:"design_effect"`
	Decision     string  `json:"decision"`
	// MinOperations is the fewest operations the criterion decides on;
	// TooFew says the rate had fewer.
	MinOperations int64 `json:"min_operations,omitempty"`
	TooFew        bool  `json:"too_few,omitempty"`
}

// Trial is one fixed-rate trial of a capacity search, after its own
// warm-up. Latency is response time from the intended start (service time
// for the closed-loop probe).
type Trial struct {
	N     int    `json:"n"`
	Stage string `json:"stage"` // closed-loop ("probe" in older results), bracket, bisect, confirm, ladder
	// Rate is the target rate over all shards (a shard ran Rate/N);
	// 0 for the closed-loop probe.
	Rate float64 `json:"target_ops_per_sec"`
	// Look counts the trials at this rate, this one included; Extended
	// says it ran longer than --trial, Extension why.
	Look      int    `json:"look,omitempty"`
	Extended  bool   `json:"extended,omitempty"`
	Extension string `json:"extension,omitempty"`
	// EndedEarly says the trial stopped before its length: its rate had
	// failed with confidence already (its scheduled_s is then as long as
	// it ran).
	EndedEarly bool      `json:"ended_early,omitempty"`
	Start      time.Time `json:"start"`
	DurationS  float64   `json:"duration_s"`
	// ScheduledS is the length the trial was asked to run: its schedule
	// issues Rate × ScheduledS operations when the target keeps up.
	ScheduledS float64 `json:"scheduled_s,omitempty"`
	WarmupS    float64 `json:"warmup_s"`
	Threads    int     `json:"threads"`
	Operations int64   `json:"operations"`
	Errors     int64   `json:"errors"`
	ErrorShare float64 `json:"error_share"`
	Throughput float64 `json:"throughput_ops_per_sec"`
	Ops        []Op    `json:"ops"`
	// Windows are the trial's one-second windows: the evidence its rate
	// is decided on (a shard's too: the merge adds them second by second).
	Windows []Window `json:"windows,omitempty"`
	// Early and Late are the first and last third of the trial's
	// one-second windows, all operations merged: the steady-state check.
	Early *Segment `json:"early,omitempty"`
	Late  *Segment `json:"late,omitempty"`
	// ScheduleLag, ClientCPUShare (docbench's CPU over the trial, as a
	// share of the cores it may use; absent for an engine inside
	// docbench) and WorkerBusy (the share of the workers' time spent in
	// operations) tell a generator-limited trial.
	ScheduleLag    *ScheduleLag `json:"schedule_lag,omitempty"`
	ClientCPUShare *float64     `json:"client_cpu_share,omitempty"`
	WorkerBusy     float64      `json:"worker_busy"`
	// SLO is each SLO evaluated on the trial alone; set where the trial
	// is judged (not on a shard's part).
	SLO []ThresholdResult `json:"slo,omitempty"`
	// Pass and Verdict are the trial's own figures against the SLO
	// ("pass" or why not): what the reader sees trial by trial. The rate
	// is decided on the pooled windows of all its trials: Decision is its
	// verdict after this trial ("" while more looks follow), Evidence what
	// it rests on.
	Pass     bool   `json:"pass"`
	Verdict  string `json:"verdict,omitempty"`
	Decision string `json:"decision,omitempty"`
	Evidence string `json:"evidence,omitempty"`
	// Unsteady says how a trial's throughput or p99 still trended;
	// GeneratorLimited why the client, not the server, set its pace.
	Unsteady         string `json:"unsteady,omitempty"`
	GeneratorLimited string `json:"generator_limited,omitempty"`
	Error            string `json:"error,omitempty"`
}

// Window is one second of a capacity trial: all its operations, the
// failed ones, and per SLO the operations it counts and how many were over
// the bound (a mean SLO: the sum of their latencies, µs).
type Window struct {
	Operations int64         `json:"ops"`
	Errors     int64         `json:"errors,omitempty"`
	SLO        []WindowTally `json:"slo"`
}

// WindowTally is one SLO's count in a window.
type WindowTally struct {
	N    int64   `json:"n"`
	Over float64 `json:"over"`
}

// Segment is a part of a trial: its successful throughput and the merged
// latency histogram of all its operations.
type Segment struct {
	Operations int64   `json:"operations"`
	Throughput float64 `json:"throughput_ops_per_sec"`
	P99        float64 `json:"p99_us"`
	Histogram  string  `json:"hdr,omitempty"`
}

// NewSegment summarises a segment of n successful operations over secs
// seconds with latency histogram h (nil: none).
func NewSegment(h *hdr.Histogram, n int64, secs float64) *Segment {
	s := &Segment{Operations: n}
	if secs > 0 {
		s.Throughput = float64(n) / secs
	}
	if h != nil && h.TotalCount() > 0 {
		s.P99 = us(h.ValueAtQuantile(99))
		s.Histogram = EncodeHistogram(h)
	}
	return s
}

// TrialOf reads a trial off the result of one run phase whose series
// carry each second's histograms (the engine keeps them).
func TrialOf(r *Result) Trial {
	t := Trial{Rate: r.Options.TargetRate, Start: r.Start, DurationS: r.RuntimeMS / 1e3, ScheduledS: r.Options.DurationS, WarmupS: r.Options.WarmupS,
		Threads: r.Options.Threads, Operations: r.Operations, Errors: r.Errors, ErrorShare: r.ErrorShare,
		Throughput: r.Throughput, Ops: r.Ops, ScheduleLag: r.ScheduleLag, Error: r.Error}
	t.Early, t.Late = thirds(r.Series)
	var busy float64 // seconds the workers spent in successful operations
	for _, op := range r.Ops {
		if op.Service != nil {
			busy += op.Service.Mean / 1e6 * float64(op.Count-op.Errors)
		}
	}
	if t.DurationS > 0 && t.Threads > 0 {
		t.WorkerBusy = busy / (t.DurationS * float64(t.Threads))
	}
	return t
}

// thirds merges the first and the last third of a series' whole seconds
// (all operations together; the short last interval, which holds the
// drain after the schedule ended, is left out); nil when the series is too
// short to have thirds.
func thirds(series []Second) (early, late *Segment) {
	for len(series) > 1 && series[len(series)-1].T-series[len(series)-2].T < 0.9 {
		series = series[:len(series)-1]
	}
	n := len(series) / 3
	if n == 0 {
		return nil, nil
	}
	seg := func(pts []Second, from float64) *Segment {
		h := measure.NewHistogram()
		var ops int64
		for _, p := range pts {
			for _, op := range p.Ops {
				ops += op.Count - op.Errors
				if op.Histogram == "" {
					continue
				}
				if x, err := DecodeHistogram(op.Histogram); err == nil {
					h.Merge(x)
				}
			}
		}
		return NewSegment(h, ops, pts[len(pts)-1].T-from)
	}
	lastFrom := series[len(series)-n-1].T
	return seg(series[:n], 0), seg(series[len(series)-n:], lastFrom)
}

// WriteCapacityText prints a capacity result: the band first, the
// evidence at its edges, then the trials and the curve of latency against
// throughput, trial by trial.
func WriteCapacityText(w io.Writer, r *Result) error {
	c := r.Capacity
	if c == nil {
		return WriteText(w, r)
	}
	var b bytes.Buffer
	ew := &b
	errs := "errors ≤ " + percent(c.MaxErrorShare)
	if c.MaxErrorShare < 0 {
		errs = "no error limit"
	}
	fmt.Fprintf(ew, "%s\n", CapacityLine(c))
	fmt.Fprintf(ew, "docbench capacity · %s · %s · SLO %s, %s\n", r.Target.Target, strings.Join(r.Workload.Files, " "),
		strings.Join(c.SLO, ", "), errs)
	if c.GeneratorLimited != "" {
		fmt.Fprintf(ew, "generator-limited: %s — a limit of docbench's machine, not the server's ceiling\n", c.GeneratorLimited)
	}
	if c.Wide != "" {
		fmt.Fprintf(ew, "%s\n", c.Wide)
	}
	if c.Rate > 0 && c.FailWhy != "" {
		fmt.Fprintf(ew, "at %s ops/s: %s\n", formatNumber(c.LowestFail), c.FailWhy)
	}
	if c.ClosedLoop > 0 {
		fmt.Fprintf(ew, "closed-loop throughput: %s ops/s (the probe; no latency bound)\n", formatNumber(c.ClosedLoop))
	}
	if len(c.Rates) > 0 {
		fmt.Fprintf(ew, "\nrates, each decided at %s confidence on the pooled windows of its trials (bounds at the per-look level; docs/capacity.md):\n", confidenceText(c))
		for _, x := range c.Rates {
			fmt.Fprintf(ew, "  %14s ops/s  %-9s  %-9s  %s\n", formatNumber(x.Rate), x.Decision, plural(x.Trials, "trial", "trials"), x.Evidence)
		}
	}
	fmt.Fprintf(ew, "\n%-3s %-8s %14s %14s %10s %8s  %s\n", "#", "stage", "target ops/s", "achieved", "p99", "errors", "this trial · the rate after it")
	for _, t := range c.Trials {
		target := "closed loop"
		if t.Rate > 0 {
			target = formatNumber(t.Rate)
		}
		fmt.Fprintf(ew, "%-3d %-8s %14s %14s %10s %8s  %s\n", t.N, t.Stage, target, formatNumber(t.Throughput),
			trialP99(&t), percent(t.ErrorShare), trialVerdict(&t))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(ew, "note: %s\n", n)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// confidenceText is the confidence of a search's verdicts ("95%").
func confidenceText(c *Capacity) string {
	if c.Confidence == 0 {
		return "95%"
	}
	return percent(c.Confidence)
}

// CapacityLine states a capacity search's answer in one line, with every
// caveat in words: "holds 9,700 ops/s at p99<5ms (95% confidence); fails
// at 10,700; 9,700–10,700 is within this target's noise".
func CapacityLine(c *Capacity) string {
	slo := strings.Join(c.SLO, ", ")
	if c.Rate == 0 {
		s := fmt.Sprintf("no rate holds %s with %s confidence — %s", slo, confidenceText(c), c.Absent)
		if c.LowestFail > 0 && !strings.Contains(c.Absent, formatNumber(c.LowestFail)+" ops/s") {
			s += fmt.Sprintf("; %s ops/s failed", formatNumber(c.LowestFail))
			if c.FailWhy != "" {
				s += " (" + c.FailWhy + ")"
			}
		}
		return s
	}
	s := fmt.Sprintf("holds %s ops/s at %s (%s confidence)", formatNumber(c.Rate), slo, confidenceText(c))
	var und []float64
	if c.Band != nil {
		und = c.Band.Undecided
	}
	switch {
	case c.LowestFail > 0 && len(und) > 0 && c.Limit == "noise":
		// The search narrowed the band as far as the noise let it.
		s += fmt.Sprintf("; fails at %s; %s–%s is within this target's noise (%s undecided)", formatNumber(c.LowestFail),
			formatNumber(c.Rate), formatNumber(c.LowestFail), numberList(und))
	case c.LowestFail > 0 && len(und) > 0:
		s += fmt.Sprintf("; fails at %s; between them %s undecided", formatNumber(c.LowestFail), numberList(und))
	case c.LowestFail > 0 && c.Limit == "slo" && c.Precision > 0:
		s += fmt.Sprintf("; fails at %s (%+.1f%%: the band is as narrow as the %s precision asked)", formatNumber(c.LowestFail),
			(c.LowestFail/c.Rate-1)*100, percent(c.Precision))
	case c.LowestFail > 0:
		s += fmt.Sprintf("; fails at %s (%+.1f%%)", formatNumber(c.LowestFail), (c.LowestFail/c.Rate-1)*100)
	case len(und) > 0:
		s += fmt.Sprintf("; no higher rate failed with confidence (%s undecided)", numberList(und))
	case c.Limit == "ladder top":
		s += "; the top of the ladder: no rung failed"
	default:
		s += "; no higher rate failed with confidence"
	}
	if c.GeneratorLimited != "" {
		s += "; generator-limited: a lower bound of the server's capacity"
	}
	switch {
	case len(c.Ladder) > 0:
		s += "; a sharded search's ladder, one trial per rung"
	case c.Confirmed:
		s += "; confirmed by a last look"
	case c.Limit == "slo" || c.Limit == "noise" || c.Limit == "generator":
		s += "; not confirmed by a last look"
	default:
		s += "; not confirmed (" + c.Limit + ")"
	}
	return s
}

// numberList prints rates: "9,900, 10,200".
func numberList(vs []float64) string {
	var parts []string
	for _, v := range vs {
		parts = append(parts, formatNumber(v))
	}
	return strings.Join(parts, ", ")
}

// trialP99 is a trial's p99 over all operations (response time from the
// intended start, service time in the closed loop).
func trialP99(t *Trial) string {
	h := measure.NewHistogram()
	for _, op := range t.Ops {
		l := op.Response
		if l == nil {
			l = op.Service
		}
		if l == nil || l.Histogram == "" {
			continue
		}
		if x, err := DecodeHistogram(l.Histogram); err == nil {
			h.Merge(x)
		}
	}
	if h.TotalCount() == 0 {
		return "-"
	}
	return time.Duration(h.ValueAtQuantile(99)).Round(time.Microsecond).String()
}

func trialVerdict(t *Trial) string {
	v := t.Verdict
	if v == "" {
		v = "-"
	}
	if t.GeneratorLimited != "" {
		v += " [generator-limited: " + t.GeneratorLimited + "]"
	}
	if t.EndedEarly {
		v += " (ended early: the rate had failed)"
	}
	if t.Extended {
		v += " (extended"
		if t.Extension != "" {
			v += ": " + t.Extension
		}
		v += ")"
	}
	switch {
	case t.Stage == "closed-loop" || t.Stage == "probe" || t.Stage == "ladder" && t.Decision == "":
	case t.Decision == "":
		v += " · the rate: looked at again"
	default:
		v += " · the rate " + t.Decision
	}
	return v
}

// CapacityReport is the HTML report of a capacity result: the latency of
// each SLO against the rate offered (the "hockey stick"), the SLO bounds,
// and the sustainable rate marked.
func CapacityReport(r *Result) *StudyReport {
	c := r.Capacity
	rep := &StudyReport{Name: "capacity", Title: "Capacity of " + r.Target.Target + " at " + strings.Join(c.SLO, ", "),
		Generated: r.End, Rounds: 1, Environment: r.Environment,
		Targets: []TargetInfo{{Name: r.Target.Target, Target: r.Target.Target, Backend: r.Target.Backend, Version: r.Target.Version,
			Settings: r.Target.Settings, Layout: r.Target.Layout}}}
	rep.Notes = append(rep.Notes, CapacityLine(c))
	if c.GeneratorLimited != "" {
		rep.Notes = append(rep.Notes, "generator-limited: "+c.GeneratorLimited)
	}
	if c.Wide != "" {
		rep.Notes = append(rep.Notes, c.Wide)
	}
	ch := Chart{Title: "Latency vs rate offered", XLabel: "rate offered (ops/s, open loop)", YLabel: "latency (ms, from the intended start)", Kind: "line", YLog: true}
	lo, hi := math.Inf(1), 0.0
	var trials []Trial
	for _, t := range c.Trials {
		if t.Rate > 0 && len(t.SLO) > 0 {
			trials = append(trials, t)
		}
	}
	sort.SliceStable(trials, func(i, j int) bool { return trials[i].Rate < trials[j].Rate })
	for i, slo := range c.SLO {
		s := Series{Name: slo}
		for _, t := range trials {
			if i >= len(t.SLO) || t.SLO[i].Absent != "" {
				continue
			}
			y := t.SLO[i].Value / 1e3
			s.Points = append(s.Points, ChartPoint{X: t.Rate, XLabel: formatNumber(t.Rate), Y: y, Min: y, Max: y})
			lo, hi = min(lo, y), max(hi, y)
		}
		ch.Series = append(ch.Series, s)
	}
	if len(trials) > 0 && hi > 0 {
		x0, x1 := trials[0].Rate, trials[len(trials)-1].Rate
		for i, b := range c.Bounds {
			b /= 1e3
			lo, hi = min(lo, b), max(hi, b)
			ch.Series = append(ch.Series, Series{Name: "bound " + c.SLO[i], Points: []ChartPoint{
				{X: x0, Y: b, Min: b, Max: b}, {X: x1, Y: b, Min: b, Max: b}}})
		}
		if c.Rate > 0 {
			ch.Series = append(ch.Series, Series{Name: "holds " + formatNumber(c.Rate) + " ops/s", Points: []ChartPoint{
				{X: c.Rate, Y: lo, Min: lo, Max: lo}, {X: c.Rate, Y: hi, Min: hi, Max: hi}}})
		}
		if c.Rate > 0 && c.LowestFail > c.Rate {
			label := "band " + formatNumber(c.Rate) + "–" + formatNumber(c.LowestFail) + " ops/s"
			if c.Band != nil && len(c.Band.Undecided) > 0 {
				label += " (within the noise)"
			}
			ch.Shades = append(ch.Shades, Shade{Lo: c.Rate, Hi: c.LowestFail, Label: label})
		}
		rep.Charts = append(rep.Charts, ch)
	}
	for _, x := range c.Rates {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s ops/s %s after %s: %s", formatNumber(x.Rate), x.Decision,
			plural(x.Trials, "trial", "trials"), x.Evidence))
	}
	for _, t := range c.Trials {
		target := "closed loop"
		if t.Rate > 0 {
			target = formatNumber(t.Rate) + " ops/s"
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("trial %d (%s) at %s: %s ops/s achieved, p99 %s, errors %s: %s",
			t.N, t.Stage, target, formatNumber(t.Throughput), trialP99(&t), percent(t.ErrorShare), trialVerdict(&t)))
	}
	return rep
}

// allCapacity reports whether every result is a capacity search's (not a
// shard's part, which has no band of its own).
func allCapacity(rs []*Result) bool {
	for _, r := range rs {
		if r.Capacity == nil || r.Capacity.Limit == "shard" {
			return false
		}
	}
	return len(rs) > 0
}

// writeCapacityCompare compares capacity results by their bands: each
// band, and for two whether they overlap (the searches cannot tell the
// targets apart) or which lies above.
func writeCapacityCompare(w io.Writer, rs []*Result) {
	for i, r := range rs {
		fmt.Fprintf(w, "%s: %s\n", compareLabel(i), bandText(r.Capacity))
	}
	if len(rs) != 2 {
		return
	}
	a, b := rs[0].Capacity, rs[1].Capacity
	if strings.Join(a.SLO, ",") != strings.Join(b.SLO, ",") {
		fmt.Fprintf(w, "the SLOs differ (%s vs %s): the bands answer different questions\n", strings.Join(a.SLO, ", "), strings.Join(b.SLO, ", "))
	}
	fmt.Fprintln(w, bandsOverlap(a, b))
}

// bandText says a band in a few words: "holds 9,700, fails 10,700 ops/s
// (1.10× wide; 10,200 undecided)".
func bandText(c *Capacity) string {
	var s string
	switch {
	case c.Rate == 0 && c.LowestFail > 0:
		s = fmt.Sprintf("no rate holds %s; fails at %s ops/s", strings.Join(c.SLO, ", "), formatNumber(c.LowestFail))
	case c.Rate == 0:
		s = fmt.Sprintf("no rate holds %s", strings.Join(c.SLO, ", "))
	case c.LowestFail > 0:
		s = fmt.Sprintf("holds %s, fails %s ops/s at %s (%.2f× wide", formatNumber(c.Rate), formatNumber(c.LowestFail), strings.Join(c.SLO, ", "), c.LowestFail/c.Rate)
		if c.Band != nil && len(c.Band.Undecided) > 0 {
			s += "; " + numberList(c.Band.Undecided) + " undecided"
		}
		s += ")"
	default:
		s = fmt.Sprintf("holds %s ops/s at %s; no higher rate failed", formatNumber(c.Rate), strings.Join(c.SLO, ", "))
	}
	if c.GeneratorLimited != "" {
		s += "; generator-limited"
	}
	switch c.Limit {
	case "max-time", "interrupted", "max-trials":
		s += "; the search ended (" + c.Limit + ") before its band was narrowed"
	}
	return s
}

// bandsOverlap says whether two bands overlap; a band's top is its
// failing edge (none: unbounded above).
func bandsOverlap(a, b *Capacity) string {
	top := func(c *Capacity) float64 {
		if c.LowestFail > 0 {
			return c.LowestFail
		}
		return math.Inf(1)
	}
	switch {
	case a.Rate == 0 && b.Rate == 0:
		return "bands: neither search found a rate that holds"
	case top(a) <= b.Rate:
		return fmt.Sprintf("bands: B's lies above A's, no overlap: B held %s ops/s where A failed at %s (%.2f×)", formatNumber(b.Rate),
			formatNumber(a.LowestFail), b.Rate/a.LowestFail)
	case top(b) <= a.Rate:
		return fmt.Sprintf("bands: A's lies above B's, no overlap: A held %s ops/s where B failed at %s (%.2f×)", formatNumber(a.Rate),
			formatNumber(b.LowestFail), a.Rate/b.LowestFail)
	}
	return fmt.Sprintf("bands: they overlap (%s–%s ops/s is in both): at this confidence the searches do not tell A and B apart",
		formatNumber(max(a.Rate, b.Rate)), topText(min(top(a), top(b))))
}

func topText(v float64) string {
	if math.IsInf(v, 1) {
		return "∞"
	}
	return formatNumber(v)
}

// FormatNumber prints a figure as the reports do: thousands grouped, the
// digits it needs.
func FormatNumber(v float64) string { return formatNumber(v) }
