//! Regression tests for the fault audit (issue 10), one or more per case,
//! named `fault_NN_...` after it, and for its third round (issue 33), in
//! `round3_*`, named after the finding (`d1_...`, `s8_...`, `m2_...`). Each runs the binary as a user would and
//! checks the exit code, the message, and that no file was changed or left
//! behind (bytes and directory listings before and after).

mod answers;
mod data_loss;
mod fuzz;
mod issue33_data;
mod issue33_left;
mod issue33_messages;
mod options;
mod round3_answers;
mod round3_loss;
mod round3_messages;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::*;

/// What a directory entry is, with a file's bytes.
#[derive(Debug, PartialEq, Eq)]
pub enum Entry {
    /// A regular file and its contents.
    File(Vec<u8>),
    /// A symbolic link and its target.
    Link(PathBuf),
    /// A folder.
    Dir,
    /// A pipe, a device or a socket.
    Special,
}

/// Every entry under `dir` (recursively, links not followed).
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut all = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let kind = if meta.file_type().is_symlink() {
                Entry::Link(std::fs::read_link(&path).unwrap())
            } else if meta.is_dir() {
                stack.push(path.clone());
                Entry::Dir
            } else if meta.is_file() {
                Entry::File(std::fs::read(&path).unwrap())
            } else {
                Entry::Special
            };
            all.insert(path.strip_prefix(dir).unwrap().to_path_buf(), kind);
        }
    }
    all
}

/// Runs `cmd`, expecting exit code 2 and one line on standard error that
/// contains `needle`; returns that line.
pub fn fails(cmd: &mut assert_cmd::Command, needle: &str) -> String {
    let output = cmd.assert().code(2).get_output().clone();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "one line expected:\n{stderr}");
    assert!(stderr.starts_with("pgntune: error: "), "{stderr}");
    assert!(stderr.contains(needle), "{stderr:?} should contain {needle:?}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// Runs `cmd` (in `dir` or with paths into it), expecting it to fail as
/// [`fails`] does and to leave `dir` exactly as it was.
pub fn fails_untouched(dir: &Path, cmd: &mut assert_cmd::Command, needle: &str) -> String {
    let before = snapshot(dir);
    let message = fails(cmd, needle);
    assert_eq!(snapshot(dir), before, "a failed run changed {}: {message}", dir.display());
    message
}

/// `pgntune` with `dir` as its working directory.
pub fn pgntune_in(dir: &Path) -> assert_cmd::Command {
    let mut cmd = pgntune();
    cmd.current_dir(dir);
    cmd
}

/// Writes `bytes` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Pseudo-random bytes (xorshift), the same for the same seed: a file that
/// is no PGN at all.
pub fn noise(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect()
}

/// A short decisive game and a short draw, with tags.
pub const GAMES: &str = "[Event \"t\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6 6. d4 exd4 7. Nxd4 c5 8. Nb3 Qxd1 9. Rxd1 1-0\n\n\
[Event \"t\"]\n[White \"B\"]\n[Black \"A\"]\n[Result \"1/2-1/2\"]\n\n1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 h6 7. Bxf6 Bxf6 8. cxd5 exd5 1/2-1/2\n";

/// Sends `signal` (e.g. "INT") to the process `pid`.
pub fn signal(pid: u32, signal: &str) {
    assert!(std::process::Command::new("kill").args([format!("-{signal}"), pid.to_string()]).status().unwrap().success());
}

/// The committed-game count of a match state, 0 while there is none.
pub fn committed(state: &Path) -> u64 {
    std::fs::read_to_string(state)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["committed"].as_u64())
        .unwrap_or(0)
}

/// Waits (at most a minute) until `done` holds.
pub fn wait_until(what: &str, done: impl Fn() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "timed out waiting for {what}");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// The arguments of a short deterministic match between two presets.
pub fn match_args(pairs: u32) -> Vec<String> {
    ["match", "--engine", "name=classical weights=classical", "--engine", "name=kaissa weights=kaissa", "--nodes", "400", "-q", "--pairs"]
        .iter()
        .map(|s| s.to_string())
        .chain([pairs.to_string()])
        .collect()
}

/// The games of a match's PGN text, each with its text.
pub fn split_games(text: &str) -> Vec<&str> {
    let mut starts: Vec<usize> = text.match_indices("[Event ").map(|(i, _)| i).filter(|&i| i == 0 || text[..i].ends_with('\n')).collect();
    starts.push(text.len());
    starts.windows(2).map(|w| &text[w[0]..w[1]]).collect()
}

/// Turns the state of a finished two-engine match into the state it had
/// after its first `keep` games (as if it had been interrupted then): the
/// totals recounted from the PGN's results, its length and hash. The PGN
/// is left whole, as after a crash that wrote more games than the state
/// recorded.
pub fn roll_back(state_path: &Path, keep: usize) {
    let mut state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(state_path).unwrap()).unwrap();
    let pgn = state_path.parent().unwrap().join(state["config"]["pgn_out"].as_str().unwrap());
    let text = std::fs::read_to_string(pgn).unwrap();
    let games = split_games(&text);
    let prefix: String = games[..keep].concat();
    // The first engine has white in even games.
    let outcome = |g: usize| {
        let result = games[g].split("[Result \"").nth(1).unwrap().split('"').next().unwrap();
        match (result, g.is_multiple_of(2)) {
            ("1/2-1/2", _) => "draw",
            ("1-0", true) | ("0-1", false) => "win",
            _ => "loss",
        }
    };
    let (mut wdl, mut penta) = ([0u64; 3], [0u64; 5]);
    let half = |o: &str| match o {
        "win" => 2,
        "draw" => 1,
        _ => 0,
    };
    for g in 0..keep {
        wdl[2 - half(outcome(g))] += 1;
        if g % 2 == 1 {
            penta[half(outcome(g - 1)) + half(outcome(g))] += 1;
        }
    }
    state["committed"] = keep.into();
    state["pgn_bytes"] = prefix.len().into();
    state["pgn_hash"] = pgntune::play::state::fnv1a(pgntune::play::state::FNV_START, prefix.as_bytes()).into();
    state["totals"] = serde_json::json!([{ "wdl": { "wins": wdl[0], "draws": wdl[1], "losses": wdl[2] }, "penta": penta }]);
    state["open_pair"] = if keep % 2 == 1 { outcome(keep - 1).into() } else { serde_json::Value::Null };
    state["stopped"] = serde_json::Value::Null;
    state["finished"] = serde_json::json!({});
    state["in_progress"] = serde_json::json!({});
    std::fs::write(state_path, serde_json::to_string(&state).unwrap()).unwrap();
}
