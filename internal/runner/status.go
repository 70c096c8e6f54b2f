package runner

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/docbench/docbench/internal/measure"
)

// status prints a line every Options.Status on stderr (elapsed,
// operations and failures, current ops/s, the share done and the time
// left when the end is known, p99 per operation labelled service or
// intended), or a progress bar while loading on a terminal.
type status struct {
	w        io.Writer
	phase    Phase
	every    time.Duration
	bar      bool
	total    int64         // operations (records) the phase issues; math.MaxInt64: no count
	duration time.Duration // the phase's duration limit; 0: none
	latency  string        // what the p99 measures: "service" or "intended"
	names    []string
	start    time.Time
	lastLine time.Time
	lastOps  int64
	failed   int64            // failed operations so far
	acc      []*hdr.Histogram // merged since the last status line
	reg      *measure.Registry
}

func newStatus(o Options, reg *measure.Registry, total int64) *status {
	s := &status{w: o.Stderr, phase: o.Phase, every: o.Status, bar: o.Progress && o.Phase == Load,
		total: total, duration: o.Duration, latency: "service", names: reg.Names(), start: time.Now(), reg: reg}
	if o.Rate > 0 {
		s.latency = "intended" // the interval histograms hold the latency from each intended start
	}
	s.lastLine = s.start
	s.acc = make([]*hdr.Histogram, len(s.names))
	for i := range s.acc {
		s.acc[i] = measure.NewHistogram()
	}
	return s
}

func (s *status) line(format string, args ...any) {
	if s.w != nil {
		fmt.Fprintf(s.w, format+"\n", args...)
	}
}

// begin marks the start of the measured part and, when both a count and a
// duration bound the phase, says which ends it: the first reached.
func (s *status) begin(now time.Time, count string) {
	s.start, s.lastLine = now, now
	if s.total < math.MaxInt64 && s.duration > 0 {
		s.line("the %s ends at %s=%d or after %s, whichever comes first (-p %s=0 runs for the whole duration)",
			s.phase, count, s.total, s.duration, count)
	}
}

func (s *status) tick(iv measure.Interval, ops int64) {
	if s.w == nil {
		return
	}
	for i := range iv.Ops {
		s.acc[i].Merge(s.reg.Merged(i))
	}
	s.failed += iv.Failed()
	now := iv.End
	if s.bar {
		s.drawBar(now, ops)
		return
	}
	// The ticks come about once a second: a tick a little early still
	// prints its line, rather than one line every two seconds.
	if s.every <= 0 || now.Sub(s.lastLine) < s.every-s.every/10 {
		return
	}
	s.printLine(now, ops)
}

func (s *status) printLine(now time.Time, ops int64) {
	secs := now.Sub(s.lastLine).Seconds()
	rate := float64(ops-s.lastOps) / secs
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d operations", now.Format("2006-01-02 15:04:05"), fmtElapsed(now.Sub(s.start)), ops)
	if s.failed > 0 {
		fmt.Fprintf(&b, " (%d failed)", s.failed)
	}
	fmt.Fprintf(&b, "; %.1f current ops/sec", rate)
	if done, left, ok := s.progress(now, ops); ok {
		fmt.Fprintf(&b, "; %.0f%% done, %s left", done*100, left.Round(time.Second))
	}
	for i, h := range s.acc {
		if h.TotalCount() == 0 {
			continue
		}
		fmt.Fprintf(&b, "; [%s %s p99=%.0fus]", s.names[i], s.latency, float64(h.ValueAtQuantile(99))/1e3)
		h.Reset()
	}
	fmt.Fprintln(s.w, b.String())
	s.lastLine, s.lastOps = now, ops
}

// progress returns the share of the phase done and the time left, when a
// count or a duration bounds it; with both, the one nearer its end.
func (s *status) progress(now time.Time, ops int64) (done float64, left time.Duration, ok bool) {
	el := now.Sub(s.start)
	if s.total < math.MaxInt64 && s.total > 0 && ops > 0 {
		done = min(float64(ops)/float64(s.total), 1)
		left = time.Duration(float64(el) * (1 - done) / done)
		ok = true
	}
	if s.duration > 0 {
		if d := min(float64(el)/float64(s.duration), 1); !ok || d > done {
			done, left, ok = d, max(s.duration-el, 0), true
		}
	}
	return done, left, ok
}

func (s *status) drawBar(now time.Time, ops int64) {
	const width = 30
	frac := 0.0
	if s.total > 0 {
		frac = min(float64(ops)/float64(s.total), 1)
	}
	el := now.Sub(s.start)
	rate := float64(ops) / el.Seconds()
	eta := "?"
	if rate > 0 && s.total > ops {
		eta = (time.Duration(float64(s.total-ops)/rate) * time.Second).Round(time.Second).String()
	}
	fill := int(frac * width)
	fmt.Fprintf(s.w, "\rloading [%s%s] %3.0f%% %d/%d  %.0f rec/s  ETA %s   ",
		strings.Repeat("=", fill), strings.Repeat(" ", width-fill), frac*100, ops, s.total, rate, eta)
}

func (s *status) finish(ops int64) {
	if s.w == nil {
		return
	}
	if s.bar {
		s.drawBar(time.Now(), ops)
		fmt.Fprintln(s.w)
	}
}

func fmtElapsed(d time.Duration) string {
	return fmt.Sprintf("%d sec", int64(d.Seconds()))
}
