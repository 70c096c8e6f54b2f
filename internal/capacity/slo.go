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
)

// SLO is a latency bound on a trial: a quantile (p99, p99.9), the mean or
// the max of all operations, or of one, under a bound. engine.ParseSLO
// reads it from its text ("p99<5ms", "READ.p99<2ms").
type SLO struct {
	Text      string  // as written
	Metric    string  // p50 … p99.99, mean, max
	Op        string  // the operation's name; "" = all
	Inclusive bool    // <= rather than <
	Bound     float64 // µs
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

// holds reports whether a measured value (µs) meets the SLO.
func (s SLO) holds(v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	if s.Inclusive {
		return v <= s.Bound
	}
	return v < s.Bound
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
		b = min(b, s.Bound)
	}
	return b
}
