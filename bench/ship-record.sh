#!/usr/bin/env bash
# Ships a study directory into the record kept beside docs/reproductions.md:
# record/NAME gets the study file as run, runs.json, summary.md, findings.json and
# every result file with its histograms in one gzipped tar archive, results.tar.gz
# (`tar -xzf` gives back results/…/X.json; one stream shares what the files repeat: the
# record's result files took 17.9 MB gzipped one by one, 10.7 MB so), but without a
# run's per-second series (what `docbench compare` tests windows on) or the histograms
# of a capacity search's trials (see slim below), so that the record keeps under 20 MB.
# summary.md and findings.json are rendered again from the shipped files.
# `docbench report record/NAME` re-renders it from those files, and
# internal/study's TestShippedRecord holds docs/reproductions.md to what they give.
#
# usage: bench/ship-record.sh STUDY_DIR NAME
#   NAME is the study's name for a full-length run, NAME-source for --scale source.
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 STUDY_DIR NAME" >&2; exit 2; }
command -v python3 >/dev/null || { echo "$0: needs python3" >&2; exit 1; }
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
# slim drops what the record leaves out: a run's per-second series, and the
# histograms of a capacity search's trials (each keeps its percentiles, its windows
# and its SLO counts, the evidence its rate is decided on; the search's answer and
# the run's own histograms stay). A histogram written in the earlier form, base64
# once more than HdrHistogram's own ("SElTVEZ…"), is stored in HdrHistogram's form
# ("HISTF…"), which docbench reads alike. Python keeps every number as written (jq
# would round integers past 2^53).
slim() {
  python3 -c '
import base64, json, sys
def hdrs(o, drop):
    if isinstance(o, dict):
        h = o.get("hdr")
        if drop:
            o.pop("hdr", None)
        elif isinstance(h, str) and h and not h.startswith("HISTF"):
            o["hdr"] = base64.b64decode(h).decode()
        for v in o.values(): hdrs(v, drop)
    elif isinstance(o, list):
        for v in o: hdrs(v, drop)
d = json.load(sys.stdin)
d.pop("series", None)
hdrs((d.get("capacity") or {}).get("trials"), True)
hdrs(d, False)
json.dump(d, sys.stdout, separators=(",", ":"), ensure_ascii=False)'
}
cp "$src/study.yaml" "$src/summary.md" "$dst/"
strip "$src/runs.json" > "$dst/runs.json"
if [ -f "$src/findings.json" ]; then cp "$src/findings.json" "$dst/"; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$src" && find results -name '*.json' | sort) | while read -r f; do
  mkdir -p "$tmp/$(dirname "$f")"
  strip "$src/$f" | slim > "$tmp/$f"
done
# The same files give the same archive: names sorted, no owners or times.
(cd "$tmp" && tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 --format=ustar -cf - results) |
  gzip -9n > "$dst/results.tar.gz"
# summary.md and findings.json as this source tree renders them from the shipped files
# (what TestShippedRecord checks); the other outputs are not shipped.
# DOCBENCH=path uses a built binary of this tree instead of go run.
${DOCBENCH:-go run ./cmd/docbench} report "$dst" >/dev/null
rm -f "$dst/results.csv" "$dst/summary.txt" "$dst/report.html"
du -sh "$dst"
du -sh record
