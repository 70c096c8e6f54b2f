#!/usr/bin/env bash
# Bulk load into MariaDB/MySQL: docbench load at batchsize=1000 (one prepared multi-row
# INSERT per 1000 records) against LOAD DATA LOCAL INFILE of the same documents from a
# file, into the same table (docbench's: ycsb_key, data JSON), rounds alternating.
# Reports records/s of each (docbench's own measured throughput; for LOAD DATA the wall
# time of the statement, from the client), the medians and the ratio.
#
# usage: bench/mariadb-load-vs-infile.sh DOCBENCH_BINARY HOST PORT USER PASSWORD [RECORDS=200000] [ROUNDS=3] [THREADS=1]
# The server must allow local_infile (start it with --local-infile=1). The documents:
# docbench loads workloada's (10 fields of 100 bytes) once; they are exported with
# mariadb --batch (tab-separated, escaped as LOAD DATA expects), and every LOAD DATA round
# truncates the table first. docbench recreates the table each round.
#
# Notes from the run behind docs/performance.md (while other work ran on the machine):
# 50,000 records, 2 rounds: LOAD DATA LOCAL INFILE 12,649 records/s, docbench 20,790 records/s
# (1.64x) at 7–8.4 µs of client CPU per record.
set -euo pipefail
bin=$1 host=$2 port=$3 user=$4 pass=$5 rec=${6:-200000} rounds=${7:-3} threads=${8:-1}
db=${DB:-sbs_load}
cli=(mariadb -h "$host" -P "$port" -u "$user")
[ -n "$pass" ] && cli+=(-p"$pass")
"${cli[@]}" -e "drop database if exists $db; create database $db"
url="mysql://$user:$pass@$host:$port/$db"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
load() {
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$bin" load -t "$url" -P workloada -p recordcount="$rec" \
    -p batchsize=1000 --threads "$threads" --status 0 --format ycsb >"$tmp/o" 2>"$tmp/e" || { tail -3 "$tmp/e" >&2; exit 1; }
  local tp c
  tp=$(awk -F', ' '$1 == "[OVERALL]" && $2 == "Throughput(ops/sec)" {print $3}' "$tmp/o")
  c=$(awk '{printf "%.3f", $2+$3}' "$tmp/t")
  awk -v tp="$tp" -v c="$c" -v n="$rec" 'BEGIN {printf "docbench   %9.0f records/s  client CPU %6.2f s  %6.2f µs/record\n", tp, c, c*1e6/n}'
  echo "docbench $tp" >>"$tmp/all"
}
load
"${cli[@]}" -N --batch -e "SELECT ycsb_key, data FROM $db.usertable" >"$tmp/docs.tsv"
: >"$tmp/all"
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $rec records ($(du -h "$tmp/docs.tsv" | cut -f1) of TSV), docbench threads $threads"
infile() {
  "${cli[@]}" -e "TRUNCATE TABLE $db.usertable"
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" "${cli[@]}" --local-infile=1 \
    -e "LOAD DATA LOCAL INFILE '$tmp/docs.tsv' INTO TABLE $db.usertable (ycsb_key, data)"
  t1=$(date +%s.%N)
  local c; c=$(awk '{printf "%.3f", $2+$3}' "$tmp/t")
  awk -v a="$t0" -v b="$t1" -v c="$c" -v n="$rec" 'BEGIN {printf "LOAD DATA  %9.0f records/s  client CPU %6.2f s  %6.2f µs/record\n", n/(b-a), c, c*1e6/n}'
  awk -v a="$t0" -v b="$t1" -v n="$rec" 'BEGIN {print "infile", n/(b-a)}' >>"$tmp/all"
}
for _ in $(seq "$rounds"); do
  infile
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
    if (m["infile"] > 0) printf "docbench/LOAD DATA LOCAL INFILE: %.2fx\n", m["docbench"] / m["infile"]
  }' "$tmp/all"
