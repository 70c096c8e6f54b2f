package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/testutil"
)

// A query mix runs on real servers with each entry reported under its own
// name and its plan taken under that name; a kind the backend cannot do
// stops the run before any operation, as a *db.ErrNotSupported naming the
// entry's line.
func TestMixRunsEachNamedQuery(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mix.yaml")
	if err := os.WriteFile(file, []byte(testMix), 0o644); err != nil {
		t.Fatal(err)
	}
	targets := map[string]string{
		"sqlite":   "sqlite:" + filepath.Join(t.TempDir(), "m.db"),
		"postgres": testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")),
		"mongodb":  testutil.FreshMongoDatabase(t, testutil.MongoDB(t)),
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			props := map[string]string{"recordcount": "300", "document.shape": "customer", "querymix": file, "batchsize": "100"}
			store, wl, docOps := setup(t, target, props)
			ctx := context.Background()
			if _, err := Execute(ctx, store, wl, docOps, Options{Phase: Load, Threads: 1}); err != nil {
				t.Fatal(err)
			}
			out, err := Execute(ctx, store, wl, docOps, Options{Phase: Run, Threads: 1, Duration: 2 * time.Second})
			if name == "mongodb" {
				var ns *db.ErrNotSupported
				if !errors.As(err, &ns) || !strings.Contains(err.Error(), "mix.yaml:7: QUERY-anywhere") || out != nil && out.Ops > 0 {
					t.Fatalf("mongodb, a descendant query: %v; want a *db.ErrNotSupported naming mix.yaml:7 before any operation", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range docOps.mixNames() {
				if n := count(out, op); n <= 0 {
					t.Errorf("%s: %d operations", op, n)
				}
			}
			plans := docOps.ExplainRequest(wl, Run).Statements
			if got := plans[len(plans)-1].Op(); got != "UPDATE-rescore" {
				t.Errorf("last plan is %s, want UPDATE-rescore", got)
			}
		})
	}
}
