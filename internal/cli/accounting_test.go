package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// A run where almost every operation fails (the run reads 100,000 keys of a
// table holding 100) is not a success: throughput counts successes, the
// failures are reported beside them in every format, the text says FAILED
// first, and the exit status is 1.
func TestFailedOperationsAreNotThroughput(t *testing.T) {
	dir := t.TempDir()
	target := "sqlite:" + filepath.Join(dir, "e.db")
	if _, errOut, code := docbench(t, "load", "-t", target, "-P", "workloada", "-p", "recordcount=100", "--status", "0"); code != 0 {
		t.Fatalf("load: %d %s", code, errOut)
	}
	out := filepath.Join(dir, "r.json")
	stdout, errOut, code := docbench(t, "run", "-t", target, "-P", "workloada", "-p", "recordcount=100000",
		"-p", "operationcount=2000", "--status", "0", "--out", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (failed run); stderr %s", code, errOut)
	}
	if !strings.HasPrefix(stdout, "FAILED: ") || !strings.Contains(stdout, "--max-error-share") {
		t.Fatalf("text must say FAILED first:\n%s", stdout)
	}
	res := readResult(t, out)
	if !res.Failed || res.Errors < 1500 || res.ErrorShare < 0.75 || res.MaxErrorShare != 0.01 {
		t.Fatalf("failed %v errors %d share %v limit %v", res.Failed, res.Errors, res.ErrorShare, res.MaxErrorShare)
	}
	var ok, notFound int64
	for _, op := range res.Ops {
		ok += op.Count - op.Errors
		notFound += op.NotFound
		if op.ErrorShare == 0 || len(op.Messages) == 0 {
			t.Errorf("%s: share %v messages %v", op.Name, op.ErrorShare, op.Messages)
		}
	}
	if got := res.Throughput * res.RuntimeMS / 1e3; got < float64(ok)*0.99 || got > float64(ok)*1.01 {
		t.Fatalf("throughput %v ops/s over %v ms counts %v ops; want the %d successful ones", res.Throughput, res.RuntimeMS, got, ok)
	}
	if notFound == 0 {
		t.Fatal("reads of absent keys must count as not found")
	}

	// YCSB format: Return= lines as YCSB's DBWrapper writes them.
	stdout, _, code = docbench(t, "run", "-t", target, "-P", "workloada", "-p", "recordcount=100000",
		"-p", "operationcount=2000", "--status", "0", "--format", "ycsb", "--max-error-share", "100%")
	if code != 0 {
		t.Fatalf("--max-error-share 100%%: exit %d", code)
	}
	y := parseYCSB(t, stdout)
	if y["READ"]["Return=NOT_FOUND"] == "" || y["READ-FAILED"]["Operations"] == "" || y["READ"]["Return=OK"] == "" {
		t.Fatalf("YCSB report lacks Return=NOT_FOUND / READ-FAILED:\n%s", stdout)
	}
}

// Thresholds are evaluated, printed, recorded and gate the exit status;
// a bad one is a usage error before anything runs.
func TestThresholds(t *testing.T) {
	dir := t.TempDir()
	target := "sqlite:" + filepath.Join(dir, "t.db")
	if _, errOut, code := docbench(t, "load", "-t", target, "-P", "workloadc", "-p", "recordcount=200", "--status", "0"); code != 0 {
		t.Fatalf("load: %d %s", code, errOut)
	}
	out := filepath.Join(dir, "r.json")
	hlog := filepath.Join(dir, "run.hlog")
	stdout, errOut, code := docbench(t, "run", "-t", target, "-P", "workloadc", "-p", "recordcount=200",
		"-p", "operationcount=3000", "--status", "0", "--out", out, "--hdr-log", hlog,
		"--threshold", "p99(READ)<10s", "--threshold", "errors<0.1%", "--threshold", "throughput>1e12")
	if code != ExitThresholds {
		t.Fatalf("exit %d, want %d; stderr %s", code, ExitThresholds, errOut)
	}
	if !strings.Contains(stdout, "THRESHOLD FAILED: throughput>1e12") || !strings.Contains(stdout, "threshold pass  p99(READ)<10s") {
		t.Fatalf("thresholds not printed:\n%s", stdout)
	}
	res := readResult(t, out)
	if len(res.Thresholds) != 3 || !res.Thresholds[0].Pass || !res.Thresholds[1].Pass || res.Thresholds[2].Pass || res.Thresholds[2].Value <= 0 {
		t.Fatalf("thresholds %+v", res.Thresholds)
	}
	b, err := os.ReadFile(hlog)
	if err != nil || !strings.Contains(string(b), "#[StartTime: ") || !strings.Contains(string(b), "Tag=READ,") {
		t.Fatalf("hdr log: %v\n%s", err, b)
	}
	// HdrHistogram's own log reader reads it back, every READ logged.
	lr := hdr.NewHistogramLogReader(bytes.NewReader(b))
	var logged int64
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		logged += h.TotalCount()
	}
	if logged != res.Ops[0].Count-res.Ops[0].Errors {
		t.Fatalf("hdr log holds %d READs, the result %d", logged, res.Ops[0].Count)
	}

	_, errOut, code = docbench(t, "run", "-t", target, "-P", "workloadc", "--threshold", "p99(READ)<<5ms")
	if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "p99(READ)<<5ms") {
		t.Fatalf("bad threshold: exit %d, stderr %q", code, errOut)
	}
}

// A password in a key=value or query form never reaches stderr or the
// result file, even in a connection error.
func TestPasswordsRedactedInErrors(t *testing.T) {
	for _, target := range []string{
		"postgres://u@127.0.0.1:1/db?password=hunter2secret&connect_timeout=2",
		"postgres://u:hunter2secret@127.0.0.1:1/db?connect_timeout=2",
		"mysql://root:hunter2secret@127.0.0.1:1/db",
	} {
		stdout, errOut, code := docbench(t, "run", "-t", target, "-P", "workloadc", "--status", "0")
		if code == 0 || strings.Contains(stdout+errOut, "hunter2secret") {
			t.Errorf("%s: exit %d, password shown:\n%s%s", target, code, stdout, errOut)
		}
	}
}
