package study

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"golang.org/x/perf/benchmath"

	"github.com/docbench/docbench/internal/report"
)

// Claim is one of the seed's claims a study reproduces, stated so that the
// results can check it: a figure (Y, as a chart's y) compared between two
// sides (A/B with Ratio) or ordered across sides (Order, ascending).
//
//	claims:
//	  - id: path-ops-smaller
//	    says: "jsonb_path_ops index ≤ 0.6× the jsonb_ops index"
//	    source: "295 MB vs 636 MB (0.46×)"
//	    chart: Index size by target
//	    y: index_bytes
//	    workload: tags
//	    a: pg-gin-path-ops
//	    b: pg-gin
//	    ratio: "<= 0.6"
//	  - says: "query latency: GIN jsonb_path_ops < GIN jsonb_ops < seq scan"
//	    y: "p50:QUERY-CONTAINS"
//	    workload: tags
//	    order: [pg-gin-path-ops, pg-gin, pg-json]
//
// A claim's chart, when named, must plot its y. Order claims over skewed
// latencies compare medians (p50), as the sources did, not means.
//
// A claim is known as STUDY#ID (containment#path-ops-smaller) in
// findings.json, summary.md and docs/reproductions.md: its id stays when
// its words change. A claim without id: is known by its position (1, 2, …).
type Claim struct {
	ID       string `yaml:"id"`       // kebab-case, unique in the study; its position when not given
	Says     string `yaml:"says"`     // the claim, in words
	Source   string `yaml:"source"`   // the source's own figure, shown beside the threshold
	Seed     string `yaml:"seed"`     // older name of source (accepted)
	Chart    string `yaml:"chart"`    // the title of the chart that shows it
	Y        string `yaml:"y"`        // the figure: METRIC:OP or a server figure
	Workload string `yaml:"workload"` // default workload of the sides
	Target   string `yaml:"target"`   // default target of the sides
	A        Side   `yaml:"a"`
	B        Side   `yaml:"b"`
	Ratio    string `yaml:"ratio"` // A/B compared: ">= 10", "<= 0.6"
	Order    []Side `yaml:"order"` // ascending: each side's figure below the next one's
	// Effect is the smallest effect an order or a one-sided ratio needs,
	// from the source's figure ("30%"); defaultEffect when not given.
	Effect string `yaml:"effect"`
	// Control is a series without the claim's effect whose figure lies
	// above the study's floor: with it, sides at the floor are judged.
	Control *Side `yaml:"control"`
}

// Floor is the client's own floor under a study's latencies: the round
// trip of its cheapest read, or a control run. A latency round below it
// is void; a latency claim whose sides all sit on it is not measurable.
type Floor struct {
	Says     string            `yaml:"says"`
	Y        string            `yaml:"y"`
	Target   string            `yaml:"target"`
	Workload string            `yaml:"workload"`
	Point    map[string]string `yaml:"point"`
}

func (fl *Floor) side() Side { return Side{Target: fl.Target, Workload: fl.Workload, Point: fl.Point} }

// defaultEffect is the minimum effect of a claim whose source gives none.
const defaultEffect = 0.05

// defaultMaxRounds bounds the rounds a claim may ask for when the study
// states no max_rounds.
const defaultMaxRounds = 20

// latencyMetrics are the metrics a floor bounds from below.
var latencyMetrics = []string{"p50", "p95", "p99", "p999", "mean", "max"}

// parseEffect reads "30%" (or "30 %") as 0.3.
func parseEffect(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	if err != nil || !strings.HasSuffix(strings.TrimSpace(s), "%") || v <= 0 || v >= 10000 {
		return 0, false
	}
	return v / 100, true
}

// minEffect is the claim's minimum effect as a fraction.
func (c *Claim) minEffect() float64 {
	if v, ok := parseEffect(c.Effect); ok {
		return v
	}
	return defaultEffect
}

// Side picks one series of a study: a target, a workload and the swept
// values of a point. Written as a target name, or as a mapping.
type Side struct {
	Target   string            `yaml:"target"`
	Workload string            `yaml:"workload"`
	Point    map[string]string `yaml:"point"`
	// Y is the side's figure when its server names the source's figure
	// differently (MongoDB's secondary_index_bytes beside PostgreSQL's
	// index_bytes); the claim's y when empty.
	Y string `yaml:"y"`
}

// y is the figure of side s of a claim whose y is cy.
func (s Side) y(cy string) string {
	if s.Y != "" {
		return s.Y
	}
	return cy
}

// UnmarshalYAML reads a target name or {target, workload, point}.
func (s *Side) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		s.Target = n.Value
		return nil
	}
	type plain Side
	return n.Decode((*plain)(s))
}

func (s Side) String() string {
	out := s.Target
	if s.Workload != "" {
		out += " " + s.Workload
	}
	for _, k := range sortedKeys(s.Point) {
		out += " " + k + "=" + s.Point[k]
	}
	if s.Y != "" {
		out += " " + s.Y
	}
	return strings.TrimSpace(out)
}

// PlanCheck states what a target's plan must use: the plan of Op in
// Workload on Target names Index (a substring of its access path). A
// target named for an index that its plan does not use measures something
// else; the study says so first, and the claims on it are not measurable.
type PlanCheck struct {
	Target   string `yaml:"target"`
	Workload string `yaml:"workload"`
	Op       string `yaml:"op"`
	Index    string `yaml:"index"`
}

// Verdicts of claims.
const (
	Reproduced    = "reproduced"
	NotReproduced = "not reproduced"
	Inconclusive  = "inconclusive"
	NotMeasurable = "not measurable here"
)

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if ks[j] < ks[i] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}

// ratioRange is the range a claim's ratio must fall in: [Lo, Hi], Hi
// +Inf for ">= K", Lo 0 for "<= K".
type ratioRange struct{ Lo, Hi float64 }

// parseRatio reads ">= 10", "<= 0.6", or ">= 0.8 and <= 1.25" (the figures
// about equal: an equivalence claim).
func parseRatio(s string) (ratioRange, bool) {
	rr := ratioRange{0, math.Inf(1)}
	parts := strings.Split(s, " and ")
	if len(parts) > 2 {
		return rr, false
	}
	seen := map[string]bool{}
	for _, part := range parts {
		part = strings.TrimSpace(part)
		ok := false
		for _, o := range []string{">=", "<="} {
			rest, found := strings.CutPrefix(part, o)
			if !found || seen[o] {
				continue
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil || v <= 0 || math.IsInf(v, 0) {
				return rr, false
			}
			seen[o], ok = true, true
			if o == ">=" {
				rr.Lo = v
			} else {
				rr.Hi = v
			}
		}
		if !ok {
			return rr, false
		}
	}
	return rr, rr.Lo < rr.Hi
}

// equivalence reports whether the range bounds the ratio on both sides:
// the claim is that the figures are about equal.
func (rr ratioRange) equivalence() bool { return rr.Lo > 0 && !math.IsInf(rr.Hi, 1) }

func (rr ratioRange) holds(r float64) bool { return r >= rr.Lo && r <= rr.Hi }

func (rr ratioRange) String() string {
	switch {
	case rr.equivalence():
		return fmt.Sprintf("between %g× and %g×", rr.Lo, rr.Hi)
	case rr.Lo > 0:
		return fmt.Sprintf("≥ %g×", rr.Lo)
	}
	return fmt.Sprintf("≤ %g×", rr.Hi)
}

// positional reports whether a finding's id, STUDY#ID, is its claim's
// position, not an id of its own.
func positional(id string) bool {
	_, own, _ := strings.Cut(id, "#")
	return own == "" || own[0] >= '0' && own[0] <= '9'
}

// claimID is the form of a claim's own id: its position is all digits.
var claimID = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// claimIDs checks the claims' own ids and gives a claim without one its
// position (1, 2, …).
func (f *File) claimIDs(root *yaml.Node, fail func(int, string, ...any)) {
	ids := map[string]int{}
	for i := range f.Claims {
		c := &f.Claims[i]
		line, what := lineOf(root, "claims", i), fmt.Sprintf("claims[%d]", i)
		switch first, dup := ids[c.ID]; {
		case c.ID == "":
			c.ID = strconv.Itoa(i + 1)
		case !claimID.MatchString(c.ID):
			fail(line, "%s: id: %q: want a kebab-case name starting with a letter (gin-slower-than-key)", what, c.ID)
		case dup:
			fail(line, "%s: id: %q is claims[%d]'s too: a claim's id is unique in its study", what, c.ID, first)
		}
		ids[c.ID] = i
	}
}

// claimScope is what a claim's sides may name: the study's targets (and
// opt-in ones), workloads (and the load phase) and swept properties.
func (f *File) claimScope() (targets, workloads, swept map[string]bool) {
	targets, workloads, swept = map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, t := range f.Targets {
		targets[t.Name] = true
	}
	for _, t := range f.With {
		targets[t.Name] = true // opt-in: not measurable here when not given
	}
	for _, w := range f.Workloads {
		workloads[w.Name] = true
	}
	workloads[loadWorkload] = true // the load phase: its throughput, the sizes it left
	for _, s := range f.Sweep {
		swept[s.Property] = true
	}
	return targets, workloads, swept
}

// validateClaims checks the claims and plan checks against the study's
// targets, workloads and sweeps; each problem names its line.
func (f *File) validateClaims(root *yaml.Node, fail func(int, string, ...any)) {
	f.claimIDs(root, fail)
	targets, workloads, swept := f.claimScope()
	checkSide := func(line int, what string, s Side, c *Claim) {
		t, w := s.Target, s.Workload
		if t == "" {
			t = c.Target
		}
		if w == "" {
			w = c.Workload
		}
		if t == "" {
			fail(line, "%s: no target (give target: on the claim or the side)", what)
		} else if len(f.Targets) > 0 && !targets[t] {
			fail(line, "%s: target %q is not one of the study's targets", what, t)
		}
		if w != "" && !workloads[w] {
			fail(line, "%s: workload %q is not one of the study's workloads", what, w)
		}
		if w == "" && len(f.Workloads) > 1 {
			fail(line, "%s: the study has several workloads: say which (workload:)", what)
		}
		for k := range s.Point {
			if !swept[k] {
				fail(line, "%s: point: %q is not a swept property", what, k)
			}
		}
		if s.Y != "" && !serverFigure.MatchString(s.Y) {
			fail(line, "%s: y: %q: a side's own y is a server figure (secondary_index_bytes, …)", what, s.Y)
		}
	}
	for i := range f.Claims {
		c := &f.Claims[i]
		line := lineOf(root, "claims", i)
		what := fmt.Sprintf("claims[%d]", i)
		if c.Says == "" {
			fail(line, "%s: says: is required (the claim in words)", what)
		}
		metric, op, _ := strings.Cut(c.Y, ":")
		switch {
		case c.Y == "":
			fail(line, "%s: y: is required (the figure compared, as a chart's y)", what)
		case !contains(chartMetrics, metric) && (op != "" || !serverFigure.MatchString(metric)):
			fail(line, "%s: y: %q: want METRIC:OP with METRIC one of %s, or a server figure", what, c.Y, strings.Join(chartMetrics, ", "))
		case contains(chartMetrics, metric) && metric != "throughput" && op == "":
			fail(line, "%s: y: %q: name the operation (e.g. %s:READ)", what, c.Y, metric)
		}
		if c.Workload != "" && !workloads[c.Workload] {
			fail(line, "%s: workload %q is not one of the study's workloads", what, c.Workload)
		}
		switch {
		case c.Source != "" && c.Seed != "":
			fail(line, "%s: give source: (seed: is its older name), not both", what)
		case c.Source == "":
			c.Source = c.Seed
		}
		if c.Chart != "" && c.Y != "" {
			if msg := f.chartPlots(c.Chart, c.Y); msg != "" {
				fail(line, "%s (%q): %s", what, c.Says, msg)
			}
		}
		if c.Effect != "" {
			if _, ok := parseEffect(c.Effect); !ok {
				fail(line, "%s: effect: %q: want a percentage, e.g. \"30%%\" (the source's effect)", what, c.Effect)
			}
		}
		if c.Control != nil {
			checkSide(line, what+": control", *c.Control, c)
		}
		switch {
		case len(c.Order) > 0 && c.Ratio != "":
			fail(line, "%s: give ratio: (with a: and b:) or order:, not both", what)
		case len(c.Order) > 0:
			if len(c.Order) < 2 {
				fail(line, "%s: order: needs at least two sides", what)
			}
			for j, s := range c.Order {
				checkSide(line, fmt.Sprintf("%s: order[%d]", what, j), s, c)
			}
		case c.Ratio != "":
			if _, ok := parseRatio(c.Ratio); !ok {
				fail(line, "%s: ratio: %q: want \">= K\", \"<= K\" or \">= K1 and <= K2\" with 0 < K1 < K2 (a's figure / b's)", what, c.Ratio)
			}
			checkSide(line, what+": a", c.A, c)
			checkSide(line, what+": b", c.B, c)
		default:
			fail(line, "%s: state the comparison: ratio: with a: and b:, or order:", what)
		}
	}
	if fl := f.Floor; fl != nil {
		line := lineIn(root, "floor", "y")
		metric, op, _ := strings.Cut(fl.Y, ":")
		if !contains(latencyMetrics, metric) || op == "" {
			fail(line, "floor: y: %q: want a latency METRIC:OP (METRIC one of %s), the round trip of the study's cheapest read", fl.Y, strings.Join(latencyMetrics, ", "))
		}
		checkSide(line, "floor", fl.side(), &Claim{})
	}
	if f.MaxRounds < 0 {
		fail(lineIn(root, "max_rounds", ""), "max_rounds: %d: want a positive number of rounds", f.MaxRounds)
	}
	for i, p := range f.Plans {
		line := lineOf(root, "plans", i)
		what := fmt.Sprintf("plans[%d]", i)
		if p.Target == "" || p.Op == "" || p.Index == "" {
			fail(line, "%s: needs target:, op: and index:", what)
		}
		if p.Target != "" && len(f.Targets) > 0 && !targets[p.Target] {
			fail(line, "%s: target %q is not one of the study's targets", what, p.Target)
		}
		if p.Workload != "" && !workloads[p.Workload] {
			fail(line, "%s: workload %q is not one of the study's workloads", what, p.Workload)
		}
	}
}

// chartPlots says why the study's chart titled title does not plot y, or
// "" when it does: the same metric, and the same operation (a chart of a
// latency metric without one plots every operation).
func (f *File) chartPlots(title, y string) string {
	for _, ch := range f.Charts {
		if ch.Title != title {
			continue
		}
		cm, cop, _ := strings.Cut(ch.Y, ":")
		m, op, _ := strings.Cut(y, ":")
		if cm == m && (cop == op || cop == "" && m != "throughput" && contains(chartMetrics, m)) {
			return ""
		}
		return fmt.Sprintf("chart %q plots %s, not the claim's y %s", title, ch.Y, y)
	}
	return fmt.Sprintf("chart %q is not one of the study's charts", title)
}

// threshold states the comparison a claim checks, for every rendering of
// its verdict: "a / b ≥ 10×" or "a < b < c (p50:READ)".
func (c *Claim) threshold() string {
	if len(c.Order) > 0 {
		var names []string
		for _, s := range c.Order {
			names = append(names, c.resolve(s).String())
		}
		return strings.Join(names, " < ") + " (" + c.Y + ")"
	}
	rr, _ := parseRatio(c.Ratio)
	return fmt.Sprintf("%s / %s %s (%s)", c.resolve(c.A), c.resolve(c.B), rr, c.Y)
}

// absentOptIn says why target did not run when it is one of the study's
// opt-in targets (with:) and the run had none; else "".
func (d *Data) absentOptIn(target string) string {
	for key, t := range d.File.With {
		if t.Name != target {
			continue
		}
		if _, ran := d.Manifest.Targets[target]; ran {
			return ""
		}
		how := "--with " + key
		if t.Target == "" {
			how += "=URL"
		}
		return fmt.Sprintf("%s is an opt-in target and this run had none (add it with %s)", target, how)
	}
	return ""
}

// resolve fills a side's defaults from its claim.
func (c *Claim) resolve(s Side) Side {
	if s.Target == "" {
		s.Target = c.Target
	}
	if s.Workload == "" {
		s.Workload = c.Workload
	}
	return s
}

// find returns the one row of the claim's figure on a side.
func (d *Data) find(y string, s Side) (report.Row, error) {
	metric, op, _ := strings.Cut(y, ":")
	if op == "" {
		if metric == "throughput" {
			op = "ALL"
		} else {
			op = serverOp
		}
	}
	var found []report.Row
	for _, r := range d.Rows {
		if r.Target != s.Target || r.Op != op || r.Metric != metric || (s.Workload != "" && r.Workload != s.Workload) {
			continue
		}
		if pointMatches(r.Point, s.Point) {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 0:
		for _, k := range [][2]string{{s.Target, metric}, {s.Target, ""}} {
			if why, ok := d.absent[k]; ok {
				return report.Row{}, fmt.Errorf("the results have no %s for %s: %s", y, s, why)
			}
		}
		return report.Row{}, fmt.Errorf("the results have no %s for %s", y, s)
	case 1:
		return found[0], nil
	}
	return report.Row{}, fmt.Errorf("%d points have %s for %s: name the point", len(found), y, s)
}

func hasCI(r report.Row) bool { return r.N >= 2 && (r.CILo != 0 || r.CIHi != 0) && r.CILo > 0 }

// bounds are the interval a verdict compares: the 95% confidence interval
// of the median when the rounds give one (6 or more), else the min–max
// range across rounds (2 or more: every round must agree). One round gives
// none: its verdict is inconclusive.
func bounds(r report.Row) (lo, hi float64, basis string, ok bool) {
	switch {
	case hasCI(r):
		return r.CILo, r.CIHi, "95% confidence intervals", true
	case r.N >= 2:
		return r.Min, r.Max, fmt.Sprintf("min–max across %d rounds", r.N), true
	}
	return 0, 0, "", false
}

// openBounds are bounds(r), reaching up to upper when r's figure is the
// holding edge of a band (upper +Inf: only a lower bound; 0: a figure).
func openBounds(r report.Row, upper float64) (lo, hi float64, basis string, ok bool) {
	lo, hi, basis, ok = bounds(r)
	hi = max(hi, upper)
	return lo, hi, basis, ok
}

// ratioRangeText says where a ratio lies: between two bounds, or only
// above or below one when a side is a lower bound.
func ratioRangeText(lo, hi float64) string {
	switch {
	case math.IsInf(hi, 1) && lo == 0:
		return "any ratio"
	case math.IsInf(hi, 1):
		return "ratio at least " + ratioNumber(lo)
	case lo == 0:
		return "ratio at most " + ratioNumber(hi)
	}
	return "ratio between " + ratioNumber(lo) + " and " + ratioNumber(hi)
}

func figure(r report.Row) string {
	return plainNumber(r.Median) + " " + r.Unit
}

// planProblem is a plan check that failed: the target's plan of Op in
// Workload does not use the index it is named for.
type planProblem struct {
	PlanCheck
	Line string
}

// planPrefix heads the line of a target whose plan contradicts its name.
const planPrefix = "PLAN CONTRADICTS TARGET: "

// planProblems checks the study's plan expectations against the plans the
// results carry. A plan without the index is a problem even when the
// planner merely preferred a scan (few rows): the target then measured a
// scan, not its index.
func (d *Data) planProblems() []planProblem {
	var out []planProblem
	for _, pc := range d.File.Plans {
		if d.absentOptIn(pc.Target) != "" {
			continue // its claims say why
		}
		seen, bad := false, ""
		for _, run := range d.Manifest.Runs {
			res := d.Results[run.File]
			if res == nil || run.Target != pc.Target || run.Workload == loadWorkload || (pc.Workload != "" && run.Workload != pc.Workload) || res.Server == nil {
				continue
			}
			// Index names begin with their table's name: a study's own
			// table stands where the file says usertable.
			index := pc.Index
			if table := res.Workload.Properties["table"]; table != "" {
				if rest, ok := strings.CutPrefix(index, "usertable"); ok {
					index = table + rest
				}
			}
			for _, p := range res.Server.Plans {
				if p.Op != pc.Op {
					continue
				}
				seen = true
				if bad != "" || strings.Contains(p.Access, index) {
					continue
				}
				where := pc.Target + " " + run.Workload + " " + pc.Op
				if strings.Contains(p.Flag, "an index can serve it") && strings.Contains(p.Flag, index) {
					bad = fmt.Sprintf("%s%s measured %s: the planner preferred it to %s, which can serve the statement (too few rows?)", planPrefix, where, p.Access, index)
				} else {
					bad = fmt.Sprintf("%s%s is meant to use %s; its plan is %s. %s", planPrefix, where, index, p.Access, p.Flag)
				}
			}
		}
		switch {
		case bad != "":
			out = append(out, planProblem{pc, bad})
		case !seen:
			out = append(out, planProblem{pc, fmt.Sprintf("plan not checked: the results of %s carry no plan of %s", pc.Target, pc.Op)})
		}
	}
	return out
}

// affects reports whether a failed plan check makes a figure of a side
// unmeasurable: the same target, workload and operation.
func (p planProblem) affects(y string, s Side) bool {
	_, op, _ := strings.Cut(y, ":")
	if op == "" && y == "throughput" {
		op = p.Op // all operations: the workload's own
	}
	return strings.HasPrefix(p.Line, planPrefix) && p.Target == s.Target && op == p.Op && (p.Workload == "" || s.Workload == "" || p.Workload == s.Workload)
}

// Findings evaluates the study's claims: a verdict for each, with the
// measured figures beside the seed's.
func (d *Data) Findings() []report.Finding {
	problems := d.planProblems()
	var out []report.Finding
	for i := range d.File.Claims {
		c := &d.File.Claims[i]
		fd := report.Finding{ID: d.File.Name + "#" + c.ID, Says: c.Says, Threshold: c.threshold(), Source: c.Source, Chart: c.Chart}
		sides := c.Order
		if len(sides) == 0 {
			sides = []Side{c.A, c.B}
		}
		var rows []report.Row
		var why []string
		for _, s := range sides {
			s = c.resolve(s)
			if why1 := d.absentOptIn(s.Target); why1 != "" {
				why = append(why, why1)
				continue
			}
			affected := false
			for _, p := range problems {
				if p.affects(c.Y, s) {
					why, affected = append(why, p.Line), true
				}
			}
			if affected {
				continue
			}
			r, err := d.find(s.y(c.Y), s)
			if err != nil {
				why = append(why, err.Error())
				continue
			}
			rows = append(rows, r)
		}
		var floorNotes []string
		if len(why) == 0 {
			rows, floorNotes, why = d.applyFloor(c, sides, rows)
		}
		if len(why) > 0 {
			fd.Verdict, fd.Why = NotMeasurable, strings.Join(why, "; ")
			out = append(out, fd)
			continue
		}
		// A sustainable rate is the holding edge of a band: the server's
		// capacity may lie anywhere up to the failing edge (beyond it, when
		// the client bounded the search). The verdict is judged with each
		// side's figure reaching to its band's upper edge: it stands only if
		// it holds anywhere in the bands.
		upper := make([]float64, len(rows))
		var notes []string
		for i, s := range sides {
			hi, note := d.capacityUpper(c.Y, c.resolve(s))
			if _, rhi, _, ok := bounds(rows[i]); note != "" && (!ok || hi > rhi) {
				upper[i], notes = hi, append(notes, note)
			}
		}
		verdict := func(upper []float64, fd *report.Finding) {
			if len(c.Order) > 0 {
				d.orderVerdict(c, rows, upper, fd)
			} else {
				d.ratioVerdict(c, rows[0], rows[1], upper, fd)
			}
		}
		verdict(upper, &fd)
		if len(notes) > 0 {
			asMeasured := fd
			verdict(make([]float64, len(rows)), &asMeasured)
			note := strings.Join(notes, "; ")
			if fd.Verdict == asMeasured.Verdict {
				note += ": judged on the conservative side of the bands, the verdict holds anywhere in them"
			} else {
				note += fmt.Sprintf(": judged on the conservative side of the bands, a rate within them could change the verdict (%s on the holding edges)", asMeasured.Verdict)
			}
			fd.Why = strings.TrimPrefix(fd.Why+"; "+note, "; ")
		}
		if len(floorNotes) > 0 {
			fd.Why = strings.TrimPrefix(fd.Why+"; "+strings.Join(floorNotes, "; "), "; ")
		}
		out = append(out, fd)
	}
	return out
}

// floorRow is the study's floor under claim c's figure: the floor's row,
// when the study names a floor, c's figure is a latency and the floor ran.
func (d *Data) floorRow(c *Claim) (report.Row, bool) {
	fl := d.File.Floor
	metric, _, _ := strings.Cut(c.Y, ":")
	if fl == nil || !contains(latencyMetrics, metric) {
		return report.Row{}, false
	}
	r, err := d.find(fl.Y, d.File.floorSide(c))
	if err != nil || r.N == 0 {
		return report.Row{}, false
	}
	return r, true
}

// applyFloor voids the rounds of each side below the study's floor (the
// floor's lowest round: no read is cheaper than the cheapest read), and
// finds a claim whose every side sits on the floor (within the claim's
// minimum effect of it) not measurable, unless its control lies above
// the floor. It returns the sides' rows as judged, notes on void rounds,
// and why the claim is not measurable.
func (d *Data) applyFloor(c *Claim, sides []Side, rows []report.Row) ([]report.Row, []string, []string) {
	fr, ok := d.floorRow(c)
	if !ok {
		return rows, nil, nil
	}
	fl := d.File.Floor
	floorText := fmt.Sprintf("the floor, %s of %s, is %s", fl.Y, d.File.floorSide(c), figure(fr))
	if fl.Says != "" {
		floorText += " (" + fl.Says + ")"
	}
	// A side sits on the floor within the claim's minimum effect of it; for
	// an equivalence, within its band: a side doing nothing beyond the round
	// trip would still be "about equal" to it.
	near, within := 1+c.minEffect(), percent(c.minEffect())
	if rr, ok := parseRatio(c.Ratio); ok && rr.equivalence() {
		near = max(near, rr.Hi, 1/rr.Lo)
		within = "its band, " + percent(near-1)
	}
	out := make([]report.Row, len(rows))
	var notes, why []string
	atFloor := 0
	for i, r := range rows {
		name := c.resolve(sides[i]).String()
		kept, void := d.voidBelow(r, fr.Min)
		switch {
		case kept.N == 0:
			why = append(why, fmt.Sprintf("every round of %s (%d) lies below the floor's lowest round, %s: void (%s)", name, r.N, plainNumber(fr.Min)+" "+fr.Unit, floorText))
		case void > 0:
			notes = append(notes, fmt.Sprintf("%d of %d rounds of %s void, not counted: below the floor's lowest round, %s %s", void, r.N, name, plainNumber(fr.Min), fr.Unit))
		}
		out[i] = kept
		if kept.Median <= fr.Median*near {
			atFloor++
		}
	}
	if len(why) == 0 && atFloor == len(rows) && !d.controlAbove(c, fr, near) {
		why = append(why, fmt.Sprintf("its figures sit at the floor (within %s of it; %s): the effect cannot show above the round trip, and no control shows it above the floor", within, floorText))
	}
	return out, notes, why
}

// controlAbove reports whether claim c's control lies above the floor fr
// by more than near (a factor), every round.
func (d *Data) controlAbove(c *Claim, fr report.Row, near float64) bool {
	if c.Control == nil {
		return false
	}
	r, err := d.find(c.Y, c.resolve(*c.Control))
	if err != nil {
		return false
	}
	lo, _, _, ok := bounds(r)
	if !ok {
		lo = r.Median
	}
	return lo > fr.Max && r.Median > fr.Median*near
}

// voidBelow drops the rounds of r whose figure lies below floor and
// recomputes r from the others; it returns the row (N 0 when every round
// is void) and how many rounds it dropped. Without the per-round values,
// only a row wholly below the floor is known void.
func (d *Data) voidBelow(r report.Row, floor float64) (report.Row, int) {
	vs, ok := d.values[seriesKey{r.Target, r.Workload, pointID(r.Point), r.Op, r.Metric}]
	if !ok || len(vs) != r.N {
		if r.Max < floor {
			n := r.N
			r.N = 0
			return r, n
		}
		return r, 0
	}
	var keep []float64
	for _, v := range vs {
		if v >= floor {
			keep = append(keep, v)
		}
	}
	if len(keep) == len(vs) {
		return r, 0
	}
	if len(keep) == 0 {
		r.N = 0
		return r, len(vs)
	}
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(keep, &benchmath.DefaultThresholds), confidence)
	r.Median, r.Min, r.Max, r.N, r.CILo, r.CIHi = s.Center, slices.Min(keep), slices.Max(keep), len(keep), 0, 0
	if !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0) {
		r.CILo, r.CIHi = s.Lo, s.Hi
	}
	return r, len(vs) - len(keep)
}

// ratioNumber prints a ratio to three significant digits, and one of a
// thousand or more whole (1788, not 1.79e+03).
func ratioNumber(r float64) string {
	if math.Abs(r) >= 1000 {
		return strconv.FormatFloat(r, 'f', 0, 64)
	}
	return strconv.FormatFloat(r, 'g', 3, 64)
}

// percent prints a fraction as "5 %".
func percent(v float64) string {
	if math.IsInf(v, 1) {
		return "∞ %"
	}
	return strconv.FormatFloat(100*v, 'g', 3, 64) + " %"
}

// effectOf is the effect of a ratio r ≥ 0 of two figures: how far apart
// they are, as a fraction of the smaller (r 1.3 and r 1/1.3 are 30 %).
func effectOf(r float64) float64 {
	switch {
	case r <= 0:
		return math.Inf(1)
	case r < 1:
		return 1/r - 1
	}
	return r - 1
}

// moreRounds is how many rounds beyond n would make a spread s (the
// widest side's bounds, as a log ratio) at most half the effect g (a log
// ratio): the confidence interval of a median narrows as 1/√n, and is
// used from 6 rounds on. 0 when the spread is already small enough.
func moreRounds(n int, s, g float64) int {
	if g <= 0 || s <= g/2 {
		return 0
	}
	need := int(math.Ceil(float64(n) * (2 * s / g) * (2 * s / g)))
	if n < 6 {
		need = max(need, 6)
	}
	return max(need-n, 1)
}

// askRounds asks, in fd's reason, for the rounds (moreRounds) that would
// bring the spread of a's and b's rounds (the wider, as a log ratio) to
// at most half the distance g (a log ratio) the verdict turns on: a
// reproduced verdict that needs them is inconclusive until they ran.
// Nothing when the spread is already small enough, or a side's bounds are
// open or unknown.
func (d *Data) askRounds(c *Claim, a, b report.Row, upper []float64, g float64, fd *report.Finding) {
	sa, okA := logSpread(a)
	sb, okB := logSpread(b)
	if !okA || !okB || upper[0] > 0 || upper[1] > 0 {
		return
	}
	n := min(a.N, b.N)
	more := moreRounds(n, max(sa, sb), g)
	switch {
	case more == 0:
	case fd.Verdict == Reproduced:
		fd.Verdict, fd.Why = Inconclusive, d.spreadText(c, n, more)
	default:
		fd.Why += "; " + d.spreadText(c, n, more)
	}
}

// spreadText is the verdict's reason when the rounds' spread is
// comparable to the effect: the rounds it needs, or, once the runner
// added rounds for claim c (MoreRounds), after how many.
func (d *Data) spreadText(c *Claim, n, more int) string {
	bound := d.File.maxRounds()
	if d.addedFor(c) {
		if n >= bound {
			return fmt.Sprintf("spread comparable to effect after %d rounds (bound %d)", n, bound)
		}
		return fmt.Sprintf("spread comparable to effect after %d rounds, %d more rounds needed (bound %d)", n, more, bound)
	}
	out := fmt.Sprintf("spread comparable to effect, %d more rounds needed (bound %d)", more, bound)
	if n+more > bound {
		out += fmt.Sprintf("; %d rounds exceed the study's bound: the effect is too small for it to decide", n+more)
	}
	return out
}

// spreadMore reads the rounds a verdict's reason (spreadText) asks for.
var spreadMore = regexp.MustCompile(`spread comparable to effect(?: after \d+ rounds)?, (\d+) more rounds needed`)

// maxRounds is the study's bound on the rounds of a series.
func (f *File) maxRounds() int {
	if f.MaxRounds > 0 {
		return f.MaxRounds
	}
	return defaultMaxRounds
}

// addedFor reports whether the runner added rounds for claim c.
func (d *Data) addedFor(c *Claim) bool {
	if d.Manifest == nil {
		return false
	}
	for _, run := range d.Manifest.Runs {
		if slices.Contains(run.AddedFor, c.Says) {
			return true
		}
	}
	return false
}

// MoreRounds lists, in the study's order, the claims that more rounds of
// their series could decide.
func (d *Data) MoreRounds() []RoundsWanted {
	var out []RoundsWanted
	for i, fd := range d.Findings() {
		m := spreadMore.FindStringSubmatch(fd.Why)
		if fd.Verdict != Inconclusive || m == nil {
			continue
		}
		c := &d.File.Claims[i]
		w := RoundsWanted{Says: c.Says}
		w.More, _ = strconv.Atoi(m[1])
		sides := c.Order
		if len(sides) == 0 {
			sides = []Side{c.A, c.B}
		}
		var rows []report.Row
		for _, s := range sides {
			if r, err := d.find(c.resolve(s).y(c.Y), c.resolve(s)); err == nil {
				rows = append(rows, r)
			}
		}
		if fr, ok := d.floorRow(c); ok {
			rows = append(rows, fr)
		}
		for _, r := range rows {
			s := Series{Target: r.Target, Workload: r.Workload, Point: r.Point, Capacity: r.Metric == CapacityMetric}
			if !slices.ContainsFunc(w.Series, func(x Series) bool { return x.id() == s.id() }) {
				w.Series = append(w.Series, s)
			}
		}
		out = append(out, w)
	}
	return out
}

// logSpread is ln(hi/lo) of a row's bounds, or false when they are not
// positive.
func logSpread(r report.Row) (float64, bool) {
	lo, hi, _, ok := bounds(r)
	if !ok || lo <= 0 || hi <= 0 {
		return 0, false
	}
	return math.Log(hi / lo), true
}

// capacityUpper is how far up a side's sustainable rate (y capacity:ops)
// may lie: the highest failing edge of its rounds' bands (+Inf when a
// round's band has none, or the client bounded it), with a note saying so.
// 0 and "" when y is another metric or no round has a band above its rate.
func (d *Data) capacityUpper(y string, s Side) (float64, string) {
	if y != CapacityMetric+":"+CapacityOp {
		return 0, ""
	}
	n, limited, open, why := 0, 0, 0, ""
	hi := 0.0
	for _, run := range d.Manifest.Runs {
		res := d.Results[run.File]
		if !run.Capacity || res == nil || res.Capacity == nil || res.Capacity.Rate <= 0 || run.Target != s.Target ||
			(s.Workload != "" && run.Workload != s.Workload) || !pointMatches(run.Point, s.Point) {
			continue
		}
		c := res.Capacity
		n++
		switch {
		case c.GeneratorLimited != "":
			limited++
			hi = math.Inf(1)
			if why == "" {
				why = c.GeneratorLimited
			}
		case c.LowestFail > c.Rate:
			hi = max(hi, c.LowestFail)
		default:
			open++
			hi = math.Inf(1)
		}
	}
	switch {
	case n == 0 || hi == 0:
		return 0, ""
	case limited > 0:
		return hi, fmt.Sprintf("%s's rate is a lower bound in %d of %d rounds (the client could not drive more: %s)", s, limited, n, why)
	case open > 0:
		return hi, fmt.Sprintf("%s's band has no failing edge in %d of %d rounds: its rate is a lower bound", s, open, n)
	}
	return hi, fmt.Sprintf("%s's rate is a band up to %s ops/s (its failing edge)", s, plainNumber(hi))
}

// pointMatches reports whether point pt has every value of want.
func pointMatches(pt []KV, want map[string]string) bool {
	for k, v := range want {
		if !slices.Contains(pt, KV{Key: k, Value: v}) {
			return false
		}
	}
	return true
}

// ratioVerdict judges a ratio claim; upper is how far up a side's figure
// may lie (openBounds).
func (d *Data) ratioVerdict(c *Claim, a, b report.Row, upper []float64, fd *report.Finding) {
	rr, _ := parseRatio(c.Ratio)
	ra, rb := c.resolve(c.A), c.resolve(c.B)
	if b.Median == 0 {
		fd.Verdict, fd.Why = NotMeasurable, fmt.Sprintf("%s of %s is 0: no ratio", c.Y, rb)
		return
	}
	r := a.Median / b.Median
	fd.Measured = fmt.Sprintf("%s / %s = %s / %s = %s×", ra, rb, figure(a), figure(b), ratioNumber(r))
	fd.Figures = []string{plainNumber(a.Median), plainNumber(b.Median), ratioNumber(r)}
	alo, ahi, basis, okA := openBounds(a, upper[0])
	blo, bhi, _, okB := openBounds(b, upper[1])
	if !okA || !okB || blo <= 0 {
		fd.Verdict = Inconclusive
		fd.Why = fmt.Sprintf("one round: the medians %s the claim (ratio %s), but one round is no evidence", agree(rr.holds(r)), rr)
		return
	}
	lo, hi := alo/bhi, ahi/blo
	fd.Measured += fmt.Sprintf(" (%s by the %s)", ratioRangeText(lo, hi), basis)
	switch {
	case lo >= rr.Lo && hi <= rr.Hi:
		fd.Verdict = Reproduced
	case hi < rr.Lo || lo > rr.Hi:
		fd.Verdict = NotReproduced
	default:
		fd.Verdict = Inconclusive
		fd.Why = fmt.Sprintf("the %s straddle a ratio %s; the medians %s the claim", basis, rr, agree(rr.holds(r)))
	}
	// A one-sided ratio states an effect (a above b, or below): it needs
	// the claim's minimum effect, and rounds whose spread is well under it.
	up, down := rr.Lo >= 1 && math.IsInf(rr.Hi, 1), rr.Lo == 0 && rr.Hi <= 1
	if rr.equivalence() {
		// A band the bounds straddle while the medians lie inside it asks
		// for rounds by the medians' distance to the nearer edge.
		if fd.Verdict == Inconclusive && rr.holds(r) {
			d.askRounds(c, a, b, upper, math.Min(math.Log(r/rr.Lo), math.Log(rr.Hi/r)), fd)
		}
		return
	}
	if fd.Verdict == NotReproduced || !up && !down {
		return
	}
	minE := c.minEffect()
	e, reach := r-1, hi-1
	if down {
		e, reach = effectOf(min(r, 1)), effectOf(min(lo, 1))
		if r > 1 {
			e = 0
		}
	}
	switch {
	case reach < minE:
		fd.Verdict = NotReproduced
		fd.Why = fmt.Sprintf("effect %s under the minimum %s (at most %s by the %s)", percent(max(e, 0)), percent(minE), percent(max(reach, 0)), basis)
	case fd.Verdict == Reproduced && e < minE:
		fd.Verdict = Inconclusive
		fd.Why = fmt.Sprintf("effect %s under the minimum %s by the medians; the %s reach %s", percent(e), percent(minE), basis, percent(reach))
	case fd.Verdict == Reproduced || rr.holds(r) && e >= minE:
		// A spread comparable to the distance to decide asks for rounds:
		// the effect when the bounds clear the threshold, else (they
		// straddle the threshold the medians clear by the minimum
		// effect) the medians' distance to the threshold.
		g, edge := math.Abs(math.Log(r)), rr.Lo
		if down {
			edge = rr.Hi
		}
		if fd.Verdict != Reproduced {
			g = math.Abs(math.Log(r / edge))
		}
		d.askRounds(c, a, b, upper, g, fd)
	}
}

// orderVerdict judges an order claim; upper is how far up a side's figure
// may lie (openBounds).
func (d *Data) orderVerdict(c *Claim, rows []report.Row, upper []float64, fd *report.Finding) {
	var parts, figures []string
	all, medians, certain, wrong := true, true, true, false
	basis := ""
	for i, r := range rows {
		parts = append(parts, c.resolve(c.Order[i]).String()+" "+figure(r))
		figures = append(figures, plainNumber(r.Median))
		_, _, b, ok := bounds(r)
		all = all && ok
		if basis == "" || b != basis && ok && !hasCI(r) {
			basis = b
		}
		if i == 0 {
			continue
		}
		p := rows[i-1]
		medians = medians && p.Median < r.Median
		plo, phi, _, okP := openBounds(p, upper[i-1])
		rlo, rhi, _, okR := openBounds(r, upper[i])
		if !okP || !okR {
			certain = false
			continue
		}
		switch {
		case phi < rlo:
		case plo > rhi:
			wrong = true
		default:
			certain = false
		}
	}
	fd.Measured, fd.Figures = strings.Join(parts, "; "), figures
	// Each step of the order needs the claim's minimum effect: its
	// smallest step by the medians (e), and the most any step's bounds
	// allow (reach, the smallest over steps).
	minE := c.minEffect()
	e, reach, more, n := math.Inf(1), math.Inf(1), 0, 0
	for i := 1; i < len(rows) && all; i++ {
		p, r := rows[i-1], rows[i]
		e = min(e, stepEffect(p.Median, r.Median))
		plo, _, _, _ := openBounds(p, upper[i-1])
		_, rhi, _, _ := openBounds(r, upper[i])
		reach = min(reach, stepEffect(plo, rhi))
		sp, okP := logSpread(p)
		sr, okR := logSpread(r)
		if okP && okR && upper[i-1] == 0 && upper[i] == 0 && p.Median > 0 && r.Median > p.Median {
			if m := moreRounds(min(p.N, r.N), max(sp, sr), math.Log(r.Median/p.Median)); m > more {
				more, n = m, min(p.N, r.N)
			}
		}
	}
	switch {
	case !all:
		fd.Verdict = Inconclusive
		fd.Why = fmt.Sprintf("one round: the medians %s the order, but one round is no evidence", agree(medians))
	case wrong:
		fd.Verdict = NotReproduced
		fd.Why = "the " + basis + " show a different order"
	case reach < minE:
		fd.Verdict = NotReproduced
		fd.Why = fmt.Sprintf("effect %s under the minimum %s (at most %s by the %s)", percent(max(e, 0)), percent(minE), percent(max(reach, 0)), basis)
	case certain && e < minE:
		fd.Verdict = Inconclusive
		fd.Why = fmt.Sprintf("effect %s under the minimum %s by the medians; the %s reach %s", percent(e), percent(minE), basis, percent(reach))
	case certain && more > 0:
		fd.Verdict, fd.Why = Inconclusive, d.spreadText(c, n, more)
	case certain:
		fd.Verdict = Reproduced
		fd.Why = "by the " + basis
	default:
		fd.Verdict = Inconclusive
		fd.Why = fmt.Sprintf("some %s overlap; the medians %s the order", basis, agree(medians))
		if medians && e >= minE && more > 0 { // more rounds may part them
			fd.Why += "; " + d.spreadText(c, n, more)
		}
	}
}

// stepEffect is how far hi lies above lo, as a fraction of lo (negative
// when below; +Inf above 0).
func stepEffect(lo, hi float64) float64 {
	if lo <= 0 {
		if hi > lo {
			return math.Inf(1)
		}
		return 0
	}
	return hi/lo - 1
}

func agree(ok bool) string {
	if ok {
		return "agree with"
	}
	return "contradict"
}

// PlanChecks returns one line per failed plan check.
func (d *Data) PlanChecks() []string {
	var out []string
	for _, p := range d.planProblems() {
		out = append(out, p.Line)
	}
	return out
}

// markdownFindings writes the findings first in summary.md: the plan
// contradictions, then each claim with its verdict and figures.
func markdownFindings(b *bytes.Buffer, rep *report.StudyReport, quick bool) {
	for _, p := range rep.PlanChecks {
		fmt.Fprintf(b, "> **%s**\n\n", p)
	}
	if len(rep.Findings) == 0 {
		return
	}
	b.WriteString("## Findings\n\n")
	if quick {
		b.WriteString("A quick run: with one round no verdict can be more than inconclusive.\n\n")
	}
	b.WriteString("A verdict compares the 95% confidence intervals of the medians (6 or more rounds), or else the min–max ranges across rounds (2 or more: every round must agree); one round is never evidence. An order or directed ratio also needs its minimum effect (the source's, else 5 %), and rounds whose spread is under half of it.\n\n")
	for _, f := range rep.Findings {
		fmt.Fprintf(b, "- **%s** `%s` — %s.%s", f.Verdict, f.ID, f.Says, thresholdText(f, "."))
		if f.Measured != "" {
			fmt.Fprintf(b, " Measured: %s.", f.Measured)
		}
		if f.Why != "" {
			fmt.Fprintf(b, " Why: %s.", f.Why)
		}
		if f.Chart != "" {
			fmt.Fprintf(b, " Chart: %q.", f.Chart)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// thresholdText is " Threshold: T (the source: S)" and end, or what of it
// the finding has.
func thresholdText(f report.Finding, end string) string {
	switch {
	case f.Threshold != "" && f.Source != "":
		return fmt.Sprintf(" Threshold: %s (the source: %s)%s", f.Threshold, f.Source, end)
	case f.Threshold != "":
		return " Threshold: " + f.Threshold + end
	case f.Source != "":
		return " The source: " + f.Source + end
	}
	return ""
}

// writeFindings writes findings.json: the verdicts of the study's claims
// and the plan contradictions, for tools.
func writeFindings(dir string, rep *report.StudyReport) error {
	if len(rep.Findings) == 0 && len(rep.PlanChecks) == 0 && len(rep.Void) == 0 {
		return nil
	}
	out, err := json.MarshalIndent(struct {
		Study      string           `json:"study"`
		Findings   []report.Finding `json:"findings"`
		PlanChecks []string         `json:"plan_checks,omitempty"`
		Void       []string         `json:"void,omitempty"` // runs left out: their control moved
	}{rep.Name, rep.Findings, rep.PlanChecks, rep.Void}, "", "  ")
	if err != nil {
		return err
	}
	return report.WriteFileAtomic(filepath.Join(dir, "findings.json"), append(out, '\n'))
}

// verdictChanges prints the claims whose verdict differs between two runs
// of a study, after compare's table. Claims are matched by their ids, or
// by their words where an id is only a position (a claim without id:, or
// a run from before claims had them).
func verdictChanges(w io.Writer, old, cur *Data) {
	byID, bySays := map[string]report.Finding{}, map[string]report.Finding{}
	for _, f := range old.Findings() {
		byID[f.ID], bySays[f.Says] = f, f
	}
	first := true
	for _, f := range cur.Findings() {
		o, ok := byID[f.ID]
		if !ok || positional(f.ID) || positional(o.ID) {
			o, ok = bySays[f.Says]
		}
		if !ok || o.Verdict == f.Verdict {
			continue
		}
		if first {
			fmt.Fprintln(w, "\nVerdicts that changed:")
			first = false
		}
		fmt.Fprintf(w, "  %s: %s → %s (was: %s; now: %s)\n", f.Says, o.Verdict, f.Verdict, o.Measured, f.Measured)
	}
}
