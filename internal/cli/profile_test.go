package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	_, stderr, code := docbench(t, "run", "-t", "null:", "-P", "workloada", "-p", "operationcount=20000",
		"--status", "0", "--cpuprofile", cpu, "--memprofile", mem)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{cpu, mem} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("profile %s: %v (empty or missing)", f, err)
		}
	}
	// A path that cannot be written fails before anything runs, in one line.
	_, stderr, code = docbench(t, "run", "-t", "null:", "-P", "workloada", "--cpuprofile", filepath.Join(dir, "no", "such", "dir", "cpu"))
	if code != 2 || !strings.Contains(stderr, "--cpuprofile") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Fatalf("unwritable --cpuprofile: exit %d, stderr %q", code, stderr)
	}
}
