//! The Spark job (`scale/spark/pgntune_spark.py`) on small collections, in
//! Spark's local mode: sharded extraction with a failing and a killed
//! shard, fits cross-checked by MLlib, a sharded match. They need Java and
//! PySpark (`.ci/run` installs both): they are ignored unless asked for
//! (`--include-ignored`), and then fail without them.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// Java and PySpark, or a failure that says which is missing.
fn need_spark() {
    let java = Command::new("java").arg("-version").output().is_ok_and(|o| o.status.success());
    needs(java.then_some(()), "Java", "apt-get install openjdk-17-jre-headless");
    let pyspark = Command::new("python3").args(["-c", "import pyspark, numpy"]).output().is_ok_and(|o| o.status.success());
    needs(pyspark.then_some(()), "PySpark", "pip install -r scale/spark/requirements.txt");
}

fn job() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scale/spark/pgntune_spark.py")
}

/// Every file under `dir`, recursively.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() { files.extend(walk(&path)) } else { files.push(path) }
    }
    files
}

fn binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("pgntune")
}

/// Runs the job; returns its last line (a JSON summary) and all its output.
fn run_job(args: &[&str]) -> (serde_json::Value, String) {
    let out = Command::new("python3").arg(job()).args(args).output().unwrap();
    let text = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the Spark job failed:\n{text}");
    let last = String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or_default().to_string();
    (serde_json::from_str(&last).unwrap_or_else(|e| panic!("{e}: {last}\n{text}")), text)
}

#[test]
#[ignore = "needs ../shared/data, Java and PySpark"]
fn spark_extracts_shards_like_one_machine_retries_a_killed_task_and_mllib_agrees_with_pgntune() {
    let games = shared("human/Capablanca.pgn");
    need_spark();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Capablanca's 597 games and a game with an illegal move, in 4 shards.
    let bad = d.join("bad.pgn");
    std::fs::write(&bad, "[Event \"bad\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 Ke6 5. O-O 1-0\n").unwrap();
    let shards = d.join("shards");
    pgntune().arg("split").arg(&games).arg(&bad).args(["--games", "150", "-q", "-o"]).arg(&shards).assert().success();
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(shards.join("manifest.json")).unwrap()).unwrap();
    let count = manifest["shards"].as_array().unwrap().len();
    assert_eq!(count, 4);
    // A pgntune that is killed the first time it extracts shard 1, after
    // writing half a Parquet part: the retried task's part must be the one
    // committed (a committed half part would fail the read-back below).
    let marker = d.join("killed-once");
    let fake = d.join("pgntune");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\ncase \"$2\" in *shard-00001*) if [ ! -e '{m}' ]; then touch '{m}'; prev=; for a; do [ \"$prev\" = -o ] && printf 'PAR1 half a part' > \"$a\"; prev=$a; done; kill -9 $$; fi;; esac\nexec '{real}' \"$@\"\n",
            m = marker.display(),
            real = binary().display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let rows = d.join("rows.parquet");
    let (report, _) = run_job(&[
        "extract",
        "--master",
        "local[2,3]",
        "--pgntune",
        fake.to_str().unwrap(),
        "--manifest",
        shards.join("manifest.json").to_str().unwrap(),
        "--out",
        rows.to_str().unwrap(),
    ]);
    assert!(marker.exists(), "the first attempt at shard 1 was killed");
    // Each shard's part, written by pgntune itself, and nothing else: no
    // staging folder, no part of the failed attempt.
    let mut parts: Vec<String> = walk(&rows).iter().map(|p| p.strip_prefix(&rows).unwrap().display().to_string()).collect();
    parts.sort();
    assert_eq!(
        parts,
        [
            "_SUCCESS",
            "_pgntune.json",
            "shard=0/part-00000.parquet",
            "shard=1/part-00001.parquet",
            "shard=2/part-00002.parquet",
            "shard=3/part-00003.parquet"
        ]
    );
    let beside: Vec<_> =
        std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.contains("staging")).collect();
    assert!(beside.is_empty(), "staging left behind: {beside:?}");
    // An existing --out is kept without --force, and --force replaces only
    // a folder the job wrote; both are refused before Spark starts.
    let manifest_arg = shards.join("manifest.json");
    let again = |out: &Path, force: bool| {
        let mut command = Command::new("python3");
        command.arg(job()).args(["extract", "--pgntune"]).arg(binary()).arg("--manifest").arg(&manifest_arg).arg("--out").arg(out);
        if force {
            command.arg("--force");
        }
        let out = command.output().unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).trim().to_string()
    };
    assert!(again(&rows, false).ends_with("exists; pass --force to replace it"));
    let mine = d.join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "mine").unwrap();
    assert!(again(&mine, true).ends_with("not rows this job wrote (no _pgntune.json); not replacing it"));
    assert_eq!(std::fs::read_to_string(mine.join("notes.txt")).unwrap(), "mine");
    // One machine, all inputs at once: the same multiset of rows.
    let one_machine = d.join("one.parquet");
    pgntune().arg("extract").arg(&games).arg(&bad).args(["-q", "-o"]).arg(&one_machine).assert().success();
    let (one, _) = run_job(&["rows-hash", "--master", "local[2]", one_machine.to_str().unwrap()]);
    assert_eq!(report["digest"], one["digest"], "Spark's rows differ from one machine's: {report}");
    assert_eq!(report["games"].as_u64(), Some(598));
    let messages = report["messages"].as_array().unwrap();
    assert!(
        messages.iter().any(|m| m.as_str().unwrap().starts_with("shard 3: ") && m.as_str().unwrap().contains("illegal move 'Ke6'")),
        "the bad game is reported with its shard: {messages:?}"
    );

    // Material, decisive games, λ = 0: pgntune's fit of Spark's merged counts against MLlib on the full rows.
    let work = d.join("fit");
    let (fit, text) = run_job(&[
        "fit",
        "--master",
        "local[2]",
        "--pgntune",
        binary().to_str().unwrap(),
        "--rows",
        rows.to_str().unwrap(),
        "--work",
        work.to_str().unwrap(),
    ]);
    assert!(fit["max_rel_diff"].as_f64().unwrap() < 1e-4, "{text}");
    assert!(fit["vectors"].as_u64().unwrap() > 100, "{text}");
    // With draws as half points and a penalty: MLlib's regParam must be 2λ.
    let (fit, text) = run_job(&[
        "fit",
        "--master",
        "local[2]",
        "--pgntune",
        binary().to_str().unwrap(),
        "--rows",
        rows.to_str().unwrap(),
        "--work",
        work.to_str().unwrap(),
        "--draws",
        "half",
        "--lambda",
        "0.001",
    ]);
    assert!(fit["max_rel_diff"].as_f64().unwrap() < 1e-4, "{text}");
}

#[test]
#[ignore = "needs Java and PySpark"]
fn spark_fits_a_sparse_layout_like_the_whole_evaluation_tuner() {
    need_spark();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let shards = d.join("shards");
    pgntune().arg("split").arg(bundled_sample()).args(["--games", "250", "-q", "-o"]).arg(&shards).assert().success();
    let rows = d.join("pst.parquet");
    let b = binary();
    let (report, _) = run_job(&[
        "extract",
        "--master",
        "local[2]",
        "--pgntune",
        b.to_str().unwrap(),
        "--manifest",
        shards.join("manifest.json").to_str().unwrap(),
        "--out",
        rows.to_str().unwrap(),
        "--features",
        "pst",
        "--",
        "--positions",
        "plies",
        "--sample",
        "4",
    ]);
    // The parts are compact (term, count, phase); expanded in Spark SQL,
    // their rows are one machine's, written either way; and with untapered
    // terms beside tapered ones (material), both shapes give the same rows.
    for features in ["pst", "material,pst"] {
        let mut digests = Vec::new();
        for shape in ["compact", "expanded"] {
            let one = d.join(format!("one-{}-{shape}.parquet", features.replace(',', "-")));
            pgntune()
                .arg("extract")
                .arg(bundled_sample())
                .args(["--features", features, "--positions", "plies", "--sample", "4", "--sparse-shape", shape, "-q", "-o"])
                .arg(&one)
                .assert()
                .success();
            let (hash, _) = run_job(&["rows-hash", "--master", "local[2]", one.to_str().unwrap()]);
            digests.push(hash["digest"].clone());
        }
        assert_eq!(digests[0], digests[1], "{features}: compact and expanded rows differ");
        if features == "pst" {
            assert_eq!(report["digest"], digests[0], "Spark's rows differ from one machine's: {report}");
        }
    }
    let (fit, text) = run_job(&[
        "fit",
        "--master",
        "local[2]",
        "--pgntune",
        b.to_str().unwrap(),
        "--rows",
        rows.to_str().unwrap(),
        "--work",
        d.join("fit").to_str().unwrap(),
        "--draws",
        "half",
        "--lambda",
        "0.0001",
    ]);
    assert!(fit["columns"].as_u64().unwrap() > 500, "{text}");
    assert!(fit["max_rel_diff"].as_f64().unwrap() < 1e-3, "{text}");
}

#[test]
#[ignore = "needs Java and PySpark"]
fn spark_plays_a_sharded_match_that_merges_into_one_run() {
    need_spark();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let engines = ["--engine", "name=classical weights=classical", "--engine", "name=kaissa weights=kaissa", "--nodes", "300"];
    let one = d.join("one.pgn");
    let whole = pgntune()
        .arg("match")
        .args(engines)
        .args(["--pairs", "8", "-q", "-j", "1", "--json", "--pgn-out"])
        .arg(&one)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let whole: serde_json::Value = serde_json::from_slice(&whole).unwrap();
    let out = d.join("match");
    let b = binary();
    let mut args = vec![
        "match",
        "--master",
        "local[2]",
        "--pgntune",
        b.to_str().unwrap(),
        "--shards",
        "4",
        "--pairs",
        "8",
        "--wave-pairs",
        "4",
        "--out",
        out.to_str().unwrap(),
        "--",
    ];
    args.extend(engines);
    let (report, _) = run_job(&args);
    assert_eq!(report["waves"].as_u64(), Some(2));
    assert_eq!(report["results"], whole["results"]);
    assert_eq!(report["stopped"], whole["stopped"]);
    assert_eq!(std::fs::read(out.join("merged.pgn")).unwrap(), std::fs::read(&one).unwrap(), "the merged PGN is one run's");
}
