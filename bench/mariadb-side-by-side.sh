#!/usr/bin/env bash
# docbench and sysbench side by side on one MariaDB/MySQL: the same prepared point SELECT
# of a document by key, on the same table, with the same number of connections, in
# alternating rounds — the MySQL counterpart of pgbench-side-by-side.sh. Prints per run
# ops/s, client CPU (user+sys of the client process, from /usr/bin/time) and client CPU
# per operation, then the medians and docbench's ratios to sysbench.
#
# usage: bench/mariadb-side-by-side.sh DOCBENCH_BINARY HOST PORT USER PASSWORD [RECORDS=50000] [SECONDS=20] [CLIENTS=4] [ROUNDS=3]
# env:   SYSBENCH (default sysbench; Debian: apt-get install sysbench), DB (default sbs_mysql),
#        DOCBENCH_ARGS: more arguments of docbench run
#
# The table is docbench's own (docbench load, workloadc, insertorder=ordered, so keys are
# user0…userN-1; the default generated-column layout). Both run, as a server-side
# prepared statement (binary protocol) with a uniform key:
#   SELECT JSON_REMOVE(data, '$.YCSB_KEY') FROM `DB`.`usertable` WHERE ycsb_key = ?
# sysbench through a Lua script (below) with one connection per thread.
#
# Notes from the runs behind docs/performance.md (MariaDB 10.11 on a 2-vCPU VM shared with the
# client, 50,000 records, 4 connections, 15 s runs, 3 rounds, one sitting):
# - mysql.io=auto (the default; with 4 connections on 2 CPUs it blocks): sysbench 63,544 reads/s
#   at 8.16 µs CPU per read, docbench 68,467 at 8.23 µs: 1.08x the rate at 1.01x the CPU; the
#   rounds were 1.12x, 1.14x and 1.07x.
# - mysql.io=blocking: 0.96x sysbench's rate at 1.23x its CPU per read.
# - mysql.io=poller: 0.78x at 1.61x (50,444 against 64,545 reads/s, 12.14 against 7.56 µs); a
#   profile has a fifth of its CPU in the network poller's epoll_wait and the futex wake-ups
#   behind it. Hence MySQL's default auto.
set -euo pipefail
bin=$1 host=$2 port=$3 user=$4 pass=$5 rec=${6:-50000} secs=${7:-20} clients=${8:-4} rounds=${9:-3}
sysbench=${SYSBENCH:-sysbench}
db=${DB:-sbs_mysql}
cli=(mariadb -h "$host" -P "$port" -u "$user")
[ -n "$pass" ] && cli+=(-p"$pass")
"${cli[@]}" -e "drop database if exists $db; create database $db"
url="mysql://$user:$pass@$host:$port/$db"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
props=(-p recordcount="$rec" -p insertorder=ordered)
"$bin" load -t "$url" -P workloadc "${props[@]}" --threads "$clients" --status 0 >/dev/null
"${cli[@]}" -e "ANALYZE TABLE $db.usertable" >/dev/null
cat >"$tmp/read.lua" <<LUA
function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
  stmt = con:prepare("SELECT JSON_REMOVE(data, '\$.YCSB_KEY') FROM \`$db\`.\`usertable\` WHERE ycsb_key = ?")
  key = stmt:bind_create(sysbench.sql.type.VARCHAR, 64)
  stmt:bind_param(key)
end
function event()
  key:set("user" .. sysbench.rand.uniform(0, $rec - 1))
  stmt:execute():free()
end
function thread_done()
  stmt:close()
  con:disconnect()
end
LUA

. "$(dirname "$0")/side-by-side.bash"
run_other() {
  local a=(--db-driver=mysql --mysql-host="$host" --mysql-port="$port" --mysql-user="$user" --mysql-db="$db"
    --threads="$clients" --time="$secs" --rand-type=uniform)
  [ -n "$pass" ] && a+=(--mysql-password="$pass")
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$sysbench" "$tmp/read.lua" "${a[@]}" run >"$tmp/o" 2>"$tmp/e" \
    || { tail -3 "$tmp/o" "$tmp/e" >&2; exit 1; }
  local n tp
  n=$(awk '/total number of events:/ {print $NF}' "$tmp/o")
  tp=$(awk '/transactions:/ {gsub(/\(/, "", $3); print $3}' "$tmp/o")
  result sysbench "$n" "$tp"
}
rounds sysbench
