package runner

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/measure"
)

// TestStatusLine: a status line says the operations and failures, the
// rate, the share done and the time left, and what its p99 measures.
func TestStatusLine(t *testing.T) {
	for _, c := range []struct {
		name  string
		o     Options
		total int64
		want  []string
	}{
		{"count", Options{Phase: Run, Status: time.Second}, 400,
			[]string{"2 sec: 100 operations (1 failed); 50.0 current ops/sec; 25% done, 6s left; [READ service p99=2001us]"}},
		{"duration, rate", Options{Phase: Run, Status: time.Second, Duration: 10 * time.Second, Rate: 50}, math.MaxInt64,
			[]string{"20% done, 8s left; [READ intended p99=2001us]"}},
		{"both", Options{Phase: Load, Status: time.Second, Duration: 4 * time.Second}, 1000,
			[]string{"the load ends at insertcount=1000 or after 4s, whichever comes first", "50% done, 2s left"}},
		{"no end", Options{Phase: Run, Status: time.Second}, math.MaxInt64, []string{"50.0 current ops/sec; [READ"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			c.o.Stderr = &out
			reg := measure.NewRegistry([]string{"READ"}, c.o.Rate > 0)
			rec := reg.NewRecorder()
			s := newStatus(c.o, reg, c.total)
			start := time.Date(2026, 11, 25, 7, 0, 0, 0, time.UTC)
			s.begin(start, map[Phase]string{Run: "operationcount", Load: "insertcount"}[c.o.Phase])
			for range 99 {
				rec.Record(0, 2*time.Millisecond, 2*time.Millisecond, nil)
			}
			rec.Record(0, time.Millisecond, time.Millisecond, errors.New("timeout"))
			s.tick(reg.Tick(start, start.Add(2*time.Second)), 100)
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("status output lacks %q:\n%s", w, out.String())
				}
			}
			if c.name == "no end" && strings.Contains(out.String(), "done") {
				t.Errorf("a phase without a known end says how much is done:\n%s", out.String())
			}
		})
	}
}
