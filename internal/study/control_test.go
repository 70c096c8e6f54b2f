package study

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/testutil"
)

// Every measured run of a study carries the control taken just before it
// (the kernel, the round trip to its server) in its result file; the
// load does not, and the summary states the control's drift.
func TestControlBesideEachRun(t *testing.T) {
	t.Setenv(controlEnv, "on")
	f, err := Parse("control.yaml", []byte(`name: control
title: a control per run
targets:
  - {name: lite, target: "sqlite:control.db"}
properties: {recordcount: 100}
workloads:
  - {name: read, workload: workloadc}
rounds: 3
duration: 100ms
`))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var log strings.Builder
	m, err := Conduct(context.Background(), f, RunOptions{Out: dir, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	runs := 0
	for _, r := range m.Runs {
		b, err := os.ReadFile(filepath.Join(dir, r.File))
		if err != nil {
			t.Fatalf("%s: %v\n%s", r.File, err, log.String())
		}
		var res struct {
			Control *report.Control `json:"control"`
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		switch c := res.Control; {
		case r.Workload == loadWorkload && c != nil:
			t.Errorf("%s: a load with a control: %+v", r.File, *c)
		case r.Workload == loadWorkload:
		case c == nil || c.KernelUS <= 0 || c.RoundTripUS <= 0 || c.RoundTripAbsent != "":
			t.Errorf("%s: control %+v, want a kernel and a round trip", r.File, c)
		default:
			runs++
		}
	}
	if runs != 3 {
		t.Errorf("%d runs with a control, want 3", runs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "machine-speed control before each of 3 runs: the client kernel took ") {
		t.Errorf("summary.md does not state the control's drift:\n%s", b)
	}
}

// statementless is a store whose sessions run no statements of the
// user's: the round trip is then a read of an absent key.
type statementless struct{ db.Store }

func (s statementless) NewSession(ctx context.Context) (db.Session, error) {
	sess, err := s.Store.NewSession(ctx)
	return struct{ db.Session }{sess}, err
}

// The round trip is timed on every kind of server: by SELECT 1 where the
// session runs statements (PostgreSQL), by a read of an absent key where
// it does not (the MongoDB peer, and PostgreSQL without statements).
func TestControlRoundTrip(t *testing.T) {
	for _, target := range []string{
		testutil.FreshDatabase(t, testutil.Postgres(t, "debian")),
		testutil.FreshMongoDatabase(t, testutil.MongoDB(t)),
	} {
		ctx := context.Background()
		props := map[string]string{}
		s, err := db.Open(ctx, db.OpenRequest{Target: target, Props: props, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Setup(ctx, db.Schema{Table: "usertable", Fields: []string{"field0"}}, true); err != nil {
			t.Fatal(err)
		}
		for _, st := range []db.Store{s, statementless{s}} {
			if us, err := controlRoundTrip(ctx, st); err != nil || us <= 0 {
				t.Errorf("%s (%T): round trip %v µs, %v", target, st, us, err)
			}
		}
		s.Close()
	}
}

// writeControlStudy writes a study directory of targets a and b, six
// rounds each of workload w, every run with a control: the kernel at
// 1 ms and the round trip at 50 µs, but kernel[target][round] and
// roundTrip[target][round] where given.
func writeControlStudy(t *testing.T, kernel, roundTrip map[string]map[int]float64) string {
	t.Helper()
	dir := t.TempDir()
	yaml := "name: ctl\ntitle: controls\ntargets: [{name: a, target: \"sqlite:a.db\"}, {name: b, target: \"sqlite:b.db\"}]\n" +
		"workloads: [{name: w, workload: workloadc}]\nrounds: 6\n"
	if err := os.WriteFile(filepath.Join(dir, "study.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	m := Manifest{Study: "ctl", Rounds: 6}
	for _, target := range []string{"a", "b"} {
		for round := 1; round <= 6; round++ {
			k := 1000.0
			if x, ok := kernel[target][round]; ok {
				k = x
			}
			rt := 50.0
			if x, ok := roundTrip[target][round]; ok {
				rt = x
			}
			res := &report.Result{Schema: report.Schema, Phase: "run", Complete: true, Throughput: 1000 * float64(round),
				Control: &report.Control{KernelUS: k, RoundTripUS: rt}}
			b, err := report.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("results/%s/w-r%d.json", target, round)
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
			m.Runs = append(m.Runs, Run{Target: target, Workload: "w", Round: round, File: name})
		}
	}
	mb, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, "runs.json"), mb, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteOutputs(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A run whose kernel moved more than 10 % from the study's median is
// void: left out of every figure, with why in summary.md and
// findings.json; the summary states the drift, the round trip's too,
// which voids nothing. Within the bound, no run is void.
func TestControlVoidsARun(t *testing.T) {
	dir := writeControlStudy(t, map[string]map[int]float64{"b": {4: 1300}, "a": {2: 1090}}, map[string]map[int]float64{"a": {3: 80}})
	d, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := d.row("b", "w", "default", "ALL", "throughput"); !ok || r.N != 5 || r.Max != 6000 || r.Median == 4000 {
		t.Errorf("b's throughput %+v: want 5 rounds, round 4 left out", r)
	}
	if r, _ := d.row("a", "w", "default", "ALL", "throughput"); r.N != 6 {
		t.Errorf("a's throughput over %d rounds, want 6 (1.09× is within the bound, a round trip voids nothing)", r.N)
	}
	why := "b w at default round 4: void, the client kernel took 1.30× the study's median (bound ±10 %)"
	drift := "machine-speed control before each of 12 runs: the client kernel took 1.00–1.30× its median (1.0 ms), " +
		"the round trip 1.00–1.60× its target's median; 1 run void (beyond ±10 %), left out of every figure"
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	for _, want := range []string{why, drift} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	var fj struct{ Void []string }
	b, _ := os.ReadFile(filepath.Join(dir, "findings.json"))
	if err := json.Unmarshal(b, &fj); err != nil || len(fj.Void) != 1 || fj.Void[0] != why {
		t.Errorf("findings.json's void: %q (%v), want [%q]", fj.Void, err, why)
	}

	dir = writeControlStudy(t, nil, nil)
	md, _ = os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "1.00–1.00× its median (1.0 ms), the round trip 1.00–1.00× its target's median; no run void (bound ±10 %)") {
		t.Errorf("a steady control: summary.md\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(dir, "findings.json")); err == nil {
		t.Errorf("findings.json without claims or void runs")
	}
}

// A run whose control moved beyond the bound from the study's controls
// so far is recorded void and run once more, as the study runs: the
// round keeps its place, the void run is left out of every figure with
// why, and the study's rounds are all there.
func TestControlRunsAVoidRunAgain(t *testing.T) {
	f, err := Parse("again.yaml", []byte(`name: again
title: a void run runs again
targets:
  - {name: lite, target: "sqlite:again.db"}
properties: {recordcount: 100}
workloads:
  - {name: read, workload: workloadc}
rounds: 5
duration: 100ms
`))
	if err != nil {
		t.Fatal(err)
	}
	kernels := []float64{1000, 1000, 1000, 1500, 1000, 1000}
	n := 0
	opts := RunOptions{Out: t.TempDir(), control: func(context.Context, db.Store) *report.Control {
		n++
		return &report.Control{KernelUS: kernels[n-1], RoundTripUS: 50}
	}}
	var log strings.Builder
	opts.Log = &log
	m, err := Conduct(context.Background(), f, opts)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	var got []string
	for _, r := range m.Runs {
		if r.Workload == "read" {
			got = append(got, fmt.Sprintf("r%d %s %s", r.Round, filepath.Base(r.File), r.Void))
		}
	}
	want := []string{"r1 read-r1.json ", "r2 read-r2.json ", "r3 read-r3.json ",
		"r4 read-r4-void.json the client kernel took 1.50× the study's median so far (bound ±10 %)",
		"r4 read-r4.json ", "r5 read-r5.json "}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), log.String())
	}
	d, err := Read(opts.Out)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := d.row("lite", "read", "default", "ALL", "throughput"); r.N != 5 {
		t.Errorf("throughput over %d rounds, want 5", r.N)
	}
	md, _ := os.ReadFile(filepath.Join(opts.Out, "summary.md"))
	if want := "lite read at default round 4: void, the client kernel took 1.50× the study's median so far (bound ±10 %); run again"; !strings.Contains(string(md), want) {
		t.Errorf("summary.md lacks %q:\n%s", want, md)
	}
}
