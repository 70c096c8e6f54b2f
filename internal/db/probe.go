package db

import (
	"context"
	"time"
)

// Figure is one server-side number with its unit, or the reason the server
// cannot give it: a figure a server cannot give is absent, never zero.
type Figure struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
	// Absent says why there is no value ("pg_stat_wal needs PostgreSQL 14").
	Absent string `json:"absent,omitempty"`
}

// Val is a figure with a value.
func Val(v float64, unit string) Figure { return Figure{Value: v, Unit: unit} }

// Missing is a figure the server cannot give, with the reason.
func Missing(reason string) Figure { return Figure{Absent: reason} }

// OK reports whether the figure has a value.
func (f Figure) OK() bool { return f.Absent == "" }

// Units of figures.
const (
	Bytes  = "B"
	Count  = "count"
	Pages  = "pages"
	Second = "s"
)

// Snapshot is the server's own view at one moment: cumulative counters
// (a phase reports their difference), gauges (a phase reports the value
// after it) and text facts.
type Snapshot struct {
	Time time.Time
	// Counters only grow while the server runs (WAL position, rows updated,
	// buffers read). Key names are backend-specific: "wal_bytes",
	// "rows_updated", …
	Counters map[string]Figure
	// Gauges are sizes at the moment ("table_bytes", "index_bytes",
	// "documents", …).
	Gauges map[string]Figure
	// Facts are text the report shows as they are (LSN, peer notes).
	Facts map[string]string
	// ServerPID is the server's main process when it runs on this machine
	// (its CPU is then read from /proc); 0 with PIDAbsent saying why not.
	ServerPID int
	PIDAbsent string
	// InProcess marks an embedded engine (SQLite): its CPU is docbench's.
	InProcess bool
}

// IntervalProber is implemented by stores that can measure figures over
// an interval that cumulative counters cannot give (PostgreSQL's full-page
// image bytes, read from the WAL between two positions). The figures are
// already the interval's, not cumulative.
type IntervalProber interface {
	ProbeInterval(ctx context.Context, before, after Snapshot) map[string]Figure
}

// NewSnapshot returns an empty snapshot taken now.
func NewSnapshot() Snapshot {
	return Snapshot{Time: time.Now(), Counters: map[string]Figure{}, Gauges: map[string]Figure{}, Facts: map[string]string{}}
}

// Prober is implemented by stores that report the server's own view:
// write volume, storage, work counters. Probe must not write (the figures
// of a phase would include it) and is called outside the measured part.
type Prober interface {
	Probe(ctx context.Context) (Snapshot, error)
}
