package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/workload"
)

// mixOp is one named entry of a query mix (querymix), prepared: its
// queries (one per predicate value, as querykind's), or the update of one
// path it makes.
type mixOp struct {
	name    string     // QUERY-NAME or UPDATE-NAME
	source  string     // FILE:LINE of its entry
	cum     float64    // the proportions up to and including this one
	queries []db.Query // a query
	update  *fieldSet  // an update: the one path it sets
	value   []byte     // an update's fixed value (nil: a fresh one of the path's type)
}

// prepareMix prepares every entry of m; an error names the entry's
// file:line.
func (o *DocOps) prepareMix(wl *workload.Workload, seed uint64, m *workload.Mix) error {
	for _, e := range m.Queries {
		op := mixOp{name: "QUERY-" + e.Name, source: e.Source}
		o.mixTotal += e.Proportion
		op.cum = o.mixTotal
		if e.Kind == "update" {
			op.name = "UPDATE-" + e.Name
			if err := o.checkPath("path", e.Path); err != nil {
				return fmt.Errorf("%s: %s: %w", e.Source, e.Name, err)
			}
			if pi := o.paths[e.Path]; pi.InArray {
				return fmt.Errorf("%s: %s: path %s runs inside array elements; update the array (%s) or a path outside arrays", e.Source, e.Name, e.Path, arrayRoot(o.paths, e.Path))
			}
			op.update = &fieldSet{paths: []string{e.Path}}
			if e.Value != "" {
				op.value = jsonValue(e.Value)
			}
			o.writes = true
			o.mix = append(o.mix, op)
			continue
		}
		spec := querySpec{name: op.name, kind: e.Kind, path: e.Path, form: e.Form, value: e.Value,
			limit: e.Limit, offset: e.Offset, aggPath: e.AggPath, fn: e.Func, fields: e.Fields}
		qs, err := o.prepareQueries(wl, seed, spec)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", e.Source, e.Name, err)
		}
		op.queries = qs
		o.mix = append(o.mix, op)
	}
	return nil
}

// mixNames are the report names of the mix's entries, in order.
func (o *DocOps) mixNames() []string {
	names := make([]string, len(o.mix))
	for i, m := range o.mix {
		names[i] = m.name
	}
	return names
}

// pickMix chooses an entry by its proportion.
func (o *DocOps) pickMix(u float64) int {
	x := u * o.mixTotal
	for i := range o.mix {
		if x < o.mix[i].cum {
			return i
		}
	}
	return len(o.mix) - 1
}

// mixQueries reports whether the mix has a query (not only updates).
func (o *DocOps) mixQueries() bool {
	for _, m := range o.mix {
		if m.update == nil {
			return true
		}
	}
	return false
}

// mixStep issues one entry of the query mix, chosen by proportion, and
// records it as its own operation.
func (w *worker) mixStep(ctx context.Context, r *rand.Rand, intended, t0 time.Time) error {
	o := w.docOps
	i := o.pickMix(r.Float64())
	m := &o.mix[i]
	var err error
	rows := 0
	if m.update != nil {
		w.key = w.th.AppendKey(w.key[:0], w.th.NextKeynum())
		w.upd.Mode = db.Partial
		w.vals = w.vals[:0]
		if m.value != nil {
			w.vals = append(w.vals, m.value...)
		} else {
			w.vals = w.appendValue(w.vals, m.update.paths[0], r)
		}
		w.upd.Values = append(w.upd.Values[:0], w.vals)
		w.upd.Paths = m.update.paths
		err = w.sess.Update(ctx, w.key, &w.upd)
	} else {
		rows, err = w.qs.Query(ctx, &m.queries[r.IntN(len(m.queries))])
	}
	end := time.Now()
	w.rec.RecordRows(w.mixOp+i, end.Sub(t0), end.Sub(intended), err, rows)
	return err
}

// tryMix runs each query of the mix once on s, before the phase: a kind the
// backend cannot do stops the phase before any work, as a
// *db.ErrNotSupported naming the entry.
func (o *DocOps) tryMix(ctx context.Context, s db.Session) error {
	q, ok := s.(db.Querier)
	if !ok {
		return nil // missingCapability says so
	}
	for _, m := range o.mix {
		if m.update != nil {
			continue
		}
		if _, err := q.Query(ctx, &m.queries[0]); err != nil {
			return fmt.Errorf("%s: %s: %w", m.source, m.name, err)
		}
	}
	return nil
}

// QueryPage is what a query operation asks for: its kind and the page of
// documents a call returns (Limit 0: every match; an aggregate: every
// group).
type QueryPage struct {
	Kind          string
	Limit, Offset int
}

// queryPages are the query operations' pages, by report name.
func (o *DocOps) queryPages() map[string]QueryPage {
	pages := map[string]QueryPage{}
	page := func(q *db.Query) QueryPage { return QueryPage{Kind: q.Kind.String(), Limit: q.Limit, Offset: q.Offset} }
	if o.queryName != "" && len(o.queries) > 0 {
		pages[o.queryName] = page(&o.queries[0])
	}
	for _, m := range o.mix {
		if m.update == nil {
			pages[m.name] = page(&m.queries[0])
		}
	}
	return pages
}
