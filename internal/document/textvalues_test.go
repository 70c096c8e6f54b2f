package document

import (
	"bytes"
	"compress/flate"
	"testing"
)

// TestTextValuesCompress: fieldvalues=text cuts values from words, which
// compress as text does; random characters barely do. The documents keep
// their structure and sizes (the same draws of the key's random source).
func TestTextValuesCompress(t *testing.T) {
	ratio := func(props map[string]string) (float64, int) {
		s := newShape(t, props, constLen(2000), 3)
		r := NewRand()
		var docs, buf []byte
		for k := range int64(50) {
			buf = s.AppendDoc(buf[:0], []byte("user"), k, r)
			docs = append(docs, buf...)
		}
		var out bytes.Buffer
		w, _ := flate.NewWriter(&out, flate.BestSpeed)
		w.Write(docs)
		w.Close()
		return float64(out.Len()) / float64(len(docs)), len(docs)
	}
	for _, shape := range []string{ShapeFlat, ShapeComplex} {
		random, nr := ratio(map[string]string{"document.shape": shape})
		text, nt := ratio(map[string]string{"document.shape": shape, "fieldvalues": FieldValuesText})
		if nr != nt {
			t.Errorf("%s: %d bytes of random values, %d of text: want the same sizes", shape, nr, nt)
		}
		if text > 0.5 || random < 0.7 {
			t.Errorf("%s: compressed to %.2f (text) and %.2f (random): want text ≤ 0.5, random ≥ 0.7", shape, text, random)
		}
	}
}
