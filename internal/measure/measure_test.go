package measure

import (
	"errors"
	"testing"
	"time"
)

// Percentiles come from the merged histogram of all workers: a slow worker's
// tail shows in the total as it would had one worker done everything.
func TestMergedPercentilesAreNotAveraged(t *testing.T) {
	reg := NewRegistry([]string{"READ"}, false)
	fast, slow := reg.NewRecorder(), reg.NewRecorder()
	for range 980 {
		fast.Record(0, time.Millisecond, 0, nil)
	}
	for range 20 {
		slow.Record(0, 100*time.Millisecond, 0, nil)
	}
	tot := reg.Totals()
	h := tot.Service[0]
	if h.TotalCount() != 1000 {
		t.Fatalf("count %d", h.TotalCount())
	}
	p99 := time.Duration(h.ValueAtQuantile(99))
	if p99 < 99*time.Millisecond || p99 > 101*time.Millisecond {
		t.Fatalf("p99 = %v, want 100ms (the slow 2%%); averaging per-worker p99s would give ~50ms", p99)
	}
	if p50 := time.Duration(h.ValueAtQuantile(50)); p50 < 999*time.Microsecond || p50 > 1001*time.Microsecond {
		t.Fatalf("p50 = %v", p50)
	}
}

func TestErrorsCountedWithDistinctMessages(t *testing.T) {
	reg := NewRegistry([]string{"READ", "UPDATE"}, false)
	a, b := reg.NewRecorder(), reg.NewRecorder()
	for i := range 10 {
		a.Record(1, time.Millisecond, 0, errors.New("deadlock"))
		b.Record(1, time.Millisecond, 0, errors.New("timeout"))
		for j := range 3 {
			b.Record(1, 0, 0, errors.New("distinct "+string(rune('a'+i*3+j))))
		}
	}
	tot := reg.Totals()
	if tot.Errors[1] != 50 || tot.Service[1].TotalCount() != 0 {
		t.Fatalf("errors %d, latencies %d: want 50 errors and no latency recorded for them", tot.Errors[1], tot.Service[1].TotalCount())
	}
	if len(tot.Messages[1]) != maxErrs || tot.Messages[1][0].Message != "deadlock" || tot.Messages[1][0].Count != 10 {
		t.Fatalf("messages %+v", tot.Messages[1])
	}
}

func TestTickSwapsIntervalsAndResponseTimes(t *testing.T) {
	reg := NewRegistry([]string{"READ"}, true)
	r := reg.NewRecorder()
	r.Record(0, time.Millisecond, 5*time.Millisecond, nil)
	iv := reg.Tick(time.Now(), time.Now())
	if iv.Ops[0].TotalCount() != 1 || iv.Ops[0].Max() < int64(5*time.Millisecond)-int64(10*time.Microsecond) {
		t.Fatalf("interval under a target rate must hold the response time: %d values, max %v", iv.Ops[0].TotalCount(), time.Duration(iv.Ops[0].Max()))
	}
	if iv2 := reg.Tick(time.Now(), time.Now()); iv2.Count() != 0 {
		t.Fatal("interval not reset by Tick")
	}
	r.Record(0, time.Millisecond, 2*time.Millisecond, nil)
	reg.Reset()
	tot := reg.Totals()
	if tot.Service[0].TotalCount() != 0 || tot.Response[0].TotalCount() != 0 {
		t.Fatal("Reset kept measurements")
	}
}

func BenchmarkRecord(b *testing.B) {
	reg := NewRegistry([]string{"READ"}, true)
	r := reg.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		r.Record(0, 123*time.Microsecond, 130*time.Microsecond, nil)
	}
}
