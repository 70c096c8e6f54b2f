package testutil

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

func TestPostgres(t *testing.T) {
	for _, tc := range []struct{ kind, version string }{
		{"embedded", "PostgreSQL 18."},
		{"debian", "PostgreSQL 15."},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			url := Postgres(t, tc.kind)
			if again := Postgres(t, tc.kind); again != url {
				t.Errorf("second call started another server: %s, then %s", url, again)
			}
			db := FreshDatabase(t, url)
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			var version, current, fsync string
			if err := conn.QueryRow(ctx, "select version(), current_database(), current_setting('fsync')").Scan(&version, &current, &fsync); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(version, tc.version) {
				t.Errorf("version() = %q, want %q…", version, tc.version)
			}
			if !strings.Contains(db, "/"+current+"?") || fsync != "off" {
				t.Errorf("connected to %q with fsync=%s via %s", current, fsync, db)
			}
			// The database belongs to this test: objects can be made freely.
			if _, err := conn.Exec(ctx, "create table t (id int primary key, doc jsonb)"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestFreshDatabaseDropped(t *testing.T) {
	server := Postgres(t, "debian")
	var name string
	t.Run("inner", func(t *testing.T) {
		// Cleanups run last-in first-out: this connection is still open when
		// FreshDatabase drops the database, which must not be blocked by it.
		var conn *pgx.Conn
		t.Cleanup(func() {
			if conn != nil {
				conn.Close(context.Background())
			}
		})
		db := FreshDatabase(t, server)
		name = strings.TrimPrefix(must(url.Parse(db)).Path, "/")
		var err error
		if conn, err = pgx.Connect(context.Background(), db); err != nil {
			t.Fatal(err)
		}
	})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "select count(*) from pg_database where datname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("database %s not dropped", name)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
