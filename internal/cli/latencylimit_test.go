package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/report"
)

// run --latency-limit records the operations above the limit, and the
// skipped ones under a rate, in the result; a negative limit is refused.
func TestRunLatencyLimit(t *testing.T) {
	args := []string{"run", "-t", "null:", "-P", "workloada", "-p", "operationcount=2000", "--rate", "2000", "--latency-limit", "5ms"}
	stdout, stderr, code := docbench(t, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var r report.Result
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	l := r.LatencyLimit
	if l == nil || l.LimitMS != 5 || l.Of != "response" || l.Late > l.Operations || l.Operations != r.Operations ||
		r.Operations+l.Skipped != 2000 {
		t.Fatalf("latency_limit %+v with %d operations", l, r.Operations)
	}
	if stdout, _, _ := docbench(t, args...); !strings.Contains(stdout, "latency limit 5ms (response time): ") {
		t.Errorf("the text report lacks the latency limit:\n%s", stdout)
	}
	if _, stderr, code := docbench(t, append(args, "--latency-limit", "-1s")...); code != 2 || !strings.Contains(stderr, "--latency-limit -1s: must be zero or more") {
		t.Errorf("a negative limit: exit %d, %s", code, stderr)
	}
}
