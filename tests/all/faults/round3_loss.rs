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
            with(&["tune", "t.pgn", "--qsearch-weights", "sc.toml", "--weights-out", "sc.toml", "-q"]),
            with(&["extract", "t.pgn", "--quiet", "qsearch", "--qsearch-weights", "sc.toml", "-o", "r.csv", "--score-table", "sc.toml", "-q"]),
            with(&["extract", "t.pgn", "--quiet", "qsearch", "--qsearch-weights", "./sc.toml", "-o", "sc.toml", "--format", "csv", "-q"]),
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
fn d2_interrupted_split_leaves_no_partial_file_nor_its_folder() {
    if shared("human/Dreev.pgn").is_none() || shared("human/Gelfand.pgn").is_none() {
        return;
    }
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

#[test]
fn p2_a_line_without_end_is_refused_not_read_into_memory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for name in ["z.csv", "z.svm", "z.epd", "z.tsv", "z.mat"] {
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
