package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/probe"
)

// TestBackgroundCheckpoint: with sqlite.checkpoint=background no
// connection checkpoints by itself, docbench's checkpointer copies the
// WAL back beside the writers and counts it, and the WAL still restarts
// from its beginning.
func TestBackgroundCheckpoint(t *testing.T) {
	ctx := context.Background()
	st := openTable(t, map[string]string{"sqlite.checkpoint": "background"})
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Settings["wal_autocheckpoint"] != "0" || info.Settings["checkpoint"] != "background: PASSIVE every 50ms, RESTART at 10000 frames, on a connection of docbench's" {
		t.Fatalf("settings %v: want wal_autocheckpoint 0 and the background checkpoint", info.Settings)
	}
	before := probe.Take(ctx, st)
	sess, err := st.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	// 3000 one-row commits write well past SQLite's 1000-frame threshold.
	for i := range 3000 {
		if err := sess.Insert(ctx, fmt.Appendf(nil, "user%05d", i), []byte(`{"field0":"some value here"}`)); err != nil {
			t.Fatal(err)
		}
	}
	s := st.(*store)
	var srv *probe.Server
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		srv = probe.Build(before, probe.Take(ctx, st), probe.Counts{Ops: 3000, Inserts: 3000, Exact: true}, 30)
		if n := srv.Counters["checkpoints"]; !n.OK() || n.Value >= 1 || time.Now().After(deadline) {
			break
		}
	}
	if n, spent := srv.Counters["checkpoints"], srv.Counters["checkpoint_s"]; !n.OK() || n.Value < 1 || !spent.OK() || spent.Value <= 0 {
		t.Fatalf("checkpoints %+v in %+v: want at least one, timed", n, spent)
	}
	// Once every frame is copied back, a write starts the WAL again from
	// its beginning (unless it meets the checkpointer at its read marks:
	// then a later write does).
	var busy, log, copied int64
	for i, deadline := 0, time.Now().Add(5*time.Second); ; i++ {
		if err := s.db.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &log, &copied); err != nil {
			t.Fatal(err)
		}
		if err := sess.Insert(ctx, fmt.Appendf(nil, "user9%04d", i), []byte(`{"field0":"x"}`)); err != nil {
			t.Fatal(err)
		}
		if err := s.db.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &log, &copied); err != nil {
			t.Fatal(err)
		}
		if log <= 10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("WAL of %d frames after %d one-row writes on a copied-back WAL: it did not restart", log, i+1)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAutoCheckpointHasNoCounters: SQLite's own checkpoints run inside the
// workers' operations; the probe does not pretend to time them.
func TestAutoCheckpointHasNoCounters(t *testing.T) {
	st := openTemp(t, nil)
	snap, err := st.(*store).Probe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap.Counters["checkpoints"]; ok {
		t.Fatalf("counters %v: checkpoints with sqlite.checkpoint=auto", snap.Counters)
	}
	info, _ := st.Info(context.Background())
	if info.Settings["wal_autocheckpoint"] != "1000" {
		t.Fatalf("wal_autocheckpoint %q, want SQLite's 1000", info.Settings["wal_autocheckpoint"])
	}
}

func TestBackgroundCheckpointNeedsWAL(t *testing.T) {
	_, err := db.Open(context.Background(), db.OpenRequest{Target: "sqlite:" + filepath.Join(t.TempDir(), "t.db"),
		Props: map[string]string{"sqlite.checkpoint": "background", "sqlite.journal_mode": "delete"}})
	want := "property sqlite.checkpoint=background: needs sqlite.journal_mode=wal (checkpoints are of the WAL), not delete"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}
