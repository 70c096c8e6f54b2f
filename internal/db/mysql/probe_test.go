package mysql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/testutil"
)

// innodbLSN reads the redo position from SHOW ENGINE INNODB STATUS, apart
// from the status variable the probe reads.
func innodbLSN(t *testing.T, st *store) float64 {
	t.Helper()
	var typ, name, status string
	if err := st.sqlDB.QueryRow("SHOW ENGINE INNODB STATUS").Scan(&typ, &name, &status); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, "Log sequence number"); ok {
			var v float64
			fmt.Sscan(strings.TrimSpace(rest), &v)
			return v
		}
	}
	t.Fatalf("no Log sequence number in:\n%s", status)
	return 0
}

// TestProbeAccuracy: rows counted by the server = docbench's, redo bytes
// within the LSNs read independently, sizes = information_schema's.
func TestProbeAccuracy(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshMySQLDatabase(t, testutil.MariaDB(t))
	st := openStore(t, url, map[string]string{"layout": layoutColumn})
	if err := st.Setup(ctx, db.Schema{Table: "usertable", Fields: []string{"field0"}}, true); err != nil {
		t.Fatal(err)
	}
	before := probe.Take(ctx, st)
	if before.Err != nil {
		t.Fatal(before.Err)
	}
	lsn0 := innodbLSN(t, st)
	sess, err := st.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if err := sess.Insert(ctx, fmt.Appendf(nil, "user%04d", i), []byte(`{"field0":"`+strings.Repeat("v", 500)+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 50 {
		u := &db.Update{Mode: db.Partial, Paths: []string{"field0"}, Values: [][]byte{fmt.Appendf(nil, `"new %d"`, i)}}
		if err := sess.Update(ctx, fmt.Appendf(nil, "user%04d", i), u); err != nil {
			t.Fatal(err)
		}
	}
	sess.Close()
	lsn1 := innodbLSN(t, st)
	after := probe.Take(ctx, st)
	if after.Err != nil {
		t.Fatal(after.Err)
	}
	srv := probe.Build(before, after, probe.Counts{Ops: 250, Inserts: 200, Updates: 50, Exact: true}, 0)
	for k, want := range map[string]float64{"rows_inserted": 200, "rows_updated": 50} {
		if f := srv.Counters[k]; !f.OK() || f.Value != want {
			t.Errorf("%s = %+v, want %v", k, f, want)
		}
	}
	redo := srv.Counters["redo_bytes"]
	if !redo.OK() || redo.Value < lsn1-lsn0 || redo.Value < 200*500 {
		t.Errorf("redo_bytes %+v; the LSN moved %v between the test's reads", redo, lsn1-lsn0)
	}
	if f := srv.Counters["binlog_bytes"]; f.OK() || !strings.Contains(f.Absent, "binary log off") {
		t.Errorf("binlog_bytes %+v: the test server has no binary log", f)
	}
	var data, index float64
	if err := st.sqlDB.QueryRow(`SELECT data_length, index_length FROM information_schema.TABLES WHERE table_schema = ? AND table_name = 'usertable'`, st.dbName).Scan(&data, &index); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]float64{"table_bytes": data, "index_bytes": index, "total_bytes": data + index, "documents": 200} {
		if f := srv.Storage[k]; !f.OK() || f.Value != want {
			t.Errorf("storage %s = %+v, information_schema %v", k, f, want)
		}
	}
	if !srv.CPU.ServerS.OK() {
		t.Errorf("server CPU absent: %s", srv.CPU.ServerS.Absent)
	}
}

// TestUnchangedUpdatesExplained: MariaDB does not count an UPDATE that sets
// the values a row has (Handler_update counts changed rows); the check of
// rows updated says so instead of reporting a bare mismatch.
func TestUnchangedUpdatesExplained(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshMySQLDatabase(t, testutil.MariaDB(t))
	st := openStore(t, url, map[string]string{"layout": layoutColumn})
	if err := st.Setup(ctx, db.Schema{Table: "usertable", Fields: []string{"field0"}}, true); err != nil {
		t.Fatal(err)
	}
	sess, err := st.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	update := func(i int, v string) {
		u := &db.Update{Mode: db.Partial, Paths: []string{"field0"}, Values: [][]byte{[]byte(`"` + v + `"`)}}
		if err := sess.Update(ctx, fmt.Appendf(nil, "user%04d", i), u); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		if err := sess.Insert(ctx, fmt.Appendf(nil, "user%04d", i), []byte(`{"field0":"old"}`)); err != nil {
			t.Fatal(err)
		}
		update(i, "same") // the stored text as JSON_SET writes it
	}
	before := probe.Take(ctx, st)
	for i := range 20 {
		update(i, map[bool]string{true: "same", false: "new"}[i < 8])
	}
	after := probe.Take(ctx, st)
	srv := probe.Build(before, after, probe.Counts{Ops: 20, Updates: 20, Exact: true}, 0)
	if f := srv.Counters["rows_updated"]; f.Value != 12 {
		t.Fatalf("rows_updated %+v, want the 12 rows changed", f)
	}
	want := probe.Check{What: "rows updated", Docbench: 20, Server: 12,
		Explained: "MariaDB counts only the rows an UPDATE changed: at least 8 of docbench's updates set the values already there"}
	if len(srv.Checks) != 1 || srv.Checks[0] != want {
		t.Fatalf("checks %+v, want %+v", srv.Checks, want)
	}
}
