package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	neturl "net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/testutil"
)

// bigDoc is a document of n bytes of incompressible text: it is TOASTed.
func bigDoc(r *rand.Rand, n int) []byte {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := []byte(`{"field0":"x","big":"`)
	for range n {
		b = append(b, letters[r.IntN(len(letters))])
	}
	return append(b, `"}`...)
}

// TestProbeAccuracy checks every figure of the probe against the server's
// own view, computed independently in the test: rows touched, WAL bytes
// (pg_wal_lsn_diff), relation sizes (the catalog's functions).
func TestProbeAccuracy(t *testing.T) {
	for _, kind := range servers {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			url := testutil.FreshDatabase(t, testutil.Postgres(t, kind))
			st := openStore(t, url, map[string]string{"layout": "column"})
			if err := st.Setup(ctx, db.Schema{Table: "usertable", Fields: []string{"field0", "big"}}, true); err != nil {
				t.Fatal(err)
			}
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			lsn := func() string {
				var s string
				if err := conn.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&s); err != nil {
					t.Fatal(err)
				}
				return s
			}
			before := probe.Take(ctx, st)
			if before.Err != nil {
				t.Fatal(before.Err)
			}
			lsnAfterBefore := lsn()

			// A known statement sequence: 300 documents by COPY (100 of them
			// TOASTed), 40 inserts, 120 updates, 7 updates of missing keys.
			sess, err := st.NewSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			var keys, docs [][]byte
			for i := range 300 {
				keys = append(keys, fmt.Appendf(nil, "user%04d", i))
				if i%3 == 0 {
					docs = append(docs, bigDoc(r, 6000))
				} else {
					docs = append(docs, []byte(`{"field0":"small","big":"no"}`))
				}
			}
			if err := sess.(db.BatchInserter).InsertBatch(ctx, keys, docs); err != nil {
				t.Fatal(err)
			}
			for i := range 40 {
				if err := sess.Insert(ctx, fmt.Appendf(nil, "extra%03d", i), []byte(`{"field0":"e"}`)); err != nil {
					t.Fatal(err)
				}
			}
			for i := range 120 {
				u := &db.Update{Mode: db.Merge, Doc: []byte(`{"field0":"updated"}`), Paths: []string{"field0"}, Values: [][]byte{[]byte(`"updated"`)}}
				if err := sess.Update(ctx, keys[i], u); err != nil {
					t.Fatal(err)
				}
			}
			for i := range 7 {
				u := &db.Update{Mode: db.Merge, Doc: []byte(`{"field0":"x"}`)}
				if err := sess.Update(ctx, fmt.Appendf(nil, "missing%d", i), u); err != db.ErrNotFound {
					t.Fatalf("update of a missing key: %v", err)
				}
			}
			sess.Close()
			lsnBeforeAfter := lsn()
			after := probe.TakeAfter(ctx, st, before)
			if after.Err != nil {
				t.Fatal(after.Err)
			}
			srv := probe.Build(before, after, probe.Counts{Ops: 467, Inserts: 340, Updates: 120, Exact: true}, 0)

			// Rows: docbench's counts = the server's counters.
			for _, c := range []struct {
				key  string
				want float64
			}{{"rows_inserted", 340}, {"rows_updated", 120}, {"rows_deleted", 0}} {
				if f := srv.Counters[c.key]; !f.OK() || f.Value != c.want {
					t.Errorf("%s = %+v, want %v", c.key, f, c.want)
				}
			}
			if len(srv.Checks) != 2 || !srv.Checks[0].Match || !srv.Checks[1].Match {
				t.Errorf("checks: %+v", srv.Checks)
			}
			if f := srv.Counters["rows_hot_updated"]; !f.OK() || f.Value > 120 {
				t.Errorf("rows_hot_updated = %+v", f)
			}

			// WAL: the delta is pg_wal_lsn_diff of the two snapshots' LSNs,
			// and lies within the LSNs the test read around the sequence.
			var diff, outer, inner float64
			err = conn.QueryRow(ctx, "SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::float8, pg_wal_lsn_diff($3::pg_lsn, $4::pg_lsn)::float8, pg_wal_lsn_diff($5::pg_lsn, $6::pg_lsn)::float8",
				after.Snap.Facts["wal_insert_lsn"], before.Snap.Facts["wal_insert_lsn"],
				lsn(), before.Snap.Facts["wal_insert_lsn"], lsnBeforeAfter, lsnAfterBefore).Scan(&diff, &outer, &inner)
			if err != nil {
				t.Fatal(err)
			}
			wal := srv.Counters["wal_bytes"]
			if !wal.OK() || wal.Value != diff {
				t.Errorf("wal_bytes %+v, pg_wal_lsn_diff %v", wal, diff)
			}
			if wal.Value < inner || wal.Value > outer || inner < 300*2000 {
				t.Errorf("wal_bytes %v outside [%v, %v] (the sequence wrote ≥ 600 kB of documents)", wal.Value, inner, outer)
			}
			if f := srv.PerOp["wal_bytes_per_write"]; !f.OK() || f.Value != wal.Value/460 {
				t.Errorf("wal_bytes_per_write %+v", f)
			}
			if f := srv.Counters["wal_records"]; !f.OK() || f.Value < 460 {
				t.Errorf("wal_records %+v, want ≥ 460", f)
			}
			// pg_walinspect: full-page images and records account for the
			// WAL written (less page headers and alignment).
			fpi, rec := srv.Counters["wal_fpi_bytes"], srv.Counters["wal_nonfpi_bytes"]
			if !fpi.OK() || !rec.OK() || fpi.Value+rec.Value > wal.Value || fpi.Value+rec.Value < 0.8*wal.Value {
				t.Errorf("wal_fpi_bytes %+v + wal_nonfpi_bytes %+v against wal_bytes %v", fpi, rec, wal.Value)
			}

			// Storage = the catalog's.
			var heap, toast, idx, total, pkey float64
			err = conn.QueryRow(ctx, `SELECT pg_relation_size(c.oid)::float8, pg_total_relation_size(c.reltoastrelid)::float8,
				pg_indexes_size(c.oid)::float8, pg_total_relation_size(c.oid)::float8, pg_relation_size('docbench.usertable_pkey')::float8
				FROM pg_class c WHERE c.oid = 'docbench.usertable'::regclass`).Scan(&heap, &toast, &idx, &total, &pkey)
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range map[string]float64{"table_bytes": heap, "toast_bytes": toast, "index_bytes": idx,
				"total_bytes": total, "index:docbench.usertable_pkey": pkey, "documents": 340} {
				if f := srv.Storage[k]; !f.OK() || f.Value != want {
					t.Errorf("storage %s = %+v, catalog %v", k, f, want)
				}
			}
			if toast < 100*6000 {
				t.Errorf("TOAST %v: the 100 big documents are not TOASTed", toast)
			}
			if f := srv.Counters["toast_blks_hit"]; !f.OK() {
				t.Errorf("toast_blks_hit %+v", f)
			}
			// CPU: the server runs here.
			if !srv.CPU.ServerS.OK() || srv.CPU.ServerS.Value < 0 || !srv.CPU.HarnessS.OK() {
				t.Errorf("cpu %+v", srv.CPU)
			}
		})
	}
}

// TestWALFullPageImages checks pg_walinspect's split of the WAL on a phase
// that writes full-page images: updates right after a CHECKPOINT touch
// every page for the first time since it. Images and the rest are both
// positive and add up to the WAL written (less page headers and alignment).
func TestWALFullPageImages(t *testing.T) {
	for _, kind := range servers {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			st, sess, conn := walFixture(t, ctx, kind)
			var keys, docs [][]byte
			for i := range 2000 {
				keys = append(keys, fmt.Appendf(nil, "user%05d", i))
				docs = append(docs, fmt.Appendf(nil, `{"field0":"%0200d"}`, i))
			}
			if err := sess.(db.BatchInserter).InsertBatch(ctx, keys, docs); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
				t.Fatal(err)
			}
			before := probe.Take(ctx, st)
			if before.Err != nil {
				t.Fatal(before.Err)
			}
			for _, k := range keys {
				u := &db.Update{Mode: db.Merge, Doc: []byte(`{"field0":"u"}`), Paths: []string{"field0"}, Values: [][]byte{[]byte(`"u"`)}}
				if err := sess.Update(ctx, k, u); err != nil {
					t.Fatal(err)
				}
			}
			after := probe.TakeAfter(ctx, st, before)
			if after.Err != nil {
				t.Fatal(after.Err)
			}
			srv := probe.Build(before, after, probe.Counts{Ops: 2000, Updates: 2000, Exact: true}, 0)
			wal, fpi, rest := srv.Counters["wal_bytes"], srv.Counters["wal_fpi_bytes"], srv.Counters["wal_nonfpi_bytes"]
			if !wal.OK() || !fpi.OK() || !rest.OK() {
				t.Fatalf("wal_bytes %+v, wal_fpi_bytes %+v, wal_nonfpi_bytes %+v", wal, fpi, rest)
			}
			if fpi.Value <= 0 || rest.Value <= 0 {
				t.Errorf("after a CHECKPOINT: wal_fpi_bytes %v, wal_nonfpi_bytes %v, both must be positive", fpi.Value, rest.Value)
			}
			if sum := fpi.Value + rest.Value; sum > wal.Value || sum < 0.8*wal.Value {
				t.Errorf("wal_fpi_bytes %v + wal_nonfpi_bytes %v = %v against wal_bytes %v", fpi.Value, rest.Value, sum, wal.Value)
			}
		})
	}
}

// walFixture is a fresh database on a server of the kind: its store, a
// session, and a connection of the test's own, closed when the test ends.
func walFixture(t *testing.T, ctx context.Context, kind string) (*store, db.Session, *pgx.Conn) {
	t.Helper()
	url := testutil.FreshDatabase(t, testutil.Postgres(t, kind))
	st := openStore(t, url, map[string]string{"layout": "column"})
	sess := openSession(t, ctx, st, "field0")
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return st, sess, conn
}

// TestWALRecycled checks that a phase whose first WAL segment a checkpoint
// removed before pg_walinspect read it (as in a phase that writes more than
// max_wal_size) has no split of its WAL, with the reason, never a zero.
func TestWALRecycled(t *testing.T) {
	for _, kind := range servers {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			st, sess, conn := walFixture(t, ctx, kind)
			before := probe.Take(ctx, st)
			if before.Err != nil {
				t.Fatal(before.Err)
			}
			if err := sess.(db.BatchInserter).InsertBatch(ctx, [][]byte{[]byte("user1")}, [][]byte{[]byte(`{"field0":"a"}`)}); err != nil {
				t.Fatal(err)
			}
			// Each switch ends the segment and each checkpoint removes the
			// segments before its own: the phase's first is gone.
			for range 2 {
				if _, err := conn.Exec(ctx, "SELECT pg_switch_wal()"); err != nil {
					t.Fatal(err)
				}
				if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
					t.Fatal(err)
				}
			}
			after := probe.TakeAfter(ctx, st, before)
			if after.Err != nil {
				t.Fatal(after.Err)
			}
			srv := probe.Build(before, after, probe.Counts{Ops: 1, Inserts: 1, Exact: true}, 0)
			if wal := srv.Counters["wal_bytes"]; !wal.OK() || wal.Value < 16<<20 {
				t.Fatalf("wal_bytes %+v: the switches did not end a segment", wal)
			}
			for _, k := range []string{"wal_fpi_bytes", "wal_nonfpi_bytes"} {
				if f := srv.Counters[k]; f.OK() || f.Absent == "" {
					t.Errorf("%s = %+v after its WAL was recycled: want absent with the reason", k, f)
				}
			}
		})
	}
}

// TestExplainFlags checks the plans: a key lookup through the primary key
// uses its index; one without any key index is flagged, saying no index
// can serve it; GIN over the whole document serves containment lookups.
func TestExplainFlags(t *testing.T) {
	ctx := context.Background()
	server := testutil.Postgres(t, "embedded")
	for _, tc := range []struct {
		props    map[string]string
		access   string // READ's plan contains
		flagPart string // "" = not flagged
	}{
		{map[string]string{"layout": "column"}, "usertable_pkey", ""},
		{map[string]string{"layout": "document", "index": "none"}, "Seq Scan on usertable", "no index can serve"},
		// On 5000 small rows the planner may prefer a scan to the GIN
		// index: the flag then says the index can serve the lookup.
		{map[string]string{"layout": "document", "index": "gin"}, "usertable_gin", "an index can serve it"},
	} {
		name := tc.props["layout"] + "-" + tc.props["index"]
		t.Run(name, func(t *testing.T) {
			st := openStore(t, testutil.FreshDatabase(t, server), tc.props)
			sess := openSession(t, ctx, st, "field0")
			var keys, docs [][]byte
			for i := range 5000 {
				keys = append(keys, fmt.Appendf(nil, "user%05d", i))
				docs = append(docs, fmt.Appendf(nil, `{"field0":"value %d"}`, i))
			}
			if err := sess.(db.BatchInserter).InsertBatch(ctx, keys, docs); err != nil {
				t.Fatal(err)
			}
			sess.Close()
			if _, err := st.admin.Exec(ctx, "ANALYZE "+st.table); err != nil {
				t.Fatal(err)
			}
			key := keys[42]
			req := &db.ExplainRequest{Statements: []db.Statement{
				{Kind: db.StmtRead, Key: key},
				{Kind: db.StmtRead, Key: key, Fields: []string{"field0"}},
				{Kind: db.StmtScan, Key: key, Count: 10},
				{Kind: db.StmtUpdate, Key: key, Update: &db.Update{Mode: db.Partial, Paths: []string{"field0"}, Values: [][]byte{[]byte(`"x"`)}}},
				{Kind: db.StmtInsert, Key: key, Doc: docs[0]},
			}}
			plans, err := db.Explain(ctx, st, req)
			if err != nil {
				t.Fatal(err)
			}
			ops := map[string]db.Plan{}
			for _, p := range plans {
				if _, dup := ops[p.Op]; !dup {
					ops[p.Op] = p
				}
				if p.Plan == "" || p.Statement == "" {
					t.Errorf("%s: no plan or statement: %+v", p.Op, p)
				}
			}
			for _, op := range []string{"READ", "UPDATE", "INSERT", "SCAN"} {
				if _, ok := ops[op]; !ok {
					t.Errorf("no plan for %s: %+v", op, plans)
				}
			}
			read := ops["READ"]
			if !strings.Contains(read.Access+read.Flag, tc.access) {
				t.Errorf("READ access %q flag %q, want %q", read.Access, read.Flag, tc.access)
			}
			indexUsed := strings.Contains(read.Access, "Index")
			if read.Flag != "" && (indexUsed || !strings.Contains(read.Flag, tc.flagPart)) || read.Flag == "" && !indexUsed {
				t.Errorf("READ access %q flag %q, want a flag saying %q when no index is used", read.Access, read.Flag, tc.flagPart)
			}
			if u := ops["UPDATE"]; (u.Flag == "") != strings.Contains(u.Access, "Index") {
				t.Errorf("UPDATE flag %q (access %s)", u.Flag, u.Access)
			}
			if ops["INSERT"].Flag != "" {
				t.Errorf("INSERT flagged: %q", ops["INSERT"].Flag)
			}
		})
	}
}

// TestDocumentsCounted: the documents of a table are counted, not taken
// from the statistics (n_live_tup), which miss rows: here rows inserted by a
// session whose statistics are off, and an ANALYZE's estimate does the like
// for rows a load inserts while it samples.
func TestDocumentsCounted(t *testing.T) {
	ctx := context.Background()
	for _, kind := range servers {
		t.Run(kind, func(t *testing.T) {
			url := testutil.FreshDatabase(t, testutil.Postgres(t, kind))
			st := openStore(t, url, map[string]string{"layout": "column"})
			if err := st.Setup(ctx, db.Schema{Table: "usertable", Fields: []string{"field0"}}, true); err != nil {
				t.Fatal(err)
			}
			conn := testutil.PostgresConn(t, url)
			for _, q := range []string{"SET track_counts = off",
				`INSERT INTO docbench.usertable SELECT 'user' || i, '{"field0": "x"}' FROM generate_series(1, 1500) i`} {
				if _, err := conn.Exec(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			snap, err := st.Probe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var live float64
			if err := conn.QueryRow(ctx, "SELECT n_live_tup FROM pg_stat_user_tables WHERE relid = 'docbench.usertable'::regclass").Scan(&live); err != nil {
				t.Fatal(err)
			}
			if f := snap.Gauges["documents"]; f.Value != 1500 || snap.Facts[probe.DocumentsEstimated] != "" {
				t.Fatalf("documents %+v, want count(*) 1500 (n_live_tup says %v); %q", f, live, snap.Facts[probe.DocumentsEstimated])
			}
			// A role that may not turn track_counts off reads the estimate,
			// told so, rather than scan the table into the next phase's
			// buffer counters.
			for _, q := range []string{"CREATE ROLE plain LOGIN", "GRANT USAGE ON SCHEMA docbench TO plain",
				"GRANT SELECT ON ALL TABLES IN SCHEMA docbench TO plain"} {
				if _, err := conn.Exec(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			t.Cleanup(func() { conn.Exec(context.Background(), "DROP OWNED BY plain; DROP ROLE plain") })
			u, err := neturl.Parse(url)
			if err != nil {
				t.Fatal(err)
			}
			u.User = neturl.User("plain")
			snap, err = openStore(t, u.String(), map[string]string{"layout": "column"}).Probe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if f := snap.Gauges["documents"]; f.Value != live || !strings.Contains(snap.Facts[probe.DocumentsEstimated], "n_live_tup") {
				t.Fatalf("as a plain role: documents %+v, want n_live_tup %v with the fact; facts %v", f, live, snap.Facts)
			}
		})
	}
}
