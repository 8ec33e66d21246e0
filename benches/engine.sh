#!/usr/bin/env bash
# The bundled engine's speed and strength, and the SPRT that every engine
# change must pass before it is kept (issue 32; results in benches/NOTES.md,
# "The engine: one SPRT per change").
#
# Usage:
#   benches/engine.sh nps [PAIRS]
#       `pgntune bench` with the whole evaluation (full) and with the
#       classical preset, in turn, PAIRS times (default 5): nodes per second
#       of each and their ratio pair by pair (target: full >= 0.8x classical).
#   benches/engine.sh sprt NEW OLD [LIMIT] [BOUNDS] [MAX_PAIRS]
#       NEW against OLD, two pgntune binaries playing as UCI engines with the
#       full preset, until the SPRT decides or MAX_PAIRS (default 3000) pairs
#       are played. LIMIT is match options (default '--tc 2+0.02'); BOUNDS
#       the SPRT's elo0/elo1 (default 'elo0=0 elo1=5', a gainer; a change
#       that must only not lose, such as a speed-up with an unchanged bench
#       signature, uses 'elo0=-5 elo1=0'). SPRT_J sets the concurrency
#       (default 1), SPRT_PIN a processor list for taskset, SPRT_OUT the folder.
#   benches/engine.sh ladder [PAIRS] [LEVELS]
#       full against Debian's Stockfish with UCI_LimitStrength at each level
#       of LEVELS (default '2100 2300 2500') at 10 s + 0.1 s, PAIRS pairs each
#       (default 100: 200 games), two games at a time.
#
# PGNTUNE_BIN picks the binary for nps and ladder (default: a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
part=${1:-nps}
shift || true

bin=${PGNTUNE_BIN:-}
if [ -z "$bin" ] && [ "$part" != sprt ]; then
    cargo build --release --quiet --bin pgntune
    bin=target/release/pgntune
fi

nps_of() { "$bin" bench -w "$1" | sed -n 's/^nodes\/s: //p'; }

case "$part" in
nps)
    pairs=${1:-5}
    echo "== pgntune bench (depth 12, one thread): full against classical, $pairs pairs in turn =="
    ratios=()
    for i in $(seq "$pairs"); do
        full=$(nps_of full)
        classical=$(nps_of classical)
        ratio=$(awk -v a="$full" -v b="$classical" 'BEGIN { printf "%.3f", a / b }')
        ratios+=("$ratio")
        echo "pair $i: full $full nodes/s, classical $classical nodes/s, ratio $ratio"
    done
    printf '%s\n' "${ratios[@]}" | sort -n | awk '{ r[NR] = $1 } END { printf "median ratio %.3f (min %.3f, max %.3f)\n", (NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2), r[1], r[NR] }'
    ;;
sprt)
    new=${1:?usage: benches/engine.sh sprt NEW OLD [LIMIT] [BOUNDS] [MAX_PAIRS]}
    old=${2:?usage: benches/engine.sh sprt NEW OLD [LIMIT] [BOUNDS] [MAX_PAIRS]}
    limit=${3:---tc 2+0.02}
    bounds=${4:-elo0=0 elo1=5}
    max_pairs=${5:-3000}
    out=${SPRT_OUT:-$(mktemp -d)}
    mkdir -p "$out"
    echo "== SPRT: $new against $old, $limit, $bounds, at most $max_pairs pairs =="
    echo "bench signatures: new $("$new" bench | tail -1), old $("$old" bench | tail -1)"
    pin=()
    if [ -n "${SPRT_PIN:-}" ]; then pin=(taskset -c "$SPRT_PIN"); fi
    # shellcheck disable=SC2086 # LIMIT is a list of options
    "${pin[@]}" "$new" match --force -j "${SPRT_J:-1}" --pairs "$max_pairs" $limit --seed 32 --report-every 100 \
        --sprt "$bounds alpha=0.05 beta=0.05 model=normalized" \
        --engine "name=new cmd=$new arg=uci option.Hash=16" \
        --engine "name=old cmd=$old arg=uci option.Hash=16" \
        --pgn-out "$out/sprt.pgn"
    echo "games in $out/sprt.pgn"
    ;;
ladder)
    pairs=${1:-100}
    levels=${2:-2100 2300 2500}
    stockfish=/usr/games/stockfish
    if [ ! -x "$stockfish" ]; then
        echo "SKIPPED: $stockfish is not installed (apt-get install stockfish)"
        exit 0
    fi
    out=${LADDER_OUT:-$(mktemp -d)}
    mkdir -p "$out"
    for elo in $levels; do
        echo "== full vs Stockfish UCI_Elo $elo: $((2 * pairs)) games at 10+0.1 ($(date -u +%F)) =="
        "$bin" match -q --force -j 2 --pairs "$pairs" --tc 10+0.1 --seed "$elo" \
            --engine "name=pgntune weights=full" \
            --engine "name=stockfish-$elo cmd=$stockfish option.UCI_LimitStrength=true option.UCI_Elo=$elo option.Threads=1 option.Hash=16" \
            --pgn-out "$out/ladder-$elo.pgn"
        echo "terminations: $(grep -h '^\[Termination' "$out/ladder-$elo.pgn" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
    done
    echo "games in $out"
    ;;
*)
    echo "unknown part '$part' (nps, sprt, ladder)" >&2
    exit 2
    ;;
esac
