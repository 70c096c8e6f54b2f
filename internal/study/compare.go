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
	All     bool     // after the summary, print every series compared
}

// summaryLimit is how many changed series the summary lists at most.
const summaryLimit = 10

// Compare prints how a new study directory differs from an old one,
// benchstat's way: first a summary of the series that changed beyond the
// noise — those whose rounds the Mann–Whitney U test finds different at
// α=0.05 — largest change first, each with its medians (and the range
// across rounds), its change in percent and its p-value; when the rounds
// are too few for the test (one round, or fewer than 4 on each side), it
// says it cannot tell and ranks nothing. The other series are counted;
// o.All prints every series after the summary, in the study's order. It
// warns first when the two setups differ.
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
	n1, n2 := 0, 0 // the most rounds of a series on each side
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
		n1, n2 = max(n1, len(ov)), max(n2, len(cur.values[k]))
		rows = append(rows, cr)
	}
	if len(rows) == 0 {
		return fmt.Errorf("compare %s %s: the two studies have no series in common (same study, targets and points?)", oldDir, newDir)
	}
	var changed []compareRow
	tested := 0
	points := false
	for _, r := range rows {
		points = points || r.key.point != "default"
		if r.tested {
			tested++
		}
		if r.changed {
			changed = append(changed, r)
		}
	}
	// The largest changes first; ties keep the study's order.
	sort.SliceStable(changed, func(i, j int) bool { return changed[i].effect > changed[j].effect })

	fmt.Fprintln(w)
	switch {
	case tested == 0:
		fmt.Fprintf(w, "%s: cannot tell what changed beyond the noise\n", roundsEach(n1, n2))
		fmt.Fprintln(w, "(the significance test needs 4 or more rounds on each side: rounds: 4 in the study, not --quick)")
	case len(changed) == 0:
		fmt.Fprintf(w, "nothing changed beyond the noise (Mann–Whitney U test at α=0.05, %s)\n", roundsEach(n1, n2))
	default:
		fmt.Fprintln(w, "changed beyond the noise (Mann–Whitney U test at α=0.05), largest change first:")
		shown := changed
		if len(shown) > summaryLimit && !o.All {
			shown = shown[:summaryLimit]
		}
		if err := writeCompareTable(w, shown, points, true, false); err != nil {
			return err
		}
		if more := len(changed) - len(shown); more > 0 {
			fmt.Fprintf(w, "and %d more series changed beyond the noise\n", more)
		}
	}
	// The rest, folded: counted, or printed with --all.
	var rest []string
	if n := tested - len(changed); n > 0 {
		rest = append(rest, fmt.Sprintf("%d without a significant change", n))
	}
	if n := len(rows) - tested; n > 0 && tested > 0 {
		rest = append(rest, fmt.Sprintf("%d with too few rounds to test", n))
	}
	if !o.All {
		if len(rest) > 0 {
			fmt.Fprintf(w, "%d series compared: %s (--all prints every series)\n", len(rows), strings.Join(rest, ", "))
		} else {
			fmt.Fprintf(w, "%d series compared (--all prints every series)\n", len(rows))
		}
		verdictChanges(w, old, cur)
		return nil
	}
	how := "~: not significant at α=0.05"
	switch {
	case tested == 0:
		how = "untested: " + roundsEach(n1, n2)
	case tested < len(rows):
		how += "; untested: too few rounds"
	}
	fmt.Fprintf(w, "\nall %d series, in the study's order (%s):\n", len(rows), how)
	if err := writeCompareTable(w, rows, points, false, tested > 0); err != nil {
		return err
	}
	verdictChanges(w, old, cur)
	return nil
}

// roundsEach says how many rounds each side has: "one round each", "6
// rounds each", "3 and 6 rounds".
func roundsEach(n1, n2 int) string {
	switch {
	case n1 == 1 && n2 == 1:
		return "one round each"
	case n1 == n2:
		return fmt.Sprintf("%d rounds each", n1)
	default:
		return fmt.Sprintf("%d and %d rounds", n1, n2)
	}
}

// writeCompareTable prints rows under a header; in the summary, the
// significance has a column of its own ("p=0.002, 6 rounds each"), in the
// full table it follows the change ("~ +0.4% (p=0.937)"), and a row the
// test could not judge says so when others were judged.
func writeCompareTable(w io.Writer, rows []compareRow, points, summary, markUntested bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "target\tworkload\t"
	if points {
		head += "point\t"
	}
	head += "op\tmetric\tOLD\tNEW\tchange"
	if summary {
		head += "\tsignificance"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		k := r.key
		line := k.target + "\t" + k.workload + "\t"
		if points {
			line += k.point + "\t"
		}
		line += k.op + "\t" + metricLabel(k.metric, r.unit) + "\t" + r.old + "\t" + r.new + "\t"
		switch {
		case summary:
			line += r.change + "\t" + fmt.Sprintf("p=%.3f, %s", r.p, roundsEach(r.n1, r.n2))
		case r.tested && !r.changed:
			line += fmt.Sprintf("~ %s (p=%.3f)", r.change, r.p)
		case r.tested:
			line += fmt.Sprintf("%s (p=%.3f)", r.change, r.p)
		case markUntested:
			line += r.change + " (untested)"
		default:
			line += r.change
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// compareRow is one series of both studies, formatted.
type compareRow struct {
	key              seriesKey
	unit             string
	old, new, change string
	effect           float64 // the size of the change: |percent|, +Inf from 0
	tested           bool    // both sides have the rounds for the U test
	changed          bool    // tested, and different at α
	p                float64 // the U test's p-value, when tested
	n1, n2           int     // the rounds on each side
}

func compareSeries(k seriesKey, unit string, ov, nv []float64) compareRow {
	s1 := benchmath.NewSample(append([]float64(nil), ov...), &benchmath.DefaultThresholds)
	s2 := benchmath.NewSample(append([]float64(nil), nv...), &benchmath.DefaultThresholds)
	c := benchmath.AssumeNothing.Compare(s1, s2)
	m1 := benchmath.AssumeNothing.Summary(s1, confidence).Center
	m2 := benchmath.AssumeNothing.Summary(s2, confidence).Center
	r := compareRow{key: k, unit: unit, old: withRange(m1, s1.Values), new: withRange(m2, s2.Values),
		n1: len(ov), n2: len(nv), p: c.P}
	switch {
	case m1 == m2:
		r.change = "0"
	case m1 == 0:
		r.change = "from 0"
		r.effect = math.Inf(1)
	default:
		pct := (m2/m1 - 1) * 100
		r.effect = math.Abs(pct)
		r.change = fmt.Sprintf("%+.1f%%", pct)
	}
	r.tested = report.CanTest(len(ov), len(nv))
	r.changed = r.tested && c.P <= c.Alpha
	return r
}

// withRange prints a median and, over several rounds, the range across
// them (sorted values); a single round, or equal rounds, have no range to
// show.
func withRange(m float64, sorted []float64) string {
	if len(sorted) < 2 || sorted[0] == sorted[len(sorted)-1] {
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
