package runner

import (
	"math/rand/v2"
	"strconv"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/doc"
	"github.com/docbench/docbench/internal/workload"
)

// ExplainRequest returns one representative instance of each statement
// shape the plan's phase uses (for db.Explainer): a stored key, a document,
// the distinct projections, an update of the plan's mode, one query per
// shape. It allocates freely: it runs outside the measured part.
func (p *Plan) ExplainRequest(wl *workload.Workload, phase Phase) *db.ExplainRequest {
	cfg := wl.Config()
	start, _ := wl.LoadRange()
	th := wl.NewThread(0)
	key := th.AppendKey(nil, start)
	dr := doc.NewRand()
	r := &db.ExplainRequest{Key: key, Doc: p.Shape.AppendDoc(nil, key, start, dr), ScanCount: max(cfg.MinScanLength, min(100, cfg.MaxScanLength))}
	if phase == Load {
		r.Ops = []string{"INSERT"}
		return r
	}
	for _, x := range []struct {
		op   string
		prop float64
	}{{"READ", cfg.ReadProportion}, {"UPDATE", cfg.UpdateProportion}, {"INSERT", cfg.InsertProportion},
		{"SCAN", cfg.ScanProportion}, {"READ-MODIFY-WRITE", cfg.ReadModifyWriteProportion}, {p.opName(workload.OpQuery), cfg.Doc.QueryProp}} {
		if x.prop > 0 {
			r.Ops = append(r.Ops, x.op)
		}
	}
	seen := map[string]bool{}
	for _, s := range p.readSets {
		k := "\x01"
		if s != nil {
			k = ""
			for _, f := range s {
				k += f + "\x00"
			}
		}
		if !seen[k] {
			seen[k] = true
			r.Reads = append(r.Reads, s)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	u := &db.Update{Mode: p.updMode}
	switch p.updMode {
	case db.Replace:
		u.Doc = p.Shape.AppendDoc(nil, key, -1, dr)
	default:
		set := p.updSets[0]
		u.Paths = set.paths
		d := []byte{'{'}
		for i, path := range set.paths {
			v := p.Shape.AppendValue(nil, path, rng)
			u.Values = append(u.Values, v)
			if i > 0 {
				d = append(d, ',')
			}
			d = append(strconv.AppendQuote(d, path), ':')
			d = append(d, v...)
		}
		u.Doc = append(d, '}')
	}
	r.Update = u
	if len(p.queries) > 0 {
		r.Queries = []db.Query{p.queries[0]}
	}
	return r
}
