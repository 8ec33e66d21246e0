//! The sealed envelope of an adjourned match: everything needed to continue
//! it exactly, written atomically after every finished game.
//!
//! Games are counted and written to the PGN file strictly in game order
//! ("committed"); a game that finishes early waits here, with its PGN text,
//! until the games before it are in. The state records how long the PGN
//! file was after the last committed game: on resume the file is cut back
//! to that length, so a game appended just before a crash (and not yet in
//! the state) is neither lost nor written twice: it is played again, and
//! with node or depth limits it comes out the same.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::game::InProgress;
use super::tournament::MatchConfig;
use crate::atomic::{AtomicFile, OutputError};
use crate::stats::{GameOutcome, Penta, Wdl};

/// The version of the state format.
pub const STATE_FORMAT: u32 = 2;

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
    /// Why the match stopped, once it has.
    pub stopped: Option<String>,
}

/// Why a state could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// Reading or writing failed.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The file is not a state this build understands.
    #[error("{path}: not a pgntune match state: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// Writing the state failed.
    #[error(transparent)]
    Output(#[from] OutputError),
}

impl MatchState {
    /// A fresh state for `config`.
    pub fn new(config: MatchConfig) -> MatchState {
        let opponents = config.engines.len().saturating_sub(1);
        let cutoff = config.total_games();
        MatchState {
            format: STATE_FORMAT,
            config,
            committed: 0,
            pgn_bytes: 0,
            totals: vec![OpponentTotals::default(); opponents],
            open_pair: None,
            finished: BTreeMap::new(),
            in_progress: BTreeMap::new(),
            cutoff,
            stopped: None,
        }
    }

    /// Reads a saved state.
    pub fn load(path: &Path) -> Result<MatchState, StateError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| StateError::Io { path: name.clone(), message: e.to_string() })?;
        let state: MatchState = serde_json::from_str(&text).map_err(|e| StateError::Invalid { path: name.clone(), message: e.to_string() })?;
        if state.format != STATE_FORMAT {
            return Err(StateError::Invalid { path: name, message: format!("format {} (this build reads {STATE_FORMAT})", state.format) });
        }
        Ok(state)
    }

    /// Writes the state atomically.
    pub fn save(&self, path: &Path) -> Result<(), StateError> {
        let text = serde_json::to_string(self).map_err(|e| StateError::Invalid { path: path.display().to_string(), message: e.to_string() })?;
        AtomicFile::write_all(path, text.as_bytes())?;
        Ok(())
    }

    /// Counts the next game in order (game `committed`): its outcome for the first engine.
    pub fn count(&mut self, outcome: GameOutcome) {
        let game = self.committed;
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
}

/// The PGN output of a match: appended one whole game per write, and cut
/// back to the committed length when a match resumes.
pub struct PgnOutput {
    path: PathBuf,
    file: std::fs::File,
}

impl PgnOutput {
    /// Opens `path` for a match whose committed games take `bytes` bytes
    /// (0 for a new match, which starts the file afresh).
    pub fn open(path: &Path, bytes: u64) -> Result<PgnOutput, StateError> {
        let io = |e: std::io::Error| StateError::Io { path: path.display().to_string(), message: e.to_string() };
        let file = OpenOptions::new().create(true).write(true).truncate(false).open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len < bytes {
            return Err(StateError::Invalid {
                path: path.display().to_string(),
                message: format!("the PGN file is {len} bytes, shorter than the {bytes} the state has written"),
            });
        }
        file.set_len(bytes).map_err(io)?;
        let mut out = PgnOutput { path: path.to_path_buf(), file };
        use std::io::Seek;
        out.file.seek(std::io::SeekFrom::End(0)).map_err(io)?;
        Ok(out)
    }

    /// Appends one game with a single write.
    pub fn append(&mut self, pgn: &str) -> Result<u64, StateError> {
        self.file
            .write_all(pgn.as_bytes())
            .map_err(|e| StateError::Io { path: self.path.display().to_string(), message: e.to_string() })?;
        Ok(pgn.len() as u64)
    }
}
