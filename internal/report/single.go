package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SingleRun makes the report of one phase result (docbench report
// RESULT.json): a line saying what it measured, its figures per
// operation, and its per-second throughput and p99 over time.
func SingleRun(r *Result, name string) *StudyReport {
	r.Redact()
	what := r.Phase
	if len(r.Workload.Files) > 0 {
		what += " of " + strings.Join(r.Workload.Files, ", ")
	}
	sr := &StudyReport{Name: name, Title: fmt.Sprintf("docbench %s on %s", what, r.Target.Target),
		Generated: r.End, Rounds: 1, Environment: r.Environment,
		Targets: []TargetInfo{{Name: r.Target.Backend, Target: r.Target.Target, Backend: r.Target.Backend,
			Version: r.Target.Version, Settings: r.Target.Settings, Layout: r.Target.Layout}},
		Notes: append([]string(nil), r.Notes...)}
	if !r.Complete {
		sr.Incomplete = "the phase did not run to its end"
		if r.Stopped != "" {
			sr.Incomplete += " (" + r.Stopped + ")"
		}
	}
	if r.Failed {
		sr.Notes = append([]string{"FAILED: " + r.Error}, sr.Notes...)
	}
	sr.Headlines = []string{singleHeadline(r)}
	row := func(op, metric, unit string, v float64) {
		sr.Rows = append(sr.Rows, Row{Target: r.Target.Backend, Workload: r.Phase, Op: op, Metric: metric, Unit: unit,
			Median: v, Min: v, Max: v, N: 1})
	}
	row("ALL", "throughput", "ops/s", r.Throughput)
	for _, op := range r.Ops {
		row(op.Name, "throughput", "ops/s", op.Throughput)
		if l := op.Service; l != nil {
			row(op.Name, "p50", "µs", l.P50)
			row(op.Name, "p99", "µs", l.P99)
			row(op.Name, "p999", "µs", l.P999)
			row(op.Name, "max", "µs", l.Max)
		}
		row(op.Name, "errors", "ops", float64(op.Errors))
		if q := op.Query; q != nil {
			row(op.Name, "rows_per_call", "rows", q.RowsPerCall)
		}
	}
	rate := Chart{Title: "Operations per second, each second", XLabel: "seconds", YLabel: "operations per second", Kind: "line"}
	p99 := Chart{Title: "p99 latency, each second", XLabel: "seconds", YLabel: "p99 latency (µs)", Kind: "line", YLog: true}
	for _, op := range r.Ops {
		s, l := Series{Name: op.Name}, Series{Name: op.Name}
		prev := 0.0
		for _, pt := range r.Series {
			po, ok := pt.Ops[op.Name]
			x := fmt.Sprintf("%.0f", pt.T)
			// A last interval much shorter than a second (the end of
			// the phase) would read as a drop in rate: it is left out.
			if ok && pt.T-prev >= 0.5 {
				v := float64(po.Count) / (pt.T - prev)
				s.Points = append(s.Points, ChartPoint{X: pt.T, XLabel: x, Y: v, Min: v, Max: v})
			}
			if ok && po.P99 > 0 {
				l.Points = append(l.Points, ChartPoint{X: pt.T, XLabel: x, Y: po.P99, Min: po.P99, Max: po.P99})
			}
			prev = pt.T
		}
		rate.Series = append(rate.Series, s)
		p99.Series = append(p99.Series, l)
	}
	if len(r.Series) > 0 {
		sr.Charts = []Chart{rate, p99}
	}
	return sr
}

// singleHeadline says in one line what one phase measured: its rate,
// each operation's p99 and the highest maximum, and its failures.
func singleHeadline(r *Result) string {
	line := fmt.Sprintf("%s ops/s over %.1f s on %s", HumanRate(r.Throughput), r.RuntimeMS/1e3, r.Target.Target)
	var worst *Op
	for i := range r.Ops {
		op := &r.Ops[i]
		if op.Service == nil {
			continue
		}
		line += fmt.Sprintf("; %s p99 %s", op.Name, HumanMicros(op.Service.P99))
		if worst == nil || op.Service.Max > worst.Service.Max {
			worst = op
		}
	}
	if worst != nil {
		line += fmt.Sprintf("; max %s (%s)", HumanMicros(worst.Service.Max), worst.Name)
	}
	if r.Errors > 0 {
		line += fmt.Sprintf("; %d failed (%s)", r.Errors, percent(r.ErrorShare))
	}
	return line
}

// HumanRate prints an operation rate with three significant digits:
// 950, 3.62k, 1.25M.
func HumanRate(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 2, 64) + "M"
	case v >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', 2, 64) + "k"
	}
	return PlainRate(v)
}

// PlainRate prints a rate without unit prefixes: whole numbers from 100
// up, three significant digits below (0.47, not 0), never an exponent.
func PlainRate(v float64) string {
	if v >= 100 || v <= 0 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2-int(math.Floor(math.Log10(v))), 64)
}

// HumanMicros prints a latency given in µs in the unit that reads best:
// 850 µs, 8.6 ms, 1.3 s.
func HumanMicros(us float64) string {
	switch {
	case us >= 1e6:
		return strconv.FormatFloat(us/1e6, 'f', 1, 64) + " s"
	case us >= 1e4:
		return strconv.FormatFloat(us/1e3, 'f', 0, 64) + " ms"
	case us >= 1e3:
		return strconv.FormatFloat(us/1e3, 'f', 1, 64) + " ms"
	}
	return strconv.FormatFloat(us, 'f', 0, 64) + " µs"
}
