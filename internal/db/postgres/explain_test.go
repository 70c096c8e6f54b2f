package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/testutil"
)

// TestExplainResetsSeqscan: explaining a statement that scans asks again
// with sequential scans off, and turns them back on: the session's later
// statements (and plans) are not made without them.
func TestExplainResetsSeqscan(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")), map[string]string{"layout": "document", "index": "none"})
	sess := openSession(t, ctx, st, "field0")
	if err := sess.Insert(ctx, []byte("user1"), []byte(`{"field0":"a"}`)); err != nil {
		t.Fatal(err)
	}
	ss := sess.(*session)
	p, err := ss.ExplainStatement(ctx, &db.Statement{Kind: db.StmtRead, Key: []byte("user1")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Flag, "no index") || !strings.Contains(p.Flag, "(") {
		t.Fatalf("flag %q: want a sequential scan flagged, asked again without sequential scans", p.Flag)
	}
	var v string
	if err := ss.conn.QueryRow(ctx, "SHOW enable_seqscan").Scan(&v); err != nil || v != "on" {
		t.Fatalf("enable_seqscan %q (%v) after the explain; want on", v, err)
	}
}
