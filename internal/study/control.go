package study

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/report"
)

// The machine-speed control taken before each measured run of a study
// (report.Control): a fixed client-side CPU kernel and the cheapest round
// trip to the target. A run whose kernel moved more than controlBound
// from the study's median is void (voids). The round trip is recorded,
// and its drift stated, but voids nothing: on a shared 2-CPU VM its
// median moves by a third between calls seconds apart (the server's
// process changing CPUs), far beyond any bound a run could be held to.
const (
	controlBound = 0.10 // a run's kernel within ±10 % of the study's median
	// The kernel: the fastest of kernelPasses passes of kernelHashes
	// SHA-256 sums of a fixed kernelBytes buffer (1 MiB a pass, 15 MiB in
	// all: about 0.7 ms a pass on the 2-CPU VMs docbench is developed on).
	// The fastest pass is the machine's speed without the interruptions a
	// busy scheduler adds, which a median of a few passes is not.
	kernelBytes  = 64 << 10
	kernelHashes = 16
	kernelPasses = 15
	// The round trip: roundTripWarm untimed calls, then the median of
	// roundTripCalls timed ones.
	roundTripWarm  = 5
	roundTripCalls = 31
	// controlEnv set to "off" takes no control (docbench's own tests, whose
	// runs and figures must not depend on the machine's speed).
	controlEnv = "DOCBENCH_CONTROL"
)

// controlKernel times the fixed CPU kernel: the fastest of kernelPasses
// passes, in µs.
func controlKernel() float64 {
	buf := make([]byte, kernelBytes)
	for i := range buf {
		buf[i] = byte(i * 31)
	}
	fastest := math.Inf(1)
	for range kernelPasses {
		start := time.Now()
		for range kernelHashes {
			sum := sha256.Sum256(buf)
			buf[0] = sum[0] // each sum depends on the last: nothing to elide
		}
		fastest = min(fastest, float64(time.Since(start).Nanoseconds())/1e3)
	}
	return fastest
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

// takeControl takes the control before a measured run on store; nil
// when controlEnv turns it off.
func takeControl(ctx context.Context, store db.Store) *report.Control {
	if os.Getenv(controlEnv) == "off" {
		return nil
	}
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

// controlMoved says how control c's kernel moved beyond controlBound
// from the median kernel time (0: none to compare with), "" when it did
// not; of ends the median's name ("the study's median" + of).
func controlMoved(c *report.Control, kernel float64, of string) string {
	if x := c.KernelUS / kernel; kernel > 0 && math.Abs(x-1) > controlBound {
		return fmt.Sprintf("the client kernel took %.2f× the study's median%s (bound ±%.0f %%)", x, of, controlBound*100)
	}
	return ""
}

// controlLog keeps the kernel times a study has taken so far, as it
// runs.
type controlLog struct{ kernels []float64 }

func (l *controlLog) add(c *report.Control) { l.kernels = append(l.kernels, c.KernelUS) }

// moved says how c's kernel moved beyond controlBound from the median of
// the kernels so far (minControls of them at least); "" when it did not.
func (l *controlLog) moved(c *report.Control) string {
	if len(l.kernels) < minControls {
		return ""
	}
	return controlMoved(c, median(l.kernels), " so far")
}

// voids are the study's void runs, by result file, each with why: those
// found void as the study ran (Run.Void, run again), and those whose
// kernel moved more than controlBound from the study's median.
func (d *Data) voids() map[string]string {
	runs, cs := d.controlled()
	kernel, _ := controlMedians(runs, cs)
	out := map[string]string{}
	for i, c := range cs {
		run := runs[i]
		where := fmt.Sprintf("%s %s at %s round %d: void, ", run.Target, run.Workload, pointID(run.Point), run.Round)
		if run.Void != "" {
			out[run.File] = where + run.Void + "; run again"
		} else if why := controlMoved(c, kernel, ""); why != "" {
			out[run.File] = where + why
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
