package document

import (
	"sort"
	"testing"
)

// BenchmarkShapes generates documents of every shape into a reused buffer;
// every shape must report 0 allocs/op.
func BenchmarkShapes(b *testing.B) {
	cases := shapeCases(b)
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	key := []byte("user6284781860667377211")
	for _, name := range names {
		s := newShape(b, cases[name], constLen(100), 1)
		b.Run(name, func(b *testing.B) {
			r := NewRand()
			dst := make([]byte, 0, 4<<20)
			var n int64
			b.ReportAllocs()
			for i := int64(0); b.Loop(); i++ {
				dst = s.AppendDoc(dst[:0], key, i, r)
				n += int64(len(dst))
			}
			b.SetBytes(n / int64(max(b.N, 1)))
		})
	}
}

func BenchmarkAppendValue(b *testing.B) {
	s := newShape(b, map[string]string{"document.shape": "customer"}, constLen(100), 1)
	r := NewRand()
	dst := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		dst = s.AppendValue(dst[:0], "address.prev_address.city", r.r)
	}
}
