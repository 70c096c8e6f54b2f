package study

import (
	"slices"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/report"
)

const claimsStudy = `name: c
targets:
  - {name: small, target: "postgres:embedded"}
  - {name: big, target: "postgres:embedded"}
  - {name: huge, target: "postgres:embedded"}
workloads:
  - {name: w, workload: workloadc}
sweep:
  - {property: document.size, values: [512, 8192]}
claims:
  - {says: big is 10x small, y: wal_bytes_per_update, target: big, a: {point: {document.size: "8192"}}, b: {point: {document.size: "512"}}, ratio: ">= 10"}
  - {says: ordered, y: "mean:READ", order: [{target: small, point: {document.size: "512"}}, {target: big, point: {document.size: "512"}}, {target: huge, point: {document.size: "512"}}]}
  - {says: absent, y: "mean:READ", a: {target: small, point: {document.size: "512"}}, b: {target: small, point: {document.size: "8192"}}, ratio: "<= 1"}
plans:
  - {target: huge, workload: w, op: READ, index: usertable_gin}
`

func TestClaimValidationNamesTheLine(t *testing.T) {
	src := `name: c
targets:
  - {name: pg, target: "postgres:embedded"}
workloads:
  - {name: w, workload: workloadc}
claims:
  - {says: x, y: "p42:READ", a: pg, b: pg, ratio: "about 3"}
  - {says: y, y: "mean", order: [pg]}
  - {y: throughput, a: nope, b: pg, ratio: ">= 2", colour: red}
plans:
  - {target: pg}
`
	_, err := Parse("c.yaml", []byte(src))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`c.yaml:7:5: claims[0]: y: "p42:READ"`,
		`c.yaml:7:5: claims[0]: ratio: "about 3"`,
		`c.yaml:8:5: claims[1]: y: "mean": name the operation`,
		`c.yaml:8:5: claims[1]: order: needs at least two sides`,
		`c.yaml:9:52: unknown key "colour" in claims`,
		`c.yaml:9:5: claims[2]: says: is required`,
		`c.yaml:9:5: claims[2]: a: target "nope" is not one of the study's targets`,
		`c.yaml:11:5: plans[0]: needs target:, op: and index:`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}

// TestClaimIDs: a claim's id is kebab-case and unique in its study; a
// claim without one is known by its position; a finding carries
// STUDY#ID.
func TestClaimIDs(t *testing.T) {
	src := `name: c
targets:
  - {name: pg, target: "postgres:embedded"}
workloads:
  - {name: w, workload: workloadc}
claims:
  - {id: Fast_Reads, says: x, y: throughput, a: pg, b: pg, ratio: ">= 1"}
  - {id: same, says: y, y: throughput, a: pg, b: pg, ratio: ">= 1"}
  - {id: same, says: z, y: throughput, a: pg, b: pg, ratio: ">= 1"}
  - {id: "3", says: z, y: throughput, a: pg, b: pg, ratio: ">= 1"}
`
	_, err := Parse("c.yaml", []byte(src))
	for _, want := range []string{
		`c.yaml:7:5: claims[0]: id: "Fast_Reads": want a kebab-case name`,
		`c.yaml:9:5: claims[2]: id: "same" is claims[1]'s too`,
		`c.yaml:10:5: claims[3]: id: "3": want a kebab-case name`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	f, err := Parse("c.yaml", []byte(strings.Replace(claimsStudy, "{says: ordered,", "{id: size-order, says: ordered,", 1)))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, fd := range (&Data{File: f, Manifest: &Manifest{}, Results: map[string]*report.Result{}}).Findings() {
		ids = append(ids, fd.ID)
	}
	if want := []string{"c#1", "c#size-order", "c#3"}; !slices.Equal(ids, want) {
		t.Errorf("finding ids %v, want %v", ids, want)
	}
}

func row(target, size, op, metric string, median, lo, hi float64, n int) report.Row {
	return report.Row{Target: target, Workload: "w", Point: []KV{{Key: "document.size", Value: size}}, Op: op, Metric: metric,
		Median: median, Min: lo, Max: hi, CILo: lo, CIHi: hi, N: n, Unit: "B"}
}

func noCI(r report.Row) report.Row {
	r.CILo, r.CIHi = 0, 0
	return r
}

func TestFindings(t *testing.T) {
	f, err := Parse("c.yaml", []byte(claimsStudy))
	if err != nil {
		t.Fatal(err)
	}
	plan := func(access, flag string) *report.Result {
		return &report.Result{Server: &probe.Server{Plans: []db.Plan{{Op: "READ", Access: access, Flag: flag}}}}
	}
	for _, tc := range []struct {
		name  string
		rows  []report.Row
		huge  *report.Result
		wants []string
	}{
		{"reproduced", []report.Row{
			row("big", "8192", serverOp, "wal_bytes_per_update", 9000, 8800, 9100, 3),
			row("big", "512", serverOp, "wal_bytes_per_update", 300, 290, 310, 3),
			row("small", "512", "READ", "mean", 10, 9, 11, 3),
			row("big", "512", "READ", "mean", 20, 19, 21, 3),
			row("huge", "512", "READ", "mean", 30, 29, 31, 3),
		}, plan("Bitmap Index Scan using usertable_gin", ""), []string{Reproduced, Reproduced, NotMeasurable}},
		{"not reproduced, one round", []report.Row{
			row("big", "8192", serverOp, "wal_bytes_per_update", 600, 590, 610, 3),
			row("big", "512", serverOp, "wal_bytes_per_update", 300, 290, 310, 3),
			row("small", "512", "READ", "mean", 10, 0, 0, 1),
			row("big", "512", "READ", "mean", 20, 0, 0, 1),
			row("huge", "512", "READ", "mean", 30, 0, 0, 1),
		}, plan("Bitmap Index Scan using usertable_gin", ""), []string{NotReproduced, Inconclusive, NotMeasurable}},
		{"overlap, plan contradicts", []report.Row{
			row("big", "8192", serverOp, "wal_bytes_per_update", 3100, 2000, 4000, 3),
			row("big", "512", serverOp, "wal_bytes_per_update", 300, 290, 310, 3),
			row("small", "512", "READ", "mean", 10, 9, 11, 3),
			row("big", "512", "READ", "mean", 20, 19, 21, 3),
			row("huge", "512", "READ", "mean", 30, 29, 31, 3),
		}, plan("Seq Scan on usertable", "no index used: Seq Scan on usertable (no index can serve this statement)"), []string{Inconclusive, NotMeasurable, NotMeasurable}},
		{"three rounds: min–max", []report.Row{
			noCI(row("big", "8192", serverOp, "wal_bytes_per_update", 9000, 8800, 9100, 3)),
			noCI(row("big", "512", serverOp, "wal_bytes_per_update", 300, 290, 310, 3)),
			noCI(row("small", "512", "READ", "mean", 10, 9, 11, 3)),
			noCI(row("big", "512", "READ", "mean", 20, 10, 21, 3)),
			noCI(row("huge", "512", "READ", "mean", 30, 29, 31, 3)),
		}, plan("Bitmap Index Scan using usertable_gin", ""), []string{Reproduced, Inconclusive, NotMeasurable}},
		{"planner preferred a scan", []report.Row{
			row("big", "8192", serverOp, "wal_bytes_per_update", 9000, 8800, 9100, 3),
			row("big", "512", serverOp, "wal_bytes_per_update", 300, 290, 310, 3),
			row("small", "512", "READ", "mean", 10, 9, 11, 3),
			row("big", "512", "READ", "mean", 20, 19, 21, 3),
			row("huge", "512", "READ", "mean", 30, 29, 31, 3),
		}, plan("Seq Scan on usertable", "no index used: Seq Scan on usertable (the planner preferred it; an index can serve it: Bitmap Heap Scan on usertable → Bitmap Index Scan using usertable_gin)"),
			[]string{Reproduced, NotMeasurable, NotMeasurable}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &Data{File: f, Rows: tc.rows, Manifest: &Manifest{Runs: []Run{{Target: "huge", Workload: "w", File: "h.json"}}},
				Results: map[string]*report.Result{"h.json": tc.huge}}
			got := d.Findings()
			if len(got) != len(tc.wants) {
				t.Fatalf("%d findings, want %d", len(got), len(tc.wants))
			}
			for i, want := range tc.wants {
				if got[i].Verdict != want {
					t.Errorf("claim %q: verdict %q (%s; %s), want %q", got[i].Says, got[i].Verdict, got[i].Measured, got[i].Why, want)
				}
			}
			if tc.name == "overlap, plan contradicts" && !strings.Contains(got[1].Why, "PLAN CONTRADICTS TARGET: huge w READ") {
				t.Errorf("why %q: want the plan contradiction", got[1].Why)
			}
		})
	}
}

func TestVerdictChanges(t *testing.T) {
	f, err := Parse("c.yaml", []byte(claimsStudy))
	if err != nil {
		t.Fatal(err)
	}
	data := func(big8k float64) *Data {
		return &Data{File: f, Manifest: &Manifest{}, Results: map[string]*report.Result{}, Rows: []report.Row{
			row("big", "8192", serverOp, "wal_bytes_per_update", big8k, big8k-10, big8k+10, 3),
			row("big", "512", serverOp, "wal_bytes_per_update", 300, 290, 310, 3),
		}}
	}
	var b strings.Builder
	verdictChanges(&b, data(9000), data(600))
	if !strings.Contains(b.String(), "big is 10x small: reproduced → not reproduced") {
		t.Errorf("got %q", b.String())
	}
	// A claim reworded keeps its id: the change is still the same claim's.
	withID := func(src string) *File {
		f, err := Parse("c.yaml", []byte(strings.Replace(claimsStudy, "{says: big is 10x small,", src, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	old, cur := data(9000), data(600)
	old.File, cur.File = withID("{id: big-wal, says: big is 10x small,"), withID("{id: big-wal, says: the big WAL is ten times the small,")
	b.Reset()
	verdictChanges(&b, old, cur)
	if !strings.Contains(b.String(), "the big WAL is ten times the small: reproduced → not reproduced") {
		t.Errorf("reworded: got %q", b.String())
	}
	// Without ids, a claim put first moves the others: they are matched
	// by their words, not their positions.
	cur.File = withID("{says: a new first claim, y: wal_bytes_per_update, target: big, a: {point: {document.size: \"8192\"}}, b: {point: {document.size: \"512\"}}, ratio: \">= 1000\"}\n  - {says: big is 10x small,")
	old.File = f
	b.Reset()
	verdictChanges(&b, old, cur)
	if got := b.String(); !strings.Contains(got, "big is 10x small: reproduced → not reproduced") || strings.Contains(got, "a new first claim") {
		t.Errorf("a claim put first: got %q", got)
	}
}

// FuzzParse: no study file, claims and plan checks included, makes Parse
// panic; what it accepts has every claim's sides resolvable.
func FuzzParse(f *testing.F) {
	f.Add([]byte(claimsStudy))
	f.Add([]byte("workloads: [{workload: workloadc}]\nclaims: [{says: x, y: throughput, a: t, b: u, ratio: '>= 1'}]\n"))
	f.Add([]byte("claims: [{order: [{point: {a: 1}}]}]\nplans: [1, {target: x}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sf, err := Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		for _, c := range sf.Claims {
			if c.Says == "" || c.Y == "" || (len(c.Order) == 0) == (c.Ratio == "") {
				t.Fatalf("accepted an incomplete claim: %+v", c)
			}
		}
	})
}

const floorStudy = `name: c
targets:
  - {name: small, target: "postgres:embedded"}
  - {name: a, target: "postgres:embedded"}
  - {name: b, target: "postgres:embedded"}
  - {name: big, target: "postgres:embedded"}
workloads:
  - {name: w, workload: workloadc}
floor: {says: "a read of a tiny row", y: "p50:READ", target: small}
max_rounds: 12
claims:
  - {says: a below b, y: "p50:READ", order: [a, b]}
  - {says: a below b by 30%, y: "p50:READ", order: [a, b], effect: "30%"}
  - {says: a about b, y: "p50:READ", a: a, b: b, ratio: ">= 0.8 and <= 1.25"}
  - {says: a about b with a control, y: "p50:READ", a: a, b: b, ratio: ">= 0.8 and <= 1.25", control: big}
  - {says: b above a, y: "p50:READ", a: b, b: a, ratio: ">= 1"}
`

// TestMinimumEffectSpreadAndFloor: an order or ratio needs its minimum
// effect; a spread comparable to the effect asks for more rounds; rounds
// below the floor are void; sides on the floor are not measurable.
func TestMinimumEffectSpreadAndFloor(t *testing.T) {
	f, err := Parse("c.yaml", []byte(floorStudy))
	if err != nil {
		t.Fatal(err)
	}
	rounds := func(target string, vs ...float64) (report.Row, []float64) {
		s := append([]float64(nil), vs...)
		slices.Sort(s)
		return report.Row{Target: target, Workload: "w", Op: "READ", Metric: "p50", Unit: "µs", Median: s[len(s)/2], Min: s[0], Max: s[len(s)-1], N: len(s)}, vs
	}
	type want struct{ verdict, why string }
	for _, tc := range []struct {
		name   string
		series map[string][]float64
		want   []want // by claim
	}{
		{"an effect of 3% with tight rounds: under the minimum",
			map[string][]float64{"small": {50, 50, 50}, "a": {100, 100.1, 100.2}, "b": {103, 103.1, 103.2}, "big": {50, 50, 50}},
			[]want{{NotReproduced, "effect 3 % under the minimum 5 % (at most 3.2 %"}, {NotReproduced, "under the minimum 30 %"}, {Reproduced, ""}, {Reproduced, ""}, {NotReproduced, "effect 3 % under the minimum 5 % (at most 3.2 %"}}},
		{"an effect of 10% with rounds ±4%: spread comparable",
			map[string][]float64{"small": {50, 50, 50}, "a": {96, 100, 104}, "b": {106, 110, 114}, "big": {50, 50, 50}},
			[]want{{Inconclusive, "spread comparable to effect, 6 more rounds needed (bound 12)"}, {NotReproduced, "under the minimum 30 %"}, {Reproduced, ""}, {Reproduced, ""}, {Inconclusive, "spread comparable to effect, 6 more rounds needed (bound 12)"}}},
		{"sides on the floor: not measurable, unless the control lies above it",
			map[string][]float64{"small": {100, 101, 102}, "a": {101, 102, 102}, "b": {102, 103, 104}, "big": {300, 310, 320}},
			[]want{{NotMeasurable, "sit at the floor"}, {NotMeasurable, "sit at the floor"}, {NotMeasurable, "sit at the floor"}, {Reproduced, ""}, {NotMeasurable, "sit at the floor"}}},
		{"an equivalence's sides within its band of the floor: not measurable; orders judged",
			map[string][]float64{"small": {100, 100, 100}, "a": {119, 119.5, 120}, "b": {122.5, 123, 123.5}, "big": {50, 50, 50}},
			[]want{{NotReproduced, "effect 2.93 % under the minimum 5 % (at most 3.78 %"}, {NotMeasurable, "sit at the floor (within 30 % of it"}, {NotMeasurable, "sit at the floor (within its band, 25 % of it"}, {NotMeasurable, "sit at the floor"}, {NotReproduced, "effect 2.93 %"}}},
		{"a round below the floor is void, not counted",
			map[string][]float64{"small": {100, 101, 102}, "a": {150, 60, 151, 152}, "b": {300, 301, 302, 303}, "big": {300, 310, 320}},
			[]want{{Reproduced, "1 of 4 rounds of a void, not counted"}, {Reproduced, "1 of 4 rounds of a void"}, {NotReproduced, ""}, {NotReproduced, ""}, {Reproduced, "1 of 4 rounds of a void"}}},
		{"every round below the floor",
			map[string][]float64{"small": {100, 101, 102}, "a": {60, 61, 62}, "b": {300, 301, 302}, "big": {300, 310, 320}},
			[]want{{NotMeasurable, "every round of a (3) lies below the floor's lowest round, 100 µs: void"}, {NotMeasurable, "void"}, {NotMeasurable, "void"}, {NotMeasurable, "void"}, {NotMeasurable, "void"}}},
	} {
		d := &Data{File: f, Manifest: &Manifest{}, Results: map[string]*report.Result{}, values: map[seriesKey][]float64{}}
		for _, name := range []string{"small", "a", "b", "big"} {
			r, vs := rounds(name, tc.series[name]...)
			d.Rows = append(d.Rows, r)
			d.values[seriesKey{name, "w", pointID(nil), "READ", "p50"}] = vs
		}
		for i, fd := range d.Findings() {
			w := tc.want[i]
			if fd.Verdict != w.verdict || !strings.Contains(fd.Why, w.why) {
				t.Errorf("%s: %q: %s (%s); want %s with %q", tc.name, fd.Says, fd.Verdict, fd.Why, w.verdict, w.why)
			}
		}
	}
}

func TestFloorAndEffectValidation(t *testing.T) {
	src := `name: c
targets:
  - {name: pg, target: "postgres:embedded"}
workloads:
  - {name: w, workload: workloadc}
floor: {y: "index_bytes", target: nope}
claims:
  - {says: x, y: "p50:READ", order: [pg, pg], effect: "a lot", control: nope}
`
	_, err := Parse("c.yaml", []byte(src))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`c.yaml:6:1: floor: y: "index_bytes": want a latency METRIC:OP`,
		`c.yaml:6:1: floor: target "nope" is not one of the study's targets`,
		`c.yaml:8:5: claims[0]: effect: "a lot": want a percentage`,
		`c.yaml:8:5: claims[0]: control: target "nope"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}
