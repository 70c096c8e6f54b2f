#!/usr/bin/env bash
# Open-loop soak: workload A at half of the measured capacity against SQLite
# and PostgreSQL for a long run (default 10 minutes each), sampling docbench's
# RSS. Asserts that memory stays flat (the peak of the second half is within
# 10 % or 8 MiB of the peak of the first half, after the first minute; runs
# of at least 180 s, as shorter ones see too few GC cycles) and
# that no result is lost (the result file is complete, with about rate ×
# duration operations). Run by hand, not in CI:
#
#   scripts/soak.sh                          # 10 min each on sqlite: and postgres:embedded
#   SOAK_SECONDS=60 scripts/soak.sh          # a shorter check
#   SOAK_TARGETS="postgres://u@127.0.0.1:5432/db" scripts/soak.sh
#
# Measured for docs/performance.md: a 5-minute soak against PostgreSQL held docbench at an
# RSS peak of 60 MiB in both halves and completed every scheduled operation.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${SOAK_SECONDS:-600}
records=${SOAK_RECORDS:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
targets=${SOAK_TARGETS:-"sqlite:$work/soak.db postgres:embedded"}
go build -o "$work/docbench" ./cmd/docbench
db="$work/docbench"
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }
fail=0
for t in $targets; do
	echo "soak: $t: loading $records records"
	"$db" load -t "$t" -P workloada -p recordcount="$records" -p batchsize=1000 --status 0 >/dev/null
	"$db" run -t "$t" -P workloada -p recordcount="$records" -p operationcount=0 --duration 10s --threads 2 \
		--status 0 --format json --out "$work/cap.json" >/dev/null
	cap=$(json "$work/cap.json" 'r["throughput_ops_per_sec"]')
	rate=$(python3 -c "print(int($cap/2))")
	echo "soak: $t: capacity $cap ops/s, soaking at $rate ops/s for $secs s"
	"$db" run -t "$t" -P workloada -p recordcount="$records" -p operationcount=0 --duration "${secs}s" --threads 2 \
		--rate "$rate" --status 0 --format json --out "$work/soak.json" >/dev/null &
	pid=$!
	: >"$work/rss"
	start=$(date +%s)
	while kill -0 "$pid" 2>/dev/null; do
		rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
		[[ -n $rss ]] && echo "$(($(date +%s) - start)) $rss" >>"$work/rss"
		sleep 5
	done
	wait "$pid" || { echo "soak: $t: docbench exited $?"; fail=1; continue; }
	read -r first second < <(awk -v half=$((secs / 2)) -v skip=$((secs > 120 ? 60 : secs / 5)) '
		$1 >= skip && $1 < half { if ($2 > a) a = $2 } $1 >= half { if ($2 > b) b = $2 } END { print a+0, b+0 }' "$work/rss")
	ops=$(json "$work/soak.json" 'r["operations"]')
	complete=$(json "$work/soak.json" 'r["complete"]')
	want=$(python3 -c "print(int($rate*$secs))")
	echo "soak: $t: RSS peak $((first / 1024)) MiB (first half) → $((second / 1024)) MiB (second half); $ops operations of $want scheduled; complete=$complete"
	if ((secs < 180)); then
		# The Go heap collects every ~20 s at these rates: a short run sees
		# the heap reach its GC goal, not a trend (GODEBUG=gctrace=1 shows
		# the live heap after each collection).
		echo "soak: $t: memory not judged: runs under 180 s see too few GC cycles"
	elif ((second > first + first / 10 && second - first > 8192)); then
		echo "soak: $t: FAIL: memory grew"
		fail=1
	fi
	if [[ $complete != True ]] || ! python3 -c "import sys; sys.exit(0 if $ops >= 0.95*$want else 1)"; then
		echo "soak: $t: FAIL: result incomplete or operations lost"
		fail=1
	fi
done
exit $fail
