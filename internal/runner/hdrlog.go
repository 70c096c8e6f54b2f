package runner

import (
	"bufio"
	"io"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/docbench/docbench/internal/measure"
)

// hdrLog streams every interval's histograms to an HdrHistogram interval
// log (.hlog, format 1.3 as HistogramLogWriter writes it), one tagged
// histogram per operation and interval, so that HdrHistogram's log tools
// (HistogramLogProcessor, HdrHistogram's log readers) read it.
type hdrLog struct {
	buf   *bufio.Writer
	lw    *hdr.HistogramLogWriter
	names []string
	base  time.Time
}

// newHdrLog starts a log on w; nil when w is nil.
func newHdrLog(w io.Writer, names []string) (*hdrLog, error) {
	if w == nil {
		return nil, nil
	}
	buf := bufio.NewWriter(w)
	l := &hdrLog{buf: buf, lw: hdr.NewHistogramLogWriter(buf), names: names}
	if err := l.lw.OutputComment("Logged with docbench; one histogram per operation (tag) and interval; values in nanoseconds"); err != nil {
		return nil, err
	}
	if err := l.lw.OutputLogFormatVersion(); err != nil {
		return nil, err
	}
	return l, nil
}

// start writes the log's start and base time: interval timestamps are
// seconds from the start of the measured part.
func (l *hdrLog) start(base time.Time) {
	if l == nil {
		return
	}
	l.base = base
	ms := base.UnixMilli()
	l.lw.SetBaseTime(ms)
	_ = l.lw.OutputStartTime(ms)
	_ = l.lw.OutputBaseTime(ms)
	_ = l.lw.OutputLegend()
}

// write logs the histograms of the interval just ticked (non-empty ones)
// and flushes them, so the file grows as the run goes.
func (l *hdrLog) write(reg *measure.Registry, from, to time.Time) error {
	if l == nil {
		return nil
	}
	for i, name := range l.names {
		h := reg.Merged(i)
		if h.TotalCount() == 0 {
			continue
		}
		h.SetTag(name)
		h.SetStartTimeMs(from.UnixMilli())
		h.SetEndTimeMs(to.UnixMilli())
		if err := l.lw.OutputIntervalHistogram(h); err != nil {
			return err
		}
	}
	return l.buf.Flush()
}

func (l *hdrLog) close() error {
	if l == nil {
		return nil
	}
	return l.buf.Flush()
}
