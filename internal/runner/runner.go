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
	"runtime"
	"slices"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/docbench/docbench/internal/db"
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
	// MaxErrorShare is the share of failed operations (0.01 = 1 %) above
	// which the phase fails; 0: DefaultMaxErrorShare; negative: no limit
	// (math.SmallestNonzeroFloat64: any failure fails the phase).
	MaxErrorShare float64
	// FailStreak ends the phase as failed once operations have been failing
	// with none succeeding for this long (a database that died); 0 = 3 s.
	FailStreak time.Duration
	// EncodeIntervals keeps each interval's histograms, compressed, in the
	// series (Interval.Encoded): for shards, whose results are merged
	// second by second. Off, the series holds fixed-size summaries only.
	EncodeIntervals bool
	// Enough, when set, is asked after each whole second of the measured
	// part, with the operations' names and that second's interval (its
	// Ops in the names' order; Encoded when EncodeIntervals):
	// true ends the phase there, complete, as its duration would
	// (EndedBy "enough") — a capacity trial whose rate failed already.
	Enough func(names []string, iv *measure.Interval) bool
	// HdrLog, when set, receives every interval's histograms as they are
	// taken, in HdrHistogram's interval log format (.hlog), one tag per
	// operation.
	HdrLog io.Writer
	// LatencyLimit (open loop only), when set, skips an operation whose
	// intended start passed more than this long before its worker could
	// start it, as pgbench --latency-limit does: it would be late already.
	LatencyLimit time.Duration
}

// Outcome is what a phase measured.
type Outcome struct {
	Phase  Phase
	Began  time.Time // when the phase began: after waiting for StartAt, before warm-up
	Start  time.Time // start of the measured part (after warm-up)
	End    time.Time
	Names  []string
	Totals measure.Totals
	// Queries are the query operations' pages, by name (Totals.Rows counts
	// the rows they returned).
	Queries  map[string]QueryPage
	Series   []measure.Interval
	Ops      int64 // operations measured (records, for a batched load)
	Complete bool
	// Stopped says why an incomplete phase ended (signal, duration, …).
	Stopped string
	// EndedBy names the limit that ended the phase: "count" (every
	// operation or record issued), "duration", "enough" (Options.Enough),
	// "interrupted", or
	// "failure" (a failure streak or a panic: see Failure).
	EndedBy string
	// Failure says why the phase failed (error share over the limit, a
	// failure streak, a panic); empty when it did not.
	Failure string
	// Failed counts, of Ops, those that failed (records of failed batches).
	Failed int64
	// LoadedBytes is the JSON bytes of the documents a load stored (Ops
	// less Failed of them).
	LoadedBytes int64
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
	// Skipped counts the operations (open loop, Options.LatencyLimit) not
	// issued because they were already later than the limit when due; they
	// count toward the operation count, not toward Ops.
	Skipped int64
	// Procs is GOMAXPROCS while the phase ran (an open loop, or sessions
	// that block in the kernel, may raise it: raiseProcs).
	Procs int
	// IOMode is how the sessions' connections waited for the server
	// (db.IOModer: blocking, poller, net), comma-separated when sessions
	// differ; empty when the backend does not say (no network).
	IOMode string
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

// interrupted is err, or ErrInterrupted when ctx is done: an error caused
// by the cancellation (a session's dial or statement cut short) is not the
// target's fault.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w while opening the sessions", ErrInterrupted)
	}
	return err
}

// DefaultMaxErrorShare is the share of failed operations above which a
// phase fails unless told otherwise.
const DefaultMaxErrorShare = 0.01

// ErrFailed marks a phase that failed: too many failed operations, a
// failure streak (the database stopped answering), or a worker's panic.
// The outcome returned with it holds what was measured.
var ErrFailed = errors.New("phase failed")

// opNames are the measured operations, indexed by workload.Op; a batched
// load adds INSERT-BATCH, dataintegrity VERIFY (verifyIndex), statement
// files theirs (scriptIndex) and a query mix its entries (mixIndex).
func opNames(p *DocOps, batched bool) []string {
	names := make([]string, workload.NumOps)
	for op := range workload.NumOps {
		names[op] = p.opName(op)
	}
	if batched {
		names = append(names, "INSERT-BATCH")
	}
	if p.cfg.DataIntegrity {
		names = append(names, "VERIFY")
	}
	names = append(names, p.scriptNames()...)
	return append(names, p.mixNames()...)
}

// scriptIndex is the index of the first script in names (the scripts
// follow in order, before the query mix's entries), or -1.
func scriptIndex(p *DocOps, names []string) int {
	if len(p.scripts) == 0 {
		return -1
	}
	return len(names) - len(p.mix) - len(p.scripts)
}

// mixIndex is the index of the query mix's first entry in names (its
// entries follow in order), or -1.
func mixIndex(p *DocOps, names []string) int {
	if len(p.mix) == 0 {
		return -1
	}
	return len(names) - len(p.mix)
}

// verifyIndex is the index of VERIFY in names, or -1.
func verifyIndex(names []string) int { return slices.Index(names, "VERIFY") }

// backendName names a store's backend for messages.
func backendName(store db.Store) string {
	if info, err := store.Info(context.Background()); err == nil {
		return info.Backend
	}
	return "this backend"
}

// Execute runs one phase against store. It returns the outcome even when
// cancelled (Complete false) together with ctx's error.
func Execute(ctx context.Context, store db.Store, wl *workload.Workload, docOps *DocOps, o Options) (*Outcome, error) {
	p, err := newExecution(wl, docOps, o)
	if err != nil {
		return nil, err
	}
	if sizer, ok := store.(db.ThreadSizer); ok {
		if err := sizer.SetThreads(ctx, p.o.Threads); err != nil {
			return nil, interrupted(ctx, err)
		}
	}
	if err := p.openSessions(ctx, store); err != nil {
		return nil, interrupted(ctx, err)
	}
	defer p.closeSessions()
	holder, _ := store.(db.ThreadHolder)
	defer raiseProcs(p.o, holder != nil && holder.HoldsThreads())()
	p.buildWorkers()
	defer p.closePacers()
	// Worker context: cancelled only after the drain bound once stopped.
	p.wctx, p.wcancel = context.WithCancel(context.Background())
	defer p.wcancel()
	p.out = &Outcome{Phase: p.o.Phase, Names: p.reg.Names(), Batch: p.batch, Procs: runtime.GOMAXPROCS(0), IOMode: ioModes(p.sessions)}
	p.st = newStatus(p.o, p.reg, p.total)
	if err := waitUntil(ctx, p.o.StartAt); err != nil {
		return nil, ErrInterrupted
	}
	p.out.Began = time.Now()
	p.warmUp(ctx)
	p.flushStats(ctx)
	if p.o.OnMeasure != nil && ctx.Err() == nil && p.out.Failure == "" {
		p.o.OnMeasure()
	}
	p.measure(ctx)
	return p.collect()
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
