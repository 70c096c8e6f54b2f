package study

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/report"
)

// maxHeadlines bounds the comparison lines of the first screen; a study of
// more workloads and points says how many more the table has.
const maxHeadlines = 12

// Headlines are the first lines of a study's summary, before any table:
// the plans that contradict their targets, the comparisons, then a line
// per claim with its verdict.
func (d *Data) Headlines() []string {
	out := append(append(d.PlanChecks(), d.Comparisons()...), d.CapacityLines()...)
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
// throughput, best first, and the operation with the highest p99 with its
// maximum.
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
		line += fmt.Sprintf(" (%s %.2f× %s)", tputs[0].Target, tputs[0].Median/tputs[len(tputs)-1].Median, tputs[len(tputs)-1].Target)
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
		if anywhere[name] && !here[name] {
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

// whyNoResult says why a target has no figure for a workload at a point
// ("" workload: for any): not applicable, failed, incomplete or not run.
func (d *Data) whyNoResult(target, wl, point string) string {
	for _, run := range d.Manifest.Runs {
		if run.Target != target || (wl != "" && run.Workload != wl && run.Workload != "load") ||
			(point != "" && pointID(run.Point) != point) {
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
// measures, the targets that gave no figure.
func (d *Data) Caveats() []string {
	var out []string
	if d.File.Rounds <= 1 {
		out = append(out, "one round per point: no spread across rounds is shown, and no claim can be more than inconclusive")
	}
	if c := d.cpuCaveat(); c != "" {
		out = append(out, c)
	}
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
