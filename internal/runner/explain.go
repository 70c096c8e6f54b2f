package runner

import (
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/workload"
)

// ExplainRequest returns the statements phase runs with o, one
// representative instance of each shape (for db.Explain), in the order
// their plans are reported: the reads (the first two distinct projections:
// others plan alike), the scan, the update of o's mode, the insert,
// the query. A read-modify-write runs a read and an update. All use a key
// the load phase stored; the load phase runs only the insert. It allocates
// freely: it runs outside the measured part.
func (o *DocOps) ExplainRequest(wl *workload.Workload, phase Phase) *db.ExplainRequest {
	cfg := wl.Config()
	start, _ := wl.LoadRange()
	key := wl.NewThread(0).AppendKey(nil, start)
	dr := document.NewRand()
	insert := db.Statement{Kind: db.StmtInsert, Key: key, Doc: o.Shape.AppendDoc(nil, key, start, dr)}
	r := &db.ExplainRequest{}
	if phase == Load {
		r.Statements = []db.Statement{insert}
		return r
	}
	reads := o.distinctReads()
	if cfg.ReadProportion > 0 || cfg.ReadModifyWriteProportion > 0 {
		for _, f := range reads[:min(len(reads), 2)] {
			r.Statements = append(r.Statements, db.Statement{Kind: db.StmtRead, Key: key, Fields: f})
		}
	}
	if cfg.ScanProportion > 0 {
		scan := db.Statement{Kind: db.StmtScan, Key: key, Count: max(cfg.MinScanLength, min(100, cfg.MaxScanLength))}
		if len(reads) > 0 {
			scan.Fields = reads[0]
		}
		r.Statements = append(r.Statements, scan)
	}
	if cfg.UpdateProportion > 0 || cfg.ReadModifyWriteProportion > 0 {
		r.Statements = append(r.Statements, db.Statement{Kind: db.StmtUpdate, Key: key, Update: o.sampleUpdate(key, dr)})
	}
	if cfg.InsertProportion > 0 {
		r.Statements = append(r.Statements, insert)
	}
	if cfg.Doc.QueryProp > 0 && len(o.queries) > 0 {
		r.Statements = append(r.Statements, db.Statement{Kind: db.StmtQuery, Query: &o.queries[0]})
	}
	for i := range o.mix { // a query mix: each entry's plan under its name
		m := &o.mix[i]
		if m.update != nil {
			u := &db.Update{Mode: db.Partial, Paths: m.update.paths, Values: [][]byte{m.value}}
			if m.value == nil {
				u.Values[0] = o.Shape.AppendValue(nil, m.update.paths[0], rand.New(rand.NewPCG(1, 2)))
			}
			r.Statements = append(r.Statements, db.Statement{Kind: db.StmtUpdate, Key: key, Update: u, Name: m.name})
			continue
		}
		r.Statements = append(r.Statements, db.Statement{Kind: db.StmtQuery, Query: &m.queries[0], Name: m.name})
	}
	return r
}

// distinctReads returns o's projections without repeats, in order.
func (o *DocOps) distinctReads() [][]string {
	var out [][]string
	for _, s := range o.readSets {
		if !slices.ContainsFunc(out, func(o []string) bool { return (o == nil) == (s == nil) && slices.Equal(o, s) }) {
			out = append(out, s)
		}
	}
	return out
}

// sampleUpdate returns one update of o's mode: a new document
// (replace), or new values for the first field set (merge, partial).
func (o *DocOps) sampleUpdate(key []byte, dr *document.Rand) *db.Update {
	u := &db.Update{Mode: o.updMode}
	if o.updMode == db.Replace {
		u.Doc = o.Shape.AppendDoc(nil, key, -1, dr)
		return u
	}
	rng := rand.New(rand.NewPCG(1, 2))
	u.Paths = o.updSets[0].paths
	d := []byte{'{'}
	for i, path := range u.Paths {
		v := o.Shape.AppendValue(nil, path, rng)
		u.Values = append(u.Values, v)
		if i > 0 {
			d = append(d, ',')
		}
		d = append(strconv.AppendQuote(d, path), ':')
		d = append(d, v...)
	}
	u.Doc = append(d, '}')
	return u
}
