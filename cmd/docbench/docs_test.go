package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the repository, seen from this package's directory.
const root = "../.."

// readmeLimit keeps the README a first page: what docbench answers, the two
// commands, a tour and links; the reference lives in docs/.
const readmeLimit = 8 << 10

// notebook matches what belongs to the developers' history, not to what a
// user reads: the internal numbering of the papers and talks docbench
// reproduces (users have no such list: cite author, title, venue, year, link),
// issue numbers, commit hashes, and paths of the machines docbench was
// developed on. Documents are also held to no timestamps of runs and no
// scratch paths; messages may show a time layout or an example under /tmp.
var (
	notebook = []string{
		`\bseeds? +\d{3}\b`,                           // "seed 000"
		`\bthe seeds?'s?(?:\W|$)`,                     // "the seeds' unfair setup", "the seed's claims"
		`\bthe seed reported\b`,                       //
		`\bissues? +#?\d+\b`,                          // "issue 9"
		`\b(?:commit|binary|build) +[0-9a-f]{7,40}\b`, // "binary 656c92c"
		`(?:^|[^\w.])/(?:work|home|root)/`,            // "/work/shared/tools/…"
	}
	docNotebook = regexp.MustCompile(`(?i)` + strings.Join(append(notebook,
		`\b\d\d:\d\d(?::\d\d)? *UTC\b`, // "21:34 UTC"
		`(?:^|[^\w.])/tmp/`,            // "sqlite:/tmp/x.db", "/tmp/runner.test"
	), "|"))
	msgNotebook = regexp.MustCompile(`(?i)` + strings.Join(notebook, "|"))
)

// exempt are the documents other work is rewriting for users (none now); a
// prefix leaves this list once its documents pass.
var exempt = []string{}

// TestUserDocsAreForUsers: the README fits a first page, and no document a
// user reads (README, ARCHITECTURE, docs/, the built-in study files) reads
// like a lab notebook.
func TestUserDocsAreForUsers(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(readme) > readmeLimit {
		t.Errorf("README.md is %d bytes, over %d: move reference material to docs/", len(readme), readmeLimit)
	}
	files := []string{"README.md", "ARCHITECTURE.md"}
	for _, dir := range []string{"docs", "studies"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if ext := filepath.Ext(p); ext == ".md" || ext == ".yaml" {
				rel, _ := filepath.Rel(root, p)
				files = append(files, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		if slices.ContainsFunc(exempt, func(p string) bool { return strings.HasPrefix(f, p) }) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := docNotebook.FindString(line); m != "" {
				t.Errorf("%s:%d: %q is for the developers' history, not for users: %s", f, i+1, m, strings.TrimSpace(line))
			}
		}
	}
}

// TestMessagesAreForUsers: the same for every string docbench can print —
// the string literals of its non-test Go files (messages, help texts,
// report templates).
func TestMessagesAreForUsers(t *testing.T) {
	fset := token.NewFileSet()
	for _, dir := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					s = lit.Value
				}
				if m := msgNotebook.FindString(s); m != "" {
					t.Errorf("%s: %q is for the developers' history, not for users: %.120s", fset.Position(lit.Pos()), m, s)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
