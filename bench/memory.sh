#!/usr/bin/env bash
# Memory against the number of threads: docbench runs workload A against null: for
# 3 s with 16 and with 1,000 threads and prints each run's peak resident set (the
# kernel's ru_maxrss of the child). Targets: at most 60 MB at 16 threads, 300 MB
# at 1,000; the benchmark fails above them, and a run that does not end a minute
# after its 3 s is killed and fails.
#
# usage: bench/memory.sh [DOCBENCH_BINARY]   (default: built from this tree)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then export DOCBENCH_BIN=$(realpath "$1"); fi
go test -run '^$' -bench '^BenchmarkPeakRSS$' -benchtime 1x -timeout 5m ./cmd/docbench/ |
  awk '/^BenchmarkPeakRSS\// { n = $1; sub(/^BenchmarkPeakRSS\//, "", n); sub(/-[0-9]+$/, "", n)
                               for (i = 2; i <= NF; i++) if ($i == "peak-MB") printf "%-14s peak RSS %s MB\n", n, $(i-1) }
       /FAIL|want at most|did not end/ { print }'
