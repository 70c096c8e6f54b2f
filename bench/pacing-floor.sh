#!/usr/bin/env bash
# The machine's own wake-up floor against docbench's pacer, in alternating rounds: a C loop
# (bench/wake-floor.c) sleeping until each intended start in clock_nanosleep(TIMER_ABSTIME),
# without and with the 20 µs spin docbench's default pacer adds, then docbench run -t null:
# at the same rate on one worker (its schedule_lag, and user+sys CPU over elapsed time).
#
# usage: bench/pacing-floor.sh DOCBENCH_BINARY [SECONDS=10] [ROUNDS=3] [RATES="1000 10000"]
#
# Notes from the runs behind docs/performance.md (a 2-vCPU VM): the C loop's p99 was 42–57 µs
# in one sitting, and 65–215 µs on an afternoon when docbench's was 92–219 µs: the lateness is
# the machine's wake-up, not the pacer's. docbench's schedule_lag p99 (docbench run -t null:
# -P workloadc --rate R --threads W --format json), with CPU as a share of one core:
# 1,000 ops/s, 1 worker 54.6–96.0 µs (3.1–4.0 %); 1,000 ops/s, 4 workers 64.5–84.2 µs
# (4.7–5.2 %); 10,000 ops/s, 1 worker 10.8–16.5 µs (23.2–24.2 %); 10,000 ops/s, 4 workers
# 22.0–30.7 µs (21.7–23.1 %); 100,000 ops/s, 4 workers 5.7–8.5 µs (197–199 %).
set -euo pipefail
bin=$1 secs=${2:-10} rounds=${3:-3} rates=${4:-"1000 10000"}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
gcc -O2 -o "$tmp/wake-floor" "$here/wake-floor.c"
for round in $(seq "$rounds"); do
  for rate in $rates; do
    echo "round $round  C nanosleep:          $("$tmp/wake-floor" "$rate" "$secs")"
    echo "round $round  C nanosleep+20µs spin: $("$tmp/wake-floor" "$rate" "$secs" 20000)"
    /usr/bin/time -f "%U %S %e" -o "$tmp/t" "$bin" run -t null: -P workloadc -p operationcount=$((rate * secs)) \
      --threads 1 --rate "$rate" --format json >"$tmp/r.json" 2>/dev/null
    python3 - "$round" "$rate" "$tmp/r.json" "$tmp/t" <<'PY'
import json, sys
rnd, rate, res, t = sys.argv[1:]
user, sys_, elapsed = map(float, open(t).read().split())
lag = json.load(open(res))["schedule_lag"]
print("round %s  docbench:             rate %s: lag p50 %.1f µs p99 %.1f µs max %.1f µs; CPU %.1f %% of one core"
      % (rnd, rate, lag["p50_us"], lag["p99_us"], lag["max_us"], 100 * (user + sys_) / elapsed))
PY
  done
done
