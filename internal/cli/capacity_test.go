package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/testutil"
)

func TestCapacityOnNull(t *testing.T) {
	dir := t.TempDir()
	out, html := filepath.Join(dir, "cap.json"), filepath.Join(dir, "cap.html")
	// Two workers with a 2 ms service time carry at most 1,000 ops/s.
	stdout, stderr, code := docbench(t, "capacity", "-t", "null:", "-P", "workloadc", "-p", "null.delay=2ms", "--threads", "2",
		"--slo", "p99<20ms", "--slo", "READ.p99<30ms", "--trial", "1s", "--min-windows", "2", "--warmup", "0s", "--precision", "25%", "--max-time", "40s",
		"--out", out, "--html", html)
	// Half the workers' capacity holds bounds ten times their service time.
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	r := readResult(t, out)
	c := r.Capacity
	if r.Phase != "capacity" || c == nil || len(c.Trials) < 3 || c.Rate == 0 || c.Band == nil || c.Band.Holds != c.Rate ||
		c.Confidence != 0.95 || c.MinWindows != 2 || len(c.Rates) < 2 {
		t.Fatalf("exit %d, result: phase %q, capacity %+v", code, r.Phase, c)
	}
	for _, x := range c.Rates {
		if x.Decision == "holds" && (len(x.Criteria) != 3 || x.Criteria[0].Operations < 300 || x.Criteria[0].Hi == nil || *x.Criteria[0].Hi >= 0.01) {
			t.Errorf("rate %.0f holds on %+v", x.Rate, x.Criteria)
		}
	}
	if c.Trials[0].Stage != "closed-loop" || c.Trials[0].Rate != 0 || c.ClosedLoop <= 0 {
		t.Errorf("first trial %+v, want the closed-loop probe", c.Trials[0])
	}
	if c.Rate > 1100 || len(c.SLO) != 2 || c.Bounds[1] != 30000 {
		t.Errorf("capacity %+v: want a rate up to 1,000 ops/s and both SLOs", c)
	}
	for _, tr := range c.Trials[1:] {
		if len(tr.SLO) != 2 || tr.Verdict == "" || (tr.Pass != (tr.Verdict == "pass")) || len(tr.Windows) == 0 || len(tr.Windows[0].SLO) != 2 {
			t.Errorf("trial %d not judged: %+v", tr.N, tr)
		}
	}
	if !strings.HasPrefix(stdout, "holds ") || !strings.Contains(stdout, "(95% confidence)") || !strings.Contains(stderr, "trial 2 bracket") {
		t.Errorf("stdout %q\nstderr %q", stdout, stderr)
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "Latency vs rate offered") || !strings.Contains(string(b), "<svg") {
		t.Errorf("html report: %v", err)
	}
}

func TestCapacityBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--slo", "p99>5ms"}, "upper bound"},
		{[]string{"--slo", "throughput<5"}, "bounds latency"},
		{[]string{"--slo", "p99<5ms", "--precision", "0"}, "--precision"},
		{[]string{"--slo", "p99<5ms", "--max-error-share", "7"}, "--max-error-share"},
		{[]string{"--slo", "p99<5ms", "--shard", "0/2", "--start-at", "+1s"}, "--ladder"},
		{[]string{"--slo", "p99<5ms", "--ladder", "10:x"}, "--ladder"},
		{[]string{"--slo", "p99<5ms", "--trial", "100ms"}, "--trial"},
		{[]string{"--confidence", "40%"}, "--confidence"},
		{[]string{"--min-windows", "0"}, "--min-windows"},
	} {
		args := append([]string{"capacity", "-t", "null:", "-P", "workloadc", "--out", "", "--html", ""}, tc.args...)
		_, stderr, code := docbench(t, args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and one line with %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
}

func TestCapacityShardsMerge(t *testing.T) {
	dir := t.TempDir()
	start := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339Nano)
	var wg sync.WaitGroup
	codes := make([]int, 2)
	errs := make([]string, 2)
	for k := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[k], codes[k] = docbench(t, "capacity", "-t", "null:", "-P", "workloadc", "-p", "null.delay=1ms", "--threads", "2",
				"--slo", "p99<1s", "--trial", "2s", "--min-windows", "2", "--warmup", "0s", "--precision", "50%", "--ladder", "400:800",
				"--shard", fmt.Sprintf("%d/2", k), "--start-at", start,
				"--out", filepath.Join(dir, fmt.Sprintf("s%d.json", k)), "--html", "")
		}()
	}
	wg.Wait()
	for k := range 2 {
		if codes[k] != 0 {
			t.Fatalf("shard %d: exit %d: %s", k, codes[k], errs[k])
		}
	}
	s0 := readResult(t, filepath.Join(dir, "s0.json"))
	if c := s0.Capacity; c == nil || c.Limit != "shard" || len(c.Trials) != 3 || c.Trials[0].Rate != 400 || c.Trials[0].Pass {
		t.Fatalf("shard result: %+v", s0.Capacity)
	}
	merged, html := filepath.Join(dir, "merged.json"), filepath.Join(dir, "merged.html")
	stdout, stderr, code := docbench(t, "merge", filepath.Join(dir, "s0.json"), filepath.Join(dir, "s1.json"), "--out", merged, "--html", html)
	// Four workers of 1 ms carry 4,000 ops/s: every rung holds p99<1s.
	if code != 0 {
		t.Fatalf("merge: exit %d: %s\n%s", code, stderr, stdout)
	}
	c := readResult(t, merged).Capacity
	if c == nil || len(c.Trials) != 3 || c.Rate != 800 || c.Limit != "ladder top" || !slices.Contains(c.Ladder, c.Rate) || len(c.Rates) != 3 {
		t.Fatalf("merged capacity: %+v", c)
	}
	for _, tr := range c.Trials {
		if tr.Threads != 4 || tr.Operations < int64(0.8*2*tr.Rate) || len(tr.SLO) != 1 || tr.Verdict == "" || tr.Decision != "holds" ||
			len(tr.Windows) < 2 || tr.Windows[0].SLO[0].N < int64(0.8*tr.Rate) {
			t.Errorf("merged rung %d: %+v", tr.N, tr)
		}
	}
	if !strings.HasPrefix(stdout, "holds 800 ops/s") {
		t.Errorf("merge output: %s", stdout)
	}
	// The merge writes the report docbench capacity writes: the curve of
	// the merged rungs, the verdict the merge judged.
	b, err := os.ReadFile(html)
	if err != nil || !strings.Contains(string(b), "Latency vs rate offered") || !strings.Contains(string(b), "<svg") ||
		!strings.Contains(string(b), "holds 800 ops/s") || !strings.Contains(stderr, "wrote "+html) {
		t.Errorf("merged HTML report: %v; stderr %q", err, stderr)
	}
	// kube collect merges the pods' logs the same way and writes NAME.html.
	kdir := fakeKubectl(t, []string{filepath.Join(dir, "s0.json"), filepath.Join(dir, "s1.json")})
	t.Chdir(kdir)
	if _, stderr, code := docbench(t, "kube", "collect", "cap"); code != 0 {
		t.Fatalf("kube collect: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(kdir, "cap.html")); err != nil || !strings.Contains(string(b), "Latency vs rate offered") {
		t.Errorf("kube collect HTML report: %v", err)
	}
}

func TestKubeJobCapacity(t *testing.T) {
	out, stderr, code := docbench(t, "kube", "job", "-t", "postgres://bench@db:5432/bench", "-P", "workloadc", "--shards", "4",
		"--image", "docbench:test", "--slo", "p99<5ms", "--ladder", "1000:8000", "--trial", "20s")
	if code != 0 {
		t.Fatalf("kube job --slo: %d %s", code, stderr)
	}
	_, job := decodeManifests(t, []byte(out))
	args := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " ")
	for _, want := range []string{"capacity -t ", "--slo p99<5ms", "--ladder 1000:8000", "--trial 20s", "--shard auto/4", "--start-at ", "--format jsonl"} {
		if !strings.Contains(args, want) {
			t.Errorf("pod args %q lack %q", args, want)
		}
	}
	_, stderr, code = docbench(t, "kube", "job", "-t", "postgres://bench@db:5432/bench", "-P", "workloadc", "--shards", "4",
		"--image", "docbench:test", "--slo", "p99<5ms", "--rate", "100")
	if code != 2 || !strings.Contains(stderr, "--ladder") {
		t.Errorf("kube job --slo --rate: exit %d, %s", code, stderr)
	}
}

func TestCapacityUnloadedTarget(t *testing.T) {
	target := "sqlite:" + filepath.Join(t.TempDir(), "empty.db")
	_, stderr, code := docbench(t, "capacity", "-t", target, "-P", "workloadc", "--slo", "p99<5ms", "--trial", "1s",
		"--out", "", "--html", "")
	if code == 0 || !strings.Contains(stderr, "docbench load") {
		t.Errorf("capacity on an empty target: exit %d, %q; want the load command", code, stderr)
	}
}

// TestCapacityOnServers runs short searches on a SQLite file and on embedded
// PostgreSQL: every trial measured, the engine inside docbench kept out of
// the client's CPU. The machine's load decides the rates, not the test.
func TestCapacityOnServers(t *testing.T) {
	for name, target := range map[string]string{
		"sqlite":   "sqlite:" + filepath.Join(t.TempDir(), "cap.db"),
		"postgres": testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")),
	} {
		t.Run(name, func(t *testing.T) {
			props := []string{"-P", "workloadc", "-p", "recordcount=500"}
			if _, stderr, code := docbench(t, append([]string{"load", "-t", target, "--status", "0"}, props...)...); code != 0 {
				t.Fatalf("load: %s", stderr)
			}
			out := filepath.Join(t.TempDir(), "cap.json")
			_, stderr, code := docbench(t, append([]string{"capacity", "-t", target, "--threads", "2", "--slo", "p99<50ms",
				"--trial", "1s", "--min-windows", "2", "--warmup", "200ms", "--precision", "50%", "--max-time", "20s", "--out", out, "--html", ""}, props...)...)
			// Half the closed loop's throughput holds a bound of 50 ms.
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			c := readResult(t, out).Capacity
			if c == nil || len(c.Trials) < 3 || c.ClosedLoop <= 0 || c.Rate == 0 {
				t.Fatalf("capacity %+v", c)
			}
			for _, tr := range c.Trials[1:] {
				if tr.Operations == 0 || len(tr.SLO) != 1 || tr.Verdict == "" {
					t.Errorf("trial %d: %+v", tr.N, tr)
				}
				if inProcess := name == "sqlite"; inProcess != (tr.ClientCPUShare == nil) {
					t.Errorf("trial %d: client CPU %v for %s", tr.N, tr.ClientCPUShare, name)
				}
			}
		})
	}
}

// TestCapacityNamesTheQueryThatBreaksTheSLO: in a mix of reads by key and
// an aggregate over every document (5 % of the operations, tens of
// milliseconds each), no rate holds p99<5ms. The search stops once two
// rates failed on that query alike, and its answer says so and names it.
func TestCapacityNamesTheQueryThatBreaksTheSLO(t *testing.T) {
	dir := t.TempDir()
	mix := filepath.Join(dir, "mix.yaml")
	if err := os.WriteFile(mix, []byte("queries:\n  - {name: per-city, kind: aggregate, path: address.city, func: avg, aggpath: balance, proportion: 0.05}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := "sqlite:" + filepath.Join(dir, "mix.db")
	props := []string{"-P", "workloadc", "-p", "document.shape=customer", "-p", "recordcount=5000", "-p", "querymix=" + mix}
	if _, stderr, code := docbench(t, append([]string{"load", "-t", target, "--status", "0"}, props...)...); code != 0 {
		t.Fatalf("load: %s", stderr)
	}
	out := filepath.Join(dir, "cap.json")
	stdout, stderr, code := docbench(t, append([]string{"capacity", "-t", target, "--slo", "p99<5ms", "--trial", "2s", "--warmup", "500ms",
		"--out", out, "--html", ""}, props...)...)
	if code != ExitThresholds {
		t.Fatalf("exit %d, want %d (no rate holds)\n%s\n%s", code, ExitThresholds, stdout, stderr)
	}
	c := readResult(t, out).Capacity
	first, _, _ := strings.Cut(stdout, "\n")
	for _, s := range []string{first, c.Absent, stderr} {
		if !strings.Contains(s, "no rate holds") && s != c.Absent || !strings.Contains(s, "QUERY-per-city") || !strings.Contains(s, "at any rate") {
			t.Errorf("%q: want no rate holds, QUERY-per-city breaks the SLO at any rate", s)
		}
	}
	if c.Rate != 0 || c.Limit != "no passing rate" {
		t.Errorf("capacity: rate %v, limit %q", c.Rate, c.Limit)
	}
}
