package runner

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/measure"
)

// The per-operation path allocates nothing (docs/performance.md): the
// worker's step, for every core workload and the document update modes,
// against null: so that only docbench's own work is counted. CI fails when
// this regresses; BenchmarkStep shows the same with -benchmem.
func TestStepAllocatesNothing(t *testing.T) {
	cases := map[string]map[string]string{
		"workloada": nil, "workloadb": nil, "workloadc": nil, "workloadd": nil, "workloade": nil, "workloadf": nil,
		"workloada/customer-partial": {"document.shape": "customer", "updatemode": "partial", "updatefields": "2"},
		"workloada/customer-merge":   {"document.shape": "customer", "updatemode": "merge"},
		"workloadf/reviews-replace":  {"document.shape": "reviews", "updatemode": "replace"},
	}
	for name, props := range cases {
		t.Run(name, func(t *testing.T) {
			wlName := name
			if i := len("workloadx"); len(name) > i {
				wlName = name[:i]
			}
			all := map[string]string{"recordcount": "100000"}
			maps.Copy(all, props)
			wl, docOps := newDocOps(t, wlName, all)
			cfg := wl.Config()
			ctx := context.Background()
			store, err := db.Open(ctx, db.Config{Target: "null:"})
			if err != nil {
				t.Fatal(err)
			}
			sess, err := store.NewSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			reg := measure.NewRegistry(opNames(docOps, false), true)
			w := &worker{sess: sess, wl: wl, th: wl.NewThread(0), docOps: docOps, rec: reg.NewRecorder(), drng: document.NewRand()}
			w.prepare()
			r := w.th.Rand()
			for range 2000 { // buffers reach their working size
				_ = w.step(ctx, cfg, r, time.Time{})
			}
			if a := testing.AllocsPerRun(5000, func() { _ = w.step(ctx, cfg, r, time.Time{}) }); a != 0 {
				t.Fatalf("the worker's step allocates %.3f times per operation; want 0", a)
			}
		})
	}
}
