package main

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// module is the import path of docbench's packages.
const module = "github.com/docbench/docbench/"

// testHelpers may import anything, and only tests may import them.
var testHelpers = []string{"testutil", "db/dbtest", "server/servertest", "server/proc/proctest"}

// knownUpward are the imports that break the layering today, each with why.
// The list may only shrink: an entry the tree no longer makes fails too.
var knownUpward = map[string]string{
	"merge -> engine":            "the capacity evidence merge re-evaluates (ParseSLO, Observe, Evaluate) still lives in engine",
	"db test -> db/all":          "db.Open's option and EXPLAIN checks run on registered backends; they belong in db/all's tests",
	"db/sqldb test -> db/mysql":  "sqldb's table quoting is checked through the backends built on it",
	"db/sqldb test -> db/sqlite": "sqldb's table quoting is checked through the backends built on it",
}

// imp is one import of a docbench package by a file of another.
type imp struct {
	from, to string
	test     bool   // the file is a _test.go file
	file     string // the importing file, for messages
}

// TestImportGraph holds the tree to the import graph ARCHITECTURE.md draws
// (its "Imports" block), both ways, and to its layering: the block's lines
// run from the top layer down, and no file, tests included, imports a
// package named on its own line or above (see checkLayers). Every file
// counts, whatever its build tags.
func TestImportGraph(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	allowed, rank, err := parseImports(string(b))
	if err != nil {
		t.Fatal(err)
	}
	imps, pkgs := treeImports(t)
	for _, msg := range checkSnapshot(allowed, imps, pkgs) {
		t.Error(msg)
	}
	for _, msg := range checkLayers(rank, imps, knownUpward) {
		t.Error(msg)
	}
}

// TestLayerRule: an upward import fails even when the document names it,
// in code and in tests, and so does one between siblings; tests may import a helper, code may not; a known
// exception excuses its edge only, and a stale one fails.
func TestLayerRule(t *testing.T) {
	const doc = "x\n## Imports\n\n```\ncli: engine merge\nengine: merge\nmerge: engine\nlow low2:\n```\n"
	allowed, rank, err := parseImports(doc)
	if err != nil {
		t.Fatal(err)
	}
	imps := []imp{
		{"cli", "engine", false, "cli/a.go"}, {"cli", "merge", false, "cli/a.go"},
		{"engine", "merge", false, "engine/a.go"}, {"merge", "engine", false, "merge/a.go"},
		{"low", "testutil", true, "low/a_test.go"},
	}
	if msgs := checkSnapshot(allowed, imps, []string{"cli", "engine", "merge", "low", "low2"}); len(msgs) > 0 {
		t.Fatalf("the synthetic tree matches its document, yet: %q", msgs)
	}
	for _, tc := range []struct {
		extra []imp
		known map[string]string
		want  []string
	}{
		{nil, nil, []string{"merge/a.go: merge imports engine, of its own layer or a higher one"}},
		{nil, map[string]string{"merge -> engine": "r"}, nil},
		{[]imp{{"low", "cli", true, "low/b_test.go"}}, map[string]string{"merge -> engine": "r"},
			[]string{"low/b_test.go: low's test imports cli, of its own layer or a higher one"}},
		{[]imp{{"low", "low2", true, "low/c_test.go"}}, map[string]string{"merge -> engine": "r"},
			[]string{"low/c_test.go: low's test imports low2, of its own layer or a higher one"}},
		{[]imp{{"low", "testutil", false, "low/b.go"}}, map[string]string{"merge -> engine": "r"},
			[]string{"low/b.go: low imports test helper testutil outside a test"}},
		{nil, map[string]string{"merge -> engine": "r", "low -> cli": "r"},
			[]string{`known exception "low -> cli" is an import the tree no longer makes: remove it from knownUpward`}},
	} {
		got := checkLayers(rank, append(slices.Clone(imps), tc.extra...), tc.known)
		if !slices.Equal(got, tc.want) {
			t.Errorf("extra %v, known %v: got %q, want %q", tc.extra, tc.known, got, tc.want)
		}
	}
}

// treeImports reads every Go file of the tree's packages (tools/ included)
// and returns their imports of docbench packages, and the non-helper
// packages that have non-test files.
func treeImports(t *testing.T) ([]imp, []string) {
	t.Helper()
	var imps []imp
	var pkgs []string
	for _, top := range []string{"internal", "cmd/docbench", "studies", "workloads", "tools"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			pkg := strings.TrimPrefix(filepath.ToSlash(rel), "internal/")
			test := strings.HasSuffix(path, "_test.go")
			if !test && !slices.Contains(testHelpers, pkg) && !slices.Contains(pkgs, pkg) {
				pkgs = append(pkgs, pkg)
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, spec := range f.Imports {
				p := strings.Trim(spec.Path.Value, `"`)
				dep := strings.TrimPrefix(strings.TrimPrefix(p, module), "internal/")
				if strings.HasPrefix(p, module) && dep != pkg { // an external test imports its own package
					file, _ := filepath.Rel(root, path)
					imps = append(imps, imp{pkg, dep, test, filepath.ToSlash(file)})
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return imps, pkgs
}

// checkSnapshot compares the non-test imports of the non-helper packages
// with the document's block, both ways.
func checkSnapshot(allowed map[string][]string, imps []imp, pkgs []string) []string {
	actual := map[string][]string{}
	for _, p := range pkgs {
		actual[p] = nil
	}
	for _, i := range imps {
		if !i.test && !slices.Contains(testHelpers, i.from) && !slices.Contains(actual[i.from], i.to) {
			actual[i.from] = append(actual[i.from], i.to)
		}
	}
	var msgs []string
	for pkg, deps := range actual {
		allow, ok := allowed[pkg]
		if !ok {
			msgs = append(msgs, fmt.Sprintf("package %s is not in ARCHITECTURE.md's Imports: add it with what it imports", pkg))
			continue
		}
		for _, d := range deps {
			if !slices.Contains(allow, d) {
				msgs = append(msgs, fmt.Sprintf("%s imports %s, which ARCHITECTURE.md's Imports do not allow", pkg, d))
			}
		}
		for _, d := range allow {
			if !slices.Contains(deps, d) {
				msgs = append(msgs, fmt.Sprintf("ARCHITECTURE.md's Imports let %s import %s, which it does not: the block must stay the real graph", pkg, d))
			}
		}
	}
	for pkg := range allowed {
		if _, ok := actual[pkg]; !ok {
			msgs = append(msgs, fmt.Sprintf("ARCHITECTURE.md's Imports name %s, which is no package of the tree", pkg))
		}
	}
	sort.Strings(msgs)
	return msgs
}

// checkLayers is the rule: a file imports only packages of a lower rank
// (a later line of the block; one line's packages are siblings and do not
// import each other). Tests may import the test helpers, code may not; the
// helpers themselves may import anything. known excuses its edges ("from ->
// to", "from test -> to" for test files) and must hold no edge the tree no
// longer makes.
func checkLayers(rank map[string]int, imps []imp, known map[string]string) []string {
	var msgs []string
	used := map[string]bool{}
	for _, i := range imps {
		switch {
		case slices.Contains(testHelpers, i.from):
		case slices.Contains(testHelpers, i.to):
			if !i.test {
				msgs = append(msgs, fmt.Sprintf("%s: %s imports test helper %s outside a test", i.file, i.from, i.to))
			}
		default:
			from, okf := rank[i.from]
			to, okt := rank[i.to]
			if !okf || !okt || to > from {
				continue // the snapshot names packages missing from the block
			}
			key, who := i.from+" -> "+i.to, i.from
			if i.test {
				key, who = i.from+" test -> "+i.to, i.from+"'s test"
			}
			if _, ok := known[key]; ok {
				used[key] = true
				continue
			}
			msgs = append(msgs, fmt.Sprintf("%s: %s imports %s, of its own layer or a higher one", i.file, who, i.to))
		}
	}
	for key := range known {
		if !used[key] {
			msgs = append(msgs, fmt.Sprintf("known exception %q is an import the tree no longer makes: remove it from knownUpward", key))
		}
	}
	sort.Strings(msgs)
	return slices.Compact(msgs)
}

// parseImports reads the fenced block under "## Imports" of an
// ARCHITECTURE.md text: lines "pkg pkg…: dep dep…", each package on the
// left importing exactly the ones on the right, top layer first. rank is
// a package's line number in the block.
func parseImports(text string) (allowed map[string][]string, rank map[string]int, err error) {
	_, sec, ok := strings.Cut(text, "\n## Imports\n")
	if !ok {
		return nil, nil, fmt.Errorf(`ARCHITECTURE.md has no "## Imports" section`)
	}
	_, block, ok1 := strings.Cut(sec, "```\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok1 || !ok2 {
		return nil, nil, fmt.Errorf(`ARCHITECTURE.md's "## Imports" section has no fenced block`)
	}
	allowed, rank = map[string][]string{}, map[string]int{}
	for n, line := range strings.Split(strings.TrimSpace(block), "\n") {
		pkgs, deps, ok := strings.Cut(line, ":")
		if !ok {
			return nil, nil, fmt.Errorf("ARCHITECTURE.md's Imports: %q is not \"pkg: dep dep…\"", line)
		}
		for _, p := range strings.Fields(pkgs) {
			if _, dup := allowed[p]; dup {
				return nil, nil, fmt.Errorf("ARCHITECTURE.md's Imports name %s twice", p)
			}
			allowed[p], rank[p] = strings.Fields(deps), n
		}
	}
	return allowed, rank, nil
}
