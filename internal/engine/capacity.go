package engine

import (
	"fmt"
	"math"
	"strings"

	"github.com/docbench/docbench/internal/capacity"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/report"
)

// ParseSLO reads "p99<5ms", "READ.p99<2ms" or the threshold form
// "p99(READ)<2ms"; the error is one line.
func ParseSLO(text string) (capacity.SLO, error) {
	s := strings.TrimSpace(text)
	// OP.METRIC<VALUE is the threshold METRIC(OP)<VALUE.
	if i := strings.IndexAny(s, "<>=!"); i > 0 {
		if op, metric, ok := strings.Cut(s[:i], "."); ok && !strings.Contains(s[:i], "(") && !isQuantile(op) {
			s = metric + "(" + op + ")" + s[i:]
		}
	}
	t, err := report.ParseThreshold(s)
	if err != nil {
		return capacity.SLO{}, fmt.Errorf("--slo %q: %v", text, strings.TrimPrefix(err.Error(), fmt.Sprintf("threshold %q: ", s)))
	}
	switch {
	case t.Metric == "throughput" || t.Metric == "errors":
		return capacity.SLO{}, fmt.Errorf("--slo %q: an SLO bounds latency (p50…p99.99, mean, max); errors are --max-error-share", text)
	case t.Cmp != "<" && t.Cmp != "<=":
		return capacity.SLO{}, fmt.Errorf("--slo %q: an SLO is an upper bound: write < or <=", text)
	case t.Value <= 0:
		return capacity.SLO{}, fmt.Errorf("--slo %q: the bound must be above zero", text)
	}
	return capacity.SLO{Text: strings.TrimSpace(text), Metric: t.Metric, Op: t.Op, Inclusive: t.Cmp == "<=", Bound: t.Value}, nil
}

// isQuantile tells "p99" and "p99.9" (whose dot is not an operation's).
func isQuantile(s string) bool {
	return len(s) > 1 && s[0] == 'p' && strings.Trim(s[1:], "0123456789") == ""
}

// threshold is the SLO as the report's thresholds evaluate it.
func threshold(s capacity.SLO) report.Threshold {
	cmp := "<"
	if s.Inclusive {
		cmp = "<="
	}
	return report.Threshold{Text: s.Text, Metric: s.Metric, Op: s.Op, Cmp: cmp, Value: s.Bound}
}

// Observe reads a search's figures off a measured trial: each SLO's value
// from the merged histograms of response time (and of service time), the
// windows the rate is decided on, the thirds of the steady-state check,
// and the client's signals.
func Observe(cfg capacity.Spec, t *report.Trial) capacity.Observation {
	o := capacity.Observation{Throughput: t.Throughput, ErrorShare: t.ErrorShare, ClientCPU: math.NaN(), WorkerBusy: t.WorkerBusy,
		ScheduledS: t.ScheduledS}
	res := &report.Result{Ops: t.Ops, Throughput: t.Throughput, ErrorShare: t.ErrorShare}
	service := &report.Result{Ops: make([]report.Op, len(t.Ops))}
	for i, op := range t.Ops {
		op.Response = nil // the threshold then reads the service time
		service.Ops[i] = op
	}
	for _, s := range cfg.SLOs {
		o.Latency = append(o.Latency, value(threshold(s).Evaluate(res)))
		o.Service = append(o.Service, value(threshold(s).Evaluate(service)))
	}
	if t.ScheduledS > 0 {
		o.Issued = float64(t.Operations) / t.ScheduledS
	}
	if t.ScheduleLag != nil {
		o.LagP99 = t.ScheduleLag.P99
	}
	if t.ClientCPUShare != nil {
		o.ClientCPU = *t.ClientCPUShare
	}
	for _, w := range t.Windows {
		x := capacity.Window{Operations: w.Operations, Errors: w.Errors}
		for _, c := range w.SLO {
			x.SLO = append(x.SLO, capacity.Tally{N: c.N, Over: c.Over})
		}
		o.Windows = append(o.Windows, x)
	}
	o.Early, o.Late = segment(t.Early), segment(t.Late)
	o.Ops = opFigures(cfg, t.Ops)
	return o
}

// opFigures are a trial's figures per operation type from its service
// times: what names an operation that breaks an SLO on its own, or held
// the workers.
func opFigures(cfg capacity.Spec, ops []report.Op) []capacity.OpFigure {
	var out []capacity.OpFigure
	for _, op := range ops {
		n := op.Count // successful operations: those the service time counts
		if op.Service == nil || n <= 0 {
			continue
		}
		f := capacity.OpFigure{Name: op.Name, Count: n, P50: op.Service.P50, P99: op.Service.P99, BusyS: op.Service.Mean / 1e6 * float64(n)}
		ts := make([]report.WindowTally, len(cfg.SLOs))
		tally(cfg, op.Name, op.Service.Histogram, ts)
		for i, s := range cfg.SLOs {
			v := math.NaN()
			if ts[i].N > 0 && s.Metric != "mean" && strings.HasPrefix(s.Metric, "p") {
				v = ts[i].Over / float64(ts[i].N)
			}
			f.Over = append(f.Over, v)
		}
		out = append(out, f)
	}
	return out
}

// Windows counts, second by second of a trial's series (whose points carry
// their histograms), each SLO's operations and those over its bound (a
// mean SLO: the sum of their latencies). A latency counts as over when the
// histogram's bucket holding it reaches the bound (its highest equivalent
// value, as the percentiles report): p99 < bound exactly when under 1 % of
// the operations are over.
func Windows(cfg capacity.Spec, series []report.Second) []report.Window {
	out := make([]report.Window, 0, len(series))
	for _, p := range series {
		w := report.Window{SLO: make([]report.WindowTally, len(cfg.SLOs))}
		for name, op := range p.Ops {
			w.Operations += op.Count + op.Errors
			w.Errors += op.Errors
			if op.Count > 0 {
				tally(cfg, name, op.Histogram, w.SLO)
			}
		}
		out = append(out, w)
	}
	return out
}

// IntervalWindow is Windows of one interval as the runner closes it (its
// histograms encoded): what a trial measured in its last second.
func IntervalWindow(cfg capacity.Spec, names []string, iv *measure.Interval) capacity.Window {
	w := capacity.Window{SLO: make([]capacity.Tally, len(cfg.SLOs))}
	ts := make([]report.WindowTally, len(cfg.SLOs))
	for i, op := range iv.Ops {
		w.Operations += op.Count + op.Errors
		w.Errors += op.Errors
		if op.Count > 0 && i < len(iv.Encoded) && i < len(names) {
			tally(cfg, names[i], iv.Encoded[i], ts)
		}
	}
	for i, t := range ts {
		w.SLO[i] = capacity.Tally{N: t.N, Over: t.Over}
	}
	return w
}

// tally adds one operation's encoded histogram of a window to each SLO
// that counts it: its operations, and those at or over the bound (a mean
// SLO: the sum of their latencies, µs). An undecodable histogram counts
// nothing.
func tally(cfg capacity.Spec, name, encoded string, into []report.WindowTally) {
	if encoded == "" {
		return
	}
	h, err := report.DecodeHistogram(encoded)
	if err != nil {
		return
	}
	for i, s := range cfg.SLOs {
		if s.Op != "" && s.Op != name {
			continue
		}
		c := &into[i]
		c.N += h.TotalCount()
		if s.Metric == "mean" {
			c.Over += h.Mean() / 1e3 * float64(h.TotalCount())
			continue
		}
		bound := int64(s.Bound * 1e3)
		for _, b := range h.Distribution() {
			if b.Count > 0 && (b.To > bound || !s.Inclusive && b.To == bound) {
				c.Over += float64(b.Count)
			}
		}
	}
}

func value(tr report.ThresholdResult) float64 {
	if tr.Absent != "" {
		return math.NaN()
	}
	return tr.Value
}

func segment(s *report.Segment) *capacity.Third {
	if s == nil {
		return nil
	}
	p99 := s.P99
	if s.Histogram == "" {
		p99 = math.NaN()
	}
	return &capacity.Third{Throughput: s.Throughput, P99: p99}
}

// Evaluate records on t each SLO's evaluation on the trial alone, the
// trial's own verdict and its rate's decision after it.
func Evaluate(cfg capacity.Spec, t *report.Trial, j capacity.Judgement) {
	res := &report.Result{Ops: t.Ops, Throughput: t.Throughput, ErrorShare: t.ErrorShare}
	t.SLO = t.SLO[:0]
	for _, s := range cfg.SLOs {
		t.SLO = append(t.SLO, threshold(s).Evaluate(res))
	}
	t.Pass, t.GeneratorLimited = j.Pass, j.GeneratorLimited
	t.Verdict = "pass"
	if !j.Pass {
		t.Verdict = j.Why
	}
	if j.Trending != "" {
		t.Unsteady = j.Trending
	}
	t.Decision, t.Evidence = string(j.Decision), j.Evidence
}

// rates are a verdict's decided rates as a result records them.
func rates(v *capacity.Verdict) []report.CapacityRate {
	var out []report.CapacityRate
	for _, r := range v.Rates {
		cr := report.CapacityRate{Rate: r.Rate, Trials: r.Looks, Decision: string(r.Decision), Evidence: r.Evidence}
		if r.Decision == capacity.Fails && r.Generator != "" {
			// A rate that failed because of the client says so beside its figures.
			cr.Evidence += " [generator-limited: " + r.Generator + "]"
		}
		for _, c := range r.Criteria {
			e := c.Estimate
			d := string(c.Decision)
			if d == "" {
				d = string(capacity.Undecided)
			}
			cr.Criteria = append(cr.Criteria, report.CapacityCriterion{Name: c.Name, Kind: c.Kind, Limit: c.Limit,
				Operations: e.N, Over: e.Over, Value: e.Value, Lo: e.Lo, Hi: finiteOr(e.Hi), Level: e.Level,
				Batches: e.Batches, BatchWindows: e.Batch, Lag1: e.Lag1, Design: e.Design, Decision: d,
				MinOperations: c.MinOps, TooFew: c.TooFew})
		}
		out = append(out, cr)
	}
	return out
}

// Result fills a result's capacity record from a verdict.
func Result(c *report.Capacity, v *capacity.Verdict) {
	c.ClosedLoop, c.Rate, c.Absent, c.LowestFail = v.ClosedLoop, v.Holds, v.Absent, v.Fails
	c.Confirmed, c.Limit, c.GeneratorLimited = v.Confirmed, v.Limit, v.GeneratorLimited
	c.FailWhy, c.Wide = v.FailWhy, v.Wide
	if v.Holds > 0 || v.Fails > 0 || len(v.Undecided) > 0 {
		c.Band = &report.CapacityBand{Holds: v.Holds, Fails: v.Fails, Undecided: v.Undecided}
	}
	c.Rates = rates(v)
}

// finiteOr is v, or nil when v is infinite (JSON has no infinity): a
// mean's upper bound on fewer than two batches.
func finiteOr(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}
