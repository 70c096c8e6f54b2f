package engine

import (
	"fmt"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
)

// buildResult assembles a result from a phase outcome.
func buildResult(o *runner.Outcome, info db.Info, target string) *report.Result {
	r := &report.Result{
		Schema:   report.Schema,
		Phase:    string(o.Phase),
		Complete: o.Complete,
		Start:    o.Start.UTC(),
		End:      o.End.UTC(),
		Target: report.Target{Target: db.Redact(target), Backend: info.Backend, Version: info.Version,
			Settings: info.Settings, Layout: info.Layout},
		Operations: o.Ops,
	}
	r.Stopped = o.Stopped
	if o.Failure != "" {
		r.Failed, r.Error = true, o.Failure
	}
	el := o.Elapsed()
	r.RuntimeMS = float64(el) / 1e6
	r.Errors = o.Failed
	r.ErrorShare = o.ErrorShare()
	if el > 0 {
		r.Throughput = float64(o.Succeeded()) / el.Seconds()
		r.ErrorsPerSec = float64(o.Failed) / el.Seconds()
	}
	if w := o.Warmup; w != nil {
		r.Warmup = &report.Warmup{Operations: w.Ops}
		for i, n := range w.Errors {
			if n > 0 {
				r.Warmup.Errors += n
				r.Warmup.Ops = append(r.Warmup.Ops, report.WarmupOp{Name: o.Names[i], Errors: n, Messages: w.Messages[i]})
			}
		}
	}
	for i, name := range o.Names {
		h := o.Totals.Service[i]
		n := h.TotalCount() + o.Totals.Errors[i]
		if n == 0 {
			continue
		}
		op := report.Op{Name: name, Count: n, Errors: o.Totals.Errors[i], Service: report.Summarize(h, true),
			Messages: o.Totals.Messages[i]}
		if len(o.Totals.NotFound) > i {
			op.NotFound = o.Totals.NotFound[i]
		}
		if q, ok := o.Queries[name]; ok {
			op.Query = &report.OpQuery{Kind: q.Kind, Limit: q.Limit, Offset: q.Offset}
			if len(o.Totals.Rows) > i {
				op.Query.SetRows(o.Totals.Rows[i], h.TotalCount())
			}
		}
		op.ErrorShare = float64(op.Errors) / float64(n)
		if el > 0 {
			op.Throughput = float64(h.TotalCount()) / el.Seconds()
			op.ErrorsPerSec = float64(op.Errors) / el.Seconds()
		}
		if o.Totals.Response != nil {
			op.Response = report.Summarize(o.Totals.Response[i], true)
		}
		if f := o.Totals.Failed; f != nil && f[i] != nil {
			op.Failed = report.Summarize(f[i], true)
		}
		if f := o.Totals.FailedResponse; f != nil && f[i] != nil {
			op.FailedResponse = report.Summarize(f[i], true)
		}
		r.Ops = append(r.Ops, op)
	}
	if r.ScheduleLag = report.SummarizeLag(o.ScheduleLag, o.Behind); r.ScheduleLag != nil {
		if note := lagNote(r.ScheduleLag, r.Ops); note != "" {
			r.Notes = append(r.Notes, note)
		}
	}
	for _, iv := range o.Series {
		p := report.Second{T: iv.End.Sub(o.Start).Seconds(), Ops: map[string]report.SecondOp{}}
		for i, op := range iv.Ops {
			if op.Count+op.Errors == 0 {
				continue
			}
			p.Ops[o.Names[i]] = report.SecondOp{Count: op.Count + op.Errors, Errors: op.Errors,
				P50: us(op.P50), P99: us(op.P99), Max: us(op.Max)}
		}
		r.Series = append(r.Series, p)
	}
	return r
}

// latencyLimit counts the operations above limit: their response time
// under a target rate, else their service time; and the skipped ones.
func latencyLimit(o *runner.Outcome, limit time.Duration) *report.LatencyLimit {
	l := &report.LatencyLimit{LimitMS: float64(limit) / 1e6, Of: "service", Skipped: o.Skipped, ByOp: map[string]int64{}}
	hs := o.Totals.Service
	if o.Totals.Response != nil {
		hs, l.Of = o.Totals.Response, "response"
	}
	for i, h := range hs {
		if h == nil {
			continue
		}
		late := report.CountAbove(h, int64(limit))
		l.Late += late
		l.Operations += h.TotalCount()
		if late > 0 {
			l.ByOp[o.Names[i]] = late
		}
	}
	if l.Operations > 0 {
		l.LateShare = float64(l.Late) / float64(l.Operations)
	}
	if n := o.Ops + o.Skipped; n > 0 {
		l.SkippedShare = float64(o.Skipped) / float64(n)
	}
	return l
}

// lagNoteRatio: a schedule lag p99 above this share of the service time
// p50 is called out in the notes.
const lagNoteRatio = 0.1

// lagNote says when the schedule lag is large compared with the service
// time of the busiest operation, so "intended" latencies are partly the
// harness's.
func lagNote(l *report.ScheduleLag, ops []report.Op) string {
	var busiest *report.Op
	for i := range ops {
		if ops[i].Service != nil && (busiest == nil || ops[i].Count > busiest.Count) {
			busiest = &ops[i]
		}
	}
	if busiest == nil || l.P99 <= lagNoteRatio*busiest.Service.P50 {
		return ""
	}
	return fmt.Sprintf("the harness's own schedule lag (p99 %.1f µs) is large against the %s service time (p50 %.1f µs): "+
		"it is part of every \"intended\" latency, not the target's; a busy client machine or more workers than cores causes it", l.P99, busiest.Name, busiest.Service.P50)
}

// encodeSeries adds each second's histogram to r's series (SecondOp.Histogram),
// so that a merge of shard results computes exact per-second percentiles.
// r must have been built from o.
func encodeSeries(r *report.Result, o *runner.Outcome) {
	if len(r.Series) != len(o.Series) {
		return
	}
	for i, iv := range o.Series {
		for j, enc := range iv.Encoded {
			p, ok := r.Series[i].Ops[o.Names[j]]
			if !ok || enc == "" {
				continue
			}
			p.Histogram = enc
			r.Series[i].Ops[o.Names[j]] = p
		}
	}
}

func us(ns int64) float64 { return float64(ns) / 1e3 }
