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

// TestDescribe: a workload is described by the mix of operations it
// makes, whatever file it starts from.
func TestDescribe(t *testing.T) {
	f := &File{Properties: map[string]string{}}
	for _, c := range []struct {
		study map[string]string
		w     WorkloadSpec
		want  string
	}{
		{nil, WorkloadSpec{Workload: "workloadc"}, "YCSB C: reads only"},
		{nil, WorkloadSpec{Workload: "workloada", Properties: map[string]string{"fieldcount": "20"}}, "YCSB A: 50% reads, 50% updates, with fieldcount=20"},
		{nil, WorkloadSpec{Workload: "workloadc", Properties: map[string]string{"readproportion": "0", "updateproportion": "1"}},
			"updates only (YCSB C's file with readproportion=0, updateproportion=1)"},
		{map[string]string{"readproportion": "0", "queryproportion": "1"}, WorkloadSpec{Workload: "workloadc"}, "queries only (YCSB C's file)"},
		{nil, WorkloadSpec{Workload: "mine.properties", Properties: map[string]string{"readproportion": "0.9", "insertproportion": "0.1"}},
			"90% reads, 10% inserts (workload file mine.properties with insertproportion=0.1, readproportion=0.9)"},
		{nil, WorkloadSpec{Workload: "mine.properties"}, "workload file mine.properties"},
	} {
		f.Properties = c.study
		if got := Describe(f, c.w); got != c.want {
			t.Errorf("Describe(%+v) = %q, want %q", c.w, got, c.want)
		}
	}
}
