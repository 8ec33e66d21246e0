#!/usr/bin/env python3
"""pgntune on Apache Spark: sharded extraction to Parquet, fits cross-checked
by Spark MLlib, and sharded matches merged exactly.

The pgntune binary does the chess; Spark distributes it. Run with
spark-submit on a cluster, or with python3 (PySpark's own local Spark):

  pgntune split GAMES... --games 4000 -o shards/
  spark-submit --master local[2] scale/spark/pgntune_spark.py extract \
      --pgntune target/release/pgntune --manifest shards/manifest.json --out rows.parquet
  spark-submit scale/spark/pgntune_spark.py fit --pgntune target/release/pgntune \
      --rows rows.parquet --work fit/ --draws exclude --lambda 0
  spark-submit scale/spark/pgntune_spark.py match --pgntune target/release/pgntune \
      --shards 4 --pairs 200 --out match/ -- --engine 'name=a weights=classical' \
      --engine 'name=b weights=flat' --nodes 2000
  python3 scale/spark/pgntune_spark.py rows-hash rows.svm   # one machine's rows, no Spark

extract: each shard (from `pgntune split`'s manifest) is read by Spark
(binaryFiles: local disk, HDFS, S3, ...), copied to the executor's local
disk and piped through `pgntune extract SHARD --game-base FIRST_GAME -o -
--format svm` with RDD.pipe; the binary is shipped with the job
(SparkContext.addFile). The LIBSVM lines come back with their game ids and
plies, pgntune's warnings come back as messages, and the rows are written
as Parquet partitioned by shard (columns shard, game, ply, label, idx,
val; idx 0-based). A shard whose pgntune fails (exit code not 0) fails
its task; Spark retries it (spark.task.maxFailures, `local[2,4]` in local
mode), and the Parquet writer's commit protocol keeps only the rows of the
attempt that succeeded. The multiset of rows is hashed (the sum of a
64-bit hash per row, with the count) so that it can be compared with one
machine's `pgntune extract ... -o rows.svm` (`rows-hash`).

fit: identical material vectors are aggregated by Spark to (vector, wins,
draws, losses), written as a CSV that `pgntune fit` reads (merged rows),
and fitted there; Spark MLlib's LogisticRegression fits the full rows,
with no intercept and no standardisation. pgntune minimises
mean loss + λ·Σθ²; MLlib minimises (weighted) mean loss +
regParam·((1−α)/2·Σθ² + α·Σ|θ|), so α = 0 and regParam = 2λ (with
standardization off MLlib rescales its penalty so that it applies to the
coefficients as given). Draws count half a point: MLlib labels must be 0
or 1, so a drawn row enters twice, as a win and as a loss of weight 1/2
each, which is the cross-entropy against 0.5 and keeps the weights'
mean at one per row. Layouts that pgntune fits with its whole-evaluation
tuner (tapered or over 64 columns) are fitted there with a prior of zero
and K = 400/ln 10, so that the tuner's centipawns are the logistic θ and
its ridge λ·Σ(θ − 0)² is pgntune's λ. Both θ are printed side by side
with their largest relative difference.

match: wave by wave, N tasks each run `pgntune match ... --shard K/N
--pair-range A..B`; their PGN and state come back through the pipe and
are written under OUT/wave-W/shard-K/, then `pgntune match --merge`
merges every shard so far into OUT/merged.pgn. With an SPRT the merge
applies the stopping rule in game order, so the merged match stops where
one run would have; the next wave starts only when it has not.
"""

import argparse
import hashlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# ---------------------------------------------------------------- rows

ROW_SCHEMA_DDL = "shard INT, game BIGINT, ply INT, label DOUBLE, idx ARRAY<INT>, val ARRAY<DOUBLE>"


def parse_piped(lines):
    """Turns the lines of piped `pgntune extract --format svm` runs into
    ('row', shard, game, ply, label, idx, val), ('msg', shard, text) and
    ('header', key, value) tuples. '@shard K' starts a shard's output,
    '!K text' is a message from pgntune about shard K."""
    shard, game, plies, used = None, None, [], 0
    for line in lines:
        if not line:
            continue
        head = line[0]
        if head == "@":
            shard, game, plies, used = int(line.split()[1]), None, [], 0
        elif head == "!":
            number, _, text = line[1:].partition(" ")
            yield ("msg", int(number), text)
        elif head == "#":
            words = line[1:].split()
            if words[:1] == ["game"]:
                game = int(words[1])
                k = words.index("evals") if "evals" in words else len(words)
                plies, used = [int(p) for p in words[3:k]], 0
            elif words and words[0] in ("layout:", "columns:"):
                yield ("header", words[0][:-1], " ".join(words[1:]))
        else:
            parts = line.split()
            idx, val = [], []
            for item in parts[1:]:
                j, v = item.split(":")
                idx.append(int(j) - 1)
                val.append(float(v))
            ply = plies[used] if used < len(plies) else 0
            used += 1
            yield ("row", shard, game, ply, float(parts[0]), idx, val)


def row_hash(game, ply, label, idx, val):
    """A 64-bit hash of one row, from its values (not their text)."""
    key = "%d %d %r %s" % (game, ply, float(label), " ".join("%d:%r" % (j, float(v)) for j, v in zip(idx, val)))
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little")


MASK = (1 << 64) - 1


def multiset_digest(count, total):
    return "%d rows, hash %016x" % (count, total & MASK)


def cmd_rows_hash(args):
    """The rows' multiset hash of one machine's `pgntune extract -o rows.svm`."""
    count = total = 0
    with open(args.svm) as f:
        for t in parse_piped(["@shard 0"] + [l.rstrip("\n") for l in f]):
            if t[0] == "row":
                count += 1
                total += row_hash(t[2], t[3], t[4], t[5], t[6])
    print(json.dumps({"rows": count, "digest": multiset_digest(count, total)}))


# --------------------------------------------------------------- spark

def spark_session(args, name):
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(name)
    if args.master:
        builder = builder.master(args.master)
    # Executors run this very Python (PySpark's workers and the pipe's parser).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # binaryFiles packs whole files into splits of up to max(open cost,
    # bytes per core) bytes, capped by spark.files.maxPartitionBytes; a cap
    # of one byte leaves every shard a task of its own (retried alone).
    builder = (
        builder.config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(args.partitions))
        .config("spark.files.maxPartitionBytes", "1")
        .config("spark.files.openCostInBytes", "1")
        .config("spark.sql.execution.pythonUDF.arrow.enabled", "false")
    )
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def ship(spark, binary):
    """Ships the pgntune binary with the job; returns its name on the executors."""
    spark.sparkContext.addFile(str(Path(binary).resolve()))
    return Path(binary).name


def shell(script):
    return "sh -c " + shlex.quote(script)


EXTRACT_TASK = """
while read -r exe path base shard; do
  echo "@shard $shard"
  err=$(mktemp)
  "$exe" extract "$path" --game-base "$base" -o - --format svm -q {extra} 2>"$err"
  code=$?
  sed "s/^/!$shard /" "$err"
  cat "$err" >&2
  rm -f "$err" "$path"
  if [ "$code" -ne 0 ]; then
    echo "pgntune failed on shard $shard (exit code $code)" >&2
    exit "$code"
  fi
done
"""


def cmd_extract(args):
    manifest_path = Path(args.manifest).resolve()
    manifest = json.loads(manifest_path.read_text())
    shards = {s["file"]: (s["shard"], s["first_game"]) for s in manifest["shards"]}
    spark = spark_session(args, "pgntune extract")
    sc = spark.sparkContext
    exe_name = ship(spark, args.pgntune)
    extra = " ".join(shlex.quote(a) for a in ["--features", args.features] + args.extract_args)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    by_name = sc.broadcast(shards)
    folder = str(manifest_path.parent)
    started = time.time()

    def localise(items):
        # Runs on an executor: each shard's bytes to a local file pgntune can open.
        from pyspark import SparkFiles

        exe = SparkFiles.get(exe_name)
        for uri, content in items:
            name = uri.rstrip("/").rsplit("/", 1)[-1]
            if name not in by_name.value:
                continue
            shard, base = by_name.value[name]
            path = os.path.join(tempfile.mkdtemp(prefix="pgntune-shard-"), name)
            with open(path, "wb") as f:
                f.write(content)
            yield "%s %s %d %d" % (exe, path, base, shard)

    files = ",".join(os.path.join(folder, name) for name in sorted(shards))
    piped = (
        sc.binaryFiles(files, minPartitions=len(shards))
        .mapPartitions(localise)
        .pipe(shell(EXTRACT_TASK.format(extra=extra)), env=env, checkCode=True)
        .mapPartitions(parse_piped)
    )
    from pyspark import StorageLevel

    piped.persist(StorageLevel.MEMORY_AND_DISK)
    rows = piped.filter(lambda t: t[0] == "row").map(lambda t: t[1:])
    frame = spark.createDataFrame(rows, ROW_SCHEMA_DDL, verifySchema=False)
    frame.write.mode("overwrite" if args.force else "errorifexists").partitionBy("shard").parquet(args.out)
    seconds = time.time() - started
    messages = sorted(piped.filter(lambda t: t[0] == "msg").map(lambda t: (t[1], t[2])).collect())
    header = dict(piped.filter(lambda t: t[0] == "header").map(lambda t: (t[1], t[2])).distinct().collect())
    piped.unpersist()
    meta = {"layout": header.get("layout"), "columns": header.get("columns", "").split(), "games": manifest["games"], "shards": len(shards)}
    Path(args.out, "_pgntune.json").write_text(json.dumps(meta) + "\n")
    # The rows as written, read back and hashed.
    back = spark.read.parquet(args.out).select("game", "ply", "label", "idx", "val").rdd
    count, total = back.map(lambda r: (1, row_hash(r[0], r[1], r[2], r[3], r[4]))).fold((0, 0), lambda a, b: (a[0] + b[0], (a[1] + b[1]) & MASK))
    report = {"shards": len(shards), "games": manifest["games"], "rows": count, "digest": multiset_digest(count, total), "seconds": round(seconds, 2), "messages": ["shard %d: %s" % m for m in messages]}
    print(json.dumps(report))
    spark.stop()


# ----------------------------------------------------------------- fit

def pgntune_theta(binary, dataset, args, extra):
    run = subprocess.run([binary, "fit", str(dataset), "--json", "-q", "--lambda", repr(args.lam), "--draws", args.draws] + extra, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("pgntune fit failed: " + run.stderr.strip())
    report = json.loads(run.stdout)
    if "theta" in report:
        return report["theta"]
    return {c["name"]: c["value"] for c in report["columns"]}


def cmd_fit(args):
    from pyspark.ml.classification import LogisticRegression
    from pyspark.ml.linalg import SparseVector, VectorUDT
    from pyspark.sql import functions as F

    meta = json.loads(Path(args.rows, "_pgntune.json").read_text())
    columns, layout = meta["columns"], meta["layout"]
    width = len(columns)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    spark = spark_session(args, "pgntune fit")
    rows = spark.read.parquet(args.rows)
    if args.draws == "exclude":
        rows = rows.where(F.col("label") != 0.5)
    dense = width <= 64 and not any(c.startswith(("mg_", "eg_")) for c in columns)
    started = time.time()
    if dense:
        # Identical vectors merged by Spark: (vector, wins, draws, losses).
        counts = rows.groupBy("idx", "val").agg(
            F.sum((F.col("label") == 1.0).cast("long")).alias("wins"),
            F.sum((F.col("label") == 0.5).cast("long")).alias("draws"),
            F.sum((F.col("label") == 0.0).cast("long")).alias("losses"),
        )
        merged = counts.collect()
        dataset = work / "counts.csv"
        with open(dataset, "w") as f:
            f.write(",".join(columns + ["wins", "draws", "losses"]) + "\n")
            for r in sorted(merged, key=lambda r: (list(r["idx"]), list(r["val"]))):
                x = [0.0] * width
                for j, v in zip(r["idx"], r["val"]):
                    x[j] = v
                f.write(",".join(["%g" % v for v in x] + [str(r["wins"]), str(r["draws"]), str(r["losses"])]) + "\n")
        extra = ["--solver", "newton", "--tol", "1e-12"]
        summary = {"vectors": len(merged)}
    else:
        dataset = work / "rows.svm"
        with open(dataset, "w") as f:
            f.write("# pgntune rows (LIBSVM): label = white's score; indices 1..%d = the layout's columns\n# layout: %s\n# columns: %s\n" % (width, layout, " ".join(columns)))
            for r in rows.orderBy("game", "ply").toLocalIterator():
                f.write("# game %d plies %d\n%s %s\n" % (r["game"], r["ply"], "%g" % r["label"], " ".join("%d:%r" % (j + 1, v) for j, v in zip(r["idx"], r["val"]))))
        prior = work / "zero.toml"
        sets = ", ".join('"%s"' % s for s in layout.split(","))
        prior.write_text("format = 1\nfeatures = [%s]\nscale = 1.0\ndefault = 0\n[weights]\n" % sets)
        # --cost-tol 0: stop on the gradient alone, not when the loss merely settles.
        extra = ["--prior", str(prior), "--k", repr(400 / 2.302585092994046), "--tol", "1e-10", "--cost-tol", "0", "--iters", "5000"]
        summary = {}
    theta_pgntune = pgntune_theta(args.pgntune, dataset, args, extra)
    pgntune_seconds = time.time() - started

    # MLlib on the full rows; draws as a win and a loss of weight 1/2.
    to_vector = F.udf(lambda idx, val: SparseVector(width, sorted(zip(idx, val))), VectorUDT())
    data = rows.select(to_vector("idx", "val").alias("features"), "label")
    decisive = data.where(F.col("label") != 0.5).withColumn("weight", F.lit(1.0))
    drawn = data.where(F.col("label") == 0.5)
    data = decisive.unionByName(drawn.withColumn("label", F.lit(1.0)).withColumn("weight", F.lit(0.5))).unionByName(drawn.withColumn("label", F.lit(0.0)).withColumn("weight", F.lit(0.5)))
    started = time.time()
    model = LogisticRegression(
        featuresCol="features", labelCol="label", weightCol="weight", fitIntercept=False, standardization=False,
        regParam=2.0 * args.lam, elasticNetParam=0.0, maxIter=args.max_iter, tol=args.tol, family="binomial",
    ).fit(data)
    mllib_seconds = time.time() - started
    theta_mllib = dict(zip(columns, model.coefficients.toArray().tolist()))

    # Largest relative difference, over the weights the data determines
    # (columns that never occur are 0 in both).
    scale = max(abs(v) for v in theta_pgntune.values()) or 1.0
    worst, worst_col = 0.0, None
    print("%-12s %16s %16s %10s" % ("column", "pgntune", "MLlib", "rel.diff"))
    for c in columns:
        a, b = theta_pgntune.get(c, 0.0), theta_mllib[c]
        if a == 0.0 and b == 0.0:
            continue
        rel = abs(a - b) / max(abs(a), args.floor * scale)
        if rel > worst:
            worst, worst_col = rel, c
        if dense or len(columns) <= 64 or rel > args.show_above:
            print("%-12s %16.10g %16.10g %10.2e" % (c, a, b, rel))
    result = dict(summary, layout=layout, draws=args.draws, lam=args.lam, regParam=2.0 * args.lam, columns=width,
                  max_rel_diff=worst, worst_column=worst_col, pgntune_seconds=round(pgntune_seconds, 2), mllib_seconds=round(mllib_seconds, 2),
                  mllib_iterations=model.summary.totalIterations)
    print(json.dumps(result))
    spark.stop()


# --------------------------------------------------------------- match

MATCH_TASK = """
read -r exe k n a b
dir=$(mktemp -d)
"$exe" match {args} --shard "$k/$n" --pair-range "$a..$b" --pgn-out "$dir/shard.pgn" -q --concurrency 1 >"$dir/report" 2>"$dir/err"
code=$?
if [ "$code" -ne 0 ]; then
  cat "$dir/err" >&2
  rm -rf "$dir"
  exit "$code"
fi
printf '@state %s\\n' "$(cat "$dir/shard.pgn.state.json")"
sed 's/^/@pgn /' "$dir/shard.pgn"
rm -rf "$dir"
"""


def cmd_match(args):
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    spark = spark_session(args, "pgntune match")
    sc = spark.sparkContext
    exe_name = ship(spark, args.pgntune)
    match_args = " ".join(shlex.quote(a) for a in ["--pairs", str(args.pairs)] + args.match_args)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    wave_pairs = args.wave_pairs or args.pairs
    states = []
    started = time.time()
    merged = None
    for wave, first in enumerate(range(0, args.pairs, wave_pairs)):
        end = min(first + wave_pairs, args.pairs)

        def task_line(k, first=first, end=end, n=args.shards):
            from pyspark import SparkFiles

            return "%s %d %d %d %d" % (SparkFiles.get(exe_name), k, n, first, end)

        lines = sc.parallelize(range(args.shards), args.shards).map(task_line).pipe(shell(MATCH_TASK.format(args=match_args)), env=env, checkCode=True)
        # Each task's output is its own partition: state line, then PGN lines.
        results = lines.glom().collect()
        for k, part in enumerate(results):
            folder = out / ("wave-%d" % wave) / ("shard-%d" % k)
            folder.mkdir(parents=True, exist_ok=True)
            state = next(l[len("@state "):] for l in part if l.startswith("@state "))
            pgn = "".join(l[len("@pgn "):] + "\n" for l in part if l.startswith("@pgn "))
            (folder / "shard.pgn").write_text(pgn)
            (folder / "shard.pgn.state.json").write_text(state)
            states.append(str(folder / "shard.pgn.state.json"))
        merge = subprocess.run([args.pgntune, "match", "--merge"] + states + ["--pgn-out", str(out / "merged.pgn"), "--force", "--json", "-q"], check=True, capture_output=True, text=True)
        merged = json.loads(merge.stdout)
        print("wave %d: pairs %d..%d on %d shards; merged %d games, stopped: %s" % (wave, first, end, args.shards, merged["games"], merged["stopped"]), file=sys.stderr)
        if merged["stopped"] is not None:
            break
    report = {"waves": wave + 1, "shards": args.shards, "seconds": round(time.time() - started, 2), "games": merged["games"], "stopped": merged["stopped"], "results": merged["results"], "pgn": str(out / "merged.pgn")}
    print(json.dumps(report))
    spark.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    sub = parser.add_subparsers(dest="command", required=True)

    def spark_options(p):
        p.add_argument("--master", help="Spark master (default: spark-submit's, else local[*]); local[2,4] retries failed tasks")
        p.add_argument("--partitions", type=int, default=4, help="shuffle partitions")
        p.add_argument("--pgntune", required=True, help="the pgntune binary shipped to the executors")

    p = sub.add_parser("extract", help="shards to Parquet rows through pgntune extract")
    spark_options(p)
    p.add_argument("--manifest", required=True, help="manifest.json of pgntune split")
    p.add_argument("--out", required=True, help="Parquet folder (partitioned by shard)")
    p.add_argument("--features", default="material")
    p.add_argument("--force", action="store_true", help="replace --out")
    p.add_argument("extract_args", nargs="*", help="after --: more pgntune extract options")
    p.set_defaults(run=cmd_extract)

    p = sub.add_parser("fit", help="pgntune fit and MLlib LogisticRegression on the rows")
    spark_options(p)
    p.add_argument("--rows", required=True, help="Parquet rows written by extract")
    p.add_argument("--work", required=True, help="folder for the merged counts or rows pgntune fits")
    p.add_argument("--lambda", dest="lam", type=float, default=0.0, help="pgntune's λ (MLlib's regParam is 2λ)")
    p.add_argument("--draws", choices=["exclude", "half"], default="exclude")
    p.add_argument("--max-iter", type=int, default=1000)
    # MLlib's L-BFGS stops when the loss changes by less than --tol
    # (relative) or its line search fails. At 1e-12 it stopped short on the
    # 768 columns of a PST layout (Java 17.0.21: 242 iterations, 1.9e-3
    # from pgntune's optimum; 271 iterations and 1.0e-4 at 1e-16).
    p.add_argument("--tol", type=float, default=1e-16, help="MLlib's tolerance on the relative change of the loss")
    p.add_argument("--floor", type=float, default=1e-3, help="relative differences are taken against max(|θ|, FLOOR·max|θ|)")
    p.add_argument("--show-above", type=float, default=1e-4, help="list sparse columns whose difference is above this")
    p.set_defaults(run=cmd_fit)

    p = sub.add_parser("match", help="a sharded match, in waves, merged by pgntune match --merge")
    spark_options(p)
    p.add_argument("--shards", type=int, required=True)
    p.add_argument("--pairs", type=int, required=True)
    p.add_argument("--wave-pairs", type=int, help="pairs per wave (default: all in one)")
    p.add_argument("--out", required=True)
    p.add_argument("match_args", nargs="*", help="after --: pgntune match options (engines, --nodes, --sprt, openings)")
    p.set_defaults(run=cmd_match)

    p = sub.add_parser("rows-hash", help="the multiset hash of rows in a .svm file (no Spark)")
    p.add_argument("svm")
    p.set_defaults(run=cmd_rows_hash)

    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
