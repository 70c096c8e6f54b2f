package testutil

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var dbSeq atomic.Int64

var nonIdent = regexp.MustCompile(`[^a-z0-9_]+`)

// FreshDatabase creates a uniquely named, empty database on the PostgreSQL
// server at serverURL and returns its URL. The database is dropped (with
// FORCE, closing leftover connections) when the test ends.
func FreshDatabase(t testing.TB, serverURL string) string {
	t.Helper()
	return freshDatabase(t, serverURL,
		func(name string) error {
			return adminExec(serverURL, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
		},
		func(name string) error {
			return adminExec(serverURL, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
		})
}

// freshDatabase is the shape of every Fresh*Database: it picks a name unique
// to the test, creates the database (create may be nil: a database that
// comes into being on first use), drops it when the test ends and returns
// serverURL with the name as its path.
func freshDatabase(t testing.TB, serverURL string, create, drop func(name string) error) string {
	t.Helper()
	base := nonIdent.ReplaceAllString(strings.ToLower(t.Name()), "_")
	if len(base) > 40 {
		base = base[:40]
	}
	name := fmt.Sprintf("t_%s_%d_%d", base, time.Now().UnixNano()%1e6, dbSeq.Add(1))
	if create != nil {
		if err := create(name); err != nil {
			t.Fatalf("testutil: create database %s: %v", name, err)
		}
	}
	t.Cleanup(func() {
		if err := drop(name); err != nil {
			t.Errorf("testutil: drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatalf("testutil: server URL %q: %v", serverURL, err)
	}
	u.Path = "/" + name
	return u.String()
}

// adminExec runs one statement on its own connection to serverURL.
func adminExec(serverURL, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// PostgresConn opens a connection of the test's own to the PostgreSQL at
// url (to hold a lock, watch pg_stat_activity), closed when the test ends.
func PostgresConn(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
