#!/usr/bin/env bash
# Spark's extraction against one machine's, on the same two cores (issue 31:
# "Spark extraction at most 2× the direct pgntune extract on the same cores,
# local[2], and the rows' hash unchanged").
#
# Usage: benches/spark.sh [RUNS] [FEATURES]
# The human collection (25 files, 43 MB) split into 16 shards (SHARD_GAMES=N:
# shards of N games instead of 4,044); each run
# extracts it once directly (`pgntune extract -j 2 -o rows.parquet`) and
# once through `scale/spark/pgntune_spark.py extract --master local[2]`,
# the two interleaved so that a drift of the machine's speed hits both.
# Printed per run: the direct wall time; the Spark job's own times, from
# its first task's start to the committed Parquet (tasks_s) and from the
# job's submission, when Spark starts its Python workers and fetches the
# binary (job_s); the Spark process's whole wall time (the JVM's start-up
# and the read-back hash included); and each against the direct time. Then the two multiset hashes, which must be
# equal. Needs Java 17 and PySpark (scale/spark/requirements.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
features=${2:-material}
inputs=(../shared/data/human/*.pgn)
if [ ! -e "${inputs[0]}" ]; then
    echo "SKIPPED: ${inputs[0]} is absent (the shared game collections are not beside the repository)"
    exit 0
fi
# PGNTUNE=path uses that binary instead of a fresh release build.
if [ -z "${PGNTUNE:-}" ]; then cargo build --release --quiet --bin pgntune; fi
bin=$(realpath "${PGNTUNE:-target/release/pgntune}")
job=$PWD/scale/spark/pgntune_spark.py
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
now() { date +%s.%N; }

"$bin" split "${inputs[@]}" --games "${SHARD_GAMES:-4044}" -q -o "$out/shards"
echo "shards: $(ls "$out"/shards/*.zst | wc -l); features: $features"
printf '%-4s %9s %8s %8s %8s %13s %11s %12s\n' run direct_s tasks_s job_s wall_s tasks/direct job/direct wall/direct
for run in $(seq "$runs"); do
    t0=$(now)
    "$bin" extract -q -j 2 --features "$features" "${inputs[@]}" -o "$out/direct.parquet" --force 2>/dev/null
    direct=$(echo "$(now) - $t0" | bc -l)
    rm -rf "$out/spark.parquet"
    t0=$(now)
    python3 "$job" extract --master 'local[2]' --pgntune "$bin" --manifest "$out/shards/manifest.json" \
        --out "$out/spark.parquet" --features "$features" 2>/dev/null | tail -1 > "$out/report.json"
    wall=$(echo "$(now) - $t0" | bc -l)
    read -r tasks_s job_s < <(python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(r["tasks_seconds"], r["seconds"])' "$out/report.json")
    awk -v r="$run" -v d="$direct" -v t="$tasks_s" -v j="$job_s" -v w="$wall" \
        'BEGIN { printf "%-4s %9.2f %8.2f %8.2f %8.2f %13.2f %11.2f %12.2f\n", r, d, t, j, w, t/d, j/d, w/d }'
done
spark=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["digest"])' "$out/report.json")
one=$(python3 "$job" rows-hash --master 'local[2]' "$out/direct.parquet" 2>/dev/null | tail -1 |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["digest"])')
echo "Spark:       $spark"
echo "one machine: $one"
[ "$spark" = "$one" ] && echo "rows: the same multiset" || { echo "rows DIFFER"; exit 1; }
