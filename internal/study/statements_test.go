package study

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/docbench/docbench/studies"
)

// The inventory of the sources' testable statements (studies.StatementsFile)
// and the sections of docs/reproductions.md generated from it.
const (
	sourcesHeading    = "## The sources"
	statementsHeading = "## Every statement of the sources"
)

// inventory is studies/statements.yaml.
type inventory struct {
	Sources    []statementSource `yaml:"sources"`
	Statements []statement       `yaml:"statements"`
	lines      []int             // each statement's line
}

type statementSource struct {
	Key    string `yaml:"key"`
	Short  string `yaml:"short"` // the name the page knows it by
	Author string `yaml:"author"`
	Title  string `yaml:"title"`
	Venue  string `yaml:"venue"`
	Year   int    `yaml:"year"`
	URL    string `yaml:"url"`
	Note   string `yaml:"note"`
}

// statement is one testable statement of a source: SOURCE#CODE, its words
// (quoted where they are the source's), its status and the claims
// (STUDY#ID) that test it.
type statement struct {
	ID         string   `yaml:"id"`
	Says       string   `yaml:"says"`
	Paraphrase bool     `yaml:"paraphrase"`
	Status     string   `yaml:"status"`
	Differs    string   `yaml:"differs"`
	Server     string   `yaml:"server"`
	Why        string   `yaml:"why"`
	How        string   `yaml:"how"`
	Claims     []string `yaml:"claims"`
}

// statuses are the statuses of a statement, in the page's order, with
// their words in its tallies.
var statuses = []struct{ name, tally string }{
	{"encoded", "encoded"},
	{"proxy", "through a proxy"},
	{"needs-server", "need a server docbench cannot start here"},
	{"untestable", "untestable here"},
	{"missing", "not yet encoded"},
}

// servers are the servers a needs-server statement may name, with the
// opt-in target (--with NAME=URL) that gives them.
var servers = map[string]string{"MongoDB": "mongodb", "MySQL 8": "mysql"}

var statementID = regexp.MustCompile(`^([a-z0-9-]+)#([A-Z][0-9]+)$`)

func readInventory(t *testing.T) *inventory {
	t.Helper()
	b, err := studies.FS.ReadFile(studies.StatementsFile)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	inv := &inventory{}
	if err := dec.Decode(inv); err != nil {
		t.Fatalf("studies/%s: %v", studies.StatementsFile, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	for i := range inv.Statements {
		inv.lines = append(inv.lines, lineOf(root.Content[0], "statements", i))
	}
	return inv
}

// builtinClaims are the built-in studies' claims by id, STUDY#ID.
func builtinClaims(t *testing.T) (map[string]*Claim, map[string]*File) {
	t.Helper()
	claims, files := map[string]*Claim{}, map[string]*File{}
	for _, name := range Names() {
		f, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for i := range f.Claims {
			id := name + "#" + f.Claims[i].ID
			claims[id], files[id] = &f.Claims[i], f
		}
	}
	return claims, files
}

// problems are what is wrong with the inventory against the built-in
// claims, each naming its line of the file.
func (inv *inventory) problems(claims map[string]*Claim, files map[string]*File) []string {
	var out []string
	at := func(i int, format string, args ...any) {
		out = append(out, fmt.Sprintf("studies/%s:%d: %s: %s", studies.StatementsFile, inv.lines[i], inv.Statements[i].ID, fmt.Sprintf(format, args...)))
	}
	sources := map[string]bool{}
	for _, s := range inv.Sources {
		if s.Key == "" || s.Short == "" || s.Author == "" || s.Title == "" || s.Venue == "" {
			out = append(out, fmt.Sprintf("studies/%s: source %q: key, short, author, title and venue are required", studies.StatementsFile, s.Key))
		}
		sources[s.Key] = true
	}
	seen, tested := map[string]bool{}, map[string]bool{}
	for i, st := range inv.Statements {
		m := statementID.FindStringSubmatch(st.ID)
		switch {
		case m == nil:
			at(i, "id: want SOURCE#CODE (dolgov-2017#D11)")
		case !sources[m[1]]:
			at(i, "id: %q is not one of the sources", m[1])
		case seen[st.ID]:
			at(i, "id: a second statement with this id")
		}
		seen[st.ID] = true
		if st.Says == "" {
			at(i, "says: is required")
		}
		if quoted := strings.Contains(st.Says, `"`); quoted == st.Paraphrase {
			at(i, "says: quote the source's own words, or mark a statement without them paraphrase: true (not both)")
		}
		at1 := func(format string, args ...any) { at(i, format, args...) }
		st.checkStatus(at1)
		for _, id := range st.Claims {
			c := claims[id]
			if c == nil {
				at(i, "claims: %s is not a claim of a built-in study", id)
				continue
			}
			tested[id] = true
			if st.Status == "needs-server" && servers[st.Server] != "" && !c.names(byURL(files[id], servers[st.Server])) {
				at(i, "claims: %s names no target given with --with %s=URL: it does not need %s", id, servers[st.Server], st.Server)
			}
		}
		if (st.Status == "encoded" || st.Status == "proxy") && len(st.Claims) > 0 && !slices.ContainsFunc(st.Claims, func(id string) bool {
			return claims[id] == nil || !claims[id].names(byURL(files[id], ""))
		}) {
			at(i, "status: %s, but every claim of it needs a server given with --with NAME=URL: needs-server", st.Status)
		}
	}
	var ids []string
	for id := range claims {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if !tested[id] {
			out = append(out, fmt.Sprintf("studies/%s: the claim %s (%q) tests no statement", studies.StatementsFile, id, claims[id].Says))
		}
	}
	return out
}

// checkStatus holds a statement to its status: the field each status
// needs, and no field of another.
func (st *statement) checkStatus(fail func(string, ...any)) {
	need := map[string]string{"proxy": st.Differs, "needs-server": st.Server, "untestable": st.Why, "missing": st.How}
	field := map[string]string{"proxy": "differs", "needs-server": "server", "untestable": "why", "missing": "how"}
	if !slices.ContainsFunc(statuses, func(s struct{ name, tally string }) bool { return s.name == st.Status }) {
		fail("status: %q: want encoded, proxy, needs-server, untestable or missing", st.Status)
		return
	}
	for status, v := range need {
		switch {
		case status == st.Status && v == "":
			fail("status: %s needs %s:", status, field[status])
		case status != st.Status && v != "" && (status != "proxy" || st.Status != "needs-server"):
			fail("%s: belongs to status %s, not %s", field[status], status, st.Status)
		}
	}
	if st.Status == "needs-server" && servers[st.Server] == "" && st.Server != "" {
		fail("server: %q: want MongoDB or MySQL 8", st.Server)
	}
	testable := st.Status == "encoded" || st.Status == "proxy" || st.Status == "needs-server"
	if testable != (len(st.Claims) > 0) {
		fail("claims: a statement that is %s has %d claims", st.Status, len(st.Claims))
	}
}

// byURL are the study's targets that only --with NAME=URL gives (no
// server of their own here), those named for server when it is given.
func byURL(f *File, server string) map[string]bool {
	out := map[string]bool{}
	for _, t := range f.With {
		if t.Target == "" && strings.HasPrefix(t.Name, server) {
			out[t.Name] = true
		}
	}
	return out
}

// TestStatements holds studies/statements.yaml to the built-in studies and
// docs/reproductions.md: every claim tests a statement, every claim a
// statement names exists, every status is known and carries its reason,
// and the page's sources and inventory are the ones the file gives (go
// test -run TestStatements -update writes them).
func TestStatements(t *testing.T) {
	inv := readInventory(t)
	claims, files := builtinClaims(t)
	for _, p := range inv.problems(claims, files) {
		t.Error(p)
	}
	page, err := os.ReadFile(reproductions)
	if err != nil {
		t.Fatal(err)
	}
	got, err := replaceSection(page, sourcesHeading, inv.sourcesSection())
	if err == nil {
		got, err = replaceSection(got, statementsHeading, inv.statementsSection())
	}
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(reproductions, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if n, line := firstDifference(got, page); n > 0 {
		t.Errorf("%s:%d differs from studies/%s: want %q (go test ./internal/study -run TestStatements -update rewrites its sources and statements)", reproductions, n, studies.StatementsFile, line)
	}
}

// firstDifference is the first line (from 1) where page differs from
// want, and want's line there; 0 when they are the same.
func firstDifference(want, page []byte) (int, string) {
	w, p := strings.Split(string(want), "\n"), strings.Split(string(page), "\n")
	for i := range w {
		if i >= len(p) || w[i] != p[i] {
			return i + 1, w[i]
		}
	}
	if len(p) > len(w) {
		return len(w) + 1, ""
	}
	return 0, ""
}

// TestStatementProblems: each kind of fault in the inventory is found.
func TestStatementProblems(t *testing.T) {
	claims := map[string]*Claim{
		"s#a": {ID: "a", Says: "a", A: Side{Target: "pg"}},
		"s#b": {ID: "b", Says: "b", A: Side{Target: "mongodb"}},
		"s#c": {ID: "c", Says: "c", A: Side{Target: "mongodb"}},
	}
	f := &File{Name: "s", With: map[string]TargetSpec{"mongodb": {Name: "mongodb"}}}
	files := map[string]*File{"s#a": f, "s#b": f, "s#c": f}
	inv := &inventory{
		Sources: []statementSource{{Key: "src", Short: "Src", Author: "A", Title: "T", Venue: "blog post"}},
		Statements: []statement{
			{ID: "src#A1", Says: `"fast"`, Status: "encoded", Claims: []string{"s#a", "s#gone"}},
			{ID: "src#A2", Says: `"slow"`, Status: "done"},
			{ID: "src#A3", Says: "a graph", Status: "proxy", Claims: []string{"s#a"}},
			{ID: "src#A4", Says: `"mongo"`, Status: "needs-server", Server: "MongoDB", Claims: []string{"s#a"}},
			{ID: "src#A5", Says: `"later"`, Status: "missing", Why: "x"},
			{ID: "other#A6", Says: `"x"`, Paraphrase: true, Status: "untestable", Why: "y"},
			{ID: "src#A7", Says: `"mongo faster"`, Status: "encoded", Claims: []string{"s#c"}},
		},
		lines: []int{1, 2, 3, 4, 5, 6, 7},
	}
	got := strings.Join(inv.problems(claims, files), "\n")
	for _, want := range []string{
		"statements.yaml:1: src#A1: claims: s#gone is not a claim of a built-in study",
		`statements.yaml:2: src#A2: status: "done": want encoded`,
		"statements.yaml:3: src#A3: says: quote the source's own words, or mark",
		"statements.yaml:3: src#A3: status: proxy needs differs:",
		"statements.yaml:4: src#A4: claims: s#a names no target given with --with mongodb=URL: it does not need MongoDB",
		"statements.yaml:5: src#A5: status: missing needs how:",
		"statements.yaml:5: src#A5: why: belongs to status untestable, not missing",
		`statements.yaml:6: other#A6: id: "other" is not one of the sources`,
		"statements.yaml:6: other#A6: says: quote the source's own words, or mark",
		`the claim s#b ("b") tests no statement`,
		"statements.yaml:7: src#A7: status: encoded, but every claim of it needs a server given with --with NAME=URL: needs-server",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

// replaceSection puts body in place of the section heading opens, up to the
// next "## " heading.
func replaceSection(page []byte, heading, body string) ([]byte, error) {
	s := string(page)
	start := strings.Index(s, "\n"+heading+"\n")
	if start < 0 {
		return nil, fmt.Errorf("%s: no section %q", reproductions, heading)
	}
	start++
	end := len(s)
	if next := strings.Index(s[start+len(heading):], "\n## "); next >= 0 {
		end = start + len(heading) + next + 1
	}
	return []byte(s[:start] + heading + "\n\n" + body + "\n" + s[end:]), nil
}

// citation is a source as the page cites it.
func (s statementSource) citation() string {
	out := fmt.Sprintf("**%s** — %s, %q, %s", s.Short, s.Author, s.Title, s.Venue)
	if s.Year != 0 {
		out += fmt.Sprintf(", %d", s.Year)
	}
	if s.URL != "" {
		out += ", " + s.URL
	}
	out += "."
	if s.Note != "" {
		out += " " + s.Note
	}
	return out
}

func (inv *inventory) sourcesSection() string {
	var b strings.Builder
	for _, s := range inv.Sources {
		fmt.Fprintf(&b, "- %s\n", s.citation())
	}
	return b.String()
}

// tally counts statements by status: "N statements: n1 encoded, …".
func tally(sts []statement) string {
	n := map[string]int{}
	for _, st := range sts {
		n[st.Status]++
	}
	var parts []string
	for _, s := range statuses {
		if n[s.name] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s.name], s.tally))
		}
	}
	return fmt.Sprintf("%d statements: %s", len(sts), strings.Join(parts, ", "))
}

// statusText is a statement's status as its row states it.
func (st *statement) statusText() string {
	switch st.Status {
	case "proxy":
		return "proxy: " + st.Differs
	case "needs-server":
		out := fmt.Sprintf("needs %s (`--with %s=URL`)", st.Server, servers[st.Server])
		if st.Differs != "" {
			out += "; a proxy: " + st.Differs
		}
		return out
	case "untestable":
		return "untestable here: " + st.Why
	case "missing":
		return "not yet encoded: " + st.How
	}
	return st.Status
}

func (inv *inventory) statementsSection() string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s.**\n\n", tally(inv.Statements))
	b.WriteString(`Every finding of the sources that a run could test — a speed, a size, an order —
and where docbench tests it, as docbench's source tree lists them in
` + "`studies/statements.yaml`" + `. The counts are of statements, each once, by its status
there: *encoded* when claims test it on the source's own mechanism, *through a proxy*
when they test it another way (the row says how), *need a server* when its claims are
on a server docbench cannot start here (given with ` + "`--with`" + `), *untestable here*
with the reason, *not yet encoded* when a run here could test it. Words in quotes are
the source's; the rest paraphrases it. A claim is named by its id, as in the tables
above.
`)
	for _, src := range inv.Sources {
		var sts []statement
		for _, st := range inv.Statements {
			if strings.HasPrefix(st.ID, src.Key+"#") {
				sts = append(sts, st)
			}
		}
		if len(sts) == 0 {
			continue // its statements are another source's (its note says so)
		}
		fmt.Fprintf(&b, "\n### %s\n\n%s.\n\n| id | statement | status | claims |\n|---|---|---|---|\n", src.Short, tally(sts))
		for _, st := range sts {
			var ids []string
			for _, c := range st.Claims {
				ids = append(ids, "`"+c+"`")
			}
			says := strings.ReplaceAll(st.Says, "|", `\|`)
			if st.Paraphrase {
				says += " (figures or a graph, no words of its own)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", strings.TrimPrefix(st.ID, src.Key+"#"), says, st.statusText(), strings.Join(ids, ", "))
		}
	}
	return b.String()
}
