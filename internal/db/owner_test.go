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

// A mark records how its load ended; one of an older docbench (no load
// state) reads as complete.
func TestMarkLoadState(t *testing.T) {
	old := `created by docbench: {"by":"docbench load","created":"2026-11-25T06:30:05Z","records":9000}`
	m, ok := ParseMark(old)
	if !ok || m.Unfinished() != "" {
		t.Fatalf("an older mark: %+v, %v, unfinished %q", m, ok, m.Unfinished())
	}
	when := time.Date(2026, 11, 25, 6, 30, 5, 0, time.UTC)
	for _, c := range []struct {
		m          Mark
		unfinished string
		describe   string
	}{
		{Mark{By: "docbench load", Created: when, Records: 20000, Load: LoadStopped, Loaded: 10500},
			"the load stopped at 10,500 of 20,000 records",
			"10,500 of 20,000 records loaded 2026-11-25 06:30 UTC by docbench load (the load stopped)"},
		{Mark{By: "docbench load", Created: when, Records: 20000, Load: LoadStopped},
			"the load stopped at 0 of 20,000 records", ""},
		{Mark{By: "docbench load", Created: when, Records: 20000, Load: LoadRunning},
			"the load of 20,000 records begun 2026-11-25 06:30 UTC never recorded its end (it is still running, or was killed)",
			"a load of 20,000 records begun 2026-11-25 06:30 UTC by docbench load (its end not recorded)"},
		{Mark{By: "docbench load", Created: when, Records: 20000, Load: LoadComplete, Loaded: 19990},
			"the load stored 19,990 of 20,000 records (the others failed)", ""},
		{Mark{By: "docbench load", Created: when, Records: 20000, Load: LoadComplete, Loaded: 20000}, "",
			"20,000 records loaded 2026-11-25 06:30 UTC by docbench load"},
	} {
		got, ok := ParseMark(c.m.Text())
		if !ok || got.Load != c.m.Load || got.Loaded != c.m.Loaded {
			t.Errorf("ParseMark(Text()) of %+v = %+v, %v", c.m, got, ok)
		}
		if u := got.Unfinished(); u != c.unfinished {
			t.Errorf("Unfinished of %+v = %q, want %q", c.m, u, c.unfinished)
		}
		if d := got.Describe(); c.describe != "" && d != c.describe {
			t.Errorf("Describe of %+v = %q, want %q", c.m, d, c.describe)
		}
	}
}
