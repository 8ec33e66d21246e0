//! Issue 33 ("Nothing lost, nothing silently wrong, round three"): data
//! loss and aborts, one test per finding, named after its id (D1, D2, P1,
//! P2, P3).

use std::path::Path;
use std::process::{Command, Stdio};

use super::*;

const WEIGHTS: &str =
    "format = 2\nname = \"w\"\nfeatures = [\"material\"]\nscale = 100.0\n\n[weights]\nP = 1.0\nN = 3.0\nB = 3.2\nR = 5.0\nQ = 9.0\n";

/// One EPD position per line, labelled.
const EPD: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 \"1-0\";\n\
r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - c9 \"1/2-1/2\";\n";

#[test]
fn d1_weights_read_through_options_are_inputs_no_output_may_replace() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "t.pgn", GAMES);
    write(d, "e.epd", EPD);
    // A weights file under a dataset's name too: label's output needs one.
    write(d, "sc.toml", WEIGHTS);
    write(d, "w.csv", WEIGHTS);
    for force in [false, true] {
        let with = |args: &[&'static str]| -> Vec<&'static str> { args.iter().copied().chain(force.then_some("--force")).collect() };
        for args in [
            with(&["analyze", "t.pgn", "--scale", "sc.toml", "--weights-out", "sc.toml", "-q"]),
            with(&["tune", "t.pgn", "--positions", "qsearch", "--qsearch-weights", "sc.toml", "--weights-out", "sc.toml", "-q"]),
            with(&["extract", "t.pgn", "--positions", "qsearch", "--qsearch-weights", "sc.toml", "-o", "r.csv", "--score-table", "sc.toml", "-q"]),
            with(&["extract", "t.pgn", "--positions", "qsearch", "--qsearch-weights", "./sc.toml", "-o", "sc.toml", "--format", "csv", "-q"]),
            with(&["label", "e.epd", "--weights", "w.csv", "-o", "w.csv", "--depth", "1", "-q"]),
        ] {
            let message = fails_untouched(d, pgntune_in(d).args(&args), "is also the input");
            assert!(message.contains("sc.toml") || message.contains("w.csv"), "{args:?}: {message}");
        }
    }
    assert_eq!(std::fs::read_to_string(d.join("sc.toml")).unwrap(), WEIGHTS);
    // A preset is no file: its name as an output is an ordinary output.
    pgntune_in(d).arg("analyze").arg(bundled_sample()).args(["--scale", "kaissa", "--weights-out", "out.toml", "-q"]).assert().success();
}

fn split_args(out: &str, compression: &str) -> Vec<String> {
    let human = shared_dir().join("human");
    vec![
        "split".into(),
        human.join("Dreev.pgn").display().to_string(),
        human.join("Gelfand.pgn").display().to_string(),
        "--games".into(),
        "1".into(),
        "--compression".into(),
        compression.into(),
        "-q".into(),
        "-o".into(),
        out.into(),
    ]
}

/// Starts a split of two large collections into one-game shards, waits
/// until it is writing shards, and stops it with `sig`.
fn interrupt_split(dir: &Path, out: &str, compression: &str, sig: &str) -> Option<i32> {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("pgntune"))
        .current_dir(dir)
        .args(split_args(out, compression))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let folder = dir.join(out);
    wait_until("shards being written", || std::fs::read_dir(&folder).is_ok_and(|entries| entries.count() > 50));
    signal(child.id(), sig);
    child.wait().unwrap().code()
}

#[test]
#[ignore = "needs ../shared/data"]
fn d2_interrupted_split_leaves_no_partial_file_nor_its_folder() {
    shared("human/Dreev.pgn");
    shared("human/Gelfand.pgn");
    for (compression, sig, code) in [("none", "INT", 130), ("zstd", "TERM", 143), ("gzip", "INT", 130)] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert_eq!(interrupt_split(d, "spbig", compression, sig), Some(code), "{compression}");
        assert!(snapshot(d).is_empty(), "{compression} SIG{sig} left {:?}", snapshot(d).keys().take(5).collect::<Vec<_>>());
    }
    // Inside an existing split folder: the earlier split is kept as it was.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let small = write(d, "t.pgn", GAMES);
    pgntune_in(d).args(["split", "-q", "--games", "1", "-o", "sp"]).arg(&small).assert().success();
    std::fs::remove_file(&small).unwrap();
    let before = snapshot(d);
    assert_eq!(interrupt_split(d, "sp", "none", "TERM"), Some(143));
    assert_eq!(snapshot(d), before, "an interrupted split changed the earlier one");
}

/// A merged CSV as the Spark aggregation writes it, with these counts.
fn merged_csv(counts: [u64; 3]) -> String {
    let [w, dr, l] = counts;
    format!("P,N,B,R,Q,wins,draws,losses\n1,0,0,0,0,{w},{dr},{l}\n0,0,0,1,-1,{l},{dr},{w}\n-1,1,0,0,0,{dr},{w},{l}\n")
}

/// `fit FILE ARGS --json` in `d`.
fn fitted(d: &Path, file: &str, args: &[&str]) -> serde_json::Value {
    let out = stdout_of(pgntune_in(d).args(["fit", file, "--json", "-q"]).args(args));
    serde_json::from_str(&out).unwrap()
}

/// Every number under `value` with its path, but the run's own (time,
/// passes, memory) and the game count (merged rows have no games: written
/// out, each row was its own).
fn numbers(value: &serde_json::Value, path: &str, out: &mut Vec<(String, f64)>) {
    match value {
        serde_json::Value::Number(n) => out.push((path.to_string(), n.as_f64().unwrap())),
        serde_json::Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| numbers(v, &format!("{path}/{i}"), out)),
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                if !["seconds", "passes", "iterations", "memory_bytes", "distinct_rows", "gradient_norm"].contains(&k.as_str()) {
                    numbers(v, &format!("{path}/{k}"), out);
                }
            }
        }
        _ => {}
    }
}

#[test]
fn p1_merged_counts_are_weights_not_copies() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Small counts: the same fit as the rows written out one by one.
    write(d, "merged.csv", merged_csv([3, 2, 1]));
    let mut rows = String::from("P,N,B,R,Q,result\n");
    for (features, counts) in [("1,0,0,0,0", [3, 2, 1]), ("0,0,0,1,-1", [1, 2, 3]), ("-1,1,0,0,0", [2, 3, 1])] {
        for (score, n) in ["1", "0.5", "0"].iter().zip(counts) {
            for _ in 0..n {
                rows.push_str(&format!("{features},{score}\n"));
            }
        }
    }
    write(d, "rows.csv", rows);
    // The classic fitter (material rows) and the tuner (asked for by --k).
    for args in [&[][..], &["--k", "1"], &["--k", "auto", "--prior", "classical", "--lambda", "0.01"]] {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        numbers(&fitted(d, "merged.csv", args), "", &mut a);
        numbers(&fitted(d, "rows.csv", args), "", &mut b);
        assert_eq!(a.iter().map(|x| &x.0).collect::<Vec<_>>(), b.iter().map(|x| &x.0).collect::<Vec<_>>(), "{args:?}");
        assert!(a.len() > 10, "{a:?}");
        for ((name, x), (_, y)) in a.iter().zip(&b) {
            assert!((x - y).abs() <= 1e-6 * (1.0 + y.abs()), "{args:?} {name}: merged {x}, expanded {y}");
        }
    }
    // Counts far past memory: fitted as weights, at once.
    for big in [10_000_000u64, 100_000_000, 1_000_000_000_000_000] {
        write(d, "big.csv", merged_csv([big, big / 2, big / 3]));
        let started = std::time::Instant::now();
        for args in [&[][..], &["--k", "1"]] {
            pgntune_in(d).args(["fit", "big.csv", "-q"]).args(args).timeout(std::time::Duration::from_secs(60)).assert().success();
        }
        assert!(started.elapsed().as_secs() < 30, "{big}: {:?}", started.elapsed());
    }
}

#[test]
fn p2_a_line_without_end_is_refused_not_read_into_memory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for name in ["z.csv", "z.svm", "z.epd", "z.tsv", "z.mat", "z.ijv"] {
        std::os::unix::fs::symlink("/dev/zero", d.join(name)).unwrap();
        let message = fails(pgntune_in(d).args(["fit", name]).timeout(std::time::Duration::from_secs(60)), name);
        assert!(message.contains("longer than 1 MiB") || message.contains("size line"), "{message}");
    }
    let message = fails(pgntune_in(d).args(["weights", "show", "/dev/zero"]).timeout(std::time::Duration::from_secs(60)), "/dev/zero");
    assert!(message.contains("larger than 16 MiB"), "{message}");
    // A long line within a file names its line.
    let mut text = b"P,N,B,R,Q,result\n1,0,0,0,0,1\n".to_vec();
    text.extend(std::iter::repeat_n(b'1', (1 << 20) + 10));
    write(d, "long.csv", text);
    fails(pgntune_in(d).args(["fit", "long.csv"]), "line 3 is longer than 1 MiB");
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.epd")).unwrap();
    fails(pgntune_in(d).args(["label", "zero.epd", "-o", "l.csv"]).timeout(std::time::Duration::from_secs(60)), "line 1 is longer than 1 MiB");
}

#[test]
fn p3_hash_beyond_memory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "e.epd", EPD);
    // Address space limited to 2 GB: a 3000 MB table cannot be had. The
    // limit is set by the shell, so that the test needs no libc.
    let script =
        format!("ulimit -v 2000000 && exec {} label e.epd -o l.csv --hash 3000 -j 2 --depth 1", assert_cmd::cargo::cargo_bin("pgntune").display());
    let mut cmd = assert_cmd::Command::new("bash");
    cmd.current_dir(d).args(["-c", &script]);
    let message = fails(&mut cmd, "--hash 3000");
    assert!(message.contains("smaller --hash"), "{message}");
    // More than the machine has: refused before any table is made.
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| t.lines().find(|l| l.starts_with("MemAvailable:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok()));
    if let Some(kb) = available {
        let threads = (kb / 1024 / 4096 + 1).to_string();
        fails_untouched(d, pgntune_in(d).args(["label", "e.epd", "-o", "l.csv", "--hash", "4096", "-j", &threads, "--force"]), "memory available");
    }
    assert!(!d.join("l.csv").exists());
}
