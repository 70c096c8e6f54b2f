package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/testutil"
)

// binDir holds the docbench binary that tests run as a process, built
// once per test binary; TestMain removes it.
var (
	binDir  string
	binOnce sync.Once
	binErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "docbench-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	testutil.Main(m, func() { os.RemoveAll(dir) })
}

// binary builds docbench, on first use, for the tests that run it as a process.
func binary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(binDir, "docbench")
	binOnce.Do(func() {
		if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/docbench").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return bin
}

// docbench runs the CLI in-process and returns stdout, stderr and the exit code.
func docbench(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return docbenchWhen(t, "", nil, args...)
}

// docbenchWhen is docbench calling do, once, in the write to stderr that
// holds said: the program's own word that it has got as far as the test
// needs, acted on before it goes further. do nil: nothing is awaited.
func docbenchWhen(t *testing.T, said string, do func(), args ...string) (string, string, int) {
	t.Helper()
	var out bytes.Buffer
	errw := &onWrite{said: []byte(said), do: do}
	code := Main(args, &out, errw)
	if errw.do != nil {
		t.Fatalf("docbench %s never said %q; stderr:\n%s", strings.Join(args, " "), said, &errw.buf)
	}
	return out.String(), errw.buf.String(), code
}

// onWrite keeps what is written and calls do during the first write that
// holds said.
type onWrite struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	said []byte
	do   func()
}

func (w *onWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.do != nil && bytes.Contains(p, w.said) {
		w.do()
		w.do = nil
	}
	return w.buf.Write(p)
}

// startUntil starts the docbench binary and returns once a line of its
// stderr holds said: a readiness signal from the program, not a guess at
// how long it takes to get there on a busy machine. wait waits for the
// exit and returns the whole stderr. A binary still running after two
// minutes (it never said it, or hangs after a signal) or at the end of the
// test is killed.
func startUntil(t *testing.T, said string, args ...string) (cmd *exec.Cmd, wait func() (string, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd = exec.CommandContext(ctx, binary(t), args...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	ready, eof := make(chan struct{}), make(chan struct{})
	go func(ready chan struct{}) {
		defer close(eof)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			stderr.WriteString(sc.Text() + "\n")
			if ready != nil && strings.Contains(sc.Text(), said) {
				close(ready)
				ready = nil
			}
		}
		io.Copy(io.Discard, pipe) // a line too long for the scanner
	}(ready)
	wait = func() (string, error) {
		<-eof
		err := cmd.Wait()
		return stderr.String(), err
	}
	select {
	case <-ready:
	case <-eof:
		out, err := wait()
		t.Fatalf("docbench %s ended (%v) before saying %q:\n%s", strings.Join(args, " "), err, said, out)
	}
	return cmd, wait
}

func TestVersionAndTargets(t *testing.T) {
	out, _, code := docbench(t, "version")
	if code != 0 || !strings.HasPrefix(out, "docbench ") {
		t.Fatalf("version: %d %q", code, out)
	}
	out, _, code = docbench(t, "targets")
	for _, want := range []string{"postgres://", "postgres:embedded", "sqlite:PATH", "null:", "layout=column|document", "server.NAME=VALUE"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("targets output lacks %q:\n%s", want, out)
		}
	}
}

var ycsbLine = regexp.MustCompile(`^\[([A-Za-z-]+)\], ([^,]+), (-?[0-9.]+)$`)

// parseYCSB reads YCSB report lines into section → metric → value.
func parseYCSB(t *testing.T, s string) map[string]map[string]string {
	t.Helper()
	m := map[string]map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		g := ycsbLine.FindStringSubmatch(line)
		if g == nil {
			t.Fatalf("not a YCSB report line: %q", line)
		}
		if m[g[1]] == nil {
			m[g[1]] = map[string]string{}
		}
		m[g[1]][g[2]] = g[3]
	}
	return m
}

func readResult(t *testing.T, path string) *report.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r report.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r
}

func loadAndRun(t *testing.T, target string, runArgs ...string) (map[string]map[string]string, *report.Result) {
	t.Helper()
	dir := t.TempDir()
	_, stderr, code := docbench(t, "load", "-t", target, "-P", "workloada", "-p", "recordcount=500", "--threads", "2", "--out", filepath.Join(dir, "load.json"))
	if code != 0 {
		t.Fatalf("load exit %d: %s", code, stderr)
	}
	if r := readResult(t, filepath.Join(dir, "load.json")); r.Operations != 500 || !r.Complete || r.Phase != "load" {
		t.Fatalf("load result: %+v", r)
	}
	args := append([]string{"run", "-t", target, "-P", "workloada", "-p", "recordcount=500", "-p", "operationcount=2000",
		"--threads", "2", "--format", "ycsb", "--out", filepath.Join(dir, "run.json")}, runArgs...)
	out, stderr, code := docbench(t, args...)
	if code != 0 {
		t.Fatalf("run exit %d: %s", code, stderr)
	}
	return parseYCSB(t, out), readResult(t, filepath.Join(dir, "run.json"))
}

func TestLoadRunYCSBReport(t *testing.T) {
	targets := map[string]string{
		"sqlite":   "sqlite:" + filepath.Join(t.TempDir(), "e2e.db"),
		"postgres": testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")),
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			rep, res := loadAndRun(t, target)
			if rep["OVERALL"]["RunTime(ms)"] == "" || rep["OVERALL"]["Throughput(ops/sec)"] == "" {
				t.Fatalf("no OVERALL lines: %v", rep)
			}
			var total int
			for _, op := range []string{"READ", "UPDATE"} {
				for _, metric := range []string{"Operations", "AverageLatency(us)", "MinLatency(us)", "MaxLatency(us)",
					"50thPercentileLatency(us)", "95thPercentileLatency(us)", "99thPercentileLatency(us)",
					"99.9thPercentileLatency(us)", "Return=OK"} {
					if rep[op][metric] == "" {
						t.Errorf("[%s], %s missing", op, metric)
					}
				}
				if rep[op]["Return=OK"] != rep[op]["Operations"] {
					t.Errorf("[%s] errors: %v", op, rep[op])
				}
				n := 0
				for _, c := range rep[op]["Operations"] {
					n = n*10 + int(c-'0')
				}
				total += n
			}
			if total != 2000 || res.Operations != 2000 || !res.Complete || res.Schema != report.Schema {
				t.Fatalf("ops %d, result %d complete=%v schema=%q", total, res.Operations, res.Complete, res.Schema)
			}
			if res.Target.Version == "" || res.Environment.CPUs == 0 || res.Workload.Properties["recordcount"] != "500" {
				t.Fatalf("result lacks target version, environment or properties: %+v", res)
			}
			for _, op := range res.Ops {
				if op.Service == nil || op.Service.Histogram == "" || op.Service.P99 < op.Service.P50 {
					t.Fatalf("op %s summary %+v", op.Name, op.Service)
				}
			}
		})
	}
}

func TestRateAddsIntendedBlocks(t *testing.T) {
	rep, res := loadAndRun(t, "sqlite:"+filepath.Join(t.TempDir(), "rate.db"), "--rate", "4000", "-p", "measurement.interval=both")
	for _, s := range []string{"Intended-READ", "Intended-UPDATE"} {
		if rep[s]["99thPercentileLatency(us)"] == "" {
			t.Errorf("[%s] block missing: %v", s, rep)
		}
	}
	if res.Options.TargetRate != 4000 || res.Ops[0].Response == nil {
		t.Fatalf("result under a rate: %+v", res.Options)
	}
	if el := res.RuntimeMS; el < 400 {
		t.Fatalf("2000 ops at 4000/s took %.0f ms: not paced", el)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.properties")
	os.WriteFile(bad, []byte("recordcount=10\nrequestdistribution=zipfan\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-t", "null:", "-P", "workloada", "-p", "recrodcount=5"}, `did you mean "recordcount"`},
		{[]string{"run", "-t", "null:", "-P", "nosuchworkload"}, `nosuchworkload`},
		{[]string{"run", "-t", "null:", "-P", "workloada", "-p", "recordcount=-5"}, `recordcount`},
		{[]string{"run", "-t", "null:", "-P", bad}, bad + ":2"},
		{[]string{"run", "-t", "nosuch:x", "-P", "workloada"}, `unknown backend "nosuch"`},
		{[]string{"run", "-t", "null:", "-P", "workloada", "--format", "xml"}, `--format "xml"`},
		{[]string{"run", "-P", "workloada"}, `missing -t/--target`},
		{[]string{"run", "-t", "null:", "-P", "workloada", "-p", "novalue"}, `novalue`},
		{[]string{"run", "-t", "null:", "-P", "workloada", "--threads", "x"}, `--threads`},
		{[]string{"run", "-t", "postgres://127.0.0.1:1/x?connect_timeout=2", "-P", "workloada"}, `127.0.0.1:1`},
		// the flag's old name still works: the error names it as it is now
		{[]string{"run", "-t", "null:", "-P", "workloada", "--max-error-rate", "200%"}, `--max-error-share "200%"`},
	} {
		out, stderr, code := docbench(t, tc.args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		last := lines[len(lines)-1]
		if code == 0 || !strings.Contains(last, tc.want) || strings.Contains(stderr, "goroutine") || !strings.HasPrefix(last, "docbench: ") {
			t.Errorf("docbench %s: exit %d, stderr %q, stdout %q; want non-zero and one line containing %q",
				strings.Join(tc.args, " "), code, stderr, out, tc.want)
		}
	}
}

func TestYCSBOnlyPropertyIsANote(t *testing.T) {
	out, stderr, code := docbench(t, "run", "-t", "null:", "-P", "workloada", "-p", "db=site.ycsb.BasicDB",
		"-p", "recordcount=10", "-p", "operationcount=10", "--format", "json")
	if code != 0 || !strings.Contains(stderr, `"db"`) || !strings.Contains(out, `has no effect`) {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
}

// TestInterruptWritesPartialResult runs the real binary and stops it with
// SIGINT: it must drain, write the partial result and exit non-zero.
func TestInterruptWritesPartialResult(t *testing.T) {
	res := filepath.Join(t.TempDir(), "partial.json")
	// The first status line: the run is under way, operations done.
	cmd, wait := startUntil(t, " operations; ", "run", "-t", "null:", "-P", "workloada", "-p", "recordcount=1000",
		"-p", "operationcount=1000000000000", "--out", res, "--status", "1s")
	cmd.Process.Signal(syscall.SIGINT)
	stderr, err := wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() == 0 {
		t.Fatalf("exit: %v, stderr %s", err, stderr)
	}
	r := readResult(t, res)
	if r.Complete || r.Stopped != "interrupted" || r.Operations == 0 {
		t.Fatalf("partial result: complete=%v stopped=%q ops=%d", r.Complete, r.Stopped, r.Operations)
	}
	if strings.Contains(stderr, "goroutine") {
		t.Fatalf("stack trace on stderr: %s", stderr)
	}
}

// quickstart on a machine where the embedded server cannot be had: one line
// says why, and SQLite still runs.
func TestQuickstartOfflineStillRunsSQLite(t *testing.T) {
	t.Setenv("DOCBENCH_CACHE", t.TempDir())
	// Nothing listens on port 1. (A proxy variable would not do: net/http
	// reads the proxy environment once per process, and an earlier test may
	// already have downloaded through it.)
	t.Setenv("DOCBENCH_MAVEN_REPO", "http://127.0.0.1:1/maven2")
	out := t.TempDir()
	stdout, stderr, code := docbench(t, "quickstart", "--quick", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var why []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "not applicable") {
			why = append(why, line)
		}
	}
	if len(why) != 1 || !strings.Contains(why[0], "embedded PostgreSQL unavailable") {
		t.Fatalf("want one line saying why the embedded server is unavailable; stderr:\n%s", stderr)
	}
	// The findings first, the table, the skipped target in it and its
	// reason under it.
	if !strings.HasPrefix(stdout, "QUICK RUN") || !strings.Contains(stdout, "\nworkloada: sqlite ") ||
		!strings.Contains(stdout, "sqlite ops/s") || !strings.Contains(stdout, "postgres ops/s") ||
		!strings.Contains(stdout, "skipped") || !strings.Contains(stdout, "no figures from postgres: skipped, embedded PostgreSQL unavailable") {
		t.Fatalf("quickstart output:\n%s", stdout)
	}
	if !strings.HasSuffix(strings.TrimSpace(stdout), filepath.Join(out, "report.html")) {
		t.Fatalf("quickstart must end with the path of report.html:\n%s", stdout)
	}
	for _, f := range []string{"report.html", "results.csv", "summary.md", "runs.json", "study.yaml"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestQuickstart(t *testing.T) {
	t.Chdir(t.TempDir())
	out := filepath.Join("results", "qs") // relative, as a user types it
	// A mistyped parent is said, not created.
	_, stderr, code := docbench(t, "quickstart", "--quick", "--out", out)
	if want := "--out results/qs: directory results does not exist: create it first"; code != 2 ||
		strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, want) {
		t.Fatalf("quickstart --out into a missing directory: exit %d, stderr %q; want exit 2 and one line with %q", code, stderr, want)
	}
	if _, err := os.Stat("results"); err == nil {
		t.Fatal("quickstart made the missing parent of --out")
	}
	os.Mkdir("results", 0o755)
	stdout, stderr, code := docbench(t, "quickstart", "--quick", "--records", "1500", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "1500 records") {
		t.Errorf("--records under --quick was not kept: %s", stderr)
	}
	for _, want := range []string{"postgres ops/s", "sqlite ops/s", "workloada", "workloadc", "READ", "UPDATE"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("side-by-side table lacks %q:\n%s", want, stdout)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(out, "results", "*", "*", "*.json"))
	if len(matches) != 8 { // per target: load, workloada, workloadc, workloada's capacity search
		t.Fatalf("%d result files: %v", len(matches), matches)
	}
	// --quick is said in every output file.
	for _, f := range append(matches, filepath.Join(out, "summary.txt"), filepath.Join(out, "summary.md"), filepath.Join(out, "report.html"), filepath.Join(out, "results.csv")) {
		b, _ := os.ReadFile(f)
		if !strings.Contains(strings.ToLower(string(b)), "quick") {
			t.Errorf("%s does not say it is of a quick run", f)
		}
	}
	if !strings.HasPrefix(stdout, "QUICK RUN") {
		t.Errorf("stdout does not open with the quick marker:\n%s", stdout)
	}
	for _, m := range matches {
		if strings.HasSuffix(m, "-capacity-r1.json") {
			if r := readResult(t, m); r.Capacity == nil || len(r.Capacity.Trials) < 2 || r.Capacity.ClosedLoop <= 0 {
				t.Errorf("%s: capacity %+v", m, r.Capacity)
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(b), "Sustainable rate at p99") {
		t.Errorf("report.html lacks the capacity chart: %v", err)
	}
}

const testStudy = `name: tiny
title: a tiny study
cites: none (test)
reported: nothing
targets:
  - {name: sqlite, target: "sqlite:tiny.sqlite"}
  - {name: sqlite-text, target: "sqlite:tiny.sqlite", properties: {doctype: text}}
  - {name: broken, target: "sqlite:tiny.sqlite", properties: {index: gin}}
properties: {recordcount: 300}
workloads:
  - {name: read, workload: workloadc}
  - {name: mixed, workload: workloada, properties: {insertproportion: 0.1, readproportion: 0.4}}
sweep:
  - {property: threads, values: [1, 2]}
  - {property: fieldlength, values: [50, 500]}
rounds: 2
duration: 300ms
charts:
  - {title: Throughput by field length, x: fieldlength, y: throughput, workload: read}
  - {title: Storage, x: target, y: bytes_per_document}
  - {title: p99 by operation, x: target, y: p99, workload: mixed}
`

func TestStudyEndToEnd(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(file, []byte(testStudy), 0o644)
	out := filepath.Join(dir, "out")
	stdout, stderr, code := docbench(t, "study", file, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// What the study found first (a line per workload and point, the
	// caveats), the path of report.html last.
	if !strings.HasSuffix(strings.TrimSpace(stdout), "\n"+filepath.Join(out, "report.html")) ||
		!strings.HasPrefix(stdout, "load at threads=1, fieldlength=50: ") || strings.Contains(stdout, "not run") || !strings.Contains(stdout, "\nno figures from broken: skipped, ") {
		t.Fatalf("stdout %q: want the comparisons first, the skipped target, and the path of report.html last", stdout)
	}
	// 2 working targets × 4 points × 2 rounds × 2 workloads.
	runs, _ := filepath.Glob(filepath.Join(out, "results", "sqlite*", "*", "[rm]*-r*.json"))
	if len(runs) != 32 {
		t.Fatalf("%d run results, want 32", len(runs))
	}
	// Loads: one per data set (fieldlength), again each round because "mixed" inserts.
	loads, _ := filepath.Glob(filepath.Join(out, "results", "sqlite", "*", "load*.json"))
	if len(loads) != 4 {
		t.Fatalf("%d loads for one target, want 2 data sets × 2 rounds: %v", len(loads), loads)
	}
	csvb, _ := os.ReadFile(filepath.Join(out, "results.csv"))
	if !strings.HasPrefix(string(csvb), "study,target,workload,threads,fieldlength,op,metric,unit,median,min,max,ci_low,ci_high,rounds,quick,caveat\n") {
		t.Fatalf("results.csv header: %s", strings.SplitN(string(csvb), "\n", 2)[0])
	}
	if !strings.Contains(string(csvb), "tiny,sqlite,read,2,500,READ,p99,µs,") {
		t.Fatalf("results.csv lacks a READ p99 row:\n%s", csvb)
	}
	html, _ := os.ReadFile(filepath.Join(out, "report.html"))
	for _, want := range []string{"a tiny study", "Throughput by field length", "broken", "not applicable",
		"index=gin (an option of postgres) is not supported by sqlite", "<svg", "mixed UPDATE threads=2 fieldlength=500", "Numbers: stored bytes per document (B)"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(string(csvb), "mixed") && strings.Contains(string(html), "UNIQUE constraint") {
		b, _ := os.ReadFile(filepath.Join(out, "runs.json"))
		t.Errorf("rounds collided on inserted keys:\n%s", b)
	}
	// Re-rendering gives the same report; comparing with itself finds no change.
	os.Remove(filepath.Join(out, "report.html"))
	if _, stderr, code := docbench(t, "report", out); code != 0 {
		t.Fatalf("report: %s", stderr)
	}
	if again, _ := os.ReadFile(filepath.Join(out, "report.html")); string(again) != string(html) {
		t.Error("docbench report DIR rendered a different report.html")
	}
	cmp, stderr, code := docbench(t, "compare", out, out, "--metric", "throughput")
	if code != 0 || !strings.Contains(cmp, "\n2 rounds each: cannot tell what changed beyond the noise\n") || strings.Contains(cmp, "%") {
		t.Fatalf("compare dirs: exit %d %s\n%s", code, stderr, cmp)
	}
}

func TestStudyBadFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(file, []byte("workloads: [{workload: workloada}]\nrounds: many\nfrob: 1\n"), 0o644)
	_, stderr, code := docbench(t, "study", file)
	if code != 2 || !strings.Contains(stderr, "bad.yaml:3:1: unknown key \"frob\"") || !strings.Contains(stderr, "bad.yaml:2:9: rounds: want a whole number, not \"many\"") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, stderr, code = docbench(t, "study", "no-such-study")
	if code != 2 || !strings.Contains(stderr, "not a built-in study") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
