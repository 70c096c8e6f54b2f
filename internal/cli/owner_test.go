package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/testutil"
)

// TestNeverDestroysTheUsersTables: a load or a study pointed at a table of
// the user's stops with one line and exit 2, leaving it and its view; a
// study on the server of a load leaves the loaded records; a second load
// says what it replaces.
func TestNeverDestroysTheUsersTables(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	count := func(table string) int {
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			return -1
		}
		return n
	}
	for _, q := range []string{"CREATE SCHEMA docbench", "CREATE TABLE docbench.orders (id int)",
		"INSERT INTO docbench.orders VALUES (1), (2)", "CREATE VIEW docbench.big_orders AS SELECT * FROM docbench.orders"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	oneLine := func(what, stderr string, code int) {
		t.Helper()
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 ||
			!strings.HasPrefix(stderr, "docbench: docbench.orders exists and was not created by docbench; choose another table") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line", what, code, stderr)
		}
	}
	_, stderr, code := docbench(t, "load", "-t", url, "-P", "workloada", "-p", "recordcount=100", "-p", "table=orders")
	oneLine("load -p table=orders", stderr, code)

	dir := t.TempDir()
	studyFile := filepath.Join(dir, "s.yaml")
	study := "name: own\ntitle: a study on the user's server\ntargets:\n  - {name: pg, target: \"" + url + "\"}\n" +
		"workloads:\n  - {name: c, workload: workloadc}\nproperties: {recordcount: 200}\nrounds: 1\nduration: 300ms\n"
	os.WriteFile(studyFile, []byte(strings.Replace(study, "properties: {", "properties: {table: orders, ", 1)), 0o644)
	_, stderr, code = docbench(t, "study", studyFile, "--out", filepath.Join(dir, "bad"))
	oneLine("study with table: orders", stderr, code)
	if _, err := os.Stat(filepath.Join(dir, "bad")); err == nil {
		t.Error("a study refused for the user's table left its directory")
	}
	if count("docbench.orders") != 2 || count("docbench.big_orders") != 2 {
		t.Fatalf("the user's table or view changed: %d, %d records", count("docbench.orders"), count("docbench.big_orders"))
	}

	if _, stderr, code := docbench(t, "load", "-t", url, "-P", "workloada", "-p", "recordcount=300"); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	os.WriteFile(studyFile, []byte(study), 0o644)
	if _, stderr, code := docbench(t, "study", studyFile, "--out", filepath.Join(dir, "good")); code != 0 {
		t.Fatalf("study: exit %d: %s", code, stderr)
	}
	if n := count("docbench.usertable"); n != 300 {
		t.Errorf("after a study on the same server the loaded table holds %d records, want 300", n)
	}
	if n := count("docbench.study_own_pg"); n != -1 {
		t.Errorf("the study's table was left behind (%d records)", n)
	}
	if _, stderr, code := docbench(t, "study", studyFile, "--keep", "--out", filepath.Join(dir, "kept")); code != 0 {
		t.Fatalf("study --keep: exit %d: %s", code, stderr)
	}
	if n := count("docbench.study_own_pg"); n != 200 {
		t.Errorf("study --keep: its table holds %d records, want 200", n)
	}

	_, stderr, code = docbench(t, "load", "-t", url, "-P", "workloada", "-p", "recordcount=300")
	if code != 0 || !strings.Contains(stderr, "replacing docbench.usertable: 300 records loaded 20") || !strings.Contains(stderr, "by docbench load") {
		t.Errorf("a second load: exit %d, did not say what it replaces:\n%s", code, stderr)
	}
}
