#!/usr/bin/env bash
# Bulk load: docbench load at batchsize=1000 (COPY FROM STDIN in batches of 1000 rows
# through pgx) against psql's \copy of the same documents from a file, into the same
# table (docbench's: ycsb_key text primary key, data jsonb), rounds alternating.
# Reports records/s of each (docbench's own measured throughput; for psql the time of
# the \copy command, from \timing), client CPU per record, the medians and the ratio.
# Target (issue 9): docbench >= 0.8x psql \copy.
#
# usage: bench/pg-load-vs-copy.sh DOCBENCH_BINARY HOST PORT USER [RECORDS=200000] [ROUNDS=3] [THREADS=1]
# The documents: docbench loads workloada's (10 fields of 100 bytes) once; they are
# exported with \copy ... TO a file, and every psql round truncates the table and
# copies the file back in. docbench recreates the table (with its primary key) each round.
#
# Notes from the run behind docs/performance.md (while other work ran on the machine):
# 100,000 records, 3 rounds: psql \copy 24,012 records/s, docbench 31,536 records/s (1.31x) at
# 3.2–3.8 µs of client CPU per record.
set -euo pipefail
bin=$1 host=$2 port=$3 user=$4 rec=${5:-200000} rounds=${6:-3} threads=${7:-1}
db=${DB:-sbs_load}
psqlc() { psql -X -A -t -q -h "$host" -p "$port" -U "$user" -d "${2:-$db}" -c "$1"; }
psqlc "drop database if exists $db" postgres >/dev/null 2>&1 || true
psqlc "create database $db" postgres >/dev/null
psqlc "alter database $db set synchronous_commit=off" postgres >/dev/null
url="postgres://$user@$host:$port/$db?sslmode=disable"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
load() {
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$bin" load -t "$url" -P workloada -p recordcount="$rec" \
    -p batchsize=1000 --threads "$threads" --status 0 --format ycsb >"$tmp/o" 2>"$tmp/e" || { tail -3 "$tmp/e" >&2; exit 1; }
  local tp c
  tp=$(awk -F', ' '$1 == "[OVERALL]" && $2 == "Throughput(ops/sec)" {print $3}' "$tmp/o")
  c=$(awk '{printf "%.3f", $2+$3}' "$tmp/t")
  awk -v tp="$tp" -v c="$c" -v n="$rec" 'BEGIN {printf "docbench  %9.0f records/s  client CPU %6.2f s  %6.2f µs/record\n", tp, c, c*1e6/n}'
  echo "docbench $tp" >>"$tmp/all"
}
load
psqlc "\\copy docbench.usertable (ycsb_key, data) TO '$tmp/docs.copy'"
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $rec records ($(du -h "$tmp/docs.copy" | cut -f1) of COPY text), docbench threads $threads"
copy() {
  psqlc "truncate docbench.usertable" >/dev/null
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" psql -X -q -h "$host" -p "$port" -U "$user" -d "$db" \
    -c '\timing on' -c "\\copy docbench.usertable (ycsb_key, data) FROM '$tmp/docs.copy'" >"$tmp/o"
  local ms c
  ms=$(awk '/^Time: / {print $2; exit}' "$tmp/o")
  c=$(awk '{printf "%.3f", $2+$3}' "$tmp/t")
  awk -v ms="$ms" -v c="$c" -v n="$rec" 'BEGIN {printf "psql      %9.0f records/s  client CPU %6.2f s  %6.2f µs/record\n", n/(ms/1000), c, c*1e6/n}'
  awk -v ms="$ms" -v n="$rec" 'BEGIN {print "psql", n/(ms/1000)}' >>"$tmp/all"
}
: >"$tmp/all"
for _ in $(seq "$rounds"); do
  copy
  load
done
awk '
  function median(arr, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j+1] = arr[j]; arr[j+1] = t }
    return n % 2 ? arr[(n+1)/2] : (arr[n/2] + arr[n/2+1]) / 2
  }
  { n[$1]++; v[$1, n[$1]] = $2 }
  END {
    for (t in n) { for (i = 1; i <= n[t]; i++) a[i] = v[t, i]; m[t] = median(a, n[t]); printf "%-9s median %9.0f records/s\n", t, m[t] }
    if (m["psql"] > 0) printf "docbench/psql \\copy: %.2fx (target >= 0.8)\n", m["docbench"] / m["psql"]
  }' "$tmp/all"
