package runner

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/docbench/docbench/internal/db"
)

// Verify tells intact, updated, missing and corrupt records apart on a
// loaded SQLite table.
func TestVerify(t *testing.T) {
	ctx := context.Background()
	store, wl, docOps := setup(t, "sqlite:"+filepath.Join(t.TempDir(), "v.db"), map[string]string{"recordcount": "200"})
	if _, err := Execute(ctx, store, wl, docOps, Options{Phase: Load, Threads: 2}); err != nil {
		t.Fatal(err)
	}
	v, err := Verify(ctx, store, wl, docOps, 2)
	if err != nil {
		t.Fatal(err)
	}
	if v.Records != 200 || v.Intact != 200 || v.Updated != 0 || !v.OK() {
		t.Fatalf("fresh load: %+v", v)
	}

	sess, err := store.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	th := wl.NewThread(0)
	key := func(k int64) []byte { return th.AppendKey(nil, k) }
	// An update writes a value of the same type: updated.
	val, _ := json.Marshal("changed")
	if err := sess.Update(ctx, key(1), &db.Update{Mode: db.Merge, Doc: []byte(`{"field0":"changed"}`),
		Paths: []string{"field0"}, Values: [][]byte{val}}); err != nil {
		t.Fatal(err)
	}
	// A deleted record is missing; another document under a key is corrupt.
	if err := sess.Delete(ctx, key(2)); err != nil {
		t.Fatal(err)
	}
	if err := sess.Delete(ctx, key(3)); err != nil {
		t.Fatal(err)
	}
	if err := sess.Insert(ctx, key(3), []byte(`{"field0":1}`)); err != nil {
		t.Fatal(err)
	}
	v, err = Verify(ctx, store, wl, docOps, 2)
	if err != nil {
		t.Fatal(err)
	}
	if v.Records != 200 || v.Intact != 197 || v.Updated != 1 || v.Missing != 1 || v.Corrupt != 1 || v.OK() ||
		len(v.FirstCorrupt) != 1 || v.FirstCorrupt[0] != string(key(3)) {
		t.Fatalf("after changes: %+v", v)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	// Cancelled: interrupted (or the session could not open), never a verdict.
	if v, err := Verify(cancelled, store, wl, docOps, 1); err == nil || !errors.Is(err, ErrInterrupted) && !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %+v, %v", v, err)
	}
}

func TestCompareDocs(t *testing.T) {
	want := `{"a":"x","b":{"c":1}}`
	for stored, v := range map[string]verdict{
		want:                        intact,
		`{"b":{"c":1},"a":"x"}`:     intact,
		`{"a":"y","b":{"c":1}}`:     updated,
		`{"a":1,"b":{"c":1}}`:       corrupt,
		`{"a":"x"}`:                 corrupt,
		`{"a":"x","b":{},"d":true}`: corrupt,
		`not json`:                  corrupt,
	} {
		if got := compareDocs([]byte(stored), []byte(want)); got != v {
			t.Errorf("compareDocs(%s) = %d, want %d", stored, got, v)
		}
	}
}
