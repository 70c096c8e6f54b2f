package study

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files: testdata, and docs/reproductions.md's sources and statements")

// series is one series of compareData: an operation's metric and its
// per-round values.
type series struct {
	op, metric, unit string
	values           []float64
}

// compareData is a study read back with the given series of postgres's
// workloada, its server at version ver.
func compareData(dir, ver string, recordcount string, ss ...series) *Data {
	f := &File{Name: "quickstart", Rounds: len(ss[0].values)}
	res := &report.Result{Target: report.Target{Target: "postgres:embedded", Backend: "postgres", Version: ver},
		Workload: report.Workload{Properties: map[string]string{"recordcount": recordcount}}}
	d := &Data{Dir: dir, File: f, Manifest: &Manifest{Runs: []Run{{Target: "postgres", Workload: "workloada", File: "r.json"}}},
		Results: map[string]*report.Result{"r.json": res}, values: map[seriesKey][]float64{}}
	for _, s := range ss {
		d.values[seriesKey{"postgres", "workloada", "default", s.op, s.metric}] = s.values
		d.Rows = append(d.Rows, report.Row{Target: "postgres", Workload: "workloada", Op: s.op, Metric: s.metric, Unit: s.unit, N: len(s.values)})
	}
	return d
}

// golden compares got with testdata/name (-update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", name), []byte(got), *update)
}

func compareOutput(t *testing.T, old, cur *Data, o CompareOptions) string {
	t.Helper()
	var b strings.Builder
	if err := writeCompare(&b, old, cur, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// oneRound is a one-round run of the same study with the noise of a short
// run: the extremes far apart, the centres a little.
func oneRound(dir string, tput, p50, p99, p9999, mx float64) *Data {
	return compareData(dir, "18.6", "2000",
		series{"ALL", "throughput", "ops/s", []float64{tput}},
		series{"READ", "p50", "µs", []float64{p50}},
		series{"READ", "p99", "µs", []float64{p99}},
		series{"READ", "p99.99", "µs", []float64{p9999}},
		series{"READ", "max", "µs", []float64{mx}},
		series{"READ", "errors", "ops", []float64{0}})
}

// TestCompareOneRoundEach: two one-round runs of the same study cannot
// tell what changed beyond the noise: the summary says so and lists
// nothing (least of all max's +6568.5%); --all prints every series in the
// study's order, untested.
func TestCompareOneRoundEach(t *testing.T) {
	old := oneRound("old", 3600, 410, 2100, 4900, 5362)
	cur := oneRound("new", 3312, 415, 2390, 61000, 357564)
	out := compareOutput(t, old, cur, CompareOptions{})
	golden(t, "compare-one-round.txt", out)
	if !strings.Contains(out, "\none round each: cannot tell what changed beyond the noise\n") ||
		!strings.HasSuffix(out, "\n6 series compared (--all prints every series)\n") {
		t.Errorf("want 'cannot tell' and the series counted:\n%s", out)
	}
	for _, bad := range []string{"max", "p99.99", "%", "changed beyond the noise (", "warning"} {
		if strings.Contains(out, bad) {
			t.Errorf("one round each, the output has %q:\n%s", bad, out)
		}
	}

	all := compareOutput(t, old, cur, CompareOptions{All: true})
	golden(t, "compare-one-round-all.txt", all)
	i, j := strings.Index(all, "throughput"), strings.Index(all, "max µs")
	if !strings.Contains(all, "all 6 series, in the study's order (untested: one round each):") || i < 0 || j < i ||
		!strings.Contains(all, "5362  357564  +6568.5%") {
		t.Errorf("--all: want every series in the study's order, untested:\n%s", all)
	}
	for _, bad := range []string{"e+0", "±∞", "n=1", "p=", "[5362–5362]"} {
		if strings.Contains(all, bad) {
			t.Errorf("--all output has %q:\n%s", bad, all)
		}
	}

	// A setup difference is warned about first.
	cur.Results["r.json"].Target.Version = "18.7"
	cur.Results["r.json"].Workload.Properties["recordcount"] = "20000"
	warned := compareOutput(t, old, cur, CompareOptions{})
	for _, want := range []string{
		"\nwarning: the setups differ, so a change may not be the one you made:\n",
		"\n  target postgres: server postgres 18.6 → postgres 18.7\n",
		"\n  workload workloada: recordcount 2000 → 20000\n",
	} {
		if !strings.Contains(warned, want) {
			t.Errorf("compare output lacks %q:\n%s", want, warned)
		}
	}
}

// TestCompareTooFewRounds: two or three rounds a side are too few for the
// test as well.
func TestCompareTooFewRounds(t *testing.T) {
	for _, n := range []int{2, 3} {
		old := compareData("old", "18.6", "2000", series{"READ", "p99", "µs", []float64{100, 101, 102}[:n]})
		cur := compareData("new", "18.6", "2000", series{"READ", "p99", "µs", []float64{200, 201, 202}[:n]})
		out := compareOutput(t, old, cur, CompareOptions{})
		if !strings.Contains(out, "rounds each: cannot tell what changed beyond the noise\n") || strings.Contains(out, "p99 µs") {
			t.Errorf("%d rounds each: want 'cannot tell' and nothing listed:\n%s", n, out)
		}
	}
}

// TestCompareRounds: with enough rounds the U test decides; the changes
// beyond the noise come first, the largest first, each with its p-value
// and rounds; a series of one round each (a load's) is not ranked however
// large its change; the rest are counted (--all prints them, ~ for not
// significant, "untested" for too few rounds).
func TestCompareRounds(t *testing.T) {
	old := compareData("old", "18.6", "2000",
		series{"ALL", "throughput", "ops/s", []float64{1000, 1010, 990, 1005, 995, 1001}},
		series{"READ", "p50", "µs", []float64{400, 401, 402, 403, 404, 405}},
		series{"READ", "p99", "µs", []float64{100, 101, 102, 103, 104, 105}},
		series{"READ", "max", "µs", []float64{5362, 9000, 357564, 7000, 12000, 6100}},
		series{"READ", "errors", "ops", make([]float64, 6)},
		series{"INSERT", "p99", "µs", []float64{50}})
	cur := compareData("new", "18.6", "2000",
		series{"ALL", "throughput", "ops/s", []float64{1002, 995, 1008, 992, 1000, 1003}},
		series{"READ", "p50", "µs", []float64{420, 421, 422, 423, 424, 425}},
		series{"READ", "p99", "µs", []float64{200, 201, 202, 203, 204, 205}},
		series{"READ", "max", "µs", []float64{8000, 5400, 6000, 250000, 9100, 7000}},
		series{"READ", "errors", "ops", make([]float64, 6)},
		series{"INSERT", "p99", "µs", []float64{900}})
	out := compareOutput(t, old, cur, CompareOptions{})
	golden(t, "compare-rounds.txt", out)
	for _, want := range []string{
		"\nchanged beyond the noise (Mann–Whitney U test at α=0.05), largest change first:\n",
		"102.5 [100–105]", "+97.6%  p=0.002, 6 rounds each",
		"\n6 series compared: 3 without a significant change, 1 with too few rounds to test (--all prints every series)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("compare output lacks %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "p99 µs"), strings.Index(out, "p50 µs"); i < 0 || j < i {
		t.Errorf("want p99 (+97.6%%) first, then p50 (+5%%):\n%s", out)
	}
	for _, bad := range []string{"max", "throughput", "errors", "INSERT", "warning"} {
		if strings.Contains(out, bad) {
			t.Errorf("the summary lists %q:\n%s", bad, out)
		}
	}

	all := compareOutput(t, old, cur, CompareOptions{All: true})
	golden(t, "compare-rounds-all.txt", all)
	for _, want := range []string{"all 6 series, in the study's order (~: not significant at α=0.05; untested: too few rounds):",
		"~ +0.0% (p=", "+97.6% (p=0.002)", "+1700.0% (untested)"} {
		if !strings.Contains(all, want) {
			t.Errorf("--all output lacks %q:\n%s", want, all)
		}
	}

	// The same study twice: nothing changed beyond the noise.
	same := compareOutput(t, old, old, CompareOptions{})
	if !strings.Contains(same, "\nnothing changed beyond the noise (Mann–Whitney U test at α=0.05, 6 rounds each)\n") {
		t.Errorf("the same study twice:\n%s", same)
	}
}

// TestCanTest: the U test at α=0.05 needs 4 rounds on each side, or 3
// against 5.
func TestCanTest(t *testing.T) {
	for _, c := range []struct {
		n1, n2 int
		want   bool
	}{{1, 1, false}, {2, 6, false}, {3, 3, false}, {3, 4, false}, {3, 5, true}, {4, 4, true}, {6, 6, true}, {0, 6, false}} {
		if got := report.CanTest(c.n1, c.n2); got != c.want {
			t.Errorf("CanTest(%d, %d) = %t, want %t", c.n1, c.n2, got, c.want)
		}
	}
}
