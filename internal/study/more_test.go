package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
)

// TestMoreRoundsDecision: a claim inconclusive for its spread asks for
// rounds of its sides' series and the floor's; a batch gives each series
// those rounds up to the bound, and none to a claim with a series given
// up; once rounds were added, the verdict says after how many.
func TestMoreRoundsDecision(t *testing.T) {
	f, err := Parse("c.yaml", []byte(floorStudy))
	if err != nil {
		t.Fatal(err)
	}
	d := &Data{File: f, Manifest: &Manifest{}, Results: map[string]*report.Result{}, values: map[seriesKey][]float64{}}
	// An effect of 10 % with rounds ±4 %: spread comparable to it.
	for name, vs := range map[string][]float64{"small": {50, 50, 50}, "a": {96, 100, 104}, "b": {106, 110, 114}, "big": {50, 50, 50}} {
		d.Rows = append(d.Rows, report.Row{Target: name, Workload: "w", Op: "READ", Metric: "p50", Unit: "µs", Median: vs[1], Min: vs[0], Max: vs[2], N: 3})
		d.values[seriesKey{name, "w", pointID(nil), "READ", "p50"}] = vs
	}
	wants := d.MoreRounds()
	var got []string
	for _, w := range wants {
		var names []string
		for _, s := range w.Series {
			names = append(names, s.Target+" "+s.Workload)
		}
		got = append(got, w.Says+": "+strings.Join(names, ", "))
		if w.More != 6 {
			t.Errorf("%s: %d more rounds, want 6", w.Says, w.More)
		}
	}
	if want := []string{"a below b: a w, b w, small w", "b above a: b w, a w, small w"}; !slices.Equal(got, want) {
		t.Errorf("claims wanting rounds:\n got %q\nwant %q", got, want)
	}

	three := func(Series) int { return 3 }
	for _, tc := range []struct {
		bound  int
		gaveUp string
		want   int // rounds added to each series
	}{{12, "", 6}, {5, "", 2}, {3, "", 0}, {12, "small", 0}} {
		gaveUp := map[string]bool{}
		if tc.gaveUp != "" {
			gaveUp[Series{Target: tc.gaveUp, Workload: "w"}.id()] = true
		}
		b := planBatch(wants, three, tc.bound, gaveUp)
		if tc.want == 0 {
			if b != nil {
				t.Errorf("bound %d, given up %q: planned %v", tc.bound, tc.gaveUp, b.add)
			}
			continue
		}
		if b == nil || len(b.add) != 3 || b.runs() != 3*tc.want || b.rounds("a", [][]KV{nil}) != tc.want {
			t.Fatalf("bound %d: planned %+v", tc.bound, b)
		}
		if run, _ := b.picks("a", "w", nil, tc.want-1); !run {
			t.Errorf("bound %d: the last added round does not run a", tc.bound)
		}
		if run, _ := b.picks("a", "w", nil, tc.want); run {
			t.Errorf("bound %d: a round beyond the batch runs a", tc.bound)
		}
		if why := b.why("small", "w", nil); !slices.Equal(why, []string{"a below b", "b above a"}) {
			t.Errorf("the floor's rounds are added for %q", why)
		}
		if want := "adding 6 rounds of a w and b w and small w: a below b — spread comparable to effect"; tc.bound == 12 && b.lines[0] != want {
			t.Errorf("line %q, want %q", b.lines[0], want)
		}
	}

	// Rounds added: the reason says after how many, and asks for more only
	// below the bound.
	d.Manifest.Runs = []Run{{Target: "a", Workload: "w", Round: 4, AddedFor: []string{"a below b"}}}
	c := &f.Claims[0]
	if got, want := d.spreadText(c, 12, 3), "spread comparable to effect after 12 rounds (bound 12)"; got != want {
		t.Errorf("at the bound: %q, want %q", got, want)
	}
	got1 := d.spreadText(c, 9, 3)
	if m := spreadMore.FindStringSubmatch(got1); got1 != "spread comparable to effect after 9 rounds, 3 more rounds needed (bound 12)" || m == nil || m[1] != "3" {
		t.Errorf("below the bound: %q", got1)
	}
	if got := d.spreadText(&f.Claims[4], 9, 3); got != "spread comparable to effect, 3 more rounds needed (bound 12)" {
		t.Errorf("a claim no rounds were added for: %q", got)
	}
}

// growingStudy's claim is deterministic and stays inconclusive for its
// spread: grows's database gains a fixed blob at every run
// (statement.setup), still's stays the same size, so grows lies above
// still in every round while its own rounds spread by more than half the
// gap.
const growingStudy = `name: growing
title: rounds added for a claim
targets:
  - {name: grows, target: "sqlite:grows.db", properties: {statement.setup: "CREATE TABLE IF NOT EXISTS grow (x BLOB); INSERT INTO grow VALUES (zeroblob(30000))"}}
  - {name: still, target: "sqlite:still.db"}
properties: {recordcount: 200}
workloads:
  - {name: read, workload: workloadc, properties: {readproportion: 0.5, statementproportion: 0.5, statement.sql: "SELECT 1"}}
rounds: 2
duration: 200ms
max_rounds: 4
quick: {rounds: 2, duration: 200ms}
claims:
  - {says: grows is larger, y: total_bytes, workload: read, a: grows, b: still, ratio: ">= 1", effect: "0.1%"}
`

// TestAddedRounds: a study whose claim's spread is comparable to its
// effect runs more rounds of the claim's series, up to max_rounds and no
// further, records them in runs.json with the claim, and says after how
// many rounds the claim stayed inconclusive; --quick adds none; an
// interrupt during added rounds leaves the study incomplete.
func TestAddedRounds(t *testing.T) {
	dir := t.TempDir()
	f, err := Parse("growing.yaml", []byte(growingStudy))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	out := filepath.Join(dir, "out")
	m, err := Conduct(context.Background(), f, RunOptions{Out: out, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	var got []string
	for _, r := range m.Runs {
		s := fmt.Sprintf("%s %s r%d", r.Target, r.Workload, r.Round)
		if len(r.AddedFor) > 0 {
			s += " for " + strings.Join(r.AddedFor, ", ")
		}
		if r.Error != "" || r.NotApplicable != "" {
			s += " error: " + r.Error + r.NotApplicable
		}
		got = append(got, s)
	}
	added := " for grows is larger"
	want := []string{"grows load r1", "grows read r1", "grows read r2", "still load r1", "still read r1", "still read r2",
		"grows load r3" + added, "grows read r3" + added, "grows read r4" + added,
		"still load r3" + added, "still read r3" + added, "still read r4" + added}
	if !slices.Equal(got, want) {
		t.Errorf("runs:\n got %q\nwant %q\n%s", got, want, log.String())
	}
	if !strings.Contains(log.String(), "up to ") || !strings.Contains(log.String(), "max_rounds (4)") {
		t.Errorf("the estimate does not count the added rounds up to the bound:\n%s", log.String())
	}
	if line := "adding 2 rounds of grows read and still read: grows is larger — spread comparable to effect"; strings.Count(log.String(), line) != 1 {
		t.Errorf("want one line %q in:\n%s", line, log.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "runs.json"))
	if err != nil || !strings.Contains(string(b), `"added_for": [`) {
		t.Errorf("runs.json does not say which runs were added: %v", err)
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.txt"))
	if err != nil || !strings.Contains(string(summary), "spread comparable to effect after 4 rounds (bound 4)") {
		t.Errorf("summary.txt does not say after how many rounds (%v):\n%s", err, summary)
	}
	if md, err := os.ReadFile(filepath.Join(out, "summary.md")); err != nil || !strings.Contains(string(md), "Medians over 2 rounds, up to 4 where rounds were added for claims") {
		t.Errorf("summary.md does not say rounds were added (%v)", err)
	}
	var fj struct{ Findings []report.Finding }
	if b, err := os.ReadFile(filepath.Join(out, "findings.json")); err != nil || json.Unmarshal(b, &fj) != nil || len(fj.Findings) != 1 ||
		fj.Findings[0].Verdict != Inconclusive || !strings.Contains(fj.Findings[0].Measured, "min–max across 4 rounds") {
		t.Errorf("findings: %+v (%v)", fj.Findings, err)
	}

	// --quick adds no rounds (this quick run has two).
	f, _ = Parse("growing.yaml", []byte(growingStudy))
	m, err = Conduct(context.Background(), f, RunOptions{Out: filepath.Join(dir, "quick"), Quick: true, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) != 6 {
		t.Errorf("a quick run added rounds: %d runs", len(m.Runs))
	}

	// An interrupt during the added rounds stops there, as in any round.
	f, _ = Parse("growing.yaml", []byte(growingStudy))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m, err = Conduct(ctx, f, RunOptions{Out: filepath.Join(dir, "stopped"), Log: &cancelOn{w: &log, line: "adding ", cancel: cancel}})
	if !errors.Is(err, runner.ErrInterrupted) || m == nil || !strings.HasPrefix(m.Incomplete, "interrupted after 4 of 8 runs") {
		t.Errorf("interrupted during added rounds: %v, manifest %+v", err, m)
	}
}

// cancelOn writes to w and cancels once a write contains line.
type cancelOn struct {
	mu     sync.Mutex
	w      *strings.Builder
	line   string
	cancel func()
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if strings.Contains(string(p), c.line) {
		c.cancel()
	}
	return c.w.Write(p)
}

// TestMoreRoundsOnOverlap: ranges that overlap (an order) or straddle the
// threshold (a ratio) while the medians agree with the claim by more than
// its minimum effect ask for rounds too (more may part them); medians that
// contradict it do not.
func TestMoreRoundsOnOverlap(t *testing.T) {
	f, err := Parse("c.yaml", []byte(floorStudy))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a    []float64
		want bool
	}{{[]float64{90, 100, 112}, true}, {[]float64{105, 115, 120}, false}} {
		d := &Data{File: f, Manifest: &Manifest{}, Results: map[string]*report.Result{}, values: map[seriesKey][]float64{}}
		for name, vs := range map[string][]float64{"small": {50, 50, 50}, "a": tc.a, "b": {106, 110, 114}, "big": {50, 50, 50}} {
			d.Rows = append(d.Rows, report.Row{Target: name, Workload: "w", Op: "READ", Metric: "p50", Unit: "µs", Median: vs[1], Min: vs[0], Max: vs[2], N: 3})
			d.values[seriesKey{name, "w", pointID(nil), "READ", "p50"}] = vs
		}
		var says []string
		for _, w := range d.MoreRounds() {
			says = append(says, w.Says)
		}
		for _, fd := range d.Findings() {
			if fd.Says == "a about b" && tc.want {
				// A band the bounds straddle, the medians inside it (0.909×):
				// rounds by the medians' distance to the nearer edge, 0.8×.
				if fd.Verdict != Inconclusive || !strings.Contains(fd.Why, "straddle a ratio between 0.8× and 1.25×; the medians agree with the claim; spread comparable to effect") {
					t.Errorf("a %v: a about b: %s (%s), want inconclusive asking for rounds", tc.a, fd.Verdict, fd.Why)
				}
			}
			if fd.Says != "a below b" && fd.Says != "b above a" {
				continue
			}
			asks := slices.Contains(says, fd.Says)
			if fd.Verdict != Inconclusive || asks != tc.want {
				t.Errorf("a %v: %s (%s), asks for rounds %v, want %v", tc.a, fd.Verdict, fd.Why, asks, tc.want)
			}
			if tc.want && fd.Says == "b above a" && !strings.Contains(fd.Why, "straddle a ratio ≥ 1×; the medians agree with the claim; spread comparable to effect") {
				t.Errorf("a %v: why %q", tc.a, fd.Why)
			}
			if tc.want && fd.Says == "a below b" && !strings.Contains(fd.Why, "overlap; the medians agree with the order; spread comparable to effect") {
				t.Errorf("a %v: why %q", tc.a, fd.Why)
			}
		}
	}
}
