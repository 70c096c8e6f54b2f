package runner

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/testutil"
)

// TestServerSide takes the server's view of a load and a run on SQLite:
// docbench's counts reach the per-operation figures, the storage is set
// against the raw JSON of the phase's documents, and the run's statements
// are explained.
func TestServerSide(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	for _, tc := range []struct {
		phase Phase
		props map[string]string
		ops   int64
		c     probe.Counts
	}{
		{Load, map[string]string{"recordcount": "200", "batchsize": "7"}, 200, probe.Counts{Ops: 200, Inserts: 200, Exact: true}},
		{Run, map[string]string{"recordcount": "200", "operationcount": "300"}, 300, probe.Counts{Ops: 300, Exact: true}},
	} {
		store, wl, docOps := setupStore(t, "sqlite:"+path, tc.props, tc.phase == Load)
		var before *probe.Reading
		out, err := Execute(ctx, store, wl, docOps, Options{Phase: tc.phase, Threads: 2, OnMeasure: func() { before = probe.Take(ctx, store) }})
		if err != nil || out.Ops != tc.ops {
			t.Fatalf("%s: %d operations, %v", tc.phase, out.Ops, err)
		}
		c := out.counts()
		if tc.phase == Run {
			tc.c.Reads, tc.c.Updates = count(out, "READ"), count(out, "UPDATE")
			if tc.c.Reads+tc.c.Updates != 300 {
				t.Fatalf("run: %d reads, %d updates", tc.c.Reads, tc.c.Updates)
			}
		}
		if c != tc.c {
			t.Errorf("%s counts %+v, want %+v", tc.phase, c, tc.c)
		}
		if raw, of, n := docOps.RawDocSize(wl, 1000); raw <= 0 || of != 200 || n != 200 {
			t.Errorf("raw document size %v of %d of %d documents", raw, of, n)
		}
		if raw, of, n := docOps.RawDocSize(wl, 50); raw <= 0 || of != 50 || n != 200 {
			t.Errorf("raw document size of a sample: %v of %d of %d documents", raw, of, n)
		}
		srv := ServerSide(ctx, store, before, out, wl, docOps)
		if srv.Absent != "" || srv.Storage["ratio_to_raw_json"].Value <= 0 || srv.CPU == nil {
			t.Fatalf("%s: server side %+v", tc.phase, srv)
		}
		if len(srv.Plans) == 0 {
			t.Errorf("%s: no plans (notes %q)", tc.phase, srv.Notes)
		}
	}
}

// TestWarmupCountedApart runs updates only on PostgreSQL, with a warm-up
// that keeps the sessions busy: the server's count of rows updated in the
// measured part is docbench's, the warm-up's last updates not in it
// (a backend reports its counters at most once a second, so without the
// flush after the warm-up they landed in the measured part).
func TestWarmupCountedApart(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	props := map[string]string{"recordcount": "200", "readproportion": "0", "updateproportion": "1"}
	store, wl, docOps := setupStore(t, url, props, true)
	if _, err := Execute(ctx, store, wl, docOps, Options{Phase: Load, Threads: 2}); err != nil {
		t.Fatal(err)
	}
	var before *probe.Reading
	out, err := Execute(ctx, store, wl, docOps, Options{Phase: Run, Threads: 2, Warmup: 1500 * time.Millisecond,
		Duration: time.Second, OnMeasure: func() { before = probe.Take(ctx, store) }})
	if err != nil || out.Warmup == nil || out.Warmup.Ops == 0 {
		t.Fatalf("run: %v (warm-up %+v)", err, out.Warmup)
	}
	srv := ServerSide(ctx, store, before, out, wl, docOps)
	n := count(out, "UPDATE")
	for _, c := range srv.Checks {
		if c.What == "rows updated" {
			if !c.Match {
				t.Fatalf("rows updated: docbench %d, the server %.0f (warm-up %d operations)", c.Docbench, c.Server, out.Warmup.Ops)
			}
			if c.Docbench != n {
				t.Fatalf("rows updated: checked %d, counted %d", c.Docbench, n)
			}
			return
		}
	}
	t.Fatalf("no check of rows updated: %+v", srv.Checks)
}
