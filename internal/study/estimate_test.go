package study

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sized is opts with every document taken as 1000 bytes of JSON, for the
// estimate's arithmetic.
func sized(opts RunOptions) RunOptions {
	opts.docBytes = func(map[string]string) (float64, error) { return 1000, nil }
	return opts
}

const scaledStudy = `name: scaled
targets:
  - {name: lite, target: "sqlite:lite.db"}
workloads:
  - {name: read, workload: workloadc}
properties: {recordcount: 100}
duration: 100ms
rounds: 1
scale:
  source: {says: "the source's size", properties: {recordcount: 200}}
  planet: {says: "more than any disk", properties: {recordcount: 1000000000000000}, rounds: 2}
with:
  mariadb: {target: "mariadb:local"}
  mongodb: {properties: {secondaryindex: field0}}
claims:
  - {says: mongo smaller, source: "1.3 GB vs 1.8 GB", y: table_bytes, a: mongodb, b: lite, ratio: "<= 0.8"}
`

// TestScaleRefusedWhenTheDiskCannotHoldIt: a scale profile applies its
// properties; one the disk cannot hold is refused, in one line naming the
// study, the profile and the directory, before anything runs.
func TestScaleRefusedWhenTheDiskCannotHoldIt(t *testing.T) {
	f, err := Parse("scaled.yaml", []byte(scaledStudy))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ApplyScale("moon"); err == nil || !strings.Contains(err.Error(), "no such profile (the study has: planet, source)") {
		t.Errorf("unknown profile: %v", err)
	}
	if err := f.ApplyScale("planet"); err != nil || f.Properties["recordcount"] != "1000000000000000" || f.Rounds != 2 {
		t.Fatalf("ApplyScale: %v, recordcount %s, rounds %d", err, f.Properties["recordcount"], f.Rounds)
	}
	out := filepath.Join(t.TempDir(), "out")
	var log strings.Builder
	m, err := Conduct(context.Background(), f, sized(RunOptions{Out: out, Log: &log}))
	if err == nil || m != nil {
		t.Fatalf("ran (manifest %v, err %v)", m, err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "study scaled --scale planet needs about") || !strings.Contains(msg, "on "+filepath.Dir(out)) || !strings.Contains(msg, "free") {
		t.Errorf("refusal: %q", msg)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("refused, yet %s was made", out)
	}
	if !strings.HasPrefix(log.String(), "estimate: ") || !strings.Contains(log.String(), "loads at an assumed 5000 documents/s plus 32 MB/s") {
		t.Errorf("no estimate, with its load rates, printed before the start: %q", log.String())
	}

	// A capacity search counts in the estimate at its max_time, once per
	// round at each point it runs.
	f, err = Parse("scaled.yaml", []byte(scaledStudy+"capacity: {slo: \"p99<5ms\", max_time: 7m}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ApplyScale("planet"); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if _, err := Conduct(context.Background(), f, sized(RunOptions{Out: out, Log: &log})); err == nil {
		t.Fatal("ran")
	}
	if !strings.Contains(log.String(), "2 runs of") || !strings.Contains(log.String(), " and 2 capacity searches counted at their bound of 7m0s") {
		t.Errorf("estimate without its capacity searches: %q", log.String())
	}
	if _, err := os.Stat(filepath.Join(out, "runs.json")); err == nil {
		t.Error("a refused study wrote runs.json")
	}
}

// TestOptInTargets: --with adds a declared opt-in target (its default or
// the URL given); one the study does not declare, or without a URL where it
// has no default, is refused in one line; a claim on an opt-in target that
// did not run is not measurable here, with the reason.
func TestOptInTargets(t *testing.T) {
	f, err := Parse("scaled.yaml", []byte(scaledStudy))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := f.WithTargets(map[string]string{"mariadb": "", "mongodb": "mongodb://127.0.0.1:1/x"})
	if err != nil || len(ts) != 2 || ts[0].Target != "mariadb:local" || ts[1].Target != "mongodb://127.0.0.1:1/x" || ts[1].Name != "mongodb" {
		t.Errorf("WithTargets: %+v, %v", ts, err)
	}
	for with, want := range map[string]string{
		"mongodb": "--with mongodb: give the server's URL (--with mongodb=URL)",
		"oracle":  "--with oracle: study scaled accepts no such opt-in target (it accepts: mariadb, mongodb)",
	} {
		if _, err := f.WithTargets(map[string]string{with: ""}); err == nil || err.Error() != want+": docbench cannot start one here" && err.Error() != want {
			t.Errorf("--with %s: %v, want %q", with, err, want)
		}
	}
	d := &Data{File: f, Manifest: &Manifest{Targets: map[string]string{"lite": "sqlite:lite.db"}}}
	fd := d.Findings()[0]
	if fd.Verdict != NotMeasurable || !strings.HasPrefix(fd.Why, "mongodb is an opt-in target and this run had none (add it with --with mongodb=URL);") {
		t.Errorf("finding: %s (%s)", fd.Verdict, fd.Why)
	}
}

// TestEstimateLoadTime: a load counts per document and per byte, so a
// million small documents take minutes (as measured: about 5,000 a
// second), not the seconds their bytes alone would suggest.
func TestEstimateLoadTime(t *testing.T) {
	f, err := Parse("scaled.yaml", []byte(scaledStudy))
	if err != nil {
		t.Fatal(err)
	}
	f.Properties["recordcount"] = "1200000"
	r, err := prepare(f, sized(RunOptions{Out: filepath.Join(t.TempDir(), "out")}))
	if err != nil {
		t.Fatal(err)
	}
	e, err := r.estimate()
	if err != nil {
		t.Fatal(err)
	}
	// One load of 1,200,000 documents of 1000 B: 240 s + 1.2 GB / 32 MiB/s ≈ 35.8 s, and no runs to speak of.
	if got := e.time.Seconds(); got < 275 || got > 276 {
		t.Errorf("estimated %.1f s, want 240 s per document and 35.8 s per byte", got)
	}
}

// TestEstimateCountsWorkloadTargets: a workload that names its targets
// runs on them only, and the estimate, runs.json's planned_runs and the
// progress line count the runs the study makes (studyRun.planned), as
// capacityAt searches only where its workload runs.
func TestEstimateCountsWorkloadTargets(t *testing.T) {
	f, err := Parse("only.yaml", []byte(`name: only
title: a workload on one of two targets
targets:
  - {name: a, target: "sqlite:a.db"}
  - {name: b, target: "sqlite:b.db"}
properties: {recordcount: 50}
workloads:
  - {name: read, workload: workloadc}
  - {name: a-only, workload: workloadc, targets: [a]}
sweep:
  - {property: threads, values: ["1", "2"]}
rounds: 2
duration: 100ms
`))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var log strings.Builder
	m, err := Conduct(context.Background(), f, RunOptions{Out: out, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	ran := 0
	for _, r := range m.Runs {
		if r.Workload != loadWorkload && r.NotApplicable == "" && !r.Capacity {
			ran++
		}
	}
	// a runs 2 workloads, b 1, at 2 points, 2 rounds each.
	if ran != 12 || m.Planned != ran || !strings.Contains(log.String(), "(12 runs of 100ms") || !strings.Contains(log.String(), "[12/12 ") {
		t.Errorf("%d runs made, %d planned; want 12 made, planned, estimated and counted:\n%s", ran, m.Planned, log.String())
	}

	c, err := Parse("cap.yaml", []byte(`name: cap
targets: [{name: a, target: "sqlite:a.db"}, {name: b, target: "sqlite:b.db"}]
workloads: [{name: read, workload: workloadc}, {name: a-only, workload: workloadc, targets: [a]}]
capacity: {slo: "p99<5ms", workload: a-only}
`))
	if err != nil || !c.capacityAt("a", nil, 1) || c.capacityAt("b", nil, 1) {
		t.Errorf("capacity of a-only: want a search on a only (%v)", err)
	}
}
