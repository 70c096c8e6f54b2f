package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

// A cancelled statement stops on the server, not only in the client:
// pg_stat_activity soon shows the session's backend idle, and the session's
// next statements run on the same connection. In every I/O mode, through
// the session's own watch (core operations) and through pgx's (every other
// statement: here one of the user's).
func TestCancelStopsTheStatementOnTheServer(t *testing.T) {
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "debian"))
	bg := context.Background()
	for _, mode := range []string{"blocking", "poller", "net"} {
		st := openStore(t, url, map[string]string{"pg.io": mode})
		if err := st.Setup(bg, db.Schema{Table: "usertable", Fields: []string{"field0"}}, true); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"watch", "pgx"} {
			t.Run(mode+"/"+path, func(t *testing.T) {
				sess, err := st.NewSession(bg)
				if err != nil {
					t.Fatal(err)
				}
				defer sess.Close()
				s := sess.(*session)
				if _, err := s.conn.Prepare(bg, "slow", "SELECT pg_sleep(30)"); err != nil {
					t.Fatal(err)
				}
				run := func(ctx context.Context) error { _, err := s.execTag(ctx, "slow"); return err }
				if path == "pgx" {
					run = func(ctx context.Context) error { _, err := s.Statement(ctx, "SELECT pg_sleep(30)", nil); return err }
				}
				pid := s.pg.PID()
				err = dbtest.CancelStopsServer(t, run, func() ([]string, error) {
					rows, _ := st.admin.Query(bg, "SELECT state || ': ' || query FROM pg_stat_activity WHERE pid = $1 AND state <> 'idle'", pid)
					return pgx.CollectRows(rows, pgx.RowTo[string])
				})
				// The session's watch returns the context's error; pgx, the
				// server's query_canceled.
				if pe := (*pgconn.PgError)(nil); !errors.Is(err, context.Canceled) && !(errors.As(err, &pe) && pe.Code == "57014") {
					t.Fatalf("cancelled statement: %v, want context.Canceled or query_canceled", err)
				}
				if s.pg.IsClosed() {
					t.Fatal("the cancelled statement's connection was closed, not kept")
				}
				key, doc := []byte(mode+path), []byte(`{"field0":"x"}`)
				if err := s.Insert(bg, key, doc); err != nil {
					t.Fatalf("insert after the cancel: %v", err)
				}
				if got, err := s.Read(bg, key, nil, nil); err != nil || !strings.Contains(string(got), `"x"`) {
					t.Fatalf("read after the cancel: %q, %v", got, err)
				}
			})
		}
	}
}
