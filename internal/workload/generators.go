package workload

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The generators below reproduce YCSB 0.17's site.ycsb.generator classes.
// Their state is separate from randomness: every Next takes the caller's
// *rand.Rand, so a generator shared by workers never contends on a random
// source. Generators whose state changes on Next (counters, Sequential) use
// atomics; all others are read-only after construction and may be shared, except
// SkewedLatest, which keeps a per-worker copy (see Clone).

// NumberGenerator is a source of int64 values, YCSB's NumberGenerator.
type NumberGenerator interface {
	Next(r *rand.Rand) int64
}

// Compile-time checks that the generators implement NumberGenerator.
var (
	_ NumberGenerator = (*Counter)(nil)
	_ NumberGenerator = (*AcknowledgedCounter)(nil)
	_ NumberGenerator = (*UniformLong)(nil)
	_ NumberGenerator = (*Zipfian)(nil)
	_ NumberGenerator = (*ScrambledZipfian)(nil)
	_ NumberGenerator = (*SkewedLatest)(nil)
	_ NumberGenerator = (*Hotspot)(nil)
	_ NumberGenerator = (*Exponential)(nil)
	_ NumberGenerator = (*Sequential)(nil)
	_ NumberGenerator = Constant(0)
	_ NumberGenerator = (*Histogram)(nil)
)

// javaAbsLong returns Math.abs(random.nextLong()) as Java computes it: a
// uniformly random int64 made non-negative, except that MinInt64 stays
// negative (probability 2^-64), exactly like Java.
func javaAbsLong(r *rand.Rand) int64 {
	v := int64(r.Uint64())
	if v < 0 {
		v = -v
	}
	return v
}

// Counter is YCSB's CounterGenerator: a shared, atomically incremented
// sequence starting at a given value.
type Counter struct {
	n atomic.Int64
}

// NewCounter returns a Counter whose first value is start.
func NewCounter(start int64) *Counter {
	c := &Counter{}
	c.n.Store(start)
	return c
}

// Next returns the next value of the sequence (r is unused).
func (c *Counter) Next(*rand.Rand) int64 { return c.n.Add(1) - 1 }

// Last returns the last value handed out (start-1 before the first Next).
func (c *Counter) Last() int64 { return c.n.Load() - 1 }

// ackWindowSize is AcknowledgedCounterGenerator.WINDOW_SIZE (1<<20).
const ackWindowSize = 1 << 20

// AcknowledgedCounter is YCSB's AcknowledgedCounterGenerator: a Counter whose
// Last is the highest value v such that every value from the start up to v
// has been acknowledged. Up to 2^20 values may be outstanding.
type AcknowledgedCounter struct {
	Counter
	mu     sync.Mutex
	limit  atomic.Int64
	window [ackWindowSize / 64]atomic.Uint64 // one bit per slot
}

// NewAcknowledgedCounter returns an AcknowledgedCounter whose first value is
// start; Last is start-1 until start is acknowledged.
func NewAcknowledgedCounter(start int64) *AcknowledgedCounter {
	c := &AcknowledgedCounter{}
	c.n.Store(start)
	c.limit.Store(start - 1)
	return c
}

// Last returns the highest contiguously acknowledged value.
func (c *AcknowledgedCounter) Last() int64 { return c.limit.Load() }

// ErrTooManyUnacknowledged is returned by Acknowledge when more than 2^20
// values are outstanding (YCSB: "Too many unacknowledged insertion keys.").
var ErrTooManyUnacknowledged = errors.New("too many unacknowledged insertion keys (window of 1048576)")

// Acknowledge marks v as done and, unless another goroutine is doing so,
// moves Last over the contiguous run of acknowledged values, as YCSB does.
// Unlike YCSB, a value acknowledged while another goroutine held the lock is
// picked up at once rather than by the next Acknowledge.
func (c *AcknowledgedCounter) Acknowledge(v int64) error {
	slot := uint64(v) & (ackWindowSize - 1)
	word, bit := &c.window[slot/64], uint64(1)<<(slot%64)
	if word.Or(bit)&bit != 0 {
		return ErrTooManyUnacknowledged
	}
	for {
		if !c.mu.TryLock() {
			return nil // the holder picks v up
		}
		limit := c.advance()
		c.mu.Unlock()
		// YCSB stops here, so a value acknowledged while the lock was held
		// waited for the next Acknowledge. Look once more so Last never lags.
		s := uint64(limit+1) & (ackWindowSize - 1)
		if c.window[s/64].Load()&(uint64(1)<<(s%64)) == 0 {
			return nil
		}
	}
}

// advance moves the limit over the contiguous acknowledged slots (at most
// one full window) and returns it; c.mu must be held.
func (c *AcknowledgedCounter) advance() int64 {
	index := c.limit.Load() + 1
	for range ackWindowSize {
		s := uint64(index) & (ackWindowSize - 1)
		w, b := &c.window[s/64], uint64(1)<<(s%64)
		if w.Load()&b == 0 {
			break
		}
		w.And(^b)
		index++
	}
	c.limit.Store(index - 1)
	return index - 1
}

// UniformLong is YCSB's UniformLongGenerator: uniform over [lb, ub]
// computed as Math.abs(nextLong()) % (ub-lb+1) + lb.
type UniformLong struct {
	lb, interval int64
}

// NewUniformLong returns a generator uniform over [lb, ub] (ub >= lb).
func NewUniformLong(lb, ub int64) *UniformLong {
	return &UniformLong{lb: lb, interval: ub - lb + 1}
}

// Next returns a uniformly random value in [lb, ub].
func (u *UniformLong) Next(r *rand.Rand) int64 {
	return javaAbsLong(r)%u.interval + u.lb
}

// ZipfianConstant is YCSB's ZipfianGenerator.ZIPFIAN_CONSTANT.
const ZipfianConstant = 0.99

// Zipfian is YCSB's ZipfianGenerator (Gray et al., "Quickly Generating
// Billion-Record Synthetic Databases", SIGMOD 1994): item base is the most
// popular. NextN recomputes zeta incrementally when the item count grows, as
// SkewedLatest needs; that mutates the generator, so a Zipfian used with
// growing counts must not be shared between goroutines. Next alone never
// mutates it.
type Zipfian struct {
	items, base                          int64
	theta, zeta2theta, alpha, zetan, eta float64
	halfPowTheta                         float64 // 1 + 0.5^theta, precomputed
	countForZeta                         int64
}

// NewZipfian returns a Zipfian over [min, max] with ZipfianConstant. It
// computes zeta(max-min+1) up front, which takes O(max-min) time.
func NewZipfian(min, max int64) *Zipfian {
	return NewZipfianConstant(min, max, ZipfianConstant)
}

// NewZipfianConstant is NewZipfian with a given zipfian constant (theta).
func NewZipfianConstant(min, max int64, constant float64) *Zipfian {
	return newZipfianZetan(min, max, constant, zetaStatic(0, max-min+1, constant, 0))
}

func newZipfianZetan(min, max int64, constant, zetan float64) *Zipfian {
	z := &Zipfian{items: max - min + 1, base: min, theta: constant}
	z.zeta2theta = zetaStatic(0, 2, z.theta, 0)
	z.alpha = 1.0 / (1.0 - z.theta)
	z.halfPowTheta = 1.0 + math.Pow(0.5, z.theta)
	z.zetan = zetan
	z.countForZeta = z.items
	z.eta = (1 - math.Pow(2.0/float64(z.items), 1-z.theta)) / (1 - z.zeta2theta/z.zetan)
	return z
}

// zetaStatic is ZipfianGenerator.zetastatic: initial + sum_{i=st}^{n-1} 1/(i+1)^theta.
func zetaStatic(st, n int64, theta, initial float64) float64 {
	sum := initial
	for i := st; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// Next returns a zipfian-distributed value in [min, max].
func (z *Zipfian) Next(r *rand.Rand) int64 { return z.NextN(r, z.items) }

// NextN is ZipfianGenerator.nextLong(itemcount): a value in
// [base, base+itemcount). When itemcount exceeds the count zeta was computed
// for, zeta is extended incrementally (and eta recomputed with the original
// item count, as YCSB does); a smaller itemcount reuses the old zeta.
func (z *Zipfian) NextN(r *rand.Rand, itemcount int64) int64 {
	if itemcount > z.countForZeta {
		z.zetan = zetaStatic(z.countForZeta, itemcount, z.theta, z.zetan)
		z.countForZeta = itemcount
		z.eta = (1 - math.Pow(2.0/float64(z.items), 1-z.theta)) / (1 - z.zeta2theta/z.zetan)
	}
	return z.value(r.Float64(), itemcount)
}

// value maps a uniform u in [0,1) to the zipfian value, the deterministic
// half of nextLong.
func (z *Zipfian) value(u float64, itemcount int64) int64 {
	uz := u * z.zetan
	if uz < 1.0 {
		return z.base
	}
	if uz < z.halfPowTheta {
		return z.base + 1
	}
	return z.base + int64(float64(itemcount)*math.Pow(z.eta*u-z.eta+1, z.alpha))
}

// Scrambled zipfian constants from YCSB's ScrambledZipfianGenerator.
const (
	// ScrambledItemCount is ScrambledZipfianGenerator.ITEM_COUNT.
	ScrambledItemCount = 10000000000
	// ScrambledZetan is ScrambledZipfianGenerator.ZETAN, zeta(ITEM_COUNT, 0.99).
	ScrambledZetan = 26.46902820178302
)

// scrambledBase is the shared, read-only zipfian over [0, ITEM_COUNT] with
// the precomputed zeta that every ScrambledZipfian draws from.
var scrambledBase = newZipfianZetan(0, ScrambledItemCount, ZipfianConstant, ScrambledZetan)

// ScrambledZipfian is YCSB's ScrambledZipfianGenerator: a zipfian over 10^10
// items (with precomputed zeta), hashed with FNVHash64 and folded into
// [min, max], so popular items are spread over the key space. It is
// read-only and safe to share.
type ScrambledZipfian struct {
	min, itemcount int64
}

// NewScrambledZipfian returns a scrambled zipfian over [min, max].
func NewScrambledZipfian(min, max int64) *ScrambledZipfian {
	return &ScrambledZipfian{min: min, itemcount: max - min + 1}
}

// Next returns min + FNVHash64(zipfian value) % itemcount.
func (s *ScrambledZipfian) Next(r *rand.Rand) int64 {
	return s.min + FNVHash64(scrambledBase.Next(r))%s.itemcount
}

// LastValuer is a sequence whose last value can be read, such as Counter and
// AcknowledgedCounter.
type LastValuer interface {
	Last() int64
}

// SkewedLatest is YCSB's SkewedLatestGenerator: values near the basis'
// Last are the most popular (Last - zipfian(Last)). Its zipfian grows with the
// basis, so each goroutine needs its own copy (Clone).
type SkewedLatest struct {
	basis LastValuer
	zipf  Zipfian
}

// NewSkewedLatest returns a SkewedLatest over basis; like YCSB it builds a
// zipfian over basis.Last() items, in O(basis.Last()) time.
func NewSkewedLatest(basis LastValuer) *SkewedLatest {
	n := basis.Last()
	return &SkewedLatest{basis: basis, zipf: *NewZipfian(0, n-1)}
}

// Clone returns an independent copy sharing the basis, for another goroutine.
func (s *SkewedLatest) Clone() *SkewedLatest {
	c := *s
	return &c
}

// Next returns max - zipfian.NextN(max) where max is the basis' Last.
func (s *SkewedLatest) Next(r *rand.Rand) int64 {
	max := s.basis.Last()
	return max - s.zipf.NextN(r, max)
}

// Hotspot is YCSB's HotspotIntegerGenerator: a fraction hotOpn of the
// values fall uniformly in the first hotset fraction of [lb, ub], the rest
// uniformly in the remainder.
type Hotspot struct {
	lb, hotInterval, coldInterval int64
	hotOpn                        float64
}

// NewHotspot returns a Hotspot over [lb, ub]. Unlike YCSB (which prints a
// warning and substitutes 0), it expects fractions in [0,1] and lb <= ub;
// ParseConfig validates them. The hot set has int64((ub-lb+1)*hotset)
// elements.
func NewHotspot(lb, ub int64, hotset, hotOpn float64) *Hotspot {
	interval := ub - lb + 1
	hot := int64(float64(interval) * hotset)
	return &Hotspot{lb: lb, hotInterval: hot, coldInterval: interval - hot, hotOpn: hotOpn}
}

// Next returns a value from the hot set with probability hotOpn, otherwise
// from the cold set.
func (h *Hotspot) Next(r *rand.Rand) int64 {
	if r.Float64() < h.hotOpn {
		return h.lb + javaAbsLong(r)%h.hotInterval
	}
	return h.lb + h.hotInterval + javaAbsLong(r)%h.coldInterval
}

// Exponential is YCSB's ExponentialGenerator: exponentially distributed with
// percentile% of the values below rng.
type Exponential struct {
	gamma float64
}

// NewExponential returns an Exponential where percentile (0-100) percent of
// the values fall below rng: gamma = -ln(1-percentile/100)/rng.
func NewExponential(percentile, rng float64) *Exponential {
	return &Exponential{gamma: -math.Log(1.0-percentile/100.0) / rng}
}

// NextFloat returns -ln(u)/gamma for u uniform in [0,1); it may be +Inf.
func (e *Exponential) NextFloat(r *rand.Rand) float64 {
	return -math.Log(r.Float64()) / e.gamma
}

// Next returns NextFloat truncated toward zero, saturating like Java's
// Double.longValue.
func (e *Exponential) Next(r *rand.Rand) int64 {
	f := e.NextFloat(r)
	if f >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(f)
}

// Mean returns the mean, 1/gamma.
func (e *Exponential) Mean() float64 { return 1 / e.gamma }

// Sequential is YCSB's SequentialGenerator: a shared counter cycling through
// [start, end].
type Sequential struct {
	n               atomic.Int64
	start, interval int64
}

// NewSequential returns a Sequential over [start, end].
func NewSequential(start, end int64) *Sequential {
	return &Sequential{start: start, interval: end - start + 1}
}

// Next returns start + (counter++ % (end-start+1)).
func (s *Sequential) Next(*rand.Rand) int64 {
	return s.start + (s.n.Add(1)-1)%s.interval
}

// Constant is YCSB's ConstantIntegerGenerator.
type Constant int64

// Next returns the constant.
func (c Constant) Next(*rand.Rand) int64 { return int64(c) }

// Histogram is YCSB's HistogramGenerator: Buckets[i] is the weight of
// values of i+1 blocks of BlockSize bytes (see Next for YCSB's exact mapping).
type Histogram struct {
	BlockSize int64
	Buckets   []int64
	area      int64
	weighted  int64
}

// NewHistogram returns a Histogram with the given block size and buckets;
// the buckets' total weight must be positive and fit in an int32 (Java uses
// nextInt(area)).
func NewHistogram(blockSize int64, buckets []int64) (*Histogram, error) {
	h := &Histogram{BlockSize: blockSize, Buckets: buckets}
	for i, b := range buckets {
		if b < 0 {
			return nil, fmt.Errorf("bucket %d has negative weight %d", i, b)
		}
		h.area += b
		h.weighted += int64(i) * b
	}
	if h.area <= 0 || h.area > math.MaxInt32 {
		return nil, fmt.Errorf("total weight %d out of range (1..%d)", h.area, math.MaxInt32)
	}
	return h, nil
}

// ReadHistogram parses YCSB's histogram file format: a first line
// "BlockSize<TAB>n", then lines "bucket<TAB>weight". Like YCSB's
// ArrayList.add(index, value), each bucket is inserted at its index, so
// buckets must be listed from 0 up. Blank lines are ignored. name is used in
// error messages.
func ReadHistogram(rd io.Reader, name string) (*Histogram, error) {
	sc := bufio.NewScanner(rd)
	line := 0
	fields := func() ([]int64, error) {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) < 2 {
			return nil, fmt.Errorf("%s:%d: want two tab-separated fields", name, line)
		}
		out := make([]int64, 2)
		for i := range out {
			v, err := strconv.ParseInt(strings.TrimSpace(parts[i]), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %q is not an integer", name, line, parts[i])
			}
			out[i] = v
		}
		return out, nil
	}
	var blockSize int64
	var buckets []int64
	for sc.Scan() {
		line++
		if line == 1 {
			parts := strings.Split(sc.Text(), "\t")
			if len(parts) < 2 || parts[0] != "BlockSize" {
				return nil, fmt.Errorf("%s:1: first line must be \"BlockSize<TAB>n\"", name)
			}
			v, err := strconv.ParseInt(strings.TrimSpace(parts[1]), 10, 32)
			if err != nil || v <= 0 {
				return nil, fmt.Errorf("%s:1: block size %q is not a positive integer", name, parts[1])
			}
			blockSize = v
			continue
		}
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		f, err := fields()
		if err != nil {
			return nil, err
		}
		if f[0] < 0 || f[0] > int64(len(buckets)) {
			return nil, fmt.Errorf("%s:%d: bucket %d out of order (have %d buckets)", name, line, f[0], len(buckets))
		}
		buckets = slices.Insert(buckets, int(f[0]), f[1])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: empty histogram file", name)
	}
	h, err := NewHistogram(blockSize, buckets)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return h, nil
}

// Next returns a value drawn from the histogram, as YCSB computes it.
func (h *Histogram) Next(r *rand.Rand) int64 { return h.value(r.Int64N(h.area)) }

// value is the deterministic half of Next for number in [0, area).
func (h *Histogram) value(number int64) int64 {
	i := 0
	for ; i < len(h.Buckets)-1; i++ {
		number -= h.Buckets[i]
		if number <= 0 {
			return int64(i+1) * h.BlockSize
		}
	}
	return int64(i) * h.BlockSize
}

// Mean returns YCSB's HistogramGenerator.mean: BlockSize * sum(i*b[i]) / sum(b[i]).
func (h *Histogram) Mean() float64 {
	return float64(h.BlockSize) * float64(h.weighted) / float64(h.area)
}

// Discrete is YCSB's DiscreteGenerator: picks one of several values with
// probability proportional to its weight, tested in the order added.
type Discrete struct {
	values []int64
	probs  []float64 // weight/sum, as YCSB computes on every call
	total  float64
	weight []float64
}

// Add appends value with the given weight (> 0).
func (d *Discrete) Add(weight float64, value int64) {
	d.values = append(d.values, value)
	d.weight = append(d.weight, weight)
	d.total += weight
	d.probs = d.probs[:0]
	for _, w := range d.weight {
		d.probs = append(d.probs, w/d.total)
	}
}

// Len returns the number of values.
func (d *Discrete) Len() int { return len(d.values) }

// Next returns a value chosen by weight. It panics if no value was added.
func (d *Discrete) Next(r *rand.Rand) int64 { return d.value(r.Float64()) }

// value is the deterministic half of Next for u uniform in [0,1).
func (d *Discrete) value(u float64) int64 {
	for i, p := range d.probs {
		if u < p {
			return d.values[i]
		}
		u -= p
	}
	// YCSB throws AssertionError here; only rounding can get here.
	return d.values[len(d.values)-1]
}
