package runner

import (
	"context"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/doc"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/workload"
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
			p := workload.NewProperties()
			if err := p.LoadFile(wlName); err != nil {
				t.Fatal(err)
			}
			p.Set("recordcount", "100000", "test")
			for k, v := range props {
				p.Set(k, v, "test")
			}
			keys, prefixes := db.Known()
			cfg, err := workload.ParseConfig(p, workload.Known{Keys: append(keys, doc.Keys()...), Prefixes: prefixes})
			if err != nil {
				t.Fatal(err)
			}
			wl, err := workload.New(cfg, 1)
			if err != nil {
				t.Fatal(err)
			}
			spec, err := doc.ParseSpec(cfg.Props, wl.FieldLengths(), cfg.FieldCount, cfg.FieldNamePrefix)
			if err != nil {
				t.Fatal(err)
			}
			shape, err := doc.New(spec, 1)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := NewPlan(wl, shape, 1)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			store, err := db.Open(ctx, db.Config{Target: "null:"})
			if err != nil {
				t.Fatal(err)
			}
			sess, err := store.NewSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			reg := measure.NewRegistry(opNames(plan, false), true)
			w := &worker{sess: sess, wl: wl, th: wl.NewThread(0), plan: plan, rec: reg.NewRecorder(), drng: doc.NewRand()}
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
