package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/testutil"
)

// TestCommandLineMistakes: every ordinary mistake gets one line, in a
// user's words, and exit status 2 (docs/commands.md, "Exit codes").
func TestCommandLineMistakes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in the one line on stderr
	}{
		{[]string{"runn"}, `unknown command "runn" for "docbench"; did you mean "run"?`},
		{[]string{"--bogus"}, "unknown flag: --bogus"},
		{[]string{"run", "-P", "workloada"}, "missing -t/--target"},
		{[]string{"run", "-t", "foo:x", "-P", "workloada"}, `unknown backend "foo"`},
		{[]string{"run", "-t", "null:", "-P", "workloada", "-p", "nosuch=1"}, "nosuch"},
		{[]string{"run", "-t", "null:", "-P", "workloada", "--rate", "abc"}, `--rate "abc": want a number`},
		{[]string{"run", "-t", "null:", "-P", "workloada", "--threads", "x"}, `--threads "x": want a whole number`},
		{[]string{"run", "-t", "null:", "-P", "workloada", "--duration", "-5s"}, "must be zero or more"},
		{[]string{"run", "-t", "null:", "-P", "workloada", "--rate", "-10"}, "must be zero or more"},
		{[]string{"run", "-t", "null:", "-P", "workloada", "extra"}, `unknown command "extra"`},
		{[]string{"load", "-load"}, "docbench spells the load phase `docbench load`"},
		{[]string{"run", "-t", "-P", "workloada"}, "spells it `docbench run`"},
		{[]string{"run", "-db", "site.ycsb.BasicDB"}, "-t/--target"},
		{[]string{"doc", "--key", "-1"}, "--key -1: want a key number, 0 or more"},
		{[]string{"doc"}, "--key N is required"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := docbench(t, tc.args...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line with %q", code, stderr, tc.want)
			}
			if strings.HasPrefix(lines[0], "docbench: docbench:") || strings.Contains(lines[0], "strconv.") ||
				strings.Contains(lines[0], "e+") {
				t.Errorf("doubled prefix or Go-speak: %q", lines[0])
			}
		})
	}
}

// TestYCSBFlags: YCSB's single-dash client flags keep their YCSB meaning.
func TestYCSBFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	_, stderr, code := docbench(t, "run", "-t", "null:", "-P", "workloadc", "-p", "operationcount=200",
		"-threads", "3", "-target", "2000", "-s", "--out", out, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Options struct {
			Threads    int     `json:"threads"`
			TargetRate float64 `json:"target_ops_per_sec"`
		} `json:"options"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Options.Threads != 3 || r.Options.TargetRate != 2000 {
		t.Errorf("-threads 3 -target 2000 gave %+v", r.Options)
	}
}

func TestVersionFlag(t *testing.T) {
	for _, f := range []string{"--version", "-v"} {
		out, stderr, code := docbench(t, f)
		if code != 0 || !strings.HasPrefix(out, "docbench ") || stderr != "" {
			t.Errorf("%s: exit %d, %q %q", f, code, out, stderr)
		}
	}
}

// TestNothingTouchedOnBadInput: a bad property or output path is refused
// before the target is opened: no database file is created, nothing runs.
func TestNothingTouchedOnBadInput(t *testing.T) {
	dir := t.TempDir()
	dbfile := filepath.Join(dir, "t.db")
	for _, args := range [][]string{
		{"run", "-t", "sqlite:" + dbfile, "-P", "workloada", "-p", "document.size=abc"},
		{"load", "-t", "sqlite:" + dbfile, "-P", "workloada", "-p", "document.sample=" + filepath.Join(dir, "missing.ndjson")},
		{"run", "-t", "sqlite:" + dbfile, "-P", "workloada", "--out", dir},
		{"run", "-t", "sqlite:" + dbfile, "-P", "workloada", "--out", "/proc/docbench-result.json"},
	} {
		_, stderr, code := docbench(t, args...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, code, stderr)
		}
		if _, err := os.Stat(dbfile); err == nil { // the check came before the work
			t.Fatalf("%v left %s behind", args, dbfile)
		}
	}
}

// TestResultKeptWhenOutFailsAtEnd: --out passes the up-front check, then
// becomes unwritable during the run; the report is still printed and the
// result JSON lands in a fallback file whose path is said; exit non-zero.
func TestResultKeptWhenOutFailsAtEnd(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sub", "r.json")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	unwritable := func() {
		os.Remove(filepath.Join(dir, "sub"))
		os.WriteFile(filepath.Join(dir, "sub"), []byte("now a file"), 0o644) // the write will fail
	}
	// The line saying which limit ends the run comes as the measured part
	// begins: after the up-front check.
	stdout, stderr, code := docbenchWhen(t, "the run ends at", unwritable, "run", "-t", "null:", "-P", "workloadc",
		"-p", "operationcount=1000000000000", "--duration", "500ms", "--status", "0", "--out", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "READ") {
		t.Errorf("the report was not printed:\n%s", stdout)
	}
	i := strings.Index(stderr, "the result is in ")
	if i < 0 {
		t.Fatalf("no fallback path on stderr: %q", stderr)
	}
	fallback := strings.TrimSpace(stderr[i+len("the result is in "):])
	defer os.Remove(fallback)
	b, err := os.ReadFile(fallback)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Operations int64 `json:"operations"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Operations == 0 {
		t.Errorf("fallback result: %v, %d operations", err, r.Operations)
	}
}

// TestStudyRefusesNonEmptyOut: earlier results are never overwritten
// silently; --force writes over them.
func TestStudyRefusesNonEmptyOut(t *testing.T) {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "runs.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"study", "quickstart"} {
		args := []string{cmd, "--quick", "--out", out}
		if cmd == "study" {
			args = []string{cmd, "document-size", "--quick", "--out", out}
		}
		_, stderr, code := docbench(t, args...)
		if code != 2 || !strings.Contains(stderr, "is not empty") || !strings.Contains(stderr, "--force") {
			t.Errorf("%s into a non-empty --out: exit %d, %q", cmd, code, stderr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "runs.json")); string(b) != "{}" {
		t.Errorf("runs.json was overwritten: %q", b)
	}
}

// TestStudyUnreachableTargetFailsFirst: a server the user named that cannot
// be reached fails the study at once, before any work, with non-zero exit.
func TestStudyUnreachableTargetFailsFirst(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s")
	_, stderr, code := docbench(t, "study", "document-size", "--quick", "--out", out,
		"-t", "postgres://u:secret@127.0.0.1:1/db")
	if code != 1 || !strings.Contains(stderr, "cannot reach") || strings.Contains(stderr, "not applicable") ||
		strings.Contains(stderr, "secret") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil { // the check came before the study
		t.Errorf("%s was created although nothing ran", out)
	}
}

// TestCache: `docbench cache` names the directory ($DOCBENCH_CACHE) and
// what it holds; `cache clean` empties it.
func TestCache(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DOCBENCH_CACHE", dir)
	if err := os.MkdirAll(filepath.Join(dir, "postgres-18.6.0", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "postgres-18.6.0", "bin", "postgres"), make([]byte, 3000), 0o755); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := docbench(t, "cache")
	if code != 0 || !strings.Contains(out, dir) || !strings.Contains(out, "postgres-18.6.0") || !strings.Contains(out, "2.9 KiB") {
		t.Fatalf("cache: exit %d %q %q", code, out, stderr)
	}
	out, stderr, code = docbench(t, "cache", "clean")
	if code != 0 || !strings.Contains(out, "removed 2.9 KiB from "+dir+" (1 entry)") {
		t.Fatalf("cache clean: exit %d %q %q", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "postgres-18.6.0")); err == nil {
		t.Error("cache clean left the binaries")
	}
}

// TestEndedBy: a run says which limit ended it, in JSON and, when both a
// count and a duration were set, in a note.
func TestEndedBy(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		want     string
		noteWant string
	}{
		{[]string{"-p", "operationcount=500", "--duration", "60s"}, "operationcount", "operationcount=500 ended the phase"},
		{[]string{"-p", "operationcount=1000000000000", "--duration", "300ms"}, "duration", "the duration (300ms) ended the phase"},
		{[]string{"-p", "operationcount=500"}, "operationcount", ""},
		// workloada's file says operationcount=1000: --duration alone
		// runs for the duration.
		{[]string{"--duration", "1500ms"}, "duration", ""},
	} {
		out := filepath.Join(t.TempDir(), "r.json")
		args := append([]string{"run", "-t", "null:", "-P", "workloada", "--status", "0", "--out", out}, tc.args...)
		if _, stderr, code := docbench(t, args...); code != 0 {
			t.Fatalf("%v: exit %d %s", tc.args, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			EndedBy string   `json:"ended_by"`
			Notes   []string `json:"notes"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		note := strings.Join(r.Notes, "\n")
		if r.EndedBy != tc.want || (tc.noteWant != "" && !strings.Contains(note, tc.noteWant)) ||
			(tc.noteWant == "" && strings.Contains(note, "ended the phase")) {
			t.Errorf("%v: ended_by %q, notes %q", tc.args, r.EndedBy, r.Notes)
		}
	}
}

// TestRunBeforeLoad: run (and verify) against a target that was never
// loaded say so and give the load command with the same -P/-p, on every
// SQL backend the suite starts; SQLite creates no file.
func TestRunBeforeLoad(t *testing.T) {
	dbfile := filepath.Join(t.TempDir(), "never.db")
	targets := map[string]string{
		"sqlite":            "sqlite:" + dbfile,
		"postgres-embedded": testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")),
		"postgres-debian":   testutil.FreshDatabase(t, testutil.Postgres(t, "debian")),
		"mariadb":           testutil.FreshMySQLDatabase(t, testutil.MariaDB(t)),
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			for _, cmd := range []string{"run", "verify"} {
				_, stderr, code := docbench(t, cmd, "-t", target, "-P", "workloada", "-p", "recordcount=50")
				if code != 2 || !strings.Contains(stderr, "holds no docbench table") ||
					!strings.Contains(stderr, "docbench load -t ") || !strings.Contains(stderr, "-P workloada -p recordcount=50") {
					t.Errorf("%s: exit %d, stderr %q", cmd, code, stderr)
				}
			}
		})
	}
	if _, err := os.Stat(dbfile); err == nil {
		t.Errorf("run created %s", dbfile)
	}
}

// TestEveryCommandHasExamples: `docbench help CMD` shows examples for every
// command of docbench's own (cobra's help and completion excepted).
func TestEveryCommandHasExamples(t *testing.T) {
	root := (&app{}).rootCommand()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Name() == "completion" || sub.Hidden || !sub.Runnable() {
				continue
			}
			if sub.Example == "" {
				t.Errorf("%s has no Examples", sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(root)
}

// TestHelpProperties: every property with its default and meaning, and
// the backends' options with the backend that honours them; ≤ 100 columns.
func TestHelpProperties(t *testing.T) {
	out, _, code := docbench(t, "help", "properties")
	for _, want := range []string{"recordcount", "default 0", "operationcount", "updatemode", "document.shape",
		"layout", "postgres, default column", "sqlite"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help properties lacks %q (exit %d)", want, code)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 100 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
}

// TestTerminalWidth: targets keeps within 100 columns (compare's table and
// audit: report.TestWriteCompare).
func TestTerminalWidth(t *testing.T) {
	out, _, code := docbench(t, "targets")
	if code != 0 {
		t.Fatal(code)
	}
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 100 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
}

// TestInterruptedStudySaysSo: a study stopped by SIGINT exits 130 and every
// artefact says at its top that it is incomplete; the run cut short is
// named and left out of the figures.
func TestInterruptedStudySaysSo(t *testing.T) {
	dir := t.TempDir()
	studyFile := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(studyFile, []byte(`name: interrupted
title: a study stopped half way
targets:
  - {name: lite, target: "sqlite:s.db"}
workloads:
  - {name: a, workload: workloada}
  - {name: c, workload: workloadc}
properties: {recordcount: 500}
rounds: 3
duration: 1s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	// Interrupted as the third run starts: the load and two runs done.
	cmd, wait := startUntil(t, "[3/6 ", "study", studyFile, "--out", out)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	stderr, err := wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want 130\n%s", err, stderr)
	}
	runs, _ := os.ReadFile(filepath.Join(out, "runs.json"))
	summary, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	page, _ := os.ReadFile(filepath.Join(out, "report.html"))
	if !strings.Contains(string(runs), `"incomplete": "interrupted after`) || !strings.Contains(string(runs), `"planned_runs": 6`) {
		t.Errorf("runs.json does not say it is incomplete:\n%s", runs)
	}
	if !strings.HasPrefix(string(summary), "# interrupted\n\n**INCOMPLETE: interrupted after") {
		t.Errorf("summary.md does not open with the mark:\n%.300s", summary)
	}
	if !strings.Contains(string(page), "<strong>INCOMPLETE:</strong> interrupted: interrupted after") {
		t.Errorf("report.html has no INCOMPLETE banner")
	}
	if !strings.Contains(stderr, "INCOMPLETE") {
		t.Errorf("the terminal was not told: %s", stderr)
	}
}

// TestHelpShowsTypesAndDefaults: help names each flag's type (not a
// back-quoted phrase) and says defaults; completion scripts are there.
func TestHelpShowsTypesAndDefaults(t *testing.T) {
	out, _, code := docbench(t, "help", "run")
	for _, want := range []string{"-t, --target string", "--threads int", "default: the workload's threadcount",
		"--rate float", "--duration duration", "Examples:"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help run lacks %q", want)
		}
	}
	if strings.Contains(out, "--target docbench") {
		t.Errorf("a back-quoted phrase became the flag's type:\n%s", out)
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		out, _, code := docbench(t, "completion", sh)
		if code != 0 || !strings.Contains(out, sh) || len(out) < 1000 {
			t.Errorf("completion %s: exit %d, %d bytes", sh, code, len(out))
		}
	}
}
