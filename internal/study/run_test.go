package study

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/docbench/docbench/internal/db/all"
	"github.com/docbench/docbench/internal/report"
)

// counting is opts with each target about to be opened counted in opens.
func counting(opts RunOptions, opens *int) RunOptions {
	opts.opened = func(string) { *opens++ }
	return opts
}

// A cold study reopens the target every round; a workload that inserts
// runs on freshly loaded data; a target that cannot open is not applicable.
func TestExecuteColdRounds(t *testing.T) {
	dir := t.TempDir()
	f, err := Parse("cold.yaml", []byte(`name: cold
title: cold rounds
targets:
  - {name: lite, target: "sqlite:cold.db"}
  - {name: nowhere, target: "sqlite:`+filepath.Join(dir, "no", "such", "dir", "x.db")+`"}
properties: {recordcount: 200}
workloads:
  - {name: read, workload: workloadc}
  - {name: ins, workload: workloada, properties: {insertproportion: 0.1, readproportion: 0.4}}
rounds: 2
protocol: cold
duration: 200ms
`))
	if err != nil {
		t.Fatal(err)
	}
	opens := 0
	var log strings.Builder
	drops := 0
	m, err := Conduct(context.Background(), f, counting(RunOptions{Out: filepath.Join(dir, "out"), Log: &log,
		dropCaches: func() string { drops++; return "" }}, &opens))
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	var got []string
	for _, r := range m.Runs {
		s := fmt.Sprintf("%s %s r%d", r.Target, r.Workload, r.Round)
		if r.NotApplicable != "" {
			s = r.Target + " not applicable"
		}
		if r.Error != "" {
			s += " error: " + r.Error
		}
		got = append(got, s)
	}
	// Round 2 reopens lite (SQLite keeps its file: no load for the cold
	// round), and "ins" reloads because round 1's "ins" inserted.
	want := []string{"lite load r1", "lite read r1", "lite ins r1", "lite read r2", "lite load r2", "lite ins r2",
		"nowhere not applicable"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("runs:\n got %q\nwant %q", got, want)
	}
	if opens != 3 || drops != 1 {
		t.Errorf("%d opens, %d cache drops; want 3 (lite twice, nowhere) and 1", opens, drops)
	}
	if m.Planned != 8 || m.Incomplete != "" {
		t.Errorf("planned %d, incomplete %q", m.Planned, m.Incomplete)
	}
}

// A workload restricted to some targets (a statement in one dialect) runs
// on them only; the others record it as not applicable, every round.
func TestExecuteWorkloadTargets(t *testing.T) {
	dir := t.TempDir()
	f, err := Parse("only.yaml", []byte(`name: only
title: a workload on one target
targets:
  - {name: a, target: "sqlite:a.db"}
  - {name: b, target: "sqlite:b.db"}
properties: {recordcount: 50}
workloads:
  - {name: read, workload: workloadc}
  - {name: count, workload: workloadc, targets: [a], properties: {readproportion: 0, statementproportion: 1, statement.sql: "SELECT count(*) FROM {table}"}}
rounds: 2
duration: 100ms
`))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	m, err := Conduct(context.Background(), f, RunOptions{Out: filepath.Join(dir, "out"), Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	var got []string
	for _, r := range m.Runs {
		s := fmt.Sprintf("%s %s r%d", r.Target, r.Workload, r.Round)
		if r.NotApplicable != "" {
			s += " not applicable: " + r.NotApplicable
		}
		if r.Error != "" {
			s += " error: " + r.Error
		}
		got = append(got, s)
	}
	want := []string{"a load r1", "a read r1", "a count r1", "a read r2", "a count r2",
		"b load r1", "b read r1", "b count r1 not applicable: workload count runs on a only",
		"b read r2", "b count r2 not applicable: workload count runs on a only"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("runs:\n got %q\nwant %q", got, want)
	}
	if _, err := Parse("bad.yaml", []byte("name: bad\nworkloads:\n  - {name: r, workload: workloadc, targets: [nowhere]}\n")); err == nil ||
		!strings.Contains(err.Error(), `bad.yaml:3:5: workloads[0]: targets: "nowhere" is not one of the study's targets`) {
		t.Errorf("unknown target: got %v", err)
	}
	if _, err := Parse("with.yaml", []byte("name: w\nwith:\n  maria: {target: \"mariadb:local\"}\nworkloads:\n  - {name: r, workload: workloadc, targets: [maria]}\n")); err != nil {
		t.Errorf("a workload on an opt-in target: %v", err)
	}
}

// A target loads with the properties of the first workload it runs, not
// those of the study's first workload, which may not run there: b loads
// the 100 documents of its own workload, and the estimate counts them.
func TestLoadTakesTheTargetsFirstWorkload(t *testing.T) {
	f, err := Parse("first.yaml", []byte(`name: first
title: each target loads for its own workload
targets:
  - {name: a, target: "sqlite:a.db"}
  - {name: b, target: "sqlite:b.db"}
workloads:
  - {name: small, workload: workloadc, targets: [a], properties: {recordcount: 50}}
  - {name: large, workload: workloadc, targets: [b], properties: {recordcount: 100}}
rounds: 1
duration: 100ms
`))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	r, err := prepare(f, sized(RunOptions{Out: out}))
	if err != nil {
		t.Fatal(err)
	}
	e, err := r.estimate()
	if err != nil {
		t.Fatal(err)
	}
	if e.bytes != 100*1000 {
		t.Errorf("estimate: largest data set %d bytes, want b's 100 documents of 1000 bytes", e.bytes)
	}
	var log strings.Builder
	m, err := Conduct(context.Background(), f, RunOptions{Out: out, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	loaded := map[string]string{}
	for _, run := range m.Runs {
		if run.Workload != loadWorkload {
			continue
		}
		res, err := report.ReadResult(filepath.Join(out, run.File))
		if err != nil {
			t.Fatal(err)
		}
		loaded[run.Target] = fmt.Sprintf("%d of recordcount %s", res.Operations, res.Workload.Properties["recordcount"])
	}
	if want := map[string]string{"a": "50 of recordcount 50", "b": "100 of recordcount 100"}; fmt.Sprint(loaded) != fmt.Sprint(want) {
		t.Errorf("loaded %v, want %v", loaded, want)
	}
}

// A target loads once per point, with its first workload's properties: a
// second workload on it that shapes the data otherwise is refused before
// anything runs, naming the property, rather than run on data it did not
// ask for.
func TestWorkloadsOfATargetShareItsData(t *testing.T) {
	f, err := Parse("mixed.yaml", []byte(`name: mixed
title: two workloads, two data sets, one target
targets:
  - {name: a, target: "sqlite:a.db"}
workloads:
  - {name: small, workload: workloadc, properties: {recordcount: 50}}
  - {name: large, workload: workloada, properties: {recordcount: 100, readproportion: 1, updateproportion: 0}}
rounds: 1
duration: 100ms
`))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	_, err = prepare(f, RunOptions{Out: out})
	want := `target a, workload large, default: recordcount is "100" here but "50" in workload small, whose properties the target loads its data with`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("prepare: %v\nwant an error saying %s", err, want)
	}
	if strings.Contains(err.Error(), "readproportion") {
		t.Errorf("a run-only property (readproportion) does not shape the data: %v", err)
	}
	if _, serr := os.Stat(out); !errors.Is(serr, fs.ErrNotExist) {
		t.Errorf("the refused study left its directory behind: %v", serr)
	}
}
