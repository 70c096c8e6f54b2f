#!/usr/bin/env bash
# Where the client CPU of a point read goes, docbench's beside pgbench's: the workload of
# pgbench-side-by-side.sh (the same point SELECT of a jsonb document by key, -M prepared,
# the same table and connections), each run under `perf stat`, which counts the client's
# CPU (task-clock), context switches and system calls by name; printed per operation.
# Alternating rounds: pgbench, then docbench with each pg.io of IOS (and the same with
# DOCBENCH_B after it, for an A/B of two builds). With PROFILE set, one more run of each
# docbench variant writes a Go CPU profile (--cpuprofile) and a `perf record -g` of the
# whole process (kernel included) into that directory, with their top entries as text.
#
# usage: bench/pgbench-cpu.sh DOCBENCH_BINARY HOST PORT USER [RECORDS=50000] [SECONDS=10] [CLIENTS=4] [ROUNDS=3]
# env:   IOS (default "poller blocking"), DOCBENCH_B (a second binary), PROFILE (a directory),
#        SKIP_LOAD=1 (the table is there from an earlier run), PGBENCH, DB (default sbs_pgbench)
# needs: perf (linux-perf), with the syscalls tracepoints readable (root, or perf_event_paranoid <= 1)
set -euo pipefail
bin=$1 host=$2 port=$3 user=$4 rec=${5:-50000} secs=${6:-10} clients=${7:-4} rounds=${8:-3}
pgbench=${PGBENCH:-/usr/lib/postgresql/15/bin/pgbench}
db=${DB:-sbs_pgbench}
url="postgres://$user@$host:$port/$db?sslmode=disable"
props=(-p recordcount="$rec" -p insertorder=ordered)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
q() { psql -X -A -t -q -h "$host" -p "$port" -U "$user" -d "${2:-postgres}" -c "$1"; }
if [ -z "${SKIP_LOAD:-}" ]; then
  q "drop database if exists $db" >/dev/null 2>&1 || true
  q "create database $db" >/dev/null
  q "alter database $db set synchronous_commit=off" >/dev/null
  "$bin" load -t "$url" -P workloadc "${props[@]}" --threads "$clients" --status 0 >/dev/null
  q "vacuum analyze docbench.usertable" "$db" >/dev/null
fi
printf '\\set k random(0, %d)\nSELECT data FROM docbench.usertable WHERE ycsb_key = '"'user'"' || :k;\n' $((rec - 1)) >"$tmp/read.sql"

events=task-clock,context-switches,raw_syscalls:sys_enter
for s in write read sendto recvfrom ppoll poll epoll_pwait futex nanosleep sched_yield tgkill; do
  events=$events,syscalls:sys_enter_$s
done

# line LABEL OPS: one line per run from perf stat's counts in $tmp/stat
line() {
  awk -F, -v l="$1" -v n="$2" -v s="$secs" '
    $1 ~ /^[0-9.]+$/ && $3 != "" {
      e = $3; sub(/^syscalls:sys_enter_/, "", e); sub(/^raw_syscalls:sys_enter$/, "syscalls", e); sub(/^context-switches$/, "cs", e)
      if (e == "task-clock") cpu = $1; else if ($1 > 0) rest = rest sprintf(" %s=%.2f", e, $1 / n)
    }
    END { printf "%-16s %8.0f ops/s  client CPU %6.2f µs/op  per op:%s\n", l, n / s, cpu * 1000 / n, rest }' "$tmp/stat"
}

pgbench_run() {
  perf stat -x, -e "$events" -o "$tmp/stat" -- "$pgbench" -n -M prepared -c "$clients" -j "$clients" -T "$secs" \
    -h "$host" -p "$port" -U "$user" -f "$tmp/read.sql" "$db" >"$tmp/o" 2>"$tmp/e" || { tail -3 "$tmp/e" >&2; exit 1; }
  line pgbench "$(awk -F': ' '/number of transactions actually processed/ {split($2, a, "/"); print a[1]}' "$tmp/o")"
}

# docbench_run LABEL BINARY IO [WRAPPER...]: one run of docbench under WRAPPER (perf stat by default)
docbench_run() {
  local label=$1 b=$2 io=$3; shift 3
  [ $# -gt 0 ] || set -- perf stat -x, -e "$events" -o "$tmp/stat" --
  "$@" "$b" run -t "$url" -P workloadc "${props[@]}" -p requestdistribution=uniform -p operationcount=1000000000 \
    --duration "${secs}s" --threads "$clients" --status 0 --format ycsb -p pg.io="$io" ${EXTRA_ARGS:-} \
    >"$tmp/o" 2>"$tmp/e" || { tail -3 "$tmp/e" >&2; exit 1; }
  local n; n=$(awk -F', ' '$1 == "[READ]" && $2 == "Operations" {print $3}' "$tmp/o")
  if [ "$1" = perf ] && [ "$2" = stat ]; then line "$label" "$n"; else echo "$n"; fi
}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $rec records, $clients connections, ${secs}s runs"
for _ in $(seq "$rounds"); do
  pgbench_run
  for io in ${IOS:-poller blocking}; do
    docbench_run "docbench $io" "$bin" "$io"
    [ -z "${DOCBENCH_B:-}" ] || docbench_run "B $io" "$DOCBENCH_B" "$io"
  done
done
echo "# load average now $(cut -d' ' -f1-3 /proc/loadavg)"

[ -n "${PROFILE:-}" ] || exit 0
mkdir -p "$PROFILE"
for io in ${IOS:-poller blocking}; do
  for v in "A:$bin" ${DOCBENCH_B:+"B:$DOCBENCH_B"}; do
    name=${v%%:*}-$io b=${v#*:}
    n=$(EXTRA_ARGS="--cpuprofile $PROFILE/$name.pprof" docbench_run "$name" "$b" "$io" \
      perf record -q -F 4999 -g -o "$PROFILE/$name.perf.data" --)
    {
      echo "# $name: $n reads in ${secs}s; Go CPU profile, then perf (kernel included), by symbol"
      go tool pprof -top -nodecount=40 "$b" "$PROFILE/$name.pprof" 2>/dev/null
      perf report -i "$PROFILE/$name.perf.data" --stdio --no-children --sort dso,sym -g none --percent-limit 0.5 2>/dev/null | grep -v '^#' | grep -v '^$'
    } >"$PROFILE/$name.txt"
    echo "profile: $PROFILE/$name.txt ($PROFILE/$name.pprof, $PROFILE/$name.perf.data)"
  done
done
