package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/docbench/docbench/internal/db"
)

// WriteText prints a result for a person: a header and one row per operation.
func WriteText(w io.Writer, r *Result) error {
	r.Redact()
	if r.Failed {
		fmt.Fprintf(w, "FAILED: %s\n", r.Error)
	}
	for _, t := range r.Thresholds {
		if !t.Pass {
			fmt.Fprintf(w, "THRESHOLD FAILED: %s (measured %s)\n", t.Threshold, t.Measured())
		}
	}
	state := "complete"
	if !r.Complete {
		state = "INCOMPLETE"
		if r.Stopped != "" {
			state += " (" + r.Stopped + ")"
		}
	}
	if r.Failed {
		state += ", FAILED"
	}
	ver := r.Target.Backend
	if r.Target.Version != "" {
		ver += " " + r.Target.Version
	}
	fmt.Fprintf(w, "docbench %s · %s · %s · %d thread(s) · %s\n", r.Phase, r.Target.Target, ver, r.Options.Threads, state)
	fmt.Fprintf(w, "runtime %.3f s · %d ops · %.1f ops/s", r.RuntimeMS/1e3, r.Operations-r.Errors, r.Throughput)
	if r.Errors > 0 {
		fmt.Fprintf(w, " · %d failed (%s of %d, %.1f/s)", r.Errors, percent(r.ErrorShare), r.Operations, r.ErrorsPerSec)
	}
	fmt.Fprint(w, "\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "operation\tok\terrors\tops/s\tmean µs\tp50 µs\tp95 µs\tp99 µs\tp99.9 µs\tmax µs\t")
	row := func(name string, op Op, l *Latency) {
		if l == nil {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t-\t-\t-\t-\t-\t-\t\n", name, op.Count-op.Errors, op.Errors, op.Throughput)
			return
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", name, op.Count-op.Errors, op.Errors,
			op.Throughput, l.Mean, l.P50, l.P95, l.P99, l.P999, l.Max)
	}
	for _, op := range r.Ops {
		row(op.Name, op, op.Service)
		if op.Response != nil {
			row(op.Name+" (intended)", op, op.Response)
		}
	}
	tw.Flush()
	for _, op := range r.Ops {
		if q := op.Query; q != nil {
			fmt.Fprintf(w, "%s: %.1f rows per call, %s\n", op.Name, q.RowsPerCall, q.Page())
		}
	}
	for _, op := range r.Ops {
		if op.Errors == 0 {
			continue
		}
		fmt.Fprintf(w, "%s: %d failed (%s, %.1f/s)", op.Name, op.Errors, percent(op.ErrorShare), op.ErrorsPerSec)
		if op.NotFound > 0 {
			fmt.Fprintf(w, ", %d of them not found", op.NotFound)
		}
		fmt.Fprintln(w)
		for _, m := range op.Messages {
			fmt.Fprintf(w, "  ×%d: %s\n", m.Count, m.Message)
		}
	}
	if wu := r.Warmup; wu != nil && wu.Errors > 0 {
		fmt.Fprintf(w, "warm-up (discarded): %d of %d operations failed\n", wu.Errors, wu.Operations)
		for _, op := range wu.Ops {
			for _, m := range op.Messages {
				fmt.Fprintf(w, "  %s ×%d: %s\n", op.Name, m.Count, m.Message)
			}
		}
	}
	if len(r.Thresholds) > 0 {
		fmt.Fprintln(w)
		for _, t := range r.Thresholds {
			mark := "pass"
			if !t.Pass {
				mark = "FAIL"
			}
			fmt.Fprintf(w, "threshold %s  %s  (measured %s)\n", mark, t.Threshold, t.Measured())
		}
	}
	if l := r.LatencyLimit; l != nil {
		fmt.Fprintf(w, "latency limit %s (%s time): %s of %s operations above it (%s)", time.Duration(l.LimitMS*1e6), l.Of,
			db.Thousands(l.Late), db.Thousands(l.Operations), percent(l.LateShare))
		if r.Options.TargetRate > 0 {
			fmt.Fprintf(w, "; %s skipped, later than the limit already when due (%s of those scheduled)", db.Thousands(l.Skipped), percent(l.SkippedShare))
		}
		fmt.Fprintln(w)
	}
	if r.Options.TargetRate > 0 {
		fmt.Fprintf(w, "\ntarget %.0f ops/s: \"intended\" rows measure from each operation's scheduled start (coordinated omission corrected)\n", r.Options.TargetRate)
		if l := r.ScheduleLag; l != nil {
			fmt.Fprintf(w, "schedule lag (the harness's own): p50 %.1f µs · p99 %.1f µs · max %.1f µs · %d ops found their worker busy\n",
				l.P50, l.P99, l.Max, l.Behind)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

// WriteJSON prints the result document, indented.
func WriteJSON(w io.Writer, r *Result) error {
	b, err := Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// WriteJSONLine writes r as JSON on one line (--format jsonl): a shard in
// a Kubernetes pod prints its result so, as the last line of its log.
func WriteJSONLine(w io.Writer, r *Result) error {
	r.Redact()
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Marshal encodes a result as indented JSON with a trailing newline,
// passwords redacted wherever a message or property may quote them.
func Marshal(r *Result) ([]byte, error) {
	r.Redact()
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// CheckFormat reports whether format is one Write understands.
func CheckFormat(format string) error {
	switch strings.ToLower(format) {
	case "", "text", "ycsb", "json", "jsonl":
		return nil
	}
	return fmt.Errorf("--format %q: want text, ycsb, json or jsonl", format)
}

// Write prints r in the named format (text, ycsb, json or jsonl).
func Write(w io.Writer, format string, r *Result) error {
	switch strings.ToLower(format) {
	case "", "text":
		if r.Capacity != nil {
			return WriteCapacityText(w, r)
		}
		return WriteText(w, r)
	case "ycsb":
		return WriteYCSB(w, r)
	case "json":
		return WriteJSON(w, r)
	case "jsonl":
		return WriteJSONLine(w, r)
	}
	return fmt.Errorf("--format %q: want text, ycsb, json or jsonl", format)
}

// percent formats a share (0.0123) as "1.23%".
func percent(share float64) string {
	return strconv.FormatFloat(share*100, 'g', 4, 64) + "%"
}
