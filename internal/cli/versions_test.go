package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/study"
)

// The built-in versions study at --quick runs on two PostgreSQL versions,
// the default and 13 (both in the test cache): each result records its
// server's version, and what 13 lacks is not applicable with the version
// it needs, not a failure.
func TestVersionsStudyQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two PostgreSQL versions for about a minute")
	}
	out := filepath.Join(t.TempDir(), "versions")
	_, stderr, code := docbench(t, "study", "versions", "--quick", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m study.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	versions := map[string]string{} // pg.version → the server's
	subscript13 := ""
	for _, r := range m.Runs {
		if r.Error != "" {
			t.Errorf("%s %s %v: %s", r.Target, r.Workload, r.Point, r.Error)
		}
		if r.Target == "deepest-subscript" && r.Point[0].Value == "13" && r.NotApplicable != "" {
			subscript13 = r.NotApplicable
		}
		if r.Target != "ycsb" || r.Workload != "workloada" || r.File == "" {
			continue
		}
		res, err := report.ReadResult(filepath.Join(out, r.File))
		if err != nil {
			t.Fatal(err)
		}
		versions[r.Point[0].Value] = res.Target.Version
	}
	if !strings.HasPrefix(versions["13"], "13.") || !strings.HasPrefix(versions["18"], "18.") || len(versions) != 2 {
		t.Errorf("workload A ran on %v, want pg.version 13 and 18 on servers of those versions", versions)
	}
	if !strings.Contains(subscript13, "jsonb subscripting needs PostgreSQL 14") {
		t.Errorf("subscripting on 13: %q, want not applicable with the version it needs", subscript13)
	}
}
