package cli

import (
	"path/filepath"
	"testing"
)

// With dataintegrity=true, --format ycsb prints [VERIFY] beside [READ], one
// check per document read (the reads of read-modify-writes included), and
// the result carries a VERIFY operation.
func TestYCSBReportVerify(t *testing.T) {
	dir := t.TempDir()
	target := "sqlite:" + filepath.Join(dir, "verify.db")
	common := []string{"-t", target, "-P", "workloadf", "-p", "recordcount=200", "-p", "dataintegrity=true", "--threads", "2"}
	if _, stderr, code := docbench(t, append([]string{"load"}, common...)...); code != 0 {
		t.Fatalf("load exit %d: %s", code, stderr)
	}
	out, stderr, code := docbench(t, append([]string{"run", "-p", "operationcount=1000", "--format", "ycsb",
		"--out", filepath.Join(dir, "run.json")}, common...)...)
	if code != 0 {
		t.Fatalf("run exit %d: %s", code, stderr)
	}
	rep := parseYCSB(t, out)
	for _, metric := range []string{"Operations", "AverageLatency(us)", "99thPercentileLatency(us)", "Return=OK"} {
		if rep["VERIFY"][metric] == "" {
			t.Errorf("[VERIFY], %s missing: %v", metric, rep["VERIFY"])
		}
	}
	if v, r := rep["VERIFY"]["Operations"], rep["READ"]["Operations"]; v != r || rep["VERIFY"]["Return=OK"] != v {
		t.Errorf("[VERIFY] %v against [READ] %v: one successful check per read", rep["VERIFY"], rep["READ"])
	}
	res := readResult(t, filepath.Join(dir, "run.json"))
	var verify bool
	for _, op := range res.Ops {
		verify = verify || op.Name == "VERIFY" && op.Count > 0 && op.Errors == 0 && op.Service != nil
	}
	if !verify || res.Errors != 0 || res.Operations != 1000 {
		t.Fatalf("result: %d operations, %d errors, ops %+v; want a VERIFY op without errors", res.Operations, res.Errors, res.Ops)
	}
}
