#!/usr/bin/env bash
# One gradient pass of pgntune's whole-evaluation tuner against one epoch of
# hce-tuner (github.com/jw1912/hce-tuner, Rust, full-batch Adam) over the
# same positions on the same threads (issue 31).
#
# The positions: every position of the human collection, replaced by the end
# of the bundled engine's quiescence search (`pgntune extract --features full
# --positions qsearch`, about 5.06 million EPD lines). hce-tuner reads one
# `FEN ce R` line per position, R the result from the side to move's view
# (its parser flips R when black is to move: its evaluation is white's), from
# the fixed file name gedas_filtered_sf_d9.epd in its working directory; the
# script writes that file from the EPD with awk.
#
# The pairs run interleaved, pgntune then hce-tuner, PAIRS times (the
# machine's speed moves by the hour). Each figure is the program's own timer:
#   pgntune:    examples/gradient_epd.rs, the mean of PASSES passes (loss and
#               gradient sums over every position, scattered into columns:
#               what each L-BFGS evaluation of `pgntune fit` does);
#   hce-tuner:  its `epoch 100 ... time Ts` line divided by 100 (100 epochs,
#               each a full-batch gradient and an Adam step of its weights).
# Load times are outside both. Max RSS comes from /usr/bin/time -v.
#
# hce-tuner is not built here. Fetch and build it outside this repository,
# with THREADS = 2 (as pgntune's -j here) and EPOCHS = 100 in src/main.rs (the
# script stops it after its first timing line anyway, so any EPOCHS >= 100
# works, 100 only saves the rest), and the same CPU level as pgntune
# (.cargo/config.toml):
#   git clone https://github.com/jw1912/hce-tuner /work/scratch/hce-tuner
#   cd /work/scratch/hce-tuner
#   sed -i 's/^const THREADS: usize = .*/const THREADS: usize = 2;/; s/^const EPOCHS: usize = .*/const EPOCHS: usize = 100;/' src/main.rs
#   RUSTFLAGS="-C target-cpu=x86-64-v2" cargo build --release
# (measured at its commit 6aaca9f, "Better Mobility Output Format").
#
# Usage: HCE_TUNER=/work/scratch/hce-tuner/target/release/hce-tuner \
#          nice -n 10 benches/hce.sh [PAIRS]
# Env: PGNTUNE_PROFILE (cargo profile, default quick), PASSES (pgntune
# passes per run, default 5), LOSS (ce, pgntune's
# default, or mse, hce-tuner's loss), HCE_WORK (work folder, default
# target/hce: the EPD files, about 0.8 GB, are kept there between runs).
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-3}
passes=${PASSES:-5}
loss=${LOSS:-ce}
threads=2
data=../shared/data/human
if ! compgen -G "$data/*.pgn" > /dev/null; then
    echo "SKIPPED: $data is absent (the shared game collections are not beside the repository)"
    exit 0
fi
hce=${HCE_TUNER:-}
if [ -z "$hce" ] || [ ! -x "$hce" ]; then
    echo "SKIPPED: hce-tuner is not built (set HCE_TUNER to its binary; this script's header says how to build it)"
    exit 0
fi
hce=$(realpath "$hce")
work=${HCE_WORK:-target/hce}
mkdir -p "$work"
work=$(realpath "$work")

# PGNTUNE_PROFILE picks the cargo profile (default quick; release shares the
# build of the tests).
profile=${PGNTUNE_PROFILE:-quick}
cargo build --profile "$profile" --quiet --bin pgntune --example gradient_epd
bin=target/$profile/pgntune
example=target/$profile/examples/gradient_epd

epd=$work/human.epd
if [ ! -s "$epd" ]; then
    "$bin" extract -q "$data"/*.pgn --features full --positions qsearch -o "$epd"
fi
# `board stm castling ep hmvc fmvn; c9 "1-0";` -> `board stm castling ep hmvc fmvn ce R`.
hce_epd=$work/gedas_filtered_sf_d9.epd
if [ ! -s "$hce_epd" ] || [ "$epd" -nt "$hce_epd" ]; then
    awk '{
        r = $10; gsub(/[";]/, "", r)
        w = (r == "1-0") ? 1 : (r == "0-1") ? 0 : 0.5
        if ($2 == "b") w = 1 - w
        h = $6; f = $8; sub(/;/, "", h); sub(/;/, "", f)
        print $1, $2, $3, $4, h, f, "ce", w
    }' "$epd" > "$hce_epd.tmp"
    mv "$hce_epd.tmp" "$hce_epd"
fi
echo "positions: $(wc -l < "$epd") EPD lines, $(wc -l < "$hce_epd") hce-tuner lines"

rss() { awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$1"; }

results=$work/pairs.tsv
printf 'pair\tpgntune_pass_s\thce_epoch_s\tratio\tpgntune_rss_mb\thce_rss_mb\n' > "$results"
for pair in $(seq "$pairs"); do
    /usr/bin/time -v -o "$work/pgntune.time" "$example" "$epd" "$threads" "$passes" "$loss" > "$work/pgntune.log"
    [ "$pair" = 1 ] && grep -E '^(positions|terms|load):' "$work/pgntune.log"
    pass=$(sed -n 's/^passes: .* mean \([0-9.]*\) s.*/\1/p' "$work/pgntune.log")

    rm -f "$work/hce.log"
    (cd "$work" && exec /usr/bin/time -v -o "$work/hce.time" "$hce" > "$work/hce.log" 2>&1) &
    timer=$!
    # Stop hce-tuner after its first timing line (100 epochs): it runs EPOCHS of them.
    while kill -0 "$timer" 2> /dev/null; do
        if grep -q '^epoch 100 ' "$work/hce.log" 2> /dev/null; then
            child=$(pgrep -P "$timer" || true)
            [ -n "$child" ] && kill "$child" 2> /dev/null || true
            break
        fi
        sleep 0.5
    done
    wait "$timer" || true
    line=$(grep -m1 '^epoch 100 ' "$work/hce.log" || true)
    if [ -z "$line" ]; then
        echo "hce-tuner printed no 'epoch 100' line:" >&2
        cat "$work/hce.log" >&2
        exit 1
    fi
    [ "$pair" = 1 ] && grep -E '^(Parameters|Positions|k =)' "$work/hce.log"
    epoch=$(echo "$line" | awk '{ for (i = 1; i < NF; i++) if ($i == "time") { sub(/s$/, "", $(i + 1)); printf "%.4f", $(i + 1) / 100 } }')
    ratio=$(awk -v a="$pass" -v b="$epoch" 'BEGIN { printf "%.2f", a / b }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$pair" "$pass" "$epoch" "$ratio" "$(rss "$work/pgntune.time")" "$(rss "$work/hce.time")" >> "$results"
    echo "pair $pair: pgntune pass $pass s ($loss, mean of $passes; $(grep '^passes:' "$work/pgntune.log" | sed 's/.*best \([0-9.]*\) s.*/best \1 s/')), hce-tuner epoch $epoch s ($line), ratio $ratio"
done
column -t "$results"
