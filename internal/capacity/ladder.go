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

// JudgeLadder judges a ladder's trials (observations in rung order), each
// rung on its own windows at the search's confidence (a rung is one look:
// it cannot be looked at again). The band's failing edge is the first rung
// that failed with confidence, its holding edge the highest rung below it
// that held; the rungs between are undecided, and so is a rung that still
// trended (a ladder cannot look at it again).
func JudgeLadder(cfg Spec, rates []float64, obs []Observation) (Verdict, []Judgement, error) {
	if err := cfg.Validate(); err != nil {
		return Verdict{}, nil, err
	}
	js := make([]Judgement, len(obs))
	v := Verdict{Limit: "slo"}
	first := -1
	rs := make([]*rate, len(obs))
	for i, o := range obs {
		j := Judge(cfg, rates[i], o)
		r := &rate{RateVerdict: RateVerdict{Rate: rates[i], Looks: 1}, obs: []Observation{o}}
		d := cfg.decide(r, cfg.Confidence)
		switch {
		case d != Fails && j.Trending != "":
			d, j.Unsteady = Undecided, true
			r.Evidence = "not steady (" + j.Trending + "); " + r.Evidence
		case d == Pending:
			d = Undecided
		}
		if d == Fails && j.GeneratorLimited != "" {
			r.Generator = j.GeneratorLimited
		}
		r.Decision = d
		j.Decision, j.Evidence, j.Criteria = d, r.Evidence, r.Criteria
		js[i], rs[i] = j, r
		if d == Fails && first < 0 {
			first = i
		}
	}
	top := len(obs)
	if first >= 0 {
		top = first
		v.Fails = rates[first]
	}
	for i := range top {
		if rs[i].Decision == Holds {
			v.Holds = rates[i]
		}
	}
	for i := range top {
		if rs[i].Decision == Undecided && rates[i] > v.Holds {
			v.Undecided = append(v.Undecided, rates[i])
		}
	}
	for _, r := range rs {
		v.Rates = append(v.Rates, r.RateVerdict)
	}
	switch {
	case len(obs) == 0:
		v.Limit, v.Absent = "no passing rate", "no trial measured"
	case v.Holds == 0:
		v.Limit, v.Absent = "no passing rate", fmt.Sprintf("no rung held the SLO with %s confidence", pct(cfg.Confidence))
		if first == 0 {
			v.Absent = fmt.Sprintf("the lowest rung (%.0f ops/s) failed: %s", rates[0], rs[0].Evidence)
		}
	case len(v.Undecided) > 0:
		v.Limit = "noise"
	case first < 0:
		v.Limit = "ladder top"
	}
	if first >= 0 && rs[first].Generator != "" {
		v.Limit, v.GeneratorLimited = "generator", fmt.Sprintf("at %.0f ops/s: %s", rates[first], rs[first].Generator)
	}
	return v, js, nil
}
