package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/docbench/docbench/internal/db/all" // an older result is classified by its backend
)

// readCompareResults reads the results of testdata/compare: the run phases
// of real runs (internal/cli's TestCompareAudit setup): PostgreSQL 18 with a
// primary key, PostgreSQL 18 with the seeds' unfair setup (GIN over the
// whole document for key lookups, synchronous_commit=off), and SQLite.
func readCompareResults(t *testing.T) ([]string, []*Result) {
	t.Helper()
	names := []string{"pg-pkey-run.json", "pg-gin-run.json", "sqlite-run.json"}
	var rs []*Result
	for _, n := range names {
		r, err := ReadResult(filepath.Join("testdata", "compare", n))
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	return names, rs
}

// TestWriteCompare: the side-by-side table (figures a server cannot give as
// numbered footnotes) and the fairness audit.
func TestWriteCompare(t *testing.T) {
	names, rs := readCompareResults(t)
	var out bytes.Buffer
	findings := WriteCompare(&out, names, rs)
	golden(t, "compare.golden", out.Bytes())
	// Within 100 columns, but for the lines naming each result's file and
	// target.
	for _, l := range strings.Split(out.String(), "\n") {
		if n := len([]rune(l)); n > 100 && !strings.Contains(l, " = ") {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	var strict []string
	for _, f := range findings {
		if f.Strict {
			strict = append(strict, f.Aspect)
		}
	}
	if strings.Join(strict, ",") != "durability,key index" {
		t.Errorf("strict findings %q, want durability and key index", strict)
	}
}

// TestWriteCompareOlderResults: a result without a server section or an
// audit (older docbench) is classified from its settings and layout, its
// server figures are one footnote, and results of different phases are
// flagged.
func TestWriteCompareOlderResults(t *testing.T) {
	names, rs := readCompareResults(t)
	old := *rs[0]
	old.Server, old.Audit, old.Phase = nil, nil, "load"
	var out bytes.Buffer
	WriteCompare(&out, []string{names[0], "older.json"}, []*Result{rs[0], &old})
	golden(t, "compare-older.golden", out.Bytes())
}

// TestReadResult: each bad file is named in one line.
func TestReadResult(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.json"), "missing.json: no such file or directory"},
		{write("notjson.json", "hello"), "notjson.json: not a docbench result"},
		{write("other.json", `{"name":"x"}`), "other.json: not a docbench result"},
		{write("v9.json", `{"schema":"docbench/result/v9"}`), `v9.json: schema "docbench/result/v9", this docbench reads "docbench/result/v1"`},
		{write("bad.json", `{"schema":"docbench/result/v1","ops":"nope"}`), "bad.json: malformed result"},
	} {
		_, err := ReadResult(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ReadResult(%s): %v, want one line with %q", filepath.Base(tc.path), err, tc.want)
		}
	}
}

// TestWriteCompareTwo: two results get B's change from A in percent and
// a warning for each difference of setup.
func TestWriteCompareTwo(t *testing.T) {
	names, rs := readCompareResults(t)
	var out bytes.Buffer
	WriteCompare(&out, names[:2], rs[:2])
	golden(t, "compare-two.golden", out.Bytes())
	for _, want := range []string{"warning: the setups differ", "\n  target postgres://", "B vs A", "-45.8%"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("compare of two lacks %q:\n%s", want, out.String())
		}
	}
}
