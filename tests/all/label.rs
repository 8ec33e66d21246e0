//! `pgntune label` with UCI engines: Stockfish, and a scripted fake engine
//! that crashes, hangs, answers garbage, mate scores and WDL; resuming a
//! killed run; labels that do not depend on `-j`.

use std::path::{Path, PathBuf};

use crate::common::{needs, pgntune};

const STOCKFISH: &str = "/usr/games/stockfish";

/// Stockfish; the tests that label with it are `#[ignore = "needs Stockfish"]`.
fn stockfish() -> &'static str {
    needs(Path::new(STOCKFISH).exists().then_some(STOCKFISH), STOCKFISH, "apt-get install stockfish")
}

/// The start position's pieces with fullmove number `n`: the fake engine
/// reads `n` to choose what to do, and e2e4 is always legal.
fn start_with(n: u32) -> String {
    format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 {n}")
}

/// A UCI engine in sh whose answer depends on the position's fullmove
/// number: 1 a score with WDL and a PV, 2 a mate, 3 an illegal best move,
/// 4 a crash the first time only, 5 a hang, 6 a plain score, 7 garbage
/// and no score.
fn fake_engine(dir: &Path) -> PathBuf {
    let path = dir.join("fake-engine");
    let script = r#"#!/bin/sh
dir=$(dirname "$0")
while read -r line; do
  case "$line" in
    uci) echo 'id name fake 1.0'; echo 'option name UCI_ShowWDL type check default false'; echo 'option name Hash type spin default 16 min 1 max 64'; echo uciok;;
    isready) echo readyok;;
    "position fen "*) fen=${line#position fen };;
    go*)
      n=$(echo "$fen" | cut -d' ' -f6)
      case $n in
        1) echo 'info depth 5 score cp 37 wdl 600 300 100 nodes 100 time 3 pv e2e4 e7e5 g1f3'; echo 'bestmove e2e4 ponder e7e5';;
        2) echo 'info depth 5 score mate 3 nodes 100 time 1 pv e2e4'; echo 'bestmove e2e4';;
        3) echo 'info depth 5 score cp 1 pv e2e4'; echo 'bestmove zzzz';;
        4) if [ -e "$dir/crashed" ]; then echo 'info depth 5 score cp 10 time 1 pv d2d4'; echo 'bestmove d2d4'; else touch "$dir/crashed"; exit 1; fi;;
        5) sleep 4;;
        6) echo 'info depth 5 score cp -20 time 1 pv e2e4'; echo 'bestmove e2e4';;
        7) echo 'garbage ^@^@ 0x0'; echo 'bestmove e2e4';;
      esac;;
    quit) exit 0;;
  esac
done
"#;
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    path
}

fn epd(dir: &Path, name: &str, fens: &[String]) -> PathBuf {
    let path = dir.join(name);
    // EPD has no move counters: they go in the hmvc and fmvn operations.
    let text: String = fens
        .iter()
        .map(|f| {
            let fields: Vec<&str> = f.split(' ').collect();
            format!("{} {} {} {} hmvc {}; fmvn {}; c9 \"1/2-1/2\";\n", fields[0], fields[1], fields[2], fields[3], fields[4], fields[5])
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// The `ce` labels of an EPD output, in order, with their FENs' boards.
fn labels_of(path: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let ce = l.split("ce ").nth(1).map_or("-", |r| r.split(';').next().unwrap()).to_string();
            (l.split(' ').take(4).collect::<Vec<_>>().join(" "), ce)
        })
        .collect()
}

#[test]
fn a_fake_engine_that_crashes_hangs_and_answers_garbage_loses_only_its_bad_positions() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let engine = fake_engine(d);
    let input = epd(d, "in.epd", &(1..=7).map(start_with).collect::<Vec<_>>());
    let run = pgntune()
        .current_dir(d)
        .args(["label", "in.epd", "-o", "out.epd", "--depth", "5", "--timeout", "1", "-j", "1"])
        .arg("--uci")
        .arg(engine.display().to_string())
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&run.get_output().stderr).to_string();
    let labels = labels_of(&d.join("out.epd"));
    // 1 (score), 2 (mate), 4 (crashed once, then answered), 6 (score) are labelled;
    // 3 (illegal move), 5 (hangs) and 7 (no score) failed twice and are skipped.
    let ce: Vec<&str> = labels.iter().map(|(_, ce)| ce.as_str()).collect();
    assert_eq!(ce, ["37", "10000", "10", "-20"], "{stderr}");
    assert!(stderr.contains("skipped position 3"), "{stderr}");
    assert!(stderr.contains("illegal move 'zzzz'"), "{stderr}");
    assert!(stderr.contains("skipped position 5") && stderr.contains("no reply in time"), "{stderr}");
    assert!(stderr.contains("skipped position 7") && stderr.contains("no 'info ... score' line"), "{stderr}");
    assert!(stderr.contains("skipped (engine failed): 3"), "{stderr}");
    assert!(stderr.contains("(fake 1.0)"), "{stderr}");
    assert!(!input.with_file_name(".out.epd.label-journal").exists(), "the journal goes once the output is written");
}

#[test]
fn wdl_labels_and_pv_leaves_from_a_uci_engine() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let engine = fake_engine(d);
    epd(d, "in.epd", &[start_with(1), start_with(2), start_with(6)]);
    let run = pgntune()
        .current_dir(d)
        .args(["label", "in.epd", "-o", "out.epd", "--depth", "5", "--wdl", "--resolve-pv"])
        .arg("--uci")
        .arg(format!("cmd={} hash=8 name=teacher", engine.display()))
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&run.get_output().stderr).to_string();
    let labels = labels_of(&d.join("out.epd"));
    // Position 1: expected score 0.75 is 400·log10(3) = 190.85 cp for
    // white; its PV e2e4 e7e5 g1f3 leads to black to move after 1. e4 e5
    // 2. Nf3, and EPD's `ce` is from the side to move's view, in whole cp.
    assert_eq!(labels[0].0, "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq -");
    assert_eq!(labels[0].1, "-191");
    // Position 2 (a mate) is skipped with --resolve-pv; 6 has no WDL: its
    // score, -20 for white, is +20 for black to move after its PV e2e4.
    assert_eq!(labels.len(), 2, "{stderr}");
    assert_eq!(labels[1].1, "20");
    assert!(stderr.contains("skipped (mate score): 1"), "{stderr}");
    assert!(stderr.contains("1 label from the engine's win/draw/loss estimate"), "{stderr}");
}

#[test]
fn bad_uci_specs_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    epd(d, "in.epd", &[start_with(1)]);
    for (spec, says) in [
        ("cmd=stockfish bogus=1", "--uci 'cmd=stockfish bogus=1': unknown key 'bogus'"),
        ("weights=full", "--uci 'weights=full': names no program"),
        ("cmd=stockfish depth=3", "give the search limit with --depth or --nodes"),
        ("/no/such/engine", "does not start: cannot start /no/such/engine"),
    ] {
        let run = pgntune().current_dir(d).args(["label", "in.epd", "-o", "out.epd", "--uci", spec]).assert().code(2);
        let stderr = String::from_utf8_lossy(&run.get_output().stderr).to_string();
        assert!(stderr.contains(says), "{spec}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    assert!(!d.join("out.epd").exists());
    // An engine that never started kept nothing: no journal is left to resume.
    assert!(!d.join(".out.epd.label-journal").exists());
    let run = pgntune().current_dir(d).args(["label", "in.epd", "-o", "out.epd", "--wdl"]).assert().code(2);
    assert!(String::from_utf8_lossy(&run.get_output().stderr).contains("--wdl: the bundled engine"));
}

/// A few hundred real positions of master games with their FENs.
fn human_positions(d: &Path) -> PathBuf {
    let pgn = crate::common::shared("human/Morphy.pgn");
    pgntune().current_dir(d).args(["extract", "--features", "material", "--sample", "1", "-o", "pos.epd", "-q"]).arg(pgn).assert().success();
    d.join("pos.epd")
}

#[test]
#[ignore = "needs Stockfish and ../shared/data"]
fn stockfish_labels_do_not_depend_on_threads_and_survive_a_kill() {
    let sf = stockfish();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    human_positions(d);
    let label = |out: &str, j: &str| {
        let mut cmd = pgntune();
        cmd.current_dir(d).args(["label", "pos.epd", "-o", out, "--uci", sf, "--depth", "7", "--features", "material", "-q", "-j", j]);
        cmd
    };
    label("one.epd", "1").assert().success();
    label("two.epd", "2").assert().success();
    let one = std::fs::read_to_string(d.join("one.epd")).unwrap();
    assert!(one.lines().count() > 100, "{}", one.lines().count());
    assert_eq!(one, std::fs::read_to_string(d.join("two.epd")).unwrap());

    // kill -9 part way, then the same command again: the same labels.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pgntune"))
        .current_dir(d)
        .args(["label", "pos.epd", "-o", "killed.epd", "--uci", sf, "--depth", "7", "--features", "material", "-q", "-j", "2"])
        .spawn()
        .unwrap();
    let journal = d.join(".killed.epd.label-journal");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count()) < 20 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!d.join("killed.epd").exists(), "no output before every position is done");
    let done = std::fs::read_to_string(&journal).unwrap().lines().count() - 1;
    assert!(done >= 20 && done < one.lines().count(), "{done}");
    let resumed = pgntune()
        .current_dir(d)
        .args(["label", "pos.epd", "-o", "killed.epd", "--uci", sf, "--depth", "7", "--features", "material", "-j", "2"])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&resumed.get_output().stderr).to_string();
    assert!(stderr.contains("done by an earlier run"), "{stderr}");
    assert_eq!(one, std::fs::read_to_string(d.join("killed.epd")).unwrap());
    assert!(!journal.exists());
}

#[test]
fn a_journal_of_other_labels_is_not_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    epd(d, "in.epd", &[start_with(1), start_with(2)]);
    std::fs::write(d.join(".out.epd.label-journal"), "pgntune label journal 1 run 0000000000000001 positions 2\n0\t5\t-\n").unwrap();
    let run = pgntune().current_dir(d).args(["label", "in.epd", "-o", "out.epd", "--depth", "1"]).assert().code(2);
    assert!(String::from_utf8_lossy(&run.get_output().stderr).contains("the journal of another labelling run"));
    pgntune().current_dir(d).args(["label", "in.epd", "-o", "out.epd", "--depth", "1", "--force", "-q"]).assert().success();
    assert_eq!(labels_of(&d.join("out.epd")).len(), 2);
}
