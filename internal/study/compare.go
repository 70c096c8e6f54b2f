package study

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"

	"github.com/docbench/docbench/internal/report"
)

// CompareOptions choose what Compare prints.
type CompareOptions struct {
	Metrics []string // only these metrics; all when empty
	All     bool     // print the unchanged rows too, rather than counting them
}

// Compare prints how each series of a new study directory differs from the
// same series of an old one: the changed rows first, each with its medians
// (and the range across rounds when there are several), the change in
// percent and, when both sides have the rounds for it, the Mann–Whitney U
// test's verdict at α=0.05 (benchstat's). Unchanged rows — not
// significant, or equal when no test is possible — are counted, not
// printed, unless o.All. It warns first when the two setups differ.
func Compare(w io.Writer, oldDir, newDir string, o CompareOptions) error {
	old, err := Read(oldDir)
	if err != nil {
		return err
	}
	cur, err := Read(newDir)
	if err != nil {
		return err
	}
	return writeCompare(w, old, cur, o)
}

// writeCompare prints Compare's report of two studies read back.
func writeCompare(w io.Writer, old, cur *Data, o CompareOptions) error {
	oldDir, newDir := old.Dir, cur.Dir
	want := map[string]bool{}
	for _, m := range o.Metrics {
		want[m] = true
	}
	fmt.Fprintf(w, "docbench compare · OLD %s (%s) → NEW %s (%s)\n", oldDir, describeRun(old), newDir, describeRun(cur))
	report.WriteSetupWarning(w, setupDifferences(old, cur))
	var rows []compareRow
	testable := false
	for _, r := range cur.Rows {
		if len(want) > 0 && !want[r.Metric] {
			continue
		}
		k := seriesKey{r.Target, r.Workload, pointID(r.Point), r.Op, r.Metric}
		ov, ok := old.values[k]
		if !ok {
			continue
		}
		cr := compareSeries(k, r.Unit, ov, cur.values[k])
		testable = testable || cr.testable
		rows = append(rows, cr)
	}
	if len(rows) == 0 {
		return fmt.Errorf("compare %s %s: the two studies have no series in common (same study, targets and points?)", oldDir, newDir)
	}
	switch {
	case testable:
		fmt.Fprintln(w, "a row changed when the Mann–Whitney U test finds its rounds differ at α=0.05 (p below)")
	case old.File.Rounds <= 1 && cur.File.Rounds <= 1:
		fmt.Fprintln(w, "one run each: no significance test (4 or more rounds on each side make one); a row changed when its value did")
	default:
		fmt.Fprintf(w, "%d and %d rounds: too few for a significance test (4 or more on each side make one); a row changed when its values did\n",
			old.File.Rounds, cur.File.Rounds)
	}
	fmt.Fprintln(w)
	// Changed rows first, the largest changes first; ties keep the
	// study's order.
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].changed != rows[j].changed {
			return rows[i].changed
		}
		return math.Abs(rows[i].pct) > math.Abs(rows[j].pct)
	})
	points := false
	for _, r := range rows {
		points = points || r.key.point != "default"
	}
	folded := 0
	for _, r := range rows {
		if !r.changed && !o.All {
			folded++
		}
	}
	if folded == len(rows) {
		fmt.Fprintf(w, "no series changed (%d compared; --all prints them)\n", len(rows))
		verdictChanges(w, old, cur)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "target\tworkload\t"
	if points {
		head += "point\t"
	}
	fmt.Fprintln(tw, head+"op\tmetric\tOLD\tNEW\tchange\t")
	for _, r := range rows {
		if !r.changed && !o.All {
			continue
		}
		k := r.key
		line := k.target + "\t" + k.workload + "\t"
		if points {
			line += k.point + "\t"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t\n", line, k.op, metricLabel(k.metric, r.unit), r.old, r.new, r.change)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if folded > 0 {
		what := "unchanged"
		if testable {
			what = "without a significant change"
		}
		fmt.Fprintf(w, "%d of %d series %s (--all prints them)\n", folded, len(rows), what)
	}
	verdictChanges(w, old, cur)
	return nil
}

// compareRow is one series of both studies, formatted.
type compareRow struct {
	key              seriesKey
	unit             string
	old, new, change string
	pct              float64 // the change in percent; 0 when not a number
	testable         bool    // both sides have the rounds for a test
	changed          bool
}

func compareSeries(k seriesKey, unit string, ov, nv []float64) compareRow {
	s1 := benchmath.NewSample(append([]float64(nil), ov...), &benchmath.DefaultThresholds)
	s2 := benchmath.NewSample(append([]float64(nil), nv...), &benchmath.DefaultThresholds)
	c := benchmath.AssumeNothing.Compare(s1, s2)
	m1 := benchmath.AssumeNothing.Summary(s1, confidence).Center
	m2 := benchmath.AssumeNothing.Summary(s2, confidence).Center
	r := compareRow{key: k, unit: unit, old: withRange(m1, s1.Values), new: withRange(m2, s2.Values)}
	r.testable = c.P <= c.Alpha || len(c.Warnings) == 0
	switch {
	case m1 == m2:
		r.change = "0"
	case m1 == 0:
		r.change = "from 0"
	default:
		r.pct = (m2/m1 - 1) * 100
		r.change = fmt.Sprintf("%+.1f%%", r.pct)
	}
	if r.testable {
		r.changed = c.P <= c.Alpha
		if !r.changed {
			r.change = "~ " + r.change
		}
		r.change += fmt.Sprintf(" (p=%.3f)", c.P)
	} else {
		r.changed = !equal(s1.Values, s2.Values)
	}
	return r
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// withRange prints a median and, over several rounds, the range across
// them (sorted values); a single round has no range to show.
func withRange(m float64, sorted []float64) string {
	if len(sorted) < 2 {
		return plainNumber(m)
	}
	return fmt.Sprintf("%s [%s–%s]", plainNumber(m), plainNumber(sorted[0]), plainNumber(sorted[len(sorted)-1]))
}

// plainNumber prints v without an exponent: whole numbers from 1,000 up,
// four significant digits below.
func plainNumber(v float64) string {
	if math.Abs(v) >= 1000 || v == math.Trunc(v) {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// metricLabel is a metric with its unit, "p99 µs".
func metricLabel(metric, unit string) string {
	if unit == "" {
		return metric
	}
	return metric + " " + unit
}

// describeRun says what a study directory holds: the study, its rounds and
// whether it was a quick run.
func describeRun(d *Data) string {
	s := fmt.Sprintf("%s, %d round", d.File.Name, d.File.Rounds)
	if d.File.Rounds != 1 {
		s += "s"
	}
	if d.Manifest.Quick {
		s += ", --quick"
	}
	return s
}

// setupDifferences lists what differs between the setups of two study
// runs: the study, the targets, the servers' versions, the workloads'
// properties and docbench's version.
func setupDifferences(old, cur *Data) []string {
	var out []string
	if old.File.Name != cur.File.Name {
		out = append(out, fmt.Sprintf("study %s → %s", old.File.Name, cur.File.Name))
	}
	if old.Manifest.Quick != cur.Manifest.Quick {
		out = append(out, fmt.Sprintf("--quick %t → %t", old.Manifest.Quick, cur.Manifest.Quick))
	}
	ot, ct := old.setups(), cur.setups()
	names := map[string]string{}
	for n := range ot {
		names[n] = n
	}
	for n := range ct {
		names[n] = n
	}
	for _, name := range sortedKeys(names) {
		a, okA := ot[name]
		b, okB := ct[name]
		switch {
		case !okA:
			out = append(out, "target "+name+" only in NEW")
		case !okB:
			out = append(out, "target "+name+" only in OLD")
		default:
			if a.target != b.target {
				out = append(out, fmt.Sprintf("target %s: %s → %s", name, a.target, b.target))
			}
			if a.version != b.version {
				out = append(out, fmt.Sprintf("target %s: server %s → %s", name, a.version, b.version))
			}
			if a.tool != b.tool {
				out = append(out, fmt.Sprintf("docbench %s → %s", a.tool, b.tool))
			}
		}
	}
	ow, cw := old.workloadProps(), cur.workloadProps()
	wls := map[string]string{}
	for wl := range ow {
		wls[wl] = wl
	}
	for _, wl := range sortedKeys(wls) {
		b, ok := cw[wl]
		if !ok {
			continue // a workload of one study only has no series in common
		}
		if diffs := report.PropertyDifferences(ow[wl], b); len(diffs) > 0 {
			out = append(out, "workload "+wl+": "+strings.Join(diffs, ", "))
		}
	}
	var once []string
	for _, x := range out {
		once = appendOnce(once, x) // docbench's version, said once for all targets
	}
	return once
}

// targetSetup is what a study's results say of one of its targets.
type targetSetup struct{ target, version, tool string }

// setups reads each target's setup off its first result.
func (d *Data) setups() map[string]targetSetup {
	out := map[string]targetSetup{}
	for _, run := range d.Manifest.Runs {
		res := d.Results[run.File]
		if res == nil {
			continue
		}
		if _, ok := out[run.Target]; !ok {
			ver := res.Target.Backend
			if res.Target.Version != "" {
				ver += " " + res.Target.Version
			}
			// A file the study keeps in its own directory (SQLite's) is
			// the same target in every run of the study.
			target := strings.ReplaceAll(res.Target.Target, d.Dir, "<study dir>")
			out[run.Target] = targetSetup{target: target, version: ver, tool: res.Tool.Version}
		}
	}
	return out
}

// workloadProps reads each workload's effective properties off its first
// result (the point and the target's own properties aside, which differ
// by design).
func (d *Data) workloadProps() map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, run := range d.Manifest.Runs {
		res := d.Results[run.File]
		if res == nil || run.Workload == "load" {
			continue
		}
		if _, ok := out[run.Workload]; ok {
			continue
		}
		props := map[string]string{}
		for k, v := range res.Workload.Properties {
			props[k] = v
		}
		for _, kv := range run.Point {
			delete(props, kv.Key)
		}
		out[run.Workload] = props
	}
	return out
}
