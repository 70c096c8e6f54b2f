package study

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/report"
)

// The machine-speed control taken before each measured run of a study
// (report.Control): a fixed client-side CPU kernel and the cheapest round
// trip to the target. A run whose control moved more than controlBound
// from the study's median is void (voids).
const (
	controlBound = 0.10 // a run's control within ±10 % of the study's median
	// The kernel: kernelPasses timings of kernelHashes SHA-256 sums of a
	// fixed kernelBytes buffer (4 MiB of hashing: about 10 ms a pass on
	// the 2-CPU VMs docbench is developed on).
	kernelBytes  = 64 << 10
	kernelHashes = 64
	kernelPasses = 3
	// The round trip: roundTripWarm untimed calls, then the median of
	// roundTripCalls timed ones.
	roundTripWarm  = 5
	roundTripCalls = 31
)

// controlKernel times the fixed CPU kernel: the median of kernelPasses
// passes, in µs.
func controlKernel() float64 {
	buf := make([]byte, kernelBytes)
	for i := range buf {
		buf[i] = byte(i * 31)
	}
	times := make([]float64, kernelPasses)
	for p := range times {
		start := time.Now()
		for range kernelHashes {
			sum := sha256.Sum256(buf)
			buf[0] = sum[0] // each sum depends on the last: nothing to elide
		}
		times[p] = float64(time.Since(start).Nanoseconds()) / 1e3
	}
	slices.Sort(times)
	return times[len(times)/2]
}

// controlKey is a key no workload loads: a read of it finds nothing.
var controlKey = []byte("docbench-control")

// controlRoundTrip times the cheapest call to store's server on a session
// of its own: SELECT 1 where the session runs statements, else a read of
// an absent key; the median in µs.
func controlRoundTrip(ctx context.Context, store db.Store) (float64, error) {
	s, err := store.NewSession(ctx)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	call := func() error {
		_, err := s.Read(ctx, controlKey, nil, nil)
		if errors.Is(err, db.ErrNotFound) {
			return nil
		}
		return err
	}
	if st, ok := s.(db.Statementer); ok {
		call = func() error { _, err := st.Statement(ctx, "SELECT 1", nil); return err }
	}
	times := make([]float64, roundTripCalls)
	for i := -roundTripWarm; i < roundTripCalls; i++ {
		start := time.Now()
		if err := call(); err != nil {
			return 0, err
		}
		if i >= 0 {
			times[i] = float64(time.Since(start).Nanoseconds()) / 1e3
		}
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}

// takeControl takes the control before a measured run on store.
func takeControl(ctx context.Context, store db.Store) *report.Control {
	c := &report.Control{KernelUS: controlKernel()}
	rt, err := controlRoundTrip(ctx, store)
	if err != nil {
		c.RoundTripAbsent = oneLine(err)
	} else {
		c.RoundTripUS = rt
	}
	return c
}

// controlled are the runs of a study with a control, in the order they
// ran, with their results.
func (d *Data) controlled() ([]Run, []*report.Control) {
	var runs []Run
	var cs []*report.Control
	for _, run := range d.Manifest.Runs {
		if res := d.Results[run.File]; res != nil && res.Complete && res.Control != nil {
			runs, cs = append(runs, run), append(cs, res.Control)
		}
	}
	return runs, cs
}

// minControls is the fewest controls a median is taken over: fewer, and
// no run is void.
const minControls = 3

// controlMedians are the median kernel time over the study's runs (0
// with fewer than minControls) and each target's median round trip.
func controlMedians(runs []Run, cs []*report.Control) (kernel float64, roundTrip map[string]float64) {
	var ks []float64
	rts := map[string][]float64{}
	for i, c := range cs {
		ks = append(ks, c.KernelUS)
		if c.RoundTripUS > 0 {
			rts[runs[i].Target] = append(rts[runs[i].Target], c.RoundTripUS)
		}
	}
	roundTrip = map[string]float64{}
	for t, vs := range rts {
		if len(vs) >= minControls {
			roundTrip[t] = median(vs)
		}
	}
	if len(ks) >= minControls {
		kernel = median(ks)
	}
	return kernel, roundTrip
}

// median is the middle of vs (the mean of the two middle values).
func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// controlMoves says how control c moved beyond controlBound from the
// median kernel time and target's median round trip (0: none to compare
// with); of ends each ("the study's median" + of).
func controlMoves(c *report.Control, kernel, roundTrip float64, target, of string) []string {
	var why []string
	if x := c.KernelUS / kernel; kernel > 0 && math.Abs(x-1) > controlBound {
		why = append(why, fmt.Sprintf("the client kernel took %.2f× the study's median%s", x, of))
	}
	if x := c.RoundTripUS / roundTrip; roundTrip > 0 && c.RoundTripUS > 0 && math.Abs(x-1) > controlBound {
		why = append(why, fmt.Sprintf("the round trip took %.2f× %s's median%s", x, target, of))
	}
	return why
}

// controlLog keeps the controls a study has taken so far, as it runs.
type controlLog struct {
	kernels    []float64
	roundTrips map[string][]float64 // by target
}

func (l *controlLog) add(c *report.Control, target string) {
	l.kernels = append(l.kernels, c.KernelUS)
	if c.RoundTripUS > 0 {
		if l.roundTrips == nil {
			l.roundTrips = map[string][]float64{}
		}
		l.roundTrips[target] = append(l.roundTrips[target], c.RoundTripUS)
	}
}

// moved says how c moved beyond controlBound from the medians of the
// controls so far (minControls of them at least); "" when it did not.
func (l *controlLog) moved(c *report.Control, target string) string {
	var kernel, roundTrip float64
	if len(l.kernels) >= minControls {
		kernel = median(l.kernels)
	}
	if rts := l.roundTrips[target]; len(rts) >= minControls {
		roundTrip = median(rts)
	}
	why := controlMoves(c, kernel, roundTrip, target, " so far")
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (bound ±%.0f %%)", strings.Join(why, ", "), controlBound*100)
}

// voids are the study's void runs, by result file, each with why: those
// found void as the study ran (Run.Void, run again), and those whose
// control moved more than controlBound from the study's median (the
// kernel's over every run, the round trip's over the target's runs).
func (d *Data) voids() map[string]string {
	runs, cs := d.controlled()
	kernel, roundTrip := controlMedians(runs, cs)
	out := map[string]string{}
	for i, c := range cs {
		run := runs[i]
		where := fmt.Sprintf("%s %s at %s round %d: void, ", run.Target, run.Workload, pointID(run.Point), run.Round)
		if run.Void != "" {
			out[run.File] = where + run.Void + "; run again"
		} else if why := controlMoves(c, kernel, roundTrip[run.Target], run.Target, ""); len(why) > 0 {
			out[run.File] = where + fmt.Sprintf("%s (bound ±%.0f %%)", strings.Join(why, ", "), controlBound*100)
		}
	}
	return out
}

// Void are the study's void runs, a line each in the order they ran.
func (d *Data) Void() []string {
	var out []string
	for _, run := range d.Manifest.Runs {
		if why := d.void[run.File]; why != "" && run.File != "" {
			out = append(out, why)
		}
	}
	return out
}

// controlLine is the control's drift over the study in one line: the
// kernel's least and most time relative to its median, the round trips'
// widest range relative to their target's median, the void runs; "" for
// a study without enough controls (one of an earlier release).
func (d *Data) controlLine() string {
	runs, cs := d.controlled()
	kernel, roundTrip := controlMedians(runs, cs)
	if kernel == 0 {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	rlo, rhi := math.Inf(1), math.Inf(-1)
	for i, c := range cs {
		lo, hi = min(lo, c.KernelUS/kernel), max(hi, c.KernelUS/kernel)
		if m := roundTrip[runs[i].Target]; m > 0 && c.RoundTripUS > 0 {
			rlo, rhi = min(rlo, c.RoundTripUS/m), max(rhi, c.RoundTripUS/m)
		}
	}
	line := fmt.Sprintf("machine-speed control before each of %d runs: the client kernel took %.2f–%.2f× its median (%s)",
		len(cs), lo, hi, report.HumanMicros(kernel))
	if rlo <= rhi {
		line += fmt.Sprintf(", the round trip %.2f–%.2f× its target's median", rlo, rhi)
	}
	n := len(d.Void())
	switch n {
	case 0:
		return line + fmt.Sprintf("; no run void (bound ±%.0f %%)", controlBound*100)
	case 1:
		return line + fmt.Sprintf("; 1 run void (beyond ±%.0f %%), left out of every figure", controlBound*100)
	}
	return line + fmt.Sprintf("; %d runs void (beyond ±%.0f %%), left out of every figure", n, controlBound*100)
}
