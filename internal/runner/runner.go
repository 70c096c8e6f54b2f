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
	"strconv"
	"strings"
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
	// MaxErrorRate is the share of failed operations (0.01 = 1 %) above
	// which the phase fails; 0: DefaultMaxErrorRate; negative: no limit
	// (math.SmallestNonzeroFloat64: any failure fails the phase).
	MaxErrorRate float64
	// FailStreak ends the phase as failed once operations have been failing
	// with none succeeding for this long (a database that died); 0 = 3 s.
	FailStreak time.Duration
	// EncodeIntervals keeps each interval's histograms, compressed, in the
	// series (Interval.Encoded): for shards, whose results are merged
	// second by second. Off, the series holds fixed-size summaries only.
	EncodeIntervals bool
	// HdrLog, when set, receives every interval's histograms as they are
	// taken, in HdrHistogram's interval log format (.hlog), one tag per
	// operation.
	HdrLog io.Writer
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
	// operation or record issued), "duration", "interrupted", or
	// "failure" (a failure streak or a panic: see Failure).
	EndedBy string
	// Failure says why the phase failed (error share over the limit, a
	// failure streak, a panic); empty when it did not.
	Failure string
	// Failed counts, of Ops, those that failed (records of failed batches).
	Failed int64
	// Warmup is what the discarded warm-up did, failures included.
	Warmup *Warmup
	Batch  int
	// ScheduleLag (open loop only) is how late each operation started
	// after its intended start, or after the moment its worker became free
	// when that was later: the instrument's own share of "intended" latency.
	ScheduleLag *hdr.Histogram
	// Behind counts the operations (open loop) whose intended start passed
	// while their worker was still busy: the target did not keep up.
	Behind int64
}

// Warmup summarises a warm-up: its operations and failures, per op.
type Warmup struct {
	Ops      int64
	Errors   []int64
	Messages [][]measure.ErrorCount
}

// Succeeded returns the operations (records) that succeeded.
func (o *Outcome) Succeeded() int64 { return o.Ops - o.Failed }

// ErrorShare returns the share of operations that failed (0 when none ran).
func (o *Outcome) ErrorShare() float64 {
	if o.Ops == 0 {
		return 0
	}
	return float64(o.Failed) / float64(o.Ops)
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

// DefaultMaxErrorRate is the share of failed operations above which a
// phase fails unless told otherwise.
const DefaultMaxErrorRate = 0.01

// ErrFailed marks a phase that failed: too many failed operations, a
// failure streak (the database stopped answering), or a worker's panic.
// The outcome returned with it holds what was measured.
var ErrFailed = errors.New("phase failed")

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
	if o.MaxErrorRate == 0 {
		o.MaxErrorRate = DefaultMaxErrorRate
	}
	if o.FailStreak <= 0 {
		o.FailStreak = 3 * time.Second
	}
	reg := measure.NewRegistry(opNames(plan, batch > 1), o.Rate > 0)
	reg.CountNotFound(db.ErrNotFound)
	hlog, err := newHdrLog(o.HdrLog, reg.Names())
	if err != nil {
		return nil, err
	}

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
	var done atomic.Int64   // measured operations (records on load)
	var failed atomic.Int64 // of done, the failed ones
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
			rec: reg.NewRecorder(), ops: share(i), done: &done, failed: &failed, batch: batch,
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

	errs := make([]error, o.Threads)
	// A worker's panic ends the phase with what was measured; its message,
	// never a stack trace, is the phase's error.
	var panicked atomic.Value
	start := func(i int, f func() error) {
		running.Add(1)
		go func() {
			defer running.Done()
			defer func() {
				if p := recover(); p != nil {
					err := fmt.Errorf("%w: worker %d panicked: %v", ErrFailed, i+1, p)
					panicked.CompareAndSwap(nil, err)
					halt("panic")
				}
			}()
			errs[i] = f()
		}()
	}

	// Warm-up: a pass of its own, stopped and drained, whose measurements
	// are discarded (its failures are reported); the measured part then
	// starts with nothing in flight.
	if o.Warmup > 0 && o.Phase == Run {
		st.line("warm-up for %s", o.Warmup)
		warmStop := make(chan struct{})
		for _, w := range workers {
			w.stop, w.ops = warmStop, math.MaxInt64
		}
		for i, w := range workers {
			start(i, func() error { return w.run(wctx, cfg, time.Now()) })
		}
		timer := time.NewTimer(o.Warmup)
		tick := time.NewTicker(time.Second)
		streak := failStreak{limit: o.FailStreak}
		last := time.Now()
	warm:
		for {
			select {
			case <-timer.C:
				break warm
			case <-ctx.Done():
				break warm
			case <-stop: // a panic
				break warm
			case now := <-tick.C:
				iv := reg.Tick(last, now)
				last = now
				if why := streak.see(iv); why != "" {
					out.Failure = "warm-up: " + why + lastError(reg)
					halt("failure streak")
					break warm
				}
			}
		}
		timer.Stop()
		tick.Stop()
		close(warmStop)
		running.Wait()
		errsW, msgsW := reg.Failures()
		out.Warmup = &Warmup{Ops: done.Load(), Errors: errsW, Messages: msgsW}
		reg.Reset()
		done.Store(0)
		failed.Store(0)
		for i, w := range workers {
			w.stop, w.ops = stop, share(i)
			if w.lag != nil {
				w.lag.Reset()
				w.behind = 0
			}
		}
	}
	if o.OnMeasure != nil && ctx.Err() == nil && out.Failure == "" {
		o.OnMeasure()
	}

	base := time.Now()
	if out.Failure == "" && panicked.Load() == nil {
		for i, w := range workers {
			start(i, func() error { return w.loop(wctx, o.Phase, base) })
		}
	}
	hlog.start(base)
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
	draining := false
	// drain cancels the operations still in flight after d.
	drain := func(d time.Duration) {
		if draining {
			return
		}
		draining = true
		go func() {
			select {
			case <-time.After(d):
				wcancel()
			case <-finished:
			}
		}()
	}
	streak := failStreak{limit: o.FailStreak}
	stopped := (<-chan struct{})(stop)
	var hlogErr error
	// sample closes the interval ending now; the last, partial one is kept
	// when it is long enough to mean something or holds operations (the
	// series then count every one).
	sample := func(now time.Time, final bool) {
		iv := reg.Tick(last, now)
		if final && now.Sub(last) <= 50*time.Millisecond && iv.Count() == 0 {
			return
		}
		if o.EncodeIntervals {
			iv.Encoded = make([]string, len(iv.Ops))
			for i := range iv.Ops {
				iv.Encoded[i] = reg.EncodeMerged(i)
			}
		}
		if err := hlog.write(reg, last, now); err != nil && hlogErr == nil {
			hlogErr = err
		}
		last = now
		out.Series = append(out.Series, iv)
		st.tick(iv, done.Load())
		if why := streak.see(iv); why != "" && out.Failure == "" {
			// The database stopped answering: stop now, and do not wait
			// long for operations that may never return.
			out.Failure = why + lastError(reg)
			halt("failure streak")
			drain(min(o.Drain, time.Second))
		}
	}
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
				drain(o.Drain)
			}
		case <-stopped:
			stopped = nil
			if p, ok := panicked.Load().(error); ok && out.Failure == "" {
				out.Failure = p.Error()
				drain(min(o.Drain, time.Second))
			}
		case now := <-tick.C:
			sample(now, false)
		}
	}
	end := time.Now()
	sample(end, true)
	out.End = end
	out.Totals = reg.Totals()
	out.Ops = done.Load()
	out.Failed = failed.Load()
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
	if p, ok := panicked.Load().(error); ok && (out.Failure == "" || out.Stopped == "panic") {
		out.Failure = strings.TrimPrefix(p.Error(), ErrFailed.Error()+": ")
		out.Stopped = "panic"
	}
	switch {
	case interrupted:
		out.EndedBy = "interrupted"
	case out.Stopped == "duration":
		out.EndedBy = "duration"
	case out.Stopped == "failure streak" || out.Stopped == "panic":
		out.EndedBy = "failure"
	case out.Stopped == "":
		out.EndedBy = "count"
	}
	out.Complete = !interrupted && out.Failure == ""
	var workerErr error
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			out.Complete = false
			workerErr = err
			break
		}
	}
	if out.Failure == "" && out.Ops > 0 && o.MaxErrorRate >= 0 && out.ErrorShare() > o.MaxErrorRate {
		out.Failure = fmt.Sprintf("%d of %d operations failed (%s), over the limit of %s (--max-error-rate)%s",
			out.Failed, out.Ops, Percent(out.ErrorShare()), Percent(max(o.MaxErrorRate-math.SmallestNonzeroFloat64, 0)), lastError(reg))
	}
	if err := hlog.close(); err != nil && hlogErr == nil {
		hlogErr = err
	}
	switch {
	case interrupted:
		return out, ErrInterrupted
	case out.Failure != "":
		return out, fmt.Errorf("%w: %s", ErrFailed, out.Failure)
	case workerErr != nil:
		return out, workerErr
	case hlogErr != nil:
		return out, fmt.Errorf("--hdr-log: %w", hlogErr)
	}
	return out, nil
}

// Percent formats a share (0.0123) as a percentage ("1.23%") with the
// digits it needs.
func Percent(share float64) string {
	return strconv.FormatFloat(share*100, 'g', 4, 64) + "%"
}

// failStreak notices a database that stopped answering: intervals in
// which operations failed and none succeeded, for at least limit.
type failStreak struct {
	limit time.Duration
	since time.Time // start of the streak; zero when none
}

// see takes the next interval and returns why the phase must stop, or "".
func (f *failStreak) see(iv measure.Interval) string {
	switch {
	case iv.Succeeded() > 0:
		f.since = time.Time{}
	case iv.Failed() > 0 && f.since.IsZero():
		f.since = iv.Start
	}
	if !f.since.IsZero() && iv.End.Sub(f.since) >= f.limit {
		return fmt.Sprintf("no operation succeeded for %s while operations kept failing", iv.End.Sub(f.since).Round(100*time.Millisecond))
	}
	return ""
}

// lastError names the most frequent error message so far, as "; most
// frequent error: …".
func lastError(reg *measure.Registry) string {
	_, msgs := reg.Failures()
	var best measure.ErrorCount
	for _, list := range msgs {
		for _, m := range list {
			if m.Count > best.Count {
				best = m
			}
		}
	}
	if best.Count == 0 {
		return ""
	}
	return "; most frequent error: " + best.Message
}
