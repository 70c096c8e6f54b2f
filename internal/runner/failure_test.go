package runner

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
)

// panicStore hands out sessions whose Update panics: a bug in an adapter,
// not database behaviour.
type panicStore struct{ db.Store }

func (s panicStore) NewSession(ctx context.Context) (db.Session, error) {
	sess, err := s.Store.NewSession(ctx)
	return panicSession{sess}, err
}

type panicSession struct{ db.Session }

func (panicSession) Update(context.Context, []byte, *db.Update) error { panic("adapter bug") }

// A worker's panic ends the phase with its message and what was measured,
// never a stack trace.
func TestWorkerPanicKeepsPartialResult(t *testing.T) {
	ctx := context.Background()
	store, wl, docOps := setup(t, "sqlite:"+filepath.Join(t.TempDir(), "p.db"), map[string]string{"recordcount": "100", "operationcount": "100000"})
	if _, err := Execute(ctx, store, wl, docOps, Options{Phase: Load, Threads: 1}); err != nil {
		t.Fatal(err)
	}
	out, err := Execute(ctx, panicStore{store}, wl, docOps, Options{Phase: Run, Threads: 2})
	if !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "panicked: adapter bug") {
		t.Fatalf("err = %v", err)
	}
	if out == nil || out.Complete || out.Stopped != "panic" || !strings.Contains(out.Failure, "adapter bug") {
		t.Fatalf("outcome %+v", out)
	}
}

// Warm-up failures are counted and reported, not thrown away.
func TestWarmupFailuresReported(t *testing.T) {
	ctx := context.Background()
	props := map[string]string{"recordcount": "100", "operationcount": "200", "readproportion": "1", "updateproportion": "0"}
	path := filepath.Join(t.TempDir(), "w.db")
	store, wl, docOps := setup(t, "sqlite:"+path, props)
	if _, err := Execute(ctx, store, wl, docOps, Options{Phase: Load, Threads: 1}); err != nil {
		t.Fatal(err)
	}
	props["recordcount"] = "1000000" // most keys read are absent
	store2, wl2, plan2 := setupNoRecreate(t, "sqlite:"+path, props)
	out, err := Execute(ctx, store2, wl2, plan2, Options{Phase: Run, Threads: 1, Warmup: 300 * time.Millisecond, MaxErrorShare: -1})
	if err != nil {
		t.Fatal(err)
	}
	if out.Warmup == nil || out.Warmup.Ops == 0 || out.Warmup.Errors[0] == 0 || len(out.Warmup.Messages[0]) == 0 {
		t.Fatalf("warm-up %+v", out.Warmup)
	}
	if out.Totals.NotFound[0] == 0 || out.Failed != out.Totals.Errors[0] {
		t.Fatalf("not found %d, failed %d, errors %d", out.Totals.NotFound[0], out.Failed, out.Totals.Errors[0])
	}
}
