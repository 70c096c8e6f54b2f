package capacity

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Tally is what one window of a trial counted for one criterion: N
// operations, of which Over were over the bound (for a mean: Over is the
// sum of their latencies, µs).
type Tally struct {
	N    int64
	Over float64
}

// Estimate is a share (or a mean) estimated from the windows of one or more
// trials, with one-sided confidence bounds. Slow operations come in bursts,
// so the windows are not independent samples: the estimate groups
// consecutive windows of a trial into batches until their lag-1
// autocorrelation is no longer significant (batch means), inflates the
// variance by what correlation remains, and turns the variance into an
// effective number of operations for an exact binomial interval (Korn and
// Graubard's interval for clustered samples).
type Estimate struct {
	N     int64   // operations counted
	Over  float64 // operations over the bound (a mean: the sum of latencies)
	Value float64 // the pooled share (or mean)
	// Lo and Hi are the one-sided lower and upper bounds at Level.
	Lo, Hi float64
	Level  float64
	// Batches are the independent samples the variance rests on, of Batch
	// consecutive windows each; Lag1 is their remaining lag-1
	// autocorrelation; Design the variance over the binomial's (≥ 1: how
	// much the bursts widen the interval; 1 when nothing was over).
	Batches, Batch int
	Lag1, Design   float64
}

// Windows in a batch at least this many batches remain; the batch size
// doubles only while it does.
const minBatches = 8

// batch groups each trial's windows into batches of b consecutive windows
// (the remainder joins the trial's last batch: no operation is left out).
func batch(trials [][]Tally, b int) [][]Tally {
	out := make([][]Tally, 0, len(trials))
	for _, ws := range trials {
		k := max(1, len(ws)/b)
		if len(ws) == 0 {
			k = 0
		}
		bs := make([]Tally, k)
		for i, w := range ws {
			j := min(i/b, k-1)
			bs[j].N += w.N
			bs[j].Over += w.Over
		}
		out = append(out, bs)
	}
	return out
}

// residuals are each batch's Over − value·N, trial by trial.
func residuals(bs [][]Tally, value float64) [][]float64 {
	out := make([][]float64, len(bs))
	for i, t := range bs {
		for _, b := range t {
			out[i] = append(out[i], b.Over-value*float64(b.N))
		}
	}
	return out
}

// lag1 is the lag-1 autocorrelation of the residuals, pairs taken within a
// trial (trials are apart in time); 0 when there are no pairs or no spread.
func lag1(rs [][]float64) float64 {
	var num, den float64
	pairs := 0
	for _, r := range rs {
		for i, e := range r {
			den += e * e
			if i > 0 {
				num += e * r[i-1]
				pairs++
			}
		}
	}
	if pairs == 0 || den == 0 {
		return 0
	}
	return num / den
}

func count(rs [][]float64) int {
	n := 0
	for _, r := range rs {
		n += len(r)
	}
	return n
}

// spread groups the windows into batches until their lag-1 autocorrelation
// is not significantly positive (or fewer than 2·minBatches batches would
// remain), and returns the variance of the ratio estimator (Σ residual² ·
// B/(B−1) / N², inflated by (1+ρ)/(1−ρ) for the correlation ρ left), the
// batches, their size and ρ. The variance is NaN with fewer than 2 batches.
func spread(trials [][]Tally, value float64, n int64) (variance float64, batches, size int, rho float64) {
	size = 1
	bs := batch(trials, size)
	rs := residuals(bs, value)
	rho = lag1(rs)
	for b := count(rs); rho > 1.645/math.Sqrt(float64(b)) && b >= 2*minBatches; b = count(rs) {
		size *= 2
		bs = batch(trials, size)
		rs = residuals(bs, value)
		rho = lag1(rs)
	}
	batches = count(rs)
	if batches < 2 {
		return math.NaN(), batches, size, 0
	}
	var ss float64
	for _, r := range rs {
		for _, e := range r {
			ss += e * e
		}
	}
	variance = ss * float64(batches) / float64(batches-1) / (float64(n) * float64(n))
	if rho > 0 {
		rho = min(rho, 0.9)
		variance *= (1 + rho) / (1 - rho)
	}
	return variance, batches, size, rho
}

func total(trials [][]Tally) (n int64, over float64) {
	for _, ws := range trials {
		for _, w := range ws {
			n += w.N
			over += w.Over
		}
	}
	return n, over
}

// Share estimates the share of operations over a bound from the windows of
// trials (each trial's windows in time order), with one-sided bounds at
// level. With nothing over, the bound is the exact binomial one on all
// operations (nothing shows a burst); with fewer than two batches and
// something over, nothing can be said of the bursts and the bounds are 0
// and 1.
func Share(trials [][]Tally, level float64) Estimate {
	e, variance, ok := pooled(trials, level, 1)
	if !ok {
		return e
	}
	n, over, p, b := e.N, e.Over, e.Value, e.Batches
	neff := float64(n)
	if over > 0 {
		if math.IsNaN(variance) {
			return e
		}
		binomial := p * (1 - p) / float64(n)
		if binomial > 0 && variance > binomial {
			e.Design = variance / binomial
			// Korn and Graubard: the effective sample size, shrunk by the
			// degrees of freedom of the variance estimate.
			neff = float64(n) / e.Design
			z := distuv.UnitNormal.Quantile(level)
			t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(b - 1)}.Quantile(level)
			neff *= (z / t) * (z / t)
		}
	}
	e.Lo, e.Hi = clopperPearson(p*neff, neff, level)
	return e
}

// pooled is the pooled estimate of the trials' windows (Over/N), its
// bounds not yet set (0 and hi), with the batch-means variance of spread
// (NaN with fewer than two batches); ok is false when they counted no
// operation.
func pooled(trials [][]Tally, level, hi float64) (e Estimate, variance float64, ok bool) {
	n, over := total(trials)
	e = Estimate{N: n, Over: over, Level: level, Hi: hi, Design: 1}
	if n == 0 {
		return e, math.NaN(), false
	}
	e.Value = over / float64(n)
	variance, e.Batches, e.Batch, e.Lag1 = spread(trials, e.Value, n)
	return e, variance, true
}

// clopperPearson is the exact binomial interval's one-sided bounds at
// level for x successes in n trials (both may be effective, non-integer).
func clopperPearson(x, n, level float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	lo, hi = 0, 1
	if x > 0 {
		lo = distuv.Beta{Alpha: x, Beta: n - x + 1}.Quantile(1 - level)
	}
	if x < n {
		hi = distuv.Beta{Alpha: x + 1, Beta: n - x}.Quantile(level)
	}
	return lo, hi
}

// Mean estimates a mean latency from windows whose Over holds the sum of
// their latencies, with one-sided bounds at level: batch means and
// Student's t on their degrees of freedom. Fewer than two batches give the
// bounds 0 and +Inf.
func Mean(trials [][]Tally, level float64) Estimate {
	e, variance, ok := pooled(trials, level, math.Inf(1))
	if !ok || math.IsNaN(variance) {
		return e
	}
	m, b := e.Value, e.Batches
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(b - 1)}.Quantile(level)
	se := math.Sqrt(variance)
	e.Lo, e.Hi = max(0, m-t*se), m+t*se
	return e
}

// MinOperations is the fewest operations on which a share under limit can
// be shown at level: with none over, the exact upper bound is
// 1 − (1 − level)^(1/N), under limit only from −ln(1 − level)/limit
// operations on (300 for p99 at 95 %). Below it the evidence is too thin
// to decide either way; never fewer than 100.
func MinOperations(limit, level float64) int64 {
	if limit <= 0 {
		return math.MaxInt64
	}
	return max(100, int64(math.Ceil(-math.Log(1-level)/limit)))
}
