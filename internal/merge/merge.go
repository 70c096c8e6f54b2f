package merge

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/report"
)

// ErrMismatch marks shards that cannot be merged: they ran different
// workloads, versions, targets, seeds or settings, or repeat a shard.
var ErrMismatch = errors.New("cannot merge")

// maxMessages is how many distinct error messages an operation keeps.
const maxMessages = 5

// Merge combines the results of the shards of one phase into one result.
// Shards that differ in anything but their slice of the work are refused
// with an error (wrapping ErrMismatch) naming the first difference. A
// missing or incomplete shard makes the merged result incomplete, its
// error naming the shard.
func Merge(in []Input) (*report.Result, error) {
	if len(in) == 0 {
		return nil, errors.New("merge: no shard results")
	}
	if err := check(in); err != nil {
		return nil, err
	}
	in = slices.Clone(in)
	sort.SliceStable(in, func(i, j int) bool { return in[i].Result.Shard.Index < in[j].Result.Shard.Index })
	first := in[0].Result
	n := first.Shard.Count

	m := &report.Result{
		Schema: first.Schema, Tool: first.Tool, Phase: first.Phase, Complete: true,
		Target: first.Target, Environment: first.Environment, Workload: first.Workload,
		Options: first.Options, Audit: first.Audit,
	}
	m.Options.Threads, m.Options.TargetRate = 0, 0
	var problems []string
	present := map[int]bool{}
	for _, x := range in {
		r := x.Result
		present[r.Shard.Index] = true
		m.Options.Threads += r.Options.Threads
		m.Options.TargetRate += r.Options.TargetRate
		m.Operations += r.Operations
		if m.Start.IsZero() || r.Start.Before(m.Start) {
			m.Start = r.Start
		}
		if r.End.After(m.End) {
			m.End = r.End
		}
		if !r.Complete {
			why := "incomplete"
			if r.Stopped != "" {
				why += " (" + r.Stopped + ")"
			}
			if r.Error != "" {
				why += ": " + r.Error
			}
			problems = append(problems, fmt.Sprintf("shard %s (%s) %s", r.Shard.Name(), x.Source, why))
		} else if r.Stopped != "" && m.Stopped == "" {
			m.Stopped = r.Stopped
		}
		m.Shards = append(m.Shards, summary(x))
		for _, note := range r.Notes {
			if !slices.Contains(m.Notes, note) {
				m.Notes = append(m.Notes, note)
			}
		}
	}
	if missing := n - len(present); missing > 0 {
		var names []string
		for k := 0; k < n && len(names) < 5; k++ {
			if !present[k] {
				names = append(names, fmt.Sprintf("%d/%d", k, n))
			}
		}
		more := ""
		if missing > len(names) {
			more = fmt.Sprintf(" and %d more", missing-len(names))
		}
		word := "shard"
		if missing > 1 {
			word = "shards"
		}
		problems = append(problems, fmt.Sprintf("%s %s%s missing", word, strings.Join(names, ", "), more))
	}
	if m.Audit != nil { // all shards' clients together
		a := *m.Audit
		a.Clients = m.Options.Threads
		m.Audit = &a
	}
	if len(problems) > 0 {
		m.Complete = false
		m.Error = strings.Join(problems, "; ")
	}

	window := m.End.Sub(m.Start)
	m.RuntimeMS = float64(window) / 1e6
	if window > 0 {
		m.Throughput = float64(m.Operations) / window.Seconds()
	}
	ops, err := mergeOps(in, window)
	if err != nil {
		return nil, err
	}
	m.Ops = ops
	var seriesNote string
	m.Series, seriesNote = mergeSeries(in, m.Start, window)
	m.Server = mergeServer(in, m.Start, m.End)
	m.ScheduleLag = mergeLag(in)
	m.LatencyLimit = mergeLimit(in)
	m.Notes = append(m.Notes, windowNote(in, len(in), n))
	if seriesNote != "" {
		m.Notes = append(m.Notes, seriesNote)
	}
	if first.Phase == "capacity" {
		if err := mergeCapacity(in, m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// check refuses shards that are not parts of one phase.
func check(in []Input) error {
	seen := map[int]string{}
	for _, x := range in {
		sh := x.Result.Shard
		if sh == nil {
			return fmt.Errorf("%w: %s is not a shard result (run load/run with --shard K/N)", ErrMismatch, x.Source)
		}
		if sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count {
			return fmt.Errorf("%w: %s: shard %d/%d is not one of 0 … N-1", ErrMismatch, x.Source, sh.Index, sh.Count)
		}
	}
	a := in[0]
	for _, b := range in {
		if prev, dup := seen[b.Result.Shard.Index]; dup {
			return fmt.Errorf("%w: shard %s appears twice (%s and %s)", ErrMismatch, b.Result.Shard.Name(), prev, b.Source)
		}
		seen[b.Result.Shard.Index] = b.Source
		if d := difference(a.Result, b.Result); d != "" {
			return fmt.Errorf("%w: %s and %s differ in %s", ErrMismatch, a.Source, b.Source, d)
		}
	}
	return nil
}

// difference names the first way two shard results differ in what must be
// identical ("" when none).
func difference(a, b *report.Result) string {
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	for _, c := range []struct{ what, x, y string }{
		{"schema", a.Schema, b.Schema},
		{"phase", a.Phase, b.Phase},
		{"docbench version", a.Tool.Version, b.Tool.Version},
		{"target", a.Target.Target, b.Target.Target},
		{"backend", a.Target.Backend, b.Target.Backend},
		{"server version", a.Target.Version, b.Target.Version},
		{"shard count", fmt.Sprint(a.Shard.Count), fmt.Sprint(b.Shard.Count)},
		{"seed", fmt.Sprint(a.Options.Seed), fmt.Sprint(b.Options.Seed)},
		{"workload files", strings.Join(a.Workload.Files, " "), strings.Join(b.Workload.Files, " ")},
		{"threads per shard", fmt.Sprint(a.Options.Threads), fmt.Sprint(b.Options.Threads)},
		{"target rate per shard", fmt.Sprint(a.Options.TargetRate), fmt.Sprint(b.Options.TargetRate)},
		{"duration", fmt.Sprint(a.Options.DurationS), fmt.Sprint(b.Options.DurationS)},
		{"warm-up", fmt.Sprint(a.Options.WarmupS), fmt.Sprint(b.Options.WarmupS)},
		{"batch size", fmt.Sprint(a.Options.BatchSize), fmt.Sprint(b.Options.BatchSize)},
	} {
		if c.x != c.y {
			return fmt.Sprintf("%s (%s vs %s)", c.what, q(c.x), q(c.y))
		}
	}
	for _, c := range []struct {
		what string
		x, y map[string]string
	}{
		{"workload property", a.Workload.Properties, b.Workload.Properties},
		{"server setting", a.Target.Settings, b.Target.Settings},
		{"layout", a.Target.Layout, b.Target.Layout},
	} {
		if d := mapDifference(c.x, c.y); d != "" {
			return c.what + " " + d
		}
	}
	ja, _ := json.Marshal(a.Audit)
	jb, _ := json.Marshal(b.Audit)
	if string(ja) != string(jb) {
		return "fairness audit"
	}
	return ""
}

func mapDifference(x, y map[string]string) string {
	keys := slices.Sorted(maps.Keys(x))
	for k := range y {
		if _, ok := x[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		vx, okx := x[k]
		vy, oky := y[k]
		switch {
		case okx && oky && vx != vy:
			return fmt.Sprintf("%s (%q vs %q)", k, vx, vy)
		case okx != oky:
			show := func(v string, ok bool) string {
				if !ok {
					return "unset"
				}
				return fmt.Sprintf("%q", v)
			}
			return fmt.Sprintf("%s (%s vs %s)", k, show(vx, okx), show(vy, oky))
		}
	}
	return ""
}

func summary(x Input) report.ShardSummary {
	r := x.Result
	s := report.ShardSummary{Index: r.Shard.Index, Source: x.Source, Host: r.Shard.Host, Complete: r.Complete,
		Stopped: r.Stopped, Error: r.Error, Start: r.Start, End: r.End, LateMS: r.Shard.LateMS,
		Operations: r.Operations, Throughput: r.Throughput, Clock: r.Shard.Clock}
	if r.Server != nil && r.Server.CPU != nil && r.Server.CPU.HarnessS.OK() && r.RuntimeMS > 0 {
		c := r.Server.CPU.HarnessS.Value / (r.RuntimeMS / 1e3)
		c = math.Round(c*1000) / 1000
		s.ClientCores = &c
	}
	return s
}

// mergeOps merges the operations of every shard: counts and errors summed,
// histograms merged.
func mergeOps(in []Input, window time.Duration) ([]report.Op, error) {
	type acc struct {
		op                     report.Op
		service, response      *hdr.Histogram
		failed, failedResponse *hdr.Histogram
	}
	var order []string
	all := map[string]*acc{}
	for _, x := range in {
		for _, op := range x.Result.Ops {
			a := all[op.Name]
			if a == nil {
				a = &acc{op: report.Op{Name: op.Name}}
				all[op.Name] = a
				order = append(order, op.Name)
			}
			a.op.Count += op.Count
			a.op.Errors += op.Errors
			if q := op.Query; q != nil {
				if a.op.Query == nil {
					a.op.Query = &report.OpQuery{Kind: q.Kind, Limit: q.Limit, Offset: q.Offset}
				}
				a.op.Query.Rows += q.Rows
			}
			for _, msg := range op.Messages {
				a.op.Messages = addMessage(a.op.Messages, msg)
			}
			var err error
			if a.service, err = mergeLatency(a.service, op.Service, x.Source, op.Name, "service"); err != nil {
				return nil, err
			}
			if a.response, err = mergeLatency(a.response, op.Response, x.Source, op.Name, "response"); err != nil {
				return nil, err
			}
			if a.failed, err = mergeLatency(a.failed, op.Failed, x.Source, op.Name, "failed"); err != nil {
				return nil, err
			}
			if a.failedResponse, err = mergeLatency(a.failedResponse, op.FailedResponse, x.Source, op.Name, "failed response"); err != nil {
				return nil, err
			}
		}
	}
	ops := make([]report.Op, 0, len(order))
	for _, name := range order {
		a := all[name]
		if window > 0 {
			a.op.Throughput = float64(a.op.Count) / window.Seconds()
		}
		if a.service != nil {
			a.op.Service = report.Summarize(a.service, true)
		}
		if a.response != nil {
			a.op.Response = report.Summarize(a.response, true)
		}
		if a.failed != nil {
			a.op.Failed = report.Summarize(a.failed, true)
		}
		if a.failedResponse != nil {
			a.op.FailedResponse = report.Summarize(a.failedResponse, true)
		}
		if a.op.Query != nil {
			a.op.Query.SetRows(a.op.Query.Rows, a.op.Count-a.op.Errors)
		}
		ops = append(ops, a.op)
	}
	return ops, nil
}

// mergeLatency adds the histogram carried by l to into (created on first use).
func mergeLatency(into *hdr.Histogram, l *report.Latency, source, op, kind string) (*hdr.Histogram, error) {
	if l == nil {
		return into, nil
	}
	if l.Histogram == "" {
		return nil, fmt.Errorf("%w: %s: %s %s latency carries no histogram (hdr), so percentiles cannot be merged exactly", ErrMismatch, source, op, kind)
	}
	h, err := report.DecodeHistogram(l.Histogram)
	if err != nil {
		return nil, fmt.Errorf("%s: %s %s histogram: %w", source, op, kind, err)
	}
	if into == nil {
		into = measure.NewHistogram()
	}
	if dropped := into.Merge(h); dropped > 0 {
		return nil, fmt.Errorf("%s: %s %s histogram: %d values out of docbench's range", source, op, kind, dropped)
	}
	return into, nil
}

func addMessage(list []measure.ErrorCount, m measure.ErrorCount) []measure.ErrorCount {
	for i := range list {
		if list[i].Message == m.Message {
			list[i].Count += m.Count
			return list
		}
	}
	if len(list) < maxMessages {
		list = append(list, m)
	}
	return list
}

// mergeSeries sums the shards' per-second points by wall-clock second: a
// point covering [prev, t] of a shard belongs to the second (counted from
// the merged start) holding its middle. Percentiles come from the merged
// histograms of the second; when a shard's point carries none they are
// left out and the returned note says so.
func mergeSeries(in []Input, start time.Time, window time.Duration) ([]report.Second, string) {
	type cell struct {
		op     report.SecondOp
		h      *hdr.Histogram
		exact  bool
		merged bool
	}
	buckets := map[int]map[string]*cell{}
	inexact := map[string]bool{}
	for _, x := range in {
		r := x.Result
		prev := 0.0
		for _, p := range r.Series {
			mid := r.Start.Add(time.Duration((prev + p.T) / 2 * float64(time.Second)))
			prev = p.T
			b := int(math.Floor(mid.Sub(start).Seconds()))
			if buckets[b] == nil {
				buckets[b] = map[string]*cell{}
			}
			for name, po := range p.Ops {
				c := buckets[b][name]
				if c == nil {
					c = &cell{exact: true}
					buckets[b][name] = c
				}
				c.op.Count += po.Count
				c.op.Errors += po.Errors
				c.op.Max = max(c.op.Max, po.Max)
				if po.Count == po.Errors {
					continue // nothing succeeded: no latency
				}
				h, err := report.DecodeHistogram(po.Histogram)
				if po.Histogram == "" || err != nil {
					c.exact = false
					inexact[x.Source] = true
					continue
				}
				if c.h == nil {
					c.h = measure.NewHistogram()
				}
				c.h.Merge(h)
				c.merged = true
			}
		}
	}
	keys := slices.Sorted(maps.Keys(buckets))
	series := make([]report.Second, 0, len(keys))
	for _, b := range keys {
		t := math.Min(float64(b+1), window.Seconds())
		p := report.Second{T: t, Ops: map[string]report.SecondOp{}}
		for name, c := range buckets[b] {
			if c.exact && c.merged {
				c.op.P50 = float64(c.h.ValueAtQuantile(50)) / 1e3
				c.op.P99 = float64(c.h.ValueAtQuantile(99)) / 1e3
				c.op.Max = float64(c.h.Max()) / 1e3
				c.op.Histogram = report.EncodeHistogram(c.h)
			}
			p.Ops[name] = c.op
		}
		series = append(series, p)
	}
	note := ""
	if len(inexact) > 0 {
		note = "per-second percentiles are left out where " + strings.Join(slices.Sorted(maps.Keys(inexact)), ", ") +
			" carried no per-second histograms; counts and maxima are exact"
	}
	return series, note
}

// mergeServer takes the server's own figures once, from the shard whose
// snapshots cover most of the merged window: they are the server's, not
// a shard's. Figures per operation, the checks against docbench's counts
// and the CPU shares were computed with one shard's counts and are left
// out; each shard's client CPU is in shards[].
func mergeServer(in []Input, start, end time.Time) *probe.Server {
	best, cover := -1, time.Duration(-1)
	for i, x := range in {
		r := x.Result
		if r.Server == nil || r.Server.Absent != "" {
			continue
		}
		lo, hi := r.Start, r.End
		if start.After(lo) {
			lo = start
		}
		if end.Before(hi) {
			hi = end
		}
		c := hi.Sub(lo)
		if c > cover {
			best, cover = i, c
		}
	}
	if best < 0 {
		if s := in[0].Result.Server; s != nil {
			return s
		}
		return nil
	}
	r := in[best].Result
	s := *r.Server
	s.PerOp, s.Checks = nil, nil
	if s.CPU != nil && !s.CPU.ServerS.OK() {
		s.CPU = nil // nothing of the server's: each shard's client CPU is in shards[]
	} else if s.CPU != nil {
		cpu := *s.CPU
		gone := db.Missing("computed per shard: see shards[].client_cores")
		cpu.HarnessS, cpu.HarnessUSOp, cpu.ServerUSOp, cpu.ServerShare, cpu.Interpretation = gone, gone, gone, gone, ""
		s.CPU = &cpu
	}
	s.Notes = append(slices.Clone(s.Notes), fmt.Sprintf(
		"server-side figures are shard %s's snapshots (%s), taken before and after its measured part, %.0f%% of the merged window; per-operation figures and count checks are left out",
		r.Shard.Name(), in[best].Source, 100*cover.Seconds()/max(end.Sub(start).Seconds(), 1e-9)))
	return &s
}

// windowNote says how well the shards lined up.
func windowNote(in []Input, got, n int) string {
	var s0, s1, e0, e1 time.Time
	hosts := map[string]bool{}
	for i, x := range in {
		r := x.Result
		if i == 0 || r.Start.Before(s0) {
			s0 = r.Start
		}
		if i == 0 || r.Start.After(s1) {
			s1 = r.Start
		}
		if i == 0 || r.End.Before(e0) {
			e0 = r.End
		}
		if i == 0 || r.End.After(e1) {
			e1 = r.End
		}
		hosts[r.Shard.Host] = true
	}
	note := fmt.Sprintf("merged %d of %d shards from %d host(s): measured parts began within %s and ended within %s of each other; throughput is over the merged window, from the first start to the last end",
		got, n, len(hosts), s1.Sub(s0).Round(time.Microsecond), e1.Sub(e0).Round(time.Microsecond))
	if s1.Sub(s0) > time.Second {
		note += "; the shards did not start together (give them one --start-at): part of the window ran fewer shards"
	}
	if len(hosts) > 1 {
		var unsynced []string
		for _, x := range in {
			if c := x.Result.Shard.Clock; c.Synchronized != nil && !*c.Synchronized {
				unsynced = append(unsynced, x.Result.Shard.Host)
			}
		}
		if len(unsynced) > 0 {
			slices.Sort(unsynced)
			note += "; the clocks of " + strings.Join(slices.Compact(unsynced), ", ") + " are not synchronized (NTP): their start and per-second times may be off"
		}
	}
	return note
}

// mergeLimit sums the shards' counts of their --latency-limit (nil unless
// every shard ran with the same one).
func mergeLimit(in []Input) *report.LatencyLimit {
	var m *report.LatencyLimit
	var scheduled int64 // issued and skipped
	for _, x := range in {
		l := x.Result.LatencyLimit
		switch {
		case l == nil || m != nil && (l.LimitMS != m.LimitMS || l.Of != m.Of):
			return nil
		case m == nil:
			m = &report.LatencyLimit{LimitMS: l.LimitMS, Of: l.Of, ByOp: map[string]int64{}}
		}
		m.Late += l.Late
		m.Operations += l.Operations
		m.Skipped += l.Skipped
		for op, n := range l.ByOp {
			m.ByOp[op] += n
		}
		scheduled += x.Result.Operations + l.Skipped
	}
	if m != nil && m.Operations > 0 {
		m.LateShare = float64(m.Late) / float64(m.Operations)
	}
	if m != nil && scheduled > 0 {
		m.SkippedShare = float64(m.Skipped) / float64(scheduled)
	}
	return m
}

// mergeLag merges the shards' schedule lags exactly (nil unless every
// shard carries one with its histogram).
func mergeLag(in []Input) *report.ScheduleLag {
	h := measure.NewHistogram()
	var behind int64
	for _, x := range in {
		l := x.Result.ScheduleLag
		if l == nil || l.Histogram == "" {
			return nil
		}
		sh, err := report.DecodeHistogram(l.Histogram)
		if err != nil {
			return nil
		}
		h.Merge(sh)
		behind += l.Behind
	}
	return report.SummarizeLag(h, behind)
}
