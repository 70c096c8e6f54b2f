#!/usr/bin/env bash
# The capacity search's repeatability and its confirmation, on SQLite, embedded PostgreSQL
# and a private MariaDB: the same search REPEATS times per target, each on data loaded
# afresh (a target per repetition: its own SQLite file, its own embedded PostgreSQL, its own
# table on MariaDB — a workload that updates would otherwise leave each search a more
# bloated table than the one before), the rates found and whether they lie within ±10 % of
# each other; and per search, its confirmation at the rate found (which must hold the SLO)
# and its last trial at 1.1× that rate on the same data (`docbench capacity --above`,
# which must not).
#
# usage: bench/capacity-repeat.sh DOCBENCH_BINARY [SLO='p99<5ms'] [TRIAL=10s] [REPEATS=3]
# env:   TARGETS   names to run, of: sqlite postgres mariadb (default: all three)
#        RECORDS (10000) THREADS (8) THREADS_SQLITE (2) WORKLOAD (workloada) PRECISION (5%)
#        WARMUP (2s) MAX_TIME (15m, one search) OUT (default: a temporary directory, kept)
#        PROPS_SQLITE, PROPS_POSTGRES, PROPS_MARIADB: more properties of that target, as
#        YAML flow entries (e.g. PROPS_SQLITE='sqlite.synchronous: normal')
# SQLite gets fewer threads: its writers take one lock in turn, and a writer that finds it
# taken sleeps in SQLite's busy handler (1, 2, 5 ms …), so extra threads only add those
# sleeps to the tail, and the p99 the search judges then varies from search to search.
# The SLO is written as `docbench capacity --slo` takes it and as a --threshold reads it:
# 'p99<5ms' or 'p99(READ)<2ms'. Needs python3 to read the result files.
# Run it on a quiet machine: on a busy one, the searches mostly measure the neighbours.
set -euo pipefail
bin=$(realpath "$1") slo=${2:-p99<5ms} trial=${3:-10s} repeats=${4:-3}
records=${RECORDS:-10000} threads=${THREADS:-8} wl=${WORKLOAD:-workloada}
declare -A nthreads=([sqlite]=${THREADS_SQLITE:-2} [postgres]=$threads [mariadb]=$threads)
precision=${PRECISION:-5%} warmup=${WARMUP:-2s} maxtime=${MAX_TIME:-15m}
out=${OUT:-$(mktemp -d -t capacity-repeat.XXXXXX)}
mkdir -p "$out"
declare -A form=([sqlite]='"sqlite:study.sqlite"' [postgres]='"postgres:embedded", properties: {pg.datadir: temp}'
  [mariadb]='"mariadb:local"')
read -r -a names <<<"${TARGETS:-sqlite postgres mariadb}"

targets() { # $1: suffix of the names
  for n in "${names[@]}"; do
    local f=${form[$n]:?unknown target name $n (want sqlite, postgres or mariadb)}
    local p="threadcount: ${nthreads[$n]}" extra=PROPS_${n^^}
    [ -z "${!extra:-}" ] || p="$p, ${!extra}"
    f=${f/study.sqlite/study$1.sqlite}
    case $f in *properties:*) f="${f%\}}, $p}" ;; *) f="$f, properties: {$p}" ;; esac
    echo "  - {name: $n$1, target: $f}"
  done
}

# 1. The same search REPEATS times per target: a target per repetition (NAME-K), each loaded
# afresh and searched once.
cat >"$out/repeat.yaml" <<EOF
name: capacity-repeat
title: "The same capacity search, $repeats times per target"
targets:
$(for k in $(seq "$repeats"); do targets "-$k"; done)
properties: {recordcount: $records}
workloads: [{name: w, workload: $wl}]
rounds: 1
warmup: $warmup
duration: 1s
capacity: {slo: "$slo", trial: $trial, precision: "$precision", max_time: $maxtime}
EOF
"$bin" study "$out/repeat.yaml" --out "$out/repeat" >/dev/null

python3 - "$out/repeat" <<'EOF' || status=$?
import json, os, statistics, sys
d = sys.argv[1]
runs = json.load(open(os.path.join(d, "runs.json")))["runs"]
by = {}
ok = True
slo = lambda tr: "; ".join(f"{s['threshold']} {s['value'] / 1e3:.2f}ms" for s in tr.get("slo", []))
for r in runs:
    if not r.get("capacity"):
        continue
    t = r["target"].rsplit("-", 1)[0]
    by.setdefault(t, [])
    if not r.get("file"):
        by[t].append(0)
        print(f"{t} search {len(by[t])}: no result ({r.get('error', '')})")
        continue
    c = json.load(open(os.path.join(d, r["file"])))["capacity"]
    rate = c.get("sustainable_ops_per_sec", 0)
    by[t].append(rate)
    line = f"{t} search {len(by[t])}: {rate:.0f} ops/s ({c['limit']}, {len(c.get('trials', []))} trials"
    if c.get("generator_limited"):
        line += ", generator-limited: " + c["generator_limited"]
    line += ")"
    if rate:
        conf = [tr for tr in c["trials"] if tr["stage"] == "confirm" and tr["target_ops_per_sec"] == rate]
        above = [tr for tr in c["trials"] if tr["stage"] == "above"]
        a = c.get("above") or {}
        held = bool(c.get("confirmed") and conf and conf[-1]["pass"])
        missed = bool(a.get("target_ops_per_sec") and not a.get("held"))
        line += f"; confirmation {'held' if held else 'did not hold'} ({slo(conf[-1]) if conf else 'none'})"
        if above:
            line += f"; at {a.get('target_ops_per_sec', 0):.0f} ops/s (1.1×) {'missed' if missed else 'held'} ({', '.join(slo(x) for x in above)})"
        else:
            line += "; the check at 1.1× " + a.get("absent", "did not run")
        ok = ok and held and missed
        line += ": " + ("ok" if held and missed else "FAIL")
    print(line)
for t, rs in by.items():
    if 0 in rs:
        print(f"{t}: FAIL: a search found no rate")
        ok = False
        continue
    spread = max(rs) / min(rs) - 1
    ok = ok and spread <= 0.10
    print(f"{t}: rates {', '.join(f'{r:.0f}' for r in rs)} ops/s, median {statistics.median(rs):.0f}; "
          f"highest/lowest = {1 + spread:.3f}: within ±10 %: {'ok' if spread <= 0.10 else 'FAIL'}")
sys.exit(0 if ok else 1)
EOF
echo "results in $out"
exit "${status:-0}"
