package workload

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Reference numbers marked "YCSB 0.17.0" were produced by running
// site.ycsb:core:0.17.0 (Maven Central) under OpenJDK 17 with a small Java
// program: zipfian parameters were read by reflection from
// site.ycsb.generator.ZipfianGenerator instances (the generator inside a
// ScrambledZipfianGenerator for the scrambled case), frequencies come from
// 10^7 draws of the Java generators, and the AcknowledgedCounterGenerator
// sequence from calling it directly. Java's Math.pow may differ from Go's
// math.Pow in the last bit, so parameters are compared with a relative
// tolerance of 1e-12.

func testRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

func closeRel(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }

func TestZipfianParamsYCSB(t *testing.T) {
	grown := NewZipfian(0, 998) // ZipfianGenerator(999)
	grown.NextN(testRand(), 1500)
	for _, tc := range []struct {
		name        string
		z           *Zipfian
		zetan, eta  float64
		countForZet int64
	}{
		{"ZipfianGenerator(1000)", NewZipfian(0, 999), 7.728953217284729, 0.07480608670689805, 1000},
		{"ZipfianGenerator(1,100)", NewZipfian(1, 100), 5.294568831377164, 0.05357974299304715, 100},
		{"ZipfianGenerator(999).nextLong(1500)", grown, 8.164121812765377, 0.07384383788844444, 1500},
		{"ScrambledZipfianGenerator.gen", scrambledBase, 26.46902820178302, 0.21220003380967406, 10000000001},
	} {
		z := tc.z
		if !closeRel(z.zetan, tc.zetan) || !closeRel(z.eta, tc.eta) || z.countForZeta != tc.countForZet ||
			!closeRel(z.alpha, 99.99999999999991) || !closeRel(z.zeta2theta, 1.5034777750283594) {
			t.Errorf("%s: zetan=%v eta=%v alpha=%v zeta2theta=%v countforzeta=%d; want zetan=%v eta=%v countforzeta=%d",
				tc.name, z.zetan, z.eta, z.alpha, z.zeta2theta, z.countForZeta, tc.zetan, tc.eta, tc.countForZet)
		}
	}
}

func TestZipfianValue(t *testing.T) {
	z := NewZipfian(10, 1009)
	// uz < 1 → base; uz < 1+0.5^theta → base+1 (theta=0.99).
	if v := z.value(0, 1000); v != 10 {
		t.Errorf("value(0) = %d", v)
	}
	if v := z.value(0.99/z.zetan, 1000); v != 10 {
		t.Errorf("value(just below 1/zetan) = %d", v)
	}
	if v := z.value(1.01/z.zetan, 1000); v != 11 {
		t.Errorf("value(just above 1/zetan) = %d", v)
	}
	r := testRand()
	for range 100000 {
		if v := z.Next(r); v < 10 || v > 1009 {
			t.Fatalf("Next out of range: %d", v)
		}
	}
}

// frequencies draws n values from next and returns each value's share.
func frequencies(n int, size int64, next func() int64) []float64 {
	c := make([]float64, size)
	for range n {
		c[next()]++
	}
	for i := range c {
		c[i] /= float64(n)
	}
	return c
}

func checkFreq(t *testing.T, name string, got []float64, want map[int]float64, tol float64) {
	t.Helper()
	for k, w := range want {
		if math.Abs(got[k]-w) > tol {
			t.Errorf("%s: frequency of %d = %.5f, YCSB 0.17.0 gives %.5f", name, k, got[k], w)
		}
	}
}

const nDraws = 1_000_000

func TestZipfianShape(t *testing.T) {
	r := testRand()
	z := NewZipfian(0, 999)
	got := frequencies(nDraws, 1000, func() int64 { return z.Next(r) })
	// YCSB 0.17.0: ZipfianGenerator(0, 999), 10^7 draws.
	checkFreq(t, "zipfian", got, map[int]float64{0: 0.12946, 1: 0.06521, 2: 0.05109, 3: 0.03640, 4: 0.02829}, 0.002)
	// Analytically, P(0) = 1/zeta(1000).
	if math.Abs(got[0]-1/z.zetan) > 0.002 {
		t.Errorf("P(0) = %v, want 1/zetan = %v", got[0], 1/z.zetan)
	}
}

func TestScrambledZipfianShape(t *testing.T) {
	r := testRand()
	s := NewScrambledZipfian(0, 999)
	got := frequencies(nDraws, 1000, func() int64 { return s.Next(r) })
	// YCSB 0.17.0: ScrambledZipfianGenerator(0, 999), 10^7 draws. Item 211 is
	// fnvhash64(0) % 1000, the image of the most popular zipfian item.
	checkFreq(t, "scrambled zipfian", got, map[int]float64{211: 0.03887, 620: 0.02015, 393: 0.01647, 802: 0.01204, 769: 0.00956}, 0.0015)
	if FNVHash64(0)%1000 != 211 || FNVHash64(1)%1000 != 620 {
		t.Error("popular items are not the hashes of 0 and 1")
	}
	s2 := NewScrambledZipfian(5000, 5009)
	for range 10000 {
		if v := s2.Next(r); v < 5000 || v > 5009 {
			t.Fatalf("out of range: %d", v)
		}
	}
}

func TestSkewedLatestShape(t *testing.T) {
	r := testRand()
	ack := NewAcknowledgedCounter(1000)
	l := NewSkewedLatest(ack)
	got := frequencies(nDraws, 1000, func() int64 { return l.Next(r) })
	// YCSB 0.17.0: SkewedLatestGenerator(AcknowledgedCounterGenerator(1000)).
	checkFreq(t, "latest", got, map[int]float64{999: 0.12946, 998: 0.06519, 997: 0.05115, 996: 0.03629, 995: 0.02824}, 0.002)

	// The popular items follow acknowledged inserts; zeta grows incrementally.
	for range 500 {
		if err := ack.Acknowledge(ack.Next(nil)); err != nil {
			t.Fatal(err)
		}
	}
	if ack.Last() != 1499 {
		t.Fatalf("Last = %d", ack.Last())
	}
	c := l.Clone()
	got = frequencies(nDraws/4, 1500, func() int64 { return c.Next(r) })
	if got[1499] < 0.11 || got[1499] > 0.14 {
		t.Errorf("after growth, P(newest) = %v", got[1499])
	}
	if c.zipf.countForZeta != 1499 || l.zipf.countForZeta != 999 {
		t.Errorf("clone shares zipfian state: %d %d", c.zipf.countForZeta, l.zipf.countForZeta)
	}
}

func TestHotspotShape(t *testing.T) {
	r := testRand()
	h := NewHotspot(0, 999, 0.2, 0.8)
	hot := 0
	for range nDraws {
		v := h.Next(r)
		if v < 0 || v > 999 {
			t.Fatalf("out of range: %d", v)
		}
		if v < 200 {
			hot++
		}
	}
	// YCSB 0.17.0 gives 0.79986.
	if f := float64(hot) / nDraws; math.Abs(f-0.8) > 0.003 {
		t.Errorf("hot fraction %v, want 0.8", f)
	}
	h = NewHotspot(100, 109, 0.3, 1)
	for range 1000 {
		if v := h.Next(r); v < 100 || v > 102 {
			t.Fatalf("hot-only value %d outside [100,102]", v)
		}
	}
}

func TestExponentialShape(t *testing.T) {
	r := testRand()
	e := NewExponential(95, 1000*0.8571428571)
	in := 0
	for range nDraws {
		if e.Next(r) < 857 {
			in++
		}
	}
	// YCSB 0.17.0: 0.95002 of ExponentialGenerator(95, 857.14).intValue() < 857.
	if f := float64(in) / nDraws; math.Abs(f-0.95) > 0.002 {
		t.Errorf("fraction below 857: %v", f)
	}
}

func TestUniformLong(t *testing.T) {
	r := testRand()
	u := NewUniformLong(-3, 6)
	got := make(map[int64]int)
	for range 100000 {
		got[u.Next(r)]++
	}
	for v := int64(-3); v <= 6; v++ {
		if c := got[v]; c < 9000 || c > 11000 {
			t.Errorf("value %d drawn %d times of 100000", v, c)
		}
	}
	if len(got) != 10 {
		t.Errorf("values outside range: %v", got)
	}
}

func TestSequentialAndConstant(t *testing.T) {
	s := NewSequential(5, 7)
	var got []int64
	for range 7 {
		got = append(got, s.Next(nil))
	}
	if !slices.Equal(got, []int64{5, 6, 7, 5, 6, 7, 5}) {
		t.Errorf("sequential: %v", got)
	}
	if Constant(42).Next(nil) != 42 {
		t.Error("constant")
	}
}

func TestAcknowledgedCounterYCSB(t *testing.T) {
	// YCSB 0.17.0: AcknowledgedCounterGenerator(10), five nextValue calls,
	// then acknowledge 11, 10, 13, 12 gives lastValue 9, 11, 11, 13.
	c := NewAcknowledgedCounter(10)
	var vals []int64
	for range 5 {
		vals = append(vals, c.Next(nil))
	}
	if !slices.Equal(vals, []int64{10, 11, 12, 13, 14}) || c.Last() != 9 {
		t.Fatalf("values %v last %d", vals, c.Last())
	}
	for _, step := range []struct{ ack, last int64 }{{11, 9}, {10, 11}, {13, 11}, {12, 13}} {
		if err := c.Acknowledge(step.ack); err != nil {
			t.Fatal(err)
		}
		if c.Last() != step.last {
			t.Errorf("after acknowledge(%d): last %d, want %d", step.ack, c.Last(), step.last)
		}
	}
	if err := c.Acknowledge(100 + ackWindowSize); err != nil {
		t.Fatal(err)
	}
	if err := c.Acknowledge(100); err != ErrTooManyUnacknowledged {
		t.Errorf("same slot twice: %v", err)
	}
}

func TestAcknowledgedCounterConcurrent(t *testing.T) {
	c := NewAcknowledgedCounter(100)
	const workers, each = 8, 20000
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				if err := c.Acknowledge(c.Next(nil)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if want := int64(100 + workers*each - 1); c.Last() != want {
		t.Errorf("Last = %d, want %d", c.Last(), want)
	}
}

func TestCounterConcurrent(t *testing.T) {
	c := NewCounter(7)
	seen := make([]int64, 8*1000)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				seen[w*1000+i] = c.Next(nil)
			}
		})
	}
	wg.Wait()
	slices.Sort(seen)
	for i, v := range seen {
		if v != int64(7+i) {
			t.Fatalf("values not unique and contiguous at %d: %d", i, v)
		}
	}
	if c.Last() != 7+8000-1 {
		t.Errorf("Last = %d", c.Last())
	}
}

func TestHistogram(t *testing.T) {
	h, err := ReadHistogram(strings.NewReader("BlockSize\t10\n0\t0\n1\t2\n2\t3\n"), "h.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.Buckets, []int64{0, 2, 3}) || h.BlockSize != 10 {
		t.Fatalf("parsed %+v", h)
	}
	// YCSB's HistogramGenerator.nextValue maps nextInt(area) like this.
	for number, want := range []int64{10, 20, 20, 20, 20} {
		if got := h.value(int64(number)); got != want {
			t.Errorf("value(%d) = %d, want %d", number, got, want)
		}
	}
	if m := h.Mean(); m != 10*8/5.0 {
		t.Errorf("mean %v", m)
	}
	r := testRand()
	for range 1000 {
		if v := h.Next(r); v != 10 && v != 20 {
			t.Fatalf("Next = %d", v)
		}
	}
	for _, bad := range []string{"", "Blocksize\t10\n0\t1\n", "BlockSize\t10\n1\t1\n", "BlockSize\t10\n0\tx\n", "BlockSize\t10\n0\t0\n", "BlockSize\t10\n0 1\n"} {
		if _, err := ReadHistogram(strings.NewReader(bad), "bad.txt"); err == nil || !strings.Contains(err.Error(), "bad.txt") {
			t.Errorf("ReadHistogram(%q) error = %v", bad, err)
		}
	}
}

func TestDiscrete(t *testing.T) {
	var d Discrete
	d.Add(0.5, 1)
	d.Add(0.25, 2)
	d.Add(0.25, 3)
	for _, tc := range []struct {
		u    float64
		want int64
	}{{0, 1}, {0.49, 1}, {0.5, 2}, {0.74, 2}, {0.75, 3}, {0.9999, 3}} {
		if got := d.value(tc.u); got != tc.want {
			t.Errorf("value(%v) = %d, want %d", tc.u, got, tc.want)
		}
	}
	// Weights are normalized, as in YCSB.
	var e Discrete
	e.Add(3, 7)
	e.Add(1, 8)
	if e.value(0.74) != 7 || e.value(0.76) != 8 {
		t.Error("weights not normalized")
	}
}

func TestGeneratorsNoAlloc(t *testing.T) {
	r := testRand()
	ack := NewAcknowledgedCounter(1000)
	h, _ := NewHistogram(8, []int64{1, 2, 3})
	var d Discrete
	d.Add(1, 0)
	d.Add(1, 1)
	for name, g := range map[string]NumberGenerator{
		"counter": NewCounter(0), "ack": ack, "uniform": NewUniformLong(0, 99),
		"zipfian": NewZipfian(0, 99), "scrambled": NewScrambledZipfian(0, 99),
		"latest": NewSkewedLatest(ack), "hotspot": NewHotspot(0, 99, 0.2, 0.8),
		"exponential": NewExponential(95, 90), "sequential": NewSequential(0, 9),
		"constant": Constant(3), "histogram": h, "discrete": &d,
	} {
		if n := testing.AllocsPerRun(1000, func() { g.Next(r) }); n != 0 {
			t.Errorf("%s: %v allocs per Next", name, n)
		}
	}
	if n := testing.AllocsPerRun(1000, func() { _ = ack.Acknowledge(ack.Next(nil)) }); n != 0 {
		t.Errorf("Acknowledge: %v allocs", n)
	}
}

func BenchmarkGenerators(b *testing.B) {
	ack := NewAcknowledgedCounter(1_000_000)
	for _, bc := range []struct {
		name string
		g    NumberGenerator
	}{
		{"uniform", NewUniformLong(0, 999_999)},
		{"zipfian", NewZipfian(0, 999_999)},
		{"scrambledzipfian", NewScrambledZipfian(0, 999_999)},
		{"latest", NewSkewedLatest(ack)},
		{"hotspot", NewHotspot(0, 999_999, 0.2, 0.8)},
		{"exponential", NewExponential(95, 857142)},
		{"sequential", NewSequential(0, 999_999)},
		{"counter", NewCounter(0)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := testRand()
			b.ReportAllocs()
			for b.Loop() {
				bc.g.Next(r)
			}
		})
	}
	b.Run("acknowledge", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = ack.Acknowledge(ack.Next(nil))
		}
	})
}
