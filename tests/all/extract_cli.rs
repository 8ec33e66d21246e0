//! `pgntune extract` from the outside: inputs, outputs, errors, exit codes.

use std::io::Write;
use std::path::Path;

use predicates::prelude::*;

use crate::common::*;

const GAME: &str = "[Event \"t\"]\n[White \"Caf\u{e9}\"]\n[Black \"B, C\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n";

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn bzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn extract_to_mat(input: &Path, dir: &Path) -> String {
    let out = dir.join("rows.mat");
    pgntune().arg("extract").arg(input).arg("-o").arg(&out).arg("-q").assert().success();
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn compressed_inputs_are_recognised_by_content_not_name() {
    let dir = tempfile::tempdir().unwrap();
    let plain = extract_to_mat(&write(dir.path(), "plain.pgn", GAME.as_bytes()), dir.path());
    assert_eq!(plain, " 0  0  0  0  0  2\n");
    let zst = zstd::encode_all(GAME.as_bytes(), 3).unwrap();
    // Deliberately misleading names: gzip called .pgn, zstd called .bz2, bzip2 called .gz.
    for (name, bytes) in [("gz-really.pgn", gzip(GAME.as_bytes())), ("zstd-really.bz2", zst), ("bz2-really.gz", bzip(GAME.as_bytes()))] {
        let path = write(dir.path(), name, &bytes);
        assert_eq!(extract_to_mat(&path, dir.path()), plain, "{name}");
    }
}

#[test]
fn standard_input_is_read_with_dash() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rows.csv");
    pgntune().args(["extract", "-", "-q", "-o"]).arg(&out).write_stdin(gzip(GAME.as_bytes())).assert().success();
    assert_eq!(std::fs::read_to_string(out).unwrap(), "P,N,B,R,Q,result,game,ply\n0,0,0,0,0,1,0,2\n");
}

#[test]
fn tags_fen_and_latin1_values_in_csv_and_tsv() {
    let dir = tempfile::tempdir().unwrap();
    // The same game with its White tag in Latin-1 (é = 0xE9).
    let latin1: Vec<u8> = GAME.replace("Caf\u{e9}", "Caf\u{1}").bytes().map(|b| if b == 1 { 0xe9 } else { b }).collect();
    let input = write(dir.path(), "latin1.pgn", &latin1);
    let csv = dir.path().join("rows.csv");
    let tsv = dir.path().join("rows.tsv");
    pgntune()
        .arg("extract")
        .arg(&input)
        .args(["-q", "--tags", "White,Black,Event,Missing", "--fen", "-o"])
        .arg(&csv)
        .arg("-o")
        .arg(&tsv)
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(csv).unwrap(),
        "P,N,B,R,Q,result,game,ply,White,Black,Event,Missing,fen\n\
         0,0,0,0,0,1,0,2,Caf\u{e9},\"B, C\",t,,rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n"
    );
    assert_eq!(
        std::fs::read_to_string(tsv).unwrap(),
        "P\tN\tB\tR\tQ\tresult\tgame\tply\tWhite\tBlack\tEvent\tMissing\tfen\n\
         0\t0\t0\t0\t0\t1\t0\t2\t\"Caf\u{e9}\"\t\"B, C\"\t\"t\"\t\"\"\t\"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\"\n"
    );
}

#[test]
fn score_table_and_summary_line() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = format!("{GAME}\n{}", GAME.replace("1-0", "1/2-1/2"));
    let input = write(dir.path(), "two.pgn", pgn.as_bytes());
    let table = dir.path().join("score.csv");
    pgntune()
        .arg("extract")
        .arg(&input)
        .arg("-o")
        .arg(dir.path().join("rows.mat"))
        .arg("--score-table")
        .arg(&table)
        .assert()
        .success()
        .stderr(predicate::str::contains("games read 2, used 2, skipped none; rows 2;").and(predicate::str::contains("MB/s")));
    assert_eq!(std::fs::read_to_string(table).unwrap(), "balance,rows,points,score\n0,2,1.5,0.750000\n");
}

#[test]
fn octave_format_has_x_and_y() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "g.pgn", GAME.as_bytes());
    let out = dir.path().join("rows.txt");
    pgntune().arg("extract").arg(&input).args(["-q", "--format", "octave", "-o"]).arg(&out).assert().success();
    let text = std::fs::read_to_string(out).unwrap();
    assert!(text.contains("# name: X\n# type: matrix\n# rows: 1\n# columns: 5\n 0 0 0 0 0\n"), "{text}");
    assert!(text.contains("# name: y\n# type: matrix\n# rows: 1\n# columns: 1\n 1\n"), "{text}");
}

/// An empty input (a file cut to nothing, an empty download) is bad
/// input: one line, exit 2, and none of the outputs. It used to give
/// header-only outputs and exit 0, as if the collection had been read.
#[test]
fn an_empty_input_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "empty.pgn", b"");
    let (csv, mat, pq) = (dir.path().join("e.csv"), dir.path().join("e.mat"), dir.path().join("e.parquet"));
    let assert = pgntune().arg("extract").arg(&input).arg("-o").arg(&csv).arg("-o").arg(&mat).arg("-o").arg(&pq).assert().code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("empty.pgn: empty: no PGN game to read"), "{stderr}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "only the input is left");
}

/// Runs a failing extract and checks: exit code 2, one line on stderr that
/// contains `needle`, and no file under the output's name (nor any
/// temporary left in its directory).
fn fails_cleanly(args: &[&str], input: &Path, out: &Path, needle: &str) {
    let assert = pgntune().arg("extract").arg(input).arg("-o").arg(out).args(args).assert().code(2);
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert_eq!(stderr.lines().count(), 1, "one line expected: {stderr}");
    assert!(stderr.contains(needle), "{stderr:?} should mention {needle:?}");
    assert!(!out.exists(), "{} must not exist", out.display());
    if let Some(dir) = out.parent().filter(|d| d.exists()) {
        let leftovers: Vec<_> =
            std::fs::read_dir(dir).unwrap().filter_map(|e| e.ok()).filter(|e| e.file_name().to_string_lossy().contains("partial")).collect();
        assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    }
}

#[test]
fn bad_inputs_and_outputs_fail_with_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.pgn", GAME.as_bytes());
    let out = dir.path().join("rows.csv");
    fails_cleanly(&[], &dir.path().join("missing.pgn"), &out, "missing.pgn");
    fails_cleanly(&[], dir.path(), &out, "is a directory");
    // A gzip stream cut in the middle.
    let mut corrupt = gzip(GAME.repeat(50).as_bytes());
    corrupt.truncate(corrupt.len() / 2);
    let corrupt = write(dir.path(), "corrupt.pgn.gz", &corrupt);
    fails_cleanly(&[], &corrupt, &out, "corrupt.pgn.gz");
    fails_cleanly(&[], &good, &dir.path().join("rows.xlsx"), "unknown output format");
    fails_cleanly(&[], &good, &dir.path().join("no-such-dir/rows.csv"), "no-such-dir/rows.csv");
    fails_cleanly(&["--features", "bogus"], &good, &out, "unknown feature set 'bogus'");
}

#[test]
fn an_existing_output_survives_a_failed_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rows.mat");
    std::fs::write(&out, "previous contents\n").unwrap();
    let mut corrupt = gzip(GAME.repeat(50).as_bytes());
    corrupt.truncate(corrupt.len() / 2);
    let corrupt = write(dir.path(), "corrupt.gz", &corrupt);
    pgntune().arg("extract").arg(&corrupt).arg("-o").arg(&out).assert().code(2);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous contents\n");
}

#[test]
fn bad_moves_are_reported_with_file_game_ply_and_text() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Ke7 3. Bc4 Kf9 4. d4 1-0\n\n[Result \"0-1\"]\n\n1. d4 d5 2. Nc3 Nc6 3. Nb5 Nb4 4. Nd6+ Kd7 0-1\n";
    let input = write(dir.path(), "bad.pgn", pgn.as_bytes());
    let out = dir.path().join("rows.mat");
    // 3...Kf9 is not even SAN: pgn-reader skips it, so 4.d4 is read as
    // black's move and is the illegal one (ply 6).
    pgntune()
        .arg("extract")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains("bad.pgn: game 1, ply 6: illegal move 'd4'"))
        .stderr(predicate::str::contains("used 2 (1 cut at a bad move)"));
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 1 + 1);
    pgntune()
        .arg("extract")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .args(["--bad-games", "skip"])
        .assert()
        .success()
        .stderr(predicate::str::contains("used 1, skipped 1 bad moves"));
}

/// A plain PGN cut in the middle of its last game's moves is read as far as
/// it goes (those positions are sound, and the Result tag is the game's),
/// but said: the rest of the file may be missing. `split` says the same.
#[test]
fn a_file_cut_inside_its_last_game_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let whole = GAME.repeat(3);
    let cut = &whole[..whole.len() - "a6 1-0\n".len()];
    let input = write(dir.path(), "cut.pgn", cut.as_bytes());
    let warning = "cut.pgn: game 3: the file ends inside this game, after 5 plies and before its result marker";
    let out = dir.path().join("rows.csv");
    pgntune().arg("extract").arg(&input).arg("-o").arg(&out).assert().success().stderr(predicate::str::contains(warning));
    let split = dir.path().join("shards");
    pgntune().arg("split").arg(&input).arg("-o").arg(&split).args(["--games", "2"]).assert().success().stderr(predicate::str::contains(warning));
    // The whole file, and a last game that ends at its marker without a newline, are not.
    let whole = write(dir.path(), "whole.pgn", whole.trim_end().as_bytes());
    pgntune().arg("extract").arg(&whole).arg("-o").arg(&out).assert().success().stderr(predicate::str::contains("ends inside").not());
}

#[test]
fn help_explains_the_options() {
    pgntune()
        .args(["extract", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--quiet-plies").and(predicate::str::contains("--unknown-result")).and(predicate::str::contains("octave")));
}

/// `pgntune stats ... | head -0`: a reader that closes the pipe ends the
/// command quietly, as for other Unix tools, not with a panic.
#[test]
fn a_closed_stdout_is_not_a_panic() {
    let bin = assert_cmd::cargo::cargo_bin("pgntune");
    let mut child = std::process::Command::new(bin)
        .args(["stats", "--wdl", "136", "111", "96"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success() && !stderr.contains("panicked"), "{:?}: {stderr}", output.status);
}

/// `extract -o - --format parquet | head -c 100`: the reader stops early,
/// and the command ends quietly as with the text formats (polars' own
/// error hid the broken pipe: exit 2 with "File out of specification").
#[test]
fn a_closed_pipe_ends_a_parquet_stream_quietly() {
    let bin = assert_cmd::cargo::cargo_bin("pgntune");
    let sample = bundled_sample();
    for format in ["parquet", "csv"] {
        let mut child = std::process::Command::new(&bin)
            .args(["extract", "--features", "full", "-q", "-o", "-", "--format", format])
            .arg(&sample)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Read a little, then close the pipe, as `head -c 100` does.
        let mut stdout = child.stdout.take().unwrap();
        let mut start = [0u8; 100];
        std::io::Read::read_exact(&mut stdout, &mut start).unwrap();
        drop(stdout);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success() && stderr.is_empty(), "{format}: {:?}: {stderr}", output.status);
    }
}

/// A whole evaluation's Parquet is compact by default and expanded on
/// request: `fit` reads both as the same rows, and an unknown shape is a
/// usage error.
#[test]
fn sparse_parquet_is_compact_by_default_and_both_shapes_fit_alike() {
    let dir = tempfile::tempdir().unwrap();
    let (compact, expanded) = (dir.path().join("c.parquet"), dir.path().join("e.parquet"));
    let extract = |out: &Path, extra: &[&str]| {
        pgntune()
            .arg("extract")
            .arg(bundled_sample())
            .args(["--features", "full", "--positions", "plies", "-q", "-o"])
            .arg(out)
            .args(extra)
            .assert()
            .success();
    };
    extract(&compact, &[]);
    extract(&expanded, &["--sparse-shape", "expanded"]);
    let names = |path: &Path| {
        let file = std::fs::File::open(path).unwrap();
        let mut reader: polars::prelude::ParquetReader<_> = polars::prelude::SerReader::new(file);
        let schema = reader.schema().unwrap();
        schema.iter_names().map(|n| n.to_string()).collect::<Vec<_>>()
    };
    assert_eq!(names(&compact)[..4], ["term", "count", "phase", "result"]);
    assert_eq!(names(&expanded)[..4], ["idx", "val", "phase", "result"]);
    let (small, large) = (std::fs::metadata(&compact).unwrap().len(), std::fs::metadata(&expanded).unwrap().len());
    assert!(small < large, "compact {small} bytes, expanded {large}");
    let fit = |path: &Path| {
        let out = stdout_of(pgntune().arg("fit").arg(path).args(["--iters", "3", "--json", "-q"]));
        let mut report: serde_json::Value = serde_json::from_str(&out).unwrap();
        report.as_object_mut().unwrap().remove("seconds");
        report
    };
    assert_eq!(fit(&compact), fit(&expanded));
    pgntune()
        .arg("extract")
        .arg(bundled_sample())
        .args(["--features", "full", "--sparse-shape", "wide", "-o"])
        .arg(dir.path().join("w.parquet"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid value 'wide' for '--sparse-shape <SHAPE>'"));
    // Where it would change nothing, it is refused rather than ignored.
    let refused = |extra: &[&str], out: &str, want: &str| {
        pgntune()
            .arg("extract")
            .arg(bundled_sample())
            .args(extra)
            .args(["--sparse-shape", "expanded", "-o"])
            .arg(dir.path().join(out))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(want));
        assert!(!dir.path().join(out).exists());
    };
    refused(&[], "m.parquet", "--sparse-shape: the layout 'material' has 5 columns");
    refused(&["--features", "full"], "f.csv", "--sparse-shape: no output is Parquet");
}
