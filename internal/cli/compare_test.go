package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/testutil"
)

// phaseResult loads and runs a small workload through the CLI and returns
// the run result's path.
func phaseResult(t *testing.T, dir, name, target string, props ...string) string {
	t.Helper()
	base := []string{"-P", "workloada", "-p", "recordcount=300", "--status", "0"}
	for _, p := range props {
		base = append(base, "-p", p)
	}
	load := filepath.Join(dir, name+"-load.json")
	if _, stderr, code := docbench(t, append([]string{"load", "-t", target, "--out", load}, base...)...); code != 0 {
		t.Fatalf("%s load: exit %d: %s", name, code, stderr)
	}
	res := readResult(t, load)
	if res.Server == nil || res.Server.Absent != "" || res.Audit == nil {
		t.Fatalf("%s load: no server section: %+v", name, res.Server)
	}
	// The server's own counts of the rows loaded and of the documents
	// stored = docbench's (SQLite has no row counters).
	checks := map[string]bool{}
	for _, c := range res.Server.Checks {
		checks[c.What] = c.Match && c.Docbench == 300
	}
	if !checks["documents stored"] || name != "sqlite" && (!checks["rows inserted"] || len(checks) != 2) {
		t.Errorf("%s load checks: %+v", name, res.Server.Checks)
	}
	run := filepath.Join(dir, name+"-run.json")
	out, stderr, code := docbench(t, append([]string{"run", "-t", target, "-p", "operationcount=600", "--out", run}, base...)...)
	if code != 0 {
		t.Fatalf("%s run: exit %d: %s", name, code, stderr)
	}
	if !strings.Contains(out, "\nserver side\n") {
		t.Errorf("%s run: text output has no server side block:\n%s", name, out)
	}
	return run
}

// TestCompareAudit compares results of real runs: PostgreSQL with the
// seeds' unfair setup (GIN over the whole document for key lookups,
// synchronous_commit=off) against PostgreSQL with a primary key, and SQLite.
func TestCompareAudit(t *testing.T) {
	dir := t.TempDir()
	server := testutil.Postgres(t, "embedded")
	fair := phaseResult(t, dir, "pg-pkey", testutil.FreshDatabase(t, server))
	unfair := phaseResult(t, dir, "pg-gin", testutil.FreshDatabase(t, server)+"&synchronous_commit=off",
		"layout=document", "index=gin")
	lite := phaseResult(t, dir, "sqlite", "sqlite:"+filepath.Join(dir, "c.db"))

	rel := func(p string) string { r, _ := filepath.Rel(dir, p); return r }
	for _, p := range []string{fair, unfair, lite} {
		if err := os.Rename(p, filepath.Join(dir, rel(p))); err != nil {
			t.Fatal(err)
		}
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := docbench(t, "compare", rel(fair), rel(unfair), rel(lite))
	os.Chdir(wd)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	for _, row := range []string{"throughput ops/s", "READ p50/p99 µs", "UPDATE p50/p99 µs", "write volume/op", "storage total",
		"bytes/document", "server CPU µs/op", "docbench CPU µs/op", "flagged plans"} {
		if !strings.Contains(out, "\n"+row) {
			t.Errorf("compare output lacks the row %q:\n%s", row, out)
		}
	}
	i := strings.Index(out, "fairness audit")
	if i < 0 {
		t.Fatalf("no audit:\n%s", out)
	}
	// The rendering is report.WriteCompare's (its golden files are in
	// internal/report/testdata); here the live servers' classification.
	for _, want := range []string{
		"differs: durability — A no-fsync; B no-fsync; C durable-at-commit",
		"differs: key index — A primary-btree; B gin-whole-document; C primary-btree",
	} {
		if !strings.Contains(out[i:], want) {
			t.Errorf("compare audit lacks %q:\n%s", want, out[i:])
		}
	}

	// --strict refuses durability and key-index differences.
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = docbench(t, "compare", "--strict", rel(fair), rel(unfair), rel(lite))
	_, _, codeSame := docbench(t, "compare", "--strict", rel(fair), rel(fair))
	os.Chdir(wd)
	if code != 1 || !strings.Contains(stderr, "durability differs") || !strings.Contains(stderr, "key index differs") {
		t.Errorf("--strict: exit %d, %q", code, stderr)
	}
	if codeSame != 0 {
		t.Errorf("--strict on equal targets: exit %d", codeSame)
	}
}

// TestCompareBadInput: a bad file is named in one line with exit status 2
// (report.TestReadResult has every kind of bad file).
func TestCompareBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.json")
	_, stderr, code := docbench(t, "compare", missing)
	if code != 2 || !strings.Contains(stderr, "missing.json: no such file or directory") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("compare missing.json: exit %d, stderr %q, want one line naming the file", code, stderr)
	}
}

// TestReportOfOneResult: a run says where its result went, and `docbench
// report RESULT.json` makes its HTML report beside it.
func TestReportOfOneResult(t *testing.T) {
	res := filepath.Join(t.TempDir(), "run.json")
	_, stderr, code := docbench(t, "run", "-t", "null:", "-P", "workloada", "-p", "recordcount=100",
		"--duration", "1500ms", "-p", "operationcount=0", "--status", "0", "--out", res)
	if code != 0 || !strings.Contains(stderr, "result: "+res) {
		t.Fatalf("run: exit %d, stderr %q: want the result's path", code, stderr)
	}
	out, stderr, code := docbench(t, "report", res)
	html := strings.TrimSuffix(res, ".json") + ".html"
	if code != 0 || strings.TrimSpace(out) != html {
		t.Fatalf("report %s: exit %d, stdout %q, stderr %q", res, code, out, stderr)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<ul class="headlines"`, "ops/s over", "s on null:", "READ p99", "Operations per second, each second", "<svg"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q", html, want)
		}
	}
}

// compareStudy is a study of one workload on null:, every operation of which
// takes at least the delay given, in the rounds given.
const compareStudy = `name: cmp
title: compare's test study
cites: none (test)
reported: nothing
targets:
  - {name: null, target: "null:", properties: {null.delay: %s}}
properties: {recordcount: 100}
workloads:
  - {name: read, workload: workloadc}
rounds: %d
warmup: 100ms
duration: 300ms
`

// TestCompareStudies compares real study directories: two identical
// one-round studies cannot tell what changed and list nothing; a real
// difference (every operation 1 ms longer) over 4 rounds each comes first
// with its significance.
func TestCompareStudies(t *testing.T) {
	dir := t.TempDir()
	study := func(name, delay string, rounds int) string {
		t.Helper()
		file := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(file, []byte(fmt.Sprintf(compareStudy, delay, rounds)), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name)
		if _, stderr, code := docbench(t, "study", file, "--out", out); code != 0 {
			t.Fatalf("study %s: exit %d\n%s", name, code, stderr)
		}
		return out
	}

	a, b := study("a", "0s", 1), study("b", "0s", 1)
	out, stderr, code := docbench(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "\none round each: cannot tell what changed beyond the noise\n") ||
		!regexp.MustCompile(`\n\d+ series compared \(--all prints every series\)\n$`).MatchString(out) {
		t.Errorf("identical one-round studies: want 'cannot tell' and the series counted:\n%s", out)
	}
	for _, bad := range []string{"%", "max", "p=", "warning"} {
		if strings.Contains(out, bad) {
			t.Errorf("identical one-round studies: the output has %q:\n%s", bad, out)
		}
	}
	all, _, _ := docbench(t, "compare", "--all", a, b)
	if !strings.HasPrefix(all, out[:strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")]) ||
		!strings.Contains(all, "series, in the study's order (untested: one round each):\n") || !strings.Contains(all, "max µs") {
		t.Errorf("--all: want the summary, then every series:\n%s", all)
	}

	c, d := study("c", "0s", 4), study("d", "1ms", 4)
	out, stderr, code = docbench(t, "compare", c, d)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	const head = "\nchanged beyond the noise (Mann–Whitney U test at α=0.05), largest change first:\n"
	i := strings.Index(out, head)
	if i < 0 {
		t.Fatalf("a real difference over 4 rounds: no summary of changes:\n%s", out)
	}
	lines := strings.Split(out[i+len(head):], "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "target ") ||
		!regexp.MustCompile(`^null +read +READ +\S+ µs .* \+\d+(\.\d)?% +p=0\.029, 4 rounds each$`).MatchString(lines[1]) {
		t.Errorf("want READ's latency first, with its significance:\n%s", out)
	}
}

// TestCompareSecondaryIndexes: runs after loads with the same secondary
// indexes, on PostgreSQL 18, PostgreSQL 15 and SQLite, each command with
// its own store as a user runs them, have the indexes in their audit (read
// from the catalog: a run sets nothing up), and compare finds them equal.
func TestCompareSecondaryIndexes(t *testing.T) {
	dir := t.TempDir()
	ix := "secondaryindex=field3,field1"
	var runs []string
	for name, target := range map[string]string{
		"pg18":   testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")),
		"pg15":   testutil.FreshDatabase(t, testutil.Postgres(t, "debian")),
		"sqlite": "sqlite:" + filepath.Join(dir, "ix.db"),
	} {
		run := phaseResult(t, dir, name, target, ix)
		if a := readResult(t, run).Audit; a == nil || a.SecondaryIndexes != "field1, field3" {
			t.Fatalf("%s run: audit %+v, want secondary indexes field1, field3", name, a)
		}
		runs = append(runs, run)
	}
	out, stderr, code := docbench(t, append([]string{"compare"}, runs...)...)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	audit := out[strings.Index(out, "fairness audit"):]
	if strings.Contains(audit, "differs: secondary indexes") || !strings.Contains(audit, "secondary indexes (field1, field3)") {
		t.Fatalf("compare of runs with the same indexes:\n%s", audit)
	}
}
