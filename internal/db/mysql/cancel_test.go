package mysql

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

// A cancelled statement stops on the server (KILL QUERY by the session's
// connection id), not only in the client: the server's process list soon
// shows the session's connection without a query, and the session's next
// statements run on the same connection. In every I/O mode.
func TestCancelStopsTheStatementOnTheServer(t *testing.T) {
	bg := context.Background()
	for _, srv := range servers {
		url := testutil.FreshMySQLDatabase(t, srv.url(t))
		for _, mode := range []string{"blocking", "poller", "net"} {
			t.Run(srv.name+"/"+mode, func(t *testing.T) {
				st := openStore(t, url, map[string]string{"mysql.io": mode})
				if err := st.Setup(bg, db.Schema{Table: "usertable", Fields: []string{"field0"}}, true); err != nil {
					t.Fatal(err)
				}
				sess, err := st.NewSession(bg)
				if err != nil {
					t.Fatal(err)
				}
				defer sess.Close()
				s := sess.(*session)
				var id int64
				if err := s.Conn.QueryRowContext(bg, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
					t.Fatal(err)
				}
				err = dbtest.CancelStopsServer(t, func(ctx context.Context) error {
					_, err := s.Statement(ctx, "SELECT SLEEP(30)", nil)
					return err
				}, func() ([]string, error) {
					rows, err := st.sqlDB.QueryContext(bg, "SELECT INFO FROM information_schema.PROCESSLIST WHERE ID = ? AND COALESCE(INFO, '') <> ''", id)
					if err != nil {
						return nil, err
					}
					defer rows.Close()
					var left []string
					for rows.Next() {
						var q string
						if err := rows.Scan(&q); err != nil {
							return nil, err
						}
						left = append(left, q)
					}
					return left, rows.Err()
				})
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("cancelled statement: %v, want context.Canceled", err)
				}
				key, doc := []byte("user1"), []byte(`{"field0":"x"}`)
				if err := s.Insert(bg, key, doc); err != nil {
					t.Fatalf("insert after the cancel: %v", err)
				}
				if got, err := s.Read(bg, key, nil, nil); err != nil || !strings.Contains(string(got), `"x"`) {
					t.Fatalf("read after the cancel: %q, %v", got, err)
				}
				var after int64
				if err := s.Conn.QueryRowContext(bg, "SELECT CONNECTION_ID()").Scan(&after); err != nil || after != id {
					t.Fatalf("after the cancel the session runs on connection %d (%v), not %d", after, err, id)
				}
			})
		}
	}
}
