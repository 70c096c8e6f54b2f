package cli

import (
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/server"
	"github.com/docbench/docbench/internal/testutil"
)

// exponent is a number in scientific notation (4e+03, 1.2E-05).
var exponent = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?[eE][+-]?[0-9]+\b`)

// TestNewcomer walks a newcomer's first hour as one path, with the binary
// a user builds, from a directory like a fresh clone and with a fresh HOME:
// the quickstart, a load into their PostgreSQL and a study on the same
// server (the loaded records survive), compare, the report of one run,
// YCSB's output, and the mistakes a newcomer makes (one line each, no Go
// stack trace, nothing left behind).
func TestNewcomer(t *testing.T) {
	ctx := context.Background()
	bin := binary(t)
	clone := filepath.Join(t.TempDir(), "docbench")
	home := t.TempDir()
	if err := os.Mkdir(clone, 0o755); err != nil {
		t.Fatal(err)
	}
	// The downloads already made (the embedded PostgreSQL) are reused: a
	// fresh HOME, not a fresh cache.
	cache, err := server.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "DOCBENCH_CACHE=" + cache}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "HOME" && !strings.HasPrefix(name, "XDG_") && name != "DOCBENCH_CACHE" {
			env = append(env, kv)
		}
	}
	// docbench runs the binary in the clone; it fails the test on a Go
	// stack trace whatever the exit code.
	docbench := func(t *testing.T, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = clone, env
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("docbench %v: %v", args, err)
		}
		if all := out.String() + errb.String(); strings.Contains(all, "goroutine ") || strings.Contains(all, "panic:") {
			t.Fatalf("docbench %v: a Go stack trace:\n%s", args, all)
		}
		return out.String(), errb.String(), code
	}
	ok := func(t *testing.T, args ...string) string {
		t.Helper()
		out, stderr, code := docbench(t, args...)
		if code != 0 {
			t.Fatalf("docbench %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		return out
	}
	inClone := func(name string) string { return filepath.Join(clone, name) }

	t.Run("quickstart", func(t *testing.T) {
		stdout := ok(t, "quickstart", "--quick", "--out", "qs")
		summary, err := os.ReadFile(inClone("qs/summary.txt"))
		if err != nil {
			t.Fatal(err)
		}
		header := regexp.MustCompile(`(?m)^ *workload +operation +\S+ ops/s`)
		for what, s := range map[string]string{"stdout": stdout, "summary.txt": string(summary)} {
			table := header.FindStringIndex(s)
			if !strings.HasPrefix(s, "QUICK RUN (--quick)") || table == nil {
				t.Fatalf("%s: want the --quick marker first and a table:\n%s", what, s)
			}
			for _, finding := range []string{"\nload: ", "\nworkloada: ", "\nworkloadc: "} {
				if i := strings.Index(s, finding); i < 0 || i > table[0] {
					t.Errorf("%s: the finding %q does not precede the table:\n%s", what, finding, s)
				}
			}
		}
		if !strings.HasSuffix(strings.TrimSpace(stdout), filepath.Join("qs", "report.html")) {
			t.Errorf("quickstart does not end with the path of its report:\n%s", stdout)
		}
	})

	// The user's PostgreSQL server and their database on it.
	pg := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	conn, err := pgx.Connect(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	count := func(t *testing.T, table string) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatalf("count %s: %v", table, err)
		}
		return n
	}
	const records = 3000

	t.Run("load, then a study on the same server", func(t *testing.T) {
		out := ok(t, "load", "-t", pg, "-P", "workloada", "-p", "recordcount="+strconv.Itoa(records), "-p", "batchsize=100",
			"--threads", "2", "--format", "ycsb", "--out", "load.json")
		rep := parseYCSB(t, out)
		if rep["INSERT"]["Operations"] != strconv.Itoa(records) || rep["INSERT"]["Return=OK"] != strconv.Itoa(records) ||
			rep["INSERT-BATCH"]["Operations"] != strconv.Itoa(records/100) || rep["OVERALL"]["RunTime(ms)"] == "" ||
			rep["OVERALL"]["Throughput(ops/sec)"] == "" {
			t.Errorf("a batched load's YCSB report: want [INSERT] Operations = %d records, [INSERT-BATCH] the batches:\n%s", records, out)
		}
		if n := count(t, "docbench.usertable"); n != records {
			t.Fatalf("loaded %d records, want %d", n, records)
		}
		os.WriteFile(inClone("small.yaml"), []byte("name: small\ntitle: a small study\n"+
			"targets:\n  - {name: lite, target: \"sqlite:small.db\"}\n"+
			"workloads:\n  - {name: read, workload: workloadc}\n  - {name: mixed, workload: workloada}\n"+
			"properties: {recordcount: 1000}\nduration: 5s\n"+
			"quick: {duration: 500ms, warmup: 0s, properties: {recordcount: 500}}\n"), 0o644)
		out = ok(t, "study", "small.yaml", "--quick", "-t", pg, "--out", "study")
		if !strings.HasPrefix(out, "QUICK RUN") || strings.Contains(out, "no figures from") ||
			!regexp.MustCompile(`(?m)^read: (.*ops/s.*postgres://|.*postgres://.*ops/s)`).MatchString(out) {
			t.Errorf("study --quick with -t: want figures of both targets, marked quick:\n%s", out)
		}
		if n := count(t, "docbench.usertable"); n != records {
			t.Errorf("after a study on the same server the loaded table holds %d records, want %d", n, records)
		}
	})

	t.Run("run, YCSB output, compare, report", func(t *testing.T) {
		run := func(name string) map[string]map[string]string {
			return parseYCSB(t, ok(t, "run", "-t", pg, "-P", "workloada", "-p", "recordcount="+strconv.Itoa(records),
				"-p", "operationcount=1500", "--threads", "2", "--format", "ycsb", "--status", "0", "--out", name))
		}
		rep := run("run1.json")
		run("run2.json")
		for _, section := range []string{"READ", "UPDATE"} {
			for _, metric := range []string{"Operations", "AverageLatency(us)", "MinLatency(us)", "MaxLatency(us)",
				"95thPercentileLatency(us)", "99thPercentileLatency(us)", "Return=OK"} {
				if rep[section][metric] == "" {
					t.Errorf("[%s], %s missing from the YCSB report: %v", section, metric, rep)
				}
			}
		}
		reads, _ := strconv.Atoi(rep["READ"]["Operations"])
		updates, _ := strconv.Atoi(rep["UPDATE"]["Operations"])
		if reads+updates != 1500 || rep["OVERALL"]["RunTime(ms)"] == "" || rep["OVERALL"]["Throughput(ops/sec)"] == "" {
			t.Errorf("[READ] %d + [UPDATE] %d operations, want 1500; [OVERALL] %v", reads, updates, rep["OVERALL"])
		}
		if _, ok := rep["Intended-READ"]; ok {
			t.Errorf("[Intended-*] blocks without a target rate: %v", rep)
		}

		for _, tc := range []struct{ a, b, want string }{
			{"run1.json", "run2.json", "\nthroughput ops/s "},
			{"qs", "qs", "\none round each: cannot tell what changed beyond the noise\n"},
		} {
			out := ok(t, "compare", tc.a, tc.b)
			if strings.Contains(out, "∞") || exponent.MatchString(out) || !strings.Contains(out, tc.want) {
				t.Errorf("compare %s %s: want %q, no ∞, no exponent:\n%s", tc.a, tc.b, tc.want, out)
			}
		}

		out := ok(t, "report", "run1.json")
		if strings.TrimSpace(out) != "run1.html" {
			t.Errorf("report run1.json: stdout %q, want the path of the HTML beside it", out)
		}
		if b, err := os.ReadFile(inClone("run1.html")); err != nil || !strings.Contains(string(b), "<svg") {
			t.Errorf("run1.html: %v, %d bytes", err, len(b))
		}
	})

	t.Run("mistakes", func(t *testing.T) {
		if _, err := conn.Exec(ctx, "CREATE TABLE docbench.orders (id int PRIMARY KEY); INSERT INTO docbench.orders VALUES (1), (2), (3)"); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(inClone("bad.yaml"), []byte("name: bad\nworkloads: [{workload: workloada}]\nrounds: many\nfrob: 1\n"), 0o644)
		missing, err := url.Parse(pg)
		if err != nil {
			t.Fatal(err)
		}
		missing.Path = "/x"
		for _, tc := range []struct {
			args []string
			code int      // the exit status
			want []string // in the one line on stderr
		}{
			{[]string{"run", "-t", "null:", "-P", "workloada", "--thread", "2"}, 2, []string{"unknown flag: --thread (did you mean --threads?)"}},
			{[]string{"run"}, 2, []string{"missing -t/--target and -P/--workload"}},
			{[]string{"run", "-t", "null:", "-P", "workloada", "--warmup", "-5s"}, 2, []string{"--warmup -5s: must be zero or more"}},
			{[]string{"run", "-t", "null:", "-P", "workloada", "--out", "nosuch/r.json"}, 2, []string{"directory nosuch does not exist: create it first"}},
			{[]string{"quickstart", "--quick", "--out", "nosuch/qs"}, 2, []string{"directory nosuch does not exist: create it first"}},
			{[]string{"load", "-t", "sqlite:/nonexistent/x.db", "-P", "workloada"}, 2, []string{"directory /nonexistent does not exist: create it first"}},
			{[]string{"study", "bad.yaml", "--out", "badstudy"}, 2, []string{`bad.yaml:3:9: rounds: want a whole number, not "many"`, `bad.yaml:4:1: unknown key "frob"`}},
			{[]string{"run", "-t", missing.String(), "-P", "workloada"}, 1, []string{`database "x" does not exist on ` + missing.Host}},
			{[]string{"load", "-t", pg, "-P", "workloada", "-p", "recordcount=100", "-p", "table=orders"}, 2,
				[]string{"docbench.orders exists and was not created by docbench; choose another table"}},
		} {
			t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
				_, stderr, code := docbench(t, tc.args...)
				if code != tc.code || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
					t.Fatalf("exit %d, stderr %q; want exit %d and one line", code, stderr, tc.code)
				}
				for _, want := range tc.want {
					if !strings.Contains(stderr, want) {
						t.Errorf("stderr %q lacks %q", stderr, want)
					}
				}
			})
		}
		for _, left := range []string{"nosuch", "badstudy"} {
			if _, err := os.Stat(inClone(left)); err == nil {
				t.Errorf("a refused command left %s behind", left)
			}
		}
		if n := count(t, "docbench.orders"); n != 3 {
			t.Errorf("the user's table holds %d rows after the refused load, want 3", n)
		}
	})
}
