package runner

import (
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Without CLOCK_MONOTONIC the precise pacers fall back to sleep+spin
// (the timerfd one used to panic there), and still never wake early.
func TestPacersWithoutTheMonotonicClock(t *testing.T) {
	noClock := func(int32, *unix.Timespec) error { return errors.New("no clock") }
	for name, p := range map[string]Pacer{
		PaceNanosleep: nanoPacerWith(spinner{}, 0, noClock),
		PaceTimerfd:   fdPacerWith(spinner{}, 0, noClock),
	} {
		if _, ok := p.(*spinPacer); !ok {
			t.Errorf("%s without the clock: a %T, want the sleep+spin pacer", name, p)
			continue
		}
		intended := time.Now().Add(time.Millisecond)
		if !p.Wait(intended, nil) || time.Now().Before(intended) {
			t.Errorf("%s without the clock: woke early or not at all", name)
		}
	}
}
