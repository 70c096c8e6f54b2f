package study

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestParseReportsEveryProblemWithItsLine(t *testing.T) {
	src := `name: broken
workloads:
  - {workload: workloada, colour: red}
sweep:
  - {property: threads, values: [1, 2]}
  - {property: threads, values: [4]}
rounds: -1
protocol: lukewarm
charts:
  - {x: clients, y: "p42:READ"}
frobnicate: yes
`
	_, err := Parse("broken.yaml", []byte(src))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`broken.yaml:3:27: unknown key "colour" in workloads`,
		`broken.yaml:6:5: sweep[1]: threads swept twice`,
		`broken.yaml:7:1: rounds: -1`,
		`broken.yaml:8:1: protocol: "lukewarm"`,
		`broken.yaml:10:5: charts[0]: x: "clients" is not a swept property`,
		`broken.yaml:10:5: charts[0]: y: "p42:READ"`,
		`broken.yaml:11:1: unknown key "frobnicate" in the study`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}

func TestBuiltinStudiesParse(t *testing.T) {
	names := Names()
	for _, want := range []string{"index-strategy", "concurrency", "document-size", "partial-update", "slice-read", "nesting",
		"array-search", "containment", "doc-vs-relational", "hstore", "aggregate", "blog-aggregate", "quickstart", "versions"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("built-in study %s missing", want)
		}
	}
	for _, n := range names {
		f, err := Load(n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if f.Cites == "" || f.Reported == "" || f.Title == "" {
			t.Errorf("%s: a built-in study cites its seed and what it reported", n)
		}
		// --scale source works on every study: it runs at the source's
		// sizes, or says why the full length already is them.
		if sc, ok := f.Scale["source"]; !ok || sc.Says == "" {
			t.Errorf("%s: a built-in study has a scale: source profile that says what it is", n)
		} else if err := f.ApplyScale("source"); err != nil {
			t.Errorf("%s: --scale source: %v", n, err)
		}
		// Every combination validates, and each target's workloads run on
		// the data it loads (sameData), with the study's opt-in targets too.
		with := map[string]string{}
		for name := range f.With {
			with[name] = ""
			if name == "mongodb" {
				with[name] = "mongodb://127.0.0.1:1/docbench"
			}
		}
		if _, err := prepare(f, RunOptions{Out: filepath.Join(t.TempDir(), "out"), With: with}); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

func TestPointsAndQuick(t *testing.T) {
	f, err := Parse("s.yaml", []byte(`workloads: [{workload: workloada}]
sweep:
  - {property: threads, values: [1, 2, 4, 8, 16]}
  - {property: document.size, values: [512, 4096]}
`))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.points()); n != 10 {
		t.Fatalf("%d points, want 5×2", n)
	}
	f.ApplyQuick()
	pts := f.points()
	if len(pts) != 4 || pts[0][0].Value != "1" || pts[len(pts)-1][0].Value != "16" || f.Rounds != 1 {
		t.Fatalf("quick points %v rounds %d: want first and last of each sweep, 1 round", pts, f.Rounds)
	}
}

// quick.sweep names the values a smoke run takes (two PostgreSQL
// versions), and only of a property the study sweeps.
func TestQuickSweep(t *testing.T) {
	f, err := Parse("s.yaml", []byte(`workloads: [{workload: workloada}]
targets: [{name: pg, target: "postgres:embedded"}]
sweep:
  - {property: pg.version, values: [10, 13, 16, 18]}
quick: {sweep: [{property: pg.version, values: [13, 18]}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	f.ApplyQuick()
	if pts := f.points(); len(pts) != 2 || pts[0][0].Value != "13" || pts[1][0].Value != "18" {
		t.Fatalf("quick points %v, want pg.version 13 and 18", pts)
	}
	_, err = Parse("s.yaml", []byte(`workloads: [{workload: workloada}]
sweep:
  - {property: pg.version, values: [10, 18]}
quick: {sweep: [{property: threads, values: [1, 2]}]}
`))
	if err == nil || !strings.Contains(err.Error(), `s.yaml:4:1: quick.sweep: "threads": give values of a property the study sweeps`) {
		t.Errorf("quick.sweep of a property not swept: %v", err)
	}
}

func TestDatasetsShareLoadsAcrossRunOnlyProperties(t *testing.T) {
	f, err := Parse("s.yaml", []byte(`workloads: [{workload: workloada}]
sweep:
  - {property: threads, values: [1, 2]}
  - {property: document.size, values: [512, 4096]}
`))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, pt := range f.points() {
		p, _, err := f.props(TargetSpec{Name: "x", Target: "null:"}, &f.Workloads[0], pt, "s.yaml")
		if err != nil {
			t.Fatal(err)
		}
		keys[datasetKey("null:", p)] = true
	}
	if len(keys) != 2 {
		t.Fatalf("%d data sets, want 2 (one per document.size; threads only changes the run)", len(keys))
	}
}

// Negative durations and counts, bad thresholds: every problem at once,
// each with its line.
func TestStudyValuesValidated(t *testing.T) {
	src := `name: v
warmup: -5s
duration: 10s
thresholds: ["p99(READ)<<5ms"]
workloads:
  - workload: workloada
    thresholds: ["throughput>abc"]
quick:
  values: -3
  rounds: 1
`
	_, err := Parse("v.yaml", []byte(src))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"v.yaml:2:1: warmup: -5s: must not be negative", "v.yaml:4:1: thresholds:", "v.yaml:6:5: workloads[0]: thresholds:", "v.yaml:9:3: quick.values: -3"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func FuzzParseStudy(f *testing.F) {
	f.Add([]byte("name: x\nworkloads:\n  - workload: workloada\n"))
	f.Add([]byte("warmup: -5s\nquick: {values: -3}\nworkloads: [{workload: workloadc, thresholds: ['p99<5ms']}]\n"))
	f.Add([]byte("sweep:\n  - property: threads\n    values: [1, 2]\nworkloads:\n  - workload: workloada\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		if file.Warmup < 0 || file.Duration < 0 || file.Quick.Values < 0 || file.Rounds < 1 || len(file.Workloads) == 0 {
			t.Fatalf("accepted %+v", file)
		}
	})
}

// The runs' notes that differ only in their numbers are one line per
// target, with how many runs said the same.
func TestAlikeNotes(t *testing.T) {
	var a alikeNotes
	a.add("postgres@9.6", "the duration (10s) ended the phase before operationcount=100000000: 74870 done")
	a.add("postgres@18", "the duration (10s) ended the phase before operationcount=100000000: 70001 done")
	a.add("postgres@9.6", "the duration (10s) ended the phase before operationcount=100000000: 165872 done")
	a.add("postgres@9.6", "the duration (10s) ended the phase before operationcount=100000000: 1.5 done")
	a.add("postgres@9.6", "plan: Seq Scan")
	want := []string{
		"postgres@9.6: the duration (10s) ended the phase before operationcount=100000000: 74870 done (and 2 more runs, each with its own figures)",
		"postgres@18: the duration (10s) ended the phase before operationcount=100000000: 70001 done",
		"postgres@9.6: plan: Seq Scan",
	}
	if got := a.notes(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
