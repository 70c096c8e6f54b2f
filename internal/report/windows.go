package report

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/perf/benchmath"
)

// A single run has one value of each figure, so compare judges two runs
// on their windows: consecutive, non-overlapping stretches of the
// per-second series. Slow operations come in bursts that spill over a
// second's edge, so neighbouring seconds are not independent samples;
// a window is at least minWindowS seconds, and longer in long runs, so
// that there are at most maxWindows of them and a long burst (a
// checkpoint) stays inside one.
const (
	minWindowS = 2
	maxWindows = 30
)

// windowLength is the window, in whole seconds, two series are cut into:
// the shorter series decides it.
func windowLength(a, b []Second) int {
	n := min(len(a), len(b))
	return max(minWindowS, (n+maxWindows-1)/maxWindows)
}

// window is one window of a run: its length, its successful operations,
// and per operation its p99 (µs).
type window struct {
	secs float64
	ok   int64
	p99  map[string]float64
}

// windowsOf cuts a series into windows of w seconds; a trailing part
// shorter than a window is left out. A window's p99 comes from its
// seconds' histograms, merged, when the series carries them (a merged or
// capacity result); else it is the highest of its seconds' p99s, since
// percentiles cannot be averaged. exact says which.
func windowsOf(series []Second, w int) (out []window, exact bool) {
	exact = true
	for _, s := range series {
		for _, op := range s.Ops {
			if op.Count > op.Errors && op.Histogram == "" {
				exact = false
			}
		}
	}
	prev := 0.0
	var cur []Second
	start := 0.0
	for _, s := range series {
		if len(cur) == 0 {
			start = prev
		}
		cur = append(cur, s)
		prev = s.T
		// A window is complete at w seconds, give or take a tick's jitter.
		if secs := s.T - start; secs >= float64(w)-0.25 {
			out = append(out, makeWindow(cur, secs, exact))
			cur = nil
		}
	}
	return out, exact
}

func makeWindow(secs []Second, length float64, exact bool) window {
	w := window{secs: length, p99: map[string]float64{}}
	hists := map[string]*hdr.Histogram{}
	for _, s := range secs {
		for name, op := range s.Ops {
			good := op.Count - op.Errors
			w.ok += good
			if good <= 0 {
				continue
			}
			if !exact {
				w.p99[name] = max(w.p99[name], op.P99)
				continue
			}
			h, err := DecodeHistogram(op.Histogram)
			if err != nil {
				continue
			}
			if hists[name] == nil {
				hists[name] = h
			} else {
				hists[name].Merge(h)
			}
		}
	}
	for name, h := range hists {
		if h.TotalCount() > 0 {
			w.p99[name] = us(h.ValueAtQuantile(99))
		}
	}
	return w
}

// windowRow is one figure judged on the windows of two runs.
type windowRow struct {
	name   string
	a, b   []float64
	digits int // decimals of the medians
}

// writeSignificance prints what changed from A to B beyond the noise of
// their windows: for throughput and each operation's p99, the median over
// A's windows and over B's, the change, and the Mann–Whitney U test's
// p-value ("~" when it is not significant at α=0.05). With too few
// windows on a side it says it cannot tell.
func writeSignificance(w io.Writer, a, b *Result) {
	wl := windowLength(a.Series, b.Series)
	wa, exactA := windowsOf(a.Series, wl)
	wb, exactB := windowsOf(b.Series, wl)
	fmt.Fprintln(w)
	if !CanTest(len(wa), len(wb)) {
		fmt.Fprintf(w, "beyond the noise: cannot tell: windows of %d s: %d of A, %d of B (the U test needs 4 on each side: runs of at least %d s)\n",
			wl, len(wa), len(wb), 4*wl)
		return
	}
	how := "a window's p99 is the highest of its seconds' p99s"
	if exactA && exactB {
		how = "a window's p99 is its seconds' histograms merged"
	}
	fmt.Fprintf(w, "beyond the noise: Mann–Whitney U test at α=0.05 on windows of %d s (%s; %s):\n", wl, windowCount(len(wa), len(wb)), how)
	rows := []windowRow{{name: "throughput ops/s", digits: 1}}
	for _, x := range wa {
		rows[0].a = append(rows[0].a, float64(x.ok)/x.secs)
	}
	for _, x := range wb {
		rows[0].b = append(rows[0].b, float64(x.ok)/x.secs)
	}
	for _, name := range opNamesOf([]*Result{a, b}) {
		r := windowRow{name: name + " p99 µs", digits: 1}
		for _, x := range wa {
			if v, ok := x.p99[name]; ok {
				r.a = append(r.a, v)
			}
		}
		for _, x := range wb {
			if v, ok := x.p99[name]; ok {
				r.b = append(r.b, v)
			}
		}
		if len(r.a) > 0 || len(r.b) > 0 {
			rows = append(rows, r)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "per window\tA median\tB median\tB vs A\tp\twindows\t")
	for _, r := range rows {
		fmt.Fprintln(tw, r.line())
	}
	tw.Flush()
}

// line is the row's cells: the medians, the change ("~" first when not
// significant), the p-value and the windows, or why it is not tested.
func (r windowRow) line() string {
	if !CanTest(len(r.a), len(r.b)) {
		return fmt.Sprintf("%s\t%s\t%s\t\t\t%d / %d (too few with operations)\t", r.name, median(r.a, r.digits), median(r.b, r.digits), len(r.a), len(r.b))
	}
	sa := benchmath.NewSample(append([]float64(nil), r.a...), &benchmath.DefaultThresholds)
	sb := benchmath.NewSample(append([]float64(nil), r.b...), &benchmath.DefaultThresholds)
	c := benchmath.AssumeNothing.Compare(sa, sb)
	ma := benchmath.AssumeNothing.Summary(sa, 0.95).Center
	mb := benchmath.AssumeNothing.Summary(sb, 0.95).Center
	change := pctChange(ma, mb)
	if c.P > c.Alpha {
		change = "~ " + change
	}
	return fmt.Sprintf("%s\t%.*f\t%.*f\t%s\tp=%.3f\t%d / %d\t", r.name, r.digits, ma, r.digits, mb, change, c.P, len(r.a), len(r.b))
}

// median prints the median of vs, "-" when there are none.
func median(vs []float64, digits int) string {
	if len(vs) == 0 {
		return "-"
	}
	s := benchmath.NewSample(append([]float64(nil), vs...), &benchmath.DefaultThresholds)
	return fmt.Sprintf("%.*f", digits, benchmath.AssumeNothing.Summary(s, 0.95).Center)
}

// windowCount says how many windows each side has: "5 windows each", "3
// and 5 windows".
func windowCount(n1, n2 int) string {
	if n1 == n2 {
		if n1 == 1 {
			return "one window each"
		}
		return fmt.Sprintf("%d windows each", n1)
	}
	return fmt.Sprintf("%d and %d windows", n1, n2)
}

// CanTest says whether the Mann–Whitney U test can find a difference
// between samples of n1 and n2 values (windows, rounds) at all: whether two
// samples of those sizes that do not overlap reach α (4 on each side do;
// 3 do not).
func CanTest(n1, n2 int) bool {
	if n1 == 0 || n2 == 0 {
		return false
	}
	a, b := make([]float64, n1), make([]float64, n2)
	for i := range a {
		a[i] = float64(i)
	}
	for i := range b {
		b[i] = float64(n1 + i)
	}
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(a, &benchmath.DefaultThresholds), benchmath.NewSample(b, &benchmath.DefaultThresholds))
	return c.P <= c.Alpha && !math.IsNaN(c.P)
}
