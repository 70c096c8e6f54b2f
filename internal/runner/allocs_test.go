package runner

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
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
			sess := nullSession(t)
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

// testMix is a query mix of every kind on the customer shape.
const testMix = `queries:
  - {name: by-email, kind: field, path: email, proportion: 0.2}
  - {name: lives-in, kind: contains, path: visited_places.country, proportion: 0.1}
  - {name: by-device, kind: array, path: devices, proportion: 0.1}
  - {name: recent, kind: range, path: created_at, limit: 10, proportion: 0.1}
  - {name: per-city, kind: aggregate, path: address.city, func: avg, aggpath: balance, proportion: 0.05}
  - {name: anywhere, kind: descendant, path: address.city, proportion: 0.05}
  - {name: email-only, kind: field, path: email, fields: [first_name, email], proportion: 0.1}
  - {name: deactivate, kind: update, path: is_active, value: false, proportion: 0.1}
  - {name: rescore, kind: update, path: linear_score, proportion: 0.1}
`

// The per-operation path of a query mix allocates nothing either, and each
// entry records under its own name.
func TestMixStepAllocatesNothing(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mix.yaml")
	if err := os.WriteFile(file, []byte(testMix), 0o644); err != nil {
		t.Fatal(err)
	}
	wl, docOps := newDocOps(t, "workloadc", map[string]string{"recordcount": "1000", "document.shape": "customer", "querymix": file})
	cfg := wl.Config()
	ctx := context.Background()
	sess := nullSession(t)
	names := opNames(docOps, false)
	reg := measure.NewRegistry(names, true)
	w := &worker{sess: sess, wl: wl, th: wl.NewThread(0), docOps: docOps, rec: reg.NewRecorder(), drng: document.NewRand(), mixOp: mixIndex(docOps, names)}
	w.qs, _ = sess.(db.Querier)
	w.prepare()
	r := w.th.Rand()
	for range 2000 {
		_ = w.step(ctx, cfg, r, time.Time{})
	}
	if a := testing.AllocsPerRun(5000, func() { _ = w.step(ctx, cfg, r, time.Time{}) }); a != 0 {
		t.Fatalf("the worker's step allocates %.3f times per operation; want 0", a)
	}
	reg.Tick(time.Now(), time.Now())
	tot := reg.Totals()
	for _, want := range []string{"QUERY-by-email", "QUERY-lives-in", "QUERY-by-device", "QUERY-recent", "QUERY-per-city", "QUERY-anywhere", "QUERY-email-only", "UPDATE-deactivate", "UPDATE-rescore"} {
		i := slices.Index(names, want)
		if i < 0 || tot.Service[i].TotalCount() == 0 {
			t.Errorf("%s: not recorded (names %v)", want, names)
		}
	}
}

// nullSession is a session of the null: backend, which does nothing: what
// is measured around it is docbench's own cost.
func nullSession(t *testing.T) db.Session {
	t.Helper()
	store, err := db.Open(context.Background(), db.OpenRequest{Target: "null:"})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := store.NewSession(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sess
}
