package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/study"
	"github.com/docbench/docbench/internal/testutil"
)

// TestCompareVersions runs workload A briefly on PostgreSQL 13 and 18 (the
// test cache's two versions) and compares the two results: both servers'
// versions are printed, and what changed is judged on the runs' windows.
func TestCompareVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs workload A for 9 s on PostgreSQL 13 and on 18")
	}
	dir := t.TempDir()
	run := func(name, server string) string {
		target := testutil.FreshDatabase(t, server)
		base := []string{"-t", target, "-P", "workloada", "-p", "recordcount=300", "--status", "0"}
		if _, stderr, code := docbench(t, append([]string{"load"}, base...)...); code != 0 {
			t.Fatalf("%s load: exit %d: %s", name, code, stderr)
		}
		out := filepath.Join(dir, name+".json")
		if _, stderr, code := docbench(t, append([]string{"run", "--duration", "9s", "--out", out}, base...)...); code != 0 {
			t.Fatalf("%s run: exit %d: %s", name, code, stderr)
		}
		return out
	}
	a := run("pg13", testutil.Postgres(t, "embedded@13"))
	b := run("pg18", testutil.Postgres(t, "embedded"))
	out, stderr, code := docbench(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		" · postgres 13.", " · postgres 18.", // each result's server
		"\n  server postgres 13.", // the setups differ in it
		"beyond the noise: Mann–Whitney U test at α=0.05 on windows of 2 s (4 windows each;",
		"\nREAD p99 µs", "\nUPDATE p99 µs", "p=", "4 / 4",
		"\nfairness audit",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("compare of 13 and 18 lacks %q:\n%s", want, out)
		}
	}
}

// pgVersionsStudy is a study of one workload on two postgres:embedded
// targets, one of them reading by subscripting (PostgreSQL 14 on), and
// SQLite, with a claim on each PostgreSQL target.
const pgVersionsStudy = `name: tiny
title: --pg-versions' test study
targets:
  - {name: pg, target: "postgres:embedded", properties: {pg.datadir: temp}}
  - {name: pg-sub, target: "postgres:embedded", properties: {pg.datadir: temp, pg.pathop: subscript, document.shape: complex, document.depth: "3"}}
  - {name: lite, target: "sqlite:study.sqlite"}
properties: {recordcount: 200}
workloads:
  - {name: c, workload: workloadc}
claims:
  - {says: "PostgreSQL reads at least a hundredth as fast as SQLite", y: throughput, workload: c, a: pg, b: lite, ratio: ">= 0.01"}
  - {says: "subscripting reads at least a hundredth as fast as SQLite", y: throughput, workload: c, a: pg-sub, b: lite, ratio: ">= 0.01"}
quick: {duration: 1s}
`

// TestStudyPGVersions reruns a study file on PostgreSQL 13 and 18: its
// postgres:embedded targets run once per version (pg@13, pg@18, …), on
// servers of those versions, SQLite once; what 13 lacks (subscripting) is
// not measurable there, not a failure; each claim is judged on each
// version, and the first screen compares the versions.
func TestStudyPGVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL 13 and 18")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(file, []byte(pgVersionsStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout, stderr, code := docbench(t, "study", file, "--quick", "--pg-versions", "13,18", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m study.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Targets) != 5 || m.Targets["pg@13"] == "" || m.Targets["pg@18"] == "" || m.Targets["pg-sub@18"] == "" || m.Targets["lite"] == "" {
		t.Errorf("targets %v, want pg and pg-sub @13 and @18, and lite", m.Targets)
	}
	versions := map[string]string{}
	for _, r := range m.Runs {
		if r.Error != "" || r.NotApplicable != "" && r.Target != "pg-sub@13" {
			t.Errorf("%s %s: %s%s", r.Target, r.Workload, r.Error, r.NotApplicable)
		}
		if r.Workload == "c" && r.File != "" {
			versions[r.Target] = readResult(t, filepath.Join(out, r.File)).Target.Version
		}
	}
	if !strings.HasPrefix(versions["pg@13"], "13.") || !strings.HasPrefix(versions["pg@18"], "18.") || versions["lite"] == "" {
		t.Errorf("workload c ran on %v, want pg@13 on 13, pg@18 on 18, and lite", versions)
	}
	for _, want := range []string{
		"PostgreSQL 18 vs 13 (one round each: cannot tell beyond the noise): c throughput on pg ",
		"c throughput on pg-sub: none on 13 (skipped, load: pg.pathop=subscript (jsonb subscripting needs PostgreSQL 14)",
		"VERSION CHANGES THE VERDICT: subscripting reads at least a hundredth as fast as SQLite: not measurable on 13; inconclusive on 18",
		"pg@13", "pg@18",
		"INCONCLUSIVE: PostgreSQL reads at least a hundredth as fast as SQLite (PostgreSQL 13)",
		"INCONCLUSIVE: PostgreSQL reads at least a hundredth as fast as SQLite (PostgreSQL 18)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	raw, err := os.ReadFile(filepath.Join(out, "study.yaml"))
	if err != nil || !strings.Contains(string(raw), `pg_versions: ["13", "18"]`) {
		t.Errorf("study.yaml as run does not say its versions (%v):\n%s", err, raw)
	}
	// The directory re-renders as it ran.
	if _, stderr, code := docbench(t, "report", out); code != 0 {
		t.Errorf("report: exit %d: %s", code, stderr)
	}
}

// TestStudyPGVersionsBadInput: a version docbench does not know, a list
// that is not one, and a study without a postgres:embedded target are one
// line each, exit 2, before anything runs.
func TestStudyPGVersionsBadInput(t *testing.T) {
	dir := t.TempDir()
	lite := filepath.Join(dir, "lite.yaml")
	if err := os.WriteFile(lite, []byte("name: lite\ntargets: [{name: lite, target: \"sqlite:x.db\"}]\nworkloads: [{workload: workloadc}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"document-size", "--pg-versions", "8"}, `--pg-versions 8: PostgreSQL "8" is not a version docbench knows`},
		{[]string{"document-size", "--pg-versions", "x"}, `--pg-versions x: PostgreSQL "x" is not a version docbench knows`},
		{[]string{"document-size", "--pg-versions", "13,,18"}, "--pg-versions 13,,18: want versions separated by commas"},
		{[]string{"document-size", "--pg-versions", "13,13.23.0"}, "13 and 13.23.0 are the same version"},
		{[]string{lite, "--pg-versions", "13"}, "--pg-versions 13: study lite has no target whose PostgreSQL version docbench chooses"},
		{[]string{"versions", "--pg-versions", "13"}, "--pg-versions 13: study versions sweeps pg.version already"},
	} {
		out := filepath.Join(dir, "out")
		_, stderr, code := docbench(t, append([]string{"study", "--out", out}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("study %s: exit %d, stderr %q: want one line with %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("study %s: wrote %s", strings.Join(tc.args, " "), out)
		}
	}
}
