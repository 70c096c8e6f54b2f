// Package capacity searches the highest rate a target sustains with its
// latency SLOs held: an outer loop of independent fixed-rate trials (a
// closed-loop probe, a geometric bracket, a bisection to a precision, a
// confirmation), each judged on its own. The search is a pure state
// machine: it is told each trial's figures and answers with the next trial
// or the verdict; running trials is the caller's (docs/capacity.md).
package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/docbench/docbench/internal/report"
)

// SLO is a latency bound on a trial: a quantile (or mean/max) of all
// operations, or of one, below a value. It is a report.Threshold limited
// to latency metrics compared with < or <=.
type SLO struct{ report.Threshold }

// ParseSLO reads "p99<5ms", "READ.p99<2ms" or the threshold form
// "p99(READ)<2ms"; the error is one line.
func ParseSLO(text string) (SLO, error) {
	s := strings.TrimSpace(text)
	// OP.METRIC<VALUE is the threshold METRIC(OP)<VALUE.
	if i := strings.IndexAny(s, "<>=!"); i > 0 {
		if op, metric, ok := strings.Cut(s[:i], "."); ok && !strings.Contains(s[:i], "(") && !isQuantile(op) {
			s = metric + "(" + op + ")" + s[i:]
		}
	}
	t, err := report.ParseThreshold(s)
	if err != nil {
		return SLO{}, fmt.Errorf("--slo %q: %v", text, strings.TrimPrefix(err.Error(), fmt.Sprintf("threshold %q: ", s)))
	}
	t.Text = strings.TrimSpace(text)
	switch {
	case t.Metric == "throughput" || t.Metric == "errors":
		return SLO{}, fmt.Errorf("--slo %q: an SLO bounds latency (p50…p99.99, mean, max); errors are --max-error-rate", text)
	case t.Cmp != "<" && t.Cmp != "<=":
		return SLO{}, fmt.Errorf("--slo %q: an SLO is an upper bound: write < or <=", text)
	case t.Value <= 0:
		return SLO{}, fmt.Errorf("--slo %q: the bound must be above zero", text)
	}
	return SLO{t}, nil
}

// ParseShare reads a share written as a percentage ("0.1%") or a fraction
// ("0.001"), between 0 and 1.
func ParseShare(s string) (float64, error) {
	p, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	v, err := strconv.ParseFloat(p, 64)
	if pct {
		v /= 100
	}
	if err != nil || !(v >= 0 && v <= 1) {
		return 0, fmt.Errorf("%q: want a share between 0%% and 100%% (e.g. 5%% or 0.05)", s)
	}
	return v, nil
}

// isQuantile tells "p99" and "p99.9" (whose dot is not an operation's).
func isQuantile(s string) bool {
	return len(s) > 1 && s[0] == 'p' && strings.Trim(s[1:], "0123456789") == ""
}

// holds reports whether a measured value (µs) meets the SLO.
func (s SLO) holds(v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	if s.Cmp == "<=" {
		return v <= s.Value
	}
	return v < s.Value
}

// quantile is the SLO's quantile (99 for p99), or 0 for mean, min, max.
func (s SLO) quantile() float64 {
	if len(s.Metric) < 2 || s.Metric[0] != 'p' {
		return 0
	}
	q, err := strconv.ParseFloat(s.Metric[1:], 64)
	if err != nil {
		return 0
	}
	return q
}

// tightest is the smallest bound (µs) of slos.
func tightest(slos []SLO) float64 {
	b := math.Inf(1)
	for _, s := range slos {
		b = min(b, s.Value)
	}
	return b
}
