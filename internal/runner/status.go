package runner

import (
	"fmt"
	"io"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/docbench/docbench/internal/measure"
)

// status prints a line every Options.Status on stderr (elapsed, ops,
// current ops/s, p99 per operation), or a progress bar while loading on a
// terminal.
type status struct {
	w        io.Writer
	phase    Phase
	every    time.Duration
	bar      bool
	total    int64
	names    []string
	start    time.Time
	lastLine time.Time
	lastOps  int64
	acc      []*hdr.Histogram // merged since the last status line
	reg      *measure.Registry
}

func newStatus(o Options, reg *measure.Registry, total int64) *status {
	s := &status{w: o.Stderr, phase: o.Phase, every: o.Status, bar: o.Progress && o.Phase == Load,
		total: total, names: reg.Names(), start: time.Now(), reg: reg}
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

func (s *status) tick(iv measure.Interval, ops int64) {
	if s.w == nil {
		return
	}
	for i := range iv.Ops {
		s.acc[i].Merge(s.reg.Merged(i))
	}
	now := iv.End
	if s.bar {
		s.drawBar(now, ops)
		return
	}
	if s.every <= 0 || now.Sub(s.lastLine) < s.every {
		return
	}
	s.printLine(now, ops)
}

func (s *status) printLine(now time.Time, ops int64) {
	secs := now.Sub(s.lastLine).Seconds()
	rate := float64(ops-s.lastOps) / secs
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d ops; %.1f current ops/sec", now.Format("2006-01-02 15:04:05"),
		fmtElapsed(now.Sub(s.start)), ops, rate)
	for i, h := range s.acc {
		if h.TotalCount() == 0 {
			continue
		}
		fmt.Fprintf(&b, "; [%s p99=%.0fus]", s.names[i], float64(h.ValueAtQuantile(99))/1e3)
		h.Reset()
	}
	fmt.Fprintln(s.w, b.String())
	s.lastLine, s.lastOps = now, ops
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
