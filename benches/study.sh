#!/usr/bin/env bash
# The data study of issue 30: which training data makes the bundled engine
# stronger, at comparable budgets. Every source is fitted the same way (the
# whole evaluation from the hand-set `full` start, --lambda 1e-2), scored
# on the same test games (log-loss of their results), and played against
# `full`: 400 games at 10,000 nodes per move from the same openings.
#
# Usage: benches/study.sh [PART...]  (default: all parts in this order)
#   split     the human collection into training and test games by a hash
#             of each game (about 10% test; copies of a game on one side)
#   test      every qsearch position of the test games, with its result
#   human     one position per game (--sample 1 --seed 7) of the training
#             games, labelled by Stockfish at depth 9 and by pgntune's own
#             engine at depth 8; and the results-only tune of the training
#             games (the README's old default example); and Stockfish's
#             depth-9 scores of its principal variations' last positions
#             (--resolve-pv, the collection recipe)
#   selfplay  6,000 games of `full` against itself at 2,000 nodes
#   tcec      six positions per TCEC game with the engines' wv= scores
#   fit       one weights file per source
#   heldout   the log-loss of every weights file on the test positions
#   match     400 games at 10,000 nodes of each against `full` (resumable)
#   timed     400 games at 10 s + 0.1 s against `full` of the sources in
#             $TIMED (default: tcec); give it the machine's cores alone
# Outputs go to $STUDY_OUT (default study/); a step whose output exists is
# not redone. PGNTUNE_BIN names a pgntune binary to use instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
parts=("$@"); [ ${#parts[@]} -gt 0 ] || parts=(split test human selfplay tcec fit heldout match)
if [ -n "${PGNTUNE_BIN:-}" ]; then
    bin=$(realpath "$PGNTUNE_BIN")
else
    cargo build --release --quiet --bin pgntune
    bin=$PWD/target/release/pgntune
fi
here=$PWD
out=${STUDY_OUT:-study}
mkdir -p "$out"
cd "$out"
human=("$here"/../shared/data/human/*.pgn)
fit=(--epd-features full --eval-weight 1 --lambda 1e-2)
sources=(sf9 d8 human-results tcec sp-mix sp-eval mix pv)

for part in "${parts[@]}"; do case $part in
split)
    [ -e sides.txt ] || python3 "$here/benches/study_split.py" . "${human[@]}" ;;
test)
    [ -e test.epd ] || "$bin" extract test.pgn --features full --positions qsearch -o test.epd ;;
human)
    [ -e pos.epd ] || "$bin" extract "${human[@]}" --features full --positions qsearch --sample 1 --seed 7 -o pos.epd
    # The same rows with their game ids, to keep those of training games.
    [ -e ids.csv ] || "$bin" extract "${human[@]}" --features material --positions qsearch --sample 1 --seed 7 --fen -o ids.csv
    [ -e pos-train.epd ] || python3 "$here/benches/study_rows.py" ids.csv sides.txt pos.epd pos-train.epd
    [ -e sf9-train.epd ] || /usr/bin/time -v "$bin" label pos-train.epd --uci /usr/games/stockfish --depth 9 -j 2 -o sf9-train.epd > label-sf9.log 2>&1
    [ -e d8-train.epd ] || /usr/bin/time -v "$bin" label pos-train.epd --depth 8 -j 2 -o d8-train.epd > label-d8.log 2>&1
    [ -e pv-train.epd ] || /usr/bin/time -v "$bin" label pos-train.epd --uci /usr/games/stockfish --depth 9 -j 2 --resolve-pv -o pv-train.epd > label-pv.log 2>&1
    ;;
selfplay)
    [ -e games.pgn.zst ] || /usr/bin/time -v "$bin" selfplay --weights full --vary 0 --games 6000 --nodes 2000 --seed 11 -j 2 --out games.pgn.zst > selfplay.log 2>&1 ;;
tcec)
    [ -e tcec.epd ] || "$bin" extract "$here"/../shared/data/engine/tcec/*.pgn.zst --features full --positions qsearch --eval-labels --sample 6 --seed 7 -o tcec.epd ;;
fit)
    [ -e w-sf9.toml ] || "$bin" fit sf9-train.epd "${fit[@]}" --weights-out w-sf9.toml > fit-sf9.log 2>&1
    [ -e w-d8.toml ] || "$bin" fit d8-train.epd "${fit[@]}" --weights-out w-d8.toml > fit-d8.log 2>&1
    [ -e w-pv.toml ] || "$bin" fit pv-train.epd "${fit[@]}" --weights-out w-pv.toml > fit-pv.log 2>&1
    [ -e w-tcec.toml ] || "$bin" fit tcec.epd "${fit[@]}" --weights-out w-tcec.toml > fit-tcec.log 2>&1
    [ -e w-mix.toml ] || "$bin" fit sf9-train.epd tcec.epd "${fit[@]}" --weights-out w-mix.toml > fit-mix.log 2>&1
    [ -e w-human-results.toml ] || "$bin" tune train.pgn --features full --positions qsearch --weights-out w-human-results.toml > fit-human-results.log 2>&1
    [ -e w-sp-mix.toml ] || "$bin" tune games.pgn.zst "$here/data/selfplay.pgn.zst" --features full --positions qsearch --eval-labels --eval-weight 0.5 --holdout 0.05 --lambda 1e-2 --weights-out w-sp-mix.toml > fit-sp-mix.log 2>&1
    [ -e w-sp-eval.toml ] || "$bin" tune games.pgn.zst "$here/data/selfplay.pgn.zst" --features full --positions qsearch --eval-labels --eval-weight 1 --holdout 0.05 --lambda 1e-2 --weights-out w-sp-eval.toml > fit-sp-eval.log 2>&1 ;;
heldout)
    for w in full "${sources[@]}"; do
        file=$w; [ "$w" = full ] || file=w-$w.toml
        printf '%s ' "$w"; "$bin" evaluate test.epd --weights "$file" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["log_loss"])'
    done | tee heldout.txt ;;
match)
    for src in "${sources[@]}"; do
        [ -e "m-$src.done" ] && continue
        if [ -e "m-$src.pgn.state.json" ]; then
            "$bin" match --resume "m-$src.pgn.state.json" >> "m-$src.log" 2>&1
        else
            "$bin" match -j 2 --pairs 200 --nodes 10000 --seed 30 --engine "name=$src weights=w-$src.toml" \
                --engine "name=full weights=full" --pgn-out "m-$src.pgn" --force > "m-$src.log" 2>&1
        fi && touch "m-$src.done"
    done ;;
timed)
    for src in ${TIMED:-tcec}; do
        [ -e "t-$src.done" ] && continue
        if [ -e "t-$src.pgn.state.json" ]; then
            "$bin" match --resume "t-$src.pgn.state.json" >> "t-$src.log" 2>&1
        else
            "$bin" match -j 2 --pairs 200 --tc 10+0.1 --seed 31 --engine "name=$src weights=w-$src.toml" \
                --engine "name=full weights=full" --pgn-out "t-$src.pgn" --force > "t-$src.log" 2>&1
        fi && touch "t-$src.done"
    done ;;
*) echo "unknown part '$part' (split, test, human, selfplay, tcec, fit, heldout, match, timed)" >&2; exit 2 ;;
esac; done
