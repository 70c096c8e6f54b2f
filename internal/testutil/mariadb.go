package testutil

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/docbench/docbench/internal/server"
)

func init() {
	kinds["mariadb:local"] = mariadbStarter
}

// mariadbSettings are applied to every test MariaDB: no flush at commit makes
// tests faster and changes nothing a query can observe.
var mariadbSettings = map[string]string{"innodb_flush_log_at_trx_commit": "0", "innodb_doublewrite": "0"}

var mariadbStarter = starterOf(func(ctx context.Context) (*server.MariaDB, error) {
	return server.StartMariaDB(ctx, server.MariaDBOptions{Settings: mariadbSettings, Log: os.Stderr})
}, func(m *server.MariaDB) string { return m.URL })

// MariaDB returns the URL (mysql://root@127.0.0.1:PORT/docbench) of a
// private MariaDB server of the local install (server.StartMariaDB), shared
// by all tests of the binary; create your own database with
// FreshMySQLDatabase.
func MariaDB(t testing.TB) string {
	t.Helper()
	return Server(t, "mariadb:local")
}

// FreshMySQLDatabase creates a uniquely named, empty database on the MySQL
// or MariaDB server at serverURL (mysql://user:pass@host:port/db) and
// returns its URL. The database is dropped when the test ends.
func FreshMySQLDatabase(t testing.TB, serverURL string) string {
	t.Helper()
	return freshDatabase(t, serverURL,
		func(name string) error { return mysqlExec(serverURL, "CREATE DATABASE `"+name+"`") },
		func(name string) error { return mysqlExec(serverURL, "DROP DATABASE IF EXISTS `"+name+"`") })
}

// mysqlExec runs one statement on its own connection to serverURL.
func mysqlExec(serverURL, stmt string) error {
	u, err := url.Parse(serverURL)
	if err != nil {
		return err
	}
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.Timeout = "tcp", u.Host, 10*time.Second
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = db.ExecContext(ctx, stmt)
	return err
}
