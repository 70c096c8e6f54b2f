package runner

import (
	"os"
	"runtime"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Pacer holds an open-loop worker until each operation's intended start.
//
// The Go runtime's timers wake a sleeping goroutine up to about a
// millisecond late (their deadline passes through the network poller, whose
// timeout has millisecond resolution), and that lateness would be charged to
// the database as "intended" latency. The pacers below trade it for CPU in
// different ways; docs/performance.md has the measurements that chose
// DefaultPacer, and BenchmarkPacer reproduces them.
type Pacer interface {
	// Wait returns at or just after intended, never before it, or false as
	// soon as stop is closed.
	Wait(intended time.Time, stop <-chan struct{}) bool
}

// Pacing mechanisms, by name.
const (
	// PaceTimer sleeps on a runtime timer (the netpoller): cheap, up to
	// about 1 ms late.
	PaceTimer = "timer"
	// PaceSpin sleeps on a runtime timer until spinMargin before the
	// intended start, then spins on the clock.
	PaceSpin = "sleep+spin"
	// PaceNanosleep sleeps in clock_nanosleep(TIMER_ABSTIME) on a locked
	// OS thread whose timer slack is 1 ns (Linux; elsewhere it is PaceSpin),
	// after a runtime timer to coarseMargin before the start when the wait
	// is longer than longWait.
	PaceNanosleep = "nanosleep"
	// PaceNanospin is PaceNanosleep up to nanospinMargin before the
	// intended start, then a spin on the clock.
	PaceNanospin = "nanosleep+spin"
	// PaceTimerfd sleeps on a runtime timer until coarseMargin before the
	// intended start, then parks the goroutine on a timerfd (Linux; an
	// hrtimer without slack) through the network poller; no OS thread is
	// blocked. Elsewhere it is PaceSpin.
	PaceTimerfd = "timerfd"
	// PaceTimerfdSpin is PaceTimerfd up to nanospinMargin before the
	// intended start, then a spin on the clock.
	PaceTimerfdSpin = "timerfd+spin"
)

// DefaultPacer is the mechanism open-loop runs use (see docs/performance.md).
const DefaultPacer = PaceNanospin

// Pacers lists the mechanisms NewPacer knows.
var Pacers = []string{PaceTimer, PaceSpin, PaceNanosleep, PaceNanospin, PaceTimerfd, PaceTimerfdSpin}

const (
	// coarseMargin: a runtime timer is trusted to wake no later than this
	// before the intended start; the rest is slept or spun precisely.
	coarseMargin = 2 * time.Millisecond
	// spinMargin: PaceSpin spins at most this long (a runtime timer wakes
	// up to ~1.1 ms late, so less would often miss the start).
	spinMargin = 1200 * time.Microsecond
	// nanospinMargin: PaceNanospin spins the last this-much of each wait.
	nanospinMargin = 20 * time.Microsecond
	// yieldAfter is the number of clock reads (≈ 60 ns each) after which
	// a spin starts yielding its P (about 15 µs).
	yieldAfter = 256
	// spinAlone: with more workers than Ps, a spin further than this from
	// its start yields its P about every microsecond (16 clock reads), so
	// that a worker whose start has come gets a P from the spinning ones;
	// closer to the start it spins without yielding.
	spinAlone = 5 * time.Microsecond
	// minSleep: a precise pacer spins rather than sleeps a shorter wait
	// (a wake-up costs about as much, and at such rates the worker's thread
	// would otherwise lose its P to the runtime at every sleep).
	minSleep = 50 * time.Microsecond
	// longWait: the nanosleep pacers wait on a runtime timer first (to
	// coarseMargin before the start) only when the wait is longer.
	longWait = 10 * time.Millisecond
	// stopCheck bounds a precise sleep, so that stop is noticed quickly.
	stopCheck = 5 * time.Millisecond
	// yieldEvery: a worker sleeping in the kernel yields its P at least
	// this often (see nanoPacer.Wait): half the 10 ms after which the
	// runtime's sysmon treats a goroutine that never yields as running
	// too long.
	yieldEvery = 5 * time.Millisecond
)

// kernelSleeper reports whether the pacer of this kind blocks its worker's
// thread in the kernel (in a system call, holding the worker's P).
func kernelSleeper(kind string) bool {
	switch kind {
	case PaceTimer, PaceSpin, PaceTimerfd, PaceTimerfdSpin:
		return false
	}
	return true
}

// raiseProcs gives each worker a P when the workers hold their threads
// while they wait: an open loop's workers asleep in clock_nanosleep (their
// interval at least minSleep), and workers whose sessions block in the
// kernel for the server's answer (holds: db.ThreadHolder). A waiting worker
// holds its P, so with fewer Ps than workers a worker that could run waits
// for a P until the runtime's sysmon takes one back (up to milliseconds),
// and that wait is measured as the target's service time. It sets
// GOMAXPROCS to threads + 1 when it is lower, unless the user set
// GOMAXPROCS, and returns what restores it: the runtime's default (which
// follows CPU limits as they change) when it was the default value, else
// the value it was.
func raiseProcs(o Options, holds bool) (restore func()) {
	restore = func() {}
	sleeps := o.Rate > 0 && kernelSleeper(o.Pacer) && o.interval() >= minSleep
	if !sleeps && !holds || os.Getenv("GOMAXPROCS") != "" {
		return restore
	}
	prev := runtime.GOMAXPROCS(0)
	if o.Threads+1 <= prev {
		return restore
	}
	runtime.GOMAXPROCS(o.Threads + 1)
	return func() {
		runtime.SetDefaultGOMAXPROCS()
		if runtime.GOMAXPROCS(0) != prev {
			runtime.GOMAXPROCS(prev)
		}
	}
}

// interval is an open-loop worker's time between its operations: the
// workers share the rate.
func (o Options) interval() time.Duration {
	return time.Duration(float64(time.Second) * float64(o.Threads) / o.Rate)
}

// NewPacer returns a pacer of the named mechanism (DefaultPacer for "").
// Each worker has its own: a pacer keeps per-worker state. crowded says
// that there are more workers than Ps (GOMAXPROCS), so spinning workers
// must take turns.
func NewPacer(kind string, crowded bool) Pacer {
	sp := spinner{crowded: crowded}
	switch kind {
	case PaceTimer:
		return &timerPacer{}
	case PaceSpin:
		return &spinPacer{spinner: sp, margin: spinMargin}
	case PaceNanosleep:
		return newNanoPacer(sp, 0)
	case PaceTimerfd:
		return newFDPacer(sp, 0)
	case PaceTimerfdSpin:
		return newFDPacer(sp, nanospinMargin)
	default:
		return newNanoPacer(sp, nanospinMargin)
	}
}

// timerPacer waits on a runtime timer.
type timerPacer struct{ t *time.Timer }

func (p *timerPacer) Wait(intended time.Time, stop <-chan struct{}) bool {
	d := time.Until(intended)
	if d <= 0 {
		return !stopped(stop)
	}
	return p.sleep(d, stop)
}

func (p *timerPacer) sleep(d time.Duration, stop <-chan struct{}) bool {
	if p.t == nil {
		p.t = time.NewTimer(d)
	} else {
		p.t.Reset(d)
	}
	select {
	case <-p.t.C:
		return true
	case <-stop:
		p.t.Stop()
		return false
	}
}

// spinPacer sleeps on a runtime timer until margin before the intended
// start, then spins.
type spinPacer struct {
	timerPacer
	spinner
	margin time.Duration
}

func (p *spinPacer) Wait(intended time.Time, stop <-chan struct{}) bool {
	if d := time.Until(intended) - p.margin; d > 0 && !p.sleep(d, stop) {
		return false
	}
	return p.spinUntil(intended, stop)
}

// spinner is the last part of every precise pacer: a busy wait.
type spinner struct {
	// crowded: more workers than Ps.
	crowded bool
}

// spinUntil busy-waits on the clock until intended, looking at stop now
// and then. A spin longer than a few microseconds lets the other
// goroutines of its P run: with more workers than Ps, a long spinner would
// otherwise hold its P until preempted. Short spins do not yield: yielding
// spinners keep the run queue full, and the scheduler then stops looking at
// the network poller (where the timerfd pacer's goroutines wait). Crowded,
// a spin yields about every microsecond until spinAlone before the start:
// a worker whose start has come then waits for a P about a microsecond,
// not the 15 µs of spinning before the first yield (and the next 4 µs).
// Not crowded it does not, because each yield also wakes an idle thread
// to look for work, a fifth of a core at 100,000 ops/s on one worker.
func (s spinner) spinUntil(intended time.Time, stop <-chan struct{}) bool {
	for i := 0; ; i++ {
		now := time.Now()
		if !now.Before(intended) {
			break
		}
		switch {
		case s.crowded && i&15 == 15:
			if stopped(stop) {
				return false
			}
			if intended.Sub(now) > spinAlone {
				runtime.Gosched()
			}
		case i&63 == 63:
			if stopped(stop) {
				return false
			}
			if i >= yieldAfter {
				runtime.Gosched()
			}
		}
	}
	return !stopped(stop)
}

// recordLag adds one schedule lag to h (clamped to its range).
func recordLag(h *hdr.PackedHistogram, d time.Duration) {
	v := int64(d)
	if v < 0 {
		v = 0
	} else if v > h.HighestTrackableValue() {
		v = h.HighestTrackableValue()
	}
	_ = h.RecordValue(v)
}
