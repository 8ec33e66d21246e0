#!/usr/bin/env bash
# The tuning loop of the guide (docs/src/tuning-loop.md), measured (issue 12): the engine's own games
# with the hand-set `full` weights, the whole evaluation tuned on them from
# that start, then proved over the board.
#
# Usage: benches/proof.sh [PART...]  (default: games tune verify)
#   games       12,000 self-play games of the full preset at 2,000 nodes per
#               move (their comments carry the search's scores), and 1,000
#               more with another seed as held-out games for the ablation
#   tune        tuned.toml from those games plus the bundled sample
#   verify      SPRT [0, 10] of tuned.toml against the hand-set full preset
#               at 10,000 nodes per move
#   classical   200 games of tuned.toml against the classical preset at
#               10,000 nodes per move
#   timed       400 games of tuned.toml against full at 10+0.1
#   stockfish   100 games each against Stockfish UCI_Elo 2100 and 2300, 10+0.1
#   generation2 self-play of tuned.toml, tuned again, against tuned.toml
#   ablation    each set left out of the tune: held-out log-loss on the
#               held-out games and 200 games against tuned.toml at 10,000
#               nodes per move, into ablation.csv (data/ablation.csv is a
#               copy that notebooks/ablation.ipynb draws)
# Outputs go to $PROOF_OUT (default proof/), one file per step; a step
# whose output exists is not redone (delete it to redo). PGNTUNE_BIN names
# a pgntune binary to use instead of building one; ABLATION_PAIRS the game
# pairs of each ablation match (default 100).
set -euo pipefail
cd "$(dirname "$0")/.."
parts=("$@"); [ ${#parts[@]} -gt 0 ] || parts=(games tune verify)
if [ -n "${PGNTUNE_BIN:-}" ]; then
    bin=$(realpath "$PGNTUNE_BIN")
else
    cargo build --release --quiet --bin pgntune
    bin=$PWD/target/release/pgntune
fi
out=${PROOF_OUT:-proof}
mkdir -p "$out"
data=("$out/games.pgn.zst" data/selfplay.pgn.zst)
tune_options=(--positions qsearch --eval-labels --eval-weight 0.5 --holdout 0.05 --lambda 1e-2)
sets=(material_tapered pst bishop_pair tempo pawns rooks mobility threats king_safety)
stockfish=/usr/games/stockfish

for part in "${parts[@]}"; do case $part in
games)
    [ -e "$out/games.pgn.zst" ] || "$bin" selfplay --weights full --vary 0 --games 12000 --nodes 2000 --seed 11 --out "$out/games.pgn.zst"
    [ -e "$out/heldout-games.pgn.zst" ] || "$bin" selfplay --weights full --vary 0 --games 1000 --nodes 2000 --seed 99 --out "$out/heldout-games.pgn.zst" ;;
tune)
    [ -e "$out/tuned.toml" ] || "$bin" tune "${data[@]}" --features full "${tune_options[@]}" --weights-out "$out/tuned.toml" | tee "$out/tune.txt" ;;
verify)
    "$bin" verify "$out/tuned.toml" --baseline full --nodes 10000 -j 2 --pgn-out "$out/verify.pgn" --force | tee "$out/verify.txt" || true ;;
classical)
    # 200 games, not an SPRT: the question is by how much (at least +50), and
    # an SPRT this lopsided stops after a handful of games with no interval.
    "$bin" match -q -j 2 --pairs 100 --nodes 10000 --seed 50 \
        --engine "name=tuned weights=$out/tuned.toml" --engine "name=classical weights=classical" \
        --pgn-out "$out/classical.pgn" --force | tee "$out/classical.txt" ;;
timed)
    # A match, not an SPRT: exactly 400 games, however they go.
    "$bin" match -q -j 2 --pairs 200 --tc 10+0.1 --seed 10 \
        --engine "name=tuned weights=$out/tuned.toml" --engine "name=full weights=full" \
        --pgn-out "$out/timed.pgn" | tee "$out/timed.txt" ;;
stockfish)
    for elo in 2100 2300; do
        "$bin" match -q --force -j 2 --pairs 50 --tc 10+0.1 --seed "$elo" \
            --engine "name=tuned weights=$out/tuned.toml" \
            --engine "name=stockfish-$elo cmd=$stockfish option.UCI_LimitStrength=true option.UCI_Elo=$elo option.Threads=1 option.Hash=16" \
            --pgn-out "$out/stockfish-$elo.pgn" | tee "$out/stockfish-$elo.txt"
    done ;;
generation2)
    [ -e "$out/gen2-games.pgn.zst" ] || "$bin" selfplay --weights "$out/tuned.toml" --vary 0 --games 12000 --nodes 2000 --seed 12 --out "$out/gen2-games.pgn.zst"
    [ -e "$out/tuned2.toml" ] || "$bin" tune "$out/gen2-games.pgn.zst" --features full "${tune_options[@]}" --prior "$out/tuned.toml" \
        --weights-out "$out/tuned2.toml" | tee "$out/tune2.txt"
    "$bin" verify "$out/tuned2.toml" --baseline "$out/tuned.toml" --nodes 10000 -j 2 --max-pairs 300 \
        --pgn-out "$out/generation2.pgn" --force | tee "$out/generation2.txt" || true ;;
ablation)
    # Every fit sees the same games and the same held-out games; the Elo
    # is the tuned full evaluation's against the one tuned without the set.
    # The held-out games' positions with the sets the weights have.
    heldout() { [ -e "$out/heldout-$1.parquet" ] || "$bin" extract -q "$out/heldout-games.pgn.zst" --features "$2" --positions qsearch -o "$out/heldout-$1.parquet"; }
    loss_of() { "$bin" evaluate "$out/heldout-$1.parquet" --weights "$2" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["log_loss"])'; }
    heldout full full
    full_loss=$(loss_of full "$out/tuned.toml")
    echo "set,columns,heldout_loss_full,heldout_loss_without,games,wins,draws,losses,elo,elo_ci95" > "$out/ablation.csv.part"
    for set in "${sets[@]}"; do
        without=$(IFS=,; kept=(); for s in "${sets[@]}"; do [ "$s" = "$set" ] || kept+=("$s"); done; echo "${kept[*]}")
        [ -e "$out/without-$set.toml" ] || "$bin" tune "${data[@]}" --features "$without" "${tune_options[@]}" \
            --weights-out "$out/without-$set.toml" > "$out/tune-without-$set.txt" 2>&1
        heldout "without-$set" "$without"
        loss=$(loss_of "without-$set" "$out/without-$set.toml")
        columns=$("$bin" features | awk -v set="$set" '$1 == set { print $3 }')
        [ -e "$out/ablation-$set.json" ] || "$bin" match --engine "name=tuned weights=$out/tuned.toml" \
            --engine "name=without-$set weights=$out/without-$set.toml" --nodes 10000 -j 2 --pairs "${ABLATION_PAIRS:-100}" \
            --pgn-out "$out/ablation-$set.pgn" --force --json -q > "$out/ablation-$set.json"
        python3 - "$out/ablation-$set.json" "$set" "$columns" "$full_loss" "$loss" >> "$out/ablation.csv.part" <<'PY'
import json, sys
path, name, columns, full, without = sys.argv[1:]
r = json.load(open(path))["results"][0]
g, e = r["games"], r["pentanomial"]
# A match too short or too one-sided for an estimate has none (an empty field).
elo, ci = ("" if e.get(k) is None else f"{e[k]:.1f}" for k in ("elo", "elo_ci95"))
print(f'{name},{columns},{full},{without},{g["wins"] + g["draws"] + g["losses"]},{g["wins"]},{g["draws"]},{g["losses"]},{elo},{ci}')
PY
    done
    mv "$out/ablation.csv.part" "$out/ablation.csv"
    cat "$out/ablation.csv" ;;
*) echo "unknown part '$part'" >&2; exit 2 ;;
esac; done
