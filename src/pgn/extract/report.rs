//! What extraction tells about its work: the counts, the problem games
//! kept for the report, and why it stopped.

use std::io;

use crate::dataset::DatasetError;
use crate::pgn::input::OpenError;
use crate::pgn::record::GameRecord;

/// Problems kept in full for the report; the rest are only counted.
pub const PROBLEMS_KEPT: usize = 10;

/// A game that could not be (fully) used, for the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The input it came from.
    pub file: String,
    /// 1-based game number within that input.
    pub game: u64,
    /// 1-based ply of the problem, when it is a move.
    pub ply: Option<u32>,
    /// What went wrong, with the offending text.
    pub message: String,
}

impl Problem {
    /// The problem of a game the PGN reader could not read (an unterminated
    /// tag or comment, a file cut short), if it is one: in the same words
    /// for every command that reads games.
    pub fn unreadable(file: &str, game: &GameRecord) -> Option<Problem> {
        let message = game.parse_error.as_ref()?;
        let why = if message == crate::pgn::record::UNTERMINATED_TAG {
            " (a tag line without its closing quote, or too long to read: over 4 KB; the game is skipped)"
        } else {
            ""
        };
        Some(Problem { file: file.to_string(), game: game.number, ply: None, message: format!("unreadable PGN: {message}{why}") })
    }

    /// The problem of a game the input ended inside (see
    /// [`GameRecord::unfinished`]), if it is one: its moves are used, but
    /// the file may have been cut short, and the user should know.
    pub fn unfinished(file: &str, game: &GameRecord) -> Option<Problem> {
        game.unfinished.then(|| Problem {
            file: file.to_string(),
            game: game.number,
            ply: None,
            message: format!(
                "the file ends inside this game, after {} plies and before its result marker: was it cut short? (the moves read are used)",
                game.moves.len()
            ),
        })
    }

    /// Counts `self` into `count` and keeps it in `kept` while it holds
    /// fewer than [`PROBLEMS_KEPT`]: a damaged file reports its first few
    /// problems in full and how many more there were.
    pub fn note(self, kept: &mut Vec<Problem>, count: &mut u64) {
        *count += 1;
        if kept.len() < PROBLEMS_KEPT {
            kept.push(self);
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: game {}", self.file, self.game)?;
        if let Some(ply) = self.ply {
            write!(f, ", ply {ply}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Counts of what happened to the games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtractStats {
    /// Games found in the inputs.
    pub games_read: u64,
    /// Of them, games that are surely PGN: those with at least one tag
    /// pair, and bare move lists that end in a termination marker and
    /// begin with a legal move. Bytes that are not PGN at all can still
    /// parse as a game of stray tokens, never like these.
    pub games_recognised: u64,
    /// Games that contributed positions (including games cut at a bad move).
    pub games_used: u64,
    /// Skipped: `[Result]` is `*` or missing.
    pub skipped_unknown_result: u64,
    /// Skipped: `[Result]` is not a result at all (`2-0`, say).
    pub skipped_bad_result: u64,
    /// Games whose `[Result]` tag and movetext marker disagree; the tag
    /// is used (each is also a problem, named in a warning).
    pub result_disagreements: u64,
    /// Skipped: a variant pgntune does not replay.
    pub skipped_variant: u64,
    /// Skipped: a `[FEN]` that is not a legal position.
    pub skipped_bad_fen: u64,
    /// Skipped: a bad move, with `--bad-games skip`.
    pub skipped_bad_moves: u64,
    /// Skipped: text the PGN reader could not parse (unterminated tag or comment).
    pub skipped_unreadable: u64,
    /// Used, but cut short at an illegal, ambiguous or null move.
    pub games_cut: u64,
    /// Rows emitted.
    pub rows: u64,
    /// Rows dropped as repeats of earlier positions (`dedupe`).
    pub duplicates: u64,
    /// Candidate positions skipped by the quiescence search (in check, or a mate score).
    pub skipped_positions: u64,
    /// All problems found (bad moves, bad FENs, unreadable games).
    pub problem_count: u64,
    /// The first [`PROBLEMS_KEPT`] problems, in input order.
    pub problems: Vec<Problem>,
    /// Bytes read from the inputs as stored (compressed or not).
    pub input_bytes: u64,
    /// Bytes of PGN text after decompression.
    pub text_bytes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl ExtractStats {
    /// True when the inputs had content but not one PGN game: none
    /// recognised (see `games_recognised`) and none that gave positions
    /// (binary or foreign files).
    /// Empty inputs are an empty collection, not an error.
    pub fn found_no_game(&self) -> bool {
        self.text_bytes > 0 && self.games_recognised == 0 && self.games_used == 0
    }

    /// Why inputs named `names` gave nothing to learn from, if they did
    /// not: not one PGN game in them, or nothing in them at all.
    pub fn nothing_found(&self, names: &[String]) -> Option<String> {
        let what = || if names.len() == 1 { names[0].clone() } else { format!("the {} inputs", names.len()) };
        if self.found_no_game() {
            return Some(format!("{}: no PGN game found (not a PGN file?)", what()));
        }
        (self.text_bytes == 0 && self.games_read == 0).then(|| format!("{}: empty: no PGN game to read", what()))
    }

    /// Games skipped for any reason.
    pub fn games_skipped(&self) -> u64 {
        self.skipped_unknown_result
            + self.skipped_bad_result
            + self.skipped_variant
            + self.skipped_bad_fen
            + self.skipped_bad_moves
            + self.skipped_unreadable
    }

    pub(super) fn merge(&mut self, other: &ExtractStats) {
        self.games_read += other.games_read;
        self.games_recognised += other.games_recognised;
        self.games_used += other.games_used;
        self.skipped_unknown_result += other.skipped_unknown_result;
        self.skipped_bad_result += other.skipped_bad_result;
        self.result_disagreements += other.result_disagreements;
        self.skipped_variant += other.skipped_variant;
        self.skipped_bad_fen += other.skipped_bad_fen;
        self.skipped_bad_moves += other.skipped_bad_moves;
        self.skipped_unreadable += other.skipped_unreadable;
        self.games_cut += other.games_cut;
        self.rows += other.rows;
        self.duplicates += other.duplicates;
        self.skipped_positions += other.skipped_positions;
        self.problem_count += other.problem_count;
        for p in &other.problems {
            if self.problems.len() < PROBLEMS_KEPT {
                self.problems.push(p.clone());
            }
        }
    }

    /// The one-line summary printed at the end of a run.
    pub fn summary_line(&self) -> String {
        let mut skipped = Vec::new();
        for (n, why) in [
            (self.skipped_unknown_result, "unknown result"),
            (self.skipped_bad_result, "unreadable result"),
            (self.skipped_variant, "variant"),
            (self.skipped_bad_fen, "bad FEN"),
            (self.skipped_bad_moves, "bad moves"),
            (self.skipped_unreadable, "unreadable"),
        ] {
            if n > 0 {
                skipped.push(format!("{n} {why}"));
            }
        }
        let skipped = if skipped.is_empty() { "none".to_string() } else { skipped.join(", ") };
        let cut = if self.games_cut > 0 { format!(" ({} cut at a bad move)", self.games_cut) } else { String::new() };
        let dropped = if self.duplicates > 0 { format!(" ({} repeated positions dropped)", self.duplicates) } else { String::new() };
        let disagree = if self.result_disagreements > 0 {
            format!(
                "; {} whose Result tag and result marker disagree (the tag used)",
                crate::plural::count(self.result_disagreements, "game", "games")
            )
        } else {
            String::new()
        };
        let mb_per_s = if self.seconds > 0.0 { self.text_bytes as f64 / 1e6 / self.seconds } else { 0.0 };
        format!(
            "games read {}, used {}{cut}, skipped {skipped}{disagree}; rows {}{dropped}; {:.2} s, {:.1} MB/s",
            self.games_read, self.games_used, self.rows, self.seconds, mb_per_s
        )
    }
}

/// Why extraction stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// An input could not be opened.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// An input failed while being read (I/O error, corrupt compressed stream).
    #[error("{path}: {source}")]
    Read {
        /// The input.
        path: String,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The rows could not be written.
    #[error(transparent)]
    Sink(#[from] DatasetError),
    /// The worker threads could not be started.
    #[error("cannot start worker threads: {0}")]
    Threads(String),
}
