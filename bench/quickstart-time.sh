#!/usr/bin/env bash
# The quickstart's wall time as a user meets it after the first run: `docbench quickstart`
# (its defaults: postgres:embedded and SQLite, the load, workloads C and A, a short capacity
# search on each) RUNS times in a row from a warm build cache and a filled download cache
# (the embedded PostgreSQL already downloaded), each into a fresh --out directory. It prints
# each run's seconds and exit status, then the median. The first, untimed step builds the
# binary with `go build` (as `go run` would) and downloads what is missing, so that neither
# counts. The README states the median measured on a quiet two-core machine.
#
# usage: bench/quickstart-time.sh [RUNS=3] [QUICKSTART FLAGS...]
#        e.g. bench/quickstart-time.sh 3 --replay docs.ndjson
# env:   OUT  directory of the runs' results (default: a temporary directory, kept)
# Run it from the repository's root, on a quiet machine: on a busy one the capacity
# searches, and the time, mostly measure the neighbours.
set -euo pipefail
runs=${1:-3}
shift || true
out=${OUT:-$(mktemp -d -t quickstart-time.XXXXXX)}
mkdir -p "$out"
bin="$out/docbench"
go build -o "$bin" ./cmd/docbench # the warm build cache: not timed
# A first, untimed quickstart fills the download cache (PostgreSQL's binaries).
"$bin" quickstart --quick --out "$out/warm" "$@" >/dev/null 2>&1 || true
times=()
for i in $(seq 1 "$runs"); do
	start=$(date +%s.%N)
	status=0
	"$bin" quickstart --out "$out/run$i" "$@" >"$out/run$i.stdout" 2>"$out/run$i.stderr" || status=$?
	end=$(date +%s.%N)
	s=$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')
	times+=("$s")
	printf 'run %d: %.1f s, exit %d (%s)\n' "$i" "$s" "$status" "$out/run$i"
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}')
printf 'median of %d runs: %.1f s\n' "$runs" "$median"
