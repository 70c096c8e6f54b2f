package report

import (
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/measure"
)

func TestTrialThirds(t *testing.T) {
	// Six seconds of 100 reads: 1 ms in the first two, 9 ms in the last two.
	r := &Result{RuntimeMS: 6000, Options: PhaseOptions{Threads: 2, TargetRate: 100}, Operations: 600, Throughput: 100,
		Ops: []Op{{Name: "READ", Count: 600, Service: &Latency{Mean: 2000}}}}
	for s := 1; s <= 6; s++ {
		h := measure.NewHistogram()
		lat := time.Millisecond
		if s > 4 {
			lat = 9 * time.Millisecond
		}
		for range 100 {
			h.RecordValue(int64(lat))
		}
		r.Series = append(r.Series, Second{T: float64(s), Ops: map[string]SecondOp{"READ": {Count: 100, Histogram: EncodeHistogram(h)}}})
	}
	// The drain after the schedule: a short interval, left out.
	r.Series = append(r.Series, Second{T: 6.2, Ops: map[string]SecondOp{"READ": {Count: 3}}})
	tr := TrialOf(r)
	if tr.Early == nil || tr.Late == nil || tr.Early.Operations != 200 || tr.Late.Operations != 200 {
		t.Fatalf("thirds: %+v %+v", tr.Early, tr.Late)
	}
	if tr.Early.P99 > 1100 || tr.Late.P99 < 8900 || tr.Early.Throughput != 100 || tr.Late.Throughput != 100 {
		t.Errorf("early %+v, late %+v", tr.Early, tr.Late)
	}
	if tr.WorkerBusy < 0.099 || tr.WorkerBusy > 0.101 { // 600 × 2 ms over 2 workers × 6 s
		t.Errorf("worker busy %g, want 0.1", tr.WorkerBusy)
	}
	if short := TrialOf(&Result{Series: r.Series[:2]}); short.Early != nil {
		t.Error("two seconds have no thirds")
	}
}

func TestCapacityLine(t *testing.T) {
	for _, x := range []struct {
		c    Capacity
		want string
	}{
		{Capacity{SLO: []string{"p99<5ms"}, Confidence: 0.95, Rate: 4200, LowestFail: 4410, Confirmed: true, Limit: "slo"},
			"holds 4,200 ops/s at p99<5ms (95% confidence); fails at 4,410 (+5.0%); confirmed by a last look"},
		{Capacity{SLO: []string{"p99<5ms"}, Confidence: 0.95, Rate: 9700, LowestFail: 10700, Limit: "noise",
			Band: &CapacityBand{Holds: 9700, Fails: 10700, Undecided: []float64{10200}}},
			"holds 9,700 ops/s at p99<5ms (95% confidence); fails at 10,700; 9,700–10,700 is within this target's noise (10,200 undecided); not confirmed by a last look"},
		{Capacity{SLO: []string{"p99<5ms"}, Confidence: 0.9, Rate: 3000, Limit: "max-time"},
			"holds 3,000 ops/s at p99<5ms (90% confidence); no higher rate failed with confidence; not confirmed (max-time)"},
		{Capacity{SLO: []string{"p99<5ms"}, Confidence: 0.95, Rate: 3000, LowestFail: 3150, Limit: "generator", GeneratorLimited: "at 3150 ops/s: lag"},
			"generator-limited: a lower bound"},
		{Capacity{SLO: []string{"p99<5ms"}, Confidence: 0.95, Absent: "no rate down to 1 ops/s held the SLO with 95% confidence"},
			"no rate holds p99<5ms with 95% confidence — no rate down to 1 ops/s held the SLO with 95% confidence"},
	} {
		if got := CapacityLine(&x.c); !strings.Contains(got, x.want) {
			t.Errorf("line %q\nwant %q", got, x.want)
		}
	}
}

// TestCapacityText: the band comes first, then the rates' evidence, then
// the trials.
func TestCapacityText(t *testing.T) {
	r := &Result{Capacity: &Capacity{SLO: []string{"p99<5ms"}, Confidence: 0.95, Rate: 4200, LowestFail: 4410, Limit: "slo",
		Rates:  []CapacityRate{{Rate: 4200, Trials: 2, Decision: "holds", Evidence: "p99<5ms: 0.2% over"}},
		Trials: []Trial{{N: 1, Stage: "closed-loop", Verdict: "closed loop: 8000 ops/s"}, {N: 2, Stage: "bracket", Rate: 4200, Look: 1, Verdict: "pass", Decision: "holds"}}}}
	var b strings.Builder
	if err := WriteCapacityText(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.HasPrefix(out, "holds 4,200 ops/s") || !strings.Contains(out, "2 trials") || !strings.Contains(out, "the rate holds") ||
		strings.Index(out, "p99<5ms: 0.2% over") > strings.Index(out, "bracket") {
		t.Errorf("text:\n%s", out)
	}
}

// TestCompareCapacityBands: two capacity results are compared by their
// bands, which overlap or lie one above the other, not by their last trials.
func TestCompareCapacityBands(t *testing.T) {
	band := func(holds, fails float64) *Result {
		return &Result{Phase: "capacity", Throughput: holds, Capacity: &Capacity{SLO: []string{"p99<5ms"}, Confidence: 0.95, Rate: holds, LowestFail: fails, Limit: "slo"}}
	}
	for _, x := range []struct {
		a, b *Result
		want string
	}{
		{band(9000, 10000), band(9500, 11000), "bands: they overlap (9,500–10,000 ops/s is in both)"},
		{band(9000, 10000), band(12000, 13000), "bands: B's lies above A's, no overlap: B held 12,000 ops/s where A failed at 10,000 (1.20×)"},
		{band(12000, 0), band(9000, 10000), "bands: A's lies above B's"},
		{band(0, 500), band(900, 1000), "bands: B's lies above A's"},
	} {
		var out strings.Builder
		WriteCompare(&out, []string{"a.json", "b.json"}, []*Result{x.a, x.b})
		if !strings.Contains(out.String(), x.want) || !strings.Contains(out.String(), "A: holds 9,000, fails 10,000 ops/s at p99<5ms (1.11× wide)") && x.a.Capacity.Rate == 9000 ||
			strings.Contains(out.String(), "throughput ops/s") {
			t.Errorf("compare:\n%s\nwant %q", out.String(), x.want)
		}
	}
}
