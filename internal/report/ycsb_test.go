package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/runner"
)

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
	r := Build(o, db.Info{Backend: "sqlite"}, "sqlite:x.db")
	r.Workload.Properties = map[string]string{"measurement.interval": "both"}
	var b bytes.Buffer
	if err := WriteYCSB(&b, r); err != nil {
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
