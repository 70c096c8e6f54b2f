package report

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/runner"
)

// Capacity is what `docbench capacity` found: the highest rate the target
// sustained with every SLO held, and the trials behind it
// (docs/capacity.md). A capacity result is a Result whose phase is
// "capacity"; its top-level figures are those of the last trial at the
// sustainable rate (the confirmation), or of the last trial run.
type Capacity struct {
	SLO           []string `json:"slo"`
	MaxErrorShare float64  `json:"max_error_share"`
	Precision     float64  `json:"precision"`
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
	// Confirmed: a final trial at Rate held the SLO again.
	Confirmed bool `json:"confirmed"`
	// Limit names what ended the search: "slo" (a failing rate above a
	// passing one, within the precision), "generator" (the client could
	// not drive more), "max-time", "interrupted", "no passing rate",
	// "unconfirmed", "shard" (a shard's part, judged by merge).
	Limit string `json:"limit"`
	// GeneratorLimited says why the search could not tell the server's
	// ceiling: the client was the bottleneck at the rates above Rate.
	GeneratorLimited string  `json:"generator_limited,omitempty"`
	Trials           []Trial `json:"trials"`
}

// Trial is one fixed-rate trial of a capacity search, after its own
// warm-up. Latency is response time from the intended start (service time
// for the closed-loop probe).
type Trial struct {
	N     int    `json:"n"`
	Stage string `json:"stage"` // probe, bracket, bisect, confirm, ladder
	// Rate is the target rate over all shards (a shard ran Rate/N);
	// 0 for the closed-loop probe.
	Rate       float64   `json:"target_ops_per_sec"`
	Extended   bool      `json:"extended,omitempty"` // a re-run, twice as long, of a trial that still trended
	Start      time.Time `json:"start"`
	DurationS  float64   `json:"duration_s"`
	WarmupS    float64   `json:"warmup_s"`
	Threads    int       `json:"threads"`
	Operations int64     `json:"operations"`
	Errors     int64     `json:"errors"`
	ErrorShare float64   `json:"error_share"`
	Throughput float64   `json:"throughput_ops_per_sec"`
	Ops        []Op      `json:"ops"`
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
	Error            string `json:"error,omitempty"`
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

// TrialOf reads a trial off a phase's outcome and its built result. The
// outcome's series must carry encoded histograms (Options.EncodeIntervals).
func TrialOf(o *runner.Outcome, r *Result) Trial {
	t := Trial{Rate: r.Options.TargetRate, Start: r.Start, DurationS: r.RuntimeMS / 1e3, WarmupS: r.Options.WarmupS,
		Threads: r.Options.Threads, Operations: r.Operations, Errors: r.Errors, ErrorShare: r.ErrorShare,
		Throughput: r.Throughput, Ops: r.Ops, ScheduleLag: r.ScheduleLag, Error: r.Error}
	t.Early, t.Late = thirds(o.Series)
	var busy float64 // seconds the workers spent in operations
	for _, h := range o.Totals.Service {
		busy += h.Mean() * float64(h.TotalCount()) / 1e9
	}
	if el := o.Elapsed().Seconds(); el > 0 && t.Threads > 0 {
		t.WorkerBusy = busy / (el * float64(t.Threads))
	}
	return t
}

// thirds merges the first and the last third of a series' windows (all
// operations together); nil when the series is too short to have thirds.
func thirds(series []measure.Interval) (early, late *Segment) {
	n := len(series) / 3
	if n == 0 {
		return nil, nil
	}
	seg := func(ivs []measure.Interval) *Segment {
		h := measure.NewHistogram()
		var ops int64
		for _, iv := range ivs {
			ops += iv.Succeeded()
			for _, enc := range iv.Encoded {
				if enc == "" {
					continue
				}
				if x, err := DecodeHistogram(enc); err == nil {
					h.Merge(x)
				}
			}
		}
		secs := ivs[len(ivs)-1].End.Sub(ivs[0].Start).Seconds()
		return NewSegment(h, ops, secs)
	}
	return seg(series[:n]), seg(series[len(series)-n:])
}
