package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/merge"
	"github.com/docbench/docbench/internal/report"
)

func (a *app) mergeCommand() *cobra.Command {
	var out, format, html string
	cmd := &cobra.Command{
		Use:   "merge SHARD.json... [--out FILE] [--format text|ycsb|json|jsonl] [--html FILE]",
		Short: "Merge the results of the shards of one phase (--shard K/N) into one result",
		Long: `merge combines the results of N shards of one load or run into one result:
counts and errors summed, throughput over the merged window (first start to last
end), percentiles read from the merged histograms (never averaged), per-second
series summed by wall-clock second, the server's own figures taken once, and
each shard's host, start and client CPU listed under shards[].

Shards of different workloads, docbench versions, targets, seeds or settings are
refused with one line naming the difference. A missing or incomplete shard makes
the merged result incomplete (written, then exit status 1).

The shards of a sharded capacity search (docbench capacity --shard) are judged
on the merged histograms of each rung; the merge writes the search's HTML
report with its curve to --html, as docbench capacity does.

An argument may be a result file, a file of --format jsonl lines, or the pods'
logs of a sharded Kubernetes Job ("-" reads standard input):
  kubectl logs -l job-name=docbench --tail=1 | docbench merge - --out merged.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := report.CheckFormat(format); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			var in []merge.Input
			for _, path := range args {
				var data []byte
				var err error
				name := path
				if path == "-" {
					name = "stdin"
					data, err = io.ReadAll(cmd.InOrStdin())
				} else {
					data, err = os.ReadFile(path)
				}
				if err != nil {
					return &ExitError{Code: 2, Err: fmt.Errorf("merge: %w", err)}
				}
				got, err := merge.Read(data, name)
				if err != nil {
					return &ExitError{Code: 2, Err: err}
				}
				in = append(in, got...)
			}
			res, err := merge.Merge(in)
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			if err := a.emit(res, format, out); err != nil {
				return err
			}
			if f := strings.ToLower(format); f == "" || f == "text" {
				writeShards(a.stdout, res)
			}
			if err := a.writeCapacityHTML(res, html); err != nil {
				return err
			}
			if !res.Complete {
				return &ExitError{Code: 1, Err: errors.New("merged result incomplete: " + res.Error)}
			}
			if res.Capacity != nil {
				return capacityExit(res)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the merged result JSON to this file (atomically)")
	cmd.Flags().StringVar(&format, "format", "text", "report format on stdout: text, ycsb, json or jsonl")
	cmd.Flags().StringVar(&html, "html", "capacity.html", "for the shards of a capacity search: the HTML report with the latency-vs-throughput curve, as docbench capacity writes it (\"\" for none)")
	return cmd
}

// writeShards lists the shards of a merged result for people.
func writeShards(w io.Writer, r *report.Result) {
	fmt.Fprintln(w, "\nshards")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  shard\thost\tstart\truntime\tops\tops/s\tclient cores\tclock\tstate\t")
	for _, s := range r.Shards {
		cores, clock, state := "-", "unknown", "complete"
		if s.ClientCores != nil {
			cores = fmt.Sprintf("%.2f", *s.ClientCores)
		}
		if s.Clock.Synchronized != nil {
			clock = "unsynchronized"
			if *s.Clock.Synchronized {
				clock = "synchronized"
			}
		}
		if !s.Complete {
			state = "INCOMPLETE"
		}
		fmt.Fprintf(tw, "  %d\t%s\t+%s\t%s\t%d\t%.1f\t%s\t%s\t%s\t\n", s.Index, s.Host,
			s.Start.Sub(r.Start).Round(time.Microsecond), s.End.Sub(s.Start).Round(time.Millisecond),
			s.Operations, s.Throughput, cores, clock, state)
	}
	tw.Flush()
}
