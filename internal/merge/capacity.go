package merge

import (
	"fmt"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/docbench/docbench/internal/capacity"
	"github.com/docbench/docbench/internal/engine"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/report"
)

// mergeCapacity merges the shards of a sharded capacity search (each ran
// the same ladder of rates at rate/N) trial by trial, window by window, and
// judges each merged rung with confidence (capacity.JudgeLadder): the band
// reaches from the highest rung that held below the first that failed. A
// rung some shard did not finish ends the judged part.
func mergeCapacity(in []Input, m *report.Result) error {
	first := in[0].Result.Capacity
	for _, x := range in {
		c := x.Result.Capacity
		switch {
		case c == nil:
			return fmt.Errorf("%w: %s is not a capacity result", ErrMismatch, x.Source)
		case !slices.Equal(c.Ladder, first.Ladder):
			return fmt.Errorf("%w: %s and %s ran different ladders", ErrMismatch, in[0].Source, x.Source)
		case !slices.Equal(c.SLO, first.SLO) || c.MaxErrorShare != first.MaxErrorShare || c.Precision != first.Precision:
			return fmt.Errorf("%w: %s and %s differ in their SLO, error limit or precision", ErrMismatch, in[0].Source, x.Source)
		case len(c.Ladder) == 0:
			return fmt.Errorf("%w: %s is not a shard of a sharded capacity search (no ladder)", ErrMismatch, x.Source)
		}
	}
	cfg := capacity.Spec{MaxErrorShare: first.MaxErrorShare, Precision: first.Precision, Confidence: first.Confidence,
		MinWindows: first.MinWindows}
	for _, text := range first.SLO {
		s, err := engine.ParseSLO(text)
		if err != nil {
			return fmt.Errorf("%s: %w", in[0].Source, err)
		}
		cfg.SLOs = append(cfg.SLOs, s)
	}
	c := &report.Capacity{SLO: first.SLO, Bounds: first.Bounds, MaxErrorShare: first.MaxErrorShare,
		Precision: first.Precision, Confidence: first.Confidence, MinWindows: first.MinWindows, Ladder: first.Ladder}
	var obs []capacity.Observation
	for i, rate := range first.Ladder {
		t, err := mergeTrial(in, i, rate)
		if err != nil {
			return err
		}
		if t == nil {
			m.Notes = append(m.Notes, fmt.Sprintf("capacity: the ladder is judged up to rung %d of %d: a shard did not finish rung %d", i, len(first.Ladder), i+1))
			break
		}
		c.Trials = append(c.Trials, *t)
		obs = append(obs, engine.Observe(cfg, t))
	}
	v, js, err := capacity.JudgeLadder(cfg, first.Ladder, obs)
	if err != nil {
		return err
	}
	for i := range c.Trials {
		engine.Evaluate(cfg, &c.Trials[i], js[i])
	}
	engine.Result(c, &v)
	m.Capacity = c
	return nil
}

// mergeTrial merges rung i of every shard; nil when a shard lacks it or
// could not measure it.
func mergeTrial(in []Input, i int, rate float64) (*report.Trial, error) {
	t := &report.Trial{N: i + 1, Stage: string(capacity.Rung), Rate: rate}
	var parts []Input
	var early, late []*report.Segment
	for _, x := range in {
		trials := x.Result.Capacity.Trials
		if i >= len(trials) || trials[i].Ops == nil {
			return nil, nil
		}
		s := trials[i]
		if t.Start.IsZero() || s.Start.Before(t.Start) {
			t.Start = s.Start
		}
		t.DurationS, t.ScheduledS, t.WarmupS = max(t.DurationS, s.DurationS), s.ScheduledS, s.WarmupS
		t.Threads += s.Threads
		t.Operations += s.Operations
		t.Errors += s.Errors
		t.Throughput += s.Throughput
		t.WorkerBusy = max(t.WorkerBusy, s.WorkerBusy)
		if s.ClientCPUShare != nil && (t.ClientCPUShare == nil || *s.ClientCPUShare > *t.ClientCPUShare) {
			t.ClientCPUShare = s.ClientCPUShare
		}
		if s.Error != "" && t.Error == "" {
			t.Error = x.Source + ": " + s.Error
		}
		parts = append(parts, Input{Source: x.Source, Result: &report.Result{Ops: s.Ops, ScheduleLag: s.ScheduleLag}})
		early, late = append(early, s.Early), append(late, s.Late)
		t.Windows = addWindows(t.Windows, s.Windows)
	}
	if t.Operations > 0 {
		t.ErrorShare = float64(t.Errors) / float64(t.Operations)
	}
	ops, err := mergeOps(parts, time.Duration(t.DurationS*float64(time.Second)))
	if err != nil {
		return nil, err
	}
	t.Ops = ops
	t.ScheduleLag = mergeLag(parts)
	if t.Early, err = mergeSegments(early); err == nil {
		t.Late, err = mergeSegments(late)
	}
	return t, err
}

// mergeSegments adds the shards' thirds of a trial: throughputs summed,
// histograms merged; nil when a shard has none.
func mergeSegments(segs []*report.Segment) (*report.Segment, error) {
	var h *hdr.Histogram
	var ops int64
	var tput float64
	for _, s := range segs {
		if s == nil {
			return nil, nil
		}
		ops += s.Operations
		tput += s.Throughput
		if s.Histogram == "" {
			continue
		}
		x, err := report.DecodeHistogram(s.Histogram)
		if err != nil {
			return nil, fmt.Errorf("capacity trial histogram: %w", err)
		}
		if h == nil {
			h = measure.NewHistogram()
		}
		h.Merge(x)
	}
	out := report.NewSegment(h, ops, 0)
	out.Throughput = tput
	return out, nil
}

// addWindows adds a shard's windows of a rung to the merged ones, second by
// second (the shards ran the rung in the same slot from --start-at).
func addWindows(into, from []report.Window) []report.Window {
	for i, w := range from {
		if i >= len(into) {
			into = append(into, report.Window{SLO: make([]report.WindowTally, len(w.SLO))})
		}
		m := &into[i]
		m.Operations += w.Operations
		m.Errors += w.Errors
		for k, c := range w.SLO {
			if k < len(m.SLO) {
				m.SLO[k].N += c.N
				m.SLO[k].Over += c.Over
			}
		}
	}
	return into
}
