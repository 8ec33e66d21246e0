#!/usr/bin/env bash
# The tuning loop of the README, measured (issue 12): tune the whole
# evaluation from the hand-set `full` start on the shared collections plus
# the bundled self-play sample, then prove it over the board.
#
# Usage: benches/proof.sh [PART...]  (default: tune verify classical)
#   tune        tuned.toml from human + TCEC (evaluation labels) + data/
#   verify      SPRT [0, 10] of tuned.toml against the hand-set full preset
#               at 10,000 nodes per move
#   classical   400 games of tuned.toml against the classical preset at
#               10,000 nodes per move
#   timed       400 games of tuned.toml against full at 10+0.1
#   stockfish   100 games each against Stockfish UCI_Elo 2100 and 2300, 10+0.1
#   generation2 self-play of tuned.toml, tuned again, against tuned.toml
#   ablation    each set of tuned.toml zeroed: held-out log-loss and 200
#               games against tuned.toml at 10,000 nodes per move
# Outputs go to $PROOF_OUT (default proof/), one file per step; a step
# whose output exists is not redone (delete it to redo).
set -euo pipefail
cd "$(dirname "$0")/.."
parts=("$@"); [ ${#parts[@]} -gt 0 ] || parts=(tune verify classical)
if [ ! -d ../shared/data/human ]; then
    echo "SKIPPED: ../shared/data is absent (the shared game collections are not beside the repository)"
    exit 0
fi
cargo build --release --quiet --bin pgntune
bin=$PWD/target/release/pgntune
out=${PROOF_OUT:-proof}
mkdir -p "$out"
data=(../shared/data/engine/tcec/*.pgn.zst data/selfplay.pgn.zst ../shared/data/human/*.pgn)
tune_options=(--features full --quiet qsearch --eval-labels --eval-weight 0.5 --holdout 0.05 --lambda 1e-2 --freeze material_tapered)
stockfish=/usr/games/stockfish

for part in "${parts[@]}"; do case $part in
tune)
    [ -e "$out/tuned.toml" ] || "$bin" tune "${data[@]}" "${tune_options[@]}" --weights-out "$out/tuned.toml" | tee "$out/tune.txt" ;;
verify)
    "$bin" verify "$out/tuned.toml" --baseline full --nodes 10000 -j 2 --pgn-out "$out/verify.pgn" --force | tee "$out/verify.txt" || true ;;
classical)
    "$bin" verify "$out/tuned.toml" --baseline classical --nodes 10000 -j 2 --max-pairs 200 --sprt "elo0=-90 elo1=90 alpha=0.001 beta=0.001" \
        --pgn-out "$out/classical.pgn" --force | tee "$out/classical.txt" || true ;;
timed)
    "$bin" verify "$out/tuned.toml" --baseline full --tc 10+0.1 -j 2 --max-pairs 200 --sprt "elo0=-90 elo1=90 alpha=0.001 beta=0.001" \
        --pgn-out "$out/timed.pgn" --force | tee "$out/timed.txt" || true ;;
stockfish)
    for elo in 2100 2300; do
        "$bin" match -q --force -j 2 --pairs 50 --tc 10+0.1 --seed "$elo" \
            --engine "name=tuned weights=$out/tuned.toml" \
            --engine "name=stockfish-$elo cmd=$stockfish option.UCI_LimitStrength=true option.UCI_Elo=$elo option.Threads=1 option.Hash=16" \
            --pgn-out "$out/stockfish-$elo.pgn" | tee "$out/stockfish-$elo.txt"
    done ;;
generation2)
    [ -e "$out/gen2-games.pgn.zst" ] || "$bin" selfplay --weights "$out/tuned.toml" --games 2000 --nodes 3000 --seed 2 --out "$out/gen2-games.pgn.zst"
    [ -e "$out/tuned2.toml" ] || "$bin" tune "${data[@]}" "$out/gen2-games.pgn.zst" "${tune_options[@]}" --prior "$out/tuned.toml" \
        --weights-out "$out/tuned2.toml" | tee "$out/tune2.txt"
    "$bin" verify "$out/tuned2.toml" --baseline "$out/tuned.toml" --nodes 10000 -j 2 --max-pairs 200 \
        --pgn-out "$out/generation2.pgn" --force | tee "$out/generation2.txt" || true ;;
ablation)
    [ -e "$out/heldout.parquet" ] || "$bin" extract -q ../shared/data/engine/*.pgn --features full --quiet qsearch -o "$out/heldout.parquet"
    for set in pst bishop_pair tempo pawns rooks mobility threats king_safety; do
        "$bin" features --columns "$set" | sed '1,/^$/d' > "$out/columns-$set.txt"
        python3 - "$out/tuned.toml" "$out/columns-$set.txt" "$set" > "$out/without-$set.toml" <<'PY'
import json, sys, tomllib
src, columns, drop = sys.argv[1:]
w = tomllib.load(open(src, "rb"))
names = set(open(columns).read().split())
print(f'format = {w["format"]}\nname = "without {drop}"\nfeatures = {json.dumps(w["features"])}\nscale = {w["scale"]}\n\n[weights]')
for k, v in w["weights"].items():
    print(f"{k} = {0.0 if k in names else v}")
PY
        loss=$("$bin" evaluate "$out/heldout.parquet" --weights "$out/without-$set.toml" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["log_loss"])')
        echo "without $set: held-out log-loss $loss" | tee -a "$out/ablation.txt"
        "$bin" verify "$out/tuned.toml" --baseline "$out/without-$set.toml" --nodes 10000 -j 2 --max-pairs 100 --sprt "elo0=-90 elo1=90 alpha=0.001 beta=0.001" \
            --pgn-out "$out/ablation-$set.pgn" --force -q | tail -1 | tee -a "$out/ablation.txt" || true
    done ;;
*) echo "unknown part '$part'" >&2; exit 2 ;;
esac; done
