package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/measure"
)

// secondsOf makes a series of n one-second intervals: READ's count and
// p99 in second i are count(i) and p99(i).
func secondsOf(n int, count func(i int) int64, p99 func(i int) float64) []Second {
	var out []Second
	for i := range n {
		out = append(out, Second{T: float64(i + 1), Ops: map[string]SecondOp{"READ": {Count: count(i), P99: p99(i)}}})
	}
	return out
}

// TestSignificanceOfWindows: two runs' windows of 2 s, tested with the
// U test: a throughput 20% higher on every window is significant, a p99
// drawn from the same values is not ("~").
func TestSignificanceOfWindows(t *testing.T) {
	p99 := func(i int) float64 { return 500 + float64(i%5) }
	a := &Result{Series: secondsOf(12, func(i int) int64 { return 1000 + int64(i%3) }, p99), Ops: []Op{{Name: "READ"}}}
	b := &Result{Series: secondsOf(12, func(i int) int64 { return 1200 + int64(i%3) }, p99), Ops: []Op{{Name: "READ"}}}
	var out bytes.Buffer
	writeSignificance(&out, a, b)
	got := out.String()
	for _, want := range []string{
		"Mann–Whitney U test at α=0.05 on windows of 2 s (6 windows each; a window's p99 is the highest of its seconds' p99s)",
		"A median", "+20.0%", "6 / 6",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("significance lacks %q:\n%s", want, got)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "throughput") && strings.Contains(l, "~") {
			t.Errorf("a 20%% change on every window is significant: %q", l)
		}
		if strings.HasPrefix(l, "READ p99") && !strings.Contains(l, "~ ") {
			t.Errorf("the same p99s on both sides are not significant: %q", l)
		}
	}

	// Too few windows: it cannot tell, and says how long runs must be.
	short := &Result{Series: secondsOf(5, func(int) int64 { return 1000 }, p99)}
	out.Reset()
	writeSignificance(&out, short, b)
	if got := out.String(); !strings.Contains(got, "cannot tell: windows of 2 s: 2 of A, 6 of B (the U test needs 4 on each side: runs of at least 8 s)") {
		t.Errorf("too few windows: %q", got)
	}
}

// TestWindowP99FromHistograms: when the seconds carry their histograms
// (a merged result), a window's p99 is of the merged histogram, not the
// highest second's; a long run's windows are longer, at most maxWindows.
func TestWindowP99FromHistograms(t *testing.T) {
	var series []Second
	for i := range 4 {
		h := measure.NewHistogram()
		for range 99 {
			h.RecordValue(100_000) // 100 µs
		}
		h.RecordValue(10_000_000) // 10 ms: above the second's p99 but one in 100
		series = append(series, Second{T: float64(i + 1), Ops: map[string]SecondOp{
			"READ": {Count: 100, P99: 10_000, Histogram: EncodeHistogram(h)}}})
	}
	ws, exact := windowsOf(series, 2)
	if !exact || len(ws) != 2 {
		t.Fatalf("windows %d, exact %v: want 2 windows from histograms", len(ws), exact)
	}
	if p := ws[0].p99["READ"]; math.Abs(p-100) > 1 {
		t.Errorf("window p99 %.1f µs, want the merged histogram's 100 µs", p)
	}
	if got := windowLength(make([]Second, 600), make([]Second, 900)); got != 20 {
		t.Errorf("window of 600 s runs: %d s, want 20 (30 windows)", got)
	}
}
