package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/study"
)

// With a mix, the quickstart's study runs it closed loop and, in place of
// workload A, at the common rate and in the capacity search; proportions
// under 1 leave by-key reads; the load indexes the paths the queries need
// (an aggregate's and an update's not), and study.yaml says all of it.
func TestQuickstartMixStudy(t *testing.T) {
	mix := filepath.Join(t.TempDir(), "mix.yaml")
	os.WriteFile(mix, []byte("queries:\n"+
		"  - {name: by-email, kind: field, path: email, proportion: 0.3}\n"+
		"  - {name: visited, kind: contains, path: visited_places.country, proportion: 0.2}\n"+
		"  - {name: per-city, kind: aggregate, path: address.city, func: count, proportion: 0.1}\n"+
		"  - {name: again, kind: range, path: email, proportion: 0.05}\n"+
		"  - {name: off, kind: update, path: is_active, proportion: 0.05}\n"), 0o644)
	for _, tc := range []struct {
		props          []string
		index, missing string
		chose          bool
	}{
		{[]string{"document.shape=customer"}, "email,visited_places.country", "", true},
		{[]string{"document.shape=customer", "secondaryindex=email"}, "email",
			"index missing: QUERY-visited (visited_places.country) ran without a secondary index on its path; the fix: -p secondaryindex=email,visited_places.country", false},
	} {
		st, err := study.Load("quickstart")
		if err != nil {
			t.Fatal(err)
		}
		f := &quickFlags{records: 1000, mix: mix, props: tc.props}
		if err := quickProps(st, &cobra.Command{}, f); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, w := range st.Workloads {
			names = append(names, w.Name)
		}
		rate := st.Workloads[len(st.Workloads)-1]
		if got := names; len(got) != 3 || got[0] != "workloadc" || got[1] != "mix" || got[2] != "mix-rate" ||
			rate.Properties["target"] != "500" || rate.Properties["readproportion"] != "0.3" || rate.Properties["querymix"] != mix ||
			st.Capacity.Workload != "mix-rate" {
			t.Fatalf("workloads %v, the rate's %v, capacity of %s", names, rate.Properties, st.Capacity.Workload)
		}
		if ix := st.Properties["secondaryindex"]; ix != tc.index || f.mixIndexes != tc.chose {
			t.Errorf("%v: secondaryindex=%q (chosen by quickstart: %v), want %q", tc.props, ix, f.mixIndexes, tc.index)
		}
		if got := missingIndexes(f.mixQueries, st.Properties["secondaryindex"]); got != tc.missing {
			t.Errorf("%v: missing %q, want %q", tc.props, got, tc.missing)
		}
		back, err := study.Parse("study.yaml", st.Raw)
		if err != nil {
			t.Fatal(err)
		}
		if len(back.Workloads) != 3 || back.Workloads[2].Properties["querymix"] != mix || back.Capacity.Workload != "mix-rate" {
			t.Errorf("study.yaml does not say what ran:\n%s", st.Raw)
		}
	}
}
