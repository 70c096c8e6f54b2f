package runner

import (
	"context"
	"testing"
)

// Under a target rate with a latency limit, the operations due during a
// stall that are later than the limit when their worker is free again are
// skipped, as pgbench --latency-limit skips them: counted, not issued, and
// counted toward the operation count.
func TestLatencyLimitSkipsTheLate(t *testing.T) {
	for _, limit := range []bool{false, true} {
		store, wl, gen := setup(t, "null:", map[string]string{"recordcount": "1000", "operationcount": "1000"})
		o := Options{Phase: Run, Threads: 1, Rate: 1000}
		if limit {
			o.LatencyLimit = stall / 20
		}
		out, err := Execute(context.Background(), &stallStore{Store: store}, wl, gen, o)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !limit && (out.Skipped != 0 || out.Ops != 1000):
			t.Errorf("no limit: %d skipped, %d issued, want none and 1000", out.Skipped, out.Ops)
		// ~200 operations were due during the 200 ms stall; all but the
		// last ~10 ms of them (more on a slow machine) were later than
		// 10 ms when the worker was free.
		case limit && (out.Skipped < 150 || out.Ops+out.Skipped != 1000):
			t.Errorf("limit %s: %d skipped, %d issued, want at least 150 skipped and 1000 in all", o.LatencyLimit, out.Skipped, out.Ops)
		}
	}
}
