package cli

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/study"
	"github.com/docbench/docbench/internal/workload"
)

// quickMix makes the quickstart measure a query mix (file, absolute): the
// mix closed loop after workload C, then, in place of workload A, the mix
// at the common rate, which the capacity search runs too. The mix's
// proportions are shares of all operations: when they add to less than 1,
// by-key reads are the rest. The study's text (study.yaml of the results)
// is rewritten to say what runs.
func quickMix(st *study.File, m *workload.Mix, file string) (err error) {
	props := map[string]string{"querymix": file, "readproportion": byKeyShare(m)}
	closed := study.WorkloadSpec{Name: quickMixName, Workload: "workloadc", Properties: props}
	wls := []study.WorkloadSpec{st.Workloads[0], closed}
	for _, w := range st.Workloads[1:] {
		if rate := w.Properties["target"]; rate != "" {
			at := map[string]string{"target": rate}
			for k, v := range props {
				at[k] = v
			}
			wls = append(wls, study.WorkloadSpec{Name: quickMixRateName, Workload: "workloadc", Properties: at})
		}
	}
	st.Workloads = wls
	if st.Capacity != nil {
		st.Capacity.Workload = quickMixRateName
	}
	st.Raw, err = rawWithWorkloads(st)
	return err
}

// mixIndexes has the load create the secondary indexes the mix's queries
// need, on the paths the documents have (a path they lack is its entry's
// error, which the run names); it reports whether it chose any.
func mixIndexes(st *study.File, m *workload.Mix) (bool, error) {
	p := workload.NewProperties()
	if err := p.LoadFile(st.Workloads[0].Workload); err != nil {
		return false, err
	}
	for k, v := range st.Properties {
		p.Set(k, v, "quickstart")
	}
	cfg, err := config(p)
	if err != nil {
		return false, err
	}
	_, ops, err := buildDocOps(cfg, 1)
	if err != nil {
		return false, err
	}
	have := map[string]bool{}
	for _, pi := range ops.Shape.Paths() {
		have[pi.Path] = true
	}
	var paths []string
	for _, path := range mixIndexPaths(m) {
		if have[path] {
			paths = append(paths, path)
		}
	}
	if len(paths) == 0 {
		return false, nil
	}
	st.Properties["secondaryindex"] = strings.Join(paths, ",")
	return true, nil
}

// The quickstart's workloads of a query mix: closed loop, and at the
// common rate (the capacity search's).
const (
	quickMixName     = "mix"
	quickMixRateName = "mix-rate"
)

// byKeyShare is the readproportion beside a mix: what its proportions
// leave of 1, or 0.
func byKeyShare(m *workload.Mix) string {
	sum := 0.0
	for _, q := range m.Queries {
		sum += q.Proportion
	}
	if rest := 1 - sum; rest > 1e-9 {
		return strconv.FormatFloat(math.Round(rest*1e6)/1e6, 'g', -1, 64)
	}
	return "0"
}

// needsIndex says whether a secondary index on the query's path serves it
// (an aggregate reads the whole table; no path index serves a search at
// any depth; containment on the whole document needs an index over it).
func needsIndex(q workload.MixQuery) bool {
	switch q.Kind {
	case "field", "range", "array":
		return true
	case "contains":
		return q.Form != workload.QueryFormDocument
	}
	return false
}

// mixIndexPaths are the paths the mix's queries need a secondary index
// on, each once, in the mix's order.
func mixIndexPaths(m *workload.Mix) []string {
	var paths []string
	for _, q := range m.Queries {
		if needsIndex(q) && !slices.Contains(paths, q.Path) {
			paths = append(paths, q.Path)
		}
	}
	return paths
}

// missingIndexes is the first screen's line on the mix's queries that ran
// without the secondary index they need, with the one-line fix; "" when
// none did.
func missingIndexes(m *workload.Mix, secondary string) string {
	have := map[string]bool{}
	for _, p := range strings.Split(secondary, ",") {
		have[strings.TrimSpace(p)] = true
	}
	var ops, add []string
	for _, q := range m.Queries {
		if needsIndex(q) && !have[q.Path] {
			ops = append(ops, "QUERY-"+q.Name+" ("+q.Path+")")
			if !slices.Contains(add, q.Path) {
				add = append(add, q.Path)
			}
		}
	}
	if len(ops) == 0 {
		return ""
	}
	all := add
	if secondary != "" {
		all = append([]string{secondary}, add...)
	}
	return "index missing: " + strings.Join(ops, ", ") + " ran without a secondary index on its path; the fix: -p secondaryindex=" + strings.Join(all, ",")
}

// rawWithWorkloads is the study's text with its workloads, and the
// capacity search's workload, as st has them.
func rawWithWorkloads(st *study.File) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(st.Raw, &doc); err != nil || len(doc.Content) == 0 {
		return nil, fmt.Errorf("quickstart: the study's text: %v", err)
	}
	type spec struct {
		Name       string            `yaml:"name"`
		Workload   string            `yaml:"workload"`
		Properties map[string]string `yaml:"properties,omitempty"`
	}
	var specs []spec
	for _, w := range st.Workloads {
		specs = append(specs, spec{w.Name, w.Workload, w.Properties})
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch k, v := root.Content[i], root.Content[i+1]; k.Value {
		case "workloads":
			if err := v.Encode(specs); err != nil {
				return nil, err
			}
		case "capacity":
			for j := 0; j+1 < len(v.Content); j += 2 {
				if v.Content[j].Value == "workload" && st.Capacity != nil {
					v.Content[j+1].Value = st.Capacity.Workload
				}
			}
		}
	}
	return yaml.Marshal(&doc)
}

// mixLines are the first screen's lines of the mix on target t: its
// throughput closed loop, then per query p50/p99, rows per call and plan.
func mixLines(d *study.Data, t string) []string {
	all, why := d.Figure(t, quickMixName, "ALL", "throughput")
	if why != "" {
		return []string{"  " + quickMixName + ": " + why}
	}
	out := []string{fmt.Sprintf("  %s (your queries, closed loop): %s ops/s", quickMixName, report.FormatNumber(math.Round(all.Median)))}
	plans, pages := mixPlans(d, t)
	for _, op := range opsOf(d, t, quickMixName) {
		l := "    " + op + ": " + latencies(d, t, quickMixName, op)
		if rows, why := d.Figure(t, quickMixName, op, "rows_per_call"); why == "" {
			l += ", " + report.FormatNumber(rows.Median) + " rows per call"
			if p := pages[op]; p != "" {
				l += ", " + p
			}
		}
		if p := plans[op]; p != "" {
			l += "; plan: " + p
		}
		out = append(out, l)
	}
	return out
}

// opsOf are the operations a workload of target t reported, in order.
func opsOf(d *study.Data, t, wl string) []string {
	var ops []string
	for _, r := range d.Rows {
		if r.Target == t && r.Workload == wl && r.Metric == "p50" && r.Op != "ALL" && !slices.Contains(ops, r.Op) {
			ops = append(ops, r.Op)
		}
	}
	return ops
}

// latencies is "p50 X, p99 Y" of an operation, or why there is none.
func latencies(d *study.Data, t, wl, op string) string {
	p50, why := d.Figure(t, wl, op, "p50")
	if why != "" {
		return why
	}
	p99, _ := d.Figure(t, wl, op, "p99")
	return fmt.Sprintf("p50 %s, p99 %s", report.HumanMicros(p50.Median), report.HumanMicros(p99.Median))
}

// mixPlans are the plans of the closed-loop mix's operations on target t,
// by operation: the access, or the flag of one that uses no index; and
// the most rows each query's call returns, in words (report.OpQuery.Page).
func mixPlans(d *study.Data, t string) (plans, pages map[string]string) {
	out, pages := map[string]string{}, map[string]string{}
	for _, run := range d.Manifest.Runs {
		res := d.Results[run.File]
		if run.Target != t || run.Workload != quickMixName || run.Capacity || res == nil {
			continue
		}
		for _, op := range res.Ops {
			if op.Query != nil {
				pages[op.Name] = op.Query.Page()
			}
		}
		if res.Server == nil {
			continue
		}
		for _, p := range res.Server.Plans {
			switch {
			case p.Flag != "":
				out[p.Op] = "⚑ " + p.Flag
			case p.Access != "":
				out[p.Op] = p.Access
			}
		}
	}
	return out, pages
}
