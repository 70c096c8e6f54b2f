package study

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// A study sweeping threads on one loaded data set runs each point in the
// I/O mode its own thread count asks for (pg.io=auto: blocking with up to
// two threads per CPU, the poller with more), not the first point's, and
// every result records the mode that ran.
func TestSweepRunsEachPointInItsIOMode(t *testing.T) {
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "debian"))
	many := strconv.Itoa(2*runtime.GOMAXPROCS(0) + 1)
	f, err := Parse("sweep.yaml", []byte(`name: sweep
title: threads sweep
targets:
  - {name: pg, target: "`+url+`"}
properties: {recordcount: 200, pg.io: auto}
workloads:
  - {name: c, workload: workloadc}
sweep:
  - {property: threads, values: [1, `+many+`, 1]}
rounds: 1
duration: 200ms
`))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var log strings.Builder
	opens := 0
	m, err := Conduct(context.Background(), f, counting(RunOptions{Out: dir, Log: &log}, &opens))
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	want := map[string]string{"1": "blocking", many: "poller"}
	runs := 0
	for _, r := range m.Runs {
		if r.Workload != "c" {
			continue
		}
		runs++
		b, err := os.ReadFile(filepath.Join(dir, r.File))
		if err != nil {
			t.Fatalf("%s: %v\n%s", r.File, err, log.String())
		}
		var res struct {
			Environment struct {
				IOMode string `json:"io_mode"`
			} `json:"environment"`
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		threads := r.Point[0].Value
		if res.Environment.IOMode != want[threads] {
			t.Errorf("threads=%s ran %q, want %q", threads, res.Environment.IOMode, want[threads])
		}
	}
	if runs != 3 || opens != 1 {
		t.Errorf("%d runs on %d opens of the target, want 3 on one", runs, opens)
	}
}
