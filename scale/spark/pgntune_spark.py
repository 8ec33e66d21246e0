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
  pgntune extract GAMES... -o rows.parquet
  python3 scale/spark/pgntune_spark.py rows-hash rows.parquet   # one machine's rows, hashed alike

extract: each shard (from `pgntune split`'s manifest) is read by Spark
(binaryFiles: one task per shard), copied to the executor's local disk,
and extracted there by `pgntune extract SHARD --game-base FIRST_GAME -o
PART.parquet -j 1`, which writes the task's Parquet part itself into the
task attempt's own folder; the binary is shipped with the job
(SparkContext.addFile). No row passes through Python: Spark schedules,
retries and reads Parquet, and the driver commits. A shard whose pgntune
fails (exit code not 0) fails its task; Spark runs it again
(spark.task.maxFailures, `local[2,4]` in local mode), and only the
attempt whose result reached the driver is moved into --out, which
appears (renamed from a hidden staging folder beside it, so --out must be
on a file system every executor writes: local mode, NFS, a mounted
bucket) only when every shard is done. The parts are partitioned by shard
(`shard=K/part-K.parquet`), in pgntune's own Parquet shape; the job reads
them as the rows shard, game, ply, label, idx, val (idx 0-based; a dense
layout's idx and val come from Spark SQL's array functions). The multiset
of rows is hashed in the JVM (the count, and the sum of Spark's 64-bit
xxhash of each row), so that it can be compared with one machine's
`pgntune extract ... -o rows.parquet` (`rows-hash`).

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
with their largest relative difference. A sparse layout is fitted by
`pgntune fit` straight from the Parquet parts.

match: wave by wave, N tasks each run `pgntune match ... --shard K/N
--pair-range A..B`; their PGN and state come back through the pipe and
are written under OUT/wave-W/shard-K/, then `pgntune match --merge`
merges every shard so far into OUT/merged.pgn. With an SPRT the merge
applies the stopping rule in game order, so the merged match stops where
one run would have; the next wave starts only when it has not.
"""

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

# ---------------------------------------------------------------- rows

MASK = (1 << 64) - 1


def multiset_digest(count, total):
    return "%d rows, hash %016x" % (count, total & MASK)


def pgntune_metadata(spark, part):
    """The layout, columns and each term's columns (None for rows with one
    column per feature or idx and val lists) that pgntune wrote into a
    Parquet file's footer (`pgntune.layout`, `pgntune.columns`,
    `pgntune.term_columns`), read by the JVM's Parquet reader."""
    jvm = spark._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    from py4j.protocol import Py4JJavaError

    try:
        source = jvm.org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(jvm.org.apache.hadoop.fs.Path(str(part)), conf)
        reader = jvm.org.apache.parquet.hadoop.ParquetFileReader.open(source)
    except Py4JJavaError as error:
        fail("%s: not a Parquet file (%s)" % (part, str(error.java_exception.getMessage()).splitlines()[0]))
    try:
        pairs = reader.getFooter().getFileMetaData().getKeyValueMetaData()
        layout, columns = pairs.get("pgntune.layout"), pairs.get("pgntune.columns")
        shape, term_columns = pairs.get("pgntune.shape"), pairs.get("pgntune.term_columns")
    finally:
        reader.close()
    if layout is None or columns is None:
        fail("%s: not rows written by pgntune extract (no pgntune.layout in its metadata)" % part)
    # As pgntune reads them: compact rows are told by the shape, or by the
    # term columns that expand them.
    if shape == "compact" and term_columns is None:
        fail("%s: compact rows without pgntune.term_columns in its metadata" % part)
    return layout, json.loads(columns), (json.loads(term_columns) if term_columns is not None else None)


def read_rows(spark, path, columns, term_columns=None):
    """pgntune's Parquet rows as the rows of this job: shard, game, ply,
    label (white's score), idx (0-based columns that are non-zero) and val
    (their values). An expanded sparse file has idx and val already; a
    compact one (term, count, phase) and a dense one (at most 64 columns,
    one column per feature) get them from Spark SQL's array functions, in
    the JVM like every step here."""
    from pyspark.sql import functions as F

    frame = spark.read.parquet(str(path))
    shard = F.col("shard") if "shard" in frame.columns else F.lit(0)
    if "idx" in frame.columns:
        idx, val = F.col("idx"), F.col("val")
    elif term_columns is not None and "term" in frame.columns and "count" in frame.columns:
        # Term t with count n at phase p: n·p/24 in its mg column and
        # n·(24 − p)/24 in its eg column, or n in its one column; the
        # non-zero values in column order, as pgntune expands them.
        first = F.array(*[F.lit(c[0]) for c in term_columns])
        last = F.array(*[F.lit(c[-1]) for c in term_columns])
        tapered = F.array(*[F.lit(len(c) == 2) for c in term_columns])
        p = F.col("phase").cast("double")

        def entries(x):
            t, n = x["term"] + 1, x["count"].cast("double")
            return F.when(F.element_at(tapered, t), F.array(
                F.struct(F.element_at(first, t).alias("c"), (n * p / 24.0).alias("v")),
                F.struct(F.element_at(last, t).alias("c"), (n * (F.lit(24.0) - p) / 24.0).alias("v")),
            )).otherwise(F.array(F.struct(F.element_at(first, t).alias("c"), n.alias("v"))))

        pairs = F.array_sort(F.filter(F.flatten(F.transform(F.arrays_zip("term", "count"), entries)), lambda e: e["v"] != 0))
        idx, val = F.transform(pairs, lambda e: e["c"]), F.transform(pairs, lambda e: e["v"])
    else:
        values = F.array(*[F.col("`%s`" % c).cast("double") for c in columns])
        idx = F.filter(F.sequence(F.lit(0), F.lit(len(columns) - 1)), lambda i: F.element_at(values, i + 1) != 0)
        val = F.transform(idx, lambda i: F.element_at(values, i + 1))
    return frame.select(shard.cast("int").alias("shard"), "game", "ply", F.col("result").alias("label"), idx.alias("idx"), val.alias("val"))


def rows_digest(rows):
    """The multiset hash of rows: the count, and the sum modulo 2^64 of
    Spark's 64-bit xxhash of each row's game, ply, label, idx and val. It
    runs in the JVM; a sum does not depend on the order of the rows nor on
    how they are split into files."""
    from pyspark.sql import functions as F

    hashed = rows.select(F.xxhash64("game", "ply", "label", "idx", "val").cast("decimal(38,0)").alias("h"))
    count, total = hashed.agg(F.count(F.lit(1)), F.sum("h")).first()
    return count, multiset_digest(count, int(total or 0))


def cmd_rows_hash(args):
    """The rows' multiset hash of one machine's `pgntune extract -o rows.parquet`."""
    if not Path(args.parquet).is_file():
        fail("%s: no such file" % args.parquet)
    spark = spark_session(args, "pgntune rows-hash")
    _, columns, term_columns = pgntune_metadata(spark, args.parquet)
    count, digest = rows_digest(read_rows(spark, args.parquet, columns, term_columns))
    print(json.dumps({"rows": count, "digest": digest}))
    spark.stop()


# --------------------------------------------------------------- spark

def spark_session(args, name):
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(name)
    if getattr(args, "master", None):
        builder = builder.master(args.master)
    # Executors run this very Python (PySpark's workers).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # binaryFiles packs whole files into splits of up to max(open cost,
    # bytes per core) bytes, capped by spark.files.maxPartitionBytes; a cap
    # of one byte leaves every shard a task of its own (retried alone).
    builder = (
        builder.config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(getattr(args, "partitions", 4)))
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


def fail(message):
    """Bad input: one line, exit code 2."""
    print("pgntune_spark: " + message, file=sys.stderr)
    sys.exit(2)


def clear_old_output(out, force):
    """Refuses an existing --out unless --force, and then only a folder this
    job wrote (it holds _pgntune.json): --force never deletes a user's
    other files."""
    if not os.path.lexists(out):
        return None
    if not force:
        fail("%s exists; pass --force to replace it" % out)
    if not (out.is_dir() and (out / "_pgntune.json").is_file()):
        fail("%s exists and is not rows this job wrote (no _pgntune.json); not replacing it" % out)
    return out


def cmd_extract(args):
    manifest_path = Path(args.manifest).resolve()
    manifest, shards = read_manifest(manifest_path)
    out = Path(args.out).absolute()
    if not out.parent.is_dir():
        fail("%s: its folder does not exist" % out)
    old = clear_old_output(out, args.force)
    # Attempts write under a hidden staging folder beside --out (on the same
    # file system, which every executor must see: local mode, NFS, a mounted
    # bucket); the successful attempts are moved into place and the folder
    # renamed to --out only when every shard is done.
    staging = out.parent / (".%s.staging-%s" % (out.name, uuid.uuid4().hex[:12]))
    staging.mkdir()
    try:
        spark = spark_session(args, "pgntune extract")
        report = extract_shards(spark, args, manifest, shards, manifest_path.parent, staging, out, old)
        spark.stop()
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    print(json.dumps(report))


def extract_shards(spark, args, manifest, shards, folder, staging, out, old):
    sc = spark.sparkContext
    exe_name = ship(spark, args.pgntune)
    command = ["--features", args.features, "-q", "-j", "1"] + args.extract_args
    attempts = str(staging / "attempts")
    folder = str(folder)
    started = time.time()

    def run_shard(task):
        # Runs on an executor: pgntune extracts the shard and writes its
        # Parquet part itself, into this task attempt's own folder. A failed
        # attempt raises, Spark runs the task again, and the driver commits
        # only the attempt whose result it received.
        from pyspark import SparkFiles, TaskContext

        name, shard, base = task
        began = time.time()
        context = TaskContext.get()
        attempt = os.path.join(attempts, "task-%d-attempt-%d" % (context.partitionId(), context.attemptNumber()), "shard=%d" % shard)
        os.makedirs(attempt)
        part = os.path.join(attempt, "part-%05d.parquet" % shard)
        # Run in the shards' folder so that pgntune's messages name the shard file.
        run = subprocess.run([SparkFiles.get(exe_name), "extract", name, "--game-base", str(base), "-o", part] + command, cwd=folder, capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError("pgntune failed on shard %d (exit code %d): %s" % (shard, run.returncode, run.stderr.strip()))
        return (shard, attempt, [line for line in run.stderr.splitlines() if line.strip()], began)

    # One task per shard; the shards are read where the manifest lies, as
    # --out is written where it lies (a file system every executor sees).
    tasks = [(name, shard, base) for name, (shard, base) in sorted(shards.items())]
    done = sc.parallelize(tasks, len(tasks)).map(run_shard).collect()
    if sorted(r[0] for r in done) != sorted(s for s, _ in shards.values()):
        sys.exit("the job returned shards %s, the manifest lists %d" % (sorted(r[0] for r in done), len(shards)))
    # The commit: each shard's successful attempt moved into the final folder.
    final = staging / "rows"
    final.mkdir()
    for shard, attempt, _, _ in done:
        os.rename(attempt, final / ("shard=%d" % shard))
    first = next(final.glob("shard=*/part-*.parquet"))
    layout, columns, term_columns = pgntune_metadata(spark, first)
    meta = {"layout": layout, "columns": columns, "term_columns": term_columns, "games": manifest["games"], "shards": len(shards)}
    (final / "_pgntune.json").write_text(json.dumps(meta) + "\n")
    (final / "_SUCCESS").write_text("")
    if old is not None:
        os.rename(old, staging / "replaced")
    os.rename(final, out)
    committed = time.time()
    messages = sorted((shard, text) for shard, _, lines, _ in done for text in lines)
    for shard, text in messages:
        print("shard %d: %s" % (shard, text), file=sys.stderr)
    # The rows as written, read back and hashed.
    count, digest = rows_digest(read_rows(spark, out, columns, term_columns))
    return {"shards": len(shards), "games": manifest["games"], "rows": count, "digest": digest,
            # From the job's submission (Spark's Python workers start then, and
            # fetch the binary), and from the first task's start, to the commit.
            "seconds": round(committed - started, 2), "tasks_seconds": round(committed - min(r[3] for r in done), 2), "messages": ["shard %d: %s" % m for m in messages]}


# ----------------------------------------------------------------- fit

def pgntune_theta(binary, datasets, args, extra):
    run = subprocess.run([binary, "fit"] + datasets + ["--json", "-q", "--lambda", repr(args.lam), "--draws", args.draws] + extra, capture_output=True, text=True)
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
    rows = read_rows(spark, args.rows, columns, meta.get("term_columns"))
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
        # pgntune fits the Parquet parts as the tasks wrote them, in shard order.
        parts = sorted(Path(args.rows).glob("shard=*/part-*.parquet"), key=lambda p: int(p.parent.name.split("=")[1]))
        dataset = [str(p) for p in parts]
        prior = work / "zero.toml"
        sets = ", ".join('"%s"' % s for s in layout.split(","))
        prior.write_text("format = 1\nfeatures = [%s]\nscale = 1.0\ndefault = 0\n[weights]\n" % sets)
        # --cost-tol 0: stop on the gradient alone, not when the loss merely settles.
        extra = ["--prior", str(prior), "--k", repr(400 / 2.302585092994046), "--tol", "1e-10", "--cost-tol", "0", "--iters", "5000"]
        summary = {}
    theta_pgntune = pgntune_theta(args.pgntune, dataset if isinstance(dataset, list) else [str(dataset)], args, extra)
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

    p = sub.add_parser("rows-hash", help="the multiset hash of one machine's rows (pgntune extract -o rows.parquet), as extract hashes its own")
    p.add_argument("--master", help="Spark master (default: local[*])")
    p.add_argument("parquet")
    p.set_defaults(run=cmd_rows_hash)

    args = parser.parse_args()
    try:
        args.run(args)
    except OSError as error:
        # A missing or unreadable input is one line and exit code 2, as in pgntune.
        fail("%s: %s" % (error.filename, error.strerror) if error.filename else str(error))


def read_manifest(path):
    """The manifest of `pgntune split`, or one line saying why not."""
    try:
        manifest = json.loads(path.read_text())
        shards = {s["file"]: (int(s["shard"]), int(s["first_game"])) for s in manifest["shards"]}
        manifest["games"]
    except (UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
        fail("%s: not the manifest.json of pgntune split (%s)" % (path, error))
    if not shards:
        fail("%s: the manifest lists no shard" % path)
    return manifest, shards


if __name__ == "__main__":
    main()
