package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/measure"
)

// CountAbove counts the values above a limit, to the histogram's
// resolution; the text report says the counts and shares.
func TestLatencyLimit(t *testing.T) {
	h := measure.NewHistogram()
	for _, v := range []int64{1_000, 4_000_000, 5_000_000, 5_000_001, 5_100_000, 9_000_000, 90_000_000} {
		h.RecordValue(v)
	}
	// 5,000,001 ns shares 5 ms's bucket: not above it.
	if n := CountAbove(h, 5_000_000); n != 3 {
		t.Errorf("CountAbove(5 ms) = %d, want 3", n)
	}
	if n := CountAbove(h, 0); n != 7 {
		t.Errorf("CountAbove(0) = %d, want 7", n)
	}
	r := &Result{Phase: "run", Options: PhaseOptions{TargetRate: 100},
		LatencyLimit: &LatencyLimit{LimitMS: 5, Of: "response", Late: 1234, Operations: 98766, LateShare: 1234.0 / 98766, Skipped: 1234, SkippedShare: 0.0123}}
	var b bytes.Buffer
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "latency limit 5ms (response time): 1,234 of 98,766 operations above it (1.249%); 1,234 skipped, later than the limit already when due (1.23% of those scheduled)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}
}
