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

// Capacity is what `docbench capacity` found: the highest rate the target
// sustained with every SLO held, and the trials behind it
// (docs/capacity.md). A capacity result is a Result whose phase is
// "capacity"; its top-level figures are those of the last trial at the
// sustainable rate (the confirmation), or of the last trial run.
type Capacity struct {
	SLO []string `json:"slo"`
	// Bounds are the SLOs' bounds in µs, in order.
	Bounds        []float64 `json:"slo_bounds_us"`
	MaxErrorShare float64   `json:"max_error_share"`
	Precision     float64   `json:"precision"`
	// Ladder is set on a sharded search: the fixed rates (over all
	// shards) every shard ran, in order.
	Ladder []float64 `json:"ladder_ops_per_sec,omitempty"`
	// ClosedLoop is the throughput of the closed-loop probe.
	ClosedLoop float64 `json:"closed_loop_ops_per_sec,omitempty"`
	// Rate is the sustainable rate (ops/s over all shards); absent (0)
	// with Absent saying why.
	Rate   float64 `json:"sustainable_ops_per_sec,omitempty"`
	Absent string  `json:"absent,omitempty"`
	// LowestFail is the lowest rate tried above Rate that failed.
	LowestFail float64 `json:"lowest_failing_ops_per_sec,omitempty"`
	// Confirmed: the confirmation at Rate held the SLO again (its first
	// trial, or the majority of three).
	Confirmed bool `json:"confirmed"`
	// Limit names what ended the search: "slo" (a failing rate above a
	// passing one, within the precision), "generator" (the client could
	// not drive more), "max-time", "interrupted", "no passing rate",
	// "unconfirmed", "shard" (a shard's part, judged by merge).
	Limit string `json:"limit"`
	// GeneratorLimited says why the search could not tell the server's
	// ceiling: the client was the bottleneck at the rates above Rate.
	GeneratorLimited string `json:"generator_limited,omitempty"`
	// Above is the check after a confirmation: a rate above Rate (1.1×
	// by default), run on the data and server state the search left,
	// where the SLO should fail.
	Above  *CapacityAbove `json:"above,omitempty"`
	Trials []Trial        `json:"trials"`
}

// CapacityAbove is the check above a confirmed rate.
type CapacityAbove struct {
	// Rate is the rate checked (0 when the check did not run: Absent
	// says why).
	Rate float64 `json:"target_ops_per_sec,omitempty"`
	// Held says the SLO held at Rate too, by its vote: the knee lies
	// higher than the search put it, or the server sped up during it.
	Held   bool   `json:"held"`
	Absent string `json:"absent,omitempty"`
}

// Trial is one fixed-rate trial of a capacity search, after its own
// warm-up. Latency is response time from the intended start (service time
// for the closed-loop probe).
type Trial struct {
	N     int    `json:"n"`
	Stage string `json:"stage"` // probe, bracket, bisect, recheck, confirm, above, ladder
	// Rate is the target rate over all shards (a shard ran Rate/N);
	// 0 for the closed-loop probe.
	Rate      float64   `json:"target_ops_per_sec"`
	Extended  bool      `json:"extended,omitempty"` // a re-run, twice as long, of a trial that still trended
	Start     time.Time `json:"start"`
	DurationS float64   `json:"duration_s"`
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
	// Early and Late are the first and last third of the trial's
	// one-second windows, all operations merged: the steady-state check.
	Early *Segment `json:"early,omitempty"`
	Late  *Segment `json:"late,omitempty"`
	// ScheduleLag, ClientCPUShare (docbench's CPU over the trial, as a
	// share of its cores; absent for an engine inside docbench) and
	// WorkerBusy (the share of the workers' time spent in operations)
	// tell a generator-limited trial.
	ScheduleLag    *ScheduleLag `json:"schedule_lag,omitempty"`
	ClientCPUShare *float64     `json:"client_cpu_share,omitempty"`
	WorkerBusy     float64      `json:"worker_busy"`
	// SLO is each SLO evaluated on the trial; set where the trial is
	// judged (not on a shard's part).
	SLO     []ThresholdResult `json:"slo,omitempty"`
	Pass    bool              `json:"pass"`
	Verdict string            `json:"verdict,omitempty"` // "pass" or why not
	// Unsteady says how a trial's throughput or p99 still trended;
	// GeneratorLimited why the client, not the server, set its pace.
	Unsteady         string `json:"unsteady,omitempty"`
	GeneratorLimited string `json:"generator_limited,omitempty"`
	// Vote says how the trial counted towards its rate's verdict, which
	// the majority of up to three trials decides: "judged again" when it
	// did not decide it; on the trial that decided it after others, the
	// rate's verdict ("the rate passed (2 of 3 trials)").
	Vote  string `json:"vote,omitempty"`
	Error string `json:"error,omitempty"`
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
// carry each second's histograms (EncodeSeries).
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
func thirds(series []Point) (early, late *Segment) {
	for len(series) > 1 && series[len(series)-1].T-series[len(series)-2].T < 0.9 {
		series = series[:len(series)-1]
	}
	n := len(series) / 3
	if n == 0 {
		return nil, nil
	}
	seg := func(pts []Point, from float64) *Segment {
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

// WriteCapacityText prints a capacity result: the sustainable rate with the
// trials around it, and the latency-vs-throughput curve trial by trial.
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
	fmt.Fprintf(ew, "docbench capacity · %s · %s · SLO %s, %s\n", r.Target.Target, strings.Join(r.Workload.Files, " "),
		strings.Join(c.SLO, ", "), errs)
	fmt.Fprintf(ew, "%s\n", CapacityLine(c))
	if c.GeneratorLimited != "" {
		fmt.Fprintf(ew, "generator-limited: %s — a limit of docbench's machine, not the server's ceiling\n", c.GeneratorLimited)
	}
	if c.ClosedLoop > 0 {
		fmt.Fprintf(ew, "closed-loop throughput: %s ops/s (the probe; no latency bound)\n", formatNumber(c.ClosedLoop))
	}
	fmt.Fprintf(ew, "\n%-3s %-8s %14s %14s %10s %8s  %s\n", "#", "stage", "target ops/s", "achieved", "p99", "errors", "verdict")
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

// CapacityLine states the verdict of a capacity search in one line.
func CapacityLine(c *Capacity) string {
	if c.Rate == 0 {
		return "sustainable rate: none — " + c.Absent
	}
	s := fmt.Sprintf("sustainable rate: %s ops/s at %s", formatNumber(c.Rate), strings.Join(c.SLO, ", "))
	var around []string
	for _, t := range c.Trials {
		if t.Rate == c.Rate && t.Rate > 0 {
			around = append(around, trialP99(&t))
		}
	}
	var spread []string
	if len(around) > 0 {
		spread = append(spread, "p99 "+strings.Join(around, ", ")+" in the trials at this rate")
	}
	if c.LowestFail > 0 {
		spread = append(spread, fmt.Sprintf("%s ops/s, %+.1f%%, failed", formatNumber(c.LowestFail), (c.LowestFail/c.Rate-1)*100))
	}
	if len(spread) > 0 {
		s += " (" + strings.Join(spread, "; ") + ")"
	}
	switch {
	case c.Confirmed:
		s += ", confirmed"
		switch a := c.Above; {
		case a == nil:
		case a.Absent != "":
			s += "; the check above it " + a.Absent
		case a.Held:
			s += fmt.Sprintf("; but %s ops/s (%+.0f%%) held the SLO too after the confirmation: the knee lies higher, or the server sped up during the search", formatNumber(a.Rate), (a.Rate/c.Rate-1)*100)
		default:
			s += fmt.Sprintf("; %s ops/s (%+.0f%%) failed after it", formatNumber(a.Rate), (a.Rate/c.Rate-1)*100)
		}
	case len(c.Ladder) > 0:
		s += ", the highest passing rung of the ladder (a sharded search has no confirmation)"
	default:
		s += ", not confirmed (" + c.Limit + ")"
	}
	return s
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
	if t.Extended {
		v += " (extended)"
	}
	if t.Vote != "" {
		v += " · " + t.Vote
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
			ch.Series = append(ch.Series, Series{Name: "sustainable " + formatNumber(c.Rate) + " ops/s", Points: []ChartPoint{
				{X: c.Rate, Y: lo, Min: lo, Max: lo}, {X: c.Rate, Y: hi, Min: hi, Max: hi}}})
		}
		rep.Charts = append(rep.Charts, ch)
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

// FormatNumber prints a figure as the reports do: thousands grouped, the
// digits it needs.
func FormatNumber(v float64) string { return formatNumber(v) }
