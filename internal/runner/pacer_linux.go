package runner

import (
	"errors"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// nanoPacer sleeps on a runtime timer while the intended start is far, then
// in clock_nanosleep with an absolute CLOCK_MONOTONIC deadline on a locked
// OS thread whose timer slack is 1 ns (the kernel's default slack of 50 µs
// would otherwise be added to every wake-up), and spins the last spin. A
// wait shorter than minSleep is spun whole.
type nanoPacer struct {
	timerPacer
	spinner
	spin time.Duration
	// ref and refMono are one instant on Go's clock and on CLOCK_MONOTONIC.
	ref     time.Time
	refMono int64
	// yielded is when Wait last yielded the worker's P.
	yielded time.Time
}

// clockGettime reads a clock (unix.ClockGettime; a test makes it fail).
type clockGettime func(clockid int32, ts *unix.Timespec) error

// monoRef returns one instant on Go's clock and on CLOCK_MONOTONIC.
func monoRef(gettime clockGettime) (ref time.Time, mono int64, err error) {
	var ts unix.Timespec
	t1 := time.Now()
	if err := gettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return time.Time{}, 0, err
	}
	t2 := time.Now()
	return t1.Add(t2.Sub(t1) / 2), ts.Nano(), nil
}

func newNanoPacer(sp spinner, spin time.Duration) Pacer {
	return nanoPacerWith(sp, spin, unix.ClockGettime)
}

// nanoPacerWith is newNanoPacer reading CLOCK_MONOTONIC with gettime;
// without that clock it returns the sleep-and-spin pacer.
func nanoPacerWith(sp spinner, spin time.Duration, gettime clockGettime) Pacer {
	ref, mono, err := monoRef(gettime)
	if err != nil {
		return &spinPacer{spinner: sp, margin: spinMargin}
	}
	return &nanoPacer{spinner: sp, spin: spin, ref: ref, refMono: mono}
}

func (p *nanoPacer) Wait(intended time.Time, stop <-chan struct{}) bool {
	// A runtime timer first only for a long wait: two wake-ups per
	// operation cost twice the CPU of one.
	if d := time.Until(intended); d > longWait && !p.sleep(d-coarseMargin, stop) {
		return false
	}
	wake := intended.Add(-p.spin)
	for {
		now := time.Now()
		rem := wake.Sub(now)
		if rem < minSleep {
			break
		}
		if stopped(stop) {
			return false
		}
		until := wake
		if rem > stopCheck {
			until = now.Add(stopCheck)
		}
		// A goroutine that never yields looks to the runtime as if it
		// ran for ever: once it has held its P for 10 ms, sysmon takes the
		// P away at every sleep, and with all Ps idle sysmon sleeps until
		// the worker's next system call wakes it — two more thread
		// wake-ups per operation. A yield now and then avoids both.
		if now.Sub(p.yielded) >= yieldEvery {
			p.yielded = now
			runtime.Gosched()
		}
		p.nanosleep(until)
	}
	// The two clocks were read a few hundred nanoseconds apart: finish on
	// Go's clock so that Wait never returns before intended.
	return p.spinUntil(intended, stop)
}

// nanosleep sleeps the calling thread until t.
func (p *nanoPacer) nanosleep(t time.Time) {
	ts := unix.NsecToTimespec(p.refMono + int64(t.Sub(p.ref)))
	runtime.LockOSThread()
	// The slack is the thread's: set it on whichever thread this is.
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	for {
		err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil)
		if !errors.Is(err, unix.EINTR) { // the runtime's preemption signal interrupts
			break
		}
	}
	runtime.UnlockOSThread()
}

// fdPacer parks the worker's goroutine on a timerfd armed with the
// absolute deadline: the kernel's hrtimer fires on time (timerfd has no
// timer slack), the network poller wakes the goroutine, and no OS thread
// blocks in a system call.
type fdPacer struct {
	timerPacer
	spinner
	spin time.Duration
	ref  time.Time
	mono int64
	fd   int // not f.Fd(): that would make the descriptor blocking
	f    *os.File
	buf  [8]byte
	spec unix.ItimerSpec
}

func newFDPacer(sp spinner, spin time.Duration) Pacer {
	return fdPacerWith(sp, spin, unix.ClockGettime)
}

// fdPacerWith is newFDPacer reading CLOCK_MONOTONIC with gettime; without
// a timerfd or that clock it returns the sleep-and-spin pacer.
func fdPacerWith(sp spinner, spin time.Duration, gettime clockGettime) Pacer {
	ref, mono, err := monoRef(gettime)
	if err != nil {
		return &spinPacer{spinner: sp, margin: spinMargin}
	}
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &spinPacer{spinner: sp, margin: spinMargin}
	}
	return &fdPacer{spinner: sp, spin: spin, ref: ref, mono: mono, fd: fd, f: os.NewFile(uintptr(fd), "timerfd")}
}

// Close releases the timerfd.
func (p *fdPacer) Close() error { return p.f.Close() }

func (p *fdPacer) Wait(intended time.Time, stop <-chan struct{}) bool {
	if d := time.Until(intended) - coarseMargin; d > 0 && !p.sleep(d, stop) {
		return false
	}
	wake := intended.Add(-p.spin)
	if time.Until(wake) > 0 {
		if stopped(stop) {
			return false
		}
		p.spec.Value = unix.NsecToTimespec(p.mono + int64(wake.Sub(p.ref)))
		if err := unix.TimerfdSettime(p.fd, unix.TFD_TIMER_ABSTIME, &p.spec, nil); err == nil {
			_, _ = p.f.Read(p.buf[:])
		}
	}
	return p.spinUntil(intended, stop)
}
