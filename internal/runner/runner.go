// Package runner executes the load and run phases: it spreads operations
// over workers, paces them (closed loop, or open loop at a target rate with
// latency from each operation's intended start), runs and discards the
// warm-up, prints status, and stops on count, duration or cancellation.
// It knows nothing about SQL: it calls db.Session methods only.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/doc"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/workload"
)

// Phase is "load" or "run".
type Phase string

// The two phases of a YCSB benchmark.
const (
	Load Phase = "load"
	Run  Phase = "run"
)

// Options controls a phase.
type Options struct {
	Phase    Phase
	Threads  int
	Rate     float64       // total target ops/s; 0 = closed loop
	Duration time.Duration // 0 = until the operation count
	Warmup   time.Duration // run phase only; excluded from the result
	Status   time.Duration // status line interval; 0 = none
	Seed     uint64
	Stderr   io.Writer // status lines and progress; nil = silent
	Progress bool      // draw a progress bar (a terminal) instead of plain lines
	// Drain bounds how long in-flight operations may finish after a stop.
	Drain time.Duration
	// StartAt, when set, is the wall-clock instant at which the phase begins
	// (warm-up included), after its sessions are open: shards started on
	// several machines line up their phases and per-second series. An
	// instant already past begins at once (Outcome.Began says when).
	StartAt time.Time
	// OnMeasure, when set, is called once no operation is in flight, just
	// before the measured part starts (after the warm-up): server-side
	// snapshots taken there count exactly the measured operations.
	OnMeasure func()
	// Pacer names the open-loop pacing mechanism (NewPacer; "" is
	// DefaultPacer).
	Pacer string
}

// Outcome is what a phase measured.
type Outcome struct {
	Phase    Phase
	Began    time.Time // when the phase began: after waiting for StartAt, before warm-up
	Start    time.Time // start of the measured part (after warm-up)
	End      time.Time
	Names    []string
	Totals   measure.Totals
	Series   []measure.Interval
	Ops      int64 // operations measured (records, for a batched load)
	Complete bool
	// Stopped says why an incomplete phase ended (signal, duration, …).
	Stopped string
	// EndedBy names the limit that ended the phase: "count" (every
	// operation or record issued), "duration", or "interrupted".
	EndedBy string
	Batch   int
	// ScheduleLag (open loop only) is how late each operation started
	// after its intended start, or after the moment its worker became free
	// when that was later: the instrument's own share of "intended" latency.
	ScheduleLag *hdr.Histogram
	// Behind counts the operations (open loop) whose intended start passed
	// while their worker was still busy: the target did not keep up.
	Behind int64
}

// Elapsed is the measured wall time.
func (o *Outcome) Elapsed() time.Duration { return o.End.Sub(o.Start) }

// waitUntil sleeps until the wall-clock instant t (zero: not at all) or
// until ctx is done.
func waitUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if t.IsZero() || d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ErrInterrupted marks a phase stopped by cancellation.
var ErrInterrupted = errors.New("interrupted")

// opNames are the measured operations, indexed by workload.Op; a batched
// load adds INSERT-BATCH.
func opNames(p *Plan, batched bool) []string {
	names := make([]string, workload.NumOps)
	for op := range workload.NumOps {
		names[op] = p.opName(op)
	}
	if batched {
		names = append(names, "INSERT-BATCH")
	}
	return names
}

// b names a store's backend for messages.
func b(store db.Store) string {
	if info, err := store.Info(context.Background()); err == nil {
		return info.Backend
	}
	return "this backend"
}

// Execute runs one phase against store. It returns the outcome even when
// cancelled (Complete false) together with ctx's error.
func Execute(ctx context.Context, store db.Store, wl *workload.Workload, plan *Plan, o Options) (*Outcome, error) {
	if o.Threads < 1 {
		o.Threads = 1
	}
	if o.Drain == 0 {
		o.Drain = 10 * time.Second
	}
	cfg := wl.Config()
	batch := 1
	if o.Phase == Load && cfg.BatchSize > 1 {
		batch = int(cfg.BatchSize)
	}
	reg := measure.NewRegistry(opNames(plan, batch > 1), o.Rate > 0)

	if o.Phase == Run {
		if err := setupStatements(ctx, store, plan); err != nil {
			return nil, err
		}
	}
	sessions := make([]db.Session, o.Threads)
	for i := range sessions {
		s, err := store.NewSession(ctx)
		if err != nil {
			for _, s := range sessions[:i] {
				s.Close()
			}
			return nil, fmt.Errorf("opening session %d: %w", i+1, err)
		}
		sessions[i] = s
		_, querier := s.(db.Querier)
		_, statementer := s.(db.Statementer)
		var missing string
		switch {
		case o.Phase != Run:
		case !querier && len(plan.queries) > 0:
			missing = "secondary queries (queryproportion)"
		case !statementer && plan.stmtSQL != "":
			missing = "statements of the user's (statementproportion)"
		}
		if missing != "" {
			for _, s := range sessions[:i+1] {
				s.Close()
			}
			return nil, &db.ErrNotSupported{Backend: b(store), What: missing}
		}
	}
	defer func() {
		for _, s := range sessions {
			s.Close()
		}
	}()

	// stop is closed when workers must stop issuing operations.
	stop := make(chan struct{})
	var stopOnce sync.Once
	var stopReason atomic.Value
	halt := func(why string) {
		stopOnce.Do(func() {
			stopReason.Store(why)
			close(stop)
		})
	}

	// Per-thread operation counts, as YCSB divides operationcount/insertcount.
	total := cfg.OperationCount
	if o.Phase == Load {
		_, total = wl.LoadRange()
	} else if total == 0 {
		total = math.MaxInt64 // YCSB: operationcount=0 runs until maxexecutiontime
	}
	var done atomic.Int64 // measured operations (records on load)
	var running sync.WaitGroup

	share := func(i int) int64 { // thread i's part of total
		n := total / int64(o.Threads)
		if int64(i) < total%int64(o.Threads) {
			n++
		}
		return n
	}
	workers := make([]*worker, o.Threads)
	for i := range workers {
		workers[i] = &worker{
			sess: sessions[i], wl: wl, th: wl.NewThread(i), plan: plan,
			rec: reg.NewRecorder(), ops: share(i), done: &done, batch: batch,
			stop: stop, drng: doc.NewRand(),
		}
		workers[i].qs, _ = sessions[i].(db.Querier)
		workers[i].stmts, _ = sessions[i].(db.Statementer)
		workers[i].prepare()
		if o.Rate > 0 {
			workers[i].interval = time.Duration(float64(time.Second) * float64(o.Threads) / o.Rate)
			workers[i].offset = time.Duration(float64(time.Second) * float64(i) / o.Rate)
			workers[i].pacer = NewPacer(o.Pacer)
			workers[i].lag = measure.NewHistogram()
		}
	}

	defer func() {
		for _, w := range workers {
			if c, ok := w.pacer.(io.Closer); ok {
				c.Close()
			}
		}
	}()

	// Worker context: cancelled only after the drain bound once stopped.
	wctx, wcancel := context.WithCancel(context.Background())
	defer wcancel()
	out := &Outcome{Phase: o.Phase, Names: reg.Names(), Batch: batch}
	st := newStatus(o, reg, total)
	if err := waitUntil(ctx, o.StartAt); err != nil {
		return nil, ErrInterrupted
	}
	out.Began = time.Now()

	// Warm-up: a pass of its own, stopped and drained, whose measurements
	// are discarded; the measured part then starts with nothing in flight.
	if o.Warmup > 0 && o.Phase == Run {
		st.line("warm-up for %s", o.Warmup)
		warmStop := make(chan struct{})
		for _, w := range workers {
			w.stop, w.ops = warmStop, math.MaxInt64
		}
		for _, w := range workers {
			running.Add(1)
			go func() {
				defer running.Done()
				_ = w.run(wctx, cfg, time.Now())
			}()
		}
		select {
		case <-time.After(o.Warmup):
		case <-ctx.Done():
		}
		close(warmStop)
		running.Wait()
		reg.Reset()
		done.Store(0)
		for i, w := range workers {
			w.stop, w.ops = stop, share(i)
			if w.lag != nil {
				w.lag.Reset()
				w.behind = 0
			}
		}
	}
	if o.OnMeasure != nil && ctx.Err() == nil {
		o.OnMeasure()
	}

	base := time.Now()
	errs := make([]error, o.Threads)
	for i, w := range workers {
		running.Add(1)
		go func() {
			defer running.Done()
			errs[i] = w.loop(wctx, o.Phase, base)
		}()
	}
	finished := make(chan struct{})
	go func() { running.Wait(); close(finished) }()
	out.Start = base

	var deadline <-chan time.Time
	if o.Duration > 0 {
		t := time.NewTimer(o.Duration)
		defer t.Stop()
		deadline = t.C
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	last := base
	interrupted := false
loop:
	for {
		select {
		case <-finished:
			break loop
		case <-deadline:
			halt("duration")
			deadline = nil
		case <-ctx.Done():
			if !interrupted {
				interrupted = true
				halt("interrupted")
				go func() {
					select {
					case <-time.After(o.Drain):
						wcancel()
					case <-finished:
					}
				}()
			}
		case now := <-tick.C:
			iv := reg.Tick(last, now)
			last = now
			out.Series = append(out.Series, iv)
			st.tick(iv, done.Load())
		}
	}
	end := time.Now()
	// The last, partial second: kept when it is long enough to mean
	// something or holds operations (the series then count every one).
	if iv := reg.Tick(last, end); end.Sub(last) > 50*time.Millisecond || iv.Count() > 0 {
		out.Series = append(out.Series, iv)
	}
	out.End = end
	out.Totals = reg.Totals()
	out.Ops = done.Load()
	st.finish(done.Load())
	if o.Rate > 0 {
		// Every worker has returned (or is abandoned after the drain bound,
		// in which case its lag is left out rather than read while written).
		select {
		case <-finished:
			out.ScheduleLag = measure.NewHistogram()
			for _, w := range workers {
				out.ScheduleLag.Merge(w.lag)
				out.Behind += w.behind
			}
		default:
		}
	}
	if r, ok := stopReason.Load().(string); ok {
		out.Stopped = r
	}
	switch {
	case interrupted:
		out.EndedBy = "interrupted"
	case out.Stopped == "duration":
		out.EndedBy = "duration"
	case out.Stopped == "":
		out.EndedBy = "count"
	}
	out.Complete = !interrupted
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			out.Complete = false
			return out, err
		}
	}
	if interrupted {
		return out, ErrInterrupted
	}
	return out, nil
}
