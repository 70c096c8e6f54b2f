package probe

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
)

func TestCompareFindings(t *testing.T) {
	pg := db.Audit{Durability: db.DurableAtCommit, KeyIndex: db.KeyGINDocument, KeyIndexDetail: "GIN (data jsonb_ops)", Clients: 1}
	mg := db.Audit{Durability: db.DurableAtCommit, KeyIndex: db.KeyIDIndex, KeyIndexDetail: "_id", Clients: 1}
	fs := Compare([]Target{{Name: "postgres", Audit: pg}, {Name: "mongodb", Audit: mg}})
	fails := StrictFailures(fs)
	if len(fails) != 1 || fails[0] != "key index differs (gin-whole-document vs _id)" {
		t.Fatalf("strict failures %q", fails)
	}
	for _, f := range fs {
		if f.Aspect == "key index" && f.Meaning == "" {
			t.Errorf("key index difference without meaning")
		}
		if f.Aspect == "durability" && !f.Equal {
			t.Errorf("durability: %+v", f)
		}
	}
}

func TestBuildAbsentNeverZero(t *testing.T) {
	snap := func(wal db.Figure, tot float64) db.Snapshot {
		s := db.NewSnapshot()
		s.Counters["wal_bytes"] = wal
		s.Gauges["total_bytes"] = db.Val(tot, db.Bytes)
		s.Gauges["documents"] = db.Val(10, db.Count)
		s.InProcess = true
		return s
	}
	b := &Reading{Snap: snap(db.Missing("no WAL here"), 100), Time: time.Now()}
	a := &Reading{Snap: snap(db.Missing("no WAL here"), 200), Time: time.Now(), HarnessCPU: 1}
	s := Build(b, a, Counts{Ops: 10, Updates: 10}, 5)
	if f := s.Counters["wal_bytes"]; f.OK() || f.Absent != "no WAL here" {
		t.Errorf("wal_bytes %+v", f)
	}
	if f := s.PerOp["wal_bytes_per_update"]; f.OK() || f.Absent == "" {
		t.Errorf("per update %+v", f)
	}
	if f := s.Storage["bytes_per_document"]; f.Value != 20 {
		t.Errorf("bytes per document %+v", f)
	}
	if f := s.Storage["ratio_to_raw_json"]; f.Value != 4 {
		t.Errorf("ratio %+v", f)
	}
	if s.CPU.ServerS.OK() || s.CPU.HarnessUSOp.Value != 1e5 {
		t.Errorf("cpu %+v", s.CPU)
	}
	// Per update: the counter's difference over docbench's count.
	b.Snap.Counters["wal_bytes"], a.Snap.Counters["wal_bytes"] = db.Val(0, db.Bytes), db.Val(1000, db.Bytes)
	s = Build(b, a, Counts{Ops: 10, Updates: 10}, 0)
	if f := s.PerOp["wal_bytes_per_update"]; !f.OK() || f.Value != 100 {
		t.Errorf("per update: %+v", f)
	}
	if s := Build(&Reading{Err: errors.New("no probe")}, a, Counts{}, 0); s.Absent != "no probe" {
		t.Errorf("absent %+v", s)
	}
}

// TestBuildPerReadAndHOT: buffer counters per read only in a phase that
// did nothing but read; the share of HOT updates.
func TestBuildPerReadAndHOT(t *testing.T) {
	snap := func(heap, toast, hot float64) *Reading {
		s := db.NewSnapshot()
		s.Counters["heap_buffers"] = db.Val(heap, db.Pages)
		s.Counters["toast_buffers"] = db.Val(toast, db.Pages)
		s.Counters["index_buffers"] = db.Missing("no index counters")
		s.Counters["rows_hot_updated"] = db.Val(hot, db.Count)
		s.Counters["rows_updated"] = db.Val(2*hot, db.Count)
		s.InProcess = true
		return &Reading{Snap: s, Time: time.Now()}
	}
	b, a := snap(100, 1000, 5), snap(120, 1070, 5)
	s := Build(b, a, Counts{Ops: 20, Reads: 20}, 0)
	if f := s.PerOp["heap_buffers_per_read"]; !f.OK() || f.Value != 1 || f.Unit != db.Pages {
		t.Errorf("heap_buffers_per_read %+v, want 1 page", f)
	}
	if f := s.PerOp["toast_buffers_per_read"]; !f.OK() || f.Value != 3.5 {
		t.Errorf("toast_buffers_per_read %+v, want 3.5", f)
	}
	if f := s.PerOp["index_buffers_per_read"]; f.OK() || f.Absent != "no index counters" {
		t.Errorf("index_buffers_per_read %+v, want absent with the counter's reason", f)
	}
	if _, ok := s.PerOp["hot_update_share"]; ok {
		t.Errorf("HOT share in a phase without updates: %+v", s.PerOp)
	}
	// Reads beside other operations (or failures): no figure per read.
	// HOT: 12 of the server's 16 row updates (docbench counted 10: the
	// share is the server's own).
	a = snap(120, 1070, 17)
	a.Snap.Counters["rows_updated"] = db.Val(26, db.Count)
	s = Build(b, a, Counts{Ops: 20, Reads: 10, Updates: 10}, 0)
	if f, ok := s.PerOp["toast_buffers_per_read"]; ok {
		t.Errorf("toast_buffers_per_read %+v in a phase that also updated", f)
	}
	if f := s.PerOp["hot_update_share"]; !f.OK() || f.Value != 0.75 {
		t.Errorf("hot_update_share %+v, want 0.75 (12 of 16)", f)
	}
	// A server without HOT (no such counter) has no share.
	delete(b.Snap.Counters, "rows_hot_updated")
	delete(a.Snap.Counters, "rows_hot_updated")
	if f, ok := Build(b, a, Counts{Ops: 10, Updates: 10}, 0).PerOp["hot_update_share"]; ok {
		t.Errorf("hot_update_share %+v without a HOT counter", f)
	}
}

func TestTreeCPU(t *testing.T) {
	if _, err := TreeCPU(1); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	if _, err := TreeCPU(1 << 30); err == nil {
		t.Error("no error for a missing process")
	}
}

// TestWriteTextGroupsAbsentReasons: a figure the server cannot give is said
// once per reason, never garbled into another line; lines stay ≤ 100 columns.
func TestWriteTextGroupsAbsentReasons(t *testing.T) {
	wal := "SQLite keeps no cumulative count of WAL frames: the WAL file is reused after each checkpoint"
	inside := "the engine runs inside docbench: its CPU is the harness's"
	s := &Server{
		Counters: map[string]db.Figure{"wal_file_bytes": db.Missing(wal), "rows_updated": db.Missing("SQLite keeps no row counters")},
		PerOp:    map[string]db.Figure{"wal_file_bytes_per_update": db.Missing(wal), "wal_file_bytes_per_write": db.Missing(wal)},
		Storage:  map[string]db.Figure{"total_bytes": db.Val(294912, db.Bytes), "documents": db.Val(200, db.Count)},
		CPU:      &CPU{ServerS: db.Missing(inside), ServerUSOp: db.Missing(inside), HarnessS: db.Val(0.07, db.Second), HarnessUSOp: db.Val(75.7, "µs")},
	}
	var b strings.Builder
	WriteText(&b, s, nil)
	out := b.String()
	for _, reason := range []string{"SQLite keeps no row counters", inside} {
		if n := strings.Count(out, reason); n != 1 {
			t.Errorf("reason %q said %d times:\n%s", reason, n, out)
		}
	}
	if strings.Count(out, "reused after each") != 1 || strings.Contains(out, "absent: absent") || strings.Contains(out, "(absent") {
		t.Errorf("absent figures not grouped:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 100 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
}

// TestBuildChecksAndIntervals: the server's row counters are checked
// against docbench's (a mismatch noted with the counters' scope), and the
// interval's figures join the counters, per write.
func TestBuildChecksAndIntervals(t *testing.T) {
	snap := func(ins, upd float64) db.Snapshot {
		s := db.NewSnapshot()
		s.Counters["rows_inserted"] = db.Val(ins, db.Count)
		s.Counters["rows_updated"] = db.Val(upd, db.Count)
		s.Facts["counters_scope"] = "whole database"
		return s
	}
	now := time.Now()
	b := &Reading{Snap: snap(100, 0), Time: now, ServerCPU: db.Val(1, db.Second)}
	a := &Reading{Snap: snap(150, 45), Time: now.Add(2 * time.Second), ServerCPU: db.Val(3, db.Second), HarnessCPU: 1,
		Interval: map[string]db.Figure{"wal_fpi": db.Val(20, db.Count), "wal_records": db.Missing("no pg_walinspect")}}
	s := Build(b, a, Counts{Ops: 100, Inserts: 50, Updates: 50, Exact: true}, 0)
	want := []Check{{What: "rows inserted", Docbench: 50, Server: 50, Match: true}, {What: "rows updated", Docbench: 50, Server: 45}}
	if len(s.Checks) != 2 || s.Checks[0] != want[0] || s.Checks[1] != want[1] {
		t.Errorf("checks %+v", s.Checks)
	}
	if len(s.Notes) != 1 || s.Notes[0] != "rows updated: docbench counted 50, the server 45 (whole database)" {
		t.Errorf("notes %q", s.Notes)
	}
	if f := s.PerOp["wal_fpi_per_write"]; f.Value != 0.2 || f.Unit != db.Count {
		t.Errorf("wal_fpi per write %+v", f)
	}
	if f := s.PerOp["wal_records_per_write"]; f.Absent != "no pg_walinspect" {
		t.Errorf("wal_records per write %+v", f)
	}
	if c := s.CPU; c.ServerS.Value != 2 || c.ServerUSOp.Value != 2e4 || c.ServerShare.Value != 2.0/3 || c.Interpretation == "" {
		t.Errorf("cpu %+v", c)
	}
	if _, ok := s.Storage["bytes_per_document"]; ok {
		t.Error("bytes per document without a storage figure")
	}
}

// TestDocumentsStoredChecked: a load's inserts are checked against the
// documents the table gained; a server that counts only changed rows has
// its shortfall of rows updated explained.
func TestDocumentsStoredChecked(t *testing.T) {
	snap := func(docs, upd float64) db.Snapshot {
		s := db.NewSnapshot()
		s.Gauges["documents"] = db.Val(docs, db.Count)
		s.Counters["rows_updated"] = db.Val(upd, db.Count)
		s.Facts[UnchangedUncounted] = "MariaDB"
		return s
	}
	b, a := &Reading{Snap: snap(10, 0)}, &Reading{Snap: snap(60, 0)}
	s := Build(b, a, Counts{Ops: 50, Inserts: 50, Exact: true}, 0)
	if want := (Check{What: "documents stored", Docbench: 50, Server: 50, Match: true}); len(s.Checks) != 1 || s.Checks[0] != want {
		t.Errorf("load checks %+v, want %+v", s.Checks, want)
	}
	est := &Reading{Snap: snap(60, 0)}
	est.Snap.Facts[DocumentsEstimated] = "n_live_tup"
	if s := Build(b, est, Counts{Ops: 50, Inserts: 50, Exact: true}, 0); len(s.Checks) != 0 {
		t.Errorf("checks of an estimate %+v", s.Checks)
	}
	s = Build(b, &Reading{Snap: snap(10, 7)}, Counts{Ops: 10, Updates: 10, Exact: true}, 0)
	if len(s.Checks) != 1 || s.Checks[0].Match || !strings.HasPrefix(s.Checks[0].Explained, "MariaDB counts only the rows an UPDATE changed: at least 3") {
		t.Errorf("update checks %+v", s.Checks)
	}
}
