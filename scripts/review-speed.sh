#!/usr/bin/env bash
# Times a 23-requirement review over 17 PDFs: the ten PDFs of ../shared/data/realdocs/docs
# and the blind project set's seven documents rendered as PDFs by
# `examples/review_speed.rs`. Prints the page count, the wall time of `attest review`
# after ingest (three runs, the median) and its per-stage times.
# Usage: scripts/review-speed.sh [WORKDIR]   (default /tmp/review-speed)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-/tmp/review-speed}
docs=../shared/data/realdocs/docs
bin=target/release/attest
cargo build --release --quiet
cargo run --release --quiet --example review_speed "$work"
rm -rf "$work/index"
"$bin" ingest --index "$work/index" "$work/pdf" "$docs"/*.pdf >/dev/null 2>"$work/ingest.log" || true
pages=0
for f in "$work"/pdf/*.pdf "$docs"/*.pdf; do
  pages=$((pages + $(pdfinfo "$f" | awk '/^Pages:/ {print $2}')))
done
echo "PDFs: $(ls "$work"/pdf/*.pdf "$docs"/*.pdf | wc -l), pages: $pages"
walls=()
for i in 1 2 3; do
  start=$(date +%s.%N)
  "$bin" review "$work/checklist.json" --index "$work/index" --format json \
    >"$work/review.json" 2>/dev/null || true
  end=$(date +%s.%N)
  walls+=("$(echo "$end - $start" | bc)")
done
printf '%s\n' "${walls[@]}" | sort -n | sed -n 2p | xargs printf 'review wall (median of 3): %.2f s\n'
python3 - "$work/review.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("requirements:", len(d["requirements"]))
print("stages (ms):", {k: round(v) for k, v in sorted(d["timings_ms"].items())})
PY
