//! Scaling out without a cluster: `split` shards, the `.svm` line format
//! with game ids offset per shard, and sharded matches merged into one.

use std::path::{Path, PathBuf};

use pgntune::pgn::split::Manifest;
use pgntune::pgn::{ExtractConfig, InputSource};

use crate::common::*;

/// Edge cases a cut must respect: tagless games on consecutive lines (one
/// stretch of text), a game with an illegal move, a blank line inside an
/// unterminated game, and no line break at the end.
const ODD: &str = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
e4 e5 Nf3 Nc6 1-0\nd4 d5 c4 e6 Nc3 Nf6 0-1\nc4 e5 g3 Nf6 1/2-1/2\n\n\
[Event \"b\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. Nf9 Qh4# 0-1\n\n\
[Event \"c\"]\n[Result \"1-0\"]\n\n{ a comment }\n\n1. d4 d5 2. c4 dxc4\n\n3. e4 e5 4. Bxc4 exd4 1-0\n\n\
[Event \"d\"]\n[Result \"1/2-1/2\"]\n\n1. Nf3 Nf6 2. g3 g6 1/2-1/2";

fn files(dir: &Path) -> Vec<PathBuf> {
    // The same games in two files (one file given twice is refused).
    let (odd, again) = (dir.join("odd.pgn"), dir.join("odd-again.pgn"));
    std::fs::write(&odd, ODD).unwrap();
    std::fs::write(&again, ODD).unwrap();
    vec![odd, bundled_sample(), again]
}

fn sources(paths: &[PathBuf]) -> Vec<InputSource> {
    paths.iter().map(|p| InputSource::File(p.clone())).collect()
}

#[test]
fn split_manifest_accounts_for_every_game_and_the_shards_replay_to_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = files(dir.path());
    let out = dir.path().join("shards");
    pgntune().arg("split").args(&inputs).args(["--games", "300", "-q", "-o"]).arg(&out).assert().success();
    let manifest = Manifest::load(&out.join("manifest.json")).unwrap();
    let config = ExtractConfig::default();
    let (whole, rows) = extract_all(&sources(&inputs), &config);
    assert_eq!(manifest.games, whole.games_read, "the manifest counts every game");
    assert_eq!(manifest.shards.iter().map(|s| s.games).sum::<u64>(), whole.games_read);
    let mut next = 0;
    for shard in &manifest.shards {
        assert_eq!(shard.first_game, next, "shard {} starts where the one before ended", shard.shard);
        assert!(shard.games >= 1 && shard.games <= 300 + 2, "shard {}: {} games", shard.shard, shard.games);
        let ranged: u64 = shard.sources.iter().map(|r| r.last - r.first + 1).sum();
        assert_eq!(ranged, shard.games, "shard {}: its source ranges cover its games", shard.shard);
        next += shard.games;
    }
    // The odd file ends in an unterminated-looking way (no line break after the
    // result is fine, a last game without a marker is not): cuts at input edges.
    assert_eq!(manifest.shards[0].sources.len(), 2, "the first file ends cleanly, so shard 0 continues into the sample");
    let shard_paths: Vec<PathBuf> = manifest.shards.iter().map(|s| out.join(&s.file)).collect();
    assert!(shard_paths.iter().all(|p| std::fs::read(p).unwrap().starts_with(&[0x28, 0xb5, 0x2f, 0xfd])), "zstd by default");
    // All shards at once: the same rows, game ids included.
    let (together, again) = extract_all(&sources(&shard_paths), &config);
    assert_eq!((together.games_read, together.rows, together.games_cut), (whole.games_read, whole.rows, whole.games_cut));
    assert_eq!(again, rows);
    // Each shard apart with its first game as base: the same rows again.
    let mut apart = pgntune::dataset::RowBatch::new(&config.schema());
    for (shard, path) in manifest.shards.iter().zip(&shard_paths) {
        let (_, part) = extract_all(&[InputSource::File(path.clone())], &ExtractConfig { game_base: shard.first_game, ..config.clone() });
        apart.append(&part);
    }
    assert_eq!(apart, rows);
    // Split again with bigger shards: the earlier shards it does not rewrite are removed.
    let before = manifest.shards.len();
    pgntune().arg("split").args(&inputs).args(["--games", "1000", "-q", "-o"]).arg(&out).assert().success();
    let bigger = Manifest::load(&out.join("manifest.json")).unwrap();
    assert!(bigger.shards.len() < before);
    let left = std::fs::read_dir(&out).unwrap().count();
    assert_eq!(left, bigger.shards.len() + 1, "only the new shards and the manifest");
}

#[test]
fn split_never_replaces_a_file_it_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("odd.pgn");
    std::fs::write(&odd, ODD).unwrap();
    let out = dir.path().join("shards");
    std::fs::create_dir(&out).unwrap();
    let mine = out.join("shard-00000.pgn.zst");
    std::fs::write(&mine, "precious").unwrap();
    let err = pgntune().arg("split").arg(&odd).args(["--games", "2", "-q", "-o"]).arg(&out).assert().code(2).get_output().stderr.clone();
    let err = String::from_utf8_lossy(&err);
    assert!(err.contains("shard-00000.pgn.zst") && err.contains("--force") && err.lines().count() == 1, "{err}");
    assert_eq!(std::fs::read(&mine).unwrap(), b"precious");
    assert!(!out.join("manifest.json").exists());
    // A shard cannot be written over its own input either.
    let err = pgntune().arg("split").arg(&mine).args(["--games", "2", "-q", "--force", "-o"]).arg(&out).assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&err).contains("input"), "{}", String::from_utf8_lossy(&err));
    pgntune().arg("split").arg(&odd).args(["--games", "2", "-q", "--force", "--compression", "none", "-o"]).arg(&out).assert().success();
    assert!(std::fs::read_to_string(out.join("shard-00000.pgn")).unwrap().starts_with("[Event \"a\"]"));
}

#[test]
fn split_summary_counts_in_the_singular_and_plural() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.pgn");
    std::fs::write(&one, "[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n").unwrap();
    let out = pgntune().arg("split").arg(&one).args(["--games", "10", "-o"]).arg(dir.path().join("a")).assert().success().get_output().stderr.clone();
    let out = String::from_utf8_lossy(&out);
    assert!(out.contains("1 game in 1 shard ("), "{out}");
    let odd = dir.path().join("odd.pgn");
    std::fs::write(&odd, ODD).unwrap();
    let out = pgntune().arg("split").arg(&odd).args(["--games", "2", "-o"]).arg(dir.path().join("b")).assert().success().get_output().stderr.clone();
    let out = String::from_utf8_lossy(&out);
    assert!(out.contains(" games in ") && out.contains(" shards ("), "{out}");
}

/// Standard error of a split that must fail with exit code 2 and one line.
fn split_fails(args: &[&std::ffi::OsStr], dir: &Path, stdin: &[u8]) -> String {
    let out = pgntune().current_dir(dir).arg("split").args(args).write_stdin(stdin).assert().code(2).get_output().stderr.clone();
    let err = String::from_utf8_lossy(&out).into_owned();
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    err
}

/// Every file under `dir` with its bytes, to show that a run left a folder as it found it.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).map(|p| (p.clone(), std::fs::read(p).unwrap())).collect();
    files.sort();
    files
}

/// A compressed input cut short fails after some shards are complete: none
/// of them may stay (they were left, and replaced an earlier split's), nor
/// the folders the run made.
#[test]
fn a_split_that_fails_leaves_no_shard_and_no_folder_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let whole = std::fs::read(bundled_sample()).unwrap();
    let cut = dir.path().join("cut.pgn.zst");
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    let new = dir.path().join("new");
    let err = split_fails(&[cut.as_os_str(), "--games".as_ref(), "50".as_ref(), "-q".as_ref(), "-o".as_ref(), new.as_os_str()], dir.path(), b"");
    assert!(err.contains("cut.pgn.zst"), "{err}");
    assert!(!new.exists(), "the folder the run made is gone");
    // A folder whose parent is missing is refused before anything is read
    // (a typo in the path built a tree of folders).
    let nested = dir.path().join("typo/shards");
    let err = split_fails(&[bundled_sample().as_os_str(), "--games".as_ref(), "50".as_ref(), "-o".as_ref(), nested.as_os_str()], dir.path(), b"");
    assert!(err.contains("the folder") && err.contains("typo") && err.contains("does not exist"), "{err}");
    assert!(!dir.path().join("typo").exists());
    // Into a folder that holds an earlier split: it stays as it was, byte for byte.
    let out = dir.path().join("shards");
    pgntune().arg("split").arg(bundled_sample()).args(["--games", "500", "-q", "-o"]).arg(&out).assert().success();
    let before = snapshot(&out);
    split_fails(&[cut.as_os_str(), "--games".as_ref(), "50".as_ref(), "-q".as_ref(), "-o".as_ref(), out.as_os_str()], dir.path(), b"");
    assert!(snapshot(&out) == before, "the earlier split is untouched and nothing was added");
    // Bytes that are not PGN (a program): refused, and the folder made for them is gone too.
    let binary = dir.path().join("bin.pgn");
    let program = std::fs::read(std::env::current_exe().unwrap()).unwrap();
    std::fs::write(&binary, &program[..5000]).unwrap();
    let err = split_fails(&[binary.as_os_str(), "--games".as_ref(), "10".as_ref(), "-o".as_ref(), "outdir".as_ref()], dir.path(), b"");
    assert!(err.contains("no PGN game found"), "{err}");
    assert!(!dir.path().join("outdir").exists(), "the folder made for the shards is gone");
}

/// Interrupted (Ctrl-C) while it reads, a split removes its temporary
/// shards and the folders it made: they stayed, empty, before.
#[test]
fn an_interrupted_split_leaves_no_folder_of_its_own() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("new");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pgntune"))
        .args(["split", "-", "--games", "1", "-q", "-o"])
        .arg(&nested)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A game, then an open pipe: the split waits for more, its folder made.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n").unwrap();
    stdin.flush().unwrap();
    let started = std::time::Instant::now();
    while !nested.exists() {
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "the split made no folder");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(std::process::Command::new("kill").args(["-INT".to_string(), child.id().to_string()]).status().unwrap().success());
    let status = child.wait().unwrap();
    drop(stdin);
    assert_eq!(status.code(), Some(130));
    assert!(!nested.exists(), "the folder the split made is left behind");
    assert!(dir.path().exists());
}

/// `-o -` made a folder named `-`: split writes a folder of files and
/// cannot stream to standard output.
#[test]
fn split_refuses_standard_output_as_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("odd.pgn");
    std::fs::write(&odd, ODD).unwrap();
    let err = split_fails(&[odd.as_os_str(), "--games".as_ref(), "2".as_ref(), "-o".as_ref(), "-".as_ref()], dir.path(), b"");
    assert!(err.contains("standard output") && err.contains("folder"), "{err}");
    assert!(!dir.path().join("-").exists(), "no folder named '-'");
}

/// An empty input (a file, or standard input) gave a manifest of no shard
/// and exit code 0: it is an error, with nothing made.
#[test]
fn split_refuses_empty_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.pgn");
    std::fs::write(&empty, "").unwrap();
    let err = split_fails(&[empty.as_os_str(), "--games".as_ref(), "2".as_ref(), "-o".as_ref(), "a".as_ref()], dir.path(), b"");
    assert!(err.contains("empty.pgn") && err.contains("empty"), "{err}");
    let err = split_fails(&["-".as_ref(), "--games".as_ref(), "2".as_ref(), "-o".as_ref(), "b".as_ref()], dir.path(), b"");
    assert!(err.contains("stdin") && err.contains("empty"), "{err}");
    assert!(!dir.path().join("a").exists() && !dir.path().join("b").exists(), "no folder and no manifest of zero shards");
}

/// A file cut in the middle of a game: split copies the cut game (its
/// shard holds the text as it is) and warns about it in the words
/// extraction uses, also with -q. It counted the game without a word.
#[test]
#[ignore = "needs ../shared/data"]
fn split_warns_about_an_unreadable_game_as_extract_does() {
    let morphy = shared("human/Morphy.pgn");
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("trunc.pgn");
    std::fs::write(&cut, &std::fs::read(morphy).unwrap()[..3000]).unwrap();
    let extracted = stderr_of(pgntune().arg("extract").arg(&cut).args(["-q", "-o"]).arg(dir.path().join("rows.csv")));
    let warning: Vec<&str> = extracted.lines().filter(|l| l.contains("warning")).collect();
    assert!(warning.len() == 1 && warning[0].contains("trunc.pgn: game 8: unreadable"), "{extracted}");
    let out = dir.path().join("shards");
    let split = stderr_of(pgntune().arg("split").arg(&cut).args(["--games", "10", "-q", "-o"]).arg(&out));
    assert_eq!(split.lines().collect::<Vec<_>>(), warning, "the same one warning");
    let manifest = Manifest::load(&out.join("manifest.json")).unwrap();
    assert_eq!((manifest.games, manifest.shards.len()), (8, 1), "the cut game is still in its shard");
}

/// -q silences the notes about an earlier split's shards removed, as it
/// silences notes in the other commands; they were printed all the same.
#[test]
fn split_q_silences_notes() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("odd.pgn");
    std::fs::write(&odd, ODD).unwrap();
    let out = dir.path().join("shards");
    let split = |games: &str, quiet: bool| {
        let mut cmd = pgntune();
        cmd.arg("split").arg(&odd).args(["--games", games, "-o"]).arg(&out);
        if quiet {
            cmd.arg("-q");
        }
        stderr_of(&mut cmd)
    };
    split("1", true);
    assert_eq!(split("10", true), "", "nothing at all with -q");
    split("1", true);
    assert!(split("10", false).contains("note: removed"), "without -q the notes are shown");
}

/// Runs `cmd`, asserts that it succeeds, and returns its standard error.
fn stderr_of(cmd: &mut assert_cmd::Command) -> String {
    String::from_utf8(cmd.assert().success().get_output().stderr.clone()).expect("UTF-8 messages")
}

#[test]
fn svm_rows_stream_through_standard_output_with_offset_game_ids_and_fit_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let sample = std::fs::read(bundled_sample()).unwrap();
    let svm = pgntune().args(["extract", "-", "-q", "--format", "svm", "--game-base", "5000", "-o", "-"]).write_stdin(sample).assert().success();
    let out = svm.get_output();
    assert!(out.stderr.is_empty(), "nothing but rows on standard output, nothing on standard error with -q");
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(text.starts_with("# pgntune rows (LIBSVM)") && text.contains("\n# layout: material\n# columns: P N B R Q\n"), "{}", &text[..200]);
    let ids: Vec<u64> = text.lines().filter_map(|l| l.strip_prefix("# game ")).map(|g| g.split(' ').next().unwrap().parse().unwrap()).collect();
    assert!(ids.len() > 1000 && ids.iter().all(|&g| (5000..7000).contains(&g)) && ids.windows(2).all(|w| w[0] < w[1]), "game ids from 5000 on");
    // Every row line is LIBSVM: label, then rising 1-based index:value pairs.
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut words = line.split(' ');
        assert!(["0", "0.5", "1"].contains(&words.next().unwrap()), "{line}");
        let idx: Vec<usize> = words.map(|w| w.split_once(':').unwrap().0.parse().unwrap()).collect();
        assert!(idx.windows(2).all(|w| w[0] < w[1]) && idx.iter().all(|&j| (1..=5).contains(&j)), "{line}");
    }
    let (rows_svm, rows_csv) = (dir.path().join("rows.svm"), dir.path().join("rows.csv"));
    std::fs::write(&rows_svm, &text).unwrap();
    pgntune().arg("extract").arg(bundled_sample()).args(["-q", "-o"]).arg(&rows_csv).assert().success();
    let fit = |path: &Path| stdout_of(pgntune().arg("fit").arg(path).args(["--json", "-q", "--bootstrap", "5"]));
    let (a, b): (serde_json::Value, serde_json::Value) =
        (serde_json::from_str(&fit(&rows_svm)).unwrap(), serde_json::from_str(&fit(&rows_csv)).unwrap());
    assert_eq!(a["theta"], b["theta"], "the same fit from LIBSVM lines as from CSV");
    assert_eq!(a["bootstrap"], b["bootstrap"], "game ids survive the round trip (the bootstrap resamples whole games)");
}

fn shard_args(pgn: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "match",
        "--engine",
        "name=classical weights=classical",
        "--engine",
        "name=kaissa weights=kaissa",
        "--nodes",
        "400",
        "-q",
        "-j",
        "1",
        "--pgn-out",
    ]
    .map(String::from)
    .to_vec();
    args.push(pgn.display().to_string());
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn report_json(out: &[u8]) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(out).unwrap();
    for key in ["timing", "pgn_out", "state"] {
        v.as_object_mut().unwrap().remove(key);
    }
    v
}

#[test]
fn a_sharded_match_merges_into_the_same_pgn_and_statistics_as_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.pgn");
    let whole = pgntune().args(shard_args(&one, &["--pairs", "6"])).assert().success().get_output().stdout.clone();
    let whole_json =
        pgntune().args(shard_args(&dir.path().join("one-again.pgn"), &["--pairs", "6", "--json"])).assert().success().get_output().stdout.clone();
    let mut states = Vec::new();
    for k in 0..4 {
        let pgn = dir.path().join(format!("shard-{k}.pgn"));
        pgntune().args(shard_args(&pgn, &["--pairs", "6", "--shard", &format!("{k}/4")])).assert().success();
        states.push(format!("{}.state.json", pgn.display()));
    }
    let merged = dir.path().join("merged.pgn");
    // Shards in any order.
    states.reverse();
    let text = pgntune().args(["match", "-q", "--pgn-out"]).arg(&merged).arg("--merge").args(&states).assert().success().get_output().stdout.clone();
    assert_eq!(std::fs::read(&merged).unwrap(), std::fs::read(&one).unwrap(), "the merged PGN is the one run's, byte for byte");
    assert_eq!(String::from_utf8_lossy(&text), String::from_utf8_lossy(&whole), "the same report");
    let merged_json = pgntune()
        .args(["match", "-q", "--json", "--force", "--pgn-out"])
        .arg(dir.path().join("m2.pgn"))
        .arg("--merge")
        .args(&states)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(report_json(&merged_json), report_json(&whole_json));
    // The merged state continues like one run's: nothing is left to play.
    let resumed =
        pgntune().args(["match", "-q", "--resume"]).arg(format!("{}.state.json", merged.display())).assert().success().get_output().stdout.clone();
    assert_eq!(String::from_utf8_lossy(&resumed), String::from_utf8_lossy(&whole));
    // Two shards of one: refused.
    let err = pgntune().args(["match", "-q", "--merge", &states[0], &states[0]]).assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&err).contains("overlap"), "{}", String::from_utf8_lossy(&err));
    // A missing shard: the merge stops at its first game, undecided, with a state one run can continue.
    let partial = dir.path().join("partial.pgn");
    let out =
        pgntune().args(["match", "--json", "--pgn-out"]).arg(&partial).arg("--merge").args(&states[..3]).assert().success().get_output().clone();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["games"].as_u64(), v["stopped"].is_null()), (Some(0), true), "shard 0 holds games 0 and 1");
    assert!(String::from_utf8_lossy(&out.stderr).contains("is in no shard yet"));
}

#[test]
fn the_sprt_of_a_sharded_match_stops_at_the_pair_one_run_stops_at() {
    let dir = tempfile::tempdir().unwrap();
    let sprt = ["--sprt", "elo0=0 elo1=100 alpha=0.1 beta=0.1 model=logistic", "--pairs", "40"];
    let one = dir.path().join("one.pgn");
    let args = |pgn: &Path, more: &[&str]| {
        let mut a = shard_args(pgn, &sprt);
        a[2] = "name=classical weights=classical".into();
        a[4] = "name=flat weights=flat".into();
        a.extend(more.iter().map(|s| s.to_string()));
        a
    };
    let whole = pgntune().args(args(&one, &["--json"])).assert().success().get_output().stdout.clone();
    let whole = report_json(&whole);
    let pairs = whole["stopped"]["pairs"].as_u64().expect("the SPRT decides within 40 pairs");
    assert!(pairs > 6 && pairs < 40, "it stops after the first wave ({pairs} pairs)");
    // Waves of 6 pairs on 3 shards, merged after each wave, until it stops.
    let mut states = Vec::new();
    let mut merged = serde_json::Value::Null;
    for (wave, first) in (0..40).step_by(6).enumerate() {
        for k in 0..3 {
            let pgn = dir.path().join(format!("w{wave}-s{k}.pgn"));
            pgntune().args(args(&pgn, &["--shard", &format!("{k}/3"), "--pair-range", &format!("{first}..{}", first + 6)])).assert().success();
            states.push(format!("{}.state.json", pgn.display()));
        }
        let out = pgntune()
            .args(["match", "-q", "--json", "--force", "--pgn-out"])
            .arg(dir.path().join("merged.pgn"))
            .arg("--merge")
            .args(&states)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        merged = report_json(&out);
        if !merged["stopped"].is_null() {
            assert_eq!(wave as u64, pairs.saturating_sub(1) / 6, "it stops in the wave that holds the stopping pair");
            break;
        }
    }
    assert_eq!(merged, whole);
    assert_eq!(std::fs::read(dir.path().join("merged.pgn")).unwrap(), std::fs::read(&one).unwrap());
}

#[test]
fn a_shard_needs_fixed_limits() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.pgn");
    let err = pgntune()
        .args([
            "match",
            "--engine",
            "name=a weights=classical",
            "--engine",
            "name=b weights=flat",
            "--tc",
            "1+0.1",
            "--pairs",
            "2",
            "--shard",
            "0/2",
            "--pgn-out",
        ])
        .arg(&out)
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&err);
    assert!(err.contains("fixed limits") && err.lines().count() == 1, "{err}");
    let err = pgntune()
        .args([
            "match",
            "--engine",
            "name=a weights=classical",
            "--engine",
            "name=b weights=flat",
            "--nodes",
            "100",
            "--pairs",
            "2",
            "--shard",
            "2/2",
        ])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&err).contains("K/N"), "{}", String::from_utf8_lossy(&err));
}
