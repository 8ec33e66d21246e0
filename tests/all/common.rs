//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pgntune::dataset::RowBatch;
use pgntune::pgn::extract::NoProgress;
use pgntune::pgn::{ExtractConfig, ExtractStats, InputSource, extract};

/// The shared game collections beside the repository (`../shared/data`).
pub fn shared_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data")
}

/// True when the environment variable `name` asks for something: set to
/// anything but empty or `0`, the rule notebooks/run_notebooks.py reads
/// `PGNTUNE_REQUIRE_DATA` by too.
pub fn required(name: &str) -> bool {
    required_value(std::env::var(name).ok().as_deref())
}

/// The rule of [`required`] for a value (`None`: the variable is not set).
pub fn required_value(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// The sample bundled in the repository (`data/selfplay.pgn.zst`, 2000
/// games of pgntune's self-play): always present, so tests on it run everywhere.
pub fn bundled_sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/selfplay.pgn.zst")
}

/// A file from `../shared/data`. A test that reads one is marked
/// `#[ignore = "needs ../shared/data"]`, so that a plain `cargo test` lists
/// it as ignored, with what it needs, and counts it in its closing line
/// (`N ignored`) instead of passing it unrun. `cargo test -- --include-ignored`
/// (what `.ci/run` runs) asks for it explicitly: then a missing file fails
/// the test, for a skip must never read as a pass.
pub fn shared(relative: &str) -> PathBuf {
    let path = shared_dir().join(relative);
    assert!(path.exists(), "{} is missing: this test needs the shared game collections beside the repository", path.display());
    path
}

/// What a test needs from the machine (a program, packages, root), or a
/// failure that says how to get it. Such tests are `#[ignore = "needs …"]`
/// for the reason given at [`shared`].
pub fn needs<T>(found: Option<T>, what: &str, install: &str) -> T {
    found.unwrap_or_else(|| panic!("{what} is missing ({install}): this test needs it"))
}

/// The `pgntune` binary under test.
pub fn pgntune() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("pgntune").expect("binary built")
}

/// Runs `cmd`, asserts that it succeeds, and returns its standard output.
pub fn stdout_of(cmd: &mut assert_cmd::Command) -> String {
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).expect("UTF-8 output")
}

/// PGN text as an in-memory input.
pub fn memory(name: &str, text: &str) -> InputSource {
    InputSource::Memory { name: name.to_string(), data: Arc::from(text.as_bytes()) }
}

/// Extracts `inputs` with `config`, returning the stats and all rows.
pub fn extract_all(inputs: &[InputSource], config: &ExtractConfig) -> (ExtractStats, RowBatch) {
    let mut rows = RowBatch::new(&config.schema());
    let stats = extract(inputs, config, &NoProgress, |batch| {
        rows.append(batch);
        Ok(())
    })
    .expect("extraction succeeds");
    (stats, rows)
}

/// Extracts one file with the default configuration.
pub fn extract_file(path: &Path) -> ExtractStats {
    extract_all(&[InputSource::File(path.to_path_buf())], &ExtractConfig::default()).0
}

/// Match PGN text without what was measured rather than played: the time
/// in each move's comment (`{+0.12/7 0.031s}` becomes `{+0.12/7}`) and the
/// `[GameDuration]` tag. Games at fixed nodes or depth are equal in all else.
pub fn without_times(pgn: &str) -> String {
    let kept: Vec<&str> = pgn.split_inclusive('\n').filter(|l| !l.starts_with("[GameDuration ")).collect();
    let text = kept.concat();
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut start = 0;
    for (i, _) in text.match_indices("s}") {
        // Back over "digits.ddd" to the space or newline before it.
        let mut j = i;
        let digits = |k: usize| k > 0 && bytes[k - 1].is_ascii_digit();
        let mut n = 0;
        while digits(j) && n < 3 {
            j -= 1;
            n += 1;
        }
        if n != 3 || j == 0 || bytes[j - 1] != b'.' {
            continue;
        }
        j -= 1;
        let whole = j;
        while digits(j) {
            j -= 1;
        }
        if j == whole || j == 0 || !matches!(bytes[j - 1], b' ' | b'\n') || j - 1 < start {
            continue;
        }
        out.push_str(&text[start..j - 1]);
        start = i + 1;
    }
    out.push_str(&text[start..]);
    out
}

#[test]
fn times_are_taken_out_of_match_pgn() {
    let pgn = "[Round \"1\"]\n[GameDuration \"00:00:01\"]\n\n1. e4 {book} 1... e5 {+0.12/7\n0.031s} 2. Nf3 {-M2 12.500s} {White mates} 1-0\n\n";
    assert_eq!(without_times(pgn), "[Round \"1\"]\n\n1. e4 {book} 1... e5 {+0.12/7} 2. Nf3 {-M2} {White mates} 1-0\n\n");
}
