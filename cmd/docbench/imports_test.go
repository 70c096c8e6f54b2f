package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the import path of docbench's packages.
const module = "github.com/docbench/docbench/"

// testHelpers may import anything: they serve tests only.
var testHelpers = []string{"testutil", "db/dbtest", "server/servertest", "server/proc/proctest"}

// TestImportGraph holds the tree to the import graph ARCHITECTURE.md draws
// (its "Imports" block): a package that imports one the block does not allow
// fails, and so does a block that allows an import the tree no longer makes
// (the document must stay the real graph). Every file counts, whatever its
// build tags.
func TestImportGraph(t *testing.T) {
	allowed := documentedImports(t)
	actual := map[string][]string{}
	for _, top := range []string{"internal", "cmd/docbench", "studies", "workloads"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			pkg := strings.TrimPrefix(filepath.ToSlash(rel), "internal/")
			if slices.Contains(testHelpers, pkg) {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			if _, ok := actual[pkg]; !ok {
				actual[pkg] = nil
			}
			for _, imp := range f.Imports {
				p := strings.Trim(imp.Path.Value, `"`)
				if !strings.HasPrefix(p, module) {
					continue
				}
				dep := strings.TrimPrefix(strings.TrimPrefix(p, module), "internal/")
				if !slices.Contains(actual[pkg], dep) {
					actual[pkg] = append(actual[pkg], dep)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for pkg, deps := range actual {
		allow, ok := allowed[pkg]
		if !ok {
			t.Errorf("package %s is not in ARCHITECTURE.md's Imports: add it with what it imports", pkg)
			continue
		}
		for _, d := range deps {
			if !slices.Contains(allow, d) {
				t.Errorf("%s imports %s, which ARCHITECTURE.md's Imports do not allow", pkg, d)
			}
		}
		for _, d := range allow {
			if !slices.Contains(deps, d) {
				t.Errorf("ARCHITECTURE.md's Imports let %s import %s, which it does not: the block must stay the real graph", pkg, d)
			}
		}
	}
	for pkg := range allowed {
		if _, ok := actual[pkg]; !ok {
			t.Errorf("ARCHITECTURE.md's Imports name %s, which is no package of the tree", pkg)
		}
	}
}

// documentedImports reads the fenced block under "## Imports" in
// ARCHITECTURE.md: lines "pkg pkg…: dep dep…", each package on the left
// importing exactly the ones on the right.
func documentedImports(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Imports\n")
	if !ok {
		t.Fatal(`ARCHITECTURE.md has no "## Imports" section`)
	}
	_, block, ok1 := strings.Cut(sec, "```\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok1 || !ok2 {
		t.Fatal(`ARCHITECTURE.md's "## Imports" section has no fenced block`)
	}
	out := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		pkgs, deps, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("ARCHITECTURE.md's Imports: %q is not \"pkg: dep dep…\"", line)
		}
		for _, p := range strings.Fields(pkgs) {
			if _, dup := out[p]; dup {
				t.Fatalf("ARCHITECTURE.md's Imports name %s twice", p)
			}
			out[p] = strings.Fields(deps)
		}
	}
	return out
}
