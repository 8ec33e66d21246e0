#!/usr/bin/env bash
# Evaluation cost per feature set, in ns per position, on real positions
# (examples/eval_sets_speed.rs): the context, the attack maps, each set
# alone and given the attack maps, the pure pawn structure, the full layout,
# and the full layout gathered into a sorted sparse row as extraction does.
# The engine's budget for the whole evaluation is well under 1000 ns per
# node (target: pgntune bench at >= 1 M nodes/s).
#
# Usage: benches/eval_sets.sh [N] [PGN...]   (default: 1,000,000 positions
# from ../shared/data/human/*.pgn). PROFILE=quick uses the incremental
# profile instead of release.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${PROFILE:-release}
if [ $# -le 1 ] && [ ! -d ../shared/data/human ]; then
    echo "SKIPPED: ../shared/data/human is absent (the shared game collections are not beside the repository)"
    exit 0
fi
cargo run --profile "$profile" --quiet --example eval_sets_speed -- "$@"
