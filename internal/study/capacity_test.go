package study

import (
	"strings"
	"testing"
	"time"
)

func TestCapacitySpec(t *testing.T) {
	f, err := Load("index-strategy")
	if err != nil {
		t.Fatal(err)
	}
	c := f.Capacity
	if c == nil || c.Workload != "c" || c.Trial.D() != 5*time.Second {
		t.Fatalf("capacity: %+v", c)
	}
	if !f.capacityAt("pg-btree", []KV{{Key: "threads", Value: "16"}}, 0) || f.capacityAt("pg-btree", []KV{{Key: "threads", Value: "1"}}, 0) ||
		f.capacityAt("sqlite", []KV{{Key: "threads", Value: "16"}}, 0) {
		t.Error("capacityAt: want pg-btree and pg-gin at threads=16 only")
	}
	f.ApplyQuick()
	if run, err := f.capacityRun(); err != nil || run.Trial != time.Second || run.MaxTime > 15*time.Second {
		t.Errorf("quick capacity: %+v, %v", run, err)
	}
	q, err := Load("quickstart")
	if err != nil || q.Capacity == nil || q.Capacity.Workload != "workloada" || !q.capacityAt("postgres", nil, 0) {
		t.Fatalf("quickstart capacity: %+v %v", q.Capacity, err)
	}
	for _, tc := range []struct{ yaml, want string }{
		{`capacity: {slo: "p99>5ms"}`, "upper bound"},
		{`capacity: {slo: "p99<5ms", workload: nosuch}`, `workload "nosuch"`},
		{`capacity: {slo: "p99<5ms", precision: abc}`, "precision"},
		{`capacity: {slo: "p99<5ms", point: {threads: "4"}}`, "not a swept property"},
		{`capacity: {slo: "p99<5ms", trail: 5s}`, `did you mean "trial"`},
	} {
		_, err := Parse("s.yaml", []byte("workloads: [{workload: workloada}]\n"+tc.yaml+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "s.yaml:2") {
			t.Errorf("%s: got %v, want an error at s.yaml:2 with %q", tc.yaml, err, tc.want)
		}
	}
}
