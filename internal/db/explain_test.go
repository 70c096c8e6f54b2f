package db_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
)

// recorder is a store (the null backend's) whose sessions explain: it
// records what the driver asks of them and fails at the statement it is
// told to.
type recorder struct {
	db.Store
	failAt  int   // statement index that fails (-1: none)
	openErr error // NewSession fails with it
	seen    []db.StatementKind
	closed  bool
}

func newRecorder(t *testing.T, failAt int) *recorder {
	st, err := db.Open(context.Background(), db.OpenRequest{Target: "null:"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &recorder{Store: st, failAt: failAt}
}

func (r *recorder) NewSession(ctx context.Context) (db.Session, error) {
	if r.openErr != nil {
		return nil, r.openErr
	}
	s, err := r.Store.NewSession(ctx)
	return &recording{Session: s, r: r}, err
}

type recording struct {
	db.Session
	r *recorder
}

func (s *recording) ExplainStatement(_ context.Context, st *db.Statement) (db.Plan, error) {
	r := s.r
	if len(r.seen) == r.failAt {
		return db.Plan{}, errors.New("prepare failed")
	}
	r.seen = append(r.seen, st.Kind)
	return db.Plan{Op: "ignored: the driver names it", Statement: "stmt " + string(st.Key), Access: "a"}, nil
}

func (s *recording) Close() error { s.r.closed = true; return s.Session.Close() }

func request() *db.ExplainRequest {
	k := []byte("k")
	return &db.ExplainRequest{Statements: []db.Statement{
		{Kind: db.StmtRead, Key: k},
		{Kind: db.StmtScan, Key: k, Count: 10},
		{Kind: db.StmtUpdate, Key: k, Update: &db.Update{Mode: db.Merge, Doc: []byte(`{"a":1}`), Paths: []string{"a"}, Values: [][]byte{[]byte(`1`)}}},
		{Kind: db.StmtInsert, Key: k, Doc: []byte(`{}`)},
		{Kind: db.StmtQuery, Query: &db.Query{Kind: db.QueryContains}},
	}}
}

// The driver explains every statement in order, names each plan after its
// statement, stops at an error with the plans it has, and closes what it
// opened.
func TestExplainDriver(t *testing.T) {
	ctx := context.Background()
	r := newRecorder(t, -1)
	plans, err := db.Explain(ctx, r, request())
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, p := range plans {
		ops = append(ops, p.Op)
		if p.Statement != "stmt k" && p.Op != "QUERY-CONTAINS" {
			t.Errorf("%s: statement %q, want the explainer's", p.Op, p.Statement)
		}
	}
	if want := []string{"READ", "SCAN", "UPDATE", "INSERT", "QUERY-CONTAINS"}; !reflect.DeepEqual(ops, want) {
		t.Errorf("ops %q, want %q", ops, want)
	}
	if !r.closed {
		t.Error("explain session not closed")
	}

	r = newRecorder(t, 2)
	plans, err = db.Explain(ctx, r, request())
	if err == nil || len(plans) != 2 || !r.closed {
		t.Errorf("failing third statement: %d plans, err %v, closed %v; want 2 plans, the error, closed", len(plans), err, r.closed)
	}

	r = newRecorder(t, -1)
	r.openErr = errors.New("no connection")
	if plans, err := db.Explain(ctx, r, request()); !errors.Is(err, r.openErr) || plans != nil {
		t.Errorf("open failure: %v %v", plans, err)
	}

	// A store whose sessions do not explain (null) has no plans.
	null := newRecorder(t, -1).Store
	if plans, err := db.Explain(ctx, null, request()); plans != nil || err != nil {
		t.Errorf("null: %v %v; want no plans", plans, err)
	}
}

// Every query kind has its report name.
func TestQueryOp(t *testing.T) {
	for k := range db.NumQueryKinds {
		st := db.Statement{Kind: db.StmtQuery, Query: &db.Query{Kind: k}}
		if got := st.Op(); got != "QUERY-"+strings.ToUpper(k.String()) || got != db.QueryOp(k) {
			t.Errorf("%s: %q", k, got)
		}
	}
}

// Against a real server (SQLite): one plan per statement, in order, each
// with the session's statement.
func TestExplainSQLite(t *testing.T) {
	ctx := context.Background()
	st, err := db.Open(ctx, db.OpenRequest{Target: "sqlite:" + filepath.Join(t.TempDir(), "x.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Setup(ctx, db.Schema{Table: "usertable", Fields: []string{"a"}}, true); err != nil {
		t.Fatal(err)
	}
	r := request()
	r.Statements[4].Query = &db.Query{Kind: db.QueryField, Path: "a", Value: []byte(`1`)}
	plans, err := db.Explain(ctx, st, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 5 {
		t.Fatalf("%d plans, want 5: %+v", len(plans), plans)
	}
	for i, p := range plans {
		if p.Op != r.Statements[i].Op() || p.Statement == "" || p.Access == "" {
			t.Errorf("plan %d: %+v", i, p)
		}
	}
}
