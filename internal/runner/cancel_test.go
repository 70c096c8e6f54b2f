package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

// A phase cancelled while its statements run on the server leaves none of
// them running there once it has returned: the next phase, or a study's
// next round, starts on a quiet server.
func TestCancelledPhaseLeavesTheServerQuiet(t *testing.T) {
	for _, c := range []struct {
		name, target, stmt string
		running            string // one row per statement of the phase's still running
	}{
		{"postgres", testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")), "SELECT pg_sleep(30)",
			"SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'SELECT pg_sleep(30)' AND state <> 'idle'"},
		{"mariadb", testutil.FreshMySQLDatabase(t, testutil.MariaDB(t)), "SELECT SLEEP(30)",
			"SELECT ID FROM information_schema.PROCESSLIST WHERE INFO = 'SELECT SLEEP(30)'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			const threads = 2
			store, wl, docOps := setup(t, c.target, map[string]string{"recordcount": "10", "operationcount": "0",
				"readproportion": "0", "updateproportion": "0", "statementproportion": "1", "statement.sql": c.stmt})
			probe, err := store.NewSession(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer probe.Close()
			running := func() ([]string, error) {
				n, err := probe.(db.Statementer).Statement(context.Background(), c.running, nil)
				return make([]string, n), err
			}
			err = dbtest.CancelStopsServer(t, func(ctx context.Context) error {
				_, err := Execute(ctx, store, wl, docOps, Options{Phase: Run, Threads: threads, Drain: 100 * time.Millisecond})
				return err
			}, running)
			if !errors.Is(err, ErrInterrupted) && !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled phase: %v, want it interrupted", err)
			}
		})
	}
}
