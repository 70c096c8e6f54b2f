package report

import "testing"

// The WAL chart's points at 300 B and 8.5 kB got one labelled tick (1,000)
// from gonum's LogTicks; logTicks labels 500, 1,000, 2,000 and 5,000.
func TestLogTicksLabelEnough(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     []string
	}{
		{300, 8500, []string{"500", "1,000", "2,000", "5,000"}},
		{1.5, 3.5, []string{"2", "3"}},
		{1, 1e6, []string{"1", "2", "5", "10", "20", "50", "100", "200", "500", "1,000", "2,000", "5,000", "10,000", "20,000", "50,000", "100,000", "200,000", "500,000", "1,000,000"}},
	} {
		var got []string
		for _, tk := range (groupedTicks{logTicks{}}).Ticks(c.min, c.max) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("%g–%g: labels %q, want %q", c.min, c.max, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%g–%g: labels %q, want %q", c.min, c.max, got, c.want)
				break
			}
		}
	}
}
