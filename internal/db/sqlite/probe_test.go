package sqlite

import (
	"context"
	"fmt"
	"testing"

	"github.com/docbench/docbench/internal/probe"
)

// TestProbeStorage: the sizes are the database's (page_count × page_size,
// dbstat), the write volume is absent with its reason, the CPU is docbench's.
func TestProbeStorage(t *testing.T) {
	ctx := context.Background()
	st := openTable(t, nil)
	before := probe.Take(ctx, st)
	sess, err := st.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		if err := sess.Insert(ctx, fmt.Appendf(nil, "user%04d", i), []byte(`{"field0":"some value here"}`)); err != nil {
			t.Fatal(err)
		}
	}
	sess.Close()
	after := probe.Take(ctx, st)
	if before.Err != nil || after.Err != nil {
		t.Fatal(before.Err, after.Err)
	}
	srv := probe.Build(before, after, probe.Counts{Ops: 500, Inserts: 500, Exact: true}, 30)
	s := st.(*store)
	var pages, table, index float64
	if err := s.db.QueryRow("SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"total_bytes": pages, "documents": 500}
	if err := s.db.QueryRow("SELECT sum(pgsize) FROM dbstat WHERE name = 'usertable'").Scan(&table); err != nil {
		// This build of SQLite has no dbstat: the per-table figures are
		// absent, saying so.
		for _, k := range []string{"table_bytes", "index_bytes"} {
			if f := srv.Storage[k]; f.OK() || f.Absent == "" {
				t.Errorf("%s = %+v without dbstat (%v): want absent with a reason", k, f, err)
			}
		}
	} else {
		if err := s.db.QueryRow("SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'sqlite_autoindex_usertable%'").Scan(&index); err != nil {
			t.Fatal(err)
		}
		want["table_bytes"], want["index_bytes"] = table, index
	}
	for k, want := range want {
		if f := srv.Storage[k]; !f.OK() || f.Value != want {
			t.Errorf("%s = %+v, want %v", k, f, want)
		}
	}
	if f := srv.Counters["wal_file_bytes"]; f.OK() || f.Absent == "" {
		t.Errorf("wal_file_bytes %+v: want absent with a reason", f)
	}
	if srv.CPU.ServerS.OK() || !srv.CPU.HarnessS.OK() {
		t.Errorf("cpu %+v: SQLite's CPU is docbench's", srv.CPU)
	}
}
