package cli

import (
	"strings"
	"testing"
)

// TestCompletion: the shell completion offers study names, target forms,
// built-in workloads, property names and an option's values.
func TestCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"study", "con"}, []string{"concurrency\n", "containment\n"}},
		{[]string{"run", "-t", "postgres:"}, []string{"postgres:embedded\t"}},
		{[]string{"quickstart", "-t", "sql"}, []string{"sqlite:"}},
		{[]string{"load", "-P", "workloadc"}, []string{"workloadc\n"}},
		{[]string{"run", "-p", "recordc"}, []string{"recordcount=\t"}},
		{[]string{"run", "-p", "layout=d"}, []string{"layout=document\n"}},
		{[]string{"run", "--format", "y"}, []string{"ycsb\t"}},
		{[]string{"run", "--thr"}, []string{"--threads\t", "--threshold\t"}},
	} {
		out, stderr, code := docbench(t, append([]string{"__complete"}, c.args...)...)
		if code != 0 {
			t.Fatalf("complete %q: exit %d: %s", c.args, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("complete %q: lacks %q:\n%s", c.args, w, out)
			}
		}
	}
}
