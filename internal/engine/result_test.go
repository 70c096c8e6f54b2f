package engine

import (
	"bytes"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
	"github.com/docbench/docbench/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files and the report's result fixtures")

// outcome builds a phase outcome with known measurements: 1000 READs of
// 100..1099 µs, 100 UPDATEs of 2 ms and 3 failed ones of 5 ms, over
// exactly 2 s.
func outcome(intended bool) *runner.Outcome {
	names := []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"}
	reg := measure.NewRegistry(names, intended)
	rec := reg.NewRecorder()
	for i := range 1000 {
		d := time.Duration(100+i) * time.Microsecond
		rec.Record(0, d, d+time.Millisecond, nil)
	}
	for range 100 {
		rec.Record(1, 2*time.Millisecond, 3*time.Millisecond, nil)
	}
	for range 3 {
		rec.Record(1, 5*time.Millisecond, 6*time.Millisecond, errors.New("deadlock detected"))
	}
	start := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	o := &runner.Outcome{Phase: runner.Run, Start: start, End: start.Add(2 * time.Second), Names: names,
		Totals: reg.Totals(), Ops: 1103, Failed: 3, Complete: true, Batch: 1}
	if intended { // schedule lags of 1..100 µs, 7 operations behind
		o.ScheduleLag = measure.NewHistogram()
		for i := range 1103 {
			_ = o.ScheduleLag.RecordValue(int64(1+i%100) * 1000)
		}
		o.Behind = 7
	}
	return o
}

// result is the result the engine builds of outcome(intended), with the
// options a run records.
func result(intended bool) *report.Result {
	r := buildResult(outcome(intended), db.Info{Backend: "postgres", Version: "18.6"}, "postgres://u:secret@h/db")
	return r
}

// TestResultFixtures: the report's tests render the results the engine
// builds of outcome(), kept as testdata/result-*.json there; -update
// rewrites them.
func TestResultFixtures(t *testing.T) {
	for name, intended := range map[string]bool{"result-closed.json": false, "result-intended.json": true} {
		got, err := report.Marshal(result(intended))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Join("..", "report", "testdata", name), got)
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if !strings.Contains(path, string(filepath.Separator)) {
		path = filepath.Join("testdata", path)
	}
	testutil.Golden(t, path, got, *update)
}

func TestScheduleLag(t *testing.T) {
	r := result(true)
	l := r.ScheduleLag
	if l == nil || l.P50 < 49 || l.P50 > 51 || l.P99 < 98 || l.P99 > 100 || l.Max < 99.9 || l.Behind != 7 {
		t.Fatalf("schedule lag %+v, want p50 ≈ 50 µs, p99 ≈ 99 µs, max ≈ 100 µs, 7 behind", l)
	}
	// READ service p50 is ≈ 600 µs: a 99 µs lag p99 is more than a tenth of it.
	if len(r.Notes) == 0 || !strings.Contains(r.Notes[len(r.Notes)-1], "schedule lag") {
		t.Fatalf("no note on a large schedule lag: %q", r.Notes)
	}
	if note := lagNote(&report.ScheduleLag{P99: 20}, r.Ops); note != "" {
		t.Fatalf("note on a 20 µs lag against 600 µs service: %s", note)
	}
	if result(false).ScheduleLag != nil {
		t.Fatal("a closed-loop result has a schedule lag")
	}
}

func TestBuildResult(t *testing.T) {
	r := result(false)
	if r.Target.Target != "postgres://u:***@h/db" {
		t.Errorf("password not redacted: %s", r.Target.Target)
	}
	if r.Throughput != 550 || r.RuntimeMS != 2000 || r.Errors != 3 || r.Ops[1].Throughput != 50 {
		t.Errorf("throughput %v runtime %v", r.Throughput, r.RuntimeMS)
	}
	if len(r.Ops) != 2 || r.Ops[0].Name != "READ" || r.Ops[1].Count != 103 || r.Ops[1].Errors != 3 {
		t.Fatalf("ops %+v", r.Ops)
	}
	read := r.Ops[0].Service
	// HdrHistogram with 3 significant digits: within 0.1%.
	if read.P50 < 599 || read.P50 > 600.6 || read.Min < 99.9 || read.Min > 100 || read.Max < 1098.9 || read.Max > 1100.1 {
		t.Errorf("READ summary %+v", read)
	}
	if read.Histogram == "" {
		t.Error("histogram not encoded")
	}
	if r.Ops[0].Response != nil {
		t.Error("response time without a target rate")
	}
}

// TestYCSBBatchedLoad: a batched load prints [INSERT] with one operation
// per record, as YCSB's JDBC binding counts them, and the batches apart.
func TestYCSBBatchedLoad(t *testing.T) {
	names := []string{"INSERT", "INSERT-BATCH"}
	reg := measure.NewRegistry(names, false)
	rec := reg.NewRecorder()
	for range 10 {
		rec.Record(1, 4*time.Millisecond, 0, nil)
	}
	rec.Record(1, 9*time.Millisecond, 0, errors.New("connection reset"))
	start := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	o := &runner.Outcome{Phase: runner.Load, Start: start, End: start.Add(time.Second), Names: names,
		Totals: reg.Totals(), Ops: 1100, Failed: 100, Complete: true, Batch: 100}
	var b bytes.Buffer
	if err := report.WriteYCSB(&b, buildResult(o, db.Info{Backend: "postgres"}, "postgres:embedded")); err != nil {
		t.Fatal(err)
	}
	golden(t, "ycsb-batched.golden", b.Bytes())
}

// With dataintegrity, [VERIFY] follows [READ] with its own latencies; a
// document that differs is YCSB's Return=UNEXPECTED_STATE. As YCSB
// measures a check without an intended start, measurement.interval=both
// prints no [Intended-VERIFY].
func TestYCSBVerify(t *testing.T) {
	names := []string{"READ", "VERIFY"}
	reg := measure.NewRegistry(names, false)
	rec := reg.NewRecorder()
	for range 10 {
		rec.Record(0, 100*time.Microsecond, 0, nil)
		rec.Record(1, 10*time.Microsecond, 0, nil)
	}
	rec.Record(0, 100*time.Microsecond, 0, nil)
	rec.Record(1, 12*time.Microsecond, 0, errors.New("verify user1: field field0 differs from the value written"))
	start := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	o := &runner.Outcome{Phase: runner.Run, Start: start, End: start.Add(time.Second), Names: names,
		Totals: reg.Totals(), Ops: 11, Failed: 1, Complete: true, Batch: 1}
	r := buildResult(o, db.Info{Backend: "sqlite"}, "sqlite:x.db")
	r.Workload.Properties = map[string]string{"measurement.interval": "both"}
	var b bytes.Buffer
	if err := report.WriteYCSB(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "[Intended-READ]") || strings.Contains(b.String(), "[Intended-VERIFY") {
		t.Errorf("measurement.interval=both: want [Intended-READ] and, as in YCSB, no [Intended-VERIFY]:\n%s", &b)
	}
	for _, want := range []string{"[READ], Operations, 11\n", "[READ], Return=OK, 11\n",
		"[VERIFY], Operations, 10\n", "[VERIFY], MinLatency(us), 10\n", "[VERIFY], Return=OK, 10\n",
		"[VERIFY], Return=UNEXPECTED_STATE, 1\n", "[VERIFY-FAILED], Operations, 1\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in:\n%s", strings.TrimSpace(want), &b)
		}
	}
}

// A query's operation carries its page and the rows its successful calls
// returned; a failed call returns none and counts no call.
func TestBuildResultQueryRows(t *testing.T) {
	names := []string{"QUERY-by-email"}
	reg := measure.NewRegistry(names, false)
	rec := reg.NewRecorder()
	for range 4 {
		rec.RecordRows(0, time.Millisecond, time.Millisecond, nil, 90)
	}
	rec.RecordRows(0, time.Millisecond, time.Millisecond, errors.New("timeout"), 90)
	start := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	o := &runner.Outcome{Phase: runner.Run, Start: start, End: start.Add(time.Second), Names: names, Totals: reg.Totals(),
		Ops: 5, Failed: 1, Complete: true, Queries: map[string]runner.QueryPage{"QUERY-by-email": {Kind: "field"}}}
	r := buildResult(o, db.Info{Backend: "sqlite"}, "sqlite:x.db")
	if q := r.Ops[0].Query; q == nil || q.Kind != "field" || q.Limit != 0 || q.Rows != 360 || q.RowsPerCall != 90 {
		t.Errorf("query %+v, want field, limit 0 (every match), 360 rows, 90 per call", q)
	}
}
