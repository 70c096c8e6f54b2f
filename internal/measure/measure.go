// Package measure records operation latencies in per-worker HDR histograms,
// merges them, and keeps a per-interval time series.
//
// Each worker owns a Recorder; recording takes an uncontended mutex and
// allocates nothing. A Registry ticks all recorders (swapping their interval
// histograms) and merges the cumulative ones at the end. Values are
// nanoseconds; percentiles are always read from merged histograms, never
// averaged.
package measure

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

const (
	lowest  = 1                // 1 ns
	highest = int64(time.Hour) // longest recordable latency
	sigfigs = 3                // 0.1% value precision
	maxErrs = 5                // distinct error messages kept per operation
	maxLen  = 500              // longest error message kept (the cause comes first)
)

// NewHistogram returns an empty latency histogram in docbench's geometry.
func NewHistogram() *hdr.Histogram { return hdr.New(lowest, highest, sigfigs) }

func record(h *hdr.Histogram, d time.Duration) {
	v := int64(d)
	if v < 0 {
		v = 0
	} else if v > highest {
		v = highest
	}
	_ = h.RecordValue(v)
}

// Registry owns the recorders of one phase.
type Registry struct {
	names    []string
	intended bool

	mu        sync.Mutex
	recorders []*Recorder
	errs      [][]ErrorCount // per op, merged at Tick and Finish
}

// ErrorCount is a distinct error message and how often it occurred.
type ErrorCount struct {
	Message string `json:"message"`
	Count   int64  `json:"count"`
}

// NewRegistry prepares recording for the named operations. With intended,
// response time from each operation's intended start is recorded as well.
func NewRegistry(names []string, intended bool) *Registry {
	return &Registry{names: names, intended: intended, errs: make([][]ErrorCount, len(names))}
}

// Names returns the operation names in index order.
func (r *Registry) Names() []string { return r.names }

// Intended reports whether response times from intended starts are recorded.
func (r *Registry) Intended() bool { return r.intended }

// NewRecorder returns a recorder for one worker.
func (r *Registry) NewRecorder() *Recorder {
	n := len(r.names)
	rec := &Recorder{
		service:  make([]*hdr.Histogram, n),
		interval: make([]*hdr.Histogram, n),
		errors:   make([]int64, n),
		ivErrors: make([]int64, n),
		msgs:     make([][]ErrorCount, n),
	}
	for i := range n {
		rec.service[i] = NewHistogram()
		rec.interval[i] = NewHistogram()
	}
	if r.intended {
		rec.response = make([]*hdr.Histogram, n)
		for i := range n {
			rec.response[i] = NewHistogram()
		}
	}
	r.mu.Lock()
	r.recorders = append(r.recorders, rec)
	r.mu.Unlock()
	return rec
}

// Recorder collects one worker's measurements.
type Recorder struct {
	mu       sync.Mutex
	service  []*hdr.Histogram // cumulative service time per op
	response []*hdr.Histogram // cumulative response time from intended start (open loop)
	interval []*hdr.Histogram // since the last tick (response time if open loop)
	errors   []int64
	ivErrors []int64
	msgs     [][]ErrorCount
	paused   bool
}

// Record adds one operation: its service time, and under a target rate its
// response time measured from the intended start. A failed operation is
// counted as an error and its latency is not recorded.
func (r *Recorder) Record(op int, service, response time.Duration, err error) {
	r.mu.Lock()
	if r.paused {
		r.mu.Unlock()
		return
	}
	if err != nil {
		r.errors[op]++
		r.ivErrors[op]++
		r.keepError(op, err)
		r.mu.Unlock()
		return
	}
	record(r.service[op], service)
	if r.response != nil {
		record(r.response[op], response)
		record(r.interval[op], response)
	} else {
		record(r.interval[op], service)
	}
	r.mu.Unlock()
}

func (r *Recorder) keepError(op int, err error) {
	msg := err.Error()
	if len(msg) > maxLen {
		msg = msg[:maxLen]
	}
	for i := range r.msgs[op] {
		if r.msgs[op][i].Message == msg {
			r.msgs[op][i].Count++
			return
		}
	}
	if len(r.msgs[op]) < maxErrs {
		r.msgs[op] = append(r.msgs[op], ErrorCount{Message: msg, Count: 1})
	}
}

// Reset discards everything recorded so far (used at the end of warm-up).
func (r *Recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.service {
		r.service[i].Reset()
		r.interval[i].Reset()
		if r.response != nil {
			r.response[i].Reset()
		}
		r.errors[i] = 0
		r.ivErrors[i] = 0
		r.msgs[i] = r.msgs[i][:0]
	}
}

// Reset discards everything recorded so far by every recorder.
func (r *Registry) Reset() {
	r.mu.Lock()
	recs := append([]*Recorder(nil), r.recorders...)
	r.mu.Unlock()
	for _, rec := range recs {
		rec.reset()
	}
}

// Interval is the merged measurement of one tick interval.
type Interval struct {
	Start, End time.Time
	Ops        []*hdr.Histogram // per op; response time under a target rate
	Errors     []int64
}

// Count returns all successful and failed operations of the interval.
func (iv *Interval) Count() int64 {
	var n int64
	for i, h := range iv.Ops {
		n += h.TotalCount() + iv.Errors[i]
	}
	return n
}

// Tick swaps every recorder's interval histograms and returns their merge.
// It is called by one goroutine (the runner's ticker).
func (r *Registry) Tick(start, end time.Time) Interval {
	iv := Interval{Start: start, End: end, Ops: make([]*hdr.Histogram, len(r.names)), Errors: make([]int64, len(r.names))}
	for i := range iv.Ops {
		iv.Ops[i] = NewHistogram()
	}
	r.mu.Lock()
	recs := append([]*Recorder(nil), r.recorders...)
	r.mu.Unlock()
	for _, rec := range recs {
		rec.mu.Lock()
		for i, h := range rec.interval {
			iv.Ops[i].Merge(h)
			h.Reset()
			iv.Errors[i] += rec.ivErrors[i]
			rec.ivErrors[i] = 0
		}
		rec.mu.Unlock()
	}
	return iv
}

// Totals is the merged measurement of a whole phase.
type Totals struct {
	Service  []*hdr.Histogram
	Response []*hdr.Histogram // nil unless intended
	Errors   []int64
	Messages [][]ErrorCount
}

// Totals merges every recorder's cumulative histograms. Recorders stop
// recording afterwards.
func (r *Registry) Totals() Totals {
	n := len(r.names)
	t := Totals{Service: make([]*hdr.Histogram, n), Errors: make([]int64, n), Messages: make([][]ErrorCount, n)}
	for i := range n {
		t.Service[i] = NewHistogram()
	}
	if r.intended {
		t.Response = make([]*hdr.Histogram, n)
		for i := range n {
			t.Response[i] = NewHistogram()
		}
	}
	r.mu.Lock()
	recs := append([]*Recorder(nil), r.recorders...)
	r.mu.Unlock()
	for _, rec := range recs {
		rec.mu.Lock()
		rec.paused = true
		for i := range n {
			t.Service[i].Merge(rec.service[i])
			if r.intended {
				t.Response[i].Merge(rec.response[i])
			}
			t.Errors[i] += rec.errors[i]
			for _, m := range rec.msgs[i] {
				t.Messages[i] = addMessage(t.Messages[i], m)
			}
		}
		rec.mu.Unlock()
	}
	return t
}

func addMessage(list []ErrorCount, m ErrorCount) []ErrorCount {
	for i := range list {
		if list[i].Message == m.Message {
			list[i].Count += m.Count
			return list
		}
	}
	if len(list) < maxErrs {
		list = append(list, m)
	}
	return list
}
