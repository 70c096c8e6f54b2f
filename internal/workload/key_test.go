package workload

import (
	"math"
	"strconv"
	"testing"
)

// Reference values in this file were produced by running YCSB 0.17.0 itself
// (site.ycsb:core:0.17.0 from Maven Central) with a small Java program that
// printed site.ycsb.Utils.fnvhash64(k) and, through a subclass of
// site.ycsb.workloads.CoreWorkload initialised with insertorder and
// zeropadding, buildKeyName(k).

func TestFNVHash64YCSB(t *testing.T) {
	for _, tc := range []struct{ in, want int64 }{
		{0, 6284781860667377211},
		{1, 8517097267634966620},
		{2, 1820151046732198393},
		{3, 4052466453699787802},
		{42, 55488592825689361},
		{999, 2071219101098386137},
		{1000, 5952875239596136740},
		{123456789, 2350796791908741607},
		{2147483647, 627943977067101855},
		{10000000000, 1201321332300452516},
		{-1, 8289690350564177859},
		{math.MaxInt64, 8289549613075766851},
	} {
		if got := FNVHash64(tc.in); got != tc.want {
			t.Errorf("FNVHash64(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestAppendKeyYCSB(t *testing.T) {
	for _, tc := range []struct {
		ordered bool
		pad     int
		keynum  int64
		want    string
	}{
		{false, 1, 0, "user6284781860667377211"},
		{false, 1, 1, "user8517097267634966620"},
		{false, 1, 42, "user55488592825689361"},
		{false, 1, 999, "user2071219101098386137"},
		{false, 1, 123456789, "user2350796791908741607"},
		{false, 10, 42, "user55488592825689361"},
		{false, 20, 0, "user06284781860667377211"},
		{false, 20, 42, "user00055488592825689361"},
		{false, 25, 0, "user0000006284781860667377211"},
		{false, 25, 123456789, "user0000002350796791908741607"},
		{true, 1, 0, "user0"},
		{true, 1, 42, "user42"},
		{true, 1, 123456789, "user123456789"},
		{true, 10, 0, "user0000000000"},
		{true, 10, 999, "user0000000999"},
		{true, 10, 123456789, "user0123456789"},
		{true, 20, 42, "user00000000000000000042"},
		{true, 25, 123456789, "user0000000000000000123456789"},
		// Not from Java, but what Long.toString and the fill loop give.
		{true, 0, 7, "user7"},
		{true, 4, -5, "user00-5"},
	} {
		if got := string(AppendKey(nil, tc.keynum, tc.ordered, tc.pad)); got != tc.want {
			t.Errorf("AppendKey(%d, ordered=%v, pad=%d) = %q, want %q", tc.keynum, tc.ordered, tc.pad, got, tc.want)
		}
	}
	if got := string(AppendKey([]byte("x:"), 3, true, 2)); got != "x:user03" {
		t.Errorf("AppendKey appends: got %q", got)
	}
}

func TestAppendKeyNoAlloc(t *testing.T) {
	buf := make([]byte, 0, 64)
	k := int64(0)
	if n := testing.AllocsPerRun(1000, func() {
		buf = AppendKey(buf[:0], k, false, 20)
		k++
	}); n != 0 {
		t.Fatalf("AppendKey allocates %v times per call", n)
	}
}

func BenchmarkAppendKey(b *testing.B) {
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	k := int64(0)
	for b.Loop() {
		buf = AppendKey(buf[:0], k, false, 1)
		k++
	}
}

func BenchmarkFNVHash64(b *testing.B) {
	b.ReportAllocs()
	var s int64
	k := int64(0)
	for b.Loop() {
		s += FNVHash64(k)
		k++
	}
	_ = s
}

func TestDecimalLen(t *testing.T) {
	for _, v := range []int64{0, 1, 9, 10, 99, 100, 999999999999999999, 1000000000000000000, math.MaxInt64, -1, -10, math.MinInt64} {
		if got, want := decimalLen(v), len(strconv.FormatInt(v, 10)); got != want {
			t.Errorf("decimalLen(%d) = %d, want %d", v, got, want)
		}
	}
}
