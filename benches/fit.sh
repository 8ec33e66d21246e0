#!/usr/bin/env bash
# Fitting speed: `pgntune tune` end to end on the 2015 article's data set
# (the original program takes about 8 s), the fit alone after loading, and
# merging + fitting 10 million synthetic rows.
#
# Usage: benches/fit.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
pgn=../shared/data/pgnlearn/OpenRating.pgn
if [ ! -e "$pgn" ]; then
    echo "SKIPPED: $pgn is absent (the shared game collections are not beside the repository)"
    exit 0
fi
cargo build --release --quiet --bin pgntune --example fit_synthetic
bin=target/release/pgntune

best_wall=""; best_fit=""
for _ in $(seq "$runs"); do
    t0=$(date +%s.%N)
    "$bin" tune -q "$pgn" --draws exclude > /dev/null
    wall=$(echo "$(date +%s.%N) - $t0" | bc -l)
    fit_s=$("$bin" tune -q "$pgn" --draws exclude --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["seconds"])')
    best_wall=$(printf '%s\n%s\n' "$wall" "$best_wall" | grep . | sort -g | head -1)
    best_fit=$(printf '%s\n%s\n' "$fit_s" "$best_fit" | grep . | sort -g | head -1)
done
awk -v w="$best_wall" -v f="$best_fit" -v n="$runs" 'BEGIN {
    printf "tune OpenRating.pgn --draws exclude, end to end: %.3f s (best of %d; target < 0.15 s)\n", w, n
    printf "the fit alone, after loading:                  %.2f ms (target < 10 ms)\n", f * 1000 }'
target/release/examples/fit_synthetic 10000000
