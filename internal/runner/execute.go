package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/workload"
)

// execution is one Execute call in progress: its workers, what they measure
// into, and the signals that stop them. Execute goes through it in order:
// open the sessions, build the workers, warm up, run the measured part,
// collect the outcome.
type execution struct {
	o      Options
	wl     *workload.Workload
	cfg    *workload.Config
	docOps *DocOps
	batch  int   // records per insert (a batched load), else 1
	total  int64 // operations (records) the phase issues, over all workers
	reg    *measure.Registry
	hlog   *hdrLog
	st     *status
	out    *Outcome

	sessions []db.Session
	workers  []*worker // each counts its operations (counts sums them)
	running  sync.WaitGroup
	errs     []error // each worker's return

	// stop is closed when workers must stop issuing operations.
	stop       chan struct{}
	stopOnce   sync.Once
	stopReason atomic.Value
	// panicked holds a worker's panic as the phase's error: it ends the
	// phase with what was measured, its message never a stack trace.
	panicked atomic.Value
	// wctx is the workers' context: cancelled only after the drain bound
	// once stopped.
	wctx    context.Context
	wcancel context.CancelFunc

	// The measured part.
	finished    chan struct{} // closed when every worker has returned
	last        time.Time     // end of the last interval sampled
	streak      failStreak
	interrupted bool
	draining    bool
	hlogErr     error
}

// newExecution applies o's defaults and sets up what the phase measures into.
func newExecution(wl *workload.Workload, docOps *DocOps, o Options) (*execution, error) {
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
	if o.MaxErrorShare == 0 {
		o.MaxErrorShare = DefaultMaxErrorShare
	}
	if o.FailStreak <= 0 {
		o.FailStreak = 3 * time.Second
	}
	reg := measure.NewRegistry(opNames(docOps, batch > 1), o.Rate > 0)
	reg.CountNotFound(db.ErrNotFound)
	hlog, err := newHdrLog(o.HdrLog, reg.Names())
	if err != nil {
		return nil, err
	}
	// Per-thread operation counts, as YCSB divides operationcount/insertcount.
	total := cfg.OperationCount
	if o.Phase == Load {
		_, total = wl.LoadRange()
	} else if total == 0 {
		total = math.MaxInt64 // YCSB: operationcount=0 runs until maxexecutiontime
	}
	return &execution{
		o: o, wl: wl, cfg: cfg, docOps: docOps, batch: batch, total: total, reg: reg, hlog: hlog,
		errs: make([]error, o.Threads),
		stop: make(chan struct{}),
	}, nil
}

// openSessions prepares the run's statements and opens a session per
// worker; a session that lacks a capability the operations need fails the phase
// before anything runs.
func (p *execution) openSessions(ctx context.Context, store db.Store) error {
	if p.o.Phase == Run {
		if err := setupStatements(ctx, store, p.docOps); err != nil {
			return err
		}
	}
	p.sessions = make([]db.Session, p.o.Threads)
	for i := range p.sessions {
		s, err := store.NewSession(ctx)
		if err != nil {
			for _, s := range p.sessions[:i] {
				s.Close()
			}
			return fmt.Errorf("opening session %d: %w", i+1, err)
		}
		p.sessions[i] = s
		if missing := p.missingCapability(s); missing != "" {
			for _, s := range p.sessions[:i+1] {
				s.Close()
			}
			return &db.ErrNotSupported{Backend: backendName(store), What: missing}
		}
	}
	if p.o.Phase == Run {
		if err := p.docOps.tryMix(ctx, p.sessions[0]); err != nil {
			p.closeSessions()
			return err
		}
		if err := p.docOps.tryScripts(ctx, p.sessions[0]); err != nil {
			p.closeSessions()
			return err
		}
	}
	return nil
}

// ioModes names the I/O modes of the sessions' connections (db.IOModer),
// sorted and comma-separated; "" when no session says.
func ioModes(sessions []db.Session) string {
	var modes []string
	for _, s := range sessions {
		if m, ok := s.(db.IOModer); ok {
			modes = append(modes, m.IOMode())
		}
	}
	slices.Sort(modes)
	return strings.Join(slices.Compact(modes), ",")
}

// missingCapability names what the run's operations need that s cannot do, or "".
func (p *execution) missingCapability(s db.Session) string {
	_, querier := s.(db.Querier)
	_, statementer := s.(db.Statementer)
	_, scripter := s.(db.Scripter)
	switch {
	case p.o.Phase != Run:
	case !querier && len(p.docOps.queries) > 0:
		return "secondary queries (queryproportion)"
	case !querier && p.docOps.mixQueries():
		return "secondary queries (querymix)"
	case !statementer && p.docOps.stmtSQL != "":
		return "statements of the user's (statementproportion)"
	case !scripter && len(p.docOps.scripts) > 0:
		return "statement files (statement.file)"
	}
	return ""
}

func (p *execution) closeSessions() {
	for _, s := range p.sessions {
		s.Close()
	}
}

// share is worker i's part of the phase's operations.
func (p *execution) share(i int) int64 {
	n := p.total / int64(p.o.Threads)
	if int64(i) < p.total%int64(p.o.Threads) {
		n++
	}
	return n
}

// buildWorkers gives every session a worker with its own generators,
// buffers, recorder and (open loop) pacer.
func (p *execution) buildWorkers() {
	o := p.o
	crowded := o.Threads > runtime.GOMAXPROCS(0)
	p.workers = make([]*worker, o.Threads)
	for i := range p.workers {
		w := &worker{
			sess: p.sessions[i], wl: p.wl, th: p.wl.NewThread(i), docOps: p.docOps,
			rec: p.reg.NewRecorder(), ops: p.share(i), batch: p.batch,
			stop: p.stop, drng: document.NewRand(), verifyOp: verifyIndex(p.reg.Names()),
			mixOp: mixIndex(p.docOps, p.reg.Names()), scriptOp: scriptIndex(p.docOps, p.reg.Names()),
		}
		w.qs, _ = p.sessions[i].(db.Querier)
		w.stmts, _ = p.sessions[i].(db.Statementer)
		w.scripts, _ = p.sessions[i].(db.Scripter)
		w.prepare()
		if o.Rate > 0 {
			w.interval = o.interval()
			w.offset = time.Duration(float64(time.Second) * float64(i) / o.Rate)
			w.pacer = NewPacer(o.Pacer, crowded)
			w.lag = measure.NewPacked()
			w.limit = o.LatencyLimit
		}
		p.workers[i] = w
	}
}

func (p *execution) closePacers() {
	for _, w := range p.workers {
		if c, ok := w.pacer.(io.Closer); ok {
			c.Close()
		}
	}
}

// halt tells the workers to stop issuing operations; the first reason given
// is the one kept.
func (p *execution) halt(why string) {
	p.stopOnce.Do(func() {
		p.stopReason.Store(why)
		close(p.stop)
	})
}

// start runs f as worker i; a panic halts the phase.
func (p *execution) start(i int, f func() error) {
	p.running.Add(1)
	go func() {
		defer p.running.Done()
		defer func() {
			if r := recover(); r != nil {
				err := fmt.Errorf("%w: worker %d panicked: %v", ErrFailed, i+1, r)
				p.panicked.CompareAndSwap(nil, err)
				p.halt("panic")
			}
		}()
		p.errs[i] = f()
	}()
}

// warmUp runs the warm-up: a pass of its own, stopped and drained, whose
// measurements are discarded (its failures are reported); the measured
// part then starts with nothing in flight.
func (p *execution) warmUp(ctx context.Context) {
	if p.o.Warmup <= 0 || p.o.Phase != Run {
		return
	}
	p.st.line("warm-up for %s", p.o.Warmup)
	warmStop := make(chan struct{})
	for _, w := range p.workers {
		w.stop, w.ops = warmStop, math.MaxInt64
	}
	for i, w := range p.workers {
		p.start(i, func() error { return w.run(p.wctx, p.cfg, time.Now()) })
	}
	p.watchWorkers()
	p.awaitWarmup(ctx)
	close(warmStop)
	if p.out.Failure != "" || p.panicked.Load() != nil {
		p.drain(min(p.o.Drain, time.Second)) // as in the measured part
	}
	// The warm-up's operations finish before the measured part starts;
	// an interrupt bounds the wait by the drain.
	select {
	case <-p.finished:
	case <-ctx.Done():
		p.interrupt()
		<-p.finished
	}
	errsW, msgsW := p.reg.Failures()
	warmOps, _ := p.counts()
	p.out.Warmup = &Warmup{Ops: warmOps, Errors: errsW, Messages: msgsW}
	p.reg.Reset()
	for i, w := range p.workers {
		w.done.Store(0)
		w.failed.Store(0)
		w.loaded = 0
		w.stop, w.ops = p.stop, p.share(i)
		if w.lag != nil {
			w.lag.Reset()
			w.behind, w.skipped = 0, 0
		}
	}
}

// flushWait bounds flushStats: a server that does not answer within it
// is left to the measured part's own failure handling.
const flushWait = 5 * time.Second

// flushStats has every session's server report the warm-up's counters
// (db.StatsFlusher), all at once, so that the measured part's server
// figures start after them. A session that cannot (or not within
// flushWait) is left as it is: its figures are then as late as the server
// makes them.
func (p *execution) flushStats(ctx context.Context) {
	if p.out.Warmup == nil || ctx.Err() != nil || p.out.Failure != "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, flushWait)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range p.sessions {
		if f, ok := s.(db.StatsFlusher); ok {
			wg.Go(func() { _ = f.FlushStats(ctx) })
		}
	}
	wg.Wait()
}

// awaitWarmup returns when the warm-up's time is up, ctx is done, a worker
// panicked, or the warm-up's operations kept failing.
func (p *execution) awaitWarmup(ctx context.Context) {
	timer := time.NewTimer(p.o.Warmup)
	defer timer.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	streak := failStreak{limit: p.o.FailStreak}
	last := time.Now()
	for {
		select {
		case <-timer.C:
			return
		case <-ctx.Done():
			p.interrupt()
			return
		case <-p.stop: // a panic
			return
		case now := <-tick.C:
			iv := p.reg.Tick(last, now)
			last = now
			if why := streak.see(iv); why != "" {
				p.out.Failure = "warm-up: " + why + lastError(p.reg)
				p.halt("failure streak")
				return
			}
		}
	}
}

// watchWorkers makes p.finished, closed once every worker started has
// returned.
func (p *execution) watchWorkers() {
	finished := make(chan struct{})
	go func() { p.running.Wait(); close(finished) }()
	p.finished = finished
}

// measure runs the measured part: it starts the workers and samples an
// interval a second until they have all returned, stopping them on the
// duration, cancellation, a failure streak or a panic. After an
// interrupted or failed warm-up it starts none.
func (p *execution) measure(ctx context.Context) {
	base := time.Now()
	if ctx.Err() != nil {
		p.interrupt()
	}
	if !p.interrupted && p.out.Failure == "" && p.panicked.Load() == nil {
		for i, w := range p.workers {
			p.start(i, func() error { return w.loop(p.wctx, p.o.Phase, base) })
		}
	}
	p.hlog.start(base)
	p.watchWorkers()
	p.out.Start = base
	p.last = base
	count := "operationcount"
	if p.o.Phase == Load {
		count = "insertcount"
	}
	p.st.begin(base, count)

	// The duration halts the workers from a timer of its own, not from
	// this loop: with many more busy workers than cores (1,000 against
	// null:), a tick can wait seconds for a preempted worker to release
	// its recorder, and the run must still end on time.
	if p.o.Duration > 0 {
		t := time.AfterFunc(p.o.Duration, func() { p.halt("duration") })
		defer t.Stop()
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	p.streak = failStreak{limit: p.o.FailStreak}
	stopCh := (<-chan struct{})(p.stop)
	for {
		select {
		case <-p.finished:
			end := time.Now()
			p.sample(end, true)
			p.out.End = end
			return
		case <-ctx.Done():
			p.interrupt()
		case <-stopCh:
			stopCh = nil
			if err, ok := p.panicked.Load().(error); ok && p.out.Failure == "" {
				p.out.Failure = err.Error()
				p.drain(min(p.o.Drain, time.Second))
			}
		case now := <-tick.C:
			p.sample(now, false)
		}
	}
}

// interrupt stops the phase on cancellation, once: no operation starts
// after it, and those in flight are cancelled after the drain bound.
func (p *execution) interrupt() {
	if p.interrupted {
		return
	}
	p.interrupted = true
	p.halt("interrupted")
	p.drain(p.o.Drain)
}

// drain cancels the operations still in flight after d; their sessions
// cancel them on the server too.
func (p *execution) drain(d time.Duration) {
	if p.draining {
		return
	}
	p.draining = true
	finished := p.finished
	go func() {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			p.wcancel()
		case <-finished:
		}
	}()
}

// sample closes the interval ending now; the last, partial one is kept
// when it is long enough to mean something or holds operations (the
// series then count every one).
func (p *execution) sample(now time.Time, final bool) {
	iv := p.reg.Tick(p.last, now)
	if final && now.Sub(p.last) <= 50*time.Millisecond && iv.Count() == 0 {
		return
	}
	if p.o.EncodeIntervals {
		iv.Encoded = make([]string, len(iv.Ops))
		for i := range iv.Ops {
			iv.Encoded[i] = p.reg.EncodeMerged(i)
		}
	}
	if err := p.hlog.write(p.reg, p.last, now); err != nil && p.hlogErr == nil {
		p.hlogErr = err
	}
	p.last = now
	p.out.Series = append(p.out.Series, iv)
	if !final && p.o.Enough != nil && p.o.Enough(p.out.Names, &p.out.Series[len(p.out.Series)-1]) {
		p.halt("enough")
	}
	done, _ := p.counts()
	p.st.tick(iv, done)
	if why := p.streak.see(iv); why != "" && p.out.Failure == "" {
		// The database stopped answering: stop now, and do not wait
		// long for operations that may never return.
		p.out.Failure = why + lastError(p.reg)
		p.halt("failure streak")
		p.drain(min(p.o.Drain, time.Second))
	}
}

// collect completes the outcome and returns the phase's error.
func (p *execution) collect() (*Outcome, error) {
	out := p.out
	out.Totals = p.reg.Totals()
	out.Queries = p.docOps.queryPages()
	out.Ops, out.Failed = p.counts()
	for _, w := range p.workers {
		out.LoadedBytes += w.loaded
	}
	p.st.finish(out.Ops)
	if p.o.Rate > 0 {
		p.mergeLag()
	}
	p.conclude()
	var workerErr error
	for _, err := range p.errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			out.Complete = false
			workerErr = err
			break
		}
	}
	if out.Failure == "" && out.Ops > 0 && p.o.MaxErrorShare >= 0 && out.ErrorShare() > p.o.MaxErrorShare {
		out.Failure = fmt.Sprintf("%d of %d operations failed (%s), over the limit of %s (--max-error-share)%s",
			out.Failed, out.Ops, Percent(out.ErrorShare()), Percent(max(p.o.MaxErrorShare-math.SmallestNonzeroFloat64, 0)), lastError(p.reg))
	}
	if err := p.hlog.close(); err != nil && p.hlogErr == nil {
		p.hlogErr = err
	}
	switch {
	case p.interrupted:
		return out, ErrInterrupted
	case out.Failure != "":
		return out, fmt.Errorf("%w: %s", ErrFailed, out.Failure)
	case workerErr != nil:
		return out, workerErr
	case p.hlogErr != nil:
		return out, fmt.Errorf("--hdr-log: %w", p.hlogErr)
	}
	return out, nil
}

// mergeLag merges the workers' schedule lag (open loop); every worker has
// returned (the drain bound cancels what is still in flight).
func (p *execution) mergeLag() {
	p.out.ScheduleLag = measure.NewHistogram()
	for _, w := range p.workers {
		w.lag.MergeInto(p.out.ScheduleLag)
		p.out.Behind += w.behind
		p.out.Skipped += w.skipped
	}
}

// conclude says why the phase stopped, which limit ended it, and whether
// it is complete (before the workers' own errors are counted).
func (p *execution) conclude() {
	out := p.out
	if r, ok := p.stopReason.Load().(string); ok {
		out.Stopped = r
	}
	if err, ok := p.panicked.Load().(error); ok && (out.Failure == "" || out.Stopped == "panic") {
		out.Failure = strings.TrimPrefix(err.Error(), ErrFailed.Error()+": ")
		out.Stopped = "panic"
	}
	switch {
	case p.interrupted:
		out.EndedBy = "interrupted"
	case out.Stopped == "duration" || out.Stopped == "enough":
		out.EndedBy = out.Stopped
	case out.Stopped == "failure streak" || out.Stopped == "panic":
		out.EndedBy = "failure"
	case out.Stopped == "":
		out.EndedBy = "count"
	}
	out.Complete = !p.interrupted && out.Failure == ""
}
