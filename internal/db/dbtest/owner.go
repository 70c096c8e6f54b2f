package dbtest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
)

// Owner holds what the ownership suite needs from a backend's test: a store
// whose Log writes into Logged, and the user's side of the server.
type Owner struct {
	Store db.Store
	// Logged returns what the store logged so far.
	Logged func() string
	// Foreign creates a table (collection) of the user's named table, with
	// one record and, where the server has them, a view on it.
	Foreign func(t *testing.T, table string)
	// Rows counts the records of a table, -1 when it does not exist.
	Rows func(t *testing.T, table string) int
	// FixedMarks, when not empty, says why the server keeps a table's
	// first mark (a test peer that ignores a new table comment): a
	// rewritten mark is not checked.
	FixedMarks string
}

// RunOwner checks that the store drops only what docbench created: Setup
// and Drop refuse a table of the user's (*db.ErrNotOurs) and leave it and
// its view; Setup with recreate replaces a table of docbench's and says
// whose it was; Drop drops one, and a missing one is no error.
func RunOwner(t *testing.T, o Owner) {
	ctx := context.Background()
	schema := func(table string) db.Schema {
		return db.Schema{Table: table, Fields: Fields, Columns: Columns,
			Mark: db.Mark{By: "docbench load", Created: time.Now(), Records: 9000, Properties: map[string]string{"recordcount": "9000"}}}
	}
	var notOurs *db.ErrNotOurs

	o.Foreign(t, "orders")
	if err := o.Store.Setup(ctx, schema("orders"), true); !errors.As(err, &notOurs) {
		t.Fatalf("Setup over the user's table: %v, want *db.ErrNotOurs", err)
	}
	if err := o.Store.Setup(ctx, schema("orders"), false); !errors.As(err, &notOurs) {
		t.Fatalf("Setup (no recreate) over the user's table: %v, want *db.ErrNotOurs", err)
	}
	owner := o.Store.(db.TableOwner)
	if err := owner.Drop(ctx, "orders"); !errors.As(err, &notOurs) {
		t.Fatalf("Drop of the user's table: %v, want *db.ErrNotOurs", err)
	}
	if err := owner.Owns(ctx, "orders"); !errors.As(err, &notOurs) {
		t.Fatalf("Owns of the user's table: %v, want *db.ErrNotOurs", err)
	}
	if err := owner.Owns(ctx, "nosuch"); err != nil {
		t.Fatalf("Owns of a table that does not exist: %v", err)
	}
	if n := o.Rows(t, "orders"); n != 1 {
		t.Fatalf("the user's table holds %d records after docbench refused it, want 1", n)
	}

	s := Session(t, ctx, o.Store, schema("owned"))
	if err := s.Insert(ctx, key(1), []byte(`{"field0":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if err := o.Store.Setup(ctx, schema("owned"), false); err != nil {
		t.Fatalf("Setup (no recreate) over docbench's table: %v", err)
	}
	if err := owner.Owns(ctx, "owned"); err != nil {
		t.Fatalf("Owns of docbench's table: %v", err)
	}
	if n := o.Rows(t, "owned"); n != 1 {
		t.Fatalf("Setup without recreate left %d records, want 1", n)
	}
	if err := o.Store.Setup(ctx, schema("owned"), true); err != nil {
		t.Fatalf("Setup over docbench's own table: %v", err)
	}
	replacing := regexp.MustCompile(`replacing \S*owned\S*( in \S+)?: 9,000 records loaded 20\d\d-\d\d-\d\d \d\d:\d\d UTC by docbench load`)
	if !replacing.MatchString(o.Logged()) {
		t.Errorf("recreate did not say what it replaced; logged:\n%s", o.Logged())
	}
	if n := o.Rows(t, "owned"); n != 0 {
		t.Errorf("recreated table holds %d records, want 0", n)
	}
	if o.FixedMarks == "" {
		remarkRoundTrip(t, o.Store, "owned")
	} else {
		t.Logf("a rewritten mark is not checked: %s", o.FixedMarks)
	}
	if err := owner.Drop(ctx, "owned"); err != nil {
		t.Fatalf("Drop of docbench's table: %v", err)
	}
	if n := o.Rows(t, "owned"); n != -1 {
		t.Errorf("after Drop the table still exists (%d records)", n)
	}
	if err := owner.Drop(ctx, "owned"); err != nil {
		t.Errorf("Drop of a table that is gone: %v", err)
	}
	if n := o.Rows(t, "orders"); n != 1 {
		t.Errorf("the user's table holds %d records at the end, want 1", n)
	}
}

// remarkRoundTrip checks that a mark rewritten on docbench's table (how
// its load ended) reads back, and that the table stays docbench's.
func remarkRoundTrip(t *testing.T, st db.Store, table string) {
	t.Helper()
	ctx := context.Background()
	r, ok := st.(db.Remarker)
	if !ok {
		t.Fatalf("%T marks its tables but cannot rewrite a mark (db.Remarker)", st)
	}
	m, ours, err := r.ReadMark(ctx, table)
	if err != nil || !ours || m.Records != 9000 {
		t.Fatalf("ReadMark of docbench's table: %+v, %v, %v", m, ours, err)
	}
	m.Load, m.Loaded = db.LoadStopped, 4500
	if err := r.Remark(ctx, table, m); err != nil {
		t.Fatalf("Remark: %v", err)
	}
	got, ours, err := r.ReadMark(ctx, table)
	if err != nil || !ours || got.Load != db.LoadStopped || got.Loaded != 4500 || got.Records != 9000 {
		t.Fatalf("ReadMark after Remark: %+v, %v, %v", got, ours, err)
	}
	if _, ours, err := r.ReadMark(ctx, "nosuch"); err != nil || ours {
		t.Errorf("ReadMark of a table that does not exist: docbench's %v, %v", ours, err)
	}
}

// Log collects what a store logs (db.Config.Log), for tests that read it.
type Log struct {
	mu    sync.Mutex
	lines []string
}

// Logf is a db.Config.Log.
func (l *Log) Logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

// String returns the lines logged so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}
