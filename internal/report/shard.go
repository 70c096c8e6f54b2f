package report

import (
	"encoding/base64"
	"os"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Shard says which shard of a sharded phase a result is, where it ran and
// when it really began ("shard" in the result JSON).
type Shard struct {
	Index int    `json:"index"` // 0-based, as JOB_COMPLETION_INDEX
	Count int    `json:"count"`
	Host  string `json:"host"`
	// StartAt is the instant asked for with --start-at.
	StartAt *time.Time `json:"start_at,omitempty"`
	// Began is when the phase really began (after waiting for StartAt,
	// before any warm-up), by this host's clock.
	Began time.Time `json:"began"`
	// LateMS is Began − StartAt in milliseconds.
	LateMS *float64 `json:"late_ms,omitempty"`
	Clock  Clock    `json:"clock"`
	// LoadStart and LoadCount are the key numbers a shard of a load
	// inserted (its insertstart and insertcount).
	LoadStart *int64 `json:"load_insertstart,omitempty"`
	LoadCount *int64 `json:"load_insertcount,omitempty"`
}

// Clock is what the host's kernel says about its clock: the clock source
// and whether NTP keeps it synchronized, with the kernel's error bounds.
// Shards on different hosts line up only as well as their clocks agree.
type Clock struct {
	Source       string `json:"source,omitempty"`
	Synchronized *bool  `json:"synchronized,omitempty"`
	MaxErrorUS   *int64 `json:"max_error_us,omitempty"`
	EstErrorUS   *int64 `json:"est_error_us,omitempty"`
	// Absent says why the synchronization state is unknown.
	Absent string `json:"absent,omitempty"`
}

// ReadClock reads this host's clock source and synchronization state.
func ReadClock() Clock {
	c := readSync()
	if b, err := os.ReadFile("/sys/devices/system/clocksource/clocksource0/current_clocksource"); err == nil {
		c.Source = strings.TrimSpace(string(b))
	}
	return c
}

// ShardSummary is one shard of a merged result ("shards[]").
type ShardSummary struct {
	Index      int       `json:"index"`
	Source     string    `json:"source"` // the file (or log line) it came from
	Host       string    `json:"host,omitempty"`
	Complete   bool      `json:"complete"`
	Stopped    string    `json:"stopped,omitempty"`
	Error      string    `json:"error,omitempty"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	LateMS     *float64  `json:"late_ms,omitempty"`
	Operations int64     `json:"operations"`
	Throughput float64   `json:"throughput_ops_per_sec"`
	// ClientCores is the shard's own CPU (harness_s) over its measured
	// time: near 1 per thread-saturated core means the client was busy.
	ClientCores *float64 `json:"client_cores,omitempty"`
	Clock       Clock    `json:"clock"`
}

// EncodeHistogram encodes h as results carry it: HdrHistogram's V2
// compressed encoding in base64 ("HISTF…", the form HdrHistogram's own
// logs carry; "" if it cannot be encoded).
func EncodeHistogram(h *hdr.Histogram) string {
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

// DecodeHistogram decodes a histogram as results carry it. Results written
// before the form above base64-encoded it once more ("SElTVEZ…"): those
// decode too.
func DecodeHistogram(s string) (*hdr.Histogram, error) {
	if !strings.HasPrefix(s, v2Prefix) {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, err
		}
		s = string(b)
	}
	return hdr.Decode([]byte(s))
}

// v2Prefix begins every base64 V2 compressed encoding: its cookie.
const v2Prefix = "HISTF"

// Name renders the shard as K/N.
func (s *Shard) Name() string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count) }
