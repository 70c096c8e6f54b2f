package db

import (
	"strings"
	"testing"
	"time"
)

func TestMark(t *testing.T) {
	m := Mark{By: "docbench load", Created: time.Date(2026, 11, 25, 6, 30, 5, 0, time.UTC), Records: 9000,
		Properties: map[string]string{"recordcount": "9000"}}
	got, ok := ParseMark(m.Text())
	if !ok || got.Records != 9000 || got.By != "docbench load" || !got.Created.Equal(m.Created) {
		t.Fatalf("ParseMark(Text()) = %+v, %v", got, ok)
	}
	if s := Replacing("docbench.usertable", got); s != "replacing docbench.usertable: 9,000 records loaded 2026-11-25 06:30 UTC by docbench load" {
		t.Errorf("Replacing = %q", s)
	}
	for _, foreign := range []string{"", "orders of 2024", "created by docbench: not json", `created by docbench: {"by":"someone else"}`} {
		if _, ok := ParseMark(foreign); ok {
			t.Errorf("ParseMark(%q) took it for docbench's", foreign)
		}
	}
	big := Mark{Properties: map[string]string{"document.x": strings.Repeat("y", 3000)}}
	if n := len(big.Text()); n > maxMark {
		t.Errorf("a mark of %d bytes: MariaDB keeps %d", n, maxMark)
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
