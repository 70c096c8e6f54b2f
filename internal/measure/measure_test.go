package measure

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
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
		t.Fatalf("errors %d, latencies %d: want 50 errors and none among the successful operations' latencies", tot.Errors[1], tot.Service[1].TotalCount())
	}
	if f := tot.Failed[1]; f == nil || f.TotalCount() != 50 || f.Max() < int64(time.Millisecond)-int64(time.Microsecond) {
		t.Fatalf("failed latencies %v: want the 50 failures timed apart (max 1 ms)", f)
	}
	if tot.Failed[0] != nil {
		t.Fatal("an op without failures has a failure histogram")
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
	if iv.Ops[0].Count != 1 || iv.Ops[0].Max < int64(5*time.Millisecond)-int64(10*time.Microsecond) {
		t.Fatalf("interval under a target rate must hold the response time: %d values, max %v", iv.Ops[0].Count, time.Duration(iv.Ops[0].Max))
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

// latencies are n service times spread log-uniformly over 20 µs–20 ms, as a
// database's are: recording them touches hundreds of distinct buckets.
func latencies(n int) []time.Duration {
	rng := rand.New(rand.NewPCG(1, 2))
	d := make([]time.Duration, n)
	for i := range d {
		d[i] = time.Duration(20e3 * math.Pow(1000, rng.Float64()))
	}
	return d
}

// BenchmarkRecordSpread is a closed-loop worker of workload A: reads and
// updates alternate, their latencies spread over three decades.
func BenchmarkRecordSpread(b *testing.B) {
	reg := NewRegistry([]string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"}, false)
	r := reg.NewRecorder()
	lat := latencies(1 << 12)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		r.Record(i&1, lat[i&(len(lat)-1)], 0, nil)
		i++
	}
}

// BenchmarkTick closes one interval of 16 or 1,000 workers that each ran
// 200 operations of workload A in it: the merge and the reset of their
// interval histograms. ns/op is one tick.
func BenchmarkTick(b *testing.B) {
	lat := latencies(1 << 12)
	for _, workers := range []int{16, 1000} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			reg := NewRegistry([]string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"}, false)
			recs := make([]*Recorder, workers)
			for w := range recs {
				recs[w] = reg.NewRecorder()
			}
			i := 0
			fill := func() {
				for _, r := range recs {
					for range 200 {
						r.Record(i&1, lat[i&(len(lat)-1)], 0, nil)
						i++
					}
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				fill()
				b.StartTimer()
				_ = reg.Tick(time.Time{}, time.Time{})
			}
		})
	}
}

func TestNotFoundCountedBesideErrors(t *testing.T) {
	notFound := errors.New("not found")
	reg := NewRegistry([]string{"READ"}, false)
	reg.CountNotFound(notFound)
	r := reg.NewRecorder()
	r.Record(0, time.Millisecond, 0, nil)
	r.Record(0, time.Millisecond, 0, fmt.Errorf("key user1: %w", notFound))
	r.Record(0, time.Millisecond, 0, errors.New("connection refused"))
	iv := reg.Tick(time.Now(), time.Now())
	if iv.Succeeded() != 1 || iv.Failed() != 2 {
		t.Fatalf("interval: %d ok, %d failed; want 1 and 2", iv.Succeeded(), iv.Failed())
	}
	tot := reg.Totals()
	if tot.Errors[0] != 2 || tot.NotFound[0] != 1 {
		t.Fatalf("errors %d, not found %d; want 2 and 1", tot.Errors[0], tot.NotFound[0])
	}
}

// The memory of a run is flat in its length: ticking allocates a summary
// of a fixed size per operation, never a histogram.
func TestTickRetainsFixedSizeSummaries(t *testing.T) {
	names := []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"}
	reg := NewRegistry(names, true)
	recs := []*Recorder{reg.NewRecorder(), reg.NewRecorder()}
	var series []Interval
	var ms runtime.MemStats
	run := func(ticks int) {
		for k := range ticks {
			for _, r := range recs {
				for op := range names {
					r.Record(op, time.Duration(k%1000+1)*time.Microsecond, time.Duration(k%5000+1)*time.Microsecond, nil)
				}
			}
			series = append(series, reg.Tick(time.Time{}, time.Time{}))
		}
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	run(100)
	series = make([]Interval, 0, 2100)
	before := heap()
	run(2000)
	after := heap()
	perTick := (float64(after) - float64(before)) / 2000
	// A summary is 5 ops × 40 bytes plus the Interval header; one histogram
	// in docbench's geometry alone is tens of kilobytes.
	if perTick > 512 {
		t.Fatalf("each tick retains %.0f bytes; want a fixed summary of a few hundred", perTick)
	}
	if len(series) != 2000 {
		t.Fatal(len(series))
	}
}

func TestTickAllocatesNoHistogram(t *testing.T) {
	reg := NewRegistry([]string{"READ", "UPDATE"}, false)
	r := reg.NewRecorder()
	allocs := testing.AllocsPerRun(200, func() {
		r.Record(0, time.Millisecond, 0, nil)
		_ = reg.Tick(time.Time{}, time.Time{})
	})
	if allocs > 2 { // the snapshot of recorders and the summary slice
		t.Fatalf("Tick allocates %.0f times; want at most 2", allocs)
	}
}

func TestRecordAllocatesNothing(t *testing.T) {
	reg := NewRegistry([]string{"READ"}, true)
	r := reg.NewRecorder()
	if a := testing.AllocsPerRun(1000, func() {
		r.Record(0, 123*time.Microsecond, 130*time.Microsecond, nil)
	}); a != 0 {
		t.Fatalf("Record allocates %.1f times per operation; want 0", a)
	}
	if a := testing.AllocsPerRun(1000, func() {
		r.RecordRows(0, 123*time.Microsecond, 130*time.Microsecond, nil, 10)
	}); a != 0 {
		t.Fatalf("RecordRows allocates %.1f times per operation; want 0", a)
	}
}

// The rows of a query's successful calls add up across workers; a failed
// call's and the warm-up's (Reset) do not count.
func TestRecordRows(t *testing.T) {
	reg := NewRegistry([]string{"READ", "QUERY-x"}, false)
	a, b := reg.NewRecorder(), reg.NewRecorder()
	a.RecordRows(1, time.Millisecond, 0, nil, 1000)
	reg.Reset()
	a.RecordRows(1, time.Millisecond, 0, nil, 90)
	b.RecordRows(1, time.Millisecond, 0, nil, 30)
	b.RecordRows(1, time.Millisecond, 0, errors.New("timeout"), 7)
	a.Record(0, time.Millisecond, 0, nil)
	tot := reg.Totals()
	if tot.Rows[1] != 120 || tot.Rows[0] != 0 || tot.Service[1].TotalCount() != 2 || tot.Errors[1] != 1 {
		t.Fatalf("rows %v, %d successful queries, %d failed; want rows [0 120], 2, 1", tot.Rows, tot.Service[1].TotalCount(), tot.Errors[1])
	}
}

// Sparse per-worker histograms merge exactly: the totals and the sum of the
// intervals hold, bucket for bucket, what one dense histogram recording
// every value holds, in closed and open loop; an op a worker never ran
// costs it no histogram.
func TestMergeIsExact(t *testing.T) {
	for _, intended := range []bool{false, true} {
		t.Run(fmt.Sprint("intended=", intended), func(t *testing.T) { testMergeIsExact(t, intended) })
	}
}

func testMergeIsExact(t *testing.T, intended bool) {
	reg := NewRegistry([]string{"READ", "UPDATE", "SCAN"}, intended)
	recs := []*Recorder{reg.NewRecorder(), reg.NewRecorder(), reg.NewRecorder()}
	want, wantResp, sumIv := NewHistogram(), NewHistogram(), NewHistogram()
	lat := latencies(5000)
	lat = append(lat, 0, -1, 2*time.Hour) // clamped at both ends, as before
	for i, d := range lat {
		resp := d + time.Duration(i)*time.Microsecond
		if !intended {
			resp = 0
		}
		recs[i%3].Record(i%2, d, resp, nil)
		if i%2 == 0 {
			record := func(h interface{ RecordValue(int64) error }, d time.Duration) {
				_ = h.RecordValue(min(max(int64(d), 0), highest))
			}
			record(want, d)
			record(wantResp, resp)
		}
		if i%1000 == 999 {
			reg.Tick(time.Time{}, time.Time{})
			sumIv.Merge(reg.Merged(0))
		}
	}
	reg.Tick(time.Time{}, time.Time{})
	sumIv.Merge(reg.Merged(0))
	ivWant := NewHistogram() // intervals hold response times if intended, else service times
	if intended {
		ivWant.Merge(wantResp)
	} else {
		ivWant.Merge(want)
	}
	// Operations after the last tick count in the totals all the same.
	for i := range 10 {
		d := time.Duration(i+1) * time.Millisecond
		recs[i%3].Record(0, d, d, nil)
		_ = want.RecordValue(int64(d))
		_ = wantResp.RecordValue(int64(d))
	}
	for _, r := range recs {
		if r.interval[2] != nil || r.spare[2] != nil {
			t.Fatal("a histogram was made for an op never recorded")
		}
	}
	tot := reg.Totals()
	same := func(name string, got, want *hdr.Histogram) {
		t.Helper()
		if !got.Equals(want) || got.TotalCount() != want.TotalCount() {
			t.Fatalf("%s: merged %d values, p99 %d, max %d; recorded dense %d, p99 %d, max %d", name,
				got.TotalCount(), got.ValueAtQuantile(99), got.Max(), want.TotalCount(), want.ValueAtQuantile(99), want.Max())
		}
	}
	same("service", tot.Service[0], want)
	same("intervals", sumIv, ivWant)
	if intended {
		same("response", tot.Response[0], wantResp)
	}
}

// Once a worker's histograms have grown to its latencies' buckets (the
// first interval), recording and ticking allocate nothing more.
func TestSteadyRecordAllocatesNothing(t *testing.T) {
	reg := NewRegistry([]string{"READ", "UPDATE"}, false)
	r := reg.NewRecorder()
	lat := latencies(1 << 12)
	pass := func() {
		for i, d := range lat {
			r.Record(i&1, d, 0, nil)
		}
	}
	for range 3 { // the interval histograms alternate: fill both
		pass()
		reg.Tick(time.Time{}, time.Time{})
	}
	if a := testing.AllocsPerRun(1, pass); a != 0 { // one pass: an exact count
		t.Fatalf("recording %d spread latencies allocates %.1f times; want 0", len(lat), a)
	}
}
