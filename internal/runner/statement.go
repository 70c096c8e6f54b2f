package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/workload"
)

// param draws one parameter of a statement of the user's.
type param struct {
	kind   string // key, keynum, value, text, int, const
	pool   []any  // value, text: values found in the documents, boxed once
	lo, hi int64  // int
	fixed  any    // const
}

// prepareStatement prepares statement.sql: its name, setup statements and
// parameter generators (value pools drawn from the generated documents).
func (o *DocOps) prepareStatement(wl *workload.Workload, seed uint64) error {
	d := o.cfg.Doc
	o.stmtSQL, o.stmtSetup = d.StatementSQL, d.StatementSetup
	o.stmtName = "STATEMENT"
	if d.StatementName != "" {
		o.stmtName += "-" + strings.ToUpper(d.StatementName)
	}
	for _, sc := range d.Scripts {
		o.scriptTotal += sc.Weight
		o.scripts = append(o.scripts, script{file: sc.File, name: sc.Name, stmts: sc.Statements, cum: o.scriptTotal})
	}
	for _, spec := range d.StatementParams {
		kind, arg, _ := strings.Cut(spec, ":")
		g := param{kind: kind}
		switch kind {
		case "value", "text":
			if err := o.checkPath("statement.params", arg); err != nil {
				return err
			}
			values, err := o.sampleValues(wl, seed, arg, false, "")
			if err != nil {
				return err
			}
			for _, v := range values {
				if kind == "value" {
					g.pool = append(g.pool, v) // JSON, for a json/jsonb parameter
					continue
				}
				s := string(v)
				if u, err := strconv.Unquote(s); err == nil {
					s = u
				}
				g.pool = append(g.pool, s)
			}
		case "int":
			lo, hi, _ := strings.Cut(arg, ":")
			var err1, err2 error
			g.lo, err1 = strconv.ParseInt(lo, 10, 64)
			g.hi, err2 = strconv.ParseInt(hi, 10, 64)
			if err1 != nil || err2 != nil || g.hi < g.lo {
				return fmt.Errorf("statement.params=%s: want int:MIN:MAX", spec)
			}
		case "const":
			g.fixed = arg
		}
		o.stmtParams = append(o.stmtParams, g)
	}
	return nil
}

// script is one file of statement.file, prepared: its statements and its
// weight added to those before it.
type script struct {
	file  string
	name  string // STATEMENT-FILE
	stmts []string
	cum   int
}

// scriptNames are the report names of the scripts, in order.
func (o *DocOps) scriptNames() []string {
	names := make([]string, len(o.scripts))
	for i, sc := range o.scripts {
		names[i] = sc.name
	}
	return names
}

// pickScript chooses a script by its weight.
func (o *DocOps) pickScript(r *rand.Rand) int {
	x := r.IntN(o.scriptTotal)
	for i := range o.scripts {
		if x < o.scripts[i].cum {
			return i
		}
	}
	return len(o.scripts) - 1
}

// scriptStep runs one script, chosen by weight, as one transaction with
// the statement parameters drawn once, and records it as its own
// operation, timed over the whole script.
func (w *worker) scriptStep(ctx context.Context, r *rand.Rand, intended, t0 time.Time) error {
	i := w.docOps.pickScript(r)
	err := w.scripts.Script(ctx, w.docOps.scripts[i].stmts, w.statementArgs(r))
	end := time.Now()
	w.rec.Record(w.scriptOp+i, end.Sub(t0), end.Sub(intended), err)
	return err
}

// tryScripts prepares every script's statements on s, before the phase:
// a statement the server refuses stops the phase before any work, named
// with its file.
func (o *DocOps) tryScripts(ctx context.Context, s db.Session) error {
	sc, ok := s.(db.Scripter)
	if !ok {
		return nil // missingCapability says so
	}
	for _, x := range o.scripts {
		if err := sc.PrepareScript(ctx, x.stmts, len(o.stmtParams)); err != nil {
			return fmt.Errorf("statement.file=%s: %w", x.file, err)
		}
	}
	return nil
}

// statementArgs draws the parameters of one statement.
func (w *worker) statementArgs(r *rand.Rand) []any {
	w.args = w.args[:0]
	for i := range w.docOps.stmtParams {
		g := &w.docOps.stmtParams[i]
		switch g.kind {
		case "key":
			w.key = w.th.AppendKey(w.key[:0], w.th.NextKeynum())
			w.args = append(w.args, string(w.key))
		case "keynum":
			w.args = append(w.args, w.th.NextKeynum())
		case "value", "text":
			w.args = append(w.args, g.pool[r.IntN(len(g.pool))])
		case "int":
			w.args = append(w.args, g.lo+r.Int64N(g.hi-g.lo+1))
		case "const":
			w.args = append(w.args, g.fixed)
		}
	}
	return w.args
}

// setupStatements runs statement.setup once before a run phase.
func setupStatements(ctx context.Context, store db.Store, p *DocOps) error {
	if len(p.stmtSetup) == 0 {
		return nil
	}
	sr, ok := store.(db.SetupRunner)
	if !ok {
		return &db.ErrNotSupported{Backend: backendName(store), What: "statement.setup"}
	}
	for _, q := range p.stmtSetup {
		if err := sr.ExecSetup(ctx, q); err != nil {
			return fmt.Errorf("statement.setup %q: %w", q, err)
		}
	}
	return nil
}
