package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run -f FILE@WEIGHT, as pgbench's: the files are the run's operations,
// each reported under its own name; a bad file or weight is one line, exit 2.
func TestRunStatementFiles(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("a.sql", []byte("SELECT data FROM {table} WHERE ycsb_key = ?;\n"), 0o644)
	os.WriteFile("b.sql", []byte("BEGIN;\nUPDATE {table} SET data = data WHERE ycsb_key = ?;\nSELECT count(*) FROM {table};\nEND;\n"), 0o644)
	os.WriteFile("empty.sql", []byte("-- nothing here\n"), 0o644)
	target := "sqlite:" + filepath.Join(dir, "t.db")
	if _, stderr, code := docbench(t, "load", "-t", target, "-P", "workloadc", "-p", "recordcount=200", "--status", "0"); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	run := []string{"run", "-t", target, "-P", "workloadc", "-p", "recordcount=200", "-p", "operationcount=1000",
		"-p", "statement.params=key", "--status", "0", "--format", "json"}
	for _, c := range []struct{ file, want string }{
		{"missing.sql", "--file: statement.file=missing.sql: cannot read"},
		{"a.sql@x", `--file: statement.file=a.sql@x: weight "x"`},
		{"a.sql@0", `--file: statement.file=a.sql@0: weight "0"`},
		{"empty.sql", "--file: statement.file=empty.sql: no SQL statement in the file"},
	} {
		_, stderr, code := docbench(t, append(run, "-f", c.file)...)
		if lines := strings.Split(strings.TrimSpace(stderr), "\n"); code != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("-f %s: exit %d, stderr %q; want exit 2 and one line with %q", c.file, code, stderr, c.want)
		}
	}
	stdout, stderr, code := docbench(t, append(run, "-f", "a.sql@7", "-f", "b.sql@3")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Ops []struct {
			Name          string
			Count, Errors int64
		}
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v: %.300s", err, stdout)
	}
	ops := res.Ops
	if len(ops) != 2 || ops[0].Name != "STATEMENT-A" || ops[1].Name != "STATEMENT-B" ||
		ops[0].Count+ops[1].Count != 1000 || ops[0].Errors+ops[1].Errors != 0 || ops[0].Count < ops[1].Count {
		t.Fatalf("operations %+v; want STATEMENT-A and STATEMENT-B only, 1000 in all, about 7:3", ops)
	}
}
