package report

import (
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/measure"
)

func TestTrialThirds(t *testing.T) {
	// Six seconds of 100 reads: 1 ms in the first two, 9 ms in the last two.
	r := &Result{RuntimeMS: 6000, Options: Options{Threads: 2, TargetRate: 100}, Operations: 600, Throughput: 100,
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
		r.Series = append(r.Series, Point{T: float64(s), Ops: map[string]PointOp{"READ": {Count: 100, Histogram: EncodeHistogram(h)}}})
	}
	// The drain after the schedule: a short interval, left out.
	r.Series = append(r.Series, Point{T: 6.2, Ops: map[string]PointOp{"READ": {Count: 3}}})
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
	c := &Capacity{SLO: []string{"p99<5ms"}, Rate: 4200, LowestFail: 4410, Confirmed: true, Limit: "slo"}
	if got := CapacityLine(c); !strings.Contains(got, "4,200 ops/s at p99<5ms") || !strings.Contains(got, "4,410 ops/s, +5.0%, failed") || !strings.HasSuffix(got, "confirmed") {
		t.Errorf("line %q", got)
	}
	for _, x := range []struct {
		above *CapacityAbove
		want  string
	}{
		{&CapacityAbove{Rate: 4620}, "confirmed; 4,620 ops/s (+10%) failed after it"},
		{&CapacityAbove{Rate: 4620, Held: true}, "confirmed; but 4,620 ops/s (+10%) held the SLO too after the confirmation"},
		{&CapacityAbove{Absent: "did not run (max-time)"}, "confirmed; the check above it did not run (max-time)"},
	} {
		c.Above = x.above
		if got := CapacityLine(c); !strings.Contains(got, x.want) {
			t.Errorf("line %q, want %q", got, x.want)
		}
	}
	if got := CapacityLine(&Capacity{Absent: "no rate down to 1 ops/s held the SLO"}); got != "sustainable rate: none — no rate down to 1 ops/s held the SLO" {
		t.Errorf("line %q", got)
	}
}
