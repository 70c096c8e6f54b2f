# What the point-read side-by-side scripts (pgbench-side-by-side.sh,
# mariadb-side-by-side.sh) share; sourced, not run. The caller sets tmp (a
# scratch directory), bin, url, props (docbench's -p arguments), secs, clients
# and rounds, and defines run_other, which runs the other tool once with
# /usr/bin/time -f "%e %U %S" -o "$tmp/t" and calls result.

# result TOOL OPS OPS_PER_S: one line, and a record for the medians
result() {
  local c; c=$(awk '{printf "%.3f", $2+$3}' "$tmp/t")
  awk -v t="$1" -v n="$2" -v tp="$3" -v c="$c" 'BEGIN {
    printf "%-9s %9.0f ops/s  client CPU %7.2f s  %6.2f µs/op\n", t, tp, c, (n > 0 ? c*1e6/n : 0) }'
  awk -v t="$1" -v n="$2" -v tp="$3" -v c="$c" 'BEGIN { printf "%s %f %f\n", t, tp, (n > 0 ? c*1e6/n : 0) }' >>"$tmp/all"
}

# run_docbench: docbench workload C, uniform keys, for secs on clients threads.
run_docbench() {
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$bin" run -t "$url" -P workloadc "${props[@]}" \
    -p requestdistribution=uniform -p operationcount=1000000000 --duration "${secs}s" --threads "$clients" \
    --status 0 --format ycsb ${DOCBENCH_ARGS:-} >"$tmp/o" 2>"$tmp/e" || { tail -3 "$tmp/e" >&2; exit 1; }
  local n tp
  n=$(awk -F', ' '$1 == "[READ]" && $2 == "Operations" {print $3}' "$tmp/o")
  tp=$(awk -F', ' '$1 == "[OVERALL]" && $2 == "Throughput(ops/sec)" {print $3}' "$tmp/o")
  result docbench "$n" "$tp"
}

# rounds OTHER [TARGETS]: rounds alternating run_other and run_docbench, then
# each tool's medians and docbench's ratios to OTHER (TARGETS follows them).
rounds() {
  echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $rec records, $clients connections, ${secs}s runs"
  for _ in $(seq "$rounds"); do
    run_other
    run_docbench
  done
  echo "# medians over $rounds rounds (load average now $(cut -d' ' -f1-3 /proc/loadavg))"
  awk -v o="$1" -v note="${2:-}" '
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
      if (mt[o] > 0 && mc[o] > 0)
        printf "docbench/%s: throughput %.2fx, client CPU per op %.2fx%s\n", o, mt["docbench"] / mt[o], mc["docbench"] / mc[o], note
    }' "$tmp/all"
}
