package capacity

import (
	"math"

	"github.com/docbench/docbench/internal/report"
)

// Observe reads a search's figures off a measured trial: each SLO's value
// from the merged histograms of response time (and of service time), the
// thirds of the steady-state check, and the client's signals.
func Observe(cfg Config, t *report.Trial) Observation {
	o := Observation{Throughput: t.Throughput, ErrorShare: t.ErrorShare, ClientCPU: math.NaN(), WorkerBusy: t.WorkerBusy}
	res := &report.Result{Ops: t.Ops, Throughput: t.Throughput, ErrorShare: t.ErrorShare}
	service := &report.Result{Ops: make([]report.Op, len(t.Ops))}
	for i, op := range t.Ops {
		op.Response = nil // the threshold then reads the service time
		service.Ops[i] = op
	}
	for _, s := range cfg.SLOs {
		o.Latency = append(o.Latency, value(s.Evaluate(res)))
		o.Service = append(o.Service, value(s.Evaluate(service)))
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
	o.Early, o.Late = segment(t.Early), segment(t.Late)
	return o
}

func value(tr report.ThresholdResult) float64 {
	if tr.Absent != "" {
		return math.NaN()
	}
	return tr.Value
}

func segment(s *report.Segment) *Segment {
	if s == nil {
		return nil
	}
	p99 := s.P99
	if s.Histogram == "" {
		p99 = math.NaN()
	}
	return &Segment{Throughput: s.Throughput, P99: p99}
}

// Evaluate records on t each SLO's evaluation and the judgement j.
func Evaluate(cfg Config, t *report.Trial, j Judgement) {
	res := &report.Result{Ops: t.Ops, Throughput: t.Throughput, ErrorShare: t.ErrorShare}
	t.SLO = t.SLO[:0]
	for _, s := range cfg.SLOs {
		t.SLO = append(t.SLO, s.Evaluate(res))
	}
	t.Pass, t.GeneratorLimited = j.Pass, j.GeneratorLimited
	t.Verdict = "pass"
	if !j.Pass {
		t.Verdict = j.Why
	}
	if j.Unsteady || j.Extend {
		t.Unsteady = j.Trending
	}
	t.Vote = j.Votes
	if j.Again {
		t.Vote = "judged again"
	}
}
