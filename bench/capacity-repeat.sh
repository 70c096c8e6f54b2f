#!/usr/bin/env bash
# The capacity search's repeatability and its confirmation, on SQLite, embedded PostgreSQL
# and a private MariaDB: the same search REPEATS times per target, each on data loaded
# afresh (a target per repetition: its own SQLite file, its own embedded PostgreSQL, its own
# table on MariaDB — a workload that updates would otherwise leave each search a more
# bloated table than the one before), the rates found and whether they lie within ±10 % of
# each other; then, per target, a run at the median rate and one at 1.1× it, each checked
# against the SLO (the first must hold it, the second must not).
#
# usage: bench/capacity-repeat.sh DOCBENCH_BINARY [SLO='p99<5ms'] [TRIAL=10s] [REPEATS=3]
# env:   TARGETS   names to run, of: sqlite postgres mariadb (default: all three)
#        RECORDS (10000) THREADS (8) THREADS_SQLITE (2) WORKLOAD (workloada) PRECISION (5%)
#        WARMUP (2s) MAX_TIME (15m, one search) OUT (default: a temporary directory, kept)
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

targets() { # $1: extra target properties, as YAML, or empty; $2: suffix of names
  for n in "${names[@]}"; do
    local f=${form[$n]:?unknown target name $n (want sqlite, postgres or mariadb)}
    local p="threadcount: ${nthreads[$n]}${1:+, $1}"
    f=${f/study.sqlite/study$2.sqlite}
    case $f in *properties:*) f="${f%\}}, $p}" ;; *) f="$f, properties: {$p}" ;; esac
    echo "  - {name: $n$2, target: $f}"
  done
}

# 1. The same search REPEATS times per target: a target per repetition (NAME-K), each loaded
# afresh and searched once.
cat >"$out/repeat.yaml" <<EOF
name: capacity-repeat
title: "The same capacity search, $repeats times per target"
targets:
$(for k in $(seq "$repeats"); do targets "" "-$k"; done)
properties: {recordcount: $records}
workloads: [{name: w, workload: $wl}]
rounds: 1
warmup: $warmup
duration: 1s
capacity: {slo: "$slo", trial: $trial, precision: "$precision", max_time: $maxtime}
EOF
"$bin" study "$out/repeat.yaml" --out "$out/repeat" >/dev/null

rates=$(python3 - "$out/repeat" <<'EOF'
import json, os, sys
d = sys.argv[1]
runs = json.load(open(os.path.join(d, "runs.json")))["runs"]
by = {}
for r in runs:
    if not r.get("capacity"):
        continue
    rate = 0
    if r.get("file"):
        c = json.load(open(os.path.join(d, r["file"])))["capacity"]
        rate = c.get("sustainable_ops_per_sec", 0)
        label = c["limit"] + ("" if c.get("confirmed") else ", unconfirmed") + f", {len(c.get('trials', []))} trials"
        if c.get("generator_limited"):
            label += ", generator-limited: " + c["generator_limited"]
    else:
        label = r.get("error", "no result")
    by.setdefault(r["target"].rsplit("-", 1)[0], []).append((rate, label))
ok = True
for t, xs in by.items():
    rs = [x[0] for x in xs if x[0] > 0]
    for i, (rate, label) in enumerate(xs, 1):
        print(f"# {t} search {i}: {rate:.0f} ops/s ({label})", file=sys.stderr)
    if len(rs) < len(xs) or not rs:
        print(f"# {t}: FAIL: a search found no rate", file=sys.stderr)
        ok = False
        continue
    spread = max(rs) / min(rs) - 1
    verdict = "ok" if spread <= 0.10 else "FAIL"
    ok = ok and spread <= 0.10
    med = sorted(rs)[len(rs) // 2]
    print(f"# {t}: rates {', '.join(f'{r:.0f}' for r in rs)} ops/s; highest/lowest = {1 + spread:.3f}: within ±10 %: {verdict}", file=sys.stderr)
    print(t, med)
sys.exit(0 if ok else 1)
EOF
) || status=$?
echo "${rates:-}" | sed '/^$/d' | while read -r t r; do printf '%s median %.0f ops/s\n' "$t" "$r"; done

# 2. Per target, a run at the median rate and at 1.1× it, each checked against the SLO.
targets_at=""
while read -r t r; do
  [[ -z $t ]] && continue
  above=$(python3 -c "print(round($r * 1.1, 3))")
  names=("$t")
  targets_at+=$(targets "target: $r" "-at-rate")$'\n'$(targets "target: $above" "-above")$'\n'
done <<<"${rates:-}"
if [[ -n $targets_at ]]; then
  cat >"$out/confirm.yaml" <<EOF
name: capacity-confirm
title: "The sustainable rate, and 10 % above it, against the SLO"
targets:
$targets_at
properties: {recordcount: $records}
workloads: [{name: w, workload: $wl}]
rounds: 1
warmup: $warmup
duration: $trial
thresholds: ["$slo", "errors<=0.1%"]
EOF
  "$bin" study "$out/confirm.yaml" --out "$out/confirm" >/dev/null || true
  python3 - "$out/confirm" <<'EOF' || status=1
import json, os, sys
d = sys.argv[1]
ok = True
for r in json.load(open(os.path.join(d, "runs.json")))["runs"]:
    if r["workload"] == "load":
        continue
    t = r["target"]
    res = json.load(open(os.path.join(d, r["file"]))) if r.get("file") else {}
    rate = res.get("options", {}).get("target_ops_per_sec", 0)
    failed = r.get("thresholds_failed", [])
    holds = not failed and not r.get("error")
    want = t.endswith("-at-rate")
    good = holds == want
    ok = ok and good
    print(f"{t}: run at {rate:.0f} ops/s: SLO {'held' if holds else 'missed: ' + '; '.join(failed or [r.get('error', '')])}"
          f" — want {'held' if want else 'missed'}: {'ok' if good else 'FAIL'}")
sys.exit(0 if ok else 1)
EOF
fi
echo "results in $out"
exit "${status:-0}"
