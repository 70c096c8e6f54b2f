package runner

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/workload"
)

// ServerSide returns the server's own view of a measured phase: the
// difference between before (taken when the measured part began) and a
// point taken now, per-operation figures from the outcome's counts, and the
// plans of the phase's statements (when store's sessions explain). It is
// taken even when ctx is done: an interrupted phase still gets its figures,
// if the server gives them within interruptedProbe (a table locked by
// another session holds them as it held the phase).
func ServerSide(ctx context.Context, store db.Store, before *probe.Reading, out *Outcome,
	wl *workload.Workload, docOps *DocOps) *probe.Server {
	bound := time.Minute
	if ctx.Err() != nil {
		bound = interruptedProbe
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bound)
	defer cancel()
	after := probe.TakeAfter(ctx, store, before)
	raw, note := out.rawDocSize(wl, docOps, bound == interruptedProbe)
	srv := probe.Build(before, after, out.counts(), raw)
	if note != "" && srv.Absent == "" {
		srv.Notes = append(srv.Notes, note)
	}
	phase := out.Phase
	if srv.Absent == "" {
		plans, err := db.Explain(ctx, store, docOps.ExplainRequest(wl, phase))
		srv.Plans = plans
		if err != nil {
			srv.Notes = append(srv.Notes, "plans: "+err.Error())
		}
	}
	return srv
}

// interruptedProbe bounds the server-side figures of an interrupted phase:
// with the drain bound before it, the run ends within a second of that
// bound, as the user who interrupted it expects.
const interruptedProbe = 500 * time.Millisecond

// counts are the outcome's counts of successful operations (the snapshots
// bracket exactly the measured part, warm-up excluded).
func (o *Outcome) counts() probe.Counts {
	c := probe.Counts{Ops: o.Ops, Exact: true}
	for i, name := range o.Names {
		ok, failed := o.Totals.Service[i].TotalCount(), o.Totals.Errors[i]
		if ok+failed == 0 {
			continue // an operation the phase never ran
		}
		switch name {
		case "INSERT":
			c.Inserts = ok
		case "UPDATE":
			c.Updates = ok
		case "READ":
			c.Reads = ok
		case "INSERT-BATCH":
			c.Inserts = o.Ops
			c.Exact = failed == 0
		default:
			if strings.HasPrefix(name, "UPDATE-") { // a query mix's update
				c.Updates += ok
			}
		}
	}
	return c
}

// rawDocSize is the mean size, as raw JSON, of the documents the phase's
// table holds: a load's, of those it stored; another phase's, of the
// documents of the load range (RawDocSize: all of them up to rawDocLimit,
// fewer when the phase was interrupted), with a note when not all.
func (o *Outcome) rawDocSize(wl *workload.Workload, docOps *DocOps, interrupted bool) (float64, string) {
	if n := o.Ops - o.Failed; o.Phase == Load && n > 0 && o.LoadedBytes > 0 {
		return float64(o.LoadedBytes) / float64(n), ""
	}
	limit := int64(rawDocLimit)
	if interrupted {
		limit = rawDocLimit / 100
	}
	mean, of, n := docOps.RawDocSize(wl, limit)
	if of == n {
		return mean, ""
	}
	return mean, fmt.Sprintf("raw_json_bytes_per_document is the mean of %d of the %d documents, spread over the keys", of, n)
}

// rawDocLimit bounds the documents a run generates again for their mean
// size: about a second's work.
const rawDocLimit = 1_000_000

// RawDocSize is the mean size, as raw JSON, of the documents of the load
// range: of all of them (n) when there are at most limit, else of limit
// spread over the range (of).
func (o *DocOps) RawDocSize(wl *workload.Workload, limit int64) (mean float64, of, n int64) {
	start, n := wl.LoadRange()
	if n <= 0 {
		n = max(wl.Config().RecordCount, 1)
	}
	of = min(n, max(limit, 1))
	o.raw.mu.Lock()
	defer o.raw.mu.Unlock()
	at := [3]int64{start, n, of}
	if o.raw.at == at {
		return o.raw.mean, of, n
	}
	th := wl.NewThread(0)
	dr := document.NewRand()
	var key, buf []byte
	total := 0
	for i := range of {
		k := start + i*n/of
		key = th.AppendKey(key[:0], k)
		buf = o.Shape.AppendDoc(buf[:0], key, k, dr)
		total += len(buf)
	}
	o.raw.at, o.raw.mean = at, float64(total)/float64(of)
	return o.raw.mean, of, n
}

// rawMean is RawDocSize's last answer: of the documents at names (start,
// count, generated).
type rawMean struct {
	mu   sync.Mutex
	at   [3]int64
	mean float64
}
