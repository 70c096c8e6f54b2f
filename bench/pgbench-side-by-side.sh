#!/usr/bin/env bash
# docbench and pgbench -M prepared side by side on one PostgreSQL: the same point SELECT of
# a whole jsonb document by primary key, on the same table, with the same number of
# connections, in alternating rounds. Prints per run ops/s, client CPU (user+sys of the
# client process, from /usr/bin/time) and client CPU per operation, then the medians and
# docbench's ratios to pgbench.
#
# usage: bench/pgbench-side-by-side.sh DOCBENCH_BINARY HOST PORT USER [RECORDS=50000] [SECONDS=20] [CLIENTS=4] [ROUNDS=3]
# env:   PGBENCH (default /usr/lib/postgresql/15/bin/pgbench), DB (default sbs_pgbench),
#        DOCBENCH_ARGS: more arguments of docbench run (e.g. "-p pg.blockingio=true")
#
# The table is docbench's own (docbench load, workloadc, insertorder=ordered, so keys are
# user0…userN-1). docbench runs workloadc with requestdistribution=uniform:
#   SELECT data FROM "docbench"."usertable" WHERE ycsb_key = $1
# pgbench runs, prepared, with a uniform k:
#   SELECT data FROM docbench.usertable WHERE ycsb_key = 'user' || :k
# (pgbench has no string variables; the concatenation is one server-side expression.)
# Both read the document as text. The database gets synchronous_commit=off.
# Targets (issue 9): docbench CPU/op <= 1.3x pgbench's, docbench ops/s >= 0.95x pgbench's.
set -euo pipefail
bin=$1 host=$2 port=$3 user=$4 rec=${5:-50000} secs=${6:-20} clients=${7:-4} rounds=${8:-3}
pgbench=${PGBENCH:-/usr/lib/postgresql/15/bin/pgbench}
db=${DB:-sbs_pgbench}
q() { psql -X -A -t -q -h "$host" -p "$port" -U "$user" -d "${2:-postgres}" -c "$1"; }
q "drop database if exists $db" >/dev/null 2>&1 || true
q "create database $db" >/dev/null
q "alter database $db set synchronous_commit=off" >/dev/null
url="postgres://$user@$host:$port/$db?sslmode=disable"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
props=(-p recordcount="$rec" -p insertorder=ordered)
"$bin" load -t "$url" -P workloadc "${props[@]}" --threads "$clients" --status 0 >/dev/null
q "vacuum analyze docbench.usertable" "$db" >/dev/null
printf '\\set k random(0, %d)\nSELECT data FROM docbench.usertable WHERE ycsb_key = '"'user'"' || :k;\n' $((rec - 1)) >"$tmp/read.sql"

. "$(dirname "$0")/side-by-side.bash"
run_other() {
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$pgbench" -n -M prepared -c "$clients" -j "$clients" -T "$secs" \
    -h "$host" -p "$port" -U "$user" -f "$tmp/read.sql" "$db" >"$tmp/o" 2>"$tmp/e" || { tail -3 "$tmp/e" >&2; exit 1; }
  local n tp
  n=$(awk -F': ' '/number of transactions actually processed/ {split($2, a, "/"); print a[1]}' "$tmp/o")
  tp=$(awk '/^tps = / {print $3; exit}' "$tmp/o")
  result pgbench "$n" "$tp"
}
rounds pgbench ' (targets: throughput >= 0.95x, CPU per op <= 1.3x)'
