package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
)

// opIndex is the index of the named operation in o, or fails the test.
func opIndex(t *testing.T, o *Outcome, name string) int {
	t.Helper()
	for i, n := range o.Names {
		if n == name {
			return i
		}
	}
	t.Fatalf("no %s among %v", name, o.Names)
	return -1
}

// With dataintegrity every read is verified and the check is timed apart
// as VERIFY, as YCSB does; a document changed behind docbench's back fails
// VERIFY, not the READ, and counts as a failed operation.
func TestVerifyIsTimedApartFromRead(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v.db")
	props := map[string]string{"recordcount": "100", "operationcount": "600", "dataintegrity": "true",
		"readproportion": "0.5", "updateproportion": "0", "readmodifywriteproportion": "0.5"}
	store, wl, docOps := setup(t, "sqlite:"+path, props)
	if _, err := Execute(ctx, store, wl, docOps, Options{Phase: Load, Threads: 1}); err != nil {
		t.Fatal(err)
	}
	out, err := Execute(ctx, store, wl, docOps, Options{Phase: Run, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	read, verify := opIndex(t, out, "READ"), opIndex(t, out, "VERIFY")
	reads := out.Totals.Service[read].TotalCount()
	if n := count(out, "VERIFY"); n != reads || reads != 600 || out.Totals.Errors[verify] != 0 || out.Failed != 0 {
		t.Fatalf("%d reads (of them %d from read-modify-writes), %d verified, %d verifications failed: %v",
			reads, count(out, "READ-MODIFY-WRITE"), n, out.Totals.Errors[verify], out.Totals.Messages[verify])
	}
	if v := out.Totals.Service[verify]; v.Min() <= 0 {
		t.Fatalf("VERIFY min %v: the checks were not timed", time.Duration(v.Min()))
	}

	// Change every record's field0 behind docbench's back (the run's
	// updates write YCSB's value back to some).
	s, err := store.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	th := wl.NewThread(0)
	for k := range int64(100) {
		u := &db.Update{Mode: db.Partial, Paths: []string{"field0"}, Values: [][]byte{[]byte(`"tampered"`)}}
		if err := s.Update(ctx, th.AppendKey(nil, k), u); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	out, err = Execute(ctx, store, wl, docOps, Options{Phase: Run, Threads: 1, MaxErrorShare: -1})
	if err != nil {
		t.Fatal(err)
	}
	read, verify = opIndex(t, out, "READ"), opIndex(t, out, "VERIFY")
	if e := out.Totals.Errors[verify]; e == 0 || out.Totals.Errors[read] != 0 || out.Failed != e ||
		!strings.Contains(out.Totals.Messages[verify][0].Message, "field0 differs") {
		t.Fatalf("tampered records: %d VERIFY errors %v, %d READ errors, %d failed operations",
			e, out.Totals.Messages[verify], out.Totals.Errors[read], out.Failed)
	}
}

// slowReads delays every read: the first part of a read-modify-write
// that takes its time.
type slowReads struct{ db.Store }

type slowReadSession struct{ db.Session }

func (s slowReads) NewSession(ctx context.Context) (db.Session, error) {
	inner, err := s.Store.NewSession(ctx)
	return slowReadSession{inner}, err
}

// slowRead is how long slowReadSession's reads take at least.
const slowRead = 3 * time.Millisecond

func (s slowReadSession) Read(ctx context.Context, key []byte, fields []string, dst []byte) ([]byte, error) {
	time.Sleep(slowRead)
	return s.Session.Read(ctx, key, fields, dst)
}

// Under a target rate, the UPDATE of a read-modify-write has its response
// time from the operation's intended start, read included, as YCSB's DB
// wrapper gives it; its service time is its own.
func TestReadModifyWriteUpdateFromIntendedStart(t *testing.T) {
	store, wl, docOps := setup(t, "null:", map[string]string{"recordcount": "100", "operationcount": "30",
		"readproportion": "0", "updateproportion": "0", "readmodifywriteproportion": "1"})
	// 10 ms between operations: a 3 ms read never puts the worker behind.
	out, err := Execute(context.Background(), slowReads{store}, wl, docOps, Options{Phase: Run, Threads: 1, Rate: 100})
	if err != nil {
		t.Fatal(err)
	}
	update := opIndex(t, out, "UPDATE")
	service, response := out.Totals.Service[update], out.Totals.Response[update]
	if response.TotalCount() != 30 || service.TotalCount() != 30 {
		t.Fatalf("%d UPDATE response times, %d service times; want 30", response.TotalCount(), service.TotalCount())
	}
	if min := time.Duration(response.Min()); min < slowRead {
		t.Fatalf("UPDATE response time min %v: not from the intended start (the read alone takes %v)", min, slowRead)
	}
	if p50 := time.Duration(service.ValueAtQuantile(50)); p50 >= slowRead {
		t.Fatalf("UPDATE service time p50 %v: holds more than the update", p50)
	}
	rmw := opIndex(t, out, "READ-MODIFY-WRITE")
	if r, u := out.Totals.Response[rmw].Max(), response.Max(); u > r {
		t.Fatalf("UPDATE response max %v past its read-modify-write's %v", time.Duration(u), time.Duration(r))
	}
}
