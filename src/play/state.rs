//! The sealed envelope of an adjourned match: everything needed to continue
//! it exactly, written atomically after every finished game.
//!
//! Games are counted and written to the PGN file strictly in game order
//! ("committed"); a game that finishes early waits here, with its PGN text,
//! until the games before it are in. The state records how long the PGN
//! file was after the last committed game, and a hash of those bytes: on
//! resume the file must still begin with exactly them, and is cut back to
//! that length, so a game appended just before a crash (and not yet in the
//! state) is neither lost nor written twice: it is played again, and with
//! node or depth limits it comes out the same.
//!
//! On disk, the files a state names (the PGN, a self-play output) are
//! relative to the state file's folder, so a state can be resumed from any
//! working directory; in memory they are usable paths.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::config::{MatchConfig, StopReason};
use super::game::InProgress;
use crate::atomic::{AtomicFile, OutputError};
use crate::stats::{GameOutcome, Penta, Wdl};

/// The version of the state format (3: paths relative to the state, and
/// the PGN's hash; 4: typed engines with limits of their own, the SPRT
/// checked on reading, clocks per side, why the match stopped as a value).
pub const STATE_FORMAT: u32 = 4;

/// A game that finished but is not yet committed (games before it are still being played).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FinishedGame {
    /// The first engine's outcome.
    pub outcome: GameOutcome,
    /// Its PGN text.
    pub pgn: String,
}

/// Running totals against one opponent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpponentTotals {
    /// The first engine's wins, draws and losses.
    pub wdl: Wdl,
    /// Its game pairs.
    pub penta: Penta,
}

/// The whole state of a match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchState {
    /// [`STATE_FORMAT`].
    pub format: u32,
    /// The match's configuration (engines with their weights, openings, seed, …).
    pub config: MatchConfig,
    /// Games counted and written, in order: games `0..committed`.
    pub committed: u64,
    /// Length of the PGN file after the committed games.
    pub pgn_bytes: u64,
    /// [`fnv1a`] of those bytes.
    pub pgn_hash: u64,
    /// Totals per opponent (index 0 is the opponent `engines[1]`).
    pub totals: Vec<OpponentTotals>,
    /// The first engine's outcome in the committed first game of a pair whose second game is not committed yet.
    pub open_pair: Option<GameOutcome>,
    /// Games finished after the commit frontier.
    pub finished: BTreeMap<u64, FinishedGame>,
    /// Games being played, with their moves and clocks so far.
    pub in_progress: BTreeMap<u64, InProgress>,
    /// Games played beyond the end of the match (cut off by the SPRT) are not counted.
    pub cutoff: u64,
    /// Games played at once when the state was last written. A timed match
    /// resumed without `-j` keeps it: with time limits the games depend on
    /// how many share the machine. `None` in states written before it was
    /// kept.
    #[serde(default)]
    pub concurrency: Option<usize>,
    /// Why the match stopped, once it has.
    pub stopped: Option<StopReason>,
}

/// Why a state could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a state this build understands.
    #[error("{path}: not a pgntune match state: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// The file is JSON, but not a state of this build's format.
    #[error("{path}: not a pgntune match state: {source}")]
    Json {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// The state does not agree with itself or with its PGN file.
    #[error("{path}: {message}")]
    Inconsistent {
        /// The file.
        path: String,
        /// What disagrees.
        message: String,
    },
    /// The configuration it holds cannot be played.
    #[error("{path}: {source}")]
    Config {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: super::config::ConfigError,
    },
    /// Writing the state failed.
    #[error(transparent)]
    Output(#[from] OutputError),
}

/// The 64-bit FNV-1a hash of `bytes`, continuing from `hash` (start from
/// [`FNV_START`]): the PGN grows by appends, so its hash is updated with
/// each game instead of recomputed.
pub fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01B3);
    }
    hash
}

/// The FNV-1a offset basis: the hash of no bytes.
pub const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// `path` as seen from the folder `base` (both taken as absolute), with
/// `..` where needed.
pub fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let (Ok(path), Ok(base)) = (std::path::absolute(path), std::path::absolute(base)) else { return path.to_path_buf() };
    let to: Vec<Component<'_>> = path.components().filter(|c| *c != Component::CurDir).collect();
    let from: Vec<Component<'_>> = base.components().filter(|c| *c != Component::CurDir).collect();
    let common = to.iter().zip(&from).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return path;
    }
    let mut relative = PathBuf::new();
    for _ in common..from.len() {
        relative.push("..");
    }
    for c in &to[common..] {
        relative.push(c.as_os_str());
    }
    relative
}

/// The folder a state file is in.
fn folder(state: &Path) -> PathBuf {
    match state.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

impl MatchState {
    /// A fresh state for `config`.
    pub fn new(config: MatchConfig) -> MatchState {
        let opponents = config.engines.len().saturating_sub(1);
        let cutoff = config.games_to_play();
        MatchState {
            format: STATE_FORMAT,
            config,
            committed: 0,
            pgn_bytes: 0,
            pgn_hash: FNV_START,
            totals: vec![OpponentTotals::default(); opponents],
            open_pair: None,
            finished: BTreeMap::new(),
            in_progress: BTreeMap::new(),
            cutoff,
            concurrency: None,
            stopped: None,
        }
    }

    /// Reads a saved state and checks it against itself (not yet against
    /// its PGN file: [`PgnOutput::open`] does that).
    pub fn load(path: &Path) -> Result<MatchState, StateError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| StateError::Io { path: name.clone(), source })?;
        // The format first, so that an older state gets a clear answer.
        let format = serde_json::from_str::<serde_json::Value>(&text).ok().and_then(|v| v.get("format").and_then(serde_json::Value::as_u64));
        if let Some(format) = format.filter(|&f| f != u64::from(STATE_FORMAT)) {
            return Err(StateError::Invalid { path: name, message: format!("format {format} (this build reads {STATE_FORMAT})") });
        }
        let mut state: MatchState = serde_json::from_str(&text).map_err(|source| StateError::Json { path: name.clone(), source })?;
        let dir = path.parent().unwrap_or(Path::new(""));
        for file in [&mut state.config.pgn_out, &mut state.config.selfplay_out].into_iter().flatten() {
            if file.is_relative() {
                *file = dir.join(&*file);
            }
        }
        state.config.check().map_err(|source| StateError::Config { path: name.clone(), source })?;
        state.check_counts().map_err(|message| StateError::Inconsistent { path: name, message })?;
        Ok(state)
    }

    /// Writes the state atomically, with its files relative to `path`'s folder.
    pub fn save(&self, path: &Path) -> Result<(), StateError> {
        let dir = folder(path);
        let mut on_disk = self.clone();
        for file in [&mut on_disk.config.pgn_out, &mut on_disk.config.selfplay_out].into_iter().flatten() {
            *file = relative_to(file, &dir);
        }
        let text = serde_json::to_string(&on_disk).map_err(|source| StateError::Json { path: path.display().to_string(), source })?;
        AtomicFile::write_all(path, text.as_bytes())?;
        Ok(())
    }

    /// Counts the next game in order (game `committed` of this run): its outcome for the first engine.
    pub fn count(&mut self, outcome: GameOutcome) {
        let game = self.config.game_at(self.committed);
        let opponent = self.config.opponent_of(game);
        let totals = &mut self.totals[opponent];
        totals.wdl.record(outcome);
        if game.is_multiple_of(2) {
            self.open_pair = Some(outcome);
        } else if let Some(first) = self.open_pair.take() {
            totals.penta.record(first, outcome);
        }
        self.committed += 1;
    }

    /// After a game is counted: when it completes a pair and the SPRT (of a
    /// match of two engines, not a shard of one) decides, the match stops
    /// there. True when it stopped.
    pub fn decide_sprt(&mut self) -> bool {
        let Some(sprt) = self.config.sprt else { return false };
        let g = self.committed.wrapping_sub(1);
        if self.committed == 0 || g.is_multiple_of(2) || self.config.opponents() != 1 || self.config.shard.is_some() {
            return false;
        }
        let decision = sprt.decide(&self.totals[0].penta);
        if decision == crate::stats::SprtDecision::Continue {
            return false;
        }
        let pairs = g / 2 + 1;
        let h1 = decision == crate::stats::SprtDecision::AcceptH1;
        self.stopped = Some(if h1 { StopReason::SprtAcceptedH1 { pairs } } else { StopReason::SprtAcceptedH0 { pairs } });
        self.cutoff = g + 1;
        self.finished.retain(|&k, _| k <= g);
        true
    }

    /// Checks that the state's counts agree with themselves and with its
    /// (already checked) configuration: totals that add up to the committed
    /// games, pairs that agree with single games, games in range. An edited
    /// or corrupted state is refused rather than continued with wrong numbers.
    pub fn check_counts(&self) -> Result<(), String> {
        let opponents = self.config.engines.len() - 1;
        if self.totals.len() != opponents {
            return Err(format!("{} totals for {opponents} opponents", self.totals.len()));
        }
        let total = self.config.games_to_play();
        if self.cutoff > total {
            return Err(format!("cutoff {} is beyond the match's {total} games", self.cutoff));
        }
        if self.committed > self.cutoff {
            return Err(format!("{} games committed, more than the {} to play", self.committed, self.cutoff));
        }
        if self.stopped.is_some() && self.committed != self.cutoff {
            return Err(format!("marked finished after {} of {} games", self.committed, self.cutoff));
        }
        if self.config.pgn_out.is_none() && (self.pgn_bytes > 0 || self.pgn_hash != FNV_START) {
            return Err(format!("{} bytes of games recorded, but no PGN file", self.pgn_bytes));
        }
        if self.open_pair.is_some() != (self.committed % 2 == 1) {
            return Err(format!("an open game pair does not fit {} committed games", self.committed));
        }
        // Games of each opponent among the committed ones, and its complete pairs.
        // Pair p is against opponent p % opponents.
        let shard = self.config.shard.unwrap_or(super::shard::ShardSpec { index: 0, count: 1, first_pair: 0, end_pair: None });
        let per_opponent = shard.pairs_per_opponent(self.config.total_games() / 2, self.committed / 2, opponents as u64);
        for (i, totals) in self.totals.iter().enumerate() {
            let pairs = per_opponent[i];
            let open = self.committed % 2 == 1 && self.config.opponent_of(self.config.game_at(self.committed - 1)) == i;
            let games = 2 * pairs + u64::from(open);
            let name = &self.config.engines[i + 1].name;
            let wdl = u128::from(totals.wdl.wins) + u128::from(totals.wdl.draws) + u128::from(totals.wdl.losses);
            if wdl != u128::from(games) {
                return Err(format!("{wdl} games recorded against {name}, but {games} of the {} committed games are against it", self.committed));
            }
            let penta: u128 = totals.penta.0.iter().map(|&n| u128::from(n)).sum();
            if penta != u128::from(pairs) {
                return Err(format!("{penta} game pairs recorded against {name}, but {pairs} are complete"));
            }
            // Points in half-points: the pairs' must equal the single games' minus the open game's.
            let half = |o: GameOutcome| match o {
                GameOutcome::Win => 2u128,
                GameOutcome::Draw => 1,
                GameOutcome::Loss => 0,
            };
            let open_points = if open { self.open_pair.map_or(0, half) } else { 0 };
            let singles = 2 * u128::from(totals.wdl.wins) + u128::from(totals.wdl.draws);
            let paired: u128 = totals.penta.0.iter().enumerate().map(|(k, &n)| k as u128 * u128::from(n)).sum();
            if singles < open_points || singles - open_points != paired {
                return Err(format!("the game pairs against {name} do not add up to its wins, draws and losses"));
            }
        }
        for &g in self.finished.keys().chain(self.in_progress.keys()) {
            if g < self.committed || g >= self.cutoff {
                return Err(format!("game {g} is kept as finished or in progress, outside games {}..{}", self.committed, self.cutoff));
            }
        }
        Ok(())
    }
}

/// The PGN output of a match: appended one whole game per write, and cut
/// back to the committed length when a match resumes. A pipe, a device or
/// standard output is only appended to (such a match cannot be resumed).
pub struct PgnOutput {
    path: PathBuf,
    file: Box<dyn Write + Send>,
}

/// Counts the games in PGN text written by a match (each begins with its `[Event` tag on a line).
fn count_games(text: &[u8]) -> u64 {
    game_texts(text).len() as u64
}

/// The games of PGN text written by a match, each from its `[Event` line
/// to the next game's (text before the first game, if any, is left out).
pub fn game_texts(text: &[u8]) -> Vec<&[u8]> {
    let mut starts: Vec<usize> = text.windows(8).enumerate().filter(|(_, w)| w[0] == b'\n' && &w[1..] == b"[Event ").map(|(i, _)| i + 1).collect();
    if text.starts_with(b"[Event ") {
        starts.insert(0, 0);
    }
    starts.iter().enumerate().map(|(k, &a)| &text[a..starts.get(k + 1).copied().unwrap_or(text.len())]).collect()
}

impl PgnOutput {
    /// Opens the PGN of the match in `state`: for a new match (nothing
    /// committed, `fresh`), starts the file afresh; else checks that the
    /// file begins with exactly the committed games (length, hash and
    /// number of games), that whatever follows them is this match's own
    /// unfinished writing, and cuts it back to them.
    pub fn open(path: &Path, state: &MatchState, fresh: bool) -> Result<PgnOutput, StateError> {
        let shown = path.display().to_string();
        let io = |source: std::io::Error| StateError::Io { path: shown.clone(), source };
        let resolved = crate::atomic::resolve_links(path).map_err(io)?;
        let streamed = crate::atomic::is_stdout(path) || std::fs::metadata(&resolved).is_ok_and(|m| !m.is_file() && !m.is_dir());
        if streamed {
            if !fresh {
                return Err(StateError::Inconsistent {
                    path: shown,
                    message: "games written to a pipe, a device or standard output cannot be resumed".into(),
                });
            }
            let file: Box<dyn Write + Send> = if crate::atomic::is_stdout(path) {
                Box::new(std::io::stdout())
            } else {
                Box::new(OpenOptions::new().write(true).open(&resolved).map_err(io)?)
            };
            return Ok(PgnOutput { path: path.to_path_buf(), file });
        }
        if fresh {
            let file = File::create(&resolved).map_err(io)?;
            return Ok(PgnOutput { path: path.to_path_buf(), file: Box::new(file) });
        }
        let inconsistent = |message: String| StateError::Inconsistent { path: shown.clone(), message };
        let mut file = match OpenOptions::new().read(true).write(true).open(&resolved) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && state.pgn_bytes == 0 => File::create(&resolved).map_err(io)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(inconsistent(format!("missing, but the match state has {} bytes of games in it", state.pgn_bytes)));
            }
            Err(e) => return Err(io(e)),
        };
        let mut text = Vec::new();
        file.read_to_end(&mut text).map_err(io)?;
        let len = text.len() as u64;
        if len < state.pgn_bytes {
            return Err(inconsistent(format!("{len} bytes, shorter than the {} bytes of games the match state has written", state.pgn_bytes)));
        }
        let (prefix, rest) = text.split_at(state.pgn_bytes as usize);
        if fnv1a(FNV_START, prefix) != state.pgn_hash {
            return Err(inconsistent(format!(
                "its first {} bytes are not the games the match state recorded (was the file replaced or edited?)",
                state.pgn_bytes
            )));
        }
        let games = count_games(prefix);
        if games != state.committed {
            return Err(inconsistent(format!("holds {games} games, but the match state has {} committed", state.committed)));
        }
        // Only a game this match was writing when it stopped may be cut.
        let own = format!("[Event \"{}\"]", super::record::escape(&state.config.event));
        if !rest.is_empty() && !rest.starts_with(own.as_bytes()) {
            return Err(inconsistent(format!("{} bytes follow the committed games that this match did not write; refusing to cut them", rest.len())));
        }
        file.set_len(state.pgn_bytes).map_err(io)?;
        file.seek(std::io::SeekFrom::End(0)).map_err(io)?;
        Ok(PgnOutput { path: path.to_path_buf(), file: Box::new(file) })
    }

    /// Appends one game with a single write.
    pub fn append(&mut self, pgn: &str) -> Result<u64, StateError> {
        self.file
            .write_all(pgn.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|source| StateError::Io { path: self.path.display().to_string(), source })?;
        Ok(pgn.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_kept_relative_to_the_state() {
        assert_eq!(relative_to(Path::new("/run/games.pgn"), Path::new("/run")), Path::new("games.pgn"));
        assert_eq!(relative_to(Path::new("/a/b/games.pgn"), Path::new("/a/c")), Path::new("../b/games.pgn"));
        assert_eq!(relative_to(Path::new("/a/./b.pgn"), Path::new("/a")), Path::new("b.pgn"));
    }

    #[test]
    fn the_hash_continues_over_appends() {
        assert_eq!(fnv1a(fnv1a(FNV_START, b"[Event "), b"\"x\"]"), fnv1a(FNV_START, b"[Event \"x\"]"));
        assert_ne!(fnv1a(FNV_START, b"ab"), fnv1a(FNV_START, b"ba"));
        assert_eq!(count_games(b"[Event \"a\"]\n1. e4 *\n\n[Event \"b\"]\n*\n\n"), 2);
    }
}
