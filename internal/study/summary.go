package study

import (
	"archive/tar"
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/report"
)

// confidence is the level of the confidence intervals of medians.
const confidence = 0.95

// metric reads one figure off a result; ok is false when the result does
// not have it (never a zero standing in for a missing figure).
type metric struct {
	name string
	unit string
	get  func(r *report.Result, op *report.Op) (float64, bool)
}

// latency picks the response time under a target rate, else service time.
func latency(op *report.Op) *report.Latency {
	if op.Response != nil {
		return op.Response
	}
	return op.Service
}

var opMetrics = []metric{
	{"throughput", "ops/s", func(_ *report.Result, op *report.Op) (float64, bool) { return op.Throughput, true }},
	latencyMetric("mean", func(l *report.Latency) float64 { return l.Mean }),
	latencyMetric("p50", func(l *report.Latency) float64 { return l.P50 }),
	latencyMetric("p95", func(l *report.Latency) float64 { return l.P95 }),
	latencyMetric("p99", func(l *report.Latency) float64 { return l.P99 }),
	latencyMetric("p999", func(l *report.Latency) float64 { return l.P999 }),
	latencyMetric("max", func(l *report.Latency) float64 { return l.Max }),
	{"errors", "ops", func(_ *report.Result, op *report.Op) (float64, bool) { return float64(op.Errors), true }},
	{"rows_per_call", "rows", func(_ *report.Result, op *report.Op) (float64, bool) {
		if op.Query == nil {
			return 0, false
		}
		return op.Query.RowsPerCall, true
	}},
}

// latencyMetric is a latency figure in µs of the operation's latency
// (response time under a target rate, else service time); absent when the
// operation has none.
func latencyMetric(name string, f func(*report.Latency) float64) metric {
	return metric{name, "µs", func(_ *report.Result, op *report.Op) (float64, bool) {
		l := latency(op)
		if l == nil {
			return 0, false
		}
		return f(l), true
	}}
}

// series gathers the values of one metric across rounds.
type seriesKey struct {
	target, workload, point, op, metric string
}

// Data is a study directory read back: the manifest, every result, and the
// statistics over rounds.
type Data struct {
	Dir      string
	File     *File
	Manifest *Manifest
	Results  map[string]*report.Result // by file
	Rows     []report.Row
	points   map[string][]KV
	values   map[seriesKey][]float64 // the per-round values behind each row
	// absent says why a target's server figure is missing ("the protocol
	// peer reports storageSize 0"), by target and figure name.
	absent map[[2]string]string
	// void says why a run is left out of every figure: its machine-speed
	// control moved beyond controlBound (voids), by result file.
	void map[string]string
}

// Read loads a study directory and computes its statistics.
func Read(dir string) (*Data, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "study.yaml"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	f, err := Parse(filepath.Join(dir, "study.yaml"), raw)
	if err != nil {
		return nil, err
	}
	if m.Rounds > 0 {
		f.Rounds = m.Rounds // as run (--quick changes it)
	}
	archived, err := readArchive(dir)
	if err != nil {
		return nil, err
	}
	d := &Data{Dir: dir, File: f, Manifest: m, Results: map[string]*report.Result{}, points: map[string][]KV{}}
	values := map[seriesKey][]float64{}
	d.values = values
	units := map[string]string{}
	caveats := map[seriesKey][]string{}
	var order []seriesKey
	for _, run := range m.Runs {
		if run.File == "" {
			continue
		}
		res, err := readResult(dir, run.File, archived)
		if err != nil {
			return nil, err
		}
		d.Results[run.File] = res
	}
	d.void = d.voids()
	for _, run := range m.Runs {
		res := d.Results[run.File]
		if res == nil || !res.Complete || d.void[run.File] != "" {
			continue // a load's figures go in as workload "load", for claims on it
		}
		pid := pointID(run.Point)
		d.points[pid] = run.Point
		add := func(op string, name, unit string, v float64) {
			k := seriesKey{run.Target, run.Workload, pid, op, name}
			if _, ok := values[k]; !ok {
				order = append(order, k)
			}
			values[k] = append(values[k], v)
			units[name] = unit
		}
		if run.Capacity {
			capacityRow(res, add)
			if res.Capacity != nil && res.Capacity.Rate > 0 {
				k := seriesKey{run.Target, run.Workload, pid, CapacityOp, CapacityMetric}
				caveats[k] = append(caveats[k], fmt.Sprintf("round %d: %s", run.Round, report.CapacityLine(res.Capacity)))
			}
			continue
		}
		add("ALL", "throughput", "ops/s", res.Throughput)
		for i := range res.Ops {
			op := &res.Ops[i]
			for _, mt := range opMetrics {
				if v, ok := mt.get(res, op); ok {
					add(op.Name, mt.name, mt.unit, v)
				}
			}
		}
		d.noteAbsent(run.Target, res)
		figs := serverFigures(res)
		for _, name := range probe.SortedKeys(figs) {
			add(serverOp, name, figs[name].Unit, figs[name].Value)
		}
	}
	for _, k := range order {
		vs := append([]float64(nil), values[k]...)
		s := benchmath.AssumeNothing.Summary(benchmath.NewSample(vs, &benchmath.DefaultThresholds), confidence)
		row := report.Row{Target: k.target, Workload: k.workload, Point: d.points[k.point], Op: k.op, Metric: k.metric,
			Unit: units[k.metric], Median: s.Center, Min: vs[0], Max: vs[len(vs)-1], N: len(vs), Caveat: strings.Join(caveats[k], " | ")}
		if !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0) {
			row.CILo, row.CIHi = s.Lo, s.Hi
		}
		if k.metric == CapacityMetric && row.Caveat != "" && f.Rounds <= 1 {
			row.Caveat += " | one round: a single search, its spread across searches unknown"
		}
		d.Rows = append(d.Rows, row)
	}
	return d, nil
}

// serverOp is the operation name of server-side figures in rows.
const serverOp = "SERVER"

// serverFigures returns the server-side figures a result carries (per
// operation, storage, CPU), by name; absent figures are left out, never
// turned into zeros.
func serverFigures(res *report.Result) map[string]db.Figure {
	out := map[string]db.Figure{}
	s := res.Server
	if s == nil || s.Absent != "" {
		return out
	}
	for _, m := range []map[string]db.Figure{s.PerOp, s.Storage} {
		for name, f := range m {
			if f.OK() {
				out[name] = f
			}
		}
	}
	if c := s.CPU; c != nil {
		for name, f := range map[string]db.Figure{"server_us_per_op": c.ServerUSOp, "harness_us_per_op": c.HarnessUSOp, "server_share": c.ServerShare} {
			if f.OK() {
				out[name] = f
			}
		}
	}
	return out
}

// noteAbsent records why target's result lacks server figures.
func (d *Data) noteAbsent(target string, res *report.Result) {
	s := res.Server
	if s == nil {
		return
	}
	if d.absent == nil {
		d.absent = map[[2]string]string{}
	}
	if s.Absent != "" {
		d.absent[[2]string{target, ""}] = s.Absent
	}
	for _, m := range []map[string]db.Figure{s.PerOp, s.Storage} {
		for name, f := range m {
			if !f.OK() {
				d.absent[[2]string{target, name}] = f.Absent
			}
		}
	}
}

// resultsArchive is the one file in which a study directory may keep all its
// result files, as the shipped record does: a gzipped tar archive whose
// entries are the files' paths in the directory (results/…/X.json), so
// that tar -xzf gives them back. One stream shares what the files repeat.
const resultsArchive = "results.tar.gz"

// readArchive returns the files of dir's results archive by path, or nil
// when dir has none.
func readArchive(dir string) (map[string][]byte, error) {
	path := filepath.Join(dir, resultsArchive)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(z)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, h.Name, err)
		}
		files[filepath.ToSlash(filepath.Clean(h.Name))] = b
	}
}

// readResult reads the result file name (a path as runs.json gives it) of
// the study directory dir: the file itself, else its entry in the
// directory's results archive (archived).
func readResult(dir, name string, archived map[string][]byte) (*report.Result, error) {
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		if a, ok := archived[filepath.ToSlash(filepath.Clean(name))]; ok {
			b, err, path = a, nil, filepath.Join(dir, resultsArchive)+": "+name
		} else if archived != nil {
			err = fmt.Errorf("%s: no such result file, nor an entry of %s", path, resultsArchive)
		}
	}
	if err != nil {
		return nil, err
	}
	return report.DecodeResult(path, b)
}

// row finds the statistics of one series.
func (d *Data) row(target, wl, point, op, metric string) (report.Row, bool) {
	for _, r := range d.Rows {
		if r.Target == target && r.Workload == wl && pointID(r.Point) == point && r.Op == op && r.Metric == metric {
			return r, true
		}
	}
	return report.Row{}, false
}

// Report builds what report.html shows.
func (d *Data) Report() *report.StudyReport {
	f := d.File
	sr := &report.StudyReport{Name: f.Name, Title: f.Title, Cites: f.Cites, Reported: f.Reported,
		Generated: d.Manifest.Finished, Quick: d.Manifest.Quick, Rounds: f.Rounds, Rows: d.Rows,
		Incomplete: d.Manifest.Incomplete}
	if sr.Generated.IsZero() {
		sr.Generated = d.Manifest.Started
	}
	seen := map[string]bool{}
	var alike alikeNotes
	for _, run := range d.Manifest.Runs {
		if res := d.Results[run.File]; res != nil && !res.Complete {
			why := res.Stopped
			if res.Error != "" {
				why = res.Error
			}
			sr.Notes = appendOnce(sr.Notes, fmt.Sprintf("%s %s at %s, round %d: INCOMPLETE run (%s), left out of every figure",
				run.Target, run.Workload, pointID(run.Point), run.Round, why))
		}
		if run.NotApplicable != "" && !d.designedOut(run.Target, run.Workload) {
			sr.Notes = appendOnce(sr.Notes, fmt.Sprintf("%s at %s: not applicable: %s", run.Target, pointID(run.Point), run.NotApplicable))
		}
		if run.Error != "" {
			sr.Notes = appendOnce(sr.Notes, fmt.Sprintf("%s %s at %s round %d: %s", run.Target, run.Workload, pointID(run.Point), run.Round, run.Error))
		}
		res := d.Results[run.File]
		if res == nil {
			continue
		}
		if sr.Environment.OS == "" {
			sr.Environment = res.Environment
		}
		if run.Capacity && res.Capacity != nil {
			// The figure capacity:ops is the band's holding edge: the band
			// and its caveats, in words, beside it.
			sr.Notes = appendOnce(sr.Notes, fmt.Sprintf("%s %s at %s round %d: capacity: %s", run.Target, run.Workload,
				pointID(run.Point), run.Round, report.CapacityLine(res.Capacity)))
		}
		for _, n := range res.Notes {
			if run.Workload != loadWorkload {
				alike.add(run.Target, n)
			}
		}
		if !seen[run.Target] {
			seen[run.Target] = true
			sr.Targets = append(sr.Targets, report.TargetInfo{Name: run.Target, Target: res.Target.Target, Backend: res.Target.Backend,
				Version: res.Target.Version, Settings: res.Target.Settings, Layout: res.Target.Layout})
		}
	}
	sr.Notes = append(sr.Notes, alike.notes()...)
	for _, c := range f.Charts {
		ch, note := d.chart(c)
		sr.Charts = append(sr.Charts, ch)
		if note != "" {
			sr.Notes = append(sr.Notes, note)
		}
	}
	for _, w := range f.Workloads {
		sr.Workloads = append(sr.Workloads, report.KV{Key: w.Name, Value: Describe(f, w)})
	}
	sr.Audit = d.audit()
	sr.Findings = d.Findings()
	sr.PlanChecks = d.PlanChecks()
	sr.Headlines = append(append(d.VersionChanges(), d.Comparisons()...), d.CapacityLines()...)
	sr.Caveats = d.Caveats()
	sr.Void = d.Void()
	return sr
}

// audit compares the targets' classifications (durability, key index,
// indexes, compression, memory, clients) as `docbench compare` does.
func (d *Data) audit() []string {
	var ts []probe.Target
	var names []string
	seen := map[string]bool{}
	for _, run := range d.Manifest.Runs {
		res := d.Results[run.File]
		if res == nil || run.Workload == loadWorkload || seen[run.Target] {
			continue
		}
		seen[run.Target] = true
		a := res.Audit
		if a == nil {
			c := probe.Classify(res.Target.Backend, res.Target.Settings, res.Target.Layout, res.Options.Threads)
			a = &c
		}
		ts = append(ts, probe.Target{Name: run.Target, Backend: res.Target.Backend, Audit: *a})
		names = append(names, run.Target)
	}
	if len(ts) < 2 {
		return nil
	}
	return probe.Lines(probe.Compare(ts), names)
}

// alikeNotes gathers the runs' own notes: one line for a target's notes
// that differ only in their numbers (every run a duration ends says so,
// each with its own count), with how many more runs gave it.
type alikeNotes struct {
	first []string
	index map[string]int
	more  []int
}

var noteNumber = regexp.MustCompile(`\d+(\.\d+)?`)

func (a *alikeNotes) add(target, note string) {
	key := target + "\x00" + noteNumber.ReplaceAllString(note, "#")
	if i, ok := a.index[key]; ok {
		a.more[i]++
		return
	}
	if a.index == nil {
		a.index = map[string]int{}
	}
	a.index[key] = len(a.first)
	a.first, a.more = append(a.first, target+": "+note), append(a.more, 0)
}

func (a *alikeNotes) notes() []string {
	out := make([]string, len(a.first))
	for i, n := range a.first {
		out[i] = n
		if a.more[i] > 0 {
			out[i] += fmt.Sprintf(" (and %d more runs, each with its own figures)", a.more[i])
		}
	}
	return out
}

func appendOnce(xs []string, s string) []string {
	for _, x := range xs {
		if x == s {
			return xs
		}
	}
	return append(xs, s)
}

func isOpMetric(name string) bool {
	for _, m := range opMetrics {
		if m.name == name {
			return true
		}
	}
	return false
}

// chart turns a chart spec into series with their numbers, and says when
// the results have nothing to draw.
func (d *Data) chart(c ChartSpec) (report.Chart, string) {
	metricName, op, everyOp := chartOp(c.Y)
	ylabel := d.yLabel(metricName, op, everyOp)
	ch := report.Chart{Title: c.Title, XLabel: axisWords(c.X), YLabel: ylabel, Kind: c.Kind, XLog: c.XLog, YLog: c.YLog}
	if ch.Title == "" {
		ch.Title = ylabel + " by " + c.X
	}
	bySeries := map[string]*report.Series{}
	var names []string
	for _, r := range d.Rows {
		if r.Metric != metricName || (c.Workload != "" && r.Workload != c.Workload) || (c.Workload == "" && r.Workload == loadWorkload) {
			continue
		}
		if everyOp && (r.Op == "ALL" || r.Op == serverOp) || !everyOp && r.Op != op {
			continue
		}
		name, xl := d.seriesOf(c, r, everyOp)
		s := bySeries[name]
		if s == nil {
			s = &report.Series{Name: name}
			bySeries[name] = s
			names = append(names, name)
		}
		x, _ := strconv.ParseFloat(xl, 64)
		s.Points = append(s.Points, report.ChartPoint{X: x, XLabel: xl, Y: r.Median, Min: r.Min, Max: r.Max, CILo: r.CILo, CIHi: r.CIHi})
	}
	for _, m := range d.missingTargets(c, metricName, op) {
		// A target the chart's workload leaves out by the study's design
		// is not missing from it.
		name, _, _ := strings.Cut(m, " is not drawn: ")
		if c.Workload == "" || !d.designedOut(name, c.Workload) {
			ch.Missing = append(ch.Missing, m)
		}
	}
	note := ""
	if len(names) == 0 {
		note = fmt.Sprintf("chart %q: the results have no figure %s", ch.Title, c.Y)
	}
	for _, n := range names {
		s := bySeries[n]
		if ch.Kind == "line" {
			sort.SliceStable(s.Points, func(i, j int) bool { return s.Points[i].X < s.Points[j].X })
		}
		ch.Series = append(ch.Series, *s)
	}
	return ch, note
}

// chartOp reads a chart's y, "metric" or "metric:OP": the operation drawn
// (ALL for throughput, serverOp for a server-side figure), or everyOp for
// a latency metric without an operation (a series per operation).
func chartOp(y string) (metricName, op string, everyOp bool) {
	metricName, op, _ = strings.Cut(y, ":")
	if op == "" {
		switch {
		case !isOpMetric(metricName):
			op = serverOp
		case metricName == "throughput":
			op = "ALL"
		default:
			everyOp = true
		}
	}
	return metricName, op, everyOp
}

// yLabel says what a chart's y axis shows, with its unit.
func (d *Data) yLabel(metricName, op string, everyOp bool) string {
	if metricName == CapacityMetric {
		return d.File.capacityLabel()
	}
	unit := ""
	for _, m := range opMetrics {
		if m.name == metricName {
			unit = m.unit
		}
	}
	if op == serverOp {
		for _, r := range d.Rows {
			if r.Op == serverOp && r.Metric == metricName {
				unit = r.Unit
			}
		}
	}
	ylabel := metricWords(metricName)
	if op != "ALL" && op != serverOp && !everyOp {
		ylabel += " " + op
	}
	if unit != "" {
		ylabel += " (" + unit + ")"
	}
	return ylabel
}

// seriesOf names the series row r belongs to in chart c, and its x label.
func (d *Data) seriesOf(c ChartSpec, r report.Row, everyOp bool) (name, xl string) {
	name = r.Target
	switch c.X {
	case "target":
		name, xl = r.Workload, r.Target
	case "workload":
		xl = r.Workload
	default:
		if c.Workload == "" && len(d.File.Workloads) > 1 {
			name += " " + r.Workload
		}
	}
	if everyOp {
		name += " " + r.Op
	}
	for _, kv := range r.Point {
		if kv.Key == c.X {
			xl = kv.Value
		} else {
			name += " " + kv.Key + "=" + kv.Value // a series per value of the other sweeps
		}
	}
	return name, xl
}

// WriteOutputs writes results.csv, summary.md and report.html of a study
// directory from its result files.
func WriteOutputs(dir string) error {
	d, err := Read(dir)
	if err != nil {
		return err
	}
	var csvBuf bytes.Buffer
	if err := d.writeCSV(&csvBuf); err != nil {
		return err
	}
	if err := report.WriteFileAtomic(filepath.Join(dir, "results.csv"), csvBuf.Bytes()); err != nil {
		return err
	}
	rep := d.Report()
	if err := report.WriteFileAtomic(filepath.Join(dir, "summary.md"), d.markdown(rep)); err != nil {
		return err
	}
	if err := report.WriteFileAtomic(filepath.Join(dir, "summary.txt"), d.Text()); err != nil {
		return err
	}
	if err := writeFindings(dir, rep); err != nil {
		return err
	}
	var html bytes.Buffer
	if err := report.RenderHTML(&html, append([]*report.StudyReport{rep}, d.capacityReports(rep)...)); err != nil {
		return err
	}
	return report.WriteFileAtomic(filepath.Join(dir, "report.html"), html.Bytes())
}

// sweepKeys are the swept properties, in order.
func (d *Data) sweepKeys() []string {
	var keys []string
	for _, s := range d.File.Sweep {
		keys = append(keys, s.Property)
	}
	return keys
}

func (d *Data) writeCSV(w *bytes.Buffer) error {
	cw := csv.NewWriter(w)
	header := append([]string{"study", "target", "workload"}, d.sweepKeys()...)
	// quick: the row is of a --quick run, a smoke test not to quote.
	// caveat: what the figure rests on, in words (a sustainable rate's band).
	header = append(header, "op", "metric", "unit", "median", "min", "max", "ci_low", "ci_high", "rounds", "quick", "caveat")
	cw.Write(header)
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, r := range d.Rows {
		rec := []string{d.File.Name, r.Target, r.Workload}
		for _, k := range d.sweepKeys() {
			v := ""
			for _, kv := range r.Point {
				if kv.Key == k {
					v = kv.Value
				}
			}
			rec = append(rec, v)
		}
		ci := []string{"", ""}
		if r.CILo != 0 || r.CIHi != 0 {
			ci = []string{num(r.CILo), num(r.CIHi)}
		}
		rec = append(rec, r.Op, r.Metric, r.Unit, num(r.Median), num(r.Min), num(r.Max), ci[0], ci[1], strconv.Itoa(r.N),
			strconv.FormatBool(d.Manifest.Quick), r.Caveat)
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// Text is summary.txt: the first screen (markers, what the study found,
// caveats), then per workload throughput and latency per point, target
// and operation.
func (d *Data) Text() []byte {
	var b bytes.Buffer
	for _, l := range d.FirstScreen() {
		b.WriteString(l + "\n")
	}
	spread := d.File.Rounds > 1
	for _, w := range d.File.Workloads {
		fmt.Fprintf(&b, "\n%s: %s\n", w.Name, Describe(d.File, w))
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "point\ttarget\top\tops/s\tp50 µs\tp99 µs\tmax µs\t")
		for _, r := range d.Rows {
			if r.Workload != w.Name || r.Metric != "throughput" || r.Op == serverOp {
				continue
			}
			pid := pointID(r.Point)
			tp := report.PlainRate(r.Median)
			if spread {
				tp += " [" + report.PlainRate(r.Min) + "–" + report.PlainRate(r.Max) + "]"
			}
			cell := func(metric string) string {
				if x, ok := d.row(r.Target, w.Name, pid, r.Op, metric); ok {
					return fmt.Sprintf("%.0f", x.Median)
				}
				return ""
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", pid, r.Target, r.Op, tp, cell("p50"), cell("p99"), cell("max"))
		}
		for _, s := range d.Skipped() {
			name, why, _ := strings.Cut(s, ": ")
			// The reason is the line's last cell, outside every column,
			// so that it does not widen the figures' columns.
			fmt.Fprintf(tw, "\t%s\t\t  %s\n", name, why)
		}
		tw.Flush()
	}
	d.textStorage(&b)
	return b.Bytes()
}

// markdown is summary.md: what the study found first (markers, a line
// per comparison, claims), its caveats, then per workload throughput and
// latency per point and target.
func (d *Data) markdown(rep *report.StudyReport) []byte {
	var b bytes.Buffer
	f := d.File
	fmt.Fprintf(&b, "# %s\n\n", f.Name)
	for _, m := range d.Markers() {
		fmt.Fprintf(&b, "**%s.**\n\n", m)
	}
	fmt.Fprintf(&b, "%s\n\n", f.Title)
	for _, h := range rep.Headlines {
		fmt.Fprintf(&b, "- %s\n", h)
	}
	if len(rep.Headlines) > 0 {
		b.WriteString("\n")
	}
	for _, c := range rep.Caveats {
		fmt.Fprintf(&b, "> %s.\n\n", c)
	}
	markdownFindings(&b, rep, d.Manifest.Quick)
	if f.Cites != "" {
		fmt.Fprintf(&b, "Reproduces: %s\n\n", f.Cites)
	}
	if f.Reported != "" {
		fmt.Fprintf(&b, "The source reported: %s\n\n", f.Reported)
	}
	spread := f.Rounds > 1
	if spread {
		added := 0
		for _, run := range d.Manifest.Runs {
			if len(run.AddedFor) > 0 {
				added = max(added, run.Round)
			}
		}
		if added > 0 {
			fmt.Fprintf(&b, "Medians over %d rounds, up to %d where rounds were added for claims (runs.json's added_for); [min–max] across rounds.\n\n", f.Rounds, added)
		} else {
			fmt.Fprintf(&b, "Medians over %d rounds; [min–max] across rounds.\n\n", f.Rounds)
		}
	}
	if sc := d.Manifest.Scale; sc != "" {
		fmt.Fprintf(&b, "**Scale `%s`** (`--scale %s`): %s.\n\n", sc, sc, f.Scale[sc].Says)
	}
	skipped := d.Skipped()
	for _, w := range f.Workloads {
		fmt.Fprintf(&b, "## %s\n\n", w.Name)
		b.WriteString(workloadLine(f, w))
		b.WriteString("| point | target | ops/s | op | p50 µs | p99 µs |\n|---|---|---:|---|---:|---:|\n")
		for _, r := range d.Rows {
			if r.Workload != w.Name || r.Op != "ALL" || r.Metric != "throughput" {
				continue
			}
			pid := pointID(r.Point)
			first := true
			for _, op := range d.Rows {
				if op.Workload != w.Name || op.Target != r.Target || pointID(op.Point) != pid || op.Metric != "p50" {
					continue
				}
				p99, _ := d.row(r.Target, w.Name, pid, op.Op, "p99")
				tp := ""
				if first {
					tp = report.PlainRate(r.Median)
					if spread {
						tp += " [" + report.PlainRate(r.Min) + "–" + report.PlainRate(r.Max) + "]"
					}
					first = false
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %.0f | %.0f |\n", pid, r.Target, tp, op.Op, op.Median, p99.Median)
			}
		}
		for _, s := range skipped {
			name, why, _ := strings.Cut(s, ": ")
			fmt.Fprintf(&b, "| | %s | %s | | | |\n", name, why)
		}
		b.WriteString("\n")
		d.markdownQueries(&b, w.Name)
	}
	d.markdownStorage(&b)
	if len(rep.Notes) > 0 {
		b.WriteString("## Notes\n\n")
		for _, n := range rep.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.Bytes()
}

// markdownQueries is a workload's table of its queries: rows per call and
// plan, by point and target; nothing when it ran no query (or its results
// are older than rows per call).
func (d *Data) markdownQueries(b *bytes.Buffer, wl string) {
	if !slices.ContainsFunc(d.Rows, func(r report.Row) bool { return r.Workload == wl && r.Metric == "rows_per_call" }) {
		return
	}
	type key struct{ point, target, op string }
	plans := map[key]string{}
	for _, run := range d.Manifest.Runs {
		res := d.Results[run.File]
		if run.Workload != wl || run.Capacity || res == nil || res.Server == nil {
			continue
		}
		for _, p := range res.Server.Plans {
			if a := p.Access; strings.HasPrefix(p.Op, "QUERY") {
				if p.Flag != "" {
					a = "⚑ " + p.Flag
				}
				plans[key{pointID(run.Point), run.Target, p.Op}] = strings.ReplaceAll(a, "|", "\\|")
			}
		}
	}
	seen := map[key]bool{}
	for _, r := range d.Rows {
		k := key{pointID(r.Point), r.Target, r.Op}
		if r.Workload != wl || r.Metric != "p50" || !strings.HasPrefix(r.Op, "QUERY") || seen[k] {
			continue
		}
		if len(seen) == 0 {
			b.WriteString("| point | target | query | rows per call | plan |\n|---|---|---|---:|---|\n")
		}
		seen[k] = true
		rows := "—"
		if rr, ok := d.row(r.Target, wl, k.point, r.Op, "rows_per_call"); ok {
			rows = report.FormatNumber(rr.Median)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", k.point, r.Target, r.Op, rows, cmp.Or(plans[k], "—"))
	}
	if len(seen) > 0 {
		b.WriteString("\n")
	}
}

// capacityReports are the capacity searches of a study, trial by trial
// (report.CapacityReport), each a section of report.html after the
// study's: the environment, targets and audit are the study's.
func (d *Data) capacityReports(rep *report.StudyReport) []*report.StudyReport {
	var out []*report.StudyReport
	for _, run := range d.Manifest.Runs {
		res := d.Results[run.File]
		if !run.Capacity || res == nil || res.Capacity == nil {
			continue
		}
		c := report.CapacityReport(res)
		c.Name = "capacity search: " + run.Target + " " + run.Workload
		c.Title = fmt.Sprintf("%s, %s at %s, round %d: the capacity search at %s, trial by trial", run.Target, run.Workload,
			pointID(run.Point), run.Round, strings.Join(res.Capacity.SLO, ", "))
		c.Environment, c.Targets, c.Audit, c.Quick = rep.Environment, nil, rep.Audit, rep.Quick
		out = append(out, c)
	}
	return out
}
