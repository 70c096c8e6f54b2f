package merge

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/report"
)

// shard builds a synthetic shard result whose READs took the given
// durations, one per second-long series point.
func shard(k, n int, start time.Time, ms ...int) *report.Result {
	r := &report.Result{Schema: report.Schema, Phase: "run", Complete: true, Start: start,
		Shard:    &report.Shard{Index: k, Count: n, Host: "h"},
		Target:   report.Target{Target: "null:", Backend: "null"},
		Workload: report.Workload{Properties: map[string]string{"operationcount": "10"}}}
	all := measure.NewHistogram()
	for i, d := range ms {
		h := measure.NewHistogram()
		_ = h.RecordValue(int64(d) * int64(time.Millisecond))
		all.Merge(h)
		r.Series = append(r.Series, report.Second{T: float64(i + 1), Ops: map[string]report.SecondOp{
			"READ": {Count: 1, Max: float64(d) * 1e3, Histogram: report.EncodeHistogram(h)}}})
	}
	r.End = start.Add(time.Duration(len(ms)) * time.Second)
	r.Operations = int64(len(ms))
	r.Ops = []report.Op{{Name: "READ", Count: int64(len(ms)), Service: report.Summarize(all, true)}}
	return r
}

func TestSeriesByWallClockSecond(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	a := shard(0, 2, t0, 1, 2, 3)
	b := shard(1, 2, t0.Add(300*time.Millisecond), 10, 20, 30) // began 0.3 s later
	m, err := Merge([]Input{{"b", b}, {"a", a}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Series) != 3 {
		t.Fatalf("%d points, want 3", len(m.Series))
	}
	for i, want := range [][2]float64{{1, 10}, {2, 20}, {3, 30}} {
		p := m.Series[i].Ops["READ"]
		if p.Count != 2 || p.Max < want[1]*1e3 || p.Max > want[1]*1e3*1.001 {
			t.Errorf("second %d: %+v", i, p)
		}
	}
	if m.Operations != 6 || m.RuntimeMS != 3300 || m.Shards[0].Index != 0 {
		t.Errorf("operations %d runtime %v shards %+v", m.Operations, m.RuntimeMS, m.Shards)
	}
	// The merged p50 comes from the merged histogram: 3 ms, not an average.
	if p50 := m.Ops[0].Service.P50; p50 < 3000 || p50 > 3003 {
		t.Errorf("p50 %v µs", p50)
	}
}

func TestMismatchNamesTheDifference(t *testing.T) {
	t0 := time.Now()
	a, b := shard(0, 2, t0, 1), shard(1, 2, t0, 1)
	b.Workload.Properties["operationcount"] = "20"
	_, err := Merge([]Input{{"a.json", a}, {"b.json", b}})
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), `a.json and b.json differ in workload property operationcount ("10" vs "20")`) {
		t.Errorf("%v", err)
	}
	b = shard(1, 3, t0, 1)
	if _, err := Merge([]Input{{"a.json", a}, {"b.json", b}}); err == nil || !strings.Contains(err.Error(), `shard count ("2" vs "3")`) {
		t.Errorf("%v", err)
	}
	a.Ops[0].Service.Histogram = ""
	if _, err := Merge([]Input{{"a.json", a}}); err == nil || !strings.Contains(err.Error(), "carries no histogram") {
		t.Errorf("%v", err)
	}
}

func TestReadForms(t *testing.T) {
	r := shard(0, 1, time.Now(), 1)
	line, _ := json.Marshal(r)
	indented, _ := json.MarshalIndent(r, "", "  ")
	for name, data := range map[string]string{
		"file":   string(indented),
		"stream": string(line) + "\n" + string(line) + "\n",
		"log":    "status: 1 ops\n" + string(line) + "\ndocbench: error\n",
		"prefix": "[pod/x-0-a/docbench] starting\n[pod/x-0-a/docbench] " + string(line) + "\n",
	} {
		in, err := Read([]byte(data), name)
		if err != nil || len(in) == 0 || in[0].Result.Shard == nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Read([]byte("just a log\n"), "x"); err == nil || !strings.Contains(err.Error(), "x: no docbench result in it") {
		t.Errorf("%v", err)
	}
	if _, err := Read([]byte(`{"schema":"docbench/result/v9"}`), "y"); err == nil {
		t.Error("another schema read")
	}
}

func FuzzRead(f *testing.F) {
	line, _ := json.Marshal(shard(0, 1, time.Unix(0, 0), 1))
	f.Add(line)
	f.Add([]byte("[pod/a] " + string(line)))
	f.Add([]byte(`{"schema":"docbench/result/v1","shard":{"index":0,"count":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := Read(data, "fuzz")
		if err != nil {
			return
		}
		_, _ = Merge(in) // must not panic
	})
}

func TestScheduleLagMergesExactly(t *testing.T) {
	start := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	a, b := shard(0, 2, start, 1), shard(1, 2, start, 1)
	ha, hb, all := measure.NewHistogram(), measure.NewHistogram(), measure.NewHistogram()
	for i := range 1000 {
		_ = ha.RecordValue(int64(i) * 1000) // 0..999 µs
		_ = hb.RecordValue(5000)            // 5 ms
	}
	all.Merge(ha)
	all.Merge(hb)
	a.ScheduleLag, b.ScheduleLag = report.SummarizeLag(ha, 3), report.SummarizeLag(hb, 4)
	m, err := Merge([]Input{{Result: a, Source: "a"}, {Result: b, Source: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	want := report.SummarizeLag(all, 7)
	if got := m.ScheduleLag; got == nil || got.P50 != want.P50 || got.P99 != want.P99 || got.Max != want.Max || got.Behind != 7 {
		t.Fatalf("merged schedule lag %+v, want %+v", got, want)
	}
	a.ScheduleLag = nil
	if m, _ := Merge([]Input{{Result: a, Source: "a"}, {Result: b, Source: "b"}}); m.ScheduleLag != nil {
		t.Fatal("a schedule lag merged from only some shards")
	}
}

// Rows per call merge exactly: the shards' rows over their successful
// calls, not an average of their means.
func TestRowsPerCallMerge(t *testing.T) {
	t0 := time.Now()
	a, b := shard(0, 2, t0, 1, 2, 3, 4), shard(1, 2, t0, 1, 2)
	ten, thirty := 10.0, 30.0
	a.Ops[0].RowsPerCall, b.Ops[0].RowsPerCall = &ten, &thirty // 40 rows in 4 calls, 60 in 2
	m, err := Merge([]Input{{"a", a}, {"b", b}})
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Ops[0].RowsPerCall; r == nil || *r < 16.66 || *r > 16.67 {
		t.Errorf("rows per call %v, want 100/6", r)
	}
	b.Ops[0].RowsPerCall = nil // a shard without the figure: none merged
	if m, _ = Merge([]Input{{"a", a}, {"b", b}}); m.Ops[0].RowsPerCall != nil {
		t.Errorf("rows per call %v from a shard without it", *m.Ops[0].RowsPerCall)
	}
}
