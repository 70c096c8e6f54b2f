// Package report turns measured outcomes into results: the versioned JSON
// document (docs/results-format.md), YCSB's text report and docbench's own
// human-readable text.
package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/probe"
)

// Schema identifies the results format version.
const Schema = "docbench/result/v1"

// Result is one phase run against one target.
type Result struct {
	Schema   string `json:"schema"`
	Tool     Tool   `json:"tool"`
	Phase    string `json:"phase"`
	Complete bool   `json:"complete"`
	// Failed marks a phase that failed (Error says why): too many failed
	// operations, a failure streak or a panic.
	Failed bool `json:"failed,omitempty"`
	// Quick marks a phase of a study run with --quick: a smoke test, not
	// figures to quote.
	Quick   bool   `json:"quick,omitempty"`
	Stopped string `json:"stopped,omitempty"`
	// EndedBy names the limit that ended the phase: "operationcount" (a
	// run), "insertcount" (a load), "duration" or "interrupted".
	EndedBy     string       `json:"ended_by,omitempty"`
	Error       string       `json:"error,omitempty"`
	Target      Target       `json:"target"`
	Environment Environment  `json:"environment"`
	Workload    Workload     `json:"workload"`
	Options     PhaseOptions `json:"options"`
	Start       time.Time    `json:"start"`
	End         time.Time    `json:"end"`
	RuntimeMS   float64      `json:"runtime_ms"`
	// Operations counts every operation issued, failed ones included;
	// Throughput counts only the successful ones.
	Operations int64   `json:"operations"`
	Throughput float64 `json:"throughput_ops_per_sec"`
	// Errors counts failed operations (records of failed batches),
	// ErrorsPerSec them per second and ErrorShare their share of Operations.
	Errors        int64   `json:"errors"`
	ErrorsPerSec  float64 `json:"errors_per_sec"`
	ErrorShare    float64 `json:"error_share"`
	MaxErrorShare float64 `json:"max_error_share,omitempty"`
	// Warmup is what the discarded warm-up did.
	Warmup *Warmup `json:"warmup,omitempty"`
	// Thresholds are the pass/fail criteria evaluated on this result.
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`
	Ops        []Op              `json:"ops"`
	Series     []Second          `json:"series"`
	Notes      []string          `json:"notes,omitempty"`
	Extra      map[string]string `json:"extra,omitempty"`
	// Server is the server's own view of the phase (internal/probe).
	Server *probe.Server `json:"server,omitempty"`
	// Audit classifies the target for the fairness audit.
	Audit *db.Audit `json:"audit,omitempty"`
	// Shard is set on the result of one shard (--shard, --start-at).
	Shard *Shard `json:"shard,omitempty"`
	// Shards is set on a merged result: one entry per shard merged.
	Shards []ShardSummary `json:"shards,omitempty"`
	// ScheduleLag is the harness's own lateness in starting operations
	// (open loop only).
	ScheduleLag *ScheduleLag `json:"schedule_lag,omitempty"`
	// LatencyLimit is what --latency-limit found.
	LatencyLimit *LatencyLimit `json:"latency_limit,omitempty"`
	// Capacity is set on a capacity search's result (phase "capacity").
	Capacity *Capacity `json:"capacity,omitempty"`
	// Control is the machine-speed control a study takes just before a
	// measured run (absent elsewhere, and in results of earlier releases).
	Control *Control `json:"control,omitempty"`
	// Storage is, on a study's load of a study file with storage: true,
	// `docbench storage`'s figures of the loaded documents (its JSON's
	// target object; internal/storage reads it).
	Storage json.RawMessage `json:"storage,omitempty"`
}

// Control is a machine-speed control: a fixed client-side CPU kernel and
// the cheapest round trip to the server, timed before a measured run, so
// that a run on a machine slower than the study's others shows.
type Control struct {
	// KernelUS is the kernel's time in µs: the median of a few timings of
	// the same fixed work (SHA-256 over a fixed buffer).
	KernelUS float64 `json:"kernel_us"`
	// RoundTripUS is the median of a few dozen of the cheapest calls to
	// the server (SELECT 1, else a read of an absent key), in µs; absent
	// when none could be timed, RoundTripAbsent saying why.
	RoundTripUS     float64 `json:"round_trip_us,omitempty"`
	RoundTripAbsent string  `json:"round_trip_absent,omitempty"`
}

// Tool names the program that produced a result.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Revision is the version-control commit the binary was built from, and
	// Dirty says the tree had uncommitted changes; both absent when the build
	// carries no version-control information (go test, go run of a file).
	Revision string `json:"revision,omitempty"`
	Dirty    bool   `json:"dirty,omitempty"`
}

// Target is the database measured; the password is redacted.
type Target struct {
	Target   string            `json:"target"`
	Backend  string            `json:"backend"`
	Version  string            `json:"version,omitempty"`
	Settings map[string]string `json:"settings,omitempty"`
	Layout   map[string]string `json:"layout,omitempty"`
}

// Workload is what was run: the files in order and the effective properties.
type Workload struct {
	Files      []string          `json:"files"`
	Properties map[string]string `json:"properties"`
}

// PhaseOptions are the runner settings.
type PhaseOptions struct {
	Threads    int     `json:"threads"`
	TargetRate float64 `json:"target_ops_per_sec,omitempty"`
	DurationS  float64 `json:"duration_s,omitempty"`
	WarmupS    float64 `json:"warmup_s,omitempty"`
	Seed       uint64  `json:"seed"`
	BatchSize  int     `json:"batch_size,omitempty"`
}

// Warmup summarises the discarded warm-up: operations and failures.
type Warmup struct {
	Operations int64 `json:"operations"`
	Errors     int64 `json:"errors"`
	// Ops lists the operations that failed during the warm-up.
	Ops []WarmupOp `json:"ops,omitempty"`
}

// WarmupOp is one operation's failures during the warm-up.
type WarmupOp struct {
	Name     string               `json:"name"`
	Errors   int64                `json:"errors"`
	Messages []measure.ErrorCount `json:"error_messages,omitempty"`
}

// ThresholdResult is one evaluated threshold (see ParseThreshold).
type ThresholdResult struct {
	Threshold string  `json:"threshold"`
	Pass      bool    `json:"pass"`
	Value     float64 `json:"value"`
	Unit      string  `json:"unit"`
	// Absent says why the measured value does not exist (the threshold
	// then fails).
	Absent string `json:"absent,omitempty"`
}

// Op is the measurement of one operation type. Count is every operation
// issued; Errors the failed ones (NotFound those of them that found no
// record); Throughput counts only the successful ones.
type Op struct {
	Name         string   `json:"name"`
	Count        int64    `json:"count"`
	Errors       int64    `json:"errors"`
	NotFound     int64    `json:"not_found,omitempty"`
	ErrorsPerSec float64  `json:"errors_per_sec,omitempty"`
	ErrorShare   float64  `json:"error_share,omitempty"`
	Throughput   float64  `json:"throughput_ops_per_sec"`
	Service      *Latency `json:"service"`
	Response     *Latency `json:"response,omitempty"`
	// Failed and FailedResponse time the failed operations (service time,
	// and response time under a target rate); absent when none failed.
	Failed         *Latency             `json:"failed,omitempty"`
	FailedResponse *Latency             `json:"failed_response,omitempty"`
	Messages       []measure.ErrorCount `json:"error_messages,omitempty"`
	// Query is set on a secondary query's operation.
	Query *OpQuery `json:"query,omitempty"`
}

// OpQuery is what a query operation asked for and what it returned.
type OpQuery struct {
	Kind string `json:"kind"`
	// Limit is the most rows a call returns; 0: every match (no LIMIT).
	// An aggregate returns every group.
	Limit  int `json:"limit"`
	Offset int `json:"offset,omitempty"`
	// Rows counts the rows (documents, or an aggregate's groups) the
	// successful calls returned; RowsPerCall is their mean per call.
	Rows        int64   `json:"rows"`
	RowsPerCall float64 `json:"rows_per_call"`
}

// Page says in words what a call returns at most.
func (q *OpQuery) Page() string {
	switch {
	case q.Kind == "aggregate":
		return "every group"
	case q.Limit == 0 && q.Offset == 0:
		return "every match (no limit)"
	case q.Limit == 0:
		return fmt.Sprintf("every match after the first %d (offset)", q.Offset)
	case q.Offset == 0:
		return fmt.Sprintf("at most %d (limit)", q.Limit)
	}
	return fmt.Sprintf("at most %d after the first %d (limit, offset)", q.Limit, q.Offset)
}

// SetRows sets Rows and RowsPerCall over the calls that succeeded.
func (q *OpQuery) SetRows(rows, calls int64) {
	q.Rows, q.RowsPerCall = rows, 0
	if calls > 0 {
		q.RowsPerCall = float64(rows) / float64(calls)
	}
}

// Latency summarises a histogram in microseconds and carries it encoded
// (HdrHistogram V2 compressed, base64), so results can be merged exactly.
type Latency struct {
	Mean      float64 `json:"mean_us"`
	Min       float64 `json:"min_us"`
	Max       float64 `json:"max_us"`
	P50       float64 `json:"p50_us"`
	P90       float64 `json:"p90_us"`
	P95       float64 `json:"p95_us"`
	P99       float64 `json:"p99_us"`
	P999      float64 `json:"p99_9_us"`
	P9999     float64 `json:"p99_99_us"`
	Histogram string  `json:"hdr,omitempty"`
}

// ScheduleLag summarises how late an open-loop run started its operations:
// for each, the time from its intended start (or from the moment its worker
// became free, when that was later) to its actual start. It is the
// instrument's own share of every "intended" latency.
type ScheduleLag struct {
	P50 float64 `json:"p50_us"`
	P99 float64 `json:"p99_us"`
	Max float64 `json:"max_us"`
	// Behind counts operations whose intended start passed while their
	// worker was still busy with an earlier one (the target fell behind).
	Behind int64 `json:"behind"`
	// Histogram is the whole lag histogram (as in Latency), so shards'
	// lags merge exactly.
	Histogram string `json:"hdr,omitempty"`
}

// SummarizeLag reads a schedule lag off h (nanoseconds); nil when h is empty.
func SummarizeLag(h *hdr.Histogram, behind int64) *ScheduleLag {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	return &ScheduleLag{P50: us(h.ValueAtQuantile(50)), P99: us(h.ValueAtQuantile(99)), Max: us(h.Max()),
		Behind: behind, Histogram: EncodeHistogram(h)}
}

// LatencyLimit is what a run with --latency-limit found, as pgbench's -L
// reports it: the operations whose latency exceeded the limit and, under a
// target rate, those skipped because they were later than the limit
// already when due.
type LatencyLimit struct {
	LimitMS float64 `json:"limit_ms"`
	// Of is the latency compared: "response" (from the intended start,
	// under a target rate) or "service".
	Of string `json:"of"`
	// Late counts, of Operations (the successful ones), those above the
	// limit, read off the histograms (to their 0.1 % resolution); ByOp
	// breaks it down by operation.
	Late       int64            `json:"late"`
	Operations int64            `json:"operations"`
	LateShare  float64          `json:"late_share"`
	ByOp       map[string]int64 `json:"late_by_op,omitempty"`
	// Skipped counts the operations not issued (open loop only), and
	// SkippedShare their share of those scheduled (issued and skipped).
	Skipped      int64   `json:"skipped"`
	SkippedShare float64 `json:"skipped_share"`
}

// CountAbove returns how many values of h lie above v (to h's resolution:
// a value in the bucket holding v counts as not above).
func CountAbove(h *hdr.Histogram, v int64) int64 {
	var n int64
	for _, b := range h.Distribution() {
		if b.From > v {
			n += b.Count
		}
	}
	return n
}

// Second is one second of the time series.
type Second struct {
	T   float64             `json:"t_s"` // seconds since the start of the measured part
	Ops map[string]SecondOp `json:"ops"`
}

// SecondOp is one operation type within a Second.
// Percentiles are absent when no operation of the second succeeded (or,
// in a merged result, when a shard carried no histogram for it).
type SecondOp struct {
	Count  int64   `json:"count"`
	Errors int64   `json:"errors,omitempty"`
	P50    float64 `json:"p50_us,omitempty"`
	P99    float64 `json:"p99_us,omitempty"`
	Max    float64 `json:"max_us,omitempty"`
	// Histogram is the second's histogram (as Latency.Histogram), carried
	// by shard results so that merged series are exact.
	Histogram string `json:"hdr,omitempty"`
}

func us(ns int64) float64 { return float64(ns) / 1e3 }

// Summarize reads a latency summary off h; nil when h is empty.
func Summarize(h *hdr.Histogram, encode bool) *Latency {
	if h.TotalCount() == 0 {
		return nil
	}
	l := &Latency{
		Mean: h.Mean() / 1e3, Min: us(h.Min()), Max: us(h.Max()),
		P50: us(h.ValueAtQuantile(50)), P90: us(h.ValueAtQuantile(90)), P95: us(h.ValueAtQuantile(95)),
		P99: us(h.ValueAtQuantile(99)), P999: us(h.ValueAtQuantile(99.9)), P9999: us(h.ValueAtQuantile(99.99)),
	}
	if encode {
		l.Histogram = EncodeHistogram(h)
	}
	return l
}

// CheckWritable reports, before any work is done, why WriteFileAtomic(path)
// would fail: path is a directory, or its directory does not exist (a
// mistyped path is said, not created) or cannot take a new file.
func CheckWritable(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("directory %s does not exist: create it first", dir)
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".docbench-check-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot create a file in %s: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// Redact hides passwords in every field of r that may quote a target:
// the target, the error, notes, error messages and property values.
func (r *Result) Redact() {
	r.Target.Target = db.Redact(r.Target.Target)
	r.Error = db.Redact(r.Error)
	for i := range r.Notes {
		r.Notes[i] = db.Redact(r.Notes[i])
	}
	for k, v := range r.Workload.Properties {
		r.Workload.Properties[k] = db.Redact(v)
	}
	for i := range r.Ops {
		for j := range r.Ops[i].Messages {
			r.Ops[i].Messages[j].Message = db.Redact(r.Ops[i].Messages[j].Message)
		}
	}
	if r.Warmup != nil {
		for i := range r.Warmup.Ops {
			for j := range r.Warmup.Ops[i].Messages {
				r.Warmup.Ops[i].Messages[j].Message = db.Redact(r.Warmup.Ops[i].Messages[j].Message)
			}
		}
	}
	if r.Server != nil {
		for i := range r.Server.Notes {
			r.Server.Notes[i] = db.Redact(r.Server.Notes[i])
		}
	}
}

// WriteFileAtomic writes data to path through a temporary file and a rename,
// so that a reader never sees a half-written result.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
