package cli

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/testutil"
)

// TestErrorsSayWhatToDo: each mistake of a newcomer's gets one line that
// says what to do, exit 2, and leaves nothing behind.
func TestErrorsSayWhatToDo(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-t", "null:", "-P", "workloada", "--thread", "2"}, "unknown flag: --thread (did you mean --threads?)"},
		{[]string{"study", "containmnt"}, `not a built-in study (did you mean "containment"?)`},
		{[]string{"run", "-t", "null:", "-P", "workloada", "-p", "recordcout=5"}, `(did you mean "recordcount"?)`},
		{[]string{"run"}, "missing -t/--target and -P/--workload"},
		{[]string{"load", "-t", "null:"}, "missing -P/--workload"},
		{[]string{"run", "-t", "null:", "-P", "workloada", "--warmup", "-5s"}, "--warmup -5s: must be zero or more"},
		{[]string{"run", "-t", "null:", "-P", "workloada", "--duration", "-1m"}, "--duration -1m0s: must be zero or more"},
		{[]string{"run", "-t", "null:", "-P", "workloada", "--out", filepath.Join(dir, "no", "such", "r.json")},
			"directory " + filepath.Join(dir, "no", "such") + " does not exist: create it first"},
		{[]string{"load", "-t", "sqlite:" + filepath.Join(dir, "no", "x.db"), "-P", "workloada"},
			"directory " + filepath.Join(dir, "no") + " does not exist: create it first"},
		{[]string{"study", "containment", "--out", filepath.Join(dir, "no", "study")},
			"directory " + filepath.Join(dir, "no") + " does not exist: create it first"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := docbench(t, tc.args...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line with %q", code, stderr, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Errorf("a directory was made for a path that did not exist")
	}
}

// TestStudyFileErrorsAllAtOnce: every problem of a study file in one go,
// each at FILE:LINE:COL, in the study's words (no Go types), and no study
// directory left behind by a file that fails validation.
func TestStudyFileErrorsAllAtOnce(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("bad.yaml", []byte("name: bad\nworkloads: [{workload: workloada, properties: [1]}]\nrounds: many\nfrob: 1\nthreads: abc\nduration: soon\n"), 0o644)
	_, stderr, code := docbench(t, "study", "bad.yaml")
	for _, want := range []string{`bad.yaml:2:47: properties: want a mapping (key: value), not a list`,
		`bad.yaml:3:9: rounds: want a whole number, not "many"`, `bad.yaml:4:1: unknown key "frob"`,
		`bad.yaml:5:10: threads: want a whole number, not "abc"`, `bad.yaml:6:11: duration: want a duration (like 10s or 1m30s), not "soon"`} {
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}
	for _, goSpeak := range []string{"unmarshal", "!!", " int", "[]study", "map["} {
		if strings.Contains(stderr, goSpeak) {
			t.Errorf("Go-speak %q in %s", goSpeak, stderr)
		}
	}
	os.WriteFile("invalid.yaml", []byte("name: invalid\ntargets: [{name: lite, target: \"sqlite:x.db\"}]\nworkloads: [{workload: workloada, properties: {recordcount: -5}}]\n"), 0o644)
	_, stderr, code = docbench(t, "study", "invalid.yaml")
	if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "recordcount") {
		t.Errorf("exit %d: %q", code, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("a study file that fails validation left something behind: %v", entries)
	}
}

// TestConnectErrorsSayWhy: a missing database is said as the server says
// it, not as the TLS attempt that came first; a host that does not resolve
// is said once.
func TestConnectErrorsSayWhy(t *testing.T) {
	u, err := url.Parse(testutil.Postgres(t, "embedded"))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/nosuch"
	_, stderr, code := docbench(t, "run", "-t", u.String(), "-P", "workloada")
	if want := `database "nosuch" does not exist on ` + u.Host; code == 0 || !strings.Contains(stderr, want) || strings.Contains(strings.ToLower(stderr), "tls") {
		t.Errorf("exit %d: %q; want %q", code, stderr, want)
	}
	_, stderr, code = docbench(t, "run", "-t", "postgres://u@nosuchhost.invalid:5432/x", "-P", "workloada")
	if code == 0 || !strings.Contains(stderr, `cannot resolve host "nosuchhost.invalid"`) || strings.Count(stderr, "nosuchhost.invalid") != 2 {
		t.Errorf("exit %d: %q; want the host said once after the target", code, stderr)
	}
}

// TestVerifyAndCacheCleanSayWhatTheyDid: in words, with thousands marked.
func TestVerifyAndCacheCleanSayWhatTheyDid(t *testing.T) {
	target := "sqlite:" + filepath.Join(t.TempDir(), "v.db")
	if _, stderr, code := docbench(t, "load", "-t", target, "-P", "workloadc", "-p", "recordcount=1500"); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	out, stderr, code := docbench(t, "verify", "-t", target, "-P", "workloadc", "-p", "recordcount=1500")
	if code != 0 || out != "verified 1,500 records: 1,500 intact, 0 updated, 0 missing, 0 corrupt\n" {
		t.Errorf("verify: exit %d %q %q", code, out, stderr)
	}
	cache := t.TempDir()
	t.Setenv("DOCBENCH_CACHE", cache)
	out, _, code = docbench(t, "cache", "clean")
	if code != 0 || out != "nothing to remove: "+cache+" is empty\n" {
		t.Errorf("cache clean of an empty cache: exit %d %q", code, out)
	}
}
