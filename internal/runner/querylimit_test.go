package runner

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	_ "github.com/mattn/go-sqlite3"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/docbench/docbench/internal/testutil"
)

// plantedEmail is the customer.email of plantedMatches of the 300 replayed
// documents; every other document has an email of its own.
const (
	plantedEmail   = "shared@example.com"
	plantedMatches = 90
	plantedDocs    = 300
)

// A field query of a mix returns every document it matches unless its
// entry sets a limit: on every backend, a query for an email 90 documents
// share returns 90 rows per call (the server's own count), and one with
// limit: 10 returns 10; the outcome names each query's limit.
func TestMixFieldQueryReturnsEveryMatch(t *testing.T) {
	dir := t.TempDir()
	var docs strings.Builder
	for i := range plantedDocs {
		email := fmt.Sprintf("c%d@example.com", i)
		if i%10 < 3 {
			email = plantedEmail
		}
		fmt.Fprintf(&docs, `{"customer":{"email":%q,"name":"n%d"},"total":%d}`+"\n", email, i, i)
	}
	replay := filepath.Join(dir, "orders.ndjson")
	mix := filepath.Join(dir, "mix.yaml")
	if err := os.WriteFile(replay, []byte(docs.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mix, []byte(`queries:
  - {name: by-email, kind: field, path: customer.email, value: `+plantedEmail+`, proportion: 0.5}
  - {name: by-email-page, kind: field, path: customer.email, value: `+plantedEmail+`, limit: 10, proportion: 0.5}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	targets := map[string]string{
		"sqlite":   "sqlite:" + filepath.Join(dir, "q.db"),
		"postgres": testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")),
		"mariadb":  testutil.FreshMySQLDatabase(t, testutil.MariaDB(t)),
		"mongodb":  testutil.FreshMongoDatabase(t, testutil.MongoDB(t)),
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			props := map[string]string{"recordcount": fmt.Sprint(plantedDocs), "operationcount": "60", "batchsize": "100",
				"document.replay": replay, "querymix": mix, "readproportion": "0", "updateproportion": "0"}
			store, wl, docOps := setup(t, target, props)
			ctx := context.Background()
			if _, err := Execute(ctx, store, wl, docOps, Options{Phase: Load, Threads: 1}); err != nil {
				t.Fatal(err)
			}
			if n := serverCount(t, name, target); n != plantedMatches {
				t.Fatalf("the server counts %d documents with customer.email %s, want %d", n, plantedEmail, plantedMatches)
			}
			out, err := Execute(ctx, store, wl, docOps, Options{Phase: Run, Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			for op, want := range map[string]struct{ rows, limit int }{
				"QUERY-by-email": {plantedMatches, 0}, "QUERY-by-email-page": {10, 10}} {
				i := indexOf(out.Names, op)
				calls := out.Totals.Service[i].TotalCount()
				if calls == 0 || out.Totals.Errors[i] > 0 || out.Totals.Rows[i] != calls*int64(want.rows) {
					t.Errorf("%s: %d rows in %d calls, %d failed (%v); want %d per call", op, out.Totals.Rows[i], calls,
						out.Totals.Errors[i], out.Totals.Messages[i], want.rows)
				}
				if p := out.Queries[op]; p.Kind != "field" || p.Limit != want.limit {
					t.Errorf("%s: page %+v, want a field query with limit %d", op, p, want.limit)
				}
			}
		})
	}
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// serverCount asks the server itself how many documents of docbench's
// table have customer.email plantedEmail.
func serverCount(t *testing.T, backend, target string) int64 {
	t.Helper()
	ctx := context.Background()
	var n int64
	var err error
	switch backend {
	case "postgres":
		err = testutil.PostgresConn(t, target).QueryRow(ctx,
			"SELECT count(*) FROM docbench.usertable WHERE data #>> '{customer,email}' = $1", plantedEmail).Scan(&n)
	case "sqlite", "mariadb":
		var d *sql.DB
		if d, err = openSQL(backend, target); err != nil {
			break
		}
		defer d.Close()
		q := "SELECT count(*) FROM usertable WHERE data ->> '$.customer.email' = ?"
		if backend == "mariadb" {
			q = "SELECT count(*) FROM usertable WHERE JSON_VALUE(data, '$.customer.email') = ?"
		}
		err = d.QueryRowContext(ctx, q, plantedEmail).Scan(&n)
	case "mongodb":
		var client *mongo.Client
		if client, err = mongo.Connect(options.Client().ApplyURI(target)); err != nil {
			break
		}
		defer client.Disconnect(ctx)
		u, _ := url.Parse(target)
		n, err = client.Database(strings.TrimPrefix(u.Path, "/")).Collection("usertable").
			CountDocuments(ctx, bson.D{{Key: "customer.email", Value: plantedEmail}})
	}
	if err != nil {
		t.Fatalf("%s: count: %v", backend, err)
	}
	return n
}

// openSQL opens the SQLite file or the MariaDB database of target.
func openSQL(backend, target string) (*sql.DB, error) {
	if backend == "sqlite" {
		return sql.Open("sqlite3", strings.TrimPrefix(target, "sqlite:"))
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.DBName = "tcp", u.Host, strings.TrimPrefix(u.Path, "/")
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}
