package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/probe"
)

// pacerCase is a mechanism, with workers crowded on the Ps or not.
type pacerCase struct {
	kind    string
	crowded bool
}

func (c pacerCase) String() string {
	if c.crowded {
		return c.kind + ",crowded"
	}
	return c.kind
}

func pacerCases() (cs []pacerCase) {
	for _, k := range Pacers {
		cs = append(cs, pacerCase{k, false}, pacerCase{k, true})
	}
	return cs
}

func TestPacerNeverEarly(t *testing.T) {
	for _, name := range pacerCases() {
		t.Run(name.String(), func(t *testing.T) {
			p := NewPacer(name.kind, name.crowded)
			base := time.Now()
			for i := range 20 {
				intended := base.Add(time.Duration(i) * 300 * time.Microsecond)
				if !p.Wait(intended, nil) {
					t.Fatal("Wait returned false without a stop")
				}
				if now := time.Now(); now.Before(intended) {
					t.Fatalf("woke %v early", intended.Sub(now))
				}
			}
		})
	}
}

func TestPacerStops(t *testing.T) {
	for _, name := range pacerCases() {
		t.Run(name.String(), func(t *testing.T) {
			p := NewPacer(name.kind, name.crowded)
			stop := make(chan struct{})
			done := make(chan bool)
			go func() { done <- p.Wait(time.Now().Add(time.Hour), stop) }()
			inWait(t)
			close(stop)
			select {
			case ok := <-done:
				if ok {
					t.Fatal("Wait returned true after stop")
				}
			case <-time.After(30 * time.Second): // a hang: the wait was for an hour
				t.Fatal("Wait did not notice stop")
			}
		})
	}
}

// inWait returns once a goroutine is inside a pacer's Wait, read from the
// goroutines' stacks: stop then comes during the wait, not before it.
func inWait(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for !bytes.Contains(buf[:runtime.Stack(buf, true)], []byte("Pacer).Wait(")) {
		runtime.Gosched()
	}
}

// Workers that hold their threads while they wait (an open loop's sleepers,
// sessions blocked in the kernel) get a P each, and one more, for the
// phase; nothing changes when they do not, or the user set GOMAXPROCS.
func TestRoomForWorkersThatHoldTheirThreads(t *testing.T) {
	if os.Getenv("GOMAXPROCS") != "" {
		t.Skip("GOMAXPROCS is set: docbench leaves it as the user set it")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	store, wl, gen := setup(t, "null:", map[string]string{"recordcount": "1000", "operationcount": "200"})
	raised := func(what string, store db.Store, o Options) {
		t.Helper()
		out, err := Execute(context.Background(), store, wl, gen, o)
		if err != nil {
			t.Fatal(err)
		}
		if out.Procs != 5 {
			t.Fatalf("4 workers %s ran with GOMAXPROCS %d, want 5", what, out.Procs)
		}
		if n := runtime.GOMAXPROCS(0); n != 2 {
			t.Fatalf("GOMAXPROCS %d after the phase, want 2 again", n)
		}
	}
	raised("sleeping between operations", store, Options{Phase: Run, Threads: 4, Rate: 2000})
	// Sessions that block in the kernel hold their P in a closed loop too.
	raised("holding their threads", holding{store}, Options{Phase: Run, Threads: 4})
	for _, c := range []struct {
		o     Options
		holds bool
	}{
		{Options{Threads: 4}, false},                               // closed loop: workers never sleep
		{Options{Threads: 4, Rate: 2000, Pacer: PaceTimer}, false}, // parks the goroutine, not the thread
		{Options{Threads: 4, Rate: 1e6}, false},                    // 4 µs apart: the workers spin
		{Options{Threads: 1, Rate: 2000}, false},                   // one sleeper leaves a P free
		{Options{Threads: 1}, true},                                // one holder leaves a P free
	} {
		restore := raiseProcs(c.o, c.holds)
		if n := runtime.GOMAXPROCS(0); n != 2 {
			t.Errorf("%+v, holds %v: GOMAXPROCS %d, want 2 unchanged", c.o, c.holds, n)
		}
		restore()
	}
	t.Setenv("GOMAXPROCS", "2")
	for _, holds := range []bool{false, true} {
		restore := raiseProcs(Options{Threads: 4, Rate: 2000}, holds)
		if n := runtime.GOMAXPROCS(0); n != 2 {
			t.Errorf("GOMAXPROCS set by the user was changed to %d", n)
		}
		restore()
	}
}

// holding is a store whose sessions say they hold their threads.
type holding struct{ db.Store }

func (holding) HoldsThreads() bool { return true }

func cpuTime() time.Duration { return time.Duration(probe.SelfCPU() * float64(time.Second)) }

// BenchmarkPacer measures each pacing mechanism as the runner uses it: the
// workers share the target rate, each with its own schedule and pacer, and
// do nothing between waits (the target keeps up). It reports the schedule
// lag (how late each wait returned) and the process CPU spent per paced
// operation and as a share of one core. Run it with, e.g.,
//
//	go test -run '^$' -bench Pacer -benchtime 3s ./internal/runner/
func BenchmarkPacer(b *testing.B) {
	for _, kind := range Pacers {
		for _, rate := range []float64{1_000, 10_000, 100_000} {
			for _, workers := range []int{1, 4} {
				b.Run(fmt.Sprintf("%s/rate=%.0f/workers=%d", kind, rate, workers), func(b *testing.B) {
					benchPacer(b, kind, rate, workers)
				})
			}
		}
	}
}

func benchPacer(b *testing.B, kind string, rate float64, workers int) {
	interval := time.Duration(float64(time.Second) * float64(workers) / rate)
	lags := make([]*measure.Recorder, workers)
	reg := measure.NewRegistry([]string{"LAG"}, false)
	for i := range lags {
		lags[i] = reg.NewRecorder()
	}
	defer raiseProcs(Options{Rate: rate, Threads: workers, Pacer: kind}, false)()
	procs := runtime.GOMAXPROCS(0)
	crowded := workers > procs
	var wg sync.WaitGroup
	cpu0 := cpuTime()
	b.ResetTimer()
	base := time.Now()
	for i := range workers {
		n := b.N / workers
		if i < b.N%workers {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := NewPacer(kind, crowded)
			if c, ok := p.(io.Closer); ok {
				defer c.Close()
			}
			offset := time.Duration(float64(time.Second) * float64(i) / rate)
			for k := range n {
				intended := base.Add(offset + time.Duration(k)*interval)
				p.Wait(intended, nil)
				lag := time.Since(intended)
				lags[i].Record(0, lag, lag, nil)
			}
		}()
	}
	wg.Wait()
	wall := time.Since(base)
	b.StopTimer()
	cpu := cpuTime() - cpu0
	h := reg.Totals().Service[0]
	b.ReportMetric(float64(h.ValueAtQuantile(50))/1e3, "lag-p50-µs")
	b.ReportMetric(float64(h.ValueAtQuantile(99))/1e3, "lag-p99-µs")
	b.ReportMetric(float64(h.Max())/1e3, "lag-max-µs")
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "cpu-%")
	b.ReportMetric(float64(procs), "procs")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(0, "ns/op") // the wall time per op is the schedule's, not a cost
}
