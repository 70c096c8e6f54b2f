package study

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/report"
)

// absentCase is a synthetic result where a claim's effect is absent: every
// side of the claim measures the same figure, give or take noise.
type absentCase struct {
	name string
	// row gives side i of n its figure.
	row func(i, n int) report.Row
}

var absentCases = []absentCase{
	{"equal figures on every side, every round alike", func(i, n int) report.Row {
		return report.Row{Median: 100, Min: 100, Max: 100, N: 3}
	}},
	{"the round-trip floor: every side at the floor, ±5% across 6 rounds", func(i, n int) report.Row {
		return report.Row{Median: 100, Min: 95, Max: 105, CILo: 95, CIHi: 105, N: 6}
	}},
	// Effects at and just above the floor (floorFigure): nesting's 1 kB
	// orders once passed on 2–4 µs of ~86 µs, rounds 0.2 µs apart.
	{"just above the floor: each side 2% above the last, rounds ±0.1%", func(i, n int) report.Row {
		v := floorFigure * math.Pow(1.02, float64(i))
		return report.Row{Median: v, Min: v * 0.999, Max: v * 1.001, N: 3}
	}},
	{"at the floor: each side 4% above the last, 6 rounds ±0.5%", func(i, n int) report.Row {
		v := floorFigure * math.Pow(1.04, float64(i))
		return report.Row{Median: v, Min: v * 0.995, Max: v * 1.005, CILo: v * 0.995, CIHi: v * 1.005, N: 6}
	}},
	{"an effect of 10% per side above the floor, rounds ±4% (spread comparable to effect)", func(i, n int) report.Row {
		v := floorFigure * 1.5 * math.Pow(1.1, float64(i))
		return report.Row{Median: v, Min: v * 0.96, Max: v * 1.04, N: 3}
	}},
}

// floorFigure is the synthetic floor: the study's floor row, when it names
// one, measures it every round.
const floorFigure = 100.0

// presentCases break an equivalence claim ("a ≈ b"): one side twice the
// other, in either direction.
var presentCases = []absentCase{
	{"a twice b", func(i, n int) report.Row {
		v := 100.0 * float64(2-i)
		return report.Row{Median: v, Min: v, Max: v, N: 3}
	}},
	{"b twice a", func(i, n int) report.Row {
		v := 100.0 * float64(1+i)
		return report.Row{Median: v, Min: v, Max: v, N: 3}
	}},
}

// TestClaimsFailWithoutTheirEffect runs every claim of every built-in study
// against synthetic results where the effect it states is absent (equal
// figures on all its sides; every side at the round-trip floor; effects
// under the minimum just above the floor; an effect whose rounds spread as
// wide as it) and requires that it does not pass: a threshold the floor or
// noise alone satisfies proves nothing. A claim whose sides sit on its
// study's floor may be not measurable, saying so. An equivalence claim (ratio ">= K1 and <= K2") states
// that no effect exists; it must instead fail when one side is twice the
// other. A claim its own study cannot evaluate fails the test too.
func TestClaimsFailWithoutTheirEffect(t *testing.T) {
	for _, name := range Names() {
		f, err := Load(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for i := range f.Claims {
			c := f.Claims[i]
			where := fmt.Sprintf("%s claims[%d] (%q, threshold %s)", f.Source, i, c.Says, c.threshold())
			cases := absentCases
			if rr, ok := parseRatio(c.Ratio); ok && rr.equivalence() {
				cases = presentCases
			}
			for _, tc := range cases {
				fd := evaluateSynthetic(f, c, tc)
				switch fd.Verdict {
				case Reproduced:
					t.Errorf("%s: passes with %s: measured %s; size the threshold from the source's effect", where, tc.name, fd.Measured)
				case NotMeasurable:
					if f.Floor != nil && strings.Contains(fd.Why, "floor") {
						continue // sides on the floor: not measurable is the verdict
					}
					t.Errorf("%s: not measurable on a synthetic result (%s): %s", where, tc.name, fd.Why)
				}
			}
		}
	}
}

// evaluateSynthetic evaluates claim c of f alone on one row per side.
func evaluateSynthetic(f *File, c Claim, tc absentCase) report.Finding {
	sides := c.Order
	if len(sides) == 0 {
		sides = []Side{c.A, c.B}
	}
	one := *f
	one.Claims, one.Plans = []Claim{c}, nil
	d := &Data{File: &one, Manifest: &Manifest{Targets: map[string]string{}}, Results: map[string]*report.Result{}}
	seen := map[string]bool{}
	for i, s := range sides {
		s = c.resolve(s)
		if seen[s.String()] {
			continue
		}
		seen[s.String()] = true
		d.Manifest.Targets[s.Target] = s.Target
		metric, op, _ := strings.Cut(s.y(c.Y), ":")
		if op == "" {
			op = serverOp
			if metric == "throughput" {
				op = "ALL"
			}
		}
		r := tc.row(i, len(sides))
		r.Target, r.Workload, r.Op, r.Metric, r.Unit = s.Target, s.Workload, op, metric, "u"
		if r.Workload == "" && len(f.Workloads) == 1 {
			r.Workload = f.Workloads[0].Name
		}
		for _, k := range sortedKeys(s.Point) {
			r.Point = append(r.Point, KV{Key: k, Value: s.Point[k]})
		}
		d.Rows = append(d.Rows, r)
	}
	if fl := f.Floor; fl != nil && !seen[fl.side().String()] {
		m, fop, _ := strings.Cut(fl.Y, ":")
		w := fl.Workload
		if w == "" && len(f.Workloads) == 1 {
			w = f.Workloads[0].Name
		}
		r := report.Row{Target: fl.Target, Workload: w, Op: fop, Metric: m, Unit: "u", Median: floorFigure, Min: floorFigure, Max: floorFigure, N: 3}
		for _, k := range sortedKeys(fl.Point) {
			r.Point = append(r.Point, KV{Key: k, Value: fl.Point[k]})
		}
		d.Manifest.Targets[fl.Target] = fl.Target
		d.Rows = append(d.Rows, r)
	}
	return d.Findings()[0]
}

func TestPercentileClaims(t *testing.T) {
	src := `name: c
targets:
  - {name: gin, target: "postgres:embedded"}
  - {name: seq, target: "postgres:embedded"}
workloads:
  - {name: w, workload: workloadc}
charts:
  - {title: Search latency, x: target, y: "p50:QUERY-CONTAINS"}
  - {title: Latency of every operation, x: target, y: p50}
claims:
  - {says: GIN faster, source: "0.7 ms vs 10 s", chart: Search latency, y: "p50:QUERY-CONTAINS", order: [gin, seq]}
  - {says: GIN faster by 10x, seed: "0.7 ms vs 10 s", chart: Latency of every operation, y: "p50:QUERY-CONTAINS", a: seq, b: gin, ratio: ">= 10"}
`
	f, err := Parse("c.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r := func(target string, v float64) report.Row {
		return report.Row{Target: target, Workload: "w", Op: "QUERY-CONTAINS", Metric: "p50", Median: v, Min: v * 0.9, Max: v * 1.1, N: 3, Unit: "µs"}
	}
	d := &Data{File: f, Manifest: &Manifest{}, Results: map[string]*report.Result{}, Rows: []report.Row{r("gin", 700), r("seq", 10e6)}}
	for _, fd := range d.Findings() {
		if fd.Verdict != Reproduced {
			t.Errorf("%s: %s (%s)", fd.Says, fd.Verdict, fd.Why)
		}
		if fd.Source != "0.7 ms vs 10 s" || fd.Threshold == "" {
			t.Errorf("%s: source %q, threshold %q: want both", fd.Says, fd.Source, fd.Threshold)
		}
	}
	var b bytes.Buffer
	markdownFindings(&b, &report.StudyReport{Findings: d.Findings()}, false)
	if !strings.Contains(b.String(), "Threshold: seq / gin ≥ 10× (p50:QUERY-CONTAINS) (the source: 0.7 ms vs 10 s)") {
		t.Errorf("summary.md findings lack threshold and source:\n%s", b.String())
	}
}

func TestClaimChartMustPlotItsY(t *testing.T) {
	src := `name: c
targets:
  - {name: pg, target: "postgres:embedded"}
workloads:
  - {name: w, workload: workloadc}
charts:
  - {title: Share compressed, x: target, y: doc_compressed_share}
claims:
  - {says: inline share falls, chart: Share compressed, y: doc_inline_share, a: pg, b: pg, ratio: "<= 0.5"}
  - {says: no such chart, chart: Nowhere, y: doc_inline_share, a: pg, b: pg, ratio: "<= 0.5"}
  - {says: both names, source: x, seed: y, y: doc_inline_share, a: pg, b: pg, ratio: ">= 2 and <= 1"}
`
	_, err := Parse("c.yaml", []byte(src))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`c.yaml:9:5: claims[0] ("inline share falls"): chart "Share compressed" plots doc_compressed_share, not the claim's y doc_inline_share`,
		`c.yaml:10:5: claims[1] ("no such chart"): chart "Nowhere" is not one of the study's charts`,
		`c.yaml:11:5: claims[2]: give source: (seed: is its older name), not both`,
		`c.yaml:11:5: claims[2]: ratio: ">= 2 and <= 1"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if strings.Contains(line, "claims[0]") && strings.Count(line, "c.yaml:") != 1 {
			t.Errorf("not one line naming file and line: %q", line)
		}
	}
}
