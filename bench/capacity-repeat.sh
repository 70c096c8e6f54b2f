#!/usr/bin/env bash
# The capacity search's repeatability, and whether its band can be trusted: the same search
# REPEATS times per target — SQLite (its default settings), embedded PostgreSQL and a private
# MariaDB —, each on data loaded afresh; then, on the data each search left, a fixed-rate
# `docbench run --rate` at the band's holding edge with the same warm-up, which must hold the
# SLO. It prints one line per search (the band, its trials and wall time) and per target
# whether the bands overlap.
#
# usage: bench/capacity-repeat.sh DOCBENCH_BINARY [SLO='p99<5ms'] [REPEATS=3]
# needs: python3; for mariadb, the local install (apt-get install mariadb-server)
# env:   TARGETS   names to run, of: sqlite postgres mariadb (default: all three)
#        RECORDS (20000) THREADS (8) THREADS_SQLITE (2) WORKLOAD (workloadc)
#        WARMUP (2s) CHECK (10s: the fixed-rate run's length) OUT (default: a temporary
#        directory, kept) and CAPACITY_FLAGS (more flags of every search, e.g. --trial 5s)
# The searches run at docbench capacity's defaults (--trial, --precision, --confidence,
# --max-time) unless CAPACITY_FLAGS says otherwise. The default workload only reads: the
# searches then measure the same server state, and repeat; an updating one (WORKLOAD=workloada)
# bloats the table and fills the WAL as the search goes, and its band moves down with it.
# SQLite gets fewer threads: its writers take one lock in turn. Needs python3.
# Run it on a quiet machine: on a busy one, the searches mostly measure the neighbours.
#
# Found on a quiet 2-core machine (workload C, 20,000 records, 2 threads on SQLite and 8 on
# the servers, --slo 'p99<5ms', every other setting at docbench capacity's defaults):
#   target      search  band (ops/s)      undecided in it          trials  wall  run --rate at the holding edge
#   SQLite      1       77,116–137,096    85,685, 102,822          9       103 s p99 1.844 ms: held
#   SQLite      2       87,652–109,565    98,609                   9        91 s p99 2.320 ms: held
#   SQLite      3       89,866–112,332    101,099                  9        92 s p99 4.530 ms: held
#   PostgreSQL  1       33,562–47,945     38,356, 43,151           12      126 s p99 1.144 ms: held
#   PostgreSQL  2       34,223–58,668     39,112, 44,001, 48,890   13      146 s p99 0.940 ms: held
#   PostgreSQL  3       38,810–51,746     43,122                   10      106 s p99 2.189 ms: held
#   MariaDB     1       22,387–29,849     26,118                   7        81 s p99 1.485 ms: held
#   MariaDB     2       18,848–30,158     20,733, 22,618, 26,388   13      149 s p99 0.591 ms: held
#   MariaDB     3       19,281–30,850     23,138                   8        89 s p99 0.711 ms: held
# The bands of each target overlapped and every holding edge held again at a fixed rate; every
# search took under three minutes. Searches of different sittings may not overlap: the knee
# moves between loads.
set -euo pipefail
bin=$(realpath "$1") slo=${2:-p99<5ms} repeats=${3:-3}
records=${RECORDS:-20000} wl=${WORKLOAD:-workloadc} warmup=${WARMUP:-2s} check=${CHECK:-10s}
declare -A nthreads=([sqlite]=${THREADS_SQLITE:-2} [postgres]=${THREADS:-8} [mariadb]=${THREADS:-8})
out=${OUT:-$(mktemp -d -t capacity-repeat.XXXXXX)}
mkdir -p "$out"
read -r -a names <<<"${TARGETS:-sqlite postgres mariadb}"
read -r -a extra <<<"${CAPACITY_FLAGS:-}"

# mariadb:local is a fresh server for each command: the searches need one that keeps its data
# from the load to the fixed-rate run, started here as docbench starts its own (facts: the local
# install, no options but the data directory, socket, port and loopback).
maria_port=""
start_mariadb() {
	local d=$out/mariadb
	mkdir -p "$d"
	[ -d "$d/data/mysql" ] || mariadb-install-db --no-defaults --datadir="$d/data" --user=root \
		--auth-root-authentication-method=normal --skip-test-db >"$d/install.log" 2>&1
	maria_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	rm -f "$d/error.log"
	mariadbd --no-defaults --datadir="$d/data" --socket="$d/mariadbd.sock" --port="$maria_port" --bind-address=127.0.0.1 \
		--pid-file="$d/mariadbd.pid" --log-error="$d/error.log" --skip-name-resolve --user=root &
	for _ in $(seq 150); do
		mariadb-admin --no-defaults -S "$d/mariadbd.sock" -uroot ping >/dev/null 2>&1 && break
		sleep 0.2
	done
	mariadb --no-defaults -S "$d/mariadbd.sock" -uroot -e "CREATE DATABASE IF NOT EXISTS docbench"
	trap 'kill "$(cat "$out/mariadb/mariadbd.pid")" 2>/dev/null || true' EXIT
}
case " ${names[*]} " in *" mariadb "*) start_mariadb ;; esac

target() { # $1 name, $2 repetition
	case $1 in
	sqlite) echo "sqlite:$out/repeat-$2.sqlite" ;;
	postgres) echo "postgres:embedded" ;;
	mariadb) echo "mysql://root@127.0.0.1:$maria_port/docbench" ;;
	*) echo "unknown target name $1 (want sqlite, postgres or mariadb)" >&2; exit 2 ;;
	esac
}

for k in $(seq "$repeats"); do # alternating: target by target within each repetition
	for n in "${names[@]}"; do
		t=$(target "$n" "$k")
		props=(-P "$wl" -p recordcount="$records" --threads "${nthreads[$n]}")
		"$bin" load -t "$t" "${props[@]}" --status 0 >/dev/null 2>&1
		start=$(date +%s)
		"$bin" capacity -t "$t" "${props[@]}" --slo "$slo" --warmup "$warmup" "${extra[@]}" \
			--out "$out/$n-$k.json" --html "" >"$out/$n-$k.txt" 2>"$out/$n-$k.err" || true
		echo $(($(date +%s) - start)) >"$out/$n-$k.secs"
		rate=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["capacity"].get("sustainable_ops_per_sec", 0))' "$out/$n-$k.json" 2>/dev/null || echo 0)
		if [ "$rate" != 0 ]; then
			"$bin" run -t "$t" "${props[@]}" -p operationcount=0 --rate "$rate" --warmup "$warmup" --duration "$check" \
				--threshold "$slo" --status 0 --out "$out/$n-$k-check.json" >/dev/null 2>&1 || true
		fi
	done
done

python3 - "$out" "$slo" "$repeats" "${names[@]}" <<'EOF' || status=$?
import json, os, sys
d, slo, repeats, names = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
ok = True
for n in names:
    bands = []
    for k in range(1, repeats + 1):
        try:
            c = json.load(open(os.path.join(d, f"{n}-{k}.json")))["capacity"]
        except OSError:
            print(f"{n} search {k}: no result: FAIL (see {n}-{k}.err)")
            ok = False
            continue
        secs = int(open(os.path.join(d, f"{n}-{k}.secs")).read())
        lo, hi = c.get("sustainable_ops_per_sec", 0), c.get("lowest_failing_ops_per_sec", 0)
        und = (c.get("band") or {}).get("undecided_ops_per_sec", [])
        line = f"{n} search {k}: band {lo:,.0f}–{hi:,.0f} ops/s"
        if und:
            line += f" ({', '.join(f'{u:,.0f}' for u in und)} undecided)"
        line += f", {c['limit']}, {len(c['trials'])} trials, {secs} s"
        check = os.path.join(d, f"{n}-{k}-check.json")
        if lo and os.path.exists(check):
            r = json.load(open(check))
            t = (r.get("thresholds") or [{}])[0]
            held = t.get("pass", False)
            ok = ok and held
            line += f"; run --rate {lo:,.0f}: {slo} measured {t.get('value', 0) / 1e3:.3f} ms: {'held' if held else 'MISSED'}"
        elif lo:
            line += "; the fixed-rate run left no result: FAIL"
            ok = False
        else:
            line += ": FAIL: no rate held"
            ok = False
        print(line)
        bands.append((lo, hi or float("inf")))
    overlap = max(b[0] for b in bands) <= min(b[1] for b in bands)
    ok = ok and overlap
    print(f"{n}: the {len(bands)} bands {'overlap' if overlap else 'do NOT overlap'} "
          f"(highest holding edge {max(b[0] for b in bands):,.0f}, lowest failing edge {min(b[1] for b in bands):,.0f})")
sys.exit(0 if ok else 1)
EOF
echo "results in $out"
exit "${status:-0}"
