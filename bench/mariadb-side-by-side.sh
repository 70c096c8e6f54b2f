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

# result TOOL OPS OPS_PER_S: one line, and a record for the medians
result() {
  local c; c=$(awk '{printf "%.3f", $2+$3}' "$tmp/t")
  awk -v t="$1" -v n="$2" -v tp="$3" -v c="$c" 'BEGIN {
    printf "%-9s %9.0f ops/s  client CPU %7.2f s  %6.2f µs/op\n", t, tp, c, (n > 0 ? c*1e6/n : 0) }'
  awk -v t="$1" -v n="$2" -v tp="$3" -v c="$c" 'BEGIN { printf "%s %f %f\n", t, tp, (n > 0 ? c*1e6/n : 0) }' >>"$tmp/all"
}
run_sysbench() {
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
run_docbench() {
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$bin" run -t "$url" -P workloadc "${props[@]}" \
    -p requestdistribution=uniform -p operationcount=1000000000 --duration "${secs}s" --threads "$clients" \
    --status 0 --format ycsb ${DOCBENCH_ARGS:-} >"$tmp/o" 2>"$tmp/e" || { tail -3 "$tmp/e" >&2; exit 1; }
  local n tp
  n=$(awk -F', ' '$1 == "[READ]" && $2 == "Operations" {print $3}' "$tmp/o")
  tp=$(awk -F', ' '$1 == "[OVERALL]" && $2 == "Throughput(ops/sec)" {print $3}' "$tmp/o")
  result docbench "$n" "$tp"
}
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $rec records, $clients connections, ${secs}s runs"
for _ in $(seq "$rounds"); do
  run_sysbench
  run_docbench
done
echo "# medians over $rounds rounds (load average now $(cut -d' ' -f1-3 /proc/loadavg))"
awk '
  function median(arr, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j+1] = arr[j]; arr[j+1] = t }
    return n % 2 ? arr[(n+1)/2] : (arr[n/2] + arr[n/2+1]) / 2
  }
  { n[$1]++; tp[$1, n[$1]] = $2; cpu[$1, n[$1]] = $3 }
  END {
    for (t in n) {
      for (i = 1; i <= n[t]; i++) { a[i] = tp[t, i]; b[i] = cpu[t, i] }
      mt[t] = median(a, n[t]); mc[t] = median(b, n[t])
      printf "%-9s median %9.0f ops/s  %6.2f µs/op client CPU\n", t, mt[t], mc[t]
    }
    if (mt["sysbench"] > 0 && mc["sysbench"] > 0)
      printf "docbench/sysbench: throughput %.2fx, client CPU per op %.2fx\n",
        mt["docbench"] / mt["sysbench"], mc["docbench"] / mc["sysbench"]
  }' "$tmp/all"
