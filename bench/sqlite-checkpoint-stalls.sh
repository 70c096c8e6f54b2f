#!/usr/bin/env bash
# How long SQLite's automatic checkpoints hold a docbench worker: a fresh SQLite file with
# sqlite.synchronous=normal (in WAL mode SQLite then syncs only in its checkpoints, the WAL
# and then the database file), workloada at a fixed RATE for 30 s on 2 threads, and
# `perf trace -s -e fsync` over 10 s of it: the fsync calls per thread, their mean and
# longest, beside the run's p99 from the intended start. docs/capacity.md ("Repeatability")
# reads it.
#
# usage: bench/sqlite-checkpoint-stalls.sh DOCBENCH_BINARY [RATE=6200] [OUT=temporary directory, kept]
# env:   CHECKPOINT=auto|background (sqlite.checkpoint, default auto: SQLite's own, inside the
#        committing worker's call; background: docbench's checkpointing connection beside them)
# Needs perf (linux-perf) and root or perf_event_paranoid <= 1; run it on a quiet machine.
set -euo pipefail
bin=$(realpath "$1") rate=${2:-6200}
out=${3:-$(mktemp -d -t sqlite-checkpoints.XXXXXX)}
mkdir -p "$out"
rm -f "$out"/x.sqlite*
t=(-t "sqlite:$out/x.sqlite" -P workloada -p recordcount=10000 -p threadcount=2 -p sqlite.synchronous=normal
  -p "sqlite.checkpoint=${CHECKPOINT:-auto}")
"$bin" load "${t[@]}" >"$out/load.txt" 2>&1
"$bin" run "${t[@]}" --rate "$rate" -p maxexecutiontime=30 -p operationcount=0 >"$out/run.txt" 2>&1 &
run=$!
sleep 10
perf trace -s -p "$run" -e fsync -o "$out/trace.txt" -- sleep 10
wait "$run"
awk '/^ +fsync/ { n += $2; t += $4; if ($7 > m) m = $7 } END {
  printf "fsync: %d calls in 10 s, %.2f ms on average, %.2f ms at most\n", n, t / n, m }' "$out/trace.txt"
grep -E 'intended p99' "$out/run.txt" | sed 's/.*sec: //'
echo "output in $out"
