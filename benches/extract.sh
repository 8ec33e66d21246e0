#!/usr/bin/env bash
# Extraction throughput against the bare parse-and-replay loop
# (examples/replay_baseline.rs), on the same input, plus thread scaling.
#
# Usage: benches/extract.sh [RUNS] [PGN...]
# Default input: every file in ../shared/data/human/. Each program runs
# RUNS times (default 5), interleaved; the fastest run of each counts,
# which is the most stable statistic on a shared, noisy machine.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
if [ $# -gt 0 ]; then inputs=("$@"); else inputs=(../shared/data/human/*.pgn); fi
if [ ! -e "${inputs[0]}" ]; then
    echo "SKIPPED: ${inputs[0]} is absent (the shared game collections are not beside the repository)"
    exit 0
fi
cargo build --release --quiet --bin pgntune --example replay_baseline
bin=target/release/pgntune
base=target/release/examples/replay_baseline
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bytes=$(cat "${inputs[@]}" | wc -c)

now() { date +%s.%N; }
best() { sort -g | head -1; }
elapsed() { local t0; t0=$(now); "$@" >/dev/null 2>&1; echo "$(now) - $t0" | bc -l; }

: > "$out/base"; : > "$out/t1"; : > "$out/t2"
for _ in $(seq "$runs"); do
    elapsed "$base" "${inputs[@]}" >> "$out/base"
    elapsed "$bin" extract -q -j 1 "${inputs[@]}" -o "$out/rows.mat" >> "$out/t1"
    elapsed "$bin" extract -q -j 2 "${inputs[@]}" -o "$out/rows.mat" >> "$out/t2"
done
# Games and plies of the input, as the baseline counts them.
read -r games plies < <("$base" "${inputs[@]}" | sed -E 's/.*\(([0-9]+) games, ([0-9]+) plies.*/\1 \2/')

report() { # name seconds
    awk -v n="$1" -v s="$2" -v b="$bytes" -v g="$games" -v p="$plies" \
        'BEGIN { printf "%-28s %7.3f s  %6.1f MB/s  %8.0f games/s  %10.0f plies/s\n", n, s, b/1e6/s, g/s, p/s }'
}
tb=$(best < "$out/base"); t1=$(best < "$out/t1"); t2=$(best < "$out/t2")
echo "input: ${#inputs[@]} file(s), $bytes bytes, $games games, $plies plies; best of $runs runs"
report "bare parse+replay loop" "$tb"
report "pgntune extract -j 1 (.mat)" "$t1"
report "pgntune extract -j 2 (.mat)" "$t2"
awk -v a="$tb" -v b="$t1" -v c="$t2" 'BEGIN {
    printf "single-thread extract / bare loop: %.3f (target >= 0.90)\n", a/b
    printf "two threads / one thread:          %.3f (target >= 1.70)\n", b/c }'

# Memory stays bounded: peak RSS for the input once and repeated 8 times
# (through standard input, to Parquet and CSV at once).
for n in 1 8; do
    /usr/bin/time -f "input x$n ($((bytes * n / 1000000)) MB) to .parquet + .csv: %e s, peak RSS %M KB" \
        bash -c "for i in \$(seq $n); do cat \"\$@\"; done | $bin extract -q - -o $out/big.parquet -o $out/big.csv" _ "${inputs[@]}"
done
