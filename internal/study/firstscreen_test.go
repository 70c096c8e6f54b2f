package study

import (
	"encoding/json"
	"html"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
		"workloada: postgres 3.60k ops/s, sqlite 3.30k (one round each: too few to tell a ratio from the noise); highest p99: sqlite's UPDATE 8.6 ms, max 1.3 s",
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
	writeCapacityStudy(t, dir, "name: cap\ntargets: [{name: s, target: \"sqlite:x.db\"}]\nworkloads: [{name: w, workload: workloada}]\n"+
		"capacity: {slo: \"p99<5ms\", trial: 5s, precision: 25%, max_time: 25s}\n",
		&report.Result{Schema: report.Schema, Phase: "capacity", Complete: true, Capacity: &report.Capacity{SLO: []string{"p99<5ms"},
			Confidence: 0.95, Precision: 0.25, Rate: 1000, LowestFail: 2000, Limit: "max-time", GeneratorLimited: "the client's CPU was busy",
			Band: &report.CapacityBand{Holds: 1000, Fails: 2000}, Trials: []report.Trial{{N: 1, Stage: "bracket", Rate: 2000, Verdict: "p99<5ms: 9ms"}}}})
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

// versionsDir writes a study directory of a versions study read back by
// Read: pg.version swept over 13, 16 and 18, workloada on ycsb only and
// deepest on two targets, 4 rounds; subscripting is not applicable on 13.
// Workload A gains 20% from 16 to 18 (rounds apart) and nothing from 13 to
// 16 (rounds interleaved); deepest-path's READ p50 falls 31% from 16 to 18.
func versionsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	yaml := `name: versions
targets:
  - {name: ycsb, target: "postgres:embedded"}
  - {name: deepest-path, target: "postgres:embedded", properties: {pg.pathop: path}}
  - {name: deepest-subscript, target: "postgres:embedded", properties: {pg.pathop: subscript}}
workloads:
  - {name: workloada, workload: workloada, targets: [ycsb]}
  - {name: deepest, workload: workloadc, targets: [deepest-path, deepest-subscript]}
sweep:
  - {property: pg.version, values: [13, 16, 18]}
rounds: 4
charts:
  - {x: pg.version, y: throughput, workload: workloada}
  - {x: pg.version, y: "p50:READ", workload: deepest}
`
	if err := os.WriteFile(filepath.Join(dir, "study.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := Manifest{Study: "versions", Rounds: 4, Targets: map[string]string{
		"ycsb": "postgres:embedded", "deepest-path": "postgres:embedded", "deepest-subscript": "postgres:embedded"}}
	n := 0
	write := func(target, wl, version string, round int, tput, p50 float64) {
		n++
		res := &report.Result{Schema: report.Schema, Complete: true, Throughput: tput,
			Environment: report.Environment{CPUs: 2},
			Ops:         []report.Op{{Name: "READ", Throughput: tput, Service: &report.Latency{P50: p50, P99: 4 * p50, Max: 10 * p50}}}}
		b, err := report.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join("results", strconv.Itoa(n)+".json")
		if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
			t.Fatal(err)
		}
		m.Runs = append(m.Runs, Run{Target: target, Workload: wl, Point: []KV{{Key: "pg.version", Value: version}}, Round: round, File: file})
	}
	for _, v := range []string{"13", "16", "18"} {
		pt := []KV{{Key: "pg.version", Value: v}}
		for round := 1; round <= 4; round++ {
			jitter := float64(round%2*2 - 1) // -1, +1: rounds interleave
			tput := map[string]float64{"13": 1000, "16": 1000, "18": 1200}[v] + 10*jitter
			p50 := map[string]float64{"13": 100, "16": 100, "18": 69}[v] + jitter
			write("ycsb", "workloada", v, round, tput, 50)
			m.Runs = append(m.Runs, Run{Target: "ycsb", Workload: "deepest", Point: pt, Round: round,
				NotApplicable: "workload deepest runs on deepest-path, deepest-subscript only"})
			for _, tg := range []string{"deepest-path", "deepest-subscript"} {
				m.Runs = append(m.Runs, Run{Target: tg, Workload: "workloada", Point: pt, Round: round,
					NotApplicable: "workload workloada runs on ycsb only"})
			}
			write("deepest-path", "deepest", v, round, 900, p50)
			if v == "13" {
				if round == 1 { // a point the target cannot run is a run of no workload
					m.Runs = append(m.Runs, Run{Target: "deepest-subscript", Point: pt,
						NotApplicable: "load: pg.pathop=subscript (jsonb subscripting needs PostgreSQL 14) is not supported by PostgreSQL 13.23"})
				}
			} else {
				write("deepest-subscript", "deepest", v, round, 900, 80+jitter)
			}
		}
	}
	mb, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, "runs.json"), mb, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestVersionChangesOpenTheFirstScreen: a study sweeping pg.version opens
// with a line per pair of adjacent versions, the newest first, each
// charted figure's change with the U test's verdict; a version that cannot
// run a figure says why. The workloads a target does not run by the
// study's design are not skips: no line, table or note says so.
func TestVersionChangesOpenTheFirstScreen(t *testing.T) {
	dir := versionsDir(t)
	d, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := d.FirstScreen()
	want := []string{
		"PostgreSQL 18 vs 16: workloada throughput +20.0% (significant, p=0.029); " +
			"deepest READ p50 on deepest-path -31.0% (significant, p=0.029); " +
			"deepest READ p50 on deepest-subscript 0 (not significant, p=1.000)",
		"PostgreSQL 16 vs 13: workloada throughput 0 (not significant, p=1.000); " +
			"deepest READ p50 on deepest-path 0 (not significant, p=1.000); " +
			"deepest READ p50 on deepest-subscript: none on 13 (skipped, load: pg.pathop=subscript (jsonb subscripting needs PostgreSQL 14) is not supported by PostgreSQL 13.23)",
	}
	if len(got) < 2 || strings.Join(got[:2], "\n") != strings.Join(want, "\n") {
		t.Errorf("first screen:\n%s\nwant it to open with:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := WriteOutputs(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"summary.txt", "summary.md", "report.html"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		s := html.UnescapeString(string(b))
		if name != "report.html" && !strings.Contains(s, want[0]) {
			t.Errorf("%s does not open with the version changes:\n%s", name, s)
		}
		if strings.Contains(s, "runs on") {
			t.Errorf("%s says a workload the study leaves out by design was skipped:\n%s", name, s)
		}
		if !strings.Contains(s, "jsonb subscripting needs PostgreSQL 14") {
			t.Errorf("%s lacks the real skip with its reason:\n%s", name, s)
		}
	}
}

// TestVersionChangesOneRound: one round each, the test cannot judge: the
// line says so once, and the versions compare as numbers (9.6 before 10).
func TestVersionChangesOneRound(t *testing.T) {
	d := &Data{File: &File{Name: "v", Rounds: 1, Workloads: []WorkloadSpec{{Name: "workloada", Workload: "workloada"}}},
		Manifest: &Manifest{Runs: []Run{{Target: "pg", Workload: "workloada"}, {Target: "old", Workload: "workloada"}}},
		points:   map[string][]KV{}, values: map[seriesKey][]float64{}}
	for v, tput := range map[string]float64{"9.6": 800, "10": 1000, "18": 1040} {
		pt := []KV{{Key: "pg.version", Value: v}}
		d.points[pointID(pt)] = pt
		d.values[seriesKey{"pg", "workloada", pointID(pt), "ALL", "throughput"}] = []float64{tput}
		d.Rows = append(d.Rows, report.Row{Target: "pg", Workload: "workloada", Point: pt, Op: "ALL", Metric: "throughput", Median: tput, N: 1})
	}
	// A second target that only 9.6 runs: the line says why the others
	// have no figure of it.
	pt := []KV{{Key: "pg.version", Value: "9.6"}}
	d.values[seriesKey{"old", "workloada", pointID(pt), "ALL", "throughput"}] = []float64{500}
	d.Rows = append(d.Rows, report.Row{Target: "old", Workload: "workloada", Point: pt, Op: "ALL", Metric: "throughput", Median: 500, N: 1})
	d.Manifest.Runs = append(d.Manifest.Runs, Run{Target: "old", Point: []KV{{Key: "pg.version", Value: "10"}}, NotApplicable: "gone in 10"})
	got := strings.Join(d.VersionChanges(), "\n")
	want := "PostgreSQL 18 vs 10 (one round each: cannot tell beyond the noise): workloada throughput on pg +4.0%\n" +
		"PostgreSQL 10 vs 9.6 (one round each: cannot tell beyond the noise): workloada throughput on pg +25.0%; " +
		"workloada throughput on old: none on 10 (skipped, gone in 10)"
	if got != want {
		t.Errorf("version changes:\n%s\nwant:\n%s", got, want)
	}
}

// headlineData is a study of targets a and b on workload C whose rounds'
// throughput are as, bs: rows and per-round values as Read makes them.
func headlineData(as, bs []float64) *Data {
	d := &Data{File: &File{Name: "h", Rounds: len(as)}, Manifest: &Manifest{Runs: []Run{{Target: "a"}, {Target: "b"}}},
		values: map[seriesKey][]float64{}}
	for _, s := range []struct {
		target string
		vs     []float64
	}{{"a", as}, {"b", bs}} {
		d.values[seriesKey{s.target, "workloadc", "default", "ALL", "throughput"}] = s.vs
		sorted := slices.Sorted(slices.Values(s.vs))
		d.Rows = append(d.Rows, report.Row{Target: s.target, Workload: "workloadc", Op: "ALL", Metric: "throughput",
			Median: sorted[len(sorted)/2], Min: sorted[0], Max: sorted[len(sorted)-1], N: len(sorted)})
	}
	return d
}

// TestHeadlineWithinTheNoise: a headline states a ratio between targets
// only when the rounds separate them. Two identical targets whose rounds
// spread widely (seeded draws from one range) are "within the noise",
// with each one's range; rounds that do not overlap give the ratio, and
// so do overlapping rounds whose medians' 95% intervals are apart; one
// round says it cannot tell.
func TestHeadlineWithinTheNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(52, 1))
	draw := func(n int, lo, hi float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = lo + rng.Float64()*(hi-lo)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		as, bs []float64
		want   string
	}{
		{"identical, wide spread", draw(20, 11056, 57755), draw(20, 11056, 57755), "(within the noise: "},
		{"separated, 20 rounds", draw(20, 29000, 31000), draw(20, 19000, 21000), "(a 1.5"},
		{"overlapping, 20 rounds", draw(20, 25000, 31000), draw(20, 19000, 25500), "(a 1.2"},
		{"separated, 3 rounds", draw(3, 29000, 31000), draw(3, 19000, 21000), "(a 1.5"},
		{"overlapping, 3 rounds", []float64{30000, 25000, 26000}, []float64{20000, 26500, 21000}, "(within the noise: a 25.0k–30.0k, b 20.0k–26.5k)"},
		{"one round", []float64{30000}, []float64{20000}, "(one round each: too few to tell a ratio from the noise)"},
	} {
		if strings.HasPrefix(tc.name, "overlapping") && slices.Max(tc.bs) < slices.Min(tc.as) {
			t.Fatalf("%s: the rounds do not overlap", tc.name)
		}
		got := headlineData(tc.as, tc.bs).Comparisons()
		if len(got) != 1 || !strings.Contains(got[0], tc.want) {
			t.Errorf("%s: %q, want it to contain %q", tc.name, got, tc.want)
		}
		if strings.Contains(tc.want, "noise") && strings.Contains(got[0], "×") {
			t.Errorf("%s: a ratio within the noise: %q", tc.name, got[0])
		}
	}
}
