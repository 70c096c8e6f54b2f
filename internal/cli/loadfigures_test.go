package cli

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/testutil"
)

// TestLoadFiguresExact loads a file of 400 documents of uneven sizes and
// runs on it, on PostgreSQL 18 and 15, MariaDB and SQLite: each phase's
// documents are the server's count (checked against docbench's inserts
// on the load), bytes per document divide by it, and the raw JSON size is
// the exact mean of the documents, as the test computes it from the file.
func TestLoadFiguresExact(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "orders.ndjson")
	var lines []string
	total := 0
	for i := range 400 {
		b, _ := json.Marshal(map[string]any{"n": i, "note": strings.Repeat("x", (i*7919)%2500)})
		lines = append(lines, string(b))
		total += len(b)
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exact := math.Round(float64(total)/400*10) / 10
	pg18 := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	pg15 := testutil.FreshDatabase(t, testutil.Postgres(t, "debian"))
	targets := map[string]string{"pg18": pg18, "pg15": pg15, "sqlite": "sqlite:" + filepath.Join(dir, "o.db"),
		"mariadb": testutil.FreshMySQLDatabase(t, testutil.MariaDB(t))}
	for name, target := range targets {
		base := []string{"-t", target, "-P", "workloada", "-p", "document.replay=" + file, "-p", "recordcount=400", "--status", "0"}
		load, run := filepath.Join(dir, name+"-load.json"), filepath.Join(dir, name+"-run.json")
		if _, stderr, code := docbench(t, append([]string{"load", "--out", load, "-p", "batchsize=7"}, base...)...); code != 0 {
			t.Fatalf("%s load: exit %d: %s", name, code, stderr)
		}
		if _, stderr, code := docbench(t, append([]string{"run", "--out", run, "-p", "operationcount=200"}, base...)...); code != 0 {
			t.Fatalf("%s run: exit %d: %s", name, code, stderr)
		}
		for _, path := range []string{load, run} {
			res := readResult(t, path)
			st := res.Server.Storage
			if st["documents"].Value != 400 || st["raw_json_bytes_per_document"].Value != exact ||
				st["bytes_per_document"].Value != st["total_bytes"].Value/400 {
				t.Errorf("%s %s: documents %v, raw JSON %v B/document (exact %v), bytes/document %v of %v total",
					name, res.Phase, st["documents"], st["raw_json_bytes_per_document"], exact, st["bytes_per_document"], st["total_bytes"])
			}
			if res.Phase != "load" {
				continue
			}
			if c := checkOf(res, "documents stored"); c == nil || !c.Match || c.Docbench != 400 {
				t.Errorf("%s load: documents stored check %+v", name, c)
			}
		}
	}
	for _, url := range []string{pg18, pg15} {
		var n int
		if err := testutil.PostgresConn(t, url).QueryRow(context.Background(), "SELECT count(*) FROM docbench.usertable").Scan(&n); err != nil || n != 400 {
			t.Errorf("%s: count(*) %d, %v", url, n, err)
		}
	}
}

// checkOf is the check of res named what.
func checkOf(res *report.Result, what string) *probe.Check {
	for _, c := range res.Server.Checks {
		if c.What == what {
			return &c
		}
	}
	return nil
}
