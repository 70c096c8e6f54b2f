package document

import (
	"bytes"
	"testing"
)

// TestRareTermsPlantedAtTheirFrequency: the bookmarks shape's rare tag
// terms occur in about one document in 10,000 and one in 100, never
// together, at the same documents every time (a pure function of seed and
// key number), and fresh values never carry them.
func TestRareTermsPlantedAtTheirFrequency(t *testing.T) {
	s := newShape(t, map[string]string{"document.shape": ShapeBookmarks}, nil, 7)
	r := NewRand()
	rare10k := []byte(`"term":"` + RareTerm10000 + `"`)
	rare100 := []byte(`"term":"` + RareTerm100 + `"`)
	const n = 200000
	var c10k, c100 int
	var first int64 = -1
	var buf []byte
	for k := range int64(n) {
		buf = s.AppendDoc(buf[:0], nil, k, r)
		a, b := bytes.Contains(buf, rare10k), bytes.Contains(buf, rare100)
		if a && b {
			t.Fatalf("document %d has both rare terms", k)
		}
		if a {
			c10k++
			if first < 0 {
				first = k
			}
		}
		if b {
			c100++
		}
	}
	// Binomial: mean 20 (sd ≈ 4.5) and 2000 (sd ≈ 45).
	if c10k < 5 || c10k > 40 || c100 < 1800 || c100 > 2200 {
		t.Errorf("in %d documents: %d with %s (want ≈ 20), %d with %s (want ≈ 2000)", n, c10k, RareTerm10000, c100, RareTerm100)
	}
	if first >= 0 && !bytes.Contains(s.AppendDoc(nil, nil, first, NewRand()), rare10k) {
		t.Errorf("document %d: rare term not there the second time", first)
	}
	for range 1000 {
		if v := s.AppendValue(nil, "tags.term", r.r); bytes.Contains(v, []byte("rare-")) {
			t.Fatalf("a fresh tags.term value is a planted one: %s", v)
		}
	}
}
