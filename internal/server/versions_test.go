package server

import (
	"slices"
	"strings"
	"testing"
)

func TestResolvePostgresVersion(t *testing.T) {
	for in, want := range map[string]string{
		"": DefaultPostgresVersion, "18": DefaultPostgresVersion, "9.6": "9.6.24", "11": "11.22.1",
		"13.23.0": "13.23.0", "13.1.0": "13.1.0", "9.6.20": "9.6.20", " 16 ": "16.15.0",
	} {
		if got, err := ResolvePostgresVersion(in); got != want || err != nil {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"8", "19", "abc", "13.23", "9", "9.5.1", "19.0.0", "13.x.0", "13.23.0.1", "-13"} {
		if v, err := ResolvePostgresVersion(in); err == nil || !strings.Contains(err.Error(), "9.6, 10, 11, 12, 13, 14, 15, 16, 17, 18") {
			t.Errorf("%q: %q %v, want an error listing the majors", in, v, err)
		}
	}
	if slices.Contains(initdbOptions("13.23"), "--no-instructions") || !slices.Contains(initdbOptions("14.1"), "--no-instructions") {
		t.Error("initdbOptions: --no-instructions is PostgreSQL 14's")
	}
	if !slices.Contains(initdbOptions("9.6.24"), "--nosync") || slices.Contains(initdbOptions("10.23"), "--nosync") {
		t.Error("initdbOptions: --no-sync was --nosync before 10")
	}
}
