package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/testutil"
)

// scriptDialect is what the script test writes differently per backend.
type scriptDialect struct {
	target, setup string
	p             string // the placeholder of the first parameter
	db            string // the tables' qualifier ("" or "name.")
	threads       int
	opts          map[string]string // the backend's options
}

// Statement files (statement.file) on every SQL backend: two scripts of
// weights 7 and 3 run near 7:3; the first script's INSERT and UPDATE are
// both applied; the second fails at its second statement, and its INSERT
// is rolled back.
func TestScripts(t *testing.T) {
	const uniq = "CREATE TABLE IF NOT EXISTS %[1]sscript_uniq (id INT PRIMARY KEY); CREATE TABLE IF NOT EXISTS %[1]sscript_log "
	cases := map[string]func(t *testing.T) scriptDialect{
		"sqlite": func(t *testing.T) scriptDialect {
			return scriptDialect{"sqlite:" + filepath.Join(t.TempDir(), "s.db"),
				uniq + "(id INTEGER PRIMARY KEY, k TEXT, n INT); INSERT OR IGNORE INTO script_uniq VALUES (1)", "?", "", 2, nil}
		},
		"sqlite-serialized": func(t *testing.T) scriptDialect {
			return scriptDialect{"sqlite:" + filepath.Join(t.TempDir(), "s.db"),
				uniq + "(id INTEGER PRIMARY KEY, k TEXT, n INT); INSERT OR IGNORE INTO script_uniq VALUES (1)", "?", "", 2,
				map[string]string{"sqlite.writes": "serialized"}}
		},
		"postgres": func(t *testing.T) scriptDialect {
			return scriptDialect{testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")),
				uniq + "(id serial PRIMARY KEY, k text, n int); INSERT INTO script_uniq VALUES (1) ON CONFLICT DO NOTHING", "$1", "", 2, nil}
		},
		"mariadb": func(t *testing.T) scriptDialect {
			// MySQL targets have no default database: the tables are named with theirs.
			target := testutil.FreshMySQLDatabase(t, testutil.MariaDB(t))
			u, err := url.Parse(target)
			if err != nil {
				t.Fatal(err)
			}
			return scriptDialect{target, uniq + "(id INT AUTO_INCREMENT PRIMARY KEY, k VARCHAR(64), n INT); INSERT IGNORE INTO %[1]sscript_uniq VALUES (1)",
				"?", strings.Trim(u.Path, "/") + ".", 1, nil} // two clients' UPDATEs scanning for k deadlock in InnoDB
		},
	}
	for name, dialect := range cases {
		t.Run(name, func(t *testing.T) {
			d := dialect(t)
			dir := t.TempDir()
			write(t, dir, "good.sql", fmt.Sprintf("BEGIN;\n-- the row, then its update\nINSERT INTO %[1]sscript_log (k, n) VALUES (%[2]s, 0);\n"+
				"UPDATE %[1]sscript_log SET n = 1 WHERE k = %[2]s AND n = 0;\nCOMMIT;\n", d.db, d.p))
			write(t, dir, "bad.sql", fmt.Sprintf("INSERT INTO %[1]sscript_log (k, n) VALUES ('bad', 5);\nINSERT INTO %[1]sscript_uniq VALUES (1);\n", d.db))
			const ops = 2000
			props := map[string]string{"recordcount": "100", "operationcount": "2000",
				"readproportion": "0", "updateproportion": "0", "statementproportion": "1",
				"statement.file":   filepath.Join(dir, "good.sql") + "@7," + filepath.Join(dir, "bad.sql@3"),
				"statement.params": "key", "statement.setup": fmt.Sprintf(d.setup, d.db)}
			maps.Copy(props, d.opts)
			store, wl, docOps := setup(t, d.target, props)
			ctx := context.Background()
			if _, err := Execute(ctx, store, wl, docOps, Options{Phase: Load, Threads: 1}); err != nil {
				t.Fatal(err)
			}
			out, err := Execute(ctx, store, wl, docOps, Options{Phase: Run, Threads: d.threads, MaxErrorShare: -1})
			if err != nil {
				t.Fatal(err)
			}
			good, bad := count(out, "STATEMENT-GOOD"), count(out, "STATEMENT-BAD")
			if good+bad != ops {
				t.Fatalf("%d + %d scripts run, want %d (names %v)", good, bad, ops, out.Names)
			}
			// Binomial(2000, 0.7): 5 standard deviations either side.
			if sd := math.Sqrt(ops * 0.7 * 0.3); math.Abs(float64(good)-0.7*ops) > 5*sd {
				t.Errorf("good.sql@7 ran %d of %d times, want about %d", good, ops, int(0.7*ops))
			}
			i := opIndex(t, out, "STATEMENT-GOOD")
			j := opIndex(t, out, "STATEMENT-BAD")
			if out.Totals.Errors[i] != 0 || out.Totals.Errors[j] != bad {
				t.Fatalf("good.sql: %d errors %v; bad.sql: %d errors of %d", out.Totals.Errors[i], out.Totals.Messages[i], out.Totals.Errors[j], bad)
			}
			sess, err := store.NewSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			for _, c := range []struct {
				where string
				want  int64
			}{{"n = 1", good}, {"n = 0", 0}, {"n = 5", 0}} {
				n, err := sess.(db.Statementer).Statement(ctx, "SELECT id FROM "+d.db+"script_log WHERE "+c.where, nil)
				if err != nil || int64(n) != c.want {
					t.Errorf("rows where %s: %d (%v), want %d", c.where, n, err, c.want)
				}
			}
		})
	}
}

// A statement the server refuses, or one with more placeholders than
// statement.params gives, stops the run before any work, naming its file.
func TestScriptsPreparedBeforeTheRun(t *testing.T) {
	targets := map[string]func(t *testing.T) (string, string, string){
		"sqlite": func(t *testing.T) (string, string, string) {
			return "sqlite:" + filepath.Join(t.TempDir(), "s.db"), "?", "?"
		},
		"postgres": func(t *testing.T) (string, string, string) {
			return testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")), "$1", "$2"
		},
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			url, p1, p2 := target(t)
			dir := t.TempDir()
			for file, want := range map[string]string{
				write(t, dir, "typo.sql", "SELECT 1;\nSELEC ycsb_key FROM {table};"):                                              "typo.sql: ",
				write(t, dir, "params.sql", "SELECT 1;\nSELECT ycsb_key FROM {table} WHERE ycsb_key = "+p1+" AND ycsb_key = "+p2): "params.sql: statement takes 2 parameters, statement.params gives 1",
			} {
				props := map[string]string{"recordcount": "10", "readproportion": "0", "updateproportion": "0",
					"statementproportion": "1", "statement.file": file, "statement.params": "key"}
				store, wl, docOps := setup(t, url, props)
				out, err := Execute(context.Background(), store, wl, docOps, Options{Phase: Run, Threads: 1})
				if err == nil || !strings.Contains(err.Error(), "statement.file="+file) || !strings.Contains(err.Error(), want) || out != nil {
					t.Errorf("%s: err = %v; want %q before any work", file, err, want)
				}
			}
		})
	}
}

// A backend without statement files refuses them before any work, with
// the standard not-supported error.
func TestScriptsNotSupported(t *testing.T) {
	file := write(t, t.TempDir(), "a.sql", "SELECT 1")
	props := map[string]string{"recordcount": "10", "readproportion": "0", "updateproportion": "0",
		"statementproportion": "1", "statement.file": file}
	store, wl, docOps := setup(t, testutil.FreshMongoDatabase(t, testutil.MongoDB(t)), props)
	_, err := Execute(context.Background(), store, wl, docOps, Options{Phase: Run, Threads: 1})
	var ns *db.ErrNotSupported
	if !errors.As(err, &ns) || ns.What != "statement files (statement.file)" {
		t.Fatalf("err = %v, want statement files not supported", err)
	}
}

// scriptSession is a null session that runs scripts by doing nothing: what
// is measured around it is docbench's own cost.
type scriptSession struct{ db.Session }

func (scriptSession) Script(context.Context, []string, []any) error { return nil }

func (scriptSession) PrepareScript(context.Context, []string, int) error { return nil }

// Choosing a script by weight and drawing its parameters allocates nothing.
func TestScriptStepAllocatesNothing(t *testing.T) {
	dir := t.TempDir()
	files := write(t, dir, "a.sql", "SELECT 1; SELECT 2") + "@7," + write(t, dir, "b.sql", "SELECT 3") + "@3"
	wl, docOps := newDocOps(t, "workloada", map[string]string{"recordcount": "1000", "readproportion": "0",
		"updateproportion": "0", "statementproportion": "1", "statement.file": files, "statement.params": "const:x,const:y"})
	names := opNames(docOps, false)
	reg := measure.NewRegistry(names, true)
	sess := scriptSession{nullSession(t)}
	w := &worker{sess: sess, scripts: sess, wl: wl, th: wl.NewThread(0), docOps: docOps, rec: reg.NewRecorder(),
		drng: document.NewRand(), scriptOp: scriptIndex(docOps, names)}
	w.prepare()
	ctx, cfg, r := context.Background(), wl.Config(), w.th.Rand()
	for range 2000 {
		_ = w.step(ctx, cfg, r, time.Time{})
	}
	if a := testing.AllocsPerRun(5000, func() { _ = w.step(ctx, cfg, r, time.Time{}) }); a != 0 {
		t.Fatalf("a script's step allocates %.3f times per operation; want 0", a)
	}
	reg.Tick(time.Now(), time.Now())
	tot := reg.Totals()
	a, b := tot.Service[scriptIndex(docOps, names)].TotalCount(), tot.Service[scriptIndex(docOps, names)+1].TotalCount()
	if names[scriptIndex(docOps, names)] != "STATEMENT-A" || a == 0 || b == 0 || a < b {
		t.Fatalf("names %v: a %d, b %d", names, a, b)
	}
}

// write writes a file in dir and returns its path.
func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
