package study

import (
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/report"
)

func TestMissingTargetsSayWhy(t *testing.T) {
	pgRes := &report.Result{Server: &probe.Server{PerOp: map[string]db.Figure{"wal_bytes_per_update": db.Val(100, db.Bytes)}}}
	sqRes := &report.Result{Server: &probe.Server{PerOp: map[string]db.Figure{}}}
	sqRes.Target.Backend = "sqlite"
	d := &Data{
		Rows: []report.Row{{Target: "postgres", Workload: "u", Op: serverOp, Metric: "wal_bytes_per_update", Median: 100, N: 1}},
		Manifest: &Manifest{Runs: []Run{
			{Target: "postgres", Workload: "u", File: "p.json"},
			{Target: "sqlite", Workload: "u", File: "s.json"},
			{Target: "mongodb", Workload: "u", NotApplicable: "no such property"},
		}},
		Results: map[string]*report.Result{"p.json": pgRes, "s.json": sqRes},
	}
	got := d.missingTargets(ChartSpec{Workload: "u"}, "wal_bytes_per_update", serverOp)
	want := []string{
		"sqlite is not drawn: its results have no WAL bytes per update (sqlite reports no such figure)",
		"mongodb is not drawn: not applicable: no such property",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if axisWords("document.size") != "document.size (bytes)" || metricWords("wal_bytes_per_update") != "WAL bytes per update" {
		t.Error("axis words")
	}
}
