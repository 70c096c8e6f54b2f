package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
)

// WriteYCSB prints YCSB 0.17's final report lines, so that existing parsers
// keep working. Latencies are whole microseconds as YCSB prints them (the
// nanosecond histogram value to the nearest microsecond).
//
// As YCSB's Client and DBWrapper do: [OVERALL] Throughput(ops/sec) counts
// every operation, failed ones included (docbench adds the successful
// ones' rate as SuccessfulThroughput(ops/sec)); [OP] times the successful
// operations and carries a Return= line per status (OK, NOT_FOUND, ERROR);
// [OP-FAILED] times the failed ones. The latency from each intended start
// is printed as YCSB prints it under the workload's measurement.interval:
// "op" (the default) service time only; "intended" the intended latency
// under the plain [OP] names; "both" service time, then [Intended-OP]
// blocks. A batched load prints [INSERT] with one operation per record, as
// YCSB's JDBC binding does with db.batchsize, and the time of each batch
// under [INSERT-BATCH]. With dataintegrity, [VERIFY] times the checks of
// the documents read apart from [READ], as YCSB's CoreWorkload does; a
// document that differs counts as Return=UNEXPECTED_STATE.
func WriteYCSB(w io.Writer, r *Result) error {
	p := func(section, metric string, v any) {
		fmt.Fprintf(w, "[%s], %s, %v\n", section, metric, v)
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	p("OVERALL", "RunTime(ms)", int64(r.RuntimeMS))
	all, ok := 0.0, 0.0
	if r.RuntimeMS > 0 {
		all = float64(r.Operations) * 1000 / r.RuntimeMS
		ok = float64(r.Operations-r.Errors) * 1000 / r.RuntimeMS
	}
	p("OVERALL", "Throughput(ops/sec)", num(all))
	p("OVERALL", "SuccessfulThroughput(ops/sec)", num(ok))
	whole := func(us float64) int64 { return int64(math.Round(us)) }
	latency := func(section string, l *Latency) {
		p(section, "AverageLatency(us)", num(l.Mean))
		p(section, "MinLatency(us)", whole(l.Min))
		p(section, "MaxLatency(us)", whole(l.Max))
		p(section, "50thPercentileLatency(us)", whole(l.P50))
		p(section, "95thPercentileLatency(us)", whole(l.P95))
		p(section, "99thPercentileLatency(us)", whole(l.P99))
		p(section, "99.9thPercentileLatency(us)", whole(l.P999))
	}
	returns := func(section string, ok, notFound, errs int64) {
		if ok > 0 {
			p(section, "Return=OK", ok)
		}
		if notFound > 0 {
			p(section, "Return=NOT_FOUND", notFound)
		}
		if e := errs - notFound; e > 0 {
			status := "Return=ERROR"
			if section == "VERIFY" { // a document that differs, as YCSB's verifyRow says
				status = "Return=UNEXPECTED_STATE"
			}
			p(section, status, e)
		}
	}
	// block prints [prefix+OP] and, when some failed, [prefix+OP-FAILED];
	// ok and failed are the latencies of the successful and failed ones.
	block := func(prefix string, op Op, ok, failed *Latency, withReturns bool) {
		section := prefix + op.Name
		p(section, "Operations", op.Count-op.Errors)
		if ok != nil {
			latency(section, ok)
		}
		if withReturns {
			returns(section, op.Count-op.Errors, op.NotFound, op.Errors)
		}
		if op.Errors > 0 {
			p(section+"-FAILED", "Operations", op.Errors)
			if failed != nil {
				latency(section+"-FAILED", failed)
			}
		}
	}
	intended := func(op Op) (ok, failed *Latency) {
		if op.Response != nil || op.FailedResponse != nil {
			return op.Response, op.FailedResponse
		}
		// Without a target rate every operation starts when intended.
		return op.Service, op.Failed
	}
	interval := r.Workload.Properties["measurement.interval"]
	for _, op := range r.Ops {
		if op.Name == "INSERT-BATCH" {
			// The records of the batches, as YCSB counts a batched load.
			p("INSERT", "Operations", r.Operations-r.Errors)
			returns("INSERT", r.Operations-r.Errors, 0, r.Errors)
			if r.Errors > 0 {
				p("INSERT-FAILED", "Operations", r.Errors)
			}
		}
		if interval == "intended" {
			ok, failed := intended(op)
			block("", op, ok, failed, true)
			continue
		}
		block("", op, op.Service, op.Failed, true)
	}
	if interval == "both" {
		for _, op := range r.Ops {
			if op.Name == "VERIFY" {
				continue // YCSB has no intended start for a check
			}
			ok, failed := intended(op)
			block("Intended-", op, ok, failed, false)
		}
	}
	return nil
}
