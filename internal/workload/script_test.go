package workload

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplitScript(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"SELECT 1", []string{"SELECT 1"}},
		{"BEGIN;\nUPDATE t SET a = 1;\n-- a comment; not a statement\nSELECT ';', \"x;y\" FROM t /* ; */;\nEND;\n",
			[]string{"UPDATE t SET a = 1", "-- a comment; not a statement\nSELECT ';', \"x;y\" FROM t /* ; */"}},
		{"start transaction; insert into t values ('it''s; fine'); commit", []string{"insert into t values ('it''s; fine')"}},
		{"DO $$BEGIN PERFORM 1; END$$; SELECT $1::int;\n-- trailing comment\n", []string{"DO $$BEGIN PERFORM 1; END$$", "SELECT $1::int"}},
		{"SELECT `a;b` FROM t;;", []string{"SELECT `a;b` FROM t"}},
	} {
		got, err := splitScript(c.text)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitScript(%q) = %q, %v; want %q", c.text, got, err, c.want)
		}
	}
}

// Bad statement files are one line naming the file (and the line at fault).
func TestScriptErrors(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"a.sql": "SELECT 1;", "empty.sql": "", "blank.sql": "-- nothing\n;\n", "meta.sql": "SELECT 1;\n\\set aid random(1, 10)\n",
		"open.sql": "BEGIN; SELECT 1;", "inner.sql": "SELECT 1; COMMIT; SELECT 2;", "sub/a.sql": "SELECT 2"}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for spec, want := range map[string]string{
		"missing.sql":     "statement.file=missing.sql: cannot read: no such file or directory",
		"a.sql@x":         `statement.file=a.sql@x: weight "x": want a whole number of at least 1`,
		"a.sql@0":         `statement.file=a.sql@0: weight "0"`,
		"@3":              "statement.file=@3: no file named",
		"empty.sql":       "statement.file=empty.sql: no SQL statement in the file",
		"blank.sql@2":     "statement.file=blank.sql: no SQL statement in the file",
		"meta.sql":        `statement.file=meta.sql: line 2: \set aid random(1, 10): pgbench's meta-commands are not supported`,
		"open.sql":        "statement.file=open.sql: BEGIN without a COMMIT",
		"inner.sql":       `statement.file=inner.sql: "COMMIT": a script is one transaction`,
		"a.sql,sub/a.sql": "a.sql and sub/a.sql are both reported as STATEMENT-A",
		"a.sql@3,a.sql@4": "a.sql and a.sql are both reported as STATEMENT-A",
	} {
		p := NewProperties()
		p.Set("statementproportion", "1", "test")
		// Relative files are beside the workload file that names them.
		p.Set("statement.file", spec, filepath.Join(dir, "w.properties")+":3")
		if err := os.WriteFile(filepath.Join(dir, "w.properties"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ParseConfig(p, Known{})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("statement.file=%s: %v; want one line with %q", spec, err, want)
		}
	}
}

func TestScriptWeights(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"a.sql": "SELECT 1; SELECT 2", "b.sql": "BEGIN; SELECT 3; END"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := NewProperties()
	p.Set("statementproportion", "1", "test")
	p.Set("statement.file", filepath.Join(dir, "a.sql")+"@7,"+filepath.Join(dir, "b.sql"), "-p")
	cfg, err := ParseConfig(p, Known{})
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Doc.Scripts
	if len(s) != 2 || s[0].Name != "STATEMENT-A" || s[0].Weight != 7 || len(s[0].Statements) != 2 ||
		s[1].Name != "STATEMENT-B" || s[1].Weight != 1 || !reflect.DeepEqual(s[1].Statements, []string{"SELECT 3"}) {
		t.Fatalf("scripts = %+v", s)
	}
}

func FuzzSplitScript(f *testing.F) {
	for _, s := range []string{"SELECT 1", "BEGIN; SELECT ';'; END;", "DO $x$ ; $x$; SELECT 2", "/* ; */ -- ;\n\\set a 1", "'unterminated; x", "$$"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		stmts, err := splitScript(text)
		if err == nil && len(stmts) == 0 {
			t.Fatalf("splitScript(%q): no statement and no error", text)
		}
		for _, st := range stmts {
			if strings.TrimSpace(st) != st || st == "" {
				t.Fatalf("splitScript(%q): statement %q", text, st)
			}
		}
	})
}
