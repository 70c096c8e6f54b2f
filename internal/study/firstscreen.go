package study

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/report"
)

// maxHeadlines bounds the comparison lines of the first screen; a study of
// more workloads and points says how many more the table has.
const maxHeadlines = 12

// Headlines are the first lines of a study's summary, before any table:
// the changes between adjacent server versions (VersionChanges), the
// plans that contradict their targets, the comparisons, then a line per
// claim with its verdict.
func (d *Data) Headlines() []string {
	out := append(append(append(d.VersionChanges(), d.PlanChecks()...), d.Comparisons()...), d.CapacityLines()...)
	for _, f := range d.Findings() {
		line := strings.ToUpper(f.Verdict) + ": " + f.Says
		if f.Measured != "" {
			line += " — measured " + f.Measured
		}
		if f.Why != "" {
			line += " (" + f.Why + ")"
		}
		out = append(out, line)
	}
	return out
}

// versionAxis is the swept property whose values are server versions: a
// study that sweeps it opens with the changes between adjacent versions.
const versionAxis = "pg.version"

// versionFigure is a figure VersionChanges follows across versions.
type versionFigure struct{ workload, op, metric string }

// VersionChanges are, when the study sweeps versionAxis, a line per pair
// of adjacent versions, the newest pair first: for each figure the study
// charts (a workload's throughput when it charts none of that workload),
// per target and point of the other sweeps, the change of the median over
// rounds from the older version to the newer with its significance, as
// compare judges it (Mann–Whitney U test at α=0.05).
func (d *Data) VersionChanges() []string {
	if d.File.versions != nil {
		return d.targetVersionChanges() // a study rerun across versions (pg_versions)
	}
	// byRest: the point of each version, by the rest of the point.
	byRest := map[string]map[string]string{}
	var rests []string
	seenVersion := map[string]bool{}
	var versions []string
	for pid, kvs := range d.points {
		v, rest := "", []KV{}
		for _, kv := range kvs {
			if kv.Key == versionAxis {
				v = kv.Value
			} else {
				rest = append(rest, kv)
			}
		}
		if v == "" {
			continue
		}
		rid := pointID(rest)
		if byRest[rid] == nil {
			byRest[rid] = map[string]string{}
			rests = append(rests, rid)
		}
		byRest[rid][v] = pid
		if !seenVersion[v] {
			seenVersion[v] = true
			versions = append(versions, v)
		}
	}
	if len(versions) < 2 {
		return nil
	}
	sort.Slice(versions, func(i, j int) bool { return versionLess(versions[i], versions[j]) })
	sort.Strings(rests)
	figs := d.versionFigures()
	var out []string
	for i := len(versions) - 1; i > 0; i-- {
		older, newer := versions[i-1], versions[i]
		var pairs []versionPair
		for _, fg := range figs {
			several := len(d.targetsOf(fg.workload)) > 1
			for _, target := range d.targetsOf(fg.workload) {
				for _, rid := range rests {
					label := fg.workload + " " + figureWords(fg.op, fg.metric)
					if several {
						label += " on " + target
					}
					if rid != "default" {
						label += " at " + rid
					}
					pairs = append(pairs, versionPair{label,
						seriesKey{target, fg.workload, byRest[rid][older], fg.op, fg.metric},
						seriesKey{target, fg.workload, byRest[rid][newer], fg.op, fg.metric}})
				}
			}
		}
		if line := d.versionLine(older, newer, pairs); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// versionPair is a figure of VersionChanges: its label and its series on
// the older version and on the newer.
type versionPair struct {
	label         string
	before, after seriesKey
}

// versionLine is the line of two adjacent versions: each pair's change of
// the median over rounds with its significance, or why a version has
// none; "" when neither version has any of the figures.
func (d *Data) versionLine(older, newer string, pairs []versionPair) string {
	// untested: the rounds of each figure the U test cannot judge
	// ("one round each"), by its index in parts.
	var parts []string
	untested := map[int]string{}
	compared := 0
	for _, p := range pairs {
		ov, nv := d.values[p.before], d.values[p.after]
		switch {
		case len(ov) == 0 && len(nv) == 0:
			continue // nothing to compare on either version
		case len(ov) == 0:
			parts = append(parts, p.label+": none on "+older+" ("+d.whyNoResult(p.before.target, p.before.workload, p.before.point)+")")
			continue
		case len(nv) == 0:
			parts = append(parts, p.label+": none on "+newer+" ("+d.whyNoResult(p.after.target, p.after.workload, p.after.point)+")")
			continue
		}
		compared++
		r := compareSeries(p.after, "", ov, nv)
		part := p.label + " " + r.change
		switch {
		case !r.tested:
			untested[len(parts)] = roundsEach(r.n1, r.n2)
		case r.changed:
			part += fmt.Sprintf(" (significant, p=%.3f)", r.p)
		default:
			part += fmt.Sprintf(" (not significant, p=%.3f)", r.p)
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	head := "PostgreSQL " + newer + " vs " + older
	// When the test can judge none of the figures, for the same
	// reason, the line says so once.
	var hows []string
	for _, how := range untested {
		hows = append(hows, how)
	}
	sort.Strings(hows)
	if hows = slices.Compact(hows); len(untested) == compared && len(hows) == 1 {
		head += " (" + hows[0] + ": cannot tell beyond the noise)"
	} else {
		for i, how := range untested {
			parts[i] += " (" + how + ": cannot tell)"
		}
	}
	return head + ": " + strings.Join(parts, "; ")
}

// versionFigures are the figures VersionChanges follows: per workload of
// the study, the figures its charts draw of it (a chart without a
// workload draws every workload; a latency without an operation is left
// out: it is a series per operation), else its throughput.
func (d *Data) versionFigures() []versionFigure {
	var out []versionFigure
	seen := map[versionFigure]bool{}
	for _, w := range d.File.Workloads {
		n := 0
		for _, c := range d.File.Charts {
			if c.Workload != "" && c.Workload != w.Name {
				continue
			}
			metricName, op, everyOp := chartOp(c.Y)
			if everyOp {
				continue
			}
			f := versionFigure{w.Name, op, metricName}
			n++
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
		if n == 0 {
			f := versionFigure{w.Name, "ALL", "throughput"}
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// targetsOf are the targets with figures of workload wl, in the order
// they ran.
func (d *Data) targetsOf(wl string) []string {
	has := map[string]bool{}
	for _, r := range d.Rows {
		if r.Workload == wl {
			has[r.Target] = true
		}
	}
	var out []string
	for _, name := range d.targetNames() {
		if has[name] {
			out = append(out, name)
		}
	}
	return out
}

// figureWords names a figure in a line: "throughput", "READ p50".
func figureWords(op, metricName string) string {
	switch op {
	case "ALL", serverOp:
		return metricName
	}
	return op + " " + metricName
}

// versionLess orders versions by their numbers: 9.6 before 10, 10 before
// 13.2; what is not a number compares as text.
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, errx := strconv.Atoi(as[i])
		y, erry := strconv.Atoi(bs[i])
		switch {
		case errx != nil || erry != nil:
			if as[i] != bs[i] {
				return as[i] < bs[i]
			}
		case x != y:
			return x < y
		}
	}
	return len(as) < len(bs)
}

// CapacityLines are a line per capacity search of the study: the target,
// the workload, and the sustainable rate with its band and caveats in
// words (report.CapacityLine), or why the search found none.
func (d *Data) CapacityLines() []string {
	var out []string
	for _, run := range d.Manifest.Runs {
		if !run.Capacity {
			continue
		}
		where := run.Target + " " + run.Workload
		if len(d.File.Sweep) > 0 {
			where += " at " + pointID(run.Point)
		}
		if d.File.Rounds > 1 {
			where += fmt.Sprintf(" round %d", run.Round)
		}
		res := d.Results[run.File]
		switch {
		case res != nil && res.Capacity != nil:
			out = append(out, where+": sustainable rate: "+report.CapacityLine(res.Capacity))
		case run.Error != "":
			out = append(out, where+": capacity search failed: "+run.Error)
		}
	}
	return out
}

// Figure is the row of one figure of the study (workload "load" for a
// load's, op "SERVER" for a server-side figure such as
// bytes_per_document); when there is none, why, in words.
func (d *Data) Figure(target, workload, op, metric string) (report.Row, string) {
	for _, r := range d.Rows {
		if r.Target == target && r.Workload == workload && r.Op == op && r.Metric == metric {
			return r, ""
		}
	}
	if why := d.absent[[2]string{target, metric}]; why != "" {
		return report.Row{}, why
	}
	if why := d.absent[[2]string{target, ""}]; why != "" {
		return report.Row{}, why
	}
	return report.Row{}, "not measured"
}

// Audit is what the fairness audit found where the targets differ
// (durability, key index, compression, memory, clients), a line each.
func (d *Data) Audit() []string { return d.audit() }

// Comparisons are a line per workload (and sweep point) comparing every
// target's throughput and naming the worst tail latency.
func (d *Data) Comparisons() []string {
	var out []string
	type wp struct{ workload, point string }
	var order []wp
	seen := map[wp]bool{}
	for _, r := range d.Rows {
		k := wp{r.Workload, pointID(r.Point)}
		if r.Op == "ALL" && r.Metric == "throughput" && !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
	}
	more := 0
	for _, k := range order {
		if len(out) == maxHeadlines {
			more++
			continue
		}
		out = append(out, d.headline(k.workload, k.point))
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("… and %d more workloads and points in the table", more))
	}
	return out
}

// headline compares the targets on one workload at one point: their
// throughput, best first, with the best's ratio to the worst when the
// rounds separate them (ratioWords), and the operation with the highest
// p99 with its maximum.
func (d *Data) headline(wl, point string) string {
	var tputs []report.Row
	var worst report.Row
	for _, r := range d.Rows {
		if r.Workload != wl || pointID(r.Point) != point {
			continue
		}
		switch {
		case r.Op == "ALL" && r.Metric == "throughput":
			tputs = append(tputs, r)
		case r.Metric == "p99" && r.Op != serverOp && r.Median > worst.Median:
			worst = r
		}
	}
	sort.SliceStable(tputs, func(i, j int) bool { return tputs[i].Median > tputs[j].Median })
	var parts []string
	for i, r := range tputs {
		s := r.Target + " " + report.HumanRate(r.Median)
		if i == 0 {
			s += " ops/s"
		}
		parts = append(parts, s)
	}
	where := wl
	if kvs := d.points[point]; len(kvs) > 0 {
		var parts []string
		for _, kv := range kvs {
			parts = append(parts, kv.Key+"="+kv.Value)
		}
		where += " at " + strings.Join(parts, ", ")
	}
	line := where + ": " + strings.Join(parts, ", ")
	if len(tputs) > 1 && tputs[len(tputs)-1].Median > 0 {
		line += " (" + d.ratioWords(tputs[0], tputs[len(tputs)-1]) + ")"
	}
	if worst.Target != "" {
		line += fmt.Sprintf("; highest p99: %s's %s %s", worst.Target, worst.Op, report.HumanMicros(worst.Median))
		if mx, ok := d.row(worst.Target, wl, point, worst.Op, "max"); ok {
			line += ", max " + report.HumanMicros(mx.Median)
		}
	}
	for _, t := range d.missingFrom(wl, point) {
		line += "; " + t
	}
	return line
}

// ratioWords compares the best and the worst of a headline's series:
// "a 1.63× b" when the rounds separate them (apart), else "within the
// noise (a x–y, b x–y)" with the range of each one's rounds.
func (d *Data) ratioWords(best, worst report.Row) string {
	if best.N < 2 || worst.N < 2 {
		return roundsEach(best.N, worst.N) + ": too few to tell a ratio from the noise"
	}
	values := func(r report.Row) []float64 {
		return d.values[seriesKey{r.Target, r.Workload, pointID(r.Point), r.Op, r.Metric}]
	}
	if apart(values(best), values(worst)) {
		return fmt.Sprintf("%s %.2f× %s", best.Target, best.Median/worst.Median, worst.Target)
	}
	span := func(r report.Row) string {
		return r.Target + " " + report.HumanRate(r.Min) + "–" + report.HumanRate(r.Max)
	}
	return "within the noise: " + span(best) + ", " + span(worst)
}

// apart says whether the rounds separate two series of 2 rounds or
// more: every round of one is above every round of the other, or the 95%
// confidence intervals of their medians (from 6 rounds) do not overlap.
func apart(a, b []float64) bool {
	if len(a) < 2 || len(b) < 2 {
		return false
	}
	if slices.Max(a) < slices.Min(b) || slices.Max(b) < slices.Min(a) {
		return true
	}
	ca := benchmath.AssumeNothing.Summary(benchmath.NewSample(append([]float64(nil), a...), &benchmath.DefaultThresholds), confidence)
	cb := benchmath.AssumeNothing.Summary(benchmath.NewSample(append([]float64(nil), b...), &benchmath.DefaultThresholds), confidence)
	finite := func(s benchmath.Summary) bool { return !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0) }
	return finite(ca) && finite(cb) && (ca.Hi < cb.Lo || cb.Hi < ca.Lo)
}

// missingFrom says, for each target of the study without a figure for a
// workload at a point but with figures elsewhere, why (a target without
// any figure is a caveat of the whole study: Skipped).
func (d *Data) missingFrom(wl, point string) []string {
	here, anywhere := map[string]bool{}, d.withFigures()
	for _, r := range d.Rows {
		if r.Workload == wl && pointID(r.Point) == point {
			here[r.Target] = true
		}
	}
	var out []string
	for _, name := range d.targetNames() {
		if anywhere[name] && !here[name] && !d.designedOut(name, wl) {
			out = append(out, name+": "+d.whyNoResult(name, wl, point))
		}
	}
	return out
}

// withFigures are the targets with at least one figure.
func (d *Data) withFigures() map[string]bool {
	have := map[string]bool{}
	for _, r := range d.Rows {
		have[r.Target] = true
	}
	return have
}

// targetNames are the study's targets in the order they ran.
func (d *Data) targetNames() []string {
	var names []string
	seen := map[string]bool{}
	for _, run := range d.Manifest.Runs {
		if !seen[run.Target] {
			seen[run.Target] = true
			names = append(names, run.Target)
		}
	}
	for _, name := range sortedKeys(d.Manifest.Targets) {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names
}

// designedOut says whether the study leaves target out of workload wl by
// its own design (the workload's targets:): not a skip, nothing to say.
func (d *Data) designedOut(target, wl string) bool {
	for _, w := range d.File.Workloads {
		if w.Name == wl {
			return len(w.Targets) > 0 && !contains(w.Targets, target)
		}
	}
	return false
}

// whyNoResult says why a target has no figure for a workload at a point
// ("" workload: for any): not applicable, failed, incomplete or not run.
func (d *Data) whyNoResult(target, wl, point string) string {
	for _, run := range d.Manifest.Runs {
		// A run of no workload is a point the target could not run at all.
		if run.Target != target || (wl != "" && run.Workload != wl && run.Workload != "load" && run.Workload != "") ||
			(point != "" && pointID(run.Point) != point) || d.designedOut(run.Target, run.Workload) {
			continue
		}
		switch {
		case run.NotApplicable != "":
			return "skipped, " + run.NotApplicable
		case run.Error != "":
			return "failed, " + run.Error
		}
		if res := d.Results[run.File]; res != nil && !res.Complete {
			return "incomplete, left out"
		}
	}
	return "not run"
}

// Skipped lists the targets of the study that produced no figure at all,
// each with why ("mongodb: skipped, cannot reach …").
func (d *Data) Skipped() []string {
	have := d.withFigures()
	var out []string
	for _, name := range d.targetNames() {
		if !have[name] {
			out = append(out, name+": "+d.whyNoResult(name, "", ""))
		}
	}
	return out
}

// Markers say, before anything else, that a study's figures are not to be
// quoted as they are: a quick run, an incomplete study.
func (d *Data) Markers() []string {
	var out []string
	if d.Manifest.Quick {
		out = append(out, "QUICK RUN (--quick): a smoke test that the study works, not figures to quote")
	}
	if d.Manifest.Incomplete != "" {
		out = append(out, "INCOMPLETE: "+d.Manifest.Incomplete+"; runs cut short are left out of every figure")
	}
	return out
}

// Caveats are what a reader must know before quoting a study's figures:
// one round, the machine's CPUs shared by docbench and the servers it
// measures, the machine-speed control's drift and the runs it voided,
// the targets that gave no figure.
func (d *Data) Caveats() []string {
	var out []string
	if d.File.Rounds <= 1 {
		out = append(out, "one round per point: no spread across rounds is shown, and no claim can be more than inconclusive")
	}
	if c := d.cpuCaveat(); c != "" {
		out = append(out, c)
	}
	if c := d.controlLine(); c != "" {
		out = append(out, c)
	}
	out = append(out, d.Void()...)
	for _, s := range d.Skipped() {
		out = append(out, "no figures from "+s)
	}
	return out
}

// cpuCaveat says on how many CPUs the study ran and which of its targets
// ran on the same machine, sharing them with docbench's client.
func (d *Data) cpuCaveat() string {
	var env report.Environment
	for _, run := range d.Manifest.Runs {
		if res := d.Results[run.File]; res != nil && res.Environment.CPUs > 0 {
			env = res.Environment
			break
		}
	}
	if env.CPUs == 0 {
		return ""
	}
	cpus := strconv.Itoa(env.CPUs) + " CPU"
	if env.CPUs != 1 {
		cpus += "s"
	}
	if env.CPUModel != "" {
		cpus += " (" + env.CPUModel + ")"
	}
	var local []string
	have := d.withFigures()
	for _, name := range d.targetNames() {
		if have[name] && onThisMachine(d.Manifest.Targets[name]) {
			local = append(local, name)
		}
	}
	if len(local) == 0 {
		return "docbench ran on " + cpus + "; its targets ran elsewhere: every latency includes the network"
	}
	return "measured on " + cpus + " shared by docbench's client and " + strings.Join(local, ", ") +
		": each figure is of client and server together, on this machine"
}

// onThisMachine says whether a target runs on docbench's machine: a
// server docbench starts, an engine inside it, or a loopback address.
func onThisMachine(target string) bool {
	if target == "" {
		return false
	}
	if db.IsLocal(target) {
		return true
	}
	u, err := url.Parse(target)
	if err != nil || !strings.Contains(target, "://") {
		return false
	}
	switch h := u.Hostname(); {
	case h == "", h == "localhost", h == "::1", strings.HasPrefix(h, "127."), strings.HasPrefix(h, "/"):
		return true
	}
	return false
}

// FirstScreen is what a study prints first, and what its summaries open
// with: the markers, the headlines, then the caveats.
func (d *Data) FirstScreen() []string {
	return append(append(d.Markers(), d.Headlines()...), d.Caveats()...)
}
