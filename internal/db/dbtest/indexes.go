package dbtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/probe"
)

// IndexPaths are the secondary indexes RunIndexes loads with.
var IndexPaths = []db.Index{{Path: "address.city"}, {Path: "score"}, {Path: "tags", Array: true}}

// RunIndexes checks that a run's audit lists the secondary indexes the
// table has, read from the server's catalog: a store sets the table up
// with IndexPaths, as a load does; two stores opened afresh, as two runs
// are (no Setup), list want (the paths the backend indexes, "address.city,
// score" where arrays have none) in their Info and audit, alike, and the
// fairness audit of the two finds the secondary indexes equal. open opens a
// store on the same database each time; the table is "ixaudit".
func RunIndexes(t *testing.T, open func(t *testing.T, props map[string]string) db.Store, want string) {
	ctx := context.Background()
	props := map[string]string{"table": "ixaudit"}
	load := open(t, props)
	schema := db.Schema{Table: "ixaudit", Fields: Fields, Columns: Columns, Indexes: IndexPaths,
		Mark: db.Mark{By: "docbench load", Created: time.Now(), Records: 1, Properties: map[string]string{}}}
	if err := load.Setup(ctx, schema, true); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	audit := func(st db.Store) db.Audit {
		t.Helper()
		info, err := st.Info(ctx)
		if err != nil {
			t.Fatalf("Info: %v", err)
		}
		return probe.Classify(info.Backend, info.Settings, info.Layout, 1)
	}
	loaded := audit(load)
	var ts []probe.Target
	for _, name := range []string{"A", "B"} {
		a := audit(open(t, props))
		if a.SecondaryIndexes != want || a.SecondaryIndexesDetail == "" {
			t.Fatalf("run %s: audit secondary indexes %q (%s), want %q with their definitions", name, a.SecondaryIndexes, a.SecondaryIndexesDetail, want)
		}
		if a.SecondaryIndexes != loaded.SecondaryIndexes || a.SecondaryIndexesDetail != loaded.SecondaryIndexesDetail {
			t.Fatalf("run %s: %q (%s), the load's store: %q (%s)", name, a.SecondaryIndexes, a.SecondaryIndexesDetail,
				loaded.SecondaryIndexes, loaded.SecondaryIndexesDetail)
		}
		ts = append(ts, probe.Target{Name: name, Audit: a})
	}
	for _, l := range probe.Lines(probe.Compare(ts), []string{"A", "B"}) {
		if strings.Contains(l, "secondary indexes") && !strings.HasPrefix(l, "equal:") {
			t.Fatalf("fairness audit of two runs on one table: %s", l)
		}
	}
}
