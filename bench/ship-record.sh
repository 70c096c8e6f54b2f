#!/usr/bin/env bash
# Ships a study directory into the record kept beside docs/reproductions.md:
# record/NAME gets the study file as run, runs.json, summary.md, findings.json and
# every result file gzipped (results/…/X.json.gz), histograms and per-second series
# kept; summary.md and findings.json are rendered again from the shipped files.
# `docbench report record/NAME` re-renders it from those files, and
# internal/study's TestShippedRecord holds docs/reproductions.md to what they give.
#
# usage: bench/ship-record.sh STUDY_DIR NAME
#   NAME is the study's name for a full-length run, NAME-source for --scale source.
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 STUDY_DIR NAME" >&2; exit 2; }
src=$1 name=$2
[ -f "$src/runs.json" ] || { echo "$src: not a study directory (no runs.json)" >&2; exit 1; }
grep -q '"incomplete"' "$src/runs.json" && { echo "$src: the study did not finish (runs.json says incomplete)" >&2; exit 1; }
src=$(cd "$src" && pwd)
cd "$(dirname "$0")/.."
dst=record/$name
rm -rf "$dst"
mkdir -p "$dst"
# A relative database file (sqlite:study.sqlite) ran in the study directory; the
# record names it as the study file wrote it, not by this machine's path.
strip() { sed "s|$src/||g" "$1"; }
cp "$src/study.yaml" "$src/summary.md" "$dst/"
strip "$src/runs.json" > "$dst/runs.json"
if [ -f "$src/findings.json" ]; then cp "$src/findings.json" "$dst/"; fi
(cd "$src" && find results -name '*.json' | sort) | while read -r f; do
  mkdir -p "$dst/$(dirname "$f")"
  strip "$src/$f" | gzip -9nc > "$dst/$f.gz"
done
# summary.md and findings.json as this source tree renders them from the shipped files
# (what TestShippedRecord checks); the other outputs are not shipped.
# DOCBENCH=path uses a built binary of this tree instead of go run.
${DOCBENCH:-go run ./cmd/docbench} report "$dst" >/dev/null
rm -f "$dst/results.csv" "$dst/summary.txt" "$dst/report.html"
du -sh "$dst"
du -sh record
