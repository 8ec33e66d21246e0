//! Items 1–7 of the fault audit: runs that destroyed or cut a user's file,
//! or left files behind.

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::{Command, Stdio};

use super::*;

fn extract_csv(dir: &Path, input: &Path, out: &str) -> assert_cmd::Command {
    let mut cmd = pgntune_in(dir);
    cmd.arg("extract").arg(input).args(["-q", "--format", "csv", "-o", out]);
    cmd
}

/// A private device node like /dev/full (character device 1:7): renaming
/// over it is what the fault did. Making one needs root, as in CI; the test
/// that needs it is ignored by default and fails, never passes, without it.
fn private_device(dir: &Path, name: &str, minor: u32) -> std::path::PathBuf {
    let path = dir.join(name);
    let made = Command::new("mknod").arg(&path).args(["c", "1", &minor.to_string()]).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
    needs(made.then_some(path), "permission to make a device node", "run as root, as CI does")
}

#[test]
fn fault_01_dev_full_output_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = write(d, "t.pgn", GAMES);
    // The system's /dev/full (a rename there needs root, which is when it did harm).
    fails(&mut extract_csv(d, &input, "/dev/full"), "No space left on device");
    assert!(std::fs::metadata("/dev/full").unwrap().file_type().is_char_device());
}

/// The device part of fault 1, which skipped whenever the user was not
/// root, CI included: now it is ignored by default, runs under
/// `--include-ignored` (CI runs as root) and fails if it cannot make the device.
#[test]
#[ignore = "needs root (mknod)"]
fn fault_01_private_device_node_output_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = write(d, "t.pgn", GAMES);
    let full = private_device(d, "full", 7);
    fails_untouched(d, &mut extract_csv(d, &input, "full"), "No space left on device");
    assert!(std::fs::metadata(&full).unwrap().file_type().is_char_device(), "the device was replaced");
    let null = private_device(d, "null", 3);
    extract_csv(d, &input, "null").assert().success();
    assert!(std::fs::metadata(&null).unwrap().file_type().is_char_device());
}

#[test]
fn fault_01_pipe_link_and_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = write(d, "t.pgn", GAMES);
    let expected = stdout_of(&mut extract_csv(d, &input, "-"));
    assert!(expected.starts_with("P,N,B,R,Q,result,game,ply\n") && expected.lines().count() > 2, "{expected}");
    assert!(!d.join("-").exists(), "-o - wrote a file named '-'");

    // A named pipe: its reader gets the rows, and it stays a pipe.
    let fifo = d.join("fifo.csv");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(fifo).unwrap().read_to_string(&mut text).unwrap();
            text
        })
    };
    extract_csv(d, &input, "fifo.csv").assert().success();
    assert_eq!(reader.join().unwrap(), expected);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());

    // A link: its target is written, the link stays a link.
    let target = write(d, "target.csv", "");
    std::os::unix::fs::symlink("target.csv", d.join("link.csv")).unwrap();
    extract_csv(d, &input, "link.csv").assert().success();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), expected);
    assert_eq!(std::fs::read_link(d.join("link.csv")).unwrap(), Path::new("target.csv"));
    let names: Vec<String> = snapshot(d).keys().map(|p| p.display().to_string()).collect();
    assert_eq!(names, ["fifo.csv", "link.csv", "t.pgn", "target.csv"], "temporary files left");
}

#[test]
fn fault_02_output_that_is_an_input_or_another_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let victim = write(d, "victim.pgn", GAMES);
    std::fs::hard_link(&victim, d.join("hardlink.pgn")).unwrap();
    std::os::unix::fs::symlink("victim.pgn", d.join("symlink.csv")).unwrap();
    let csv = d.join("d.csv");
    extract_csv(d, &victim, "d.csv").assert().success();
    for (args, needle) in [
        (vec!["extract", "victim.pgn", "-o", "v.csv", "--score-table", "victim.pgn"], "also the input victim.pgn"),
        (vec!["extract", "victim.pgn", "-o", "hardlink.pgn", "--format", "csv", "--force"], "also the input victim.pgn"),
        (vec!["extract", "victim.pgn", "-o", "symlink.csv", "--force"], "also the input victim.pgn"),
        (vec!["extract", "victim.pgn", "-o", "x.mat", "--score-table", "x.mat"], "also the output x.mat"),
        (vec!["extract", "victim.pgn", "-o", "x.mat", "-o", "./x.mat"], "also the output x.mat"),
        (vec!["fit", "d.csv", "--trace", "d.csv"], "also the input d.csv"),
        (vec!["fit", "d.csv", "--trace", "t.csv", "--weights-out", "t.csv"], "also the output t.csv"),
        (vec!["tune", "victim.pgn", "--weights-out", "victim.pgn", "--force"], "also the input victim.pgn"),
        (vec!["analyze", "d.csv", "--weights-out", "d.csv", "--force"], "also the input d.csv"),
        (vec!["openings", "victim.pgn", "--out", "victim.pgn", "--force"], "also the input victim.pgn"),
    ] {
        fails_untouched(d, pgntune_in(d).args(&args), needle);
    }
    // Standard input redirected from the file that is also the output.
    let before = snapshot(d);
    let out = Command::new(assert_cmd::cargo::cargo_bin("pgntune"))
        .current_dir(d)
        .args(["extract", "-", "-o", "victim.pgn", "--format", "csv", "--force"])
        .stdin(std::fs::File::open(&victim).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("also the input standard input"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(snapshot(d), before);
    let mut cmd = pgntune_in(d);
    cmd.args(match_args(1)).args(["--pgn-out", "g.pgn", "--state", "g.pgn"]);
    fails_untouched(d, &mut cmd, "also the output g.pgn");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), GAMES);
    assert!(csv.exists());
}

/// An opening suite is plain EPD, as every opening book is: `openings`
/// replaced a user's book of that form without a word. Now only --force
/// replaces an existing file, the suite's own earlier output included.
#[test]
fn audit_3_openings_never_replaces_an_epd_book_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "games.pgn", GAMES);
    let book = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\nrnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -\n";
    write(d, "book.epd", book);
    let message = fails_untouched(d, pgntune_in(d).args(["openings", "games.pgn", "--plies", "2", "--out", "book.epd"]), "book.epd: exists");
    assert!(message.contains("--force"), "{message}");
    pgntune_in(d).args(["openings", "games.pgn", "--plies", "2", "--out", "new.epd", "-q"]).assert().success();
    fails_untouched(d, pgntune_in(d).args(["openings", "games.pgn", "--plies", "2", "--out", "new.epd"]), "may be yours");
    pgntune_in(d).args(["openings", "games.pgn", "--plies", "2", "--out", "book.epd", "--force", "-q"]).assert().success();
    assert_ne!(std::fs::read_to_string(d.join("book.epd")).unwrap(), book);
}

/// The files a match, a verification or a self-play run reads (openings,
/// weights) and a tuner's prior are inputs too: no output may replace them,
/// `--force` or not. (They were not registered as inputs, and `--force`,
/// or for the prior a weights output over weights, replaced them.)
#[test]
fn fault_02_openings_weights_and_priors_are_inputs_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "victim.pgn", GAMES);
    write(
        d,
        "w.toml",
        "format = 2\nname = \"w\"\nfeatures = [\"material\"]\nscale = 100.0\n\n[weights]\nP = 1.0\nN = 3.0\nB = 3.2\nR = 5.0\nQ = 9.0\n",
    );
    extract_csv(d, &d.join("victim.pgn"), "d.csv").assert().success();
    // A match of the weights file's engine against a preset, then the rest of its arguments.
    let match_with = |rest: &[&'static str]| -> Vec<&'static str> {
        let head =
            ["match", "--engine", "name=w weights=w.toml", "--engine", "name=classical weights=classical", "--nodes", "200", "-q", "--pairs", "1"];
        head.iter().chain(rest).copied().collect()
    };
    for (args, needle) in [
        (match_with(&["--openings", "victim.pgn", "--pgn-out", "victim.pgn", "--force"]), "also the input victim.pgn"),
        (match_with(&["--openings", "victim.pgn", "--pgn-out", "g.pgn", "--state", "victim.pgn", "--force"]), "also the input victim.pgn"),
        (match_with(&["--pgn-out", "w.toml", "--force"]), "also the input w.toml"),
        (vec!["verify", "w.toml", "--nodes", "200", "-q", "--pgn-out", "w.toml", "--force"], "also the input w.toml"),
        (vec!["selfplay", "--weights", "w.toml", "--nodes", "200", "-q", "--games", "2", "--out", "w.toml", "--force"], "also the input w.toml"),
        (
            vec!["selfplay", "--openings", "victim.pgn", "--nodes", "200", "-q", "--games", "2", "--out", "victim.pgn", "--force"],
            "also the input victim.pgn",
        ),
        (vec!["fit", "d.csv", "--prior", "w.toml", "--weights-out", "w.toml"], "also the input w.toml"),
        (vec!["fit", "d.csv", "--prior", "w.toml", "--weights-out", "w.toml", "--force"], "also the input w.toml"),
    ] {
        fails_untouched(d, pgntune_in(d).args(&args), needle);
    }
    // A state path that holds no match state is refused as such, not taken
    // for an earlier run to resume.
    let mut cmd = pgntune_in(d);
    cmd.args(match_args(1)).args(["--state", "d.csv"]);
    fails_untouched(d, &mut cmd, "is not a match state written by pgntune");
}

#[test]
fn fault_03_resume_from_another_directory_continues_the_right_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let (run, other) = (dir.path().join("run"), dir.path().join("other"));
    std::fs::create_dir_all(&run).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    pgntune_in(&run).args(match_args(3)).args(["--pgn-out", "B.pgn"]).assert().success();
    let raw = std::fs::read_to_string(run.join("B.pgn")).unwrap();
    let whole = without_times(&raw);
    let state = run.join("B.pgn.state.json");
    roll_back(&state, 3);
    // An unrelated B.pgn where the resume runs must not be touched.
    let mine = write(&other, "B.pgn", "my own games\n");
    let report = stdout_of(pgntune_in(&other).args(["match", "-q", "--resume", "../run/B.pgn.state.json"]));
    assert!(report.contains("Games 6") && report.contains("Pairs 3"), "{report}");
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "my own games\n");
    assert_eq!(snapshot(&other).len(), 1, "the resume created files where it ran");
    assert_eq!(without_times(&std::fs::read_to_string(run.join("B.pgn")).unwrap()), whole, "the resumed games differ from an uninterrupted run");
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(saved["config"]["pgn_out"], "B.pgn", "the state keeps the PGN relative to itself");

    // The state checks that the PGN still holds the games it recorded.
    roll_back(&state, 2);
    let games = run.join("B.pgn");
    std::fs::write(&games, raw.replace("[Round \"1.2\"]", "[Round \"1.9\"]")).unwrap();
    fails_untouched(
        dir.path(),
        pgntune_in(&other).args(["match", "-q", "--resume", "../run/B.pgn.state.json"]),
        "are not the games the match state recorded",
    );
    std::fs::remove_file(&games).unwrap();
    fails_untouched(dir.path(), pgntune_in(&other).args(["match", "-q", "--resume", "../run/B.pgn.state.json"]), "missing, but the match state has");
    // Bytes after the committed games that the match did not write are not cut.
    std::fs::write(&games, format!("{raw}[Event \"mine\"]\n")).unwrap();
    roll_back(&state, 6);
    fails_untouched(dir.path(), pgntune_in(&run).args(["match", "-q", "--resume", "B.pgn.state.json"]), "that this match did not write");
}

#[test]
fn fault_04_existing_pgn_not_truncated_and_outputs_checked_first() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "mine.pgn", GAMES);
    fails_untouched(d, pgntune_in(d).args(match_args(1)).args(["--pgn-out", "mine.pgn"]), "pass --force to replace it");
    fails_untouched(d, pgntune_in(d).args(match_args(1)).args(["--pgn-out", "new.pgn", "--state", "nodir/s.json"]), "nodir");
    fails_untouched(d, pgntune_in(d).args(match_args(1)).args(["--pgn-out", "nodir/g.pgn"]), "nodir");
    std::fs::create_dir(d.join("folder")).unwrap();
    fails_untouched(d, pgntune_in(d).args(match_args(1)).args(["--pgn-out", "folder"]), "is a directory");
    fails_untouched(d, pgntune_in(d).args(["selfplay", "--games", "2", "--out", "mine.pgn"]), "pass --force to replace it");
    // A file where selfplay keeps its state that is no state of pgntune's:
    // it was called an earlier run to continue with --resume, which then failed.
    write(d, "new.pgn.state.json", "hello\n");
    let message = fails_untouched(d, pgntune_in(d).args(["selfplay", "--games", "2", "--nodes", "100", "--out", "new.pgn"]), "is not a match state");
    assert!(!message.contains("--resume"), "{message}");
    std::fs::remove_file(d.join("new.pgn.state.json")).unwrap();
    // With --force the file is the new match's.
    pgntune_in(d).args(match_args(1)).args(["--pgn-out", "mine.pgn", "--force"]).assert().success();
    assert_eq!(split_games(&std::fs::read_to_string(d.join("mine.pgn")).unwrap()).len(), 2);
    let help = stdout_of(pgntune().args(["match", "--help"]));
    assert!(help.contains("replaced only with --force"), "{help}");
}

#[test]
fn fault_05_huge_hash_refused() {
    let dir = tempfile::tempdir().unwrap();
    for hash in ["999999999", "0", "-5", "4097"] {
        let spec = format!("name=a weights=classical hash={hash}");
        fails_untouched(
            dir.path(),
            pgntune_in(dir.path()).args(["match", "--engine", &spec, "--engine", "name=b weights=kaissa", "--pairs", "1", "--nodes", "100"]),
            "hash=",
        );
    }
    pgntune_in(dir.path())
        .args([
            "match",
            "--engine",
            "name=a weights=classical hash=4096",
            "--engine",
            "name=b weights=kaissa hash=1",
            "--pairs",
            "1",
            "--nodes",
            "100",
            "-q",
        ])
        .assert()
        .success();
}

/// Starts `pgntune args` in `dir` with piped standard input.
fn spawn(dir: &Path, args: &[&str]) -> std::process::Child {
    Command::new(assert_cmd::cargo::cargo_bin("pgntune"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn partials(dir: &Path) -> Vec<String> {
    snapshot(dir).keys().map(|p| p.display().to_string()).filter(|n| n.contains(".partial") || n.ends_with(".lock")).collect()
}

#[test]
fn fault_06_interrupted_extract_leaves_no_partial_file() {
    for (sig, code) in [("INT", 130), ("TERM", 143)] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut child = spawn(d, &["extract", "-", "-q", "-o", "rows.csv", "-o", "rows.parquet", "--score-table", "table.csv"]);
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, GAMES.as_bytes()).unwrap();
        // The two row outputs exist under temporary names (the score table is written at the end).
        wait_until("the temporary outputs", || partials(d).len() == 2);
        signal(child.id(), sig);
        let status = child.wait().unwrap();
        drop(stdin);
        assert_eq!(status.code(), Some(code), "SIG{sig}");
        assert!(snapshot(d).is_empty(), "SIG{sig} left {:?}", snapshot(d).keys().collect::<Vec<_>>());
    }
}

#[test]
fn fault_06_interrupted_selfplay_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = ["selfplay", "--games", "12", "--nodes", "1500", "-j", "1", "-q", "--out", "sp.pgn.zst"];
    pgntune_in(d).args(&args[..args.len() - 1]).arg("whole.pgn").assert().success();
    let whole = std::fs::read_to_string(d.join("whole.pgn")).unwrap();
    assert_eq!(split_games(&whole).len(), 12);

    let mut child = spawn(d, &args);
    let state = d.join("sp.pgn.zst.state.json");
    wait_until("four games", || committed(&state) >= 4);
    signal(child.id(), "INT");
    assert_eq!(child.wait().unwrap().code(), Some(130));
    assert!(partials(d).is_empty(), "{:?}", partials(d));
    assert!(state.exists() && d.join("sp.pgn.zst.games.pgn").exists() && !d.join("sp.pgn.zst").exists());
    // The same command again would start afresh: it points to --resume instead.
    fails_untouched(d, pgntune_in(d).args(args), "--resume");
    pgntune_in(d).args(["selfplay", "-q", "--resume", "sp.pgn.zst.state.json"]).assert().success();
    let resumed = String::from_utf8(zstd::decode_all(std::fs::File::open(d.join("sp.pgn.zst")).unwrap()).unwrap()).unwrap();
    // The same games as the uninterrupted run (both engine names carry the varied values).
    let strip = |t: &str| without_times(t).lines().filter(|l| !l.starts_with("[Date")).collect::<Vec<_>>().join("\n");
    assert_eq!(strip(&resumed), strip(&whole));
    let names: Vec<String> = snapshot(d).keys().map(|p| p.display().to_string()).collect();
    assert_eq!(names, ["sp.pgn.zst", "whole.pgn"], "working files left");
}

#[test]
fn fault_07_concurrent_resume_is_locked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args: Vec<String> = match_args(200).into_iter().chain(["-j", "1", "--pgn-out", "m.pgn"].map(String::from)).collect();
    let mut first = Command::new(assert_cmd::cargo::cargo_bin("pgntune")).current_dir(d).args(&args).stdout(Stdio::null()).spawn().unwrap();
    let state = d.join("m.pgn.state.json");
    wait_until("a saved game", || committed(&state) >= 1);
    let second = fails(pgntune_in(d).args(["match", "--resume", "m.pgn.state.json"]), "another pgntune is running this match");
    assert!(second.contains("m.pgn.state.json"), "{second}");
    signal(first.id(), "TERM");
    assert_eq!(first.wait().unwrap().code(), Some(143));
    assert!(partials(d).is_empty(), "{:?}", partials(d));
    // Now the state is free: a resume runs (stopped again at once by a short wait).
    let mut again = Command::new(assert_cmd::cargo::cargo_bin("pgntune"))
        .current_dir(d)
        .args(["match", "-q", "--resume", "m.pgn.state.json"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let before = committed(&state);
    wait_until("the resumed match to save a game", || committed(&state) > before);
    signal(again.id(), "INT");
    assert_eq!(again.wait().unwrap().code(), Some(130));
    assert!(partials(d).is_empty());
}
