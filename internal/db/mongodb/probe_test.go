package mongodb

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/docbench/docbench/internal/probe"
)

// TestProbePeer: what the peer reports is reported (document count, data
// size as collStats says), what it cannot give is absent with a reason.
func TestProbePeer(t *testing.T) {
	ctx := context.Background()
	st, uri := openPeer(t, "")
	sess := setup(t, st)
	before := probe.Take(ctx, st)
	if before.Err != nil {
		t.Fatal(before.Err)
	}
	for i := range 30 {
		if err := sess.Insert(ctx, fmt.Appendf(nil, "user%d", i), []byte(`{"field0":"abc"}`)); err != nil {
			t.Fatal(err)
		}
	}
	after := probe.Take(ctx, st)
	if after.Err != nil {
		t.Fatal(after.Err)
	}
	srv := probe.Build(before, after, probe.Counts{Ops: 30, Inserts: 30, Exact: true}, 20)
	for _, k := range []string{"journal_bytes", "opcounters_insert"} {
		if f := srv.Counters[k]; f.OK() || f.Absent == "" {
			t.Errorf("%s = %+v: the peer reports none, want absent with a reason", k, f)
		}
	}
	if f := srv.PerOp["journal_bytes_per_insert"]; f.OK() || f.Absent == "" {
		t.Errorf("journal_bytes_per_insert %+v: want absent", f)
	}
	var cs bson.M
	if err := st.database.RunCommand(ctx, bson.D{{Key: "collStats", Value: "usertable"}}).Decode(&cs); err != nil {
		t.Fatal(err)
	}
	if f := srv.Storage["documents"]; !f.OK() || f.Value != 30 {
		t.Errorf("documents %+v", f)
	}
	if f := srv.Storage["table_bytes"]; f.OK() || !strings.Contains(f.Absent, "storageSize 0") {
		t.Errorf("table_bytes %+v, collStats %v", f, cs)
	}
	if f := srv.Storage["secondary_index_bytes"]; !f.OK() && f.Absent == "" {
		t.Errorf("secondary_index_bytes %+v: want a figure or a reason", f)
	}
	if !strings.Contains(srv.Facts["peer"], "peer") {
		t.Errorf("facts %v", srv.Facts)
	}
	_ = uri
}
