package report

import (
	"encoding/base64"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/docbench/docbench/internal/measure"
)

// TestHistogramEncoding: a result's hdr is HdrHistogram's own base64 V2
// compressed form, which the library decodes as it stands; a result
// written when docbench base64-encoded that text once more still decodes,
// to the same counts.
func TestHistogramEncoding(t *testing.T) {
	h := measure.NewHistogram()
	for v := int64(1000); v < 100000; v += 7 {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	s := EncodeHistogram(h)
	if !strings.HasPrefix(s, "HISTF") {
		t.Fatalf("hdr begins %.12q, want HdrHistogram's V2 base64 form (HISTF…)", s)
	}
	std, err := hdr.Decode([]byte(s))
	if err != nil {
		t.Fatalf("HdrHistogram does not decode the hdr as it stands: %v", err)
	}
	old := base64.StdEncoding.EncodeToString([]byte(s)) // the earlier form: SElTVEZ…
	for name, enc := range map[string]string{"hdr": s, "earlier hdr": old} {
		got, err := DecodeHistogram(enc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !got.Equals(h) || !std.Equals(h) {
			t.Fatalf("%s: decoded %d values, p99 %d; recorded %d, p99 %d", name,
				got.TotalCount(), got.ValueAtQuantile(99), h.TotalCount(), h.ValueAtQuantile(99))
		}
	}
	if _, err := DecodeHistogram("not a histogram"); err == nil {
		t.Fatal("a malformed hdr decoded")
	}
}
