#!/usr/bin/env bash
# Match throughput with the in-process engine at --nodes 5000: games per
# minute on one and two threads, the share of game time spent in the
# engine's search, and the time per game spent outside it (move
# application, arbitration, bookkeeping, PGN and state writing).
#
# Usage: benches/match.sh [PAIRS]   (default 100 pairs = 200 games per run)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-100}
cargo build --release --quiet --bin pgntune
bin=target/release/pgntune
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for threads in 1 2; do
    echo "== $((2 * pairs)) games, --nodes 5000, $threads thread(s) =="
    "$bin" match -q -j "$threads" --pairs "$pairs" --nodes 5000 --seed 7 \
        --engine "name=classical weights=classical" --engine "name=kaissa weights=kaissa" \
        --pgn-out "$out/games-$threads.pgn" 2>&1 >/dev/null | tee "$out/timing-$threads"
done
cmp -s "$out/games-1.pgn" "$out/games-2.pgn" && echo "the PGN files of the two runs are identical"
rate() { grep -o '[0-9.]* games/min' "$1" | cut -d' ' -f1; }
awk -v a="$(rate "$out/timing-1")" -v b="$(rate "$out/timing-2")" 'BEGIN { printf "two threads / one thread: %.2f (target >= 1.8)\n", b / a }'
