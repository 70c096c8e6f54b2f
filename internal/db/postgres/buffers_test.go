package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/testutil"
)

// inSession runs f in a new session of st and closes it: a closed session's
// statistics are in the server's counters, as after a phase.
func inSession(t *testing.T, ctx context.Context, st db.Store, f func(db.Session)) {
	t.Helper()
	s, err := st.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f(s)
}

// setupTable creates usertable with fields on st.
func setupTable(t *testing.T, ctx context.Context, st db.Store, fields ...string) {
	t.Helper()
	if err := st.Setup(ctx, db.Schema{Table: "usertable", Fields: fields}, true); err != nil {
		t.Fatal(err)
	}
}

// TestToastBuffersPerRead reads TOASTed documents by key and checks the
// buffers the probe counts per read against Bartunov and Glukhov's
// account (PGConf.NYC 2021): one heap buffer, and at least 3 more for the
// TOAST relation's index and chunks. Two snapshots with nothing between
// them count no buffer: the probe's own sample is not counted.
func TestToastBuffersPerRead(t *testing.T) {
	for _, kind := range servers {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			st := openStore(t, testutil.FreshDatabase(t, testutil.Postgres(t, kind)), map[string]string{"layout": "column"})
			setupTable(t, ctx, st, "field0", "big")
			r := rand.New(rand.NewPCG(3, 4))
			const n = 40
			inSession(t, ctx, st, func(sess db.Session) {
				for i := range n {
					if err := sess.Insert(ctx, fmt.Appendf(nil, "user%03d", i), bigDoc(r, 20000)); err != nil {
						t.Fatal(err)
					}
				}
			})
			first := probe.Take(ctx, st)
			idle := probe.TakeAfter(ctx, st, first)
			if first.Err != nil || idle.Err != nil {
				t.Fatal(first.Err, idle.Err)
			}
			if why := idle.Snap.Facts["probe_sample"]; why != "" {
				t.Logf("the sample is counted here: %s", why)
			} else {
				srv := probe.Build(first, idle, probe.Counts{Exact: true}, 0)
				for _, k := range probe.ReadCounters {
					if f := srv.Counters[k]; !f.OK() || f.Value != 0 {
						t.Errorf("%s = %+v between two snapshots with nothing between them, want 0 (the probe's TOAST sample counted?)", k, f)
					}
				}
			}

			before := probe.Take(ctx, st)
			inSession(t, ctx, st, func(sess db.Session) {
				var dst []byte
				var err error
				for i := range n {
					if dst, err = sess.Read(ctx, fmt.Appendf(nil, "user%03d", i), nil, dst[:0]); err != nil {
						t.Fatal(err)
					}
				}
			})
			after := probe.TakeAfter(ctx, st, before)
			srv := probe.Build(before, after, probe.Counts{Ops: n, Reads: n, Exact: true}, 0)
			heap, toast := srv.PerOp["heap_buffers_per_read"], srv.PerOp["toast_buffers_per_read"]
			t.Logf("per read: heap %v, TOAST %v, index %v buffers", heap.Value, toast.Value, srv.PerOp["index_buffers_per_read"].Value)
			if !heap.OK() || heap.Value < 0.9 || heap.Value > 1.5 {
				t.Errorf("heap_buffers_per_read = %+v, want 1 (the page of the row)", heap)
			}
			// 20 kB uncompressed: 11 chunks on 3 or 4 pages, and the index.
			if !toast.OK() || toast.Value < 3 {
				t.Errorf("toast_buffers_per_read = %+v, want ≥ 3 (the TOAST index and chunks)", toast)
			}
			if f := srv.PerOp["index_buffers_per_read"]; !f.OK() || f.Value < 1 {
				t.Errorf("index_buffers_per_read = %+v, want ≥ 1 (the primary key)", f)
			}
		})
	}
}

// TestHOTPerUpdate updates one field of small documents: with the key in a
// column of its own the updates are HOT (heap-only: no index changes);
// with the key inside the document under an expression index, none is
// (Bartunov and Panchenko, PGDay Saint Petersburg 2017: "HOT does not
// work well with functional indexes").
func TestHOTPerUpdate(t *testing.T) {
	ctx := context.Background()
	url := testutil.Postgres(t, "embedded")
	for _, c := range []struct {
		layout string
		hot    func(float64) bool
		want   string
	}{
		{"column", func(v float64) bool { return v > 0.5 }, "most"},
		{"document", func(v float64) bool { return v == 0 }, "none"},
	} {
		t.Run(c.layout, func(t *testing.T) {
			st := openStore(t, testutil.FreshDatabase(t, url), map[string]string{"layout": c.layout})
			setupTable(t, ctx, st, "field0", "field1")
			const n = 20
			inSession(t, ctx, st, func(sess db.Session) {
				for i := range n {
					if err := sess.Insert(ctx, fmt.Appendf(nil, "user%03d", i), []byte(`{"field0":"a","field1":"b"}`)); err != nil {
						t.Fatal(err)
					}
				}
			})
			before := probe.Take(ctx, st)
			inSession(t, ctx, st, func(sess db.Session) {
				for i := range n {
					u := &db.Update{Mode: db.Partial, Paths: []string{"field0"}, Values: [][]byte{[]byte(`"updated"`)}}
					if err := sess.Update(ctx, fmt.Appendf(nil, "user%03d", i), u); err != nil {
						t.Fatal(err)
					}
				}
			})
			after := probe.TakeAfter(ctx, st, before)
			srv := probe.Build(before, after, probe.Counts{Ops: n, Updates: n, Exact: true}, 0)
			if f := srv.PerOp["hot_update_share"]; !f.OK() || !c.hot(f.Value) {
				t.Errorf("layout=%s: hot_update_share = %+v, want %s HOT", c.layout, f, c.want)
			}
		})
	}
}
