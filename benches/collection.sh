#!/usr/bin/env bash
# Tuning from a game collection (issue 30): positions from the user's own
# games, each scored by a stronger engine's search, the whole evaluation
# fitted to those scores near the hand-set start, then proved over the
# board. Every step is one pgntune command that works unchanged on any PGN
# collection.
#
# Usage: benches/collection.sh [PART...]  (default: positions label fit verify)
#   positions  one quiet position per game of $GAMES (default: the human
#              collection in ../shared/data/human), with its FEN, as EPD
#   label      each scored by Stockfish at depth 9 ($LABEL_DEPTH), -j 2, and
#              replaced by the last position of its principal variation
#   fit        the whole evaluation fitted to the labels (--eval-weight 1,
#              --lambda 1e-2, the model's K)
#   verify     SPRT [0, 10] of the fitted weights against full, 10,000 nodes
#   bundled    the same positions labelled by pgntune's own engine at depth
#              8, fitted and verified the same way (the data study's row)
#   throughput labelling speed: the bundled engine at depth 6 and 8 and
#              Stockfish at depth 9, 2,000 positions each on one engine
# Outputs go to $COLLECTION_OUT (default collection/); a step whose output
# exists is not redone. PGNTUNE_BIN names a pgntune binary to use instead
# of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
parts=("$@"); [ ${#parts[@]} -gt 0 ] || parts=(positions label fit verify)
if [ -n "${PGNTUNE_BIN:-}" ]; then
    bin=$(realpath "$PGNTUNE_BIN")
else
    cargo build --release --quiet --bin pgntune
    bin=$PWD/target/release/pgntune
fi
out=${COLLECTION_OUT:-collection}
mkdir -p "$out"
games=${GAMES:-../shared/data/human/*.pgn}
depth=${LABEL_DEPTH:-9}
stockfish=/usr/games/stockfish
fit_options=(--epd-features full --eval-weight 1 --lambda 1e-2)

for part in "${parts[@]}"; do case $part in
positions)
    # shellcheck disable=SC2086
    [ -e "$out/pos.epd" ] || "$bin" extract $games --features full --positions qsearch --sample 1 --seed 7 -o "$out/pos.epd" ;;
label)
    [ -e "$out/labelled.epd" ] || "$bin" label "$out/pos.epd" --uci "$stockfish" --depth "$depth" -j 2 --resolve-pv -o "$out/labelled.epd" 2>&1 | tee "$out/label.txt" ;;
fit)
    [ -e "$out/tuned.toml" ] || "$bin" fit "$out/labelled.epd" "${fit_options[@]}" --weights-out "$out/tuned.toml" | tee "$out/fit.txt" ;;
verify)
    "$bin" verify "$out/tuned.toml" --baseline full --nodes 10000 -j 2 --max-pairs 600 --pgn-out "$out/verify.pgn" --force | tee "$out/verify.txt" || true ;;
bundled)
    [ -e "$out/labelled-d8.epd" ] || "$bin" label "$out/pos.epd" --depth 8 -j 2 -o "$out/labelled-d8.epd" 2>&1 | tee "$out/label-d8.txt"
    [ -e "$out/tuned-d8.toml" ] || "$bin" fit "$out/labelled-d8.epd" "${fit_options[@]}" --weights-out "$out/tuned-d8.toml" | tee "$out/fit-d8.txt"
    "$bin" verify "$out/tuned-d8.toml" --baseline full --nodes 10000 -j 2 --max-pairs 300 --pgn-out "$out/verify-d8.pgn" --force | tee "$out/verify-d8.txt" || true ;;
throughput)
    head -2000 "$out/pos.epd" > "$out/sample.epd"
    for d in 6 8; do
        "$bin" label "$out/sample.epd" --depth "$d" -j 1 -o "$out/sample-d$d.epd" --force 2>&1 | tee "$out/throughput-d$d.txt"
    done
    "$bin" label "$out/sample.epd" --uci "$stockfish" --depth "$depth" -j 1 -o "$out/sample-sf.epd" --force 2>&1 | tee "$out/throughput-sf.txt" ;;
*) echo "unknown part '$part' (positions, label, fit, verify, bundled, throughput)" >&2; exit 2 ;;
esac; done
