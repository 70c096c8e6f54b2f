package study

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"
)

// Compare prints, benchstat-style, how each series of a new study directory
// differs from the same series of an old one: medians with their spread,
// the change, and the Mann-Whitney U test's p-value ("~" when the
// difference is not significant at α=0.05 or there are too few rounds).
func Compare(w io.Writer, oldDir, newDir string, metrics []string) error {
	old, err := Read(oldDir)
	if err != nil {
		return err
	}
	cur, err := Read(newDir)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, m := range metrics {
		want[m] = true
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "target\tworkload\tpoint\top\tmetric\t%s\t%s\tdelta\t\n", oldDir, newDir)
	matched := 0
	for _, r := range cur.Rows {
		if len(want) > 0 && !want[r.Metric] {
			continue
		}
		k := seriesKey{r.Target, r.Workload, pointID(r.Point), r.Op, r.Metric}
		ov, ok := old.values[k]
		if !ok {
			continue
		}
		matched++
		nv := cur.values[k]
		s1 := benchmath.NewSample(append([]float64(nil), ov...), &benchmath.DefaultThresholds)
		s2 := benchmath.NewSample(append([]float64(nil), nv...), &benchmath.DefaultThresholds)
		c := benchmath.AssumeNothing.Compare(s1, s2)
		m1 := benchmath.AssumeNothing.Summary(s1, confidence)
		m2 := benchmath.AssumeNothing.Summary(s2, confidence)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s (%s)\t\n", r.Target, r.Workload, pointID(r.Point), r.Op, r.Metric,
			withSpread(m1, s1), withSpread(m2, s2), c.FormatDelta(m1.Center, m2.Center), c.String())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	verdictChanges(w, old, cur)
	if matched == 0 {
		return fmt.Errorf("compare %s %s: the two studies have no series in common (same study, targets and points?)", oldDir, newDir)
	}
	return nil
}

// withSpread prints a median and its range across rounds, as benchstat does.
func withSpread(m benchmath.Summary, s *benchmath.Sample) string {
	spread := "±∞"
	if !math.IsInf(m.Lo, 0) && !math.IsInf(m.Hi, 0) {
		spread = "±" + m.PctRangeString()
	} else if len(s.Values) > 0 && m.Center != 0 {
		lo, hi := s.Values[0], s.Values[len(s.Values)-1]
		spread = fmt.Sprintf("[%.4g–%.4g]", lo, hi)
	}
	return fmt.Sprintf("%.4g %s", m.Center, spread)
}
