package cli

import (
	"context"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/doc"
	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
	"github.com/docbench/docbench/internal/workload"
)

// serverSide attaches the server's own view of a phase to its result: the
// difference between the snapshot before and one taken now, per-operation
// figures from docbench's counts, the plans of the phase's statements and
// the audit classification.
func serverSide(ctx context.Context, store db.Store, res *report.Result, before *probe.Point,
	wl *workload.Workload, plan *runner.Plan, phase runner.Phase) {
	// An interrupted phase still gets its figures.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	after := probe.TakeAfter(ctx, store, before)
	srv := probe.Build(before, after, countsOf(res), rawDocSize(wl, plan))
	if ex, ok := store.(db.Explainer); ok && srv.Absent == "" {
		plans, err := ex.Explain(ctx, plan.ExplainRequest(wl, phase))
		srv.Plans = plans
		if err != nil {
			srv.Notes = append(srv.Notes, "plans: "+err.Error())
		}
	}
	res.Server = srv
	a := probe.Classify(res.Target.Backend, res.Target.Settings, res.Target.Layout, res.Options.Threads)
	res.Audit = &a
}

// countsOf reads docbench's own counts of successful operations (the
// snapshots bracket exactly the measured part, warm-up excluded).
func countsOf(res *report.Result) probe.Counts {
	c := probe.Counts{Ops: res.Operations, Exact: true}
	for _, op := range res.Ops {
		ok := op.Count - op.Errors
		switch op.Name {
		case "INSERT":
			c.Inserts = ok
		case "UPDATE":
			c.Updates = ok
		case "READ":
			c.Reads = ok
		case "INSERT-BATCH":
			c.Inserts = res.Operations
			c.Exact = op.Errors == 0
		}
	}
	return c
}

// rawDocSize is the average size of the plan's documents as raw JSON,
// measured on a sample spread over the loaded keys.
func rawDocSize(wl *workload.Workload, plan *runner.Plan) float64 {
	start, n := wl.LoadRange()
	if n <= 0 {
		n = max(wl.Config().RecordCount, 1)
	}
	const sample = 256
	th := wl.NewThread(0)
	dr := doc.NewRand()
	var key, buf []byte
	total := 0
	for i := range int64(sample) {
		k := start + i*n/sample
		key = th.AppendKey(key[:0], k)
		buf = plan.Shape.AppendDoc(buf[:0], key, k, dr)
		total += len(buf)
	}
	return float64(total) / sample
}
