package workload

import (
	"math"
	"slices"
	"sync"
	"testing"
)

func newWorkload(t testing.TB, seed uint64, file string, kv ...string) *Workload {
	t.Helper()
	p := NewProperties()
	if file != "" {
		if err := p.LoadFile(file); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range kv {
		if err := p.ParseOverride(s); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := ParseConfig(p, Known{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestOpString(t *testing.T) {
	var got []string
	for o := range NumOps {
		got = append(got, o.String())
	}
	if !slices.Equal(got, []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "QUERY", "STATEMENT"}) || Op(9).String() != "Op(9)" {
		t.Errorf("%v", got)
	}
}

func opShares(th *Thread, n int) [NumOps]float64 {
	var c [NumOps]float64
	for range n {
		c[th.NextOp()]++
	}
	for i := range c {
		c[i] /= float64(n)
	}
	return c
}

func TestOperationMix(t *testing.T) {
	for _, tc := range []struct {
		file string
		want [NumOps]float64
	}{
		{"workloada", [NumOps]float64{0.5, 0.5, 0, 0, 0}},
		{"workloadb", [NumOps]float64{0.95, 0.05, 0, 0, 0}},
		{"workloadc", [NumOps]float64{1, 0, 0, 0, 0}},
		{"workloadd", [NumOps]float64{0.95, 0, 0.05, 0, 0}},
		{"workloade", [NumOps]float64{0, 0, 0.05, 0.95, 0}},
		{"workloadf", [NumOps]float64{0.5, 0, 0, 0, 0.5}},
	} {
		got := opShares(newWorkload(t, 1, tc.file).NewThread(0), 200000)
		for i := range got {
			if d := got[i] - tc.want[i]; d > 0.005 || d < -0.005 || (tc.want[i] == 0 && got[i] != 0) {
				t.Errorf("%s: %v share %.4f, want %.2f", tc.file, Op(i), got[i], tc.want[i])
			}
		}
	}
}

func TestDeterministicThreads(t *testing.T) {
	draw := func(w *Workload, id int) []int64 {
		th := w.NewThread(id)
		var s []int64
		for range 20 {
			s = append(s, int64(th.NextOp()), th.NextKeynum(), int64(th.ScanLength()))
		}
		return s
	}
	a := draw(newWorkload(t, 42, "workloade"), 3)
	b := draw(newWorkload(t, 42, "workloade"), 3)
	c := draw(newWorkload(t, 42, "workloade"), 4)
	d := draw(newWorkload(t, 43, "workloade"), 3)
	if !slices.Equal(a, b) {
		t.Error("same seed and worker gave different streams")
	}
	if slices.Equal(a, c) || slices.Equal(a, d) {
		t.Error("different worker or seed gave the same stream")
	}
}

func TestZipfianKeysStayLoaded(t *testing.T) {
	// workloade: expectednewkeys = 1000*0.05*2 = 100, so the scrambled zipfian
	// covers [0, 1100]; keys beyond the last acknowledged insert are redrawn.
	w := newWorkload(t, 1, "workloade")
	th := w.NewThread(0)
	if sz := th.keychooser.(*ScrambledZipfian); sz.min != 0 || sz.itemcount != 1101 {
		t.Fatalf("keychooser %+v", sz)
	}
	for range 100000 {
		if k := th.NextKeynum(); k < 0 || k > 999 {
			t.Fatalf("key %d beyond loaded records", k)
		}
	}
	for range 100 {
		k := th.NextInsertKeynum()
		w.Acknowledge(k)
	}
	maxKey := int64(0)
	for range 100000 {
		maxKey = max(maxKey, th.NextKeynum())
	}
	if maxKey < 1000 || maxKey > 1099 {
		t.Errorf("after 100 inserts the largest key is %d", maxKey)
	}
}

func TestLatestFollowsInserts(t *testing.T) {
	w := newWorkload(t, 1, "workloadd")
	th := w.NewThread(0)
	top := func() int64 {
		c := map[int64]int{}
		for range 20000 {
			c[th.NextKeynum()]++
		}
		best := int64(-1)
		for k, n := range c {
			if best < 0 || n > c[best] {
				best = k
			}
		}
		return best
	}
	if got := top(); got != 999 {
		t.Errorf("most popular key %d, want 999", got)
	}
	k1, k2 := th.NextInsertKeynum(), w.NewThread(1).NextInsertKeynum()
	if k1 != 1000 || k2 != 1001 {
		t.Fatalf("insert keys %d %d", k1, k2)
	}
	w.Acknowledge(k2)
	if got := top(); got != 999 {
		t.Errorf("with 1000 unacknowledged, most popular key %d, want 999", got)
	}
	w.Acknowledge(k1)
	if got := top(); got != 1001 {
		t.Errorf("most popular key %d, want 1001", got)
	}
}

func TestKeyDistributionsInRange(t *testing.T) {
	for _, dist := range []string{"uniform", "zipfian", "latest", "hotspot", "exponential", "sequential"} {
		w := newWorkload(t, 1, "workloada", "requestdistribution="+dist, "recordcount=3000", "insertstart=1000", "insertcount=1000")
		th := w.NewThread(0)
		lo, hi := int64(1000), int64(1999)
		if dist == "latest" || dist == "exponential" || dist == "zipfian" {
			lo, hi = 0, 2999 // these follow recordcount, as in YCSB
		}
		if dist == "zipfian" {
			// YCSB passes insertstart+insertcount+expectednewkeys as the
			// inclusive maximum, one past the range.
			lo, hi = 1000, 2000
		}
		for range 20000 {
			if k := th.NextKeynum(); k < lo || k > hi {
				t.Fatalf("%s: key %d outside [%d, %d]", dist, k, lo, hi)
			}
		}
	}
	th := newWorkload(t, 1, "", "requestdistribution=sequential", "recordcount=10", "insertstart=7", "insertcount=3").NewThread(0)
	var got []int64
	for range 5 {
		got = append(got, th.NextKeynum())
	}
	if !slices.Equal(got, []int64{7, 8, 9, 7, 8}) {
		t.Errorf("sequential keys %v", got)
	}
	// Exponential: keys counted back from the last record; 95% of the draws
	// are below 857.14, but draws beyond the 1000 records are redrawn.
	th = newWorkload(t, 1, "", "requestdistribution=exponential", "recordcount=1000").NewThread(0)
	near := 0
	for range 100000 {
		if th.NextKeynum() > 999-857 {
			near++
		}
	}
	want := 0.95 / (1 - math.Pow(0.05, 1000/(1000*0.8571428571)))
	if f := float64(near) / 100000; math.Abs(f-want) > 0.003 {
		t.Errorf("exponential: %.4f of keys in the newest 857, want %.4f", f, want)
	}
}

func TestLoadRange(t *testing.T) {
	w := newWorkload(t, 1, "", "recordcount=10000", "insertstart=500", "insertcount=5000")
	if s, n := w.LoadRange(); s != 500 || n != 5000 {
		t.Fatalf("LoadRange = %d, %d", s, n)
	}
	var mu sync.Mutex
	var keys []int64
	var wg sync.WaitGroup
	for id := range 4 {
		th := w.NewThread(id)
		wg.Go(func() {
			var mine []int64
			for {
				k, ok := th.NextLoadKeynum()
				if !ok {
					break
				}
				mine = append(mine, k)
			}
			mu.Lock()
			keys = append(keys, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(keys)
	if len(keys) != 5000 || keys[0] != 500 || keys[4999] != 5499 || len(slices.Compact(keys)) != 5000 {
		t.Errorf("loaded %d keys", len(keys))
	}
	if _, n := newWorkload(t, 1, "").LoadRange(); n != 0 {
		t.Errorf("without recordcount the load inserts %d records, YCSB none", n)
	}
}

func TestThreadHelpers(t *testing.T) {
	w := newWorkload(t, 1, "workloade", "fieldnameprefix=f_", "fieldcount=3", "insertorder=ordered", "zeropadding=5",
		"fieldlengthdistribution=uniform", "minfieldlength=5", "fieldlength=9")
	th := w.NewThread(7)
	if th.ID() != 7 || th.Workload() != w || th.Rand() == nil || w.Config().FieldCount != 3 {
		t.Error("accessors")
	}
	if w.FieldName(0) != "f_0" || w.FieldName(2) != "f_2" || len(w.FieldNames()) != 3 {
		t.Errorf("field names %v", w.FieldNames())
	}
	if got := string(th.AppendKey(nil, 42)); got != "user00042" {
		t.Errorf("AppendKey = %q", got)
	}
	for range 10000 {
		if n := th.ScanLength(); n < 1 || n > 100 {
			t.Fatalf("scan length %d", n)
		}
		if n := th.FieldLength(); n < 5 || n > 9 {
			t.Fatalf("field length %d", n)
		}
		if f := th.ReadField(); f < 0 || f > 2 {
			t.Fatalf("read field %d", f)
		}
		if f := th.UpdateField(); f < 0 || f > 2 {
			t.Fatalf("update field %d", f)
		}
	}
}

func TestThreadNoAlloc(t *testing.T) {
	for _, dist := range []string{"uniform", "zipfian", "latest", "hotspot", "exponential", "sequential"} {
		w := newWorkload(t, 1, "workloada", "requestdistribution="+dist, "scanlengthdistribution=zipfian", "fieldlengthdistribution=zipfian")
		th := w.NewThread(0)
		buf := make([]byte, 0, 64)
		if n := testing.AllocsPerRun(1000, func() {
			_ = th.NextOp()
			buf = th.AppendKey(buf[:0], th.NextKeynum())
			_ = th.ScanLength() + th.FieldLength() + th.ReadField() + th.UpdateField()
			k := th.NextInsertKeynum()
			w.Acknowledge(k)
			_, _ = th.NextLoadKeynum()
		}); n != 0 {
			t.Errorf("%s: %v allocs per operation", dist, n)
		}
	}
}

func BenchmarkThread(b *testing.B) {
	for _, dist := range []string{"uniform", "zipfian", "latest", "hotspot", "exponential", "sequential"} {
		b.Run(dist, func(b *testing.B) {
			w := newWorkload(b, 1, "workloada", "requestdistribution="+dist, "recordcount=1000000", "operationcount=1000000")
			th := w.NewThread(0)
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for b.Loop() {
				_ = th.NextOp()
				buf = th.AppendKey(buf[:0], th.NextKeynum())
			}
		})
	}
	b.Run("insert+ack", func(b *testing.B) {
		w := newWorkload(b, 1, "workloadd")
		th := w.NewThread(0)
		b.ReportAllocs()
		for b.Loop() {
			w.Acknowledge(th.NextInsertKeynum())
		}
	})
	b.Run("fieldlength+scanlength", func(b *testing.B) {
		th := newWorkload(b, 1, "workloade").NewThread(0)
		b.ReportAllocs()
		for b.Loop() {
			_ = th.FieldLength() + th.ScanLength() + th.ReadField()
		}
	})
}
