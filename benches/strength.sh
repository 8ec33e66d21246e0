#!/usr/bin/env bash
# Playing strength of the bundled engine (classical preset with its
# piece-square tables) against Debian's Stockfish 15.1 limited with
# UCI_LimitStrength at UCI_Elo 1500, 1800 and 2100, at 10 s + 0.1 s per
# game, colours alternating over varied openings, and the engine's speed.
#
# Usage: benches/strength.sh [PAIRS] [CONCURRENCY]   (default 25 pairs = 50 games per level)
# About 30 minutes on two cores with the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-25}
concurrency=${2:-2}
stockfish=/usr/games/stockfish
if [ ! -x "$stockfish" ]; then
    echo "SKIPPED: $stockfish is not installed (apt-get install stockfish)"
    exit 0
fi
cargo build --release --quiet --bin pgntune
bin=target/release/pgntune
out=${STRENGTH_OUT:-$(mktemp -d)}
mkdir -p "$out"

echo "== pgntune bench (single thread, depth 12) =="
"$bin" bench | tail -3

for elo in 1500 1800 2100; do
    echo "== classical vs Stockfish UCI_Elo $elo: $((2 * pairs)) games at 10+0.1 =="
    "$bin" match -q --force -j "$concurrency" --pairs "$pairs" --tc 10+0.1 --seed "$elo" \
        --engine "name=pgntune weights=classical" \
        --engine "name=stockfish-$elo cmd=$stockfish option.UCI_LimitStrength=true option.UCI_Elo=$elo option.Threads=1 option.Hash=16" \
        --pgn-out "$out/strength-$elo.pgn"
    echo "terminations: $(grep -h '^\[Termination' "$out/strength-$elo.pgn" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
done
echo "games in $out"
