package study

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/report"
)

func TestCapacitySpec(t *testing.T) {
	f, err := Load("index-strategy")
	if err != nil {
		t.Fatal(err)
	}
	c := f.Capacity
	if c == nil || c.Workload != "c" || c.Trial.D() != 10*time.Second {
		t.Fatalf("capacity: %+v", c)
	}
	if !f.capacityAt("pg-btree", []KV{{Key: "threads", Value: "16"}}, 0) || f.capacityAt("pg-btree", []KV{{Key: "threads", Value: "1"}}, 0) ||
		f.capacityAt("sqlite", []KV{{Key: "threads", Value: "16"}}, 0) {
		t.Error("capacityAt: want pg-btree and pg-gin at threads=16 only")
	}
	f.ApplyQuick()
	if run, err := f.capacityRun(); err != nil || run.Trial != time.Second || run.MaxTime > 15*time.Second {
		t.Errorf("quick capacity: %+v, %v", run, err)
	}
	q, err := Load("quickstart")
	if err != nil || q.Capacity == nil || q.Capacity.Workload != "workloada" || !q.capacityAt("postgres", nil, 1) || q.capacityAt("postgres", nil, 0) {
		t.Fatalf("quickstart capacity: %+v %v", q.Capacity, err)
	}
	for _, tc := range []struct{ yaml, want string }{
		{`capacity: {slo: "p99>5ms"}`, "upper bound"},
		{`capacity: {slo: "p99<5ms", workload: nosuch}`, `workload "nosuch"`},
		{`capacity: {slo: "p99<5ms", precision: abc}`, "precision"},
		{`capacity: {slo: "p99<5ms", point: {threads: "4"}}`, "not a swept property"},
		{`capacity: {slo: "p99<5ms", trail: 5s}`, `did you mean "trial"`},
	} {
		_, err := Parse("s.yaml", []byte("workloads: [{workload: workloada}]\n"+tc.yaml+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "s.yaml:2") {
			t.Errorf("%s: got %v, want an error at s.yaml:2 with %q", tc.yaml, err, tc.want)
		}
	}
}

// A sustainable rate the client bounded (generator-limited) is a lower
// bound: a verdict stands only if a higher rate there would not change it.
func TestCapacityLowerBound(t *testing.T) {
	f, err := Load("index-strategy")
	if err != nil {
		t.Fatal(err)
	}
	at16 := []KV{{Key: "threads", Value: "16"}}
	rate := func(target string, med, lo, hi float64) report.Row {
		return report.Row{Target: target, Workload: "c", Point: at16, Op: CapacityOp, Metric: CapacityMetric, Unit: "ops/s",
			Median: med, Min: lo, Max: hi, N: 3}
	}
	rows := []report.Row{rate("pg-btree", 26347, 25946, 26433), rate("pg-gin-path-ops", 20845, 17988, 21267)} // 1.26× (1.22–1.47) against ≥ 1.5×
	for _, tc := range []struct{ limited, verdict, why, measured string }{
		{"", NotReproduced, "", "ratio between 1.22 and 1.47 by"},
		{"pg-gin-path-ops", NotReproduced, "pg-gin-path-ops c threads=16's rate is a lower bound in 2 of 3 rounds (the client could not drive more: at 22929 ops/s: schedule lag): judged on the conservative side of the bands, the verdict holds anywhere in them", "ratio at most 1.47 by"},
		{"pg-btree", Inconclusive, "pg-btree c threads=16's rate is a lower bound in 2 of 3 rounds (the client could not drive more: at 22929 ops/s: schedule lag): judged on the conservative side of the bands, a rate within them could change the verdict (not reproduced on the holding edges)", "ratio at least 1.22 by"},
	} {
		var runs []Run
		results := map[string]*report.Result{}
		for _, target := range []string{"pg-btree", "pg-gin-path-ops"} {
			for round := 1; round <= 3; round++ {
				file := fmt.Sprintf("%s-r%d.json", target, round)
				runs = append(runs, Run{Target: target, Workload: "c", Point: at16, Round: round, File: file, Capacity: true})
				c := &report.Capacity{Rate: 20000, LowestFail: 21000, Limit: "slo"}
				if target == tc.limited && round != 2 {
					c.Limit, c.GeneratorLimited = "generator", "at 22929 ops/s: schedule lag"
				}
				results[file] = &report.Result{Capacity: c}
			}
		}
		d := &Data{File: f, Rows: rows, Manifest: &Manifest{Runs: runs}, Results: results}
		fd := d.Findings()[4]
		if !strings.Contains(fd.Says, "sustains") {
			t.Fatalf("finding 4 is %q: want the capacity claim", fd.Says)
		}
		if fd.Verdict != tc.verdict || !strings.HasSuffix(fd.Why, tc.why) || tc.why == "" && fd.Why != "" || !strings.Contains(fd.Measured, tc.measured) {
			t.Errorf("limited %q: %s, why %q, measured %q; want %s, why ending %q, %q", tc.limited, fd.Verdict, fd.Why, fd.Measured, tc.verdict, tc.why, tc.measured)
		}
	}
}

// TestCapacityCaveatInResults: a sustainable rate's row of results.csv
// carries its band, confidence and confirmation in words, round by round.
func TestCapacityCaveatInResults(t *testing.T) {
	dir := t.TempDir()
	writeCapacityStudy(t, dir, "name: cap\ntargets: [{name: s, target: \"sqlite:x.db\"}]\nworkloads: [{name: w, workload: workloadc}]\n"+
		"capacity: {slo: \"p99<5ms\"}\n",
		&report.Result{Schema: report.Schema, Phase: "capacity", Complete: true, Capacity: &report.Capacity{SLO: []string{"p99<5ms"},
			Confidence: 0.95, Rate: 9700, LowestFail: 10700, Limit: "noise", Band: &report.CapacityBand{Holds: 9700, Fails: 10700, Undecided: []float64{10200}}}})
	csvb, err := os.ReadFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := "round 1: holds 9,700 ops/s at p99<5ms (95% confidence); fails at 10,700; 9,700–10,700 is within this target's noise (10,200 undecided); not confirmed by a last look"
	if !strings.HasSuffix(strings.SplitN(string(csvb), "\n", 2)[0], ",quick,caveat") || !strings.Contains(string(csvb), want) {
		t.Errorf("results.csv:\n%s\nwant the caveat %q", csvb, want)
	}
}

// writeCapacityStudy writes a study directory of one capacity search: its
// study file, the search's result as a run of target s, workload w, and
// the outputs made of them.
func writeCapacityStudy(t *testing.T, dir, yaml string, res *report.Result) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "study.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
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
}
