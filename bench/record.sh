#!/usr/bin/env bash
# The record behind docs/reproductions.md: every built-in study with claims at full
# length, one at a time, then containment, doc-vs-relational, concurrency and array-search at their sources'
# sizes (--scale source); partial-update's full length already has its source's 10,000
# rows, so its --scale source would only repeat it. Run it on a quiet machine: nothing
# else running, since every figure is a throughput or a latency.
#
# usage: bench/record.sh [RESULTS_DIR=record-results]
#   WITH_MARIADB=0       leave out --with mariadb and --with mariadb-async (the studies
#                        that declare them); by default they are given, which needs a
#                        local MariaDB install
#   MONGODB_URL=mongodb://host/db
#                        add --with mongodb=URL to the studies that declare it (a real
#                        mongod); without it their MongoDB claims are not measurable here
#   STUDIES="a b"        run only these studies at full length (default: every study
#                        with claims); SOURCE="c d" only these at --scale source
#                        (default: containment doc-vs-relational concurrency array-search;
#                        "" none).
#                        The record can then be made in parts, each on a quiet machine.
#
# Each study writes its directory under RESULTS_DIR (summary.md, report.html, the
# results); the wall time of each is printed and appended to RESULTS_DIR/times.txt.
# A study that fails is reported and the next one runs; the exit code is non-zero if
# any failed.
set -uo pipefail
out=${1:-record-results}
cd "$(dirname "$0")/.."
mkdir -p "$out"
go build -buildvcs=auto -o "$out/docbench" ./cmd/docbench || exit 1

# declares NAME OPTION: whether studies/NAME.yaml declares the opt-in target OPTION.
declares() { awk '/^with:/{w=1; next} /^[a-z]/{w=0} w && $1 == "'"$2"':" {f=1} END {exit !f}' "studies/$1.yaml"; }

failed=0
run() { # run DIR STUDY [ARGS...]
  local dir=$1 study=$2; shift 2
  local args=("$@")
  if [ "${WITH_MARIADB:-1}" != 0 ] && declares "$study" mariadb; then args+=(--with mariadb); fi
  if [ "${WITH_MARIADB:-1}" != 0 ] && declares "$study" mariadb-async; then args+=(--with mariadb-async); fi
  if [ -n "${MONGODB_URL:-}" ] && declares "$study" mongodb; then args+=(--with "mongodb=$MONGODB_URL"); fi
  echo "== $(date -u +%FT%TZ) docbench study $study ${args[*]} --out $out/$dir" | tee -a "$out/times.txt"
  local start=$SECONDS rc=0
  "$out/docbench" study "$study" "${args[@]}" --out "$out/$dir" || rc=$?
  local t=$((SECONDS - start))
  printf '%-32s %dm%02ds  exit %d\n' "$dir" $((t / 60)) $((t % 60)) "$rc" | tee -a "$out/times.txt"
  [ "$rc" = 0 ] || failed=1
}

for s in ${STUDIES-$(grep -l '^claims:' studies/*.yaml | xargs -n1 basename | sed 's/\.yaml$//')}; do
  run "$s" "$s"
done
for s in ${SOURCE-containment doc-vs-relational concurrency array-search}; do
  run "$s-source" "$s" --scale source
done
exit "$failed"
