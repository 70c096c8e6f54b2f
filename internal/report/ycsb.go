package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
)

// WriteYCSB prints YCSB 0.17's final report lines, so that existing parsers
// keep working. Latencies are whole microseconds as YCSB prints them (the
// nanosecond histogram value to the nearest microsecond); the averages are
// of successful operations. Under a target rate the blocks are
// repeated as [Intended-OP] with latency from each intended start.
// As YCSB's DBWrapper does, [OP] counts and times the successful
// operations and carries a Return= line per status (OK, NOT_FOUND,
// ERROR); failed operations are counted in an [OP-FAILED] block (docbench
// does not time failures, so that block has no latency lines).
func WriteYCSB(w io.Writer, r *Result) error {
	p := func(section, metric string, v any) {
		fmt.Fprintf(w, "[%s], %s, %v\n", section, metric, v)
	}
	p("OVERALL", "RunTime(ms)", int64(r.RuntimeMS))
	p("OVERALL", "Throughput(ops/sec)", strconv.FormatFloat(r.Throughput, 'f', -1, 64))
	whole := func(us float64) int64 { return int64(math.Round(us)) }
	block := func(section string, op Op, l *Latency) {
		p(section, "Operations", op.Count-op.Errors)
		if l != nil {
			p(section, "AverageLatency(us)", strconv.FormatFloat(l.Mean, 'f', -1, 64))
			p(section, "MinLatency(us)", whole(l.Min))
			p(section, "MaxLatency(us)", whole(l.Max))
			p(section, "50thPercentileLatency(us)", whole(l.P50))
			p(section, "95thPercentileLatency(us)", whole(l.P95))
			p(section, "99thPercentileLatency(us)", whole(l.P99))
			p(section, "99.9thPercentileLatency(us)", whole(l.P999))
		}
		if ok := op.Count - op.Errors; ok > 0 {
			p(section, "Return=OK", ok)
		}
		if op.NotFound > 0 {
			p(section, "Return=NOT_FOUND", op.NotFound)
		}
		if e := op.Errors - op.NotFound; e > 0 {
			p(section, "Return=ERROR", e)
		}
	}
	for _, op := range r.Ops {
		block(op.Name, op, op.Service)
		if op.Errors > 0 {
			p(op.Name+"-FAILED", "Operations", op.Errors)
		}
	}
	for _, op := range r.Ops {
		if op.Response != nil || r.Options.TargetRate > 0 {
			block("Intended-"+op.Name, op, op.Response)
		}
	}
	return nil
}
