#!/usr/bin/env bash
# Where docbench's own CPU goes on an insert into layout=relational against layout=column
# (jsonb): the reviews documents of the doc-vs-relational study, 1,000 loaded, then inserts
# for TIME seconds on a throwaway embedded PostgreSQL per layout, each with a CPU profile of
# docbench. Prints per layout the inserts/s, docbench's CPU per insert (profile samples over
# inserts) and the profile's largest cumulative entries on docbench's side.
#
# usage: bench/relational-insert-profile.sh DOCBENCH_BINARY [TIME=10] [OUT=temporary directory, kept]
# Run it on a quiet machine; the binary must be the one profiled (pprof reads its symbols).
set -euo pipefail
bin=$(realpath "$1") secs=${2:-10}
out=${3:-$(mktemp -d -t relational-profile.XXXXXX)}
mkdir -p "$out"
for layout in column relational; do
  t=(-t postgres:embedded -p "pg.datadir=$out/pg-$layout" -p "layout=$layout" -p document.shape=reviews -p recordcount=1000 -P workloadc)
  "$bin" load "${t[@]}" >"$out/load-$layout.txt" 2>&1
  "$bin" run "${t[@]}" -p readproportion=0 -p insertproportion=1 -p "maxexecutiontime=$secs" -p operationcount=0 \
    --cpuprofile "$out/$layout.prof" --out "$out/$layout.json" >"$out/run-$layout.txt" 2>&1
  python3 - "$out/$layout.json" "$layout" <<'PYEND'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]}: {r['throughput_ops_per_sec']:.0f} inserts/s, {r['operations']} inserts")
PYEND
  go tool pprof -top -cum -nodecount=80 "$bin" "$out/$layout.prof" 2>/dev/null |
    awk -v n="$(python3 -c "import json;print(json.load(open('$out/$layout.json'))['operations'])")" '
      /^Duration/ { split($0, a, "Total samples = "); s = a[2]; sub(/ .*/, "", s)
        v = s + 0; if (s ~ /ms$/) v /= 1000; printf "  docbench CPU %.1f µs per insert (%s of samples)\n", v * 1e6 / n, s }
      $6 ~ /session\)\.Insert$|queueDoc$|json\.Unmarshal$|Conn\)\.SendBatch$|linux\.Syscall6$|runtime\.mallocgc$|AppendDoc$/ {
        printf "  %6s %7s  %s\n", $4, $5, $6 }'
done
echo "profiles and results in $out"
