package study

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
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

// TestCapacityCaveatsTravel: a sustainable rate that was not confirmed,
// with its band, generator-limited, of one round, says so in words in
// summary.txt, summary.md, report.html and results.csv, and report.html
// has its trials.
func TestCapacityCaveatsTravel(t *testing.T) {
	dir := t.TempDir()
	yaml := "name: cap\ntargets: [{name: s, target: \"sqlite:x.db\"}]\nworkloads: [{name: w, workload: workloada}]\n" +
		"capacity: {slo: \"p99<5ms\", trial: 5s, precision: 25%, max_time: 25s}\n"
	if err := os.WriteFile(filepath.Join(dir, "study.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	res := &report.Result{Schema: report.Schema, Phase: "capacity", Complete: true, Capacity: &report.Capacity{SLO: []string{"p99<5ms"},
		Confidence: 0.95, Precision: 0.25, Rate: 1000, LowestFail: 2000, Limit: "max-time", GeneratorLimited: "the client's CPU was busy",
		Band: &report.CapacityBand{Holds: 1000, Fails: 2000}, Trials: []report.Trial{{N: 1, Stage: "bracket", Rate: 2000, Verdict: "p99<5ms: 9ms"}}}}
	b, err := report.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "results", "cap.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	m := Manifest{Study: "cap", Rounds: 1, Runs: []Run{{Target: "s", Workload: "w", Round: 1, File: "results/cap.json", Capacity: true}}}
	mb, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, "runs.json"), mb, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteOutputs(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"summary.txt", "summary.md", "report.html", "results.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		s := html.UnescapeString(string(b))
		for _, w := range []string{"holds 1,000 ops/s at p99<5ms (95% confidence); fails at 2,000", "generator-limited", "not confirmed (max-time)", "one round"} {
			if !strings.Contains(s, w) {
				t.Errorf("%s lacks %q:\n%s", name, w, s)
			}
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "report.html")); !strings.Contains(html.UnescapeString(string(b)), "trial 1 (bracket) at 2,000 ops/s") {
		t.Errorf("report.html lacks the search's trials")
	}
}
