package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/report"
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

	t.Run("quickstart --replay --mix", func(t *testing.T) {
		// 200 documents of the user's, nested, with arrays.
		var docs strings.Builder
		for i := range 200 {
			fmt.Fprintf(&docs, `{"_id":"o%d","customer":{"name":"c%d","address":{"city":"%s","zip":"%05d"}},"items":[{"sku":"s%d","qty":%d}],"tags":["t%d","x"],"total":%d.5}`+"\n",
				i, i%37, []string{"Lyon", "Oslo", "Porto"}[i%3], i*7, i%11, 1+i%4, i%5, i*3)
		}
		if err := os.WriteFile(inClone("docs200.ndjson"), []byte(docs.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		// The service's three queries, named once.
		if err := os.WriteFile(inClone("mix.yaml"), []byte("queries:\n"+
			"  - {name: by-city, kind: field, path: customer.address.city, proportion: 0.5}\n"+
			"  - {name: tagged, kind: array, path: tags, proportion: 0.3}\n"+
			"  - {name: total, kind: update, path: total, proportion: 0.2}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// The user indexes the city only: the array query runs without its
		// index, and the first screen says so with the fix. --keep leaves
		// the tables.
		stdout, stderr, code := docbench(t, "quickstart", "--quick", "--replay", "docs200.ndjson", "--mix", "mix.yaml",
			"-p", "secondaryindex=customer.address.city", "--keep", "--out", "qs")
		if code != 0 {
			t.Fatalf("quickstart: exit %d\n%s", code, stderr)
		}
		read := func(name string) string {
			b, err := os.ReadFile(inClone(filepath.Join("qs", name)))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		summary := read("summary.txt")
		header := regexp.MustCompile(`(?m)^ *workload +operation +\S+ ops/s`)
		trial := regexp.MustCompile(`(?m)^trial [0-9]+ `)
		for what, s := range map[string]string{"stdout": stdout, "summary.txt": summary} {
			table := header.FindStringIndex(s)
			if !strings.HasPrefix(s, "QUICK RUN (--quick)") || table == nil {
				t.Fatalf("%s: want the --quick marker first and a table:\n%s", what, s)
			}
			// The answer first: the documents, each target's sustainable
			// rate of the mix, the mix at the common rate and per query
			// (closed loop), storage, the missing index, the audit.
			for _, answer := range []string{"\ndocuments: 200 documents (those of docs200.ndjson, each once)", "depth 3",
				"\npostgres: sustainable rate (mix-rate)", "\nsqlite: sustainable rate (mix-rate)",
				"\n  at 500 ops/s (mix-rate", "intended start): QUERY-by-city p50 ", "; QUERY-tagged p50 ", "; UPDATE-total p50 ", "\n  storage",
				"\n  mix (your queries, closed loop): ", "\n    QUERY-by-city: p50 ", "\n    QUERY-tagged: p50 ", "\n    UPDATE-total: p50 ",
				" rows per call, every match (no limit); plan: ", "\nindexes: secondaryindex=customer.address.city on every target (-p)",
				"\nindex missing: QUERY-tagged (tags) ran without a secondary index on its path; the fix: -p secondaryindex=customer.address.city,tags",
				"\nfairness audit: ", "\nwhat the time gave up: ", "\ncomparable state: ", "the table was kept (--keep)",
				"\nload: ", "\nworkloadc: ", "\nmix: ", "\nmix-rate: "} {
				if i := strings.Index(s, answer); i < 0 || i > table[0] {
					t.Errorf("%s: %q does not precede the table:\n%s", what, answer, s)
				}
			}
			if strings.Contains(s, "workloada") {
				t.Errorf("%s: with a mix, workload A ran:\n%s", what, s)
			}
			if trial.MatchString(s) {
				t.Errorf("%s: a capacity trial's line:\n%s", what, s)
			}
		}
		if trial.MatchString(stderr) {
			t.Errorf("stderr, not a terminal: want no trial lines, only the search's start and result:\n%s", stderr)
		}
		if !strings.HasSuffix(strings.TrimSpace(stdout), filepath.Join("qs", "report.html")) {
			t.Errorf("quickstart does not end with the path of its report:\n%s", stdout)
		}
		// A search's caveats travel with its figure into every output.
		outputs := map[string]string{"summary.txt": summary, "summary.md": read("summary.md"), "report.html": read("report.html"),
			"results.csv": read("results.csv")}
		searches := 0
		for _, name := range []string{"postgres", "sqlite"} {
			b, err := os.ReadFile(inClone(filepath.Join("qs", "results", name, "default", "mix-rate-capacity-r1.json")))
			if err != nil {
				t.Fatal(err)
			}
			var res report.Result
			if err := json.Unmarshal(b, &res); err != nil || res.Capacity == nil {
				t.Fatalf("%s's capacity result: %v", name, err)
			}
			if mix := res.Workload.Properties["querymix"]; !strings.HasSuffix(mix, "mix.yaml") {
				t.Errorf("%s's capacity search ran without the mix (querymix=%q)", name, mix)
			}
			c := res.Capacity
			var words []string
			switch {
			case c.Rate == 0: // no figure: why, where it would be (results.csv has no row)
				words = []string{"no rate holds"}
				delete(outputs, "results.csv")
			case !c.Confirmed:
				words = []string{"not confirmed", "95% confidence", "one round"}
				searches++
			}
			for what, s := range outputs {
				for _, w := range words {
					if !strings.Contains(s, w) {
						t.Errorf("%s's search (%s): %s lacks %q", name, report.CapacityLine(c), what, w)
					}
				}
			}
		}
		t.Logf("%d of 2 searches found a rate not confirmed", searches)
		// summary.md has the mix per query: rows per call and plan.
		if md := outputs["summary.md"]; !regexp.MustCompile(`(?m)^\| default \| sqlite \| QUERY-tagged \| [0-9.]+ \| .+ \|$`).MatchString(md) {
			t.Errorf("summary.md: no row of QUERY-tagged with rows per call and plan:\n%s", md)
		}
		// --keep: the SQLite table is still there, with its documents.
		db, err := sql.Open("sqlite3", inClone(filepath.Join("qs", "study.sqlite")))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow("SELECT count(*) FROM study_quickstart_sqlite").Scan(&n); err != nil || n != 200 {
			t.Errorf("--keep: the SQLite table holds %d documents (%v), want 200", n, err)
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
		// The two threads draw keys from one sequence, as YCSB's do, so each
		// may end on a partial batch: 30 or 31 batches of 3,000 records.
		batches, _ := strconv.Atoi(rep["INSERT-BATCH"]["Operations"])
		if rep["INSERT"]["Operations"] != strconv.Itoa(records) || rep["INSERT"]["Return=OK"] != strconv.Itoa(records) ||
			batches < records/100 || batches > records/100+1 || rep["OVERALL"]["RunTime(ms)"] == "" ||
			rep["OVERALL"]["Throughput(ops/sec)"] == "" {
			t.Errorf("a batched load's YCSB report: want [INSERT] Operations = %d records, [INSERT-BATCH] the batches (30 or 31):\n%s", records, out)
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
			{[]string{"quickstart", "--quick", "-p", "recordcnt=100", "--out", "badqs"}, 2, []string{`-p: unknown property "recordcnt"`}},
			{[]string{"quickstart", "--quick", "--mix", "nosuch.yaml", "--out", "badqs"}, 2, []string{"--mix: querymix=nosuch.yaml: cannot read"}},
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
		for _, left := range []string{"nosuch", "badstudy", "badqs"} {
			if _, err := os.Stat(inClone(left)); err == nil {
				t.Errorf("a refused command left %s behind", left)
			}
		}
		if n := count(t, "docbench.orders"); n != 3 {
			t.Errorf("the user's table holds %d rows after the refused load, want 3", n)
		}
	})
}

// TestQuickstartStatusLine: on a terminal the capacity trials are one
// status line rewritten in place, cleared before the next line; elsewhere
// they are left out.
func TestQuickstartStatusLine(t *testing.T) {
	for _, tty := range []bool{true, false} {
		var b strings.Builder
		w := newStatusWriter(&b)
		w.tty, w.width = tty, 40
		fmt.Fprint(w, "postgres workloada: capacity at p99<5ms\ntrial 1 probe closed loop: achieved 12,514 ops/s, a long line\n")
		fmt.Fprint(w, "trial 2 bracket 6,257 ops/s")
		fmt.Fprint(w, ": fails\npostgres workloada: holds 1,000 ops/s\n")
		w.Done()
		want := "postgres workloada: capacity at p99<5ms\npostgres workloada: holds 1,000 ops/s\n"
		if tty {
			want = "postgres workloada: capacity at p99<5ms\n\r\033[Ktrial 1 probe closed loop: achieved 12…" +
				"\r\033[Ktrial 2 bracket 6,257 ops/s: fails\r\033[Kpostgres workloada: holds 1,000 ops/s\n"
		}
		if b.String() != want {
			t.Errorf("tty %v: got %q, want %q", tty, b.String(), want)
		}
	}
}
