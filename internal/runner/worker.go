package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/workload"
)

// worker is one client thread. Everything it touches per operation is its
// own: session, generators, buffers, recorder.
type worker struct {
	sess     db.Session
	qs       db.Querier     // sess as a Querier, when it is one
	stmts    db.Statementer // sess as a Statementer, when it is one
	scripts  db.Scripter    // sess as a Scripter, when it is one
	wl       *workload.Workload
	th       *workload.Thread
	docOps   *DocOps
	rec      *measure.Recorder
	ops      int64 // operations to measure (this thread's share)
	verifyOp int   // the index of VERIFY (dataintegrity)
	mixOp    int   // the index of the query mix's first entry (querymix)
	scriptOp int   // the index of the first script (statement.file)
	batch    int
	stop     <-chan struct{}
	drng     *document.Rand

	// done counts the worker's operations (records on load) and failed,
	// of them, the failed ones: the worker's own, summed by the sampler
	// (execution.counts), so that workers share no counter.
	done, failed atomic.Int64
	// loaded is the JSON bytes of the documents the worker's load stored
	// (its successful inserts), read when the phase is over.
	loaded int64

	interval time.Duration        // open loop: time between this worker's operations
	offset   time.Duration        // open loop: this worker's phase within the schedule
	pacer    Pacer                // open loop: waits for each intended start
	lag      *hdr.PackedHistogram // open loop: schedule lag of each operation
	from     time.Time            // open loop: when the current operation could start
	behind   int64                // open loop: operations whose start found the worker busy
	limit    time.Duration        // open loop: skip an operation later than this when due (0: none)
	skipped  int64                // open loop: operations skipped as later than limit

	key, buf, doc []byte
	vals          []byte // partial update values, back to back
	keys, docs    [][]byte
	upd           db.Update
	args          []any // statement parameters
}

func stopped(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// counts sums the workers' operations (records on load) and failures.
func (p *execution) counts() (done, failed int64) {
	for _, w := range p.workers {
		done += w.done.Load()
		failed += w.failed.Load()
	}
	return done, failed
}

func (w *worker) loop(ctx context.Context, phase Phase, base time.Time) error {
	if phase == Load {
		if w.batch > 1 {
			return w.loadBatches(ctx)
		}
		return w.load(ctx)
	}
	return w.run(ctx, w.wl.Config(), base)
}

// prepare allocates the worker's reusable buffers.
func (w *worker) prepare() {
	w.key = make([]byte, 0, 64)
	w.doc = make([]byte, 0, 4096)
	w.buf = make([]byte, 0, 4096)
	w.vals = make([]byte, 0, 1024)
	w.upd.Values = make([][]byte, 0, 16)
}

func (w *worker) load(ctx context.Context) error {
	for !stopped(w.stop) {
		keynum, ok := w.th.NextLoadKeynum()
		if !ok {
			return nil
		}
		w.key = w.th.AppendKey(w.key[:0], keynum)
		w.doc = w.docOps.Shape.AppendDoc(w.doc[:0], w.key, keynum, w.drng)
		t0 := time.Now()
		err := w.sess.Insert(ctx, w.key, w.doc)
		d := time.Since(t0)
		w.rec.Record(int(workload.OpInsert), d, d, err)
		w.done.Add(1)
		if err != nil {
			w.failed.Add(1)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		w.loaded += int64(len(w.doc))
	}
	return nil
}

func (w *worker) loadBatches(ctx context.Context) error {
	bi, _ := w.sess.(db.BatchInserter)
	w.keys = make([][]byte, w.batch)
	w.docs = make([][]byte, w.batch)
	for i := range w.keys {
		w.keys[i] = make([]byte, 0, 64)
		w.docs[i] = make([]byte, 0, 2048)
	}
	batchOp := int(workload.NumOps) // INSERT-BATCH
	for !stopped(w.stop) {
		n := 0
		for n < w.batch {
			keynum, ok := w.th.NextLoadKeynum()
			if !ok {
				break
			}
			w.keys[n] = w.th.AppendKey(w.keys[n][:0], keynum)
			w.docs[n] = w.docOps.Shape.AppendDoc(w.docs[n][:0], w.keys[n], keynum, w.drng)
			n++
		}
		if n == 0 {
			return nil
		}
		t0 := time.Now()
		var err error
		if bi != nil {
			err = bi.InsertBatch(ctx, w.keys[:n], w.docs[:n])
		} else {
			for i := 0; i < n && err == nil; i++ {
				err = w.sess.Insert(ctx, w.keys[i], w.docs[i])
			}
		}
		d := time.Since(t0)
		w.rec.Record(batchOp, d, d, err)
		w.done.Add(int64(n))
		if err != nil {
			w.failed.Add(int64(n))
			if ctx.Err() != nil {
				return ctx.Err()
			}
		} else {
			for _, doc := range w.docs[:n] {
				w.loaded += int64(len(doc))
			}
		}
		if n < w.batch {
			return nil
		}
	}
	return nil
}

// readFields picks the projection of a read or scan (nil: whole document).
func (w *worker) readFields(r *rand.Rand) []string {
	sets := w.docOps.readSets
	if len(sets) == 1 {
		return sets[0]
	}
	return sets[r.IntN(len(sets))]
}

func (w *worker) run(ctx context.Context, cfg *workload.Config, base time.Time) error {
	var k int64 // operations issued (schedule index)
	var n int64 // operations measured
	r := w.th.Rand()
	if w.interval > 0 && w.pacer == nil {
		w.pacer = NewPacer(DefaultPacer, false)
	}
	for n < w.ops {
		if stopped(w.stop) {
			return nil
		}
		var intended time.Time
		if w.interval > 0 {
			intended = base.Add(w.offset + time.Duration(k)*w.interval)
			// The schedule lag counts from the intended start, or from now
			// when the worker is already late: a backlog is the target's
			// doing, not the instrument's.
			w.from = intended
			if now := time.Now(); now.After(intended) {
				if w.limit > 0 && now.Sub(intended) > w.limit {
					k++ // already late: skipped, as pgbench --latency-limit does
					n++
					w.skipped++
					continue
				}
				w.from = now
				if k > 0 {
					w.behind++
				}
			} else if !w.pacer.Wait(intended, w.stop) {
				return nil
			}
		}
		k++
		err := w.step(ctx, cfg, r, intended)
		n++
		w.done.Add(1)
		if err != nil {
			w.failed.Add(1)
			if ctx.Err() != nil { // stopped and not drained in time
				return ctx.Err()
			}
		}
	}
	return nil
}

// step issues one operation chosen by the workload, records it and returns
// its error. It is the per-operation path: it allocates nothing.
func (w *worker) step(ctx context.Context, cfg *workload.Config, r *rand.Rand, intended time.Time) error {
	op := w.th.NextOp()
	t0 := time.Now()
	if intended.IsZero() {
		intended = t0
	} else if w.lag != nil {
		recordLag(w.lag, t0.Sub(w.from))
	}
	var err error
	rows := 0 // a query's rows (RecordRows)
	switch op {
	case workload.OpRead:
		keynum := w.th.NextKeynum()
		w.key = w.th.AppendKey(w.key[:0], keynum)
		fields := w.readFields(r)
		if err := w.read(ctx, fields, intended, t0); err != nil || !cfg.DataIntegrity { // records itself
			return err
		}
		return w.verifyRead(fields, keynum)
	case workload.OpUpdate:
		w.key = w.th.AppendKey(w.key[:0], w.th.NextKeynum())
		err = w.update(ctx, r)
	case workload.OpInsert:
		keynum := w.th.NextInsertKeynum()
		w.key = w.th.AppendKey(w.key[:0], keynum)
		w.doc = w.docOps.Shape.AppendDoc(w.doc[:0], w.key, keynum, w.drng)
		err = w.sess.Insert(ctx, w.key, w.doc)
		w.wl.Acknowledge(keynum) // as YCSB: acknowledged whatever the outcome
	case workload.OpScan:
		w.key = w.th.AppendKey(w.key[:0], w.th.NextKeynum())
		_, err = w.sess.Scan(ctx, w.key, w.th.ScanLength(), w.readFields(r))
	case workload.OpQuery:
		if len(w.docOps.mix) > 0 {
			return w.mixStep(ctx, r, intended, t0) // records itself
		}
		qs := w.docOps.queries
		rows, err = w.qs.Query(ctx, &qs[r.IntN(len(qs))])
	case workload.OpStatement:
		if len(w.docOps.scripts) > 0 {
			return w.scriptStep(ctx, r, intended, t0) // records itself
		}
		_, err = w.stmts.Statement(ctx, w.docOps.stmtSQL, w.statementArgs(r))
	case workload.OpReadModifyWrite:
		return w.readModifyWrite(ctx, cfg, r, intended, t0) // records itself
	}
	end := time.Now()
	w.rec.RecordRows(int(op), end.Sub(t0), end.Sub(intended), err, rows)
	return err
}

// update writes new values to the current key as docOps says: merge the
// chosen fields, set the chosen paths in place, or replace the document.
func (w *worker) update(ctx context.Context, r *rand.Rand) error {
	o := w.docOps
	w.upd.Mode = o.updMode
	switch o.updMode {
	case db.Replace:
		// Another document of the same shape (a key number no record has),
		// so that the write changes the stored value.
		w.doc = o.Shape.AppendDoc(w.doc[:0], w.key, -1-r.Int64N(1<<40), w.drng)
		w.upd.Doc = w.doc
	case db.Partial:
		set := &o.updSets[r.IntN(len(o.updSets))]
		w.vals = w.vals[:0]
		w.upd.Values = w.upd.Values[:0]
		for _, path := range set.paths {
			start := len(w.vals)
			w.vals = w.appendValue(w.vals, path, r)
			w.upd.Values = append(w.upd.Values, w.vals[start:len(w.vals):len(w.vals)])
		}
		// w.vals may have moved while growing: re-slice from its final array.
		off := 0
		for i, v := range w.upd.Values {
			w.upd.Values[i] = w.vals[off : off+len(v)]
			off += len(v)
		}
		w.upd.Paths = set.paths
	default:
		set := &o.updSets[r.IntN(len(o.updSets))]
		w.doc = append(w.doc[:0], '{')
		w.upd.Values = w.upd.Values[:0]
		for i, path := range set.paths {
			if i > 0 {
				w.doc = append(w.doc, ',')
			}
			w.doc = append(w.doc, set.quoted[i]...)
			start := len(w.doc)
			w.doc = w.appendValue(w.doc, path, r)
			w.upd.Values = append(w.upd.Values, w.doc[start:len(w.doc):len(w.doc)])
		}
		w.doc = append(w.doc, '}')
		// The values point into w.doc, which may have moved while growing.
		end := len(w.doc) - 1
		for i := len(w.upd.Values) - 1; i >= 0; i-- {
			n := len(w.upd.Values[i])
			w.upd.Values[i] = w.doc[end-n : end : end]
			end -= n + len(set.quoted[i])
			if i > 0 {
				end-- // the comma
			}
		}
		w.upd.Doc = w.doc
		w.upd.Paths = set.paths
	}
	return w.sess.Update(ctx, w.key, &w.upd)
}

// appendValue appends a new JSON value for path: YCSB's deterministic value
// under dataintegrity, a fresh one of the path's type otherwise.
func (w *worker) appendValue(dst []byte, path string, r *rand.Rand) []byte {
	if w.docOps.flat != nil && w.docOps.cfg.DataIntegrity {
		dst = append(dst, '"')
		dst = document.AppendDeterministic(dst, w.key, path, w.docOps.cfg.FieldLength)
		return append(dst, '"')
	}
	return w.docOps.Shape.AppendValue(dst, path, r)
}

// read performs and records one READ (also the first part of a
// read-modify-write), timed from t0 and, as response time, from intended;
// the document read stays in w.buf.
func (w *worker) read(ctx context.Context, fields []string, intended, t0 time.Time) error {
	var err error
	w.buf, err = w.sess.Read(ctx, w.key, fields, w.buf[:0])
	end := time.Now()
	w.rec.Record(int(workload.OpRead), end.Sub(t0), end.Sub(intended), err)
	return err
}

// readModifyWrite reads the current key, updates it and records the READ,
// the UPDATE and the READ-MODIFY-WRITE. As YCSB's DB wrapper does, the
// UPDATE's response time counts from the operation's intended start (its
// service time from its own); verification (dataintegrity) follows,
// timed apart, as YCSB's CoreWorkload verifies after the write.
func (w *worker) readModifyWrite(ctx context.Context, cfg *workload.Config, r *rand.Rand, intended, t0 time.Time) error {
	keynum := w.th.NextKeynum()
	w.key = w.th.AppendKey(w.key[:0], keynum)
	fields := w.readFields(r)
	err := w.read(ctx, fields, intended, t0)
	end := time.Now()
	if err == nil {
		u0 := end
		err = w.update(ctx, r)
		end = time.Now()
		w.rec.Record(int(workload.OpUpdate), end.Sub(u0), end.Sub(intended), err)
	}
	w.rec.Record(int(workload.OpReadModifyWrite), end.Sub(t0), end.Sub(intended), err)
	if err != nil || !cfg.DataIntegrity {
		return err
	}
	return w.verifyRead(fields, keynum)
}

// verifyRead checks the document in w.buf (dataintegrity) and records the
// check as VERIFY, timed apart from the read as YCSB times it. A document
// that differs fails VERIFY, not the READ, and counts as a failed
// operation.
func (w *worker) verifyRead(fields []string, keynum int64) error {
	v0 := time.Now()
	var err error
	if w.docOps.flat != nil {
		err = w.verify(fields)
	} else {
		err = w.verifyShape(fields, keynum)
	}
	d := time.Since(v0)
	w.rec.Record(w.verifyOp, d, d, err)
	return err
}

// verifyShape checks a read document (or projection) against the document
// regenerated for its key: values must be equal while the run rewrites no
// documents, and of the same JSON type once it does.
func (w *worker) verifyShape(fields []string, keynum int64) error {
	var got, want map[string]any
	if err := json.Unmarshal(w.buf, &got); err != nil {
		return fmt.Errorf("verify %s: %w", w.key, err)
	}
	regenerated := w.docOps.Shape.AppendDoc(nil, w.key, keynum, document.NewRand())
	if err := json.Unmarshal(regenerated, &want); err != nil {
		return fmt.Errorf("verify %s: regenerated document: %w", w.key, err)
	}
	if fields == nil {
		fields = w.docOps.Shape.TopLevel()
	}
	// A projection maps each path as given to its value; a whole document
	// has its top-level fields.
	for _, f := range fields {
		g, gok := got[f]
		x, xok := pathValue(want, f)
		if gok != xok && x != nil {
			return fmt.Errorf("verify %s: %s is missing", w.key, f)
		}
		if w.docOps.writes {
			if fmt.Sprintf("%T", g) != fmt.Sprintf("%T", x) && g != nil && x != nil {
				return fmt.Errorf("verify %s: %s holds a %T, the document has a %T", w.key, f, g, x)
			}
		} else if !reflect.DeepEqual(g, x) {
			return fmt.Errorf("verify %s: %s differs from the document written", w.key, f)
		}
	}
	return nil
}

// pathValue finds a dotted path in a decoded document.
func pathValue(m map[string]any, path string) (any, bool) {
	var v any = m
	for _, seg := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[seg]; !ok {
			return nil, false
		}
	}
	return v, true
}

// verify checks a read document against YCSB's deterministic values.
func (w *worker) verify(fields []string) error {
	var got map[string]string
	if err := json.Unmarshal(w.buf, &got); err != nil {
		return fmt.Errorf("verify %s: %w", w.key, err)
	}
	if fields == nil {
		fields = w.docOps.Shape.TopLevel()
	}
	if len(got) != len(fields) {
		return fmt.Errorf("verify %s: read %d fields, want %d", w.key, len(got), len(fields))
	}
	size := int(w.wl.Config().FieldLength)
	for _, f := range fields {
		want := document.AppendDeterministic(nil, w.key, f, size)
		if got[f] != string(want) {
			return fmt.Errorf("verify %s: field %s differs from the value written", w.key, f)
		}
	}
	return nil
}
