package study

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/server"
)

// The record shipped beside docs/reproductions.md: record/NAME is a study
// directory (NAME is the study, NAME-source its --scale source run) whose
// result files are in its results archive (resultsArchive).
const (
	recordDir     = "../../record"
	reproductions = "../../docs/reproductions.md"
)

// docSection is one study's section of docs/reproductions.md: its record
// groups, the first being the rows before its first Record line.
type docSection struct {
	study  string
	groups []*recordGroup
}

// rows are the section's table rows, in the document's order.
func (sec *docSection) rows() []docRow {
	var out []docRow
	for _, g := range sec.groups {
		out = append(out, g.rows...)
	}
	return out
}

// recordGroup is a "Record:" paragraph of a section (the record directories
// it names: the study's runs at full length, at another scale, on other
// PostgreSQL versions, with other settings) and the rows of the tables
// between it and the next one, which those directories back. Two groups
// may hold rows of the same claim on the same version: the same cut of a
// study run with different settings.
type recordGroup struct {
	records []string
	line    string
	rows    []docRow
}

// docRow is a table row: its claim cell is the claim's id, then its words.
type docRow struct {
	lineNo                          int
	id, claim, ours, verdict, cells string
}

var (
	recordLink = regexp.MustCompile(`\]\(\.\./record/([^/)]+)/summary\.md\)`)
	boldText   = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	digitComma = regexp.MustCompile(`(\d),(\d{3})`)
	// rowID is the claim cell's id, STUDY#ID[@VERSION], before its words.
	rowID = regexp.MustCompile("^`([a-z0-9-]+#[a-z0-9-]+(?:@[0-9.]+)?)` (.+)$")
)

func readReproductions(t *testing.T) []*docSection {
	t.Helper()
	f, err := os.Open(reproductions)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*docSection
	var cur *docSection
	var group *recordGroup
	inClaims, inRecord := false, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if inRecord && line != "" { // the Record paragraph goes on
			group.line += " " + line
			for _, m := range recordLink.FindAllStringSubmatch(line, -1) {
				group.records = append(group.records, m[1])
			}
			continue
		}
		inRecord = false
		switch {
		case strings.HasPrefix(line, "## "):
			inClaims, cur, group = line == "## Claims and verdicts", nil, nil
		case inClaims && strings.HasPrefix(line, "### "):
			cur = &docSection{study: strings.TrimSpace(strings.TrimPrefix(line, "### "))}
			group = &recordGroup{} // the rows before its first Record line
			cur.groups = []*recordGroup{group}
			out = append(out, cur)
		case cur != nil && strings.HasPrefix(line, "Record: "):
			group, inRecord = &recordGroup{line: line}, true
			cur.groups = append(cur.groups, group)
			for _, m := range recordLink.FindAllStringSubmatch(line, -1) {
				group.records = append(group.records, m[1])
			}
		case cur != nil && strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| claim |") && !strings.HasPrefix(line, "|---"):
			cells := strings.Split(strings.Trim(line, "| "), " | ")
			if len(cells) != 5 {
				t.Fatalf("%s:%d: a claim row has 5 cells (claim, source's figure, ours, verdict, why), this one %d", reproductions, n, len(cells))
			}
			v := cells[3]
			if m := boldText.FindStringSubmatch(v); m != nil {
				v = m[1]
			}
			m := rowID.FindStringSubmatch(cells[0])
			if m == nil {
				t.Fatalf("%s:%d: a claim row's first cell opens with the claim's id, `STUDY#ID`", reproductions, n)
			}
			group.rows = append(group.rows, docRow{lineNo: n, id: m[1], claim: plainClaim(m[2]), ours: cells[2], verdict: v, cells: line})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// plainClaim is a claim as its study says it: the document's markup taken off.
func plainClaim(s string) string {
	return strings.TrimSpace(strings.NewReplacer("`", "", "**", "").Replace(s))
}

// hasFigure says whether text (a cell of the document) holds the number
// fig as a whole number: thousands separators aside, not as a part of a
// longer number.
func hasFigure(text, fig string) bool {
	text = digitComma.ReplaceAllString(digitComma.ReplaceAllString(text, "$1$2"), "$1$2")
	re := regexp.MustCompile(`(?:^|[^\d.])` + regexp.QuoteMeta(fig) + `(?:$|[^\d.]|\.(?:$|[^\d]))`)
	return re.MatchString(text)
}

// TestShippedRecord holds docs/reproductions.md to the record shipped with
// it: every record directory re-renders to the summary.md and
// findings.json it ships, its claims are still those of the built-in
// study, and in each section backed by a record every verdict and every
// figure a verdict rests on is the one the record's files give.
func TestShippedRecord(t *testing.T) {
	entries, err := os.ReadDir(recordDir)
	if err != nil {
		t.Fatalf("the shipped record: %v", err)
	}
	findings := map[string][]report.Finding{}
	manifests := map[string]*Manifest{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		src := filepath.Join(recordDir, name)
		t.Run(name, func(t *testing.T) {
			fds, m := checkRecordDir(t, src)
			findings[name], manifests[name] = fds, m
		})
	}
	backed := map[string]bool{}
	for _, sec := range readReproductions(t) {
		if len(sec.groups) == 1 { // no record yet
			continue
		}
		if rows := sec.groups[0].rows; len(rows) > 0 {
			t.Errorf("%s:%d: section %s has a row before its first Record line, which no record backs", reproductions, rows[0].lineNo, sec.study)
		}
		for _, g := range sec.groups[1:] {
			var fds []report.Finding
			for _, r := range g.records {
				m := manifests[r]
				if m == nil {
					t.Errorf("%s: section %s names record/%s, which is not a shipped study directory", reproductions, sec.study, r)
					continue
				}
				backed[r] = true
				if m.Study != sec.study {
					t.Errorf("%s: section %s names record/%s, a run of %s", reproductions, sec.study, r, m.Study)
				}
				if want := strconv.Itoa(m.Rounds) + " rounds"; !strings.Contains(g.line, want) {
					t.Errorf("%s: section %s: its Record line does not say record/%s's %q", reproductions, sec.study, r, want)
				}
				scale := "full length"
				if m.Scale != "" {
					scale = "--scale " + m.Scale
				}
				if !strings.Contains(g.line, scale) {
					t.Errorf("%s: section %s: its Record line does not say record/%s ran at %q", reproductions, sec.study, r, scale)
				}
				fds = append(fds, findings[r]...)
			}
			checkGroup(t, sec.study, g, fds)
		}
	}
	for name := range manifests {
		if !backed[name] {
			t.Errorf("record/%s is shipped but no section of %s names it on its Record line", name, reproductions)
		}
	}
}

// checkRecordDir re-renders a copy of a shipped study directory and
// compares its summary.md and findings.json with the shipped ones; it
// returns the record's findings.
func checkRecordDir(t *testing.T, src string) ([]report.Finding, *Manifest) {
	t.Helper()
	tmp := t.TempDir()
	err := filepath.WalkDir(src, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if de.IsDir() {
			return os.MkdirAll(filepath.Join(tmp, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteOutputs(tmp); err != nil {
		t.Fatalf("docbench report on %s: %v", src, err)
	}
	for _, name := range []string{"summary.md", "findings.json"} {
		want, err := os.ReadFile(filepath.Join(src, name))
		got, gerr := os.ReadFile(filepath.Join(tmp, name))
		if errors.Is(err, fs.ErrNotExist) && errors.Is(gerr, fs.ErrNotExist) {
			continue // a study without claims has no findings
		}
		if err != nil {
			t.Errorf("%s: the record ships its %s: %v", src, name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s/%s differs from what its result files give now (docbench report %s shows the new one)", src, name, src)
		}
	}
	d, err := Read(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Load(d.Manifest.Study)
	if err != nil {
		t.Fatalf("%s: a run of %q, not a built-in study: %v", src, d.Manifest.Study, err)
	}
	if len(d.File.PGVersions) > 0 { // run with --pg-versions: its claims are per version
		if f, err = f.ForPGVersions(d.File.PGVersions); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	current := map[string]string{}
	for i := range f.Claims {
		current[f.Claims[i].ID] = f.Claims[i].threshold()
	}
	for i := range d.File.Claims {
		c := &d.File.Claims[i]
		th, ok := current[c.ID]
		switch {
		case !ok:
			t.Errorf("%s: its claim %s (%q) is no longer one of the built-in %s study's: record the study again", src, c.ID, c.Says, d.Manifest.Study)
		case th != c.threshold():
			t.Errorf("%s: the claim %q is now judged by %q, the record by %q: record the study again", src, c.Says, th, c.threshold())
		}
	}
	return d.Findings(), d.Manifest
}

// defaultMajor is the major version of docbench's default PostgreSQL,
// the one a claim's row means when it names none.
var defaultMajor = strings.SplitN(server.DefaultPostgresVersion, ".", 2)[0]

// checkGroup holds a group's rows to its records' findings, matched by
// the claims' ids: each finding has its row, with the record's verdict and
// the figures it rests on (a finding on the default version, from a
// --pg-versions run, may have the row without the version); a row without
// a recorded finding is a claim of the study waiting for the next record.
func checkGroup(t *testing.T, study string, g *recordGroup, fds []report.Finding) {
	t.Helper()
	rows := map[string]docRow{}
	for _, r := range g.rows {
		rows[r.id] = r
	}
	recorded := map[string]bool{}
	for _, f := range fds {
		key := f.ID
		r, ok := rows[key]
		if base, onDefault := strings.CutSuffix(key, "@"+defaultMajor); !ok && onDefault {
			key = base // a row without a version is on docbench's default one
			r, ok = rows[key]
		}
		recorded[key] = true
		if !ok {
			t.Errorf("%s: section %s has no row for the recorded claim %s (%q)", reproductions, study, f.ID, f.Says)
			continue
		}
		if r.verdict != f.Verdict {
			t.Errorf("%s:%d: %q is %q in the document, %q by the record", reproductions, r.lineNo, f.Says, r.verdict, f.Verdict)
		}
		for _, fig := range f.Figures {
			if !hasFigure(r.ours, fig) {
				t.Errorf("%s:%d: %q: the record gives %s (%s), which the row's figures do not show", reproductions, r.lineNo, f.Says, fig, f.Measured)
			}
		}
	}
	for _, r := range g.rows {
		if !recorded[r.id] && r.verdict != "to be recorded" {
			t.Errorf("%s:%d: %q is not in the records of the Record line above it (section %s): its verdict is \"to be recorded\", not %q", reproductions, r.lineNo, r.claim, study, r.verdict)
		}
	}
}

func TestHasFigure(t *testing.T) {
	for _, c := range []struct {
		text, fig string
		want      bool
	}{
		{"READ p50 145.3 µs vs 321.8 µs = **2.2×**", "145.3", true},
		{"READ p50 145.3 µs", "145", false},
		{"64,812 vs 78,944 reads/s", "64812", true},
		{"1,164,812 reads/s", "64812", false},
		{"0.82× (0.75–0.85)", "0.82", true},
		{"10.82×", "0.82", false},
		{"ratio 2.", "2", true},
	} {
		if got := hasFigure(c.text, c.fig); got != c.want {
			t.Errorf("hasFigure(%q, %q) = %v", c.text, c.fig, got)
		}
	}
}

// TestReproductionsListEveryClaim holds docs/reproductions.md to the
// built-in studies: each study with claims has its section, each claim its
// row (its id, and the claim as the study says it), and each row is a
// claim of its study in its words, on version N (STUDY#ID@N) when the row
// says "(PostgreSQL N)".
func TestReproductionsListEveryClaim(t *testing.T) {
	sections := map[string]*docSection{}
	for _, sec := range readReproductions(t) {
		sections[sec.study] = sec
	}
	onVersion := regexp.MustCompile(` \(PostgreSQL ([0-9.]+)\)$`)
	for _, name := range Names() {
		f, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Claims) == 0 {
			continue
		}
		sec := sections[name]
		if sec == nil {
			t.Errorf("%s: no section for the built-in study %s and its %d claims", reproductions, name, len(f.Claims))
			continue
		}
		rows := map[string]bool{}
		for _, r := range sec.rows() {
			rows[r.id] = true
		}
		says := map[string]string{}
		for _, c := range f.Claims {
			id := name + "#" + c.ID
			says[id] = c.Says
			if !rows[id] {
				t.Errorf("%s: section %s has no row for the claim %s (%q)", reproductions, name, id, c.Says)
			}
		}
		for _, r := range sec.rows() {
			id, words := r.id, r.claim
			if m := onVersion.FindStringSubmatch(words); m != nil {
				words = strings.TrimSuffix(words, m[0])
				base, ok := strings.CutSuffix(id, "@"+m[1])
				if !ok {
					t.Errorf("%s:%d: the row is on PostgreSQL %s, its id %s not (STUDY#ID@%s)", reproductions, r.lineNo, m[1], r.id, m[1])
				}
				id = base
			}
			switch w, ok := says[id]; {
			case !ok:
				t.Errorf("%s:%d: %s is not a claim of the %s study, or not on the version the row names", reproductions, r.lineNo, r.id, name)
			case w != words:
				t.Errorf("%s:%d: %s says %q in the study, %q in the row", reproductions, r.lineNo, r.id, w, words)
			}
		}
	}
}

// TestResultsArchive reads a shipped study directory's results archive as
// the files it holds: the same rows from the archive as from its files
// unpacked, and a run whose file is neither there nor in the archive is an
// error naming both.
func TestResultsArchive(t *testing.T) {
	src := filepath.Join(recordDir, "document-size-seqscan-source-pg10-14-18")
	packed, err := Read(src)
	if err != nil {
		t.Fatal(err)
	}
	files, err := readArchive(src)
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no results archive (%v)", src, err)
	}
	dir := t.TempDir()
	for _, name := range []string{"study.yaml", "runs.json"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	unpacked, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(packed.Rows, unpacked.Rows) {
		t.Errorf("%s: the archive's rows differ from its files' unpacked", src)
	}

	// One result file gone, from the directory and from its archive.
	var gone string
	for _, run := range packed.Manifest.Runs {
		if run.File != "" {
			gone = run.File
			break
		}
	}
	if err := os.Remove(filepath.Join(dir, gone)); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	tw := tar.NewWriter(z)
	for name, b := range files {
		if name == gone {
			continue
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, resultsArchive), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Read(dir)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, gone)) || !strings.Contains(err.Error(), resultsArchive) {
		t.Errorf("a run whose result is in neither the directory nor its archive: %v, want an error naming %s and %s", err, gone, resultsArchive)
	}
}
