package capacity

import (
	"fmt"
	"math"
)

// Ladder is a sharded search's fixed trials: rates from lo to hi (over all
// shards) in geometric steps of the precision, ascending. Shards cannot
// bisect independently (each sees only its share of the latency), so each
// runs every rung at rate/N and the merge judges them.
func Ladder(lo, hi, precision float64) ([]float64, error) {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return nil, fmt.Errorf("--ladder %g:%g: want LOW:HIGH with 0 < LOW ≤ HIGH (ops/s over all shards)", lo, hi)
	}
	if precision <= 0 {
		precision = DefaultPrecision
	}
	var out []float64
	for r := lo; r <= hi*(1+1e-9); r *= 1 + precision {
		out = append(out, r)
		if len(out) > 200 {
			return nil, fmt.Errorf("--ladder %g:%g at a precision of %g%%: over 200 rungs; narrow it or coarsen --precision", lo, hi, precision*100)
		}
	}
	if last := out[len(out)-1]; last < hi*(1-1e-9) {
		out = append(out, hi)
	}
	return out, nil
}

// JudgeLadder judges a ladder's trials (observations in rung order): the
// sustainable rate is the highest rung below the first failing one. A
// trending rung is rejected (a ladder cannot extend one trial); a rung that
// passes above a failing one is noted, not counted.
func JudgeLadder(cfg Config, rates []float64, obs []Observation) (Verdict, []Judgement, error) {
	if err := cfg.Validate(); err != nil {
		return Verdict{}, nil, err
	}
	js := make([]Judgement, len(obs))
	v := Verdict{Limit: "slo"}
	first := -1
	for i, o := range obs {
		j := Judge(cfg, rates[i], o)
		if j.Pass && j.Trending != "" {
			j.Pass, j.Unsteady = false, true
			j.Why = "not steady (" + j.Trending + ")"
		}
		js[i] = j
		if !j.Pass && first < 0 {
			first = i
		}
	}
	switch {
	case len(obs) == 0:
		v.Limit, v.Absent = "no passing rate", "no trial measured"
	case first == 0:
		v.Limit, v.Absent = "no passing rate", fmt.Sprintf("the lowest rung (%.0f ops/s) failed: %s", rates[0], js[0].Why)
		v.LowestFail = rates[0]
		if g := js[0].GeneratorLimited; g != "" {
			v.Limit, v.GeneratorLimited = "generator", fmt.Sprintf("at %.0f ops/s: %s", rates[0], g)
		}
	case first < 0:
		v.Rate = rates[len(obs)-1]
		v.Limit = "ladder top"
	default:
		v.Rate, v.LowestFail = rates[first-1], rates[first]
		if g := js[first].GeneratorLimited; g != "" {
			v.Limit, v.GeneratorLimited = "generator", fmt.Sprintf("at %.0f ops/s: %s", rates[first], g)
		}
	}
	return v, js, nil
}
