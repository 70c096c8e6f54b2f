package runner

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// peakRSS is the process's peak resident set (VmHWM), in bytes.
func peakRSS(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/self/status")
	return 0
}

// memoryChild is set in the environment of the process that measures.
const memoryChild = "DOCBENCH_TEST_MEMORY_CHILD"

// TestMemoryFlatInKeyspace runs a 100,000,000-record keyspace (zipfian,
// inserts) against null: for a few seconds: no state of the generators or
// the runner may grow with the keyspace. bench/memory-keyspace.sh is the
// 60-second version of the same check, on the binary.
func TestMemoryFlatInKeyspace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for 3 s")
	}
	if os.Getenv(memoryChild) == "" {
		// The peak resident set is the process's: measured in a test
		// binary of its own, it holds no other test's memory.
		cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryFlatInKeyspace$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), memoryChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("in a process of its own: %v\n%s", err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "RSS") {
				t.Log(strings.TrimSpace(l))
			}
		}
		return
	}
	store, wl, docOps := setup(t, "null:", map[string]string{
		"recordcount": "100000000", "operationcount": "0",
		"readproportion": "0.45", "updateproportion": "0.45", "insertproportion": "0.1",
	})
	out, err := Execute(context.Background(), store, wl, docOps, Options{Phase: Run, Threads: 2, Duration: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if raceDetector {
		// The race detector's shadow memory multiplies RSS: the bound is
		// checked by the same test in the suite's run without -race.
		t.Logf("under -race: %d operations ran; RSS not compared with the 100 MB bound", out.Ops)
		return
	}
	if rss := peakRSS(t); rss > 100<<20 {
		t.Fatalf("peak RSS %d MB after %d operations on a 100,000,000-record keyspace, want under 100 MB", rss>>20, out.Ops)
	} else {
		t.Logf("peak RSS %d MB after %d operations", rss>>20, out.Ops)
	}
}
