package merge

import (
	"testing"
	"time"

	"github.com/docbench/docbench/internal/report"
)

// The shards' --latency-limit counts add up; shards with different limits
// (or some without one) merge to none.
func TestLatencyLimitMerges(t *testing.T) {
	start := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	a, b := shard(0, 2, start, 1), shard(1, 2, start, 1)
	a.LatencyLimit = &report.LatencyLimit{LimitMS: 5, Of: "response", Late: 10, Operations: a.Operations, Skipped: 5, ByOp: map[string]int64{"READ": 10}}
	b.LatencyLimit = &report.LatencyLimit{LimitMS: 5, Of: "response", Late: 30, Operations: b.Operations, Skipped: 15, ByOp: map[string]int64{"READ": 20, "UPDATE": 10}}
	m, err := Merge([]Input{{Result: a, Source: "a"}, {Result: b, Source: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	ops := a.Operations + b.Operations
	l := m.LatencyLimit
	if l == nil || l.Late != 40 || l.Operations != ops || l.Skipped != 20 || l.ByOp["READ"] != 30 || l.ByOp["UPDATE"] != 10 ||
		l.LateShare != 40/float64(ops) || l.SkippedShare != 20/float64(ops+20) {
		t.Fatalf("merged latency limit %+v (operations %d)", l, ops)
	}
	b.LatencyLimit.LimitMS = 10
	if m, _ := Merge([]Input{{Result: a, Source: "a"}, {Result: b, Source: "b"}}); m.LatencyLimit != nil {
		t.Fatal("shards with different latency limits merged into one")
	}
}
