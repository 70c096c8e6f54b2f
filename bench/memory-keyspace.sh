#!/usr/bin/env bash
# Memory against the size of the keyspace and the length of the run: docbench runs
# workload A on a 100,000,000-record keyspace against null: for SECONDS (default 60)
# and reports its peak resident set (/usr/bin/time's maximum RSS).
# Target (issue 9): under 100 MB.
#
# usage: bench/memory-keyspace.sh DOCBENCH_BINARY [SECONDS=60] [THREADS=1] [RECORDS=100000000]
#
# Measured for docs/performance.md: peak RSS 42.7 MB over 60 s.
set -euo pipefail
bin=$1 secs=${2:-60} threads=${3:-1} rec=${4:-100000000}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
/usr/bin/time -f "%M %e" -o "$tmp/t" "$bin" run -t null: -P workloada -p recordcount="$rec" \
  -p operationcount=0 --duration "${secs}s" --threads "$threads" --status 0 >"$tmp/o"
sed -n 2p "$tmp/o"
awk -v s="$secs" -v r="$rec" '{ printf "peak RSS %.1f MB over %.1f s (%s records, %s s asked): %s\n", $1/1024, $2, r, s, ($1/1024 < 100 ? "under 100 MB" : "OVER 100 MB") }' "$tmp/t"
