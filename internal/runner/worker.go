package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/doc"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/workload"
)

// worker is one client thread. Everything it touches per operation is its
// own: session, generators, buffers, recorder.
type worker struct {
	id        int
	sess      db.Session
	wl        *workload.Workload
	th        *workload.Thread
	gen       *doc.Flat
	rec       *measure.Recorder
	ops       int64 // operations to measure (this thread's share)
	done      *atomic.Int64
	batch     int
	stop      <-chan struct{}
	measuring <-chan struct{}
	drng      *doc.Rand

	interval time.Duration // open loop: time between this worker's operations
	offset   time.Duration // open loop: this worker's phase within the schedule

	key, buf, doc []byte
	keys, docs    [][]byte
	fieldsOne     [][]string // one-field projections, by field index
	fieldsAll     []string   // readallfieldsbyname
	fieldIdx      []int      // fields of an update
	allIdx        []int
	timer         *time.Timer
	upd           db.Update
}

func stopped(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func (w *worker) loop(ctx context.Context, phase Phase, base time.Time) error {
	w.prepare()
	if phase == Load {
		if w.batch > 1 {
			return w.loadBatches(ctx)
		}
		return w.load(ctx)
	}
	return w.run(ctx, w.wl.Config(), base)
}

// prepare allocates the worker's reusable buffers and field lists.
func (w *worker) prepare() {
	names := w.gen.Names()
	w.fieldsOne = make([][]string, len(names))
	for i, n := range names {
		w.fieldsOne[i] = []string{n}
	}
	w.fieldsAll = names
	w.allIdx = make([]int, len(names))
	for i := range w.allIdx {
		w.allIdx[i] = i
	}
	w.fieldIdx = make([]int, 1)
	w.key = make([]byte, 0, 64)
	w.doc = make([]byte, 0, 4096)
	w.buf = make([]byte, 0, 4096)
}

func (w *worker) load(ctx context.Context) error {
	for !stopped(w.stop) {
		keynum, ok := w.th.NextLoadKeynum()
		if !ok {
			return nil
		}
		w.key = w.th.AppendKey(w.key[:0], keynum)
		w.doc = w.gen.AppendDoc(w.doc[:0], w.key, w.gen.ForKey(w.drng, keynum))
		t0 := time.Now()
		err := w.sess.Insert(ctx, w.key, w.doc)
		d := time.Since(t0)
		w.rec.Record(int(workload.OpInsert), d, d, err)
		w.done.Add(1)
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
			w.docs[n] = w.gen.AppendDoc(w.docs[n][:0], w.keys[n], w.gen.ForKey(w.drng, keynum))
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
		if n < w.batch {
			return nil
		}
	}
	return nil
}

func (w *worker) readFields(cfg *workload.Config) []string {
	if cfg.ReadAllFields {
		if cfg.ReadAllFieldsByName {
			return w.fieldsAll
		}
		return nil
	}
	return w.fieldsOne[w.th.ReadField()]
}

func (w *worker) updateFields(cfg *workload.Config) []int {
	if cfg.WriteAllFields {
		return w.allIdx
	}
	w.fieldIdx[0] = w.th.UpdateField()
	return w.fieldIdx
}

func (w *worker) run(ctx context.Context, cfg *workload.Config, base time.Time) error {
	var k int64 // operations issued (schedule index)
	var n int64 // operations measured
	r := w.th.Rand()
	if w.interval > 0 {
		w.timer = time.NewTimer(time.Hour)
		w.timer.Stop()
	}
	measuring := stopped(w.measuring)
	for n < w.ops || !measuring {
		if stopped(w.stop) {
			return nil
		}
		if !measuring && stopped(w.measuring) {
			measuring = true
			continue
		}
		var intended time.Time
		if w.interval > 0 {
			intended = base.Add(w.offset + time.Duration(k)*w.interval)
			if d := time.Until(intended); d > 0 {
				w.timer.Reset(d)
				select {
				case <-w.timer.C:
				case <-w.stop:
					return nil
				}
			}
		}
		k++
		w.step(ctx, cfg, r, intended)
		if measuring {
			n++
			w.done.Add(1)
		}
	}
	return nil
}

// step issues one operation chosen by the workload and records it. It is
// the per-operation path: it allocates nothing.
func (w *worker) step(ctx context.Context, cfg *workload.Config, r *rand.Rand, intended time.Time) {
	op := w.th.NextOp()
	t0 := time.Now()
	if intended.IsZero() {
		intended = t0
	}
	var err error
	switch op {
	case workload.OpRead:
		w.key = w.th.AppendKey(w.key[:0], w.th.NextKeynum())
		_ = w.read(ctx, cfg, intended, t0) // records itself
	case workload.OpUpdate:
		w.key = w.th.AppendKey(w.key[:0], w.th.NextKeynum())
		err = w.update(ctx, cfg, r)
	case workload.OpInsert:
		keynum := w.th.NextInsertKeynum()
		w.key = w.th.AppendKey(w.key[:0], keynum)
		w.doc = w.gen.AppendDoc(w.doc[:0], w.key, w.gen.ForKey(w.drng, keynum))
		err = w.sess.Insert(ctx, w.key, w.doc)
		w.wl.Acknowledge(keynum) // as YCSB: acknowledged whatever the outcome
	case workload.OpScan:
		w.key = w.th.AppendKey(w.key[:0], w.th.NextKeynum())
		_, err = w.sess.Scan(ctx, w.key, w.th.ScanLength(), w.readFields(cfg))
	case workload.OpReadModifyWrite:
		w.key = w.th.AppendKey(w.key[:0], w.th.NextKeynum())
		err = w.read(ctx, cfg, intended, t0)
		if err == nil {
			u0 := time.Now()
			err = w.update(ctx, cfg, r)
			du := time.Since(u0)
			w.rec.Record(int(workload.OpUpdate), du, du, err)
		}
	}
	if op != workload.OpRead {
		end := time.Now()
		w.rec.Record(int(op), end.Sub(t0), end.Sub(intended), err)
	}
}

// update writes new values to the current key (YCSB: the chosen fields
// merged into the document).
func (w *worker) update(ctx context.Context, cfg *workload.Config, r *rand.Rand) error {
	w.doc = w.gen.AppendFields(w.doc[:0], w.key, w.updateFields(cfg), r)
	w.upd.Mode = db.Merge
	w.upd.Doc = w.doc
	return w.sess.Update(ctx, w.key, &w.upd)
}

// read performs and records one READ (also the first half of a RMW).
func (w *worker) read(ctx context.Context, cfg *workload.Config, intended, t0 time.Time) error {
	fields := w.readFields(cfg)
	var err error
	w.buf, err = w.sess.Read(ctx, w.key, fields, w.buf[:0])
	if err == nil && cfg.DataIntegrity {
		err = w.verify(fields)
	}
	end := time.Now()
	w.rec.Record(int(workload.OpRead), end.Sub(t0), end.Sub(intended), err)
	return err
}

// verify checks a read document against YCSB's deterministic values.
func (w *worker) verify(fields []string) error {
	var got map[string]string
	if err := json.Unmarshal(w.buf, &got); err != nil {
		return fmt.Errorf("verify %s: %w", w.key, err)
	}
	if fields == nil {
		fields = w.fieldsAll
	}
	if len(got) != len(fields) {
		return fmt.Errorf("verify %s: read %d fields, want %d", w.key, len(got), len(fields))
	}
	size := int(w.wl.Config().FieldLength)
	for _, f := range fields {
		want := doc.AppendDeterministic(nil, w.key, f, size)
		if got[f] != string(want) {
			return fmt.Errorf("verify %s: field %s differs from the value written", w.key, f)
		}
	}
	return nil
}
