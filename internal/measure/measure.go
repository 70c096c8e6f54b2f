// Package measure records operation latencies in per-worker HDR histograms,
// merges them, and keeps a per-interval time series.
//
// Each worker owns a Recorder; recording takes an uncontended mutex. A
// worker's histograms are sparse (HdrHistogram's PackedHistogram: memory
// follows the buckets populated, not the 1 ns–1 h range) and made on the
// first record of each operation type, so a run's memory follows its
// threads × the operations its mix runs. Recording allocates only when a
// histogram's storage grows (a new bucket past its capacity, or a count
// past 255, 65,535 or 2³²), which settles within the first intervals:
// Reset keeps the storage. A Registry ticks all recorders (swapping their
// interval histograms) and merges them exactly into dense histograms of the
// same geometry: the interval's, and the phase's cumulative one, so that a
// closed-loop worker records each operation once. Values are nanoseconds;
// percentiles are always read from merged histograms, never averaged.
package measure

import (
	"encoding/base64"
	"errors"
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

// NewPacked returns an empty sparse histogram in docbench's geometry, the
// kind a worker records into: its memory follows the buckets populated,
// and merged into a NewHistogram it adds exactly the same counts.
func NewPacked() *hdr.PackedHistogram { return hdr.NewPacked(lowest, highest, sigfigs) }

func record(h *hdr.PackedHistogram, d time.Duration) {
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
	notFound error // errors.Is(err, notFound) counts as YCSB's NOT_FOUND

	mu        sync.Mutex
	recorders []*Recorder

	// merged holds the last Tick's merge per op, reused every tick.
	merged []*hdr.Histogram
	full   []*hdr.PackedHistogram // Tick's copy of a recorder's interval histograms
	// ticked holds, per op, every interval Tick has closed since the start
	// (or Reset): the phase's cumulative histogram of what intervals hold
	// (response time if intended, else service time), so that a worker
	// records each operation once in closed loop. Only Tick's goroutine
	// touches it.
	ticked []*hdr.Histogram
}

// ErrorCount is a distinct error message and how often it occurred.
type ErrorCount struct {
	Message string `json:"message"`
	Count   int64  `json:"count"`
}

// NewRegistry prepares recording for the named operations. With intended,
// response time from each operation's intended start is recorded as well.
func NewRegistry(names []string, intended bool) *Registry {
	r := &Registry{names: names, intended: intended, merged: make([]*hdr.Histogram, len(names)),
		full: make([]*hdr.PackedHistogram, len(names)), ticked: make([]*hdr.Histogram, len(names))}
	for i := range r.merged {
		r.merged[i], r.ticked[i] = NewHistogram(), NewHistogram()
	}
	return r
}

// CountNotFound makes failures that are errors.Is(err, target) count as
// "not found" (YCSB's Return=NOT_FOUND) beside the other errors. Call it
// before NewRecorder.
func (r *Registry) CountNotFound(target error) { r.notFound = target }

// Names returns the operation names in index order.
func (r *Registry) Names() []string { return r.names }

// NewRecorder returns a recorder for one worker.
func (r *Registry) NewRecorder() *Recorder {
	n := len(r.names)
	rec := &Recorder{
		interval: make([]*hdr.PackedHistogram, n),
		spare:    make([]*hdr.PackedHistogram, n),
		failed:   make([]*hdr.PackedHistogram, n),
		errors:   make([]int64, n),
		notFound: make([]int64, n),
		rows:     make([]int64, n),
		ivErrors: make([]int64, n),
		msgs:     make([][]ErrorCount, n),
		nf:       r.notFound,
	}
	if r.intended {
		rec.service = make([]*hdr.PackedHistogram, n)
		rec.failedResponse = make([]*hdr.PackedHistogram, n)
	}
	r.mu.Lock()
	r.recorders = append(r.recorders, rec)
	r.mu.Unlock()
	return rec
}

// Recorder collects one worker's measurements.
type Recorder struct {
	mu sync.Mutex
	// Per op, sparse, and nil until the op's first successful record (add).
	// What intervals hold accumulates in the Registry as they are ticked.
	interval []*hdr.PackedHistogram // since the last tick: response time if open loop, else service time
	spare    []*hdr.PackedHistogram // the other interval buffer: swapped in at each tick
	service  []*hdr.PackedHistogram // open loop only: cumulative service time
	// failed and failedResponse time the failed operations per op (as
	// YCSB's [OP-FAILED] blocks do); an op's histogram is made at its
	// first failure, so a run without failures pays nothing for them.
	failed         []*hdr.PackedHistogram
	failedResponse []*hdr.PackedHistogram
	errors         []int64
	notFound       []int64 // the part of errors that were "not found"
	rows           []int64 // rows (documents or groups) the successful queries returned
	ivErrors       []int64
	msgs           [][]ErrorCount
	nf             error
	paused         bool
}

// Record adds one operation: its service time, and under a target rate its
// response time measured from the intended start. A failed operation is
// counted as an error and its latency recorded apart from the successful
// ones' (the first failure of an op allocates its histograms).
func (r *Recorder) Record(op int, service, response time.Duration, err error) {
	r.RecordRows(op, service, response, err, 0)
}

// RecordRows is Record of a query that returned rows (documents or
// groups): a successful one adds them to op's rows, under the same lock.
func (r *Recorder) RecordRows(op int, service, response time.Duration, err error, rows int) {
	r.mu.Lock()
	if r.paused {
		r.mu.Unlock()
		return
	}
	if err != nil {
		r.errors[op]++
		r.ivErrors[op]++
		if r.nf != nil && errors.Is(err, r.nf) {
			r.notFound[op]++
		}
		r.keepError(op, err)
		if r.failed[op] == nil {
			r.failed[op] = NewPacked()
		}
		record(r.failed[op], service)
		if r.failedResponse != nil {
			if r.failedResponse[op] == nil {
				r.failedResponse[op] = NewPacked()
			}
			record(r.failedResponse[op], response)
		}
		r.mu.Unlock()
		return
	}
	r.rows[op] += int64(rows)
	if r.interval[op] == nil {
		r.add(op)
	}
	if r.service != nil {
		record(r.service[op], service)
		record(r.interval[op], response)
	} else {
		record(r.interval[op], service)
	}
	r.mu.Unlock()
}

// add makes op's histograms, on its first successful record: a worker
// holds histograms only for the operations it runs. Called under r.mu.
func (r *Recorder) add(op int) {
	r.interval[op], r.spare[op] = NewPacked(), NewPacked()
	if r.service != nil {
		r.service[op] = NewPacked()
	}
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
	for i := range r.interval {
		if r.interval[i] != nil {
			r.interval[i].Reset()
			r.spare[i].Reset()
			if r.service != nil {
				r.service[i].Reset()
			}
		}
		if r.failed[i] != nil {
			r.failed[i].Reset()
		}
		if r.failedResponse != nil && r.failedResponse[i] != nil {
			r.failedResponse[i].Reset()
		}
		r.errors[i] = 0
		r.notFound[i] = 0
		r.rows[i] = 0
		r.ivErrors[i] = 0
		r.msgs[i] = r.msgs[i][:0]
	}
}

// Reset discards everything recorded so far by every recorder. It runs on
// Tick's goroutine while no operation is under way.
func (r *Registry) Reset() {
	for _, h := range r.ticked {
		h.Reset()
	}
	for _, rec := range r.snapshot() {
		rec.reset()
	}
}

func (r *Registry) snapshot() []*Recorder {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Recorder(nil), r.recorders...)
}

// Interval is the summary of one tick interval: a fixed size per operation
// whatever the run's length (the full distributions go to an HDR log).
type Interval struct {
	Start, End time.Time
	Ops        []OpInterval // per op, in Names order
	// Encoded holds, only when asked for (a shard's run, whose results
	// are merged second by second), each op's interval histogram in
	// HdrHistogram's V2 compressed encoding, base64; "" when empty.
	Encoded []string
}

// OpInterval summarises one operation in one interval. Latencies are in
// nanoseconds (response time under a target rate) and read from the
// interval's merged histogram.
type OpInterval struct {
	Count  int64 // successful operations
	Errors int64 // failed operations
	P50    int64
	P99    int64
	Max    int64
}

// Count returns all successful and failed operations of the interval.
func (iv *Interval) Count() int64 {
	var n int64
	for _, o := range iv.Ops {
		n += o.Count + o.Errors
	}
	return n
}

// Succeeded returns the successful operations of the interval.
func (iv *Interval) Succeeded() int64 {
	var n int64
	for _, o := range iv.Ops {
		n += o.Count
	}
	return n
}

// Failed returns the failed operations of the interval.
func (iv *Interval) Failed() int64 {
	var n int64
	for _, o := range iv.Ops {
		n += o.Errors
	}
	return n
}

// Tick closes the current interval of every recorder and returns its
// summary. Each recorder's interval histograms are double-buffered: the
// tick swaps in the (empty) spare under the recorder's lock, merges the
// swapped-out one without holding it, and keeps it as the next spare, so
// ticking allocates no histogram. The merged histograms stay readable
// through Merged until the next Tick. One goroutine calls Tick.
func (r *Registry) Tick(start, end time.Time) Interval {
	iv := Interval{Start: start, End: end, Ops: make([]OpInterval, len(r.names))}
	for _, h := range r.merged {
		if h.TotalCount() > 0 {
			h.Reset()
		}
	}
	full := r.full
	for _, rec := range r.snapshot() {
		rec.mu.Lock()
		copy(full, rec.interval)
		rec.interval, rec.spare = rec.spare, rec.interval
		for i := range iv.Ops {
			iv.Ops[i].Errors += rec.ivErrors[i]
			rec.ivErrors[i] = 0
		}
		rec.mu.Unlock()
		// full's histograms are now the recorder's spares: only Tick and
		// reset touch them, and reset runs while no operation and no tick
		// is under way. (full is a copy: add may fill the recorder's slices
		// meanwhile.)
		for i, h := range full {
			if h != nil {
				h.MergeInto(r.merged[i])
				h.MergeInto(r.ticked[i])
				h.Reset()
			}
		}
	}
	for i, h := range r.merged {
		o := &iv.Ops[i]
		o.Count = h.TotalCount()
		if o.Count > 0 {
			o.P50, o.P99, o.Max = h.ValueAtQuantile(50), h.ValueAtQuantile(99), h.Max()
		}
	}
	return iv
}

// EncodeMerged returns op's merged histogram of the last Tick in
// HdrHistogram's V2 compressed encoding, base64 ("" when empty).
func (r *Registry) EncodeMerged(op int) string {
	h := r.merged[op]
	if h.TotalCount() == 0 {
		return ""
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(b)
}

// Merged returns op's merged histogram of the last Tick. It is reused by
// the next Tick: read it before then, never keep it.
func (r *Registry) Merged(op int) *hdr.Histogram { return r.merged[op] }

// Totals is the merged measurement of a whole phase.
type Totals struct {
	Service  []*hdr.Histogram
	Response []*hdr.Histogram // nil unless intended
	// Failed and FailedResponse time the failed operations (service time,
	// and response time when intended); an op without failures has nil.
	Failed         []*hdr.Histogram
	FailedResponse []*hdr.Histogram // nil unless intended
	Errors         []int64
	NotFound       []int64 // the part of Errors that were "not found"
	Rows           []int64 // rows the successful queries returned (RecordRows)
	Messages       [][]ErrorCount
}

// Failures returns the errors counted so far per op and their first
// distinct messages, without stopping the recorders (the warm-up's are
// read this way before Reset).
func (r *Registry) Failures() (errs []int64, msgs [][]ErrorCount) {
	n := len(r.names)
	errs, msgs = make([]int64, n), make([][]ErrorCount, n)
	for _, rec := range r.snapshot() {
		rec.mu.Lock()
		for i := range n {
			errs[i] += rec.errors[i]
			for _, m := range rec.msgs[i] {
				msgs[i] = addMessage(msgs[i], m)
			}
		}
		rec.mu.Unlock()
	}
	return errs, msgs
}

// Totals merges every recorder's cumulative histograms, and the intervals
// ticked with those not yet ticked. Recorders stop recording afterwards.
// It runs on Tick's goroutine.
func (r *Registry) Totals() Totals {
	n := len(r.names)
	t := Totals{Service: make([]*hdr.Histogram, n), Failed: make([]*hdr.Histogram, n), Errors: make([]int64, n),
		NotFound: make([]int64, n), Rows: make([]int64, n), Messages: make([][]ErrorCount, n)}
	ivs := t.Service // what intervals hold
	if r.intended {
		t.Response = make([]*hdr.Histogram, n)
		t.FailedResponse = make([]*hdr.Histogram, n)
		for i := range n {
			t.Service[i] = NewHistogram()
		}
		ivs = t.Response
	}
	for i := range n {
		ivs[i] = NewHistogram()
		ivs[i].Merge(r.ticked[i])
	}
	for _, rec := range r.snapshot() {
		rec.mu.Lock()
		rec.paused = true
		for i := range n {
			if rec.interval[i] != nil {
				rec.interval[i].MergeInto(ivs[i])
				if r.intended {
					rec.service[i].MergeInto(t.Service[i])
				}
			}
			if r.intended {
				t.FailedResponse[i] = mergeInto(t.FailedResponse[i], rec.failedResponse[i])
			}
			t.Failed[i] = mergeInto(t.Failed[i], rec.failed[i])
			t.Errors[i] += rec.errors[i]
			t.NotFound[i] += rec.notFound[i]
			t.Rows[i] += rec.rows[i]
			for _, m := range rec.msgs[i] {
				t.Messages[i] = addMessage(t.Messages[i], m)
			}
		}
		rec.mu.Unlock()
	}
	return t
}

// mergeInto merges h into dst, making dst at the first h that is not nil.
func mergeInto(dst *hdr.Histogram, h *hdr.PackedHistogram) *hdr.Histogram {
	if h == nil {
		return dst
	}
	if dst == nil {
		dst = NewHistogram()
	}
	h.MergeInto(dst)
	return dst
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
