package study

import (
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/report"
)

// firstScreenData is a quick one-round study of postgres and sqlite on
// workload A, with mongodb skipped.
func firstScreenData() *Data {
	res := &report.Result{Complete: true, Environment: report.Environment{CPUs: 2, CPUModel: "AMD EPYC"}}
	d := &Data{File: &File{Name: "quickstart", Rounds: 1, Workloads: []WorkloadSpec{{Name: "workloada", Workload: "workloada"}}},
		Manifest: &Manifest{Quick: true, Targets: map[string]string{
			"postgres": "postgres:embedded", "sqlite": "sqlite:/tmp/s.db", "mongodb": "mongodb://db.example.net/x"},
			Runs: []Run{
				{Target: "postgres", Workload: "workloada", File: "p.json"},
				{Target: "sqlite", Workload: "workloada", File: "s.json"},
				{Target: "mongodb", Workload: "load", NotApplicable: "cannot reach db.example.net:27017"},
			}},
		Results: map[string]*report.Result{"p.json": res, "s.json": res}}
	for _, r := range []report.Row{
		{Target: "postgres", Workload: "workloada", Op: "ALL", Metric: "throughput", Median: 3600},
		{Target: "postgres", Workload: "workloada", Op: "UPDATE", Metric: "p99", Median: 2100},
		{Target: "sqlite", Workload: "workloada", Op: "ALL", Metric: "throughput", Median: 3300},
		{Target: "sqlite", Workload: "workloada", Op: "UPDATE", Metric: "p99", Median: 8600},
		{Target: "sqlite", Workload: "workloada", Op: "UPDATE", Metric: "max", Median: 1.3e6},
	} {
		r.N = 1
		d.Rows = append(d.Rows, r)
	}
	return d
}

// TestFirstScreen: the quick marker, then a line comparing every target
// with the worst tail, then the caveats: one round, the CPUs shared with
// the local servers, the skipped target with its reason.
func TestFirstScreen(t *testing.T) {
	got := firstScreenData().FirstScreen()
	want := []string{
		"QUICK RUN (--quick): a smoke test that the study works, not figures to quote",
		"workloada: postgres 3.60k ops/s, sqlite 3.30k (postgres 1.09× sqlite); highest p99: sqlite's UPDATE 8.6 ms, max 1.3 s",
		"one round per point: no spread across rounds is shown, and no claim can be more than inconclusive",
		"measured on 2 CPUs (AMD EPYC) shared by docbench's client and postgres, sqlite: each figure is of client and server together, on this machine",
		"no figures from mongodb: skipped, cannot reach db.example.net:27017",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("first screen:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSummariesOpenWithTheFindings: summary.txt and summary.md say what
// the study found before their tables, without a spread for one round;
// the skipped target is in the tables with its reason.
func TestSummariesOpenWithTheFindings(t *testing.T) {
	d := firstScreenData()
	txt := string(d.Text())
	md := string(d.markdown(d.Report()))
	for name, s := range map[string]string{"summary.txt": txt, "summary.md": md} {
		found, table := strings.Index(s, "postgres 3.60k ops/s"), strings.Index(s, "p99 µs")
		if found < 0 || table < 0 || found > table {
			t.Errorf("%s: the comparison (at %d) does not precede the table (at %d):\n%s", name, found, table, s)
		}
		if !strings.Contains(s, "QUICK RUN") || strings.Contains(s, "[3600–3600]") {
			t.Errorf("%s: no quick marker, or a spread of one round:\n%s", name, s)
		}
		if !strings.Contains(s[table:], "mongodb") || !strings.Contains(s[table:], "skipped, cannot reach") {
			t.Errorf("%s: the skipped target is not in the table with its reason:\n%s", name, s)
		}
	}
}

func TestExtraTargetName(t *testing.T) {
	for _, c := range []struct{ arg, name, target string }{
		{"mine=postgres://u:pw@db1/app", "mine", "postgres://u:pw@db1/app"},
		{"postgres://u:pw@db1/app?sslmode=disable", "postgres://u:***@db1/app", "postgres://u:pw@db1/app?sslmode=disable"},
		{"sqlite:/tmp/x.db", "sqlite:/tmp/x.db", "sqlite:/tmp/x.db"},
	} {
		if n, tg := ExtraTarget(c.arg); n != c.name || tg != c.target {
			t.Errorf("ExtraTarget(%q) = %q, %q; want %q, %q", c.arg, n, tg, c.name, c.target)
		}
	}
}
