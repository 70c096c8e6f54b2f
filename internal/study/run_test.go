package study

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
	_ "github.com/docbench/docbench/internal/db/all"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
	"github.com/docbench/docbench/internal/workload"
)

// sqlExecutor runs a study's phases on real targets through the runner,
// as the CLI's executor does without its printing; it counts the opens.
type sqlExecutor struct{ opens int }

func (e *sqlExecutor) config(p *workload.Properties) (*workload.Config, error) {
	keys, prefixes := db.Known()
	return workload.ParseConfig(p, workload.Known{Keys: append(keys, document.Keys()...), Prefixes: prefixes})
}

func (e *sqlExecutor) Validate(p *workload.Properties) error {
	_, err := e.config(p)
	return err
}

func (e *sqlExecutor) Open(ctx context.Context, target string, p *workload.Properties) (db.Store, error) {
	cfg, err := e.config(p)
	if err != nil {
		return nil, err
	}
	e.opens++
	return db.Open(ctx, db.OpenRequest{Target: target, Props: cfg.Props})
}

func (e *sqlExecutor) Phase(ctx context.Context, store db.Store, target string, files []string, p *workload.Properties,
	phase runner.Phase, warmup time.Duration) (*report.Result, error) {
	cfg, err := e.config(p)
	if err != nil {
		return nil, err
	}
	wl, err := workload.New(cfg, 1)
	if err != nil {
		return nil, err
	}
	spec, err := document.ParseSpec(cfg.Props, wl.FieldLengths(), cfg.FieldCount, cfg.FieldNamePrefix)
	if err != nil {
		return nil, err
	}
	shape, err := document.New(spec, 1)
	if err != nil {
		return nil, err
	}
	docOps, err := runner.NewDocOps(wl, shape, 1)
	if err != nil {
		return nil, err
	}
	if phase == runner.Load {
		if err := store.Setup(ctx, docOps.Schema(), true); err != nil {
			return nil, err
		}
	}
	info, err := store.Info(ctx)
	if err != nil {
		return nil, err
	}
	out, err := runner.Execute(ctx, store, wl, docOps, runner.Options{Phase: phase, Threads: int(cfg.ThreadCount),
		Duration: cfg.MaxExecutionTime, Warmup: warmup, Seed: 1})
	if out == nil {
		return nil, err
	}
	res := report.Build(out, info, target)
	res.Environment.IOMode = out.IOMode
	res.Workload = report.Workload{Files: files, Properties: p.Map()}
	return res, err
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
	ex := &sqlExecutor{}
	var log strings.Builder
	drops := 0
	m, err := Conduct(context.Background(), f, ex, RunOptions{Out: filepath.Join(dir, "out"), Log: &log,
		dropCaches: func() string { drops++; return "" }})
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
	if ex.opens != 3 || drops != 1 {
		t.Errorf("%d opens, %d cache drops; want 3 (lite twice, nowhere) and 1", ex.opens, drops)
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
	m, err := Conduct(context.Background(), f, &sqlExecutor{}, RunOptions{Out: filepath.Join(dir, "out"), Log: &log})
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
