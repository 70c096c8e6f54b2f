//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// peakTargets are the peak resident sets (MB) a 3-second workload A run
// against null: may reach, by thread count: the workers' histograms must
// scale with the operations they run, not with 1 ns–1 h of buckets each.
var peakTargets = []struct {
	threads int
	mb      float64
}{{16, 60}, {1000, 300}}

// BenchmarkPeakRSS runs the docbench binary (DOCBENCH_BIN, else one built
// from this tree) as a child for each thread count and reports its peak
// resident set as peak-MB, from the kernel's rusage of the child. It fails
// above the target. A child that overruns its run by a minute is killed
// and fails the benchmark. bench/memory.sh runs it.
func BenchmarkPeakRSS(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("ru_maxrss is in kilobytes on Linux only")
	}
	bin := os.Getenv("DOCBENCH_BIN")
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "docbench")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	const run = 3 * time.Second
	for _, tc := range peakTargets {
		b.Run(fmt.Sprintf("threads=%d", tc.threads), func(b *testing.B) {
			var peak float64
			for b.Loop() {
				peak = max(peak, peakMB(b, bin, tc.threads, run))
			}
			b.ReportMetric(peak, "peak-MB")
			if peak > tc.mb {
				b.Fatalf("peak RSS %.1f MB with %d threads, want at most %.0f MB", peak, tc.threads, tc.mb)
			}
		})
	}
}

// peakMB runs workload A against null: with threads for d and returns the
// child's peak resident set in MB.
func peakMB(b *testing.B, bin string, threads int, d time.Duration) float64 {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "-t", "null:", "-P", "workloada", "-p", "operationcount=0",
		"--threads", fmt.Sprint(threads), "--duration", d.String(), "--status", "0")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState == nil {
		b.Fatalf("%d threads: %v", threads, err)
	}
	mb := float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024
	if ctx.Err() != nil {
		b.Fatalf("%d threads: the %v run did not end, killed after %v at a peak RSS of %.1f MB", threads, d, d+time.Minute, mb)
	}
	if err != nil {
		b.Fatalf("%d threads: %v\n%s", threads, err, out)
	}
	return mb
}
