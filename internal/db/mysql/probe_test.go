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
