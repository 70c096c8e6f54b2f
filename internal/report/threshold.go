package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/docbench/docbench/internal/measure"
)

// Threshold is a pass/fail criterion on a result, written as k6 users
// write them: METRIC[(OPERATION)] COMPARATOR VALUE, for example
//
//	p99(READ)<5ms   mean<800us   max(UPDATE)<=1s
//	throughput>10000   throughput(READ)>=5000
//	errors<0.1%   errors(UPDATE)<=0.01
//
// Latency metrics are p50, p90, p95, p99, p99.9, p99.99, mean, min and
// max, read from the merged histograms: response time from the intended
// start under a target rate, service time otherwise. A bare latency value
// is in milliseconds, as in k6. throughput counts successful operations
// per second; errors is the share of failed operations (a bare number is a
// fraction, 0.001 = 0.1%). Without an operation the metric covers all of
// them.
type Threshold struct {
	Text   string  // as written
	Metric string  // p99, mean, throughput, errors, …
	Op     string  // operation name; "" = all
	Cmp    string  // <, <=, >, >=, ==
	Value  float64 // µs for latencies, ops/s, or a share for errors
}

var latencyMetrics = map[string]float64{ // quantile; <0 for mean/min/max
	"p50": 50, "p90": 90, "p95": 95, "p99": 99, "p99.9": 99.9, "p99.99": 99.99,
	"mean": -1, "min": -2, "max": -3,
}

// ParseThreshold reads one threshold; the error says what is wrong in one
// line.
func ParseThreshold(text string) (Threshold, error) {
	t := Threshold{Text: strings.TrimSpace(text)}
	s := strings.ReplaceAll(t.Text, " ", "")
	bad := func(format string, args ...any) (Threshold, error) {
		return Threshold{}, fmt.Errorf("threshold %q: %s", text, fmt.Sprintf(format, args...))
	}
	i := strings.IndexAny(s, "<>=!")
	if i < 0 {
		return bad("no comparison: write e.g. 'p99(READ)<5ms', 'throughput>10000' or 'errors<0.1%%'")
	}
	lhs, rest := s[:i], s[i:]
	for _, c := range []string{"<=", ">=", "==", "<", ">"} {
		if strings.HasPrefix(rest, c) {
			t.Cmp, rest = c, rest[len(c):]
			break
		}
	}
	if t.Cmp == "" || rest == "" || strings.ContainsAny(rest, "<>=!") {
		return bad("want one of <, <=, >, >=, == followed by a value")
	}
	t.Metric = strings.ToLower(lhs)
	if open := strings.IndexByte(lhs, '('); open >= 0 {
		if !strings.HasSuffix(lhs, ")") || open == len(lhs)-2 {
			return bad("an operation is written in parentheses: p99(READ)")
		}
		t.Metric, t.Op = strings.ToLower(lhs[:open]), strings.ToUpper(lhs[open+1:len(lhs)-1])
		if strings.ContainsAny(t.Op, "()") {
			return bad("an operation is written in parentheses: p99(READ)")
		}
	}
	var err error
	switch _, lat := latencyMetrics[t.Metric]; {
	case lat:
		t.Value, err = parseLatency(rest)
		t.Value /= 1e3 // µs, as results carry latencies
	case t.Metric == "throughput":
		t.Value, err = parseNumber(strings.TrimSuffix(rest, "/s"))
	case t.Metric == "errors":
		if p, ok := strings.CutSuffix(rest, "%"); ok {
			t.Value, err = parseNumber(p)
			t.Value /= 100
		} else {
			t.Value, err = parseNumber(rest)
		}
		if err == nil && t.Value > 1 {
			err = fmt.Errorf("a share is at most 100%% (write 0.1%% or 0.001)")
		}
	default:
		return bad("unknown metric %q: want p50, p90, p95, p99, p99.9, p99.99, mean, min, max, throughput or errors", t.Metric)
	}
	if err != nil {
		return bad("%v", err)
	}
	return t, nil
}

func parseNumber(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v != v || v > 1e18 {
		return 0, fmt.Errorf("%q is not a non-negative number", s)
	}
	return v, nil
}

// parseLatency reads 5ms, 800us, 1.5s; a bare number is milliseconds.
func parseLatency(s string) (float64, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if v < 0 || v != v || v > 1e12 {
			return 0, fmt.Errorf("%q is not a latency", s)
		}
		return v * 1e6, nil
	}
	d, err := time.ParseDuration(strings.ReplaceAll(s, "µ", "u"))
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a latency: write e.g. 5ms, 800us or 1.5s", s)
	}
	return float64(d), nil
}

// Evaluate measures the threshold on r.
func (t Threshold) Evaluate(r *Result) ThresholdResult {
	tr := ThresholdResult{Threshold: t.Text}
	v, unit, absent := t.measure(r)
	tr.Unit, tr.Absent = unit, absent
	if absent == "" {
		tr.Value = v
		switch t.Cmp {
		case "<":
			tr.Pass = v < t.Value
		case "<=":
			tr.Pass = v <= t.Value
		case ">":
			tr.Pass = v > t.Value
		case ">=":
			tr.Pass = v >= t.Value
		case "==":
			tr.Pass = v == t.Value
		}
	}
	return tr
}

// Measured formats the measured value with its unit, or why it is absent.
func (tr ThresholdResult) Measured() string {
	if tr.Absent != "" {
		return "absent: " + tr.Absent
	}
	switch tr.Unit {
	case "us":
		return time.Duration(tr.Value * 1e3).String()
	case "share":
		return percent(tr.Value)
	}
	return strconv.FormatFloat(tr.Value, 'f', 1, 64) + " " + tr.Unit
}

func (t Threshold) ops(r *Result) ([]Op, string) {
	if t.Op == "" {
		return r.Ops, ""
	}
	for _, op := range r.Ops {
		if op.Name == t.Op {
			return []Op{op}, ""
		}
	}
	return nil, fmt.Sprintf("no %s operation in this result", t.Op)
}

// measure returns the value (µs for latencies, a share, ops/s), its unit,
// or why there is none.
func (t Threshold) measure(r *Result) (float64, string, string) {
	ops, absent := t.ops(r)
	switch t.Metric {
	case "throughput":
		if absent != "" {
			return 0, "ops/s", absent
		}
		if t.Op == "" {
			return r.Throughput, "ops/s", ""
		}
		return ops[0].Throughput, "ops/s", ""
	case "errors":
		if absent != "" {
			return 0, "share", absent
		}
		if t.Op == "" {
			return r.ErrorShare, "share", ""
		}
		return ops[0].ErrorShare, "share", ""
	}
	if absent != "" {
		return 0, "us", absent
	}
	merged := measure.NewHistogram()
	for _, op := range ops {
		l := op.Response
		if l == nil {
			l = op.Service
		}
		if l == nil || l.Histogram == "" {
			continue
		}
		h, err := DecodeHistogram(l.Histogram)
		if err != nil {
			return 0, "us", fmt.Sprintf("%s: histogram unreadable: %v", op.Name, err)
		}
		merged.Merge(h)
	}
	if merged.TotalCount() == 0 {
		return 0, "us", "no successful operation was timed"
	}
	var ns float64
	switch q := latencyMetrics[t.Metric]; q {
	case -1:
		ns = merged.Mean()
	case -2:
		ns = float64(merged.Min())
	case -3:
		ns = float64(merged.Max())
	default:
		ns = float64(merged.ValueAtQuantile(q))
	}
	return ns / 1e3, "us", ""
}

// CheckThresholds evaluates every threshold on r and records the results
// in r.Thresholds; it reports whether all passed.
func CheckThresholds(r *Result, ts []Threshold) bool {
	ok := true
	for _, t := range ts {
		tr := t.Evaluate(r)
		ok = ok && tr.Pass
		r.Thresholds = append(r.Thresholds, tr)
	}
	return ok
}
