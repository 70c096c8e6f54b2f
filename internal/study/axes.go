package study

import (
	"cmp"
	"math"
	"strconv"
	"strings"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/workload"
)

// metricNames are the axis titles of figures: words, not metric names.
var metricNames = map[string]string{
	"throughput":           "throughput",
	"mean":                 "mean latency",
	"p50":                  "median latency (p50)",
	"p95":                  "p95 latency",
	"p99":                  "p99 latency",
	"p999":                 "p99.9 latency",
	"max":                  "maximum latency",
	"errors":               "errors",
	"rows_per_call":        "rows per call",
	"wal_bytes_per_update": "WAL bytes per update",
	"wal_bytes_per_op":     "WAL bytes per operation",
	"bytes_per_document":   "stored bytes per document",
	"index_bytes":          "index size",
	"table_bytes":          "table size",
	"toast_bytes":          "TOAST size",
	"server_us_per_op":     "server CPU per operation",
	"harness_us_per_op":    "harness CPU per operation",
	"server_share":         "server share of CPU",
	"doc_external_share":   "share of documents stored out of line (TOAST)",
	"doc_compressed_share": "share of documents compressed",
	"doc_inline_share":     "share of documents in line, uncompressed",
	"doc_stored_to_raw":    "stored size / JSON text size",
}

// metricWords names a metric for an axis; an unknown figure reads with
// spaces for underscores.
func metricWords(m string) string {
	if w, ok := metricNames[m]; ok {
		return w
	}
	return strings.ReplaceAll(m, "_", " ")
}

// axisUnits are the units of swept properties, for the x axis.
var axisUnits = map[string]string{
	"document.size":        "bytes",
	"document.arraylength": "elements",
	"document.depth":       "levels",
	"fieldlength":          "bytes",
	"fieldcount":           "fields",
	"recordcount":          "documents",
	"batchsize":            "documents per batch",
	"threads":              "clients",
}

// axisWords is the x axis title of a swept property, with its unit.
func axisWords(x string) string {
	if u, ok := axisUnits[x]; ok {
		return x + " (" + u + ")"
	}
	return x
}

// missingTargets says why each target of the study that has no figure in a
// chart is absent from it: the server's reason where the result gives one.
func (d *Data) missingTargets(c ChartSpec, metric, op string) []string {
	has := map[string]bool{}
	for _, r := range d.Rows {
		if r.Metric == metric && (op == "" || r.Op == op || !isOpMetric(metric) || op == "ALL") && (c.Workload == "" || r.Workload == c.Workload) {
			has[r.Target] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, run := range d.Manifest.Runs {
		if seen[run.Target] || has[run.Target] || run.Workload == loadWorkload || (c.Workload != "" && run.Workload != c.Workload) {
			continue
		}
		seen[run.Target] = true
		why := "its results have no " + metricWords(metric)
		if res := d.Results[run.File]; res != nil && !isOpMetric(metric) {
			switch s := res.Server; {
			case s == nil:
				why += " (no server-side figures)"
			case s.Absent != "":
				why += " (" + s.Absent + ")"
			default:
				reason := " (" + res.Target.Backend + " reports no such figure)"
				for _, m := range []map[string]db.Figure{s.PerOp, s.Storage} {
					if f, ok := m[metric]; ok && f.Absent != "" {
						reason = " (" + f.Absent + ")"
					}
				}
				why += reason
			}
		} else if run.NotApplicable != "" {
			why = "not applicable: " + run.NotApplicable
		} else if run.Error != "" {
			why = "the run failed: " + run.Error
		}
		out = append(out, run.Target+" is not drawn: "+why)
	}
	return out
}

// workloadLine says in one line what a study's workload runs: the mix of
// operations it makes and the file and properties it comes from, so that
// an update-only workload is not read as workload C.
func workloadLine(f *File, w WorkloadSpec) string {
	return "Workload `" + w.Name + "`: " + Describe(f, w) + ".\n\n"
}

// Describe says in a few words what a study's workload runs: its mix of
// operations ("YCSB A: 50% reads, 50% updates"; "queries only") from its
// file and the proportions the study and the workload set, then the
// properties the workload sets over its file.
func Describe(f *File, w WorkloadSpec) string {
	mix, changed := operationMix(f, w)
	d, ycsb := ycsbWorkloads[w.Workload]
	switch {
	case ycsb && !changed:
	case mix != "" && ycsb:
		d = mix + " (YCSB " + strings.ToUpper(strings.TrimPrefix(w.Workload, "workload")) + "'s file"
	case mix != "":
		d = mix + " (workload file " + w.Workload
	default:
		d = "workload file " + w.Workload
	}
	if changed && mix != "" {
		return d + withProps(w) + ")"
	}
	if len(w.Properties) > 0 {
		return d + ", with " + strings.TrimPrefix(withProps(w), " with ")
	}
	return d
}

// withProps lists the properties a workload sets over its file
// (" with k=v, …"), or "" when it sets none.
func withProps(w WorkloadSpec) string {
	if len(w.Properties) == 0 {
		return ""
	}
	var kv []string
	for _, k := range sortedKeys(w.Properties) {
		kv = append(kv, k+"="+w.Properties[k])
	}
	return " with " + strings.Join(kv, ", ")
}

// proportions are the operation proportions, in YCSB's order, with what a
// person calls the operations.
var proportions = []struct{ prop, words string }{
	{"readproportion", "reads"}, {"updateproportion", "updates"}, {"insertproportion", "inserts"},
	{"scanproportion", "scans"}, {"readmodifywriteproportion", "read-modify-writes"},
	{"queryproportion", "queries"}, {"statementproportion", "statements"},
}

// ycsbMixes are the proportions of YCSB's core workload files.
var ycsbMixes = map[string]map[string]float64{
	"workloada": {"readproportion": 0.5, "updateproportion": 0.5},
	"workloadb": {"readproportion": 0.95, "updateproportion": 0.05},
	"workloadc": {"readproportion": 1},
	"workloadd": {"readproportion": 0.95, "insertproportion": 0.05},
	"workloade": {"scanproportion": 0.95, "insertproportion": 0.05},
	"workloadf": {"readproportion": 0.5, "readmodifywriteproportion": 0.5},
}

// operationMix says what share of each operation a workload makes ("50%
// reads, 50% updates", "queries only"), from its file's proportions and
// those the study and the workload set (the workload's win); changed says
// that some were set. mix is "" when the file is not one of YCSB's and
// sets nothing.
func operationMix(f *File, w WorkloadSpec) (mix string, changed bool) {
	p := map[string]float64{}
	for k, v := range ycsbMixes[w.Workload] {
		p[k] = v
	}
	for _, props := range []map[string]string{f.Properties, w.Properties} {
		for _, op := range proportions {
			if v, ok := props[op.prop]; ok {
				x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil {
					continue // validation names it
				}
				p[op.prop], changed = x, true
			}
		}
	}
	if file := cmp.Or(w.Properties["querymix"], f.Properties["querymix"]); file != "" {
		// A mix's entries are shares of all operations; a file not found
		// here (relative to its study file) is left out of the words.
		if m, err := workload.ReadMix(file); err == nil {
			for _, q := range m.Queries {
				if q.Kind == "update" {
					p["updateproportion"] += q.Proportion
				} else {
					p["queryproportion"] += q.Proportion
				}
			}
			changed = true
		}
	}
	total := 0.0
	for _, v := range p {
		total += v
	}
	if total <= 0 {
		return "", changed
	}
	var parts []string
	for _, op := range proportions {
		v := p[op.prop] / total
		switch {
		case v <= 0:
		case v >= 1:
			return op.words + " only", changed
		default:
			parts = append(parts, strconv.FormatFloat(math.Round(v*1000)/10, 'f', -1, 64)+"% "+op.words)
		}
	}
	return strings.Join(parts, ", "), changed
}

// ycsbWorkloads says what YCSB's core workloads do.
var ycsbWorkloads = map[string]string{
	"workloada": "YCSB A: 50% reads, 50% updates",
	"workloadb": "YCSB B: 95% reads, 5% updates",
	"workloadc": "YCSB C: reads only",
	"workloadd": "YCSB D: 95% reads of the latest inserts, 5% inserts",
	"workloade": "YCSB E: 95% short scans, 5% inserts",
	"workloadf": "YCSB F: 50% reads, 50% read-modify-writes",
}
