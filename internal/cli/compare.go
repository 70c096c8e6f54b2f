package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/study"
)

func (a *app) compareCommand() *cobra.Command {
	var strict, all bool
	var metrics []string
	cmd := &cobra.Command{
		Use:   "compare RESULT.json RESULT.json... | compare OLD_DIR NEW_DIR",
		Short: "Print results side by side with a fairness audit, or the per-point changes between two study directories",
		Long: `compare prints phase results side by side — throughput, p50/p99 per operation,
write volume per operation, storage, CPU per operation — and audits the targets:
what is equal, what differs, and which differences change the meaning of the
comparison (durability, key index, secondary indexes, compression, memory,
clients). With --strict a difference in durability class or key-index class
makes the command fail.

Between two results (the same workload on PostgreSQL 13 and 18, say), it
also tests what changed beyond the noise of the runs themselves: a run has
one value of each figure, so the samples are its windows — consecutive,
non-overlapping stretches of its per-second series, 2 s or longer (at most
30 windows; slow operations come in bursts that spill over a second's edge,
so neighbouring seconds are not independent). For throughput and each
operation's p99 it prints the median over each side's windows, the change,
the Mann-Whitney U test's p-value and the windows ("~" when not
significant at α=0.05). A window's p99 is its seconds' histograms merged
when the result keeps them (merged shards), else its worst second's:
percentiles are never averaged. With fewer than 4 windows on a side it
says it cannot tell.

Given two study directories, compare opens with what changed beyond the
noise, benchstat's way: the series whose rounds the Mann-Whitney U test finds
different at α=0.05, the largest change first (at most 10), each with its
medians (and the range across rounds), the change in percent, its p-value and
rounds. The test needs 4 or more rounds on each side; with fewer (one round,
--quick) compare says it cannot tell and lists nothing. The other series are
counted; --all prints every series after the summary, in the study's order
("~" when not significant). A warning comes first when the two setups differ
(targets, server versions, workload properties, docbench's version).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dirs := countDirs(args); dirs > 0 {
				if dirs != 2 || len(args) != 2 {
					return &ExitError{Code: 2, Err: fmt.Errorf("compare: give two study directories (OLD_DIR NEW_DIR) or result files, not a mix")}
				}
				return study.Compare(a.stdout, args[0], args[1], study.CompareOptions{Metrics: metrics, All: all})
			}
			var results []*report.Result
			for _, path := range args {
				r, err := report.ReadResult(path)
				if err != nil {
					return &ExitError{Code: 2, Err: err}
				}
				results = append(results, r)
			}
			findings := report.WriteCompare(a.stdout, args, results)
			if fails := probe.StrictFailures(findings); strict && len(fails) > 0 {
				return &ExitError{Code: 1, Err: fmt.Errorf("--strict: %s", strings.Join(fails, "; "))}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail when the targets' durability class or key-index class differ")
	cmd.Flags().BoolVar(&all, "all", false, "study directories: after the summary, print every series compared")
	cmd.Flags().StringSliceVar(&metrics, "metric", nil, "study directories: only these metrics (throughput, p99, wal_bytes_per_update, …)")
	return cmd
}

// countDirs counts the arguments that are directories.
func countDirs(args []string) int {
	n := 0
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			n++
		}
	}
	return n
}
