package study

import (
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/report"
)

// compareData is a study read back with the given per-round values of
// postgres's READ p99 and throughput, its server at version ver.
func compareData(dir, ver string, recordcount string, p99, tput []float64) *Data {
	f := &File{Name: "quickstart", Rounds: len(p99)}
	res := &report.Result{Target: report.Target{Target: "postgres:embedded", Backend: "postgres", Version: ver},
		Workload: report.Workload{Properties: map[string]string{"recordcount": recordcount}}}
	d := &Data{Dir: dir, File: f, Manifest: &Manifest{Runs: []Run{{Target: "postgres", Workload: "workloada", File: "r.json"}}},
		Results: map[string]*report.Result{"r.json": res}, values: map[seriesKey][]float64{}}
	add := func(op, metric, unit string, vs []float64) {
		d.values[seriesKey{"postgres", "workloada", "default", op, metric}] = vs
		d.Rows = append(d.Rows, report.Row{Target: "postgres", Workload: "workloada", Op: op, Metric: metric, Unit: unit, N: len(vs)})
	}
	add("ALL", "throughput", "ops/s", tput)
	add("READ", "p99", "µs", p99)
	add("READ", "errors", "ops", make([]float64, len(p99)))
	return d
}

// TestCompareOneRunEach: with one round a side, no test and no spread; the
// changed rows first with their change in percent, no exponent; the
// unchanged ones counted; a setup difference warned about.
func TestCompareOneRunEach(t *testing.T) {
	old := compareData("old", "18.6", "20000", []float64{11160}, []float64{3600})
	cur := compareData("new", "18.7", "2000", []float64{12832.4}, []float64{3300})
	var b strings.Builder
	if err := writeCompare(&b, old, cur, CompareOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"\n  target postgres: server postgres 18.6 → postgres 18.7",
		"\n  workload workloada: recordcount 20000 → 2000",
		"one run each: no significance test",
		"READ  p99 µs            11160  12832  +15.0%",
		"1 of 3 series unchanged (--all prints them)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("compare output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"e+0", "±∞", "n=1", "[11160–11160]"} {
		if strings.Contains(out, bad) {
			t.Errorf("compare output has %q:\n%s", bad, out)
		}
	}
	if strings.Index(out, "p99") > strings.Index(out, "throughput") {
		t.Errorf("the larger change (p99 +15%%) is not first:\n%s", out)
	}
}

// TestCompareRounds: with enough rounds the U test decides; an
// insignificant change is folded.
func TestCompareRounds(t *testing.T) {
	old := compareData("old", "18.6", "2000", []float64{100, 101, 102, 103, 104, 105}, []float64{1000, 1010, 990, 1005, 995, 1001})
	cur := compareData("new", "18.6", "2000", []float64{200, 201, 202, 203, 204, 205}, []float64{1002, 995, 1008, 992, 1000, 1003})
	var b strings.Builder
	if err := writeCompare(&b, old, cur, CompareOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Mann–Whitney U", "102.5 [100–105]", "+97.6% (p=0.002)", "2 of 3 series without a significant change"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "warning") {
		t.Errorf("equal setups warned about:\n%s", out)
	}
}
