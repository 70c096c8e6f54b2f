package main

import (
	"bytes"
	"fmt"
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
	"unicode"
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

// wordBudget keeps the documentation a user reads in one sitting: README,
// ARCHITECTURE and docs/ together, without docs/reproductions.md (the record
// of the built-in studies' claims, which grows with them). References a
// command prints (docbench help, help properties, targets) are not repeated
// in prose, and lab notes of past runs live in the headers of bench/ scripts.
const wordBudget = 15000

// budgetExempt is the one document outside the budget.
const budgetExempt = "docs/reproductions.md"

// TestDocsWordBudget counts words as wc -w does (runs of non-space
// characters) and fails over the budget with every file's count.
func TestDocsWordBudget(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	files := []string{"README.md", "ARCHITECTURE.md"}
	for _, p := range docs {
		if rel := "docs/" + filepath.Base(p); rel != budgetExempt {
			files = append(files, rel)
		}
	}
	total := 0
	var counts strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		n := len(bytes.Fields(b))
		total += n
		fmt.Fprintf(&counts, "%7d %s\n", n, f)
	}
	fmt.Fprintf(&counts, "%7d total", total)
	if total > wordBudget {
		t.Errorf("README.md, ARCHITECTURE.md and docs/*.md (without %s) are %d words, over the budget of %d:\n%s\n"+
			"say a thing once and link to it, point to the command that prints a reference, and move lab notes to bench/",
			budgetExempt, total, wordBudget, counts.String())
	}
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`^#{1,6} +(.*?) *#*$`)
)

// anchors are the heading anchors GitHub gives a Markdown file: lower case,
// punctuation dropped, spaces as hyphens, repeats numbered.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		m := mdHeading.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestDocLinks: every relative link of README, ARCHITECTURE and docs/ names
// a file that exists and, with #anchor, a heading of that file.
func TestDocLinks(t *testing.T) {
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files := []string{filepath.Join(root, "README.md"), filepath.Join(root, "ARCHITECTURE.md")}
	for _, f := range append(files, docs...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		fenced := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
			}
			if fenced {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				link := m[1]
				if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(link, "#")
				target := f
				if path != "" {
					target = filepath.Join(filepath.Dir(f), path)
				}
				tb, err := os.ReadFile(target)
				if err != nil {
					t.Errorf("%s:%d: link %s: %v", rel, i+1, link, err)
					continue
				}
				if anchor != "" && strings.HasSuffix(target, ".md") && !anchors(string(tb))[anchor] {
					t.Errorf("%s:%d: link %s: no heading with anchor #%s", rel, i+1, link, anchor)
				}
			}
		}
	}
}
