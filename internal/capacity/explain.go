package capacity

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// OpFigure is one operation type's figures in a trial: its successful
// operations, their service time (µs: the time in the database, without
// queueing in docbench), the seconds the workers spent in it, and per SLO
// the share of its operations whose service time was over the SLO's bound
// (NaN: the SLO does not count this operation, or is no quantile).
type OpFigure struct {
	Name     string
	Count    int64
	P50, P99 float64
	BusyS    float64
	Over     []float64
}

// Culprit is an operation whose own service time breaks an SLO: its
// operations over the bound alone are more than the SLO allows, whatever
// the others do.
type Culprit struct {
	Op    string
	SLO   string
	Share float64 // of the operations the SLO counts
	P50   float64 // µs, service time
	Over  float64 // the share of all operations the SLO counts that it put over the bound
	Limit float64 // the share the SLO allows
}

// String says a culprit in one line: "QUERY-big-orders: 5% of operations,
// p50 23ms in the database: alone 4.9% of all over p99<5ms's bound, 1%
// allowed".
func (c Culprit) String() string {
	return fmt.Sprintf("%s: %s of operations, p50 %s in the database: alone %s of all over %s's bound, %s allowed",
		c.Op, pct(c.Share), formatUS(c.P50), pct(c.Over), c.SLO, pct(c.Limit))
}

// minCulpritOps is the fewest operations of one type that can name it the
// culprit.
const minCulpritOps = 10

// culprit is the operation of a trial whose own service time breaks a
// quantile SLO by the widest margin, if any. An operation with too few
// operations counted (minCulpritOps) is no evidence.
func culprit(cfg Spec, o Observation) (Culprit, bool) {
	var best Culprit
	found := false
	for i, slo := range cfg.SLOs {
		q := slo.quantile()
		if q == 0 {
			continue
		}
		limit := (100 - q) / 100
		var all float64
		for _, op := range o.Ops {
			if i < len(op.Over) && !math.IsNaN(op.Over[i]) {
				all += float64(op.Count)
			}
		}
		for _, op := range o.Ops {
			if i >= len(op.Over) || math.IsNaN(op.Over[i]) || op.Count < minCulpritOps || all == 0 {
				continue
			}
			over := op.Over[i] * float64(op.Count) / all
			if over > limit && (!found || over/limit > best.Over/best.Limit) {
				best = Culprit{Op: op.Name, SLO: slo.Text, Share: float64(op.Count) / all, P50: op.P50, Over: over, Limit: limit}
				found = true
			}
		}
	}
	return best, found
}

// pooledOps merges the per-operation figures of a rate's looks: counts,
// busy time and the shares over each bound added up; the percentiles are
// the last look's that had the operation.
func pooledOps(obs []Observation) []OpFigure {
	var out []OpFigure
	at := map[string]int{}
	for _, o := range obs {
		for _, op := range o.Ops {
			i, ok := at[op.Name]
			if !ok {
				at[op.Name] = len(out)
				out = append(out, OpFigure{Name: op.Name, Over: make([]float64, len(op.Over))})
				i = len(out) - 1
			}
			p := &out[i]
			n := float64(p.Count + op.Count)
			for k := range p.Over {
				if k < len(op.Over) && n > 0 {
					p.Over[k] = (p.Over[k]*float64(p.Count) + op.Over[k]*float64(op.Count)) / n
				}
			}
			p.Count += op.Count
			p.BusyS += op.BusyS
			p.P50, p.P99 = op.P50, op.P99
		}
	}
	return out
}

// heldBy names the operation that held the workers longest in a trial:
// "QUERY-range held the workers 82% of their busy time (p99 2.3s)"; ""
// when the trial says nothing of its operations.
func heldBy(o Observation) string {
	var top OpFigure
	var busy float64
	for _, op := range o.Ops {
		busy += op.BusyS
		if op.BusyS > top.BusyS {
			top = op
		}
	}
	if busy <= 0 || top.Name == "" {
		return ""
	}
	return fmt.Sprintf("%s held the workers %.0f%% of their busy time (p99 %s)", top.Name, top.BusyS/busy*100, formatUS(top.P99))
}

// culpritMargin is how many times the share an SLO allows an operation
// must put over the bound on its own to end a search: a borderline one may
// be the machine's noise.
const culpritMargin = 2

// anyRateCulprit looks for an operation that breaks the SLO at any rate:
// the two lowest rates tried both failed with the same culprit, at least
// culpritMargin times over what the SLO allows, and neither its time in
// the database (p50) nor its share over the bound shrank at the lower rate
// (within 80 %): a lower rate would not help.
func (s *Search) anyRateCulprit() (Culprit, []float64, bool) {
	var failed []*rate
	for _, r := range s.rates {
		if r.Decision == Fails && r.culprit != nil {
			failed = append(failed, r)
		}
	}
	if len(failed) < 2 {
		return Culprit{}, nil, false
	}
	// the two lowest
	lo, next := failed[0], failed[1]
	for _, r := range failed {
		switch {
		case r.Rate < lo.Rate:
			lo, next = r, lo
		case r != lo && (next == lo || r.Rate < next.Rate):
			next = r
		}
	}
	a, b := lo.culprit, next.culprit
	if a.Op != b.Op || a.SLO != b.SLO || a.P50 < 0.8*b.P50 || a.Over < 0.8*b.Over || a.Over < culpritMargin*a.Limit {
		return Culprit{}, nil, false
	}
	for _, r := range s.rates {
		if r.Rate < lo.Rate && r.Decision != Fails {
			return Culprit{}, nil, false // a lower rate did better
		}
	}
	return *a, []float64{lo.Rate, next.Rate}, true
}

// minOpsFirst is the fewest operations a look must hold for any
// criterion to be decided on it: the most demanding SLO's.
func (s *Search) minOpsFirst() int64 {
	var need int64
	level := s.cfg.lookLevel()
	for _, slo := range s.cfg.SLOs {
		switch q := slo.quantile(); {
		case q > 0:
			need = max(need, MinOperations((100-q)/100, level))
		case slo.Metric == "mean":
			need = max(need, 100)
		}
	}
	return need
}

// tooLow says why rate is not worth a look: reaching the operations a
// decision needs would take more than its looks allow (MaxLooks looks of
// at most maxStretch trials); "" when it is.
func (s *Search) tooLow(r float64) string {
	need := s.minOpsFirst()
	if need == 0 || r <= 0 {
		return ""
	}
	secs := math.Ceil(1.25 * float64(need) / r)
	most := time.Duration(s.cfg.MaxLooks) * maxStretch * s.cfg.Trial
	if time.Duration(secs)*time.Second <= most {
		return ""
	}
	return fmt.Sprintf("the evidence is too thin: at %s ops/s a verdict needs %d operations, %s of looks, over the %s its %d looks may last (%d × --trial each; --trial %s allows it)",
		trimRate(r), need, time.Duration(secs)*time.Second, most, s.cfg.MaxLooks, maxStretch,
		time.Duration(math.Ceil(secs/float64(maxStretch*s.cfg.MaxLooks)))*time.Second)
}

// trimRate prints a rate with the digits a low one needs ("3.2").
func trimRate(r float64) string {
	if r >= 100 {
		return grouped(r)
	}
	return fmt.Sprintf("%.3g", r)
}

// lowestLooked is the lowest rate looked at (+Inf: none).
func (s *Search) lowestLooked() float64 {
	low := math.Inf(1)
	for _, r := range s.rates {
		low = min(low, r.Rate)
	}
	return low
}

// slowRuns says, for the looks at rate r, which of their seconds went
// over what an SLO allows: "trial 5 at 3–5, 9 s (server)"; the client is
// named when the trial was generator-limited.
func (s *Search) slowRuns(r float64) []string {
	var out []string
	for _, rec := range s.records {
		if rec.Stage == ClosedLoop || rec.Rate != r {
			continue
		}
		var spans []string
		start := -1
		flush := func(end int) {
			switch {
			case start < 0:
			case end-start > 1:
				spans = append(spans, fmt.Sprintf("%d–%d", start+1, end))
			default:
				spans = append(spans, fmt.Sprint(start+1))
			}
			start = -1
		}
		for k, w := range rec.Windows {
			if !s.slowWindow(w) {
				flush(k)
			} else if start < 0 {
				start = k
			}
		}
		flush(len(rec.Windows))
		if len(spans) == 0 {
			continue
		}
		who := "server"
		if rec.GeneratorLimited != "" {
			who = "client: " + strings.SplitN(rec.GeneratorLimited, ";", 2)[0]
		}
		out = append(out, fmt.Sprintf("trial %d at %s s (%s)", rec.N, strings.Join(spans, ", "), who))
	}
	return out
}

// slowWindow reports whether a window had more operations over a quantile
// SLO's bound than the SLO allows.
func (s *Search) slowWindow(w Window) bool {
	for i, slo := range s.cfg.SLOs {
		if q := slo.quantile(); q > 0 && i < len(w.SLO) && w.SLO[i].N > 0 && w.SLO[i].Over/float64(w.SLO[i].N) > (100-q)/100 {
			return true
		}
	}
	return false
}

// wideBand is the ratio above which a band says why it is as wide;
// narrowBand the ratio a search with undecided rates in its band keeps
// narrowing it to, in the time it has left.
const (
	wideBand   = 1.5
	narrowBand = 1.3
)

// wideWhy says why a band wider than wideBand is that wide: the rates that
// stayed undecided and the slow windows behind them; "" for a narrower
// band.
func (s *Search) wideWhy(lo, hi float64, und []float64) string {
	if lo <= 0 || hi <= 0 || hi/lo <= wideBand {
		return ""
	}
	var parts []string
	for _, u := range und {
		p := fmt.Sprintf("%s ops/s stayed undecided", grouped(u))
		if r := s.find(u); r != nil && r.unsteady {
			p += " (its figures still trended)"
		}
		if runs := s.slowRuns(u); len(runs) > 0 {
			if len(runs) > 4 {
				runs = append(runs[:4], fmt.Sprintf("%d more", len(runs)-4))
			}
			p += ", slow windows: " + strings.Join(runs, ", ")
		} else {
			p += ", no window over the bound: too few operations or windows to decide"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		parts = append(parts, "no rate between them was looked at before the search ended")
	}
	return fmt.Sprintf("the band is %.1f× wide: %s", hi/lo, strings.Join(parts, "; "))
}
