// Package probe is docbench's server-side truth: it takes the server's own
// view before and after a phase (db.Prober snapshots, CPU from /proc and
// getrusage) and turns the two into what the phase cost the server — write
// volume, rows touched, storage, CPU, all also per operation — checks the
// server's row counts against docbench's own, and compares the targets'
// fairness-audit classifications, which each backend makes of its own
// recorded settings and layout (db.Backend.Audit).
package probe

import (
	"context"
	"fmt"
	"maps"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/docbench/docbench/internal/db"
)

// Server is the server-side section of a phase result ("server" in the
// result JSON).
type Server struct {
	// Absent says why there is no server-side view at all (the backend has
	// no probe, or probing failed).
	Absent string `json:"absent,omitempty"`
	// IntervalS is the time between the two snapshots.
	IntervalS float64 `json:"interval_s,omitempty"`
	// Counters are differences over the phase (after − before).
	Counters map[string]db.Figure `json:"counters,omitempty"`
	// Storage is the storage after the phase; StorageBefore before it.
	Storage       map[string]db.Figure `json:"storage,omitempty"`
	StorageBefore map[string]db.Figure `json:"storage_before,omitempty"`
	// PerOp are counters divided by docbench's own operation counts.
	PerOp map[string]db.Figure `json:"per_op,omitempty"`
	CPU   *CPU                 `json:"cpu,omitempty"`
	// Checks compare docbench's counts with the server's.
	Checks []Check           `json:"checks,omitempty"`
	Plans  []db.Plan         `json:"plans,omitempty"`
	Facts  map[string]string `json:"facts,omitempty"`
	Notes  []string          `json:"notes,omitempty"`
}

// CPU is the CPU time of the server's processes and of docbench itself.
type CPU struct {
	ServerS        db.Figure `json:"server_s"`
	HarnessS       db.Figure `json:"harness_s"`
	ServerUSOp     db.Figure `json:"server_us_per_op"`
	HarnessUSOp    db.Figure `json:"harness_us_per_op"`
	ServerShare    db.Figure `json:"server_share"` // server / (server + harness)
	Interpretation string    `json:"interpretation,omitempty"`
}

// Check is one of docbench's counts against the server's.
type Check struct {
	What     string  `json:"what"`
	Docbench int64   `json:"docbench"`
	Server   float64 `json:"server"`
	Match    bool    `json:"match"`
	// Explained is why the counts may differ by the server's own rules
	// (a server that counts only the rows an UPDATE changed).
	Explained string `json:"explained,omitempty"`
}

// DocumentsEstimated is the fact (Snapshot.Facts) a backend sets when its
// storage's documents is an estimate, not a count: no check is made of it.
const DocumentsEstimated = "documents_estimated"

// UnchangedUncounted is the fact (Snapshot.Facts) a backend sets when its
// server's count of rows updated leaves out the rows an UPDATE set to the
// values they had (MySQL and MariaDB count only changed rows); its value
// names the server.
const UnchangedUncounted = "rows_updated_counts_changed_only"

// Reading is what Take saw at one moment.
type Reading struct {
	Snap       db.Snapshot
	Err        error
	ServerCPU  db.Figure // seconds of the server's process tree
	HarnessCPU float64   // seconds of docbench's own process
	Time       time.Time
	// Interval are figures over the interval since the previous point
	// (db.IntervalProber), set by TakeAfter.
	Interval map[string]db.Figure
}

// TakeAfter takes the point that ends a phase begun at before, with the
// figures only an interval can give.
func TakeAfter(ctx context.Context, store db.Store, before *Reading) *Reading {
	p := Take(ctx, store)
	if ip, ok := store.(db.IntervalProber); ok && p.Err == nil && before.Err == nil {
		p.Interval = ip.ProbeInterval(ctx, before.Snap, p.Snap)
	}
	return p
}

// inProcess is why an engine inside docbench has no server CPU.
const inProcess = "the engine runs inside docbench: its CPU is the harness's"

// Take snapshots store (when it is a db.Prober) and the CPU of the server's
// processes and of docbench.
func Take(ctx context.Context, store db.Store) *Reading {
	p := &Reading{}
	pr, ok := store.(db.Prober)
	if !ok {
		p.Err = fmt.Errorf("this backend has no server probe")
	} else {
		p.Snap, p.Err = pr.Probe(ctx)
	}
	p.Time = time.Now()
	p.HarnessCPU = SelfCPU()
	switch {
	case p.Err != nil:
		p.ServerCPU = db.Missing("no snapshot")
	case p.Snap.InProcess:
		p.ServerCPU = db.Missing(inProcess)
	case p.Snap.ServerPID == 0:
		reason := p.Snap.PIDAbsent
		if reason == "" {
			reason = "server process not found on this machine"
		}
		p.ServerCPU = db.Missing(reason)
	default:
		if s, err := TreeCPU(p.Snap.ServerPID); err != nil {
			p.ServerCPU = db.Missing(err.Error())
		} else {
			p.ServerCPU = db.Val(s, db.Second)
		}
	}
	return p
}

// Counts are docbench's own counts of a phase's successful operations.
type Counts struct {
	Ops     int64 // all measured operations (records, for a load)
	Inserts int64
	Updates int64 // includes the updates of READ-MODIFY-WRITE
	Reads   int64
	// Exact is false when a count is uncertain (failed batches).
	Exact bool
}

// WriteCounters are the write-volume counters, in preference order: the
// first present is the phase's write volume.
var WriteCounters = []string{"wal_bytes", "redo_bytes", "journal_bytes", "wal_file_bytes"}

// Build turns two points into the server section. rawDoc is the average
// raw JSON size of a document of the plan's shape (0: unknown).
func Build(before, after *Reading, c Counts, rawDoc float64) *Server {
	if before.Err != nil || after.Err != nil {
		err := before.Err
		if err == nil {
			err = after.Err
		}
		return &Server{Absent: err.Error()}
	}
	s := difference(before, after)
	s.writesPerOp(c)
	s.readsPerOp(c)
	s.hotShare()
	// Figures over the interval (they may refine the counters above).
	maps.Copy(s.Counters, after.Interval)
	for _, k := range []string{"wal_fpi", "wal_records", "wal_fpi_bytes"} {
		if v, ok := s.Counters[k]; ok {
			s.perOp(k+"_per_write", v, c.Inserts+c.Updates, v.Unit)
		}
	}
	f := after.Snap.Facts
	s.checkCounts(c, f["counters_scope"], f[UnchangedUncounted], f[DocumentsEstimated]+before.Snap.Facts[DocumentsEstimated])
	s.perDocument(rawDoc)
	s.CPU = cpuOf(before, after, c.Ops, s.IntervalS)
	return s
}

// difference is the server section of two points: the counters' change
// over the phase, the storage before and after, the facts after.
func difference(before, after *Reading) *Server {
	s := &Server{
		IntervalS:     after.Time.Sub(before.Time).Seconds(),
		Counters:      map[string]db.Figure{},
		Storage:       map[string]db.Figure{},
		StorageBefore: map[string]db.Figure{},
		PerOp:         map[string]db.Figure{},
		Facts:         map[string]string{},
	}
	for k, a := range after.Snap.Counters {
		b, ok := before.Snap.Counters[k]
		switch {
		case !a.OK():
			s.Counters[k] = a
		case !ok || !b.OK():
			s.Counters[k] = db.Missing("no value before the phase")
		default:
			s.Counters[k] = db.Figure{Value: a.Value - b.Value, Unit: a.Unit}
		}
	}
	maps.Copy(s.Storage, after.Snap.Gauges)
	maps.Copy(s.StorageBefore, before.Snap.Gauges)
	maps.Copy(s.Facts, after.Snap.Facts)
	return s
}

// perOp sets PerOp[name] to v over n operations; an absent v stays absent
// (with its reason), and nothing is set when there were no operations.
func (s *Server) perOp(name string, v db.Figure, n int64, unit string) {
	switch {
	case !v.OK():
		s.PerOp[name] = v
	case n > 0:
		s.PerOp[name] = db.Val(v.Value/float64(n), unit)
	}
}

// writesPerOp divides the write volume by the phase's operations, by its
// writes, and by its inserts or updates when it did only one of the two.
func (s *Server) writesPerOp(c Counts) {
	for _, k := range WriteCounters {
		v, ok := s.Counters[k]
		if !ok {
			continue
		}
		s.perOp(k+"_per_op", v, c.Ops, db.Bytes)
		s.perOp(k+"_per_write", v, c.Inserts+c.Updates, db.Bytes)
		switch {
		case c.Updates > 0 && c.Inserts == 0:
			s.perOp(k+"_per_update", v, c.Updates, db.Bytes)
		case c.Inserts > 0 && c.Updates == 0:
			s.perOp(k+"_per_insert", v, c.Inserts, db.Bytes)
		}
	}
}

// ReadCounters are the buffer counters a read touches (PostgreSQL's
// heap, TOAST relation with its index, and indexes).
var ReadCounters = []string{"heap_buffers", "toast_buffers", "index_buffers"}

// readsPerOp divides the buffer counters by the phase's reads when it did
// nothing but read.
func (s *Server) readsPerOp(c Counts) {
	if c.Reads == 0 || c.Reads != c.Ops {
		return
	}
	for _, k := range ReadCounters {
		if v, ok := s.Counters[k]; ok {
			s.perOp(k+"_per_read", v, c.Reads, v.Unit)
		}
	}
}

// hotShare sets the share of the server's row updates that were HOT
// (heap-only: no index entry written), both counted by the server, so
// that counters reaching the server late would move both alike.
func (s *Server) hotShare() {
	hot, ok := s.Counters["rows_hot_updated"]
	upd := s.Counters["rows_updated"]
	switch {
	case !ok:
	case !hot.OK():
		s.PerOp["hot_update_share"] = hot
	case upd.OK() && upd.Value > 0:
		s.PerOp["hot_update_share"] = db.Val(hot.Value/upd.Value, "share")
	}
}

// checkCounts compares the rows docbench inserted and updated with the
// server's counters, and notes each mismatch (with the counters' scope,
// when the server says it).
func (s *Server) checkCounts(c Counts, scope, changedOnly, estimated string) {
	for _, x := range []struct {
		what, key string
		n         int64
	}{{"rows inserted", "rows_inserted", c.Inserts}, {"rows updated", "rows_updated", c.Updates}} {
		v, ok := s.Counters[x.key]
		if !ok || !v.OK() || (x.n == 0 && v.Value == 0) {
			continue
		}
		s.Checks = append(s.Checks, Check{What: x.what, Docbench: x.n, Server: v.Value, Match: float64(x.n) == v.Value})
	}
	// A phase of inserts alone (a load): the documents the table gained,
	// counted on the server, against the inserts docbench counted.
	after, before := Get(s.Storage, "documents"), Get(s.StorageBefore, "documents")
	if c.Inserts > 0 && c.Inserts == c.Ops && c.Exact && after.OK() && before.OK() && estimated == "" {
		n := after.Value - before.Value
		s.Checks = append(s.Checks, Check{What: "documents stored", Docbench: c.Inserts, Server: n, Match: float64(c.Inserts) == n})
	}
	for i, ch := range s.Checks {
		if ch.Match {
			continue
		}
		note := fmt.Sprintf("%s: docbench counted %d, the server %.0f", ch.What, ch.Docbench, ch.Server)
		if ch.What == "rows updated" && changedOnly != "" && ch.Server < float64(ch.Docbench) {
			ch.Explained = fmt.Sprintf("%s counts only the rows an UPDATE changed: at least %.0f of docbench's updates set the values already there",
				changedOnly, float64(ch.Docbench)-ch.Server)
			s.Checks[i] = ch
			note += ": " + ch.Explained
		}
		switch {
		case ch.What == "documents stored":
			note += " (the table's count: another client's inserts or deletes, another shard's, count too)"
		case scope != "":
			note += " (" + scope + ")"
		}
		s.Notes = append(s.Notes, note)
	}
}

// perDocument sets the storage per document and, when the raw JSON size
// of a document is known, against it.
func (s *Server) perDocument(rawDoc float64) {
	tot, docs := Get(s.Storage, "total_bytes"), Get(s.Storage, "documents")
	if !tot.OK() || !docs.OK() || docs.Value <= 0 {
		return
	}
	s.Storage["bytes_per_document"] = db.Val(tot.Value/docs.Value, db.Bytes)
	if rawDoc > 0 {
		s.Storage["raw_json_bytes_per_document"] = db.Val(math.Round(rawDoc*10)/10, db.Bytes)
		s.Storage["ratio_to_raw_json"] = db.Val(tot.Value/docs.Value/rawDoc, "×")
	}
}

// cpuOf is the CPU time of the server and of docbench between two points,
// per operation, and what their shares say over wall seconds.
func cpuOf(before, after *Reading, ops int64, wall float64) *CPU {
	cpu := &CPU{HarnessS: db.Val(after.HarnessCPU-before.HarnessCPU, db.Second)}
	switch {
	case after.Snap.InProcess:
		cpu.ServerS = db.Missing(inProcess)
	case after.ServerCPU.OK() && before.ServerCPU.OK():
		cpu.ServerS = db.Val(after.ServerCPU.Value-before.ServerCPU.Value, db.Second)
	case !after.ServerCPU.OK():
		cpu.ServerS = after.ServerCPU
	default:
		cpu.ServerS = before.ServerCPU
	}
	usOp := func(f db.Figure) db.Figure {
		switch {
		case !f.OK():
			return f
		case ops <= 0:
			return db.Missing("no operations")
		}
		return db.Val(f.Value*1e6/float64(ops), "µs")
	}
	cpu.ServerUSOp, cpu.HarnessUSOp = usOp(cpu.ServerS), usOp(cpu.HarnessS)
	if cpu.ServerS.OK() && cpu.ServerS.Value+cpu.HarnessS.Value > 0 {
		share := cpu.ServerS.Value / (cpu.ServerS.Value + cpu.HarnessS.Value)
		cpu.ServerShare = db.Val(share, "")
		cpu.Interpretation = interpret(share, cpu.HarnessS.Value, wall)
	} else {
		cpu.ServerShare = db.Missing("no server CPU")
	}
	return cpu
}

// interpret says whether the client was the bottleneck.
func interpret(share, harness, wall float64) string {
	switch {
	case wall > 0 && harness/wall > 0.9:
		return "docbench used a whole core or more: the client may have been the bottleneck"
	case share < 0.3:
		return "docbench used more CPU than the server: check that the client is not the bottleneck"
	default:
		return "the server did most of the work"
	}
}

// SortedKeys returns a map's keys in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// FormatFigure renders a figure for people: value with unit, or
// "absent: reason".
func FormatFigure(f db.Figure) string {
	if !f.OK() {
		return "absent: " + f.Absent
	}
	switch f.Unit {
	case db.Bytes:
		return db.FormatBytes(f.Value)
	case db.Second:
		return fmt.Sprintf("%.3f s", f.Value)
	}
	unit := f.Unit
	if unit == db.Count {
		unit = ""
	}
	if f.Value == math.Trunc(f.Value) && math.Abs(f.Value) < 1e15 {
		return strings.TrimSpace(fmt.Sprintf("%.0f %s", f.Value, unit))
	}
	return strings.TrimSpace(fmt.Sprintf("%.4g %s", f.Value, unit))
}
