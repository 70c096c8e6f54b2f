package engine

import (
	"strings"
	"testing"
)

func TestParseSLO(t *testing.T) {
	good := map[string][2]string{ // metric, op
		"p99<5ms":          {"p99", ""},
		"READ.p99<2ms":     {"p99", "READ"},
		"p99(UPDATE)<=3ms": {"p99", "UPDATE"},
		"p99.9<10ms":       {"p99.9", ""},
		"read.p99.9<10ms":  {"p99.9", "READ"},
		"mean < 800us":     {"mean", ""},
	}
	for text, want := range good {
		s, err := ParseSLO(text)
		if err != nil || s.Metric != want[0] || s.Op != want[1] {
			t.Errorf("%q: got %+v, %v", text, s, err)
		}
	}
	if s, _ := ParseSLO("p99(UPDATE)<=3ms"); !s.Inclusive || s.Bound != 3000 {
		t.Errorf("p99(UPDATE)<=3ms: got %+v, want inclusive, bound 3000 µs", s)
	}
	for _, text := range []string{"", "p99", "p99>5ms", "throughput>100", "errors<1%", "p42<5ms", "READ.p99", "p99<0"} {
		if _, err := ParseSLO(text); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: want a one-line error, got %v", text, err)
		}
	}
}
