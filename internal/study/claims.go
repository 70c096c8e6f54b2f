package study

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/docbench/docbench/internal/report"
)

// Claim is one of the seed's claims a study reproduces, stated so that the
// results can check it: a figure (Y, as a chart's y) compared between two
// sides (A/B with Ratio) or ordered across sides (Order, ascending).
//
//	claims:
//	  - says: "jsonb_path_ops index ≤ 0.6× the jsonb_ops index"
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
type Claim struct {
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
}

// Side picks one series of a study: a target, a workload and the swept
// values of a point. Written as a target name, or as a mapping.
type Side struct {
	Target   string            `yaml:"target"`
	Workload string            `yaml:"workload"`
	Point    map[string]string `yaml:"point"`
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

// validateClaims checks the claims and plan checks against the study's
// targets, workloads and sweeps; each problem names its line.
func (f *File) validateClaims(root *yaml.Node, fail func(int, string, ...any)) {
	targets, workloads, swept := map[string]bool{}, map[string]bool{}, map[string]bool{}
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
		return fmt.Sprintf("ratio at least %.3g", lo)
	case lo == 0:
		return fmt.Sprintf("ratio at most %.3g", hi)
	}
	return fmt.Sprintf("ratio between %.3g and %.3g", lo, hi)
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
		fd := report.Finding{Says: c.Says, Threshold: c.threshold(), Source: c.Source, Chart: c.Chart}
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
			r, err := d.find(c.Y, s)
			if err != nil {
				why = append(why, err.Error())
				continue
			}
			rows = append(rows, r)
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
		out = append(out, fd)
	}
	return out
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
	fd.Measured = fmt.Sprintf("%s / %s = %s / %s = %.3g×", ra, rb, figure(a), figure(b), r)
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
}

// orderVerdict judges an order claim; upper is how far up a side's figure
// may lie (openBounds).
func (d *Data) orderVerdict(c *Claim, rows []report.Row, upper []float64, fd *report.Finding) {
	var parts []string
	all, medians, certain, wrong := true, true, true, false
	basis := ""
	for i, r := range rows {
		parts = append(parts, c.resolve(c.Order[i]).String()+" "+figure(r))
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
	fd.Measured = strings.Join(parts, "; ")
	switch {
	case !all:
		fd.Verdict = Inconclusive
		fd.Why = fmt.Sprintf("one round: the medians %s the order, but one round is no evidence", agree(medians))
	case wrong:
		fd.Verdict = NotReproduced
		fd.Why = "the " + basis + " show a different order"
	case certain:
		fd.Verdict = Reproduced
		fd.Why = "by the " + basis
	default:
		fd.Verdict = Inconclusive
		fd.Why = fmt.Sprintf("some %s overlap; the medians %s the order", basis, agree(medians))
	}
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
	b.WriteString("A verdict compares the 95% confidence intervals of the medians (6 or more rounds), or else the min–max ranges across rounds (2 or more: every round must agree); one round is never evidence.\n\n")
	for _, f := range rep.Findings {
		fmt.Fprintf(b, "- **%s** — %s.%s", f.Verdict, f.Says, thresholdText(f, "."))
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
	if len(rep.Findings) == 0 && len(rep.PlanChecks) == 0 {
		return nil
	}
	out, err := json.MarshalIndent(struct {
		Study      string           `json:"study"`
		Findings   []report.Finding `json:"findings"`
		PlanChecks []string         `json:"plan_checks,omitempty"`
	}{rep.Name, rep.Findings, rep.PlanChecks}, "", "  ")
	if err != nil {
		return err
	}
	return report.WriteFileAtomic(filepath.Join(dir, "findings.json"), append(out, '\n'))
}

// verdictChanges prints the claims whose verdict differs between two runs
// of a study (matched by what they say), after compare's table.
func verdictChanges(w io.Writer, old, cur *Data) {
	before := map[string]report.Finding{}
	for _, f := range old.Findings() {
		before[f.Says] = f
	}
	first := true
	for _, f := range cur.Findings() {
		o, ok := before[f.Says]
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
