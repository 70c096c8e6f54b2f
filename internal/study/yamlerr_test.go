package study

import (
	"strings"
	"testing"
)

// TestYAMLErrorLines: a syntax error names the line at fault (an unclosed
// bracket: the line it opens on), and an unknown key gets a "did you mean".
func TestYAMLErrorLines(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"name: t\ntargets:\n  - {name: a, target: \"sqlite:x.db\"\nworkloads:\n  - {name: w, workload: workloada}\n", "s.yaml:3:5: did not find expected ',' or '}'"},
		{"name: t\nrounds: 1\nthreads: 1\ntargets:\n  - {name: a, target: \"sqlite:x.db\"\nworkloads: []\n", "s.yaml:5:5: did not find expected"},
		{"name: t\nrounds: [1\nthreads: 1\n", "s.yaml:2:9: did not find expected ',' or ']'"},
		{"name: t\nrounds: 1\n  threads: 1\n", "s.yaml:3:3: mapping values are not allowed"},
		{"name: t\ntargetz: []\n", `s.yaml:2:1: unknown key "targetz" in the study (did you mean "targets"?)`},
		{"name: t\nworkloads:\n  - {name: w, workload: workloada, propertys: {}}\n", `did you mean "properties"?`},
	} {
		_, err := Parse("s.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
