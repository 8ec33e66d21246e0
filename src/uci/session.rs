//! The state a UCI session keeps between commands: the game (position and
//! the hashes of the positions before it), the options, and how `go`
//! parameters become search limits. No I/O and no threads here.

use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use super::command::{GoParams, StartPosition};
use crate::engine::params::MOVE_OVERHEAD;
use crate::engine::{EvaluatorError, GameClock, Limits, position_hash};
use crate::weights::WeightsError;

/// The transposition table size until `setoption name Hash` says otherwise.
pub const DEFAULT_HASH_MB: usize = 16;
/// The largest accepted `Hash` (the machines pgntune runs on have 24 GB;
/// the table is allocated and cleared at once).
pub const MAX_HASH_MB: usize = 4_096;
/// The largest accepted `Move Overhead`, in milliseconds.
pub const MAX_MOVE_OVERHEAD_MS: u64 = 5_000;

/// Why a move of a `position` command was rejected.
#[derive(Debug, thiserror::Error)]
pub enum MoveError {
    /// Not UCI notation.
    #[error(transparent)]
    Unreadable(shakmaty::uci::ParseUciMoveError),
    /// Not legal in the position.
    #[error(transparent)]
    Illegal(shakmaty::uci::IllegalUciMoveError),
}

/// A command the session could not carry out. Reported to the GUI as
/// `info string`, never fatal.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The FEN of a `position` command is unreadable or not a legal position.
    #[error("invalid FEN '{fen}': {reason}")]
    InvalidFen {
        /// The FEN as given.
        fen: String,
        /// Why it was rejected (shakmaty's FEN or position error).
        #[source]
        reason: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A move of a `position` command is unreadable or illegal.
    #[error("move '{text}' (move {number} of the list): {reason}; no position until the next valid 'position' command")]
    IllegalMove {
        /// The move as given.
        text: String,
        /// Its place in the move list, from 1.
        number: usize,
        /// Why it was rejected.
        #[source]
        reason: MoveError,
    },
    /// `setoption` for an option this engine does not have.
    #[error("unknown option '{0}'")]
    UnknownOption(String),
    /// `setoption` with an unusable value.
    #[error("option '{option}': '{value}' is not {expected}")]
    BadValue {
        /// The option.
        option: &'static str,
        /// The value given.
        value: String,
        /// What was expected.
        expected: String,
    },
    /// The `Weights` option named unusable weights.
    #[error("option 'Weights': {0}")]
    Weights(#[from] WeightsError),
    /// The weights do not make an evaluator.
    #[error("option 'Weights': {0}")]
    Evaluator(#[from] EvaluatorError),
}

/// The game being played: the current position and the hashes of the
/// positions before it, oldest first (for repetition detection).
#[derive(Clone, Debug)]
pub struct Game {
    /// The position to search.
    pub position: Chess,
    /// [`position_hash`] of every earlier position of the game.
    pub history: Vec<u64>,
    /// False after a `position` command that could not be set up: the
    /// engine then has no position the GUI agrees with, and answers `go`
    /// with `bestmove 0000` instead of a move for another position.
    pub valid: bool,
}

impl Default for Game {
    fn default() -> Game {
        Game { position: Chess::default(), history: Vec::new(), valid: true }
    }
}

impl Game {
    /// Sets up the game of a `position` command. An unusable FEN or move
    /// leaves no valid position until the next `position` command.
    pub fn set(&mut self, start: &StartPosition, moves: &[String]) -> Result<(), SessionError> {
        self.valid = false;
        let position = match start {
            StartPosition::StartPos => Chess::default(),
            StartPosition::Fen(fen) => parse_fen(fen)?,
        };
        self.position = position;
        self.history.clear();
        self.play(moves)?;
        self.valid = true;
        Ok(())
    }

    /// Plays `moves` (UCI notation) from the current position, keeping the
    /// history; stops at the first that cannot be played.
    pub fn play(&mut self, moves: &[String]) -> Result<(), SessionError> {
        for (i, text) in moves.iter().enumerate() {
            let illegal = |reason: MoveError| SessionError::IllegalMove { text: text.clone(), number: i + 1, reason };
            let uci: UciMove = text.parse().map_err(|e| illegal(MoveError::Unreadable(e)))?;
            let m = uci.to_move(&self.position).map_err(|e| illegal(MoveError::Illegal(e)))?;
            self.history.push(position_hash(&self.position));
            self.position.play_unchecked(m);
        }
        Ok(())
    }

    /// The moves of `go searchmoves` that are legal here, and (as written)
    /// those that are not.
    pub fn searchmoves(&self, go: &GoParams) -> (Vec<Move>, Vec<String>) {
        let mut legal = Vec::new();
        let mut illegal = Vec::new();
        for text in &go.searchmoves {
            match text.parse::<UciMove>().ok().and_then(|m| m.to_move(&self.position).ok()) {
                Some(m) => legal.push(m),
                None => illegal.push(text.clone()),
            }
        }
        (legal, illegal)
    }

    /// The search limits of a `go` command in this position.
    pub fn limits(&self, go: &GoParams, move_overhead: Duration) -> Limits {
        let (time, increment) = match self.position.turn() {
            Color::White => (go.wtime, go.winc),
            Color::Black => (go.btime, go.binc),
        };
        let clock = time.map(|time_left| GameClock { time_left, increment: increment.unwrap_or(Duration::ZERO), moves_to_go: go.movestogo });
        let unlimited = clock.is_none() && go.movetime.is_none() && go.depth.is_none() && go.nodes.is_none();
        Limits {
            depth: go.depth,
            nodes: go.nodes,
            movetime: go.movetime,
            clock,
            // A bare `go` searches until `stop`, like `go infinite`; so
            // does pondering.
            infinite: go.infinite || go.ponder || unlimited,
            move_overhead,
            searchmoves: self.searchmoves(go).0,
        }
    }
}

/// A FEN read as everywhere else in pgntune: standard castling, or
/// Chess960 castling (Shredder-FEN, X-FEN) when the position needs it.
fn parse_fen(text: &str) -> Result<Chess, SessionError> {
    let invalid = |reason: Box<dyn std::error::Error + Send + Sync>| SessionError::InvalidFen { fen: text.to_string(), reason };
    let fen: Fen = text.parse().map_err(|e: shakmaty::fen::ParseFenError| invalid(Box::new(e)))?;
    crate::pgn::replay::position_from_fen(fen).map_err(|e| invalid(Box::new(e)))
}

/// The UCI options, as set so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// `Hash`, in MB.
    pub hash_mb: usize,
    /// `Threads`: search threads (lazy SMP); 1, the default, is the
    /// deterministic one-thread search.
    pub threads: usize,
    /// `Move Overhead`.
    pub move_overhead: Duration,
    /// `Weights`: the preset name or file the evaluation comes from.
    pub weights: String,
    /// `UCI_Chess960`: castling moves are written king-takes-rook (`e1h1`).
    pub chess960: bool,
}

/// What a `setoption` changed, for the session to act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionChange {
    /// The hash size changed.
    Hash,
    /// The number of search threads changed.
    Threads,
    /// The weights changed.
    Weights,
    /// Nothing the engine needs to know now.
    Other,
}

impl Options {
    /// The defaults, evaluating with the weights named `weights`.
    pub fn new(weights: &str) -> Options {
        Options { hash_mb: DEFAULT_HASH_MB, threads: 1, move_overhead: MOVE_OVERHEAD, weights: weights.to_string(), chess960: false }
    }

    /// The `option` lines of the `uci` reply.
    pub fn describe(&self) -> Vec<String> {
        vec![
            format!("option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}"),
            format!("option name Threads type spin default 1 min 1 max {}", crate::engine::MAX_THREADS),
            format!("option name Weights type string default {}", self.weights),
            format!("option name Move Overhead type spin default {} min 0 max {MAX_MOVE_OVERHEAD_MS}", MOVE_OVERHEAD.as_millis()),
            "option name UCI_Chess960 type check default false".to_string(),
        ]
    }

    /// How castling moves are written: king-takes-rook with `UCI_Chess960`
    /// or in a position only Chess960 allows, else king two squares.
    pub fn castling_mode(&self, position: &Chess) -> CastlingMode {
        if self.chess960 || position.castles().mode() == CastlingMode::Chess960 { CastlingMode::Chess960 } else { CastlingMode::Standard }
    }

    /// Applies `setoption name <name> value <value>` (names are not case
    /// sensitive, as UCI says).
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<OptionChange, SessionError> {
        let value = value.unwrap_or("").trim();
        // The range the `uci` reply advertises; a negative number is out of
        // it like any other (it is a number).
        let number =
            |option: &'static str, min: u64, max: u64| {
                value.parse::<i128>().ok().filter(|&n| n >= i128::from(min) && n <= i128::from(max)).map(|n| n as u64).ok_or_else(|| {
                    SessionError::BadValue { option, value: value.to_string(), expected: format!("a whole number from {min} to {max}") }
                })
            };
        match name.to_ascii_lowercase().as_str() {
            "hash" => {
                self.hash_mb = number("Hash", 1, MAX_HASH_MB as u64)? as usize;
                Ok(OptionChange::Hash)
            }
            "threads" => {
                self.threads = number("Threads", 1, crate::engine::MAX_THREADS as u64)? as usize;
                Ok(OptionChange::Threads)
            }
            "move overhead" => {
                self.move_overhead = Duration::from_millis(number("Move Overhead", 0, MAX_MOVE_OVERHEAD_MS)?);
                Ok(OptionChange::Other)
            }
            "uci_chess960" => {
                self.chess960 = match value.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(SessionError::BadValue { option: "UCI_Chess960", value: value.to_string(), expected: "true or false".into() }),
                };
                Ok(OptionChange::Other)
            }
            "weights" => {
                if value.is_empty() {
                    return Err(SessionError::BadValue {
                        option: "Weights",
                        value: String::new(),
                        expected: "a preset name or a weights file".to_string(),
                    });
                }
                self.weights = value.to_string();
                Ok(OptionChange::Weights)
            }
            _ => Err(SessionError::UnknownOption(name.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_played_and_hashed() {
        let mut game = Game::default();
        game.set(&StartPosition::StartPos, &["e2e4".into(), "e7e5".into(), "e1e2".into()]).unwrap();
        assert_eq!(game.history.len(), 3);
        assert_eq!(game.history[0], position_hash(&Chess::default()));
        assert_eq!(game.position.turn(), Color::Black);
    }

    #[test]
    fn castling_in_uci_notation() {
        let mut game = Game::default();
        let fen = StartPosition::Fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".into());
        game.set(&fen, &["e1g1".into(), "e8c8".into()]).unwrap();
        assert_eq!(game.position.board().king_of(Color::White), Some(shakmaty::Square::G1));
        assert_eq!(game.position.board().king_of(Color::Black), Some(shakmaty::Square::C8));
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let mut game = Game::default();
        game.set(&StartPosition::StartPos, &["e2e4".into()]).unwrap();
        let before = game.position.clone();
        for fen in [
            "",
            "garbage",
            "8/8/8/8/8/8/8/8 w - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
            "k7/8/8/8/8/8/8/K7 w - - 0 1 extra",
        ] {
            assert!(matches!(game.set(&StartPosition::Fen(fen.into()), &[]), Err(SessionError::InvalidFen { .. })), "{fen}");
            assert_eq!(game.position, before);
            assert!(!game.valid, "{fen}: no position the GUI agrees with");
        }
        let err = game.set(&StartPosition::StartPos, &["e2e4".into(), "e2e4".into(), "e7e5".into()]).unwrap_err();
        assert!(matches!(err, SessionError::IllegalMove { number: 2, .. }), "{err}");
        assert!(!game.valid);
        assert!(game.set(&StartPosition::StartPos, &["zz".into()]).is_err());
        game.set(&StartPosition::StartPos, &["e2e4".into()]).unwrap();
        assert!(game.valid);
        // Chess960 castling rights (Shredder-FEN), as the shared FEN reader takes them.
        game.set(&StartPosition::Fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9".into()), &[]).unwrap();
        assert_eq!(game.position.castles().mode(), CastlingMode::Chess960);
    }

    #[test]
    fn limits_follow_the_side_to_move() {
        let mut game = Game::default();
        game.set(&StartPosition::StartPos, &["e2e4".into()]).unwrap();
        let go = GoParams {
            wtime: Some(Duration::from_millis(5_000)),
            btime: Some(Duration::from_millis(1_000)),
            binc: Some(Duration::from_millis(10)),
            movestogo: Some(7),
            ..GoParams::default()
        };
        let limits = game.limits(&go, MOVE_OVERHEAD);
        let clock = limits.clock.unwrap();
        assert_eq!((clock.time_left, clock.increment, clock.moves_to_go), (Duration::from_millis(1_000), Duration::from_millis(10), Some(7)));
        assert!(!limits.infinite);
        assert!(game.limits(&GoParams::default(), MOVE_OVERHEAD).infinite);
        assert!(!game.limits(&GoParams { depth: Some(3), ..GoParams::default() }, MOVE_OVERHEAD).infinite);
    }

    #[test]
    fn options() {
        let mut options = Options::new("classical");
        assert_eq!(options.set("hash", Some("64")).unwrap(), OptionChange::Hash);
        assert_eq!(options.hash_mb, 64);
        assert!(options.set("Hash", Some("lots")).is_err());
        assert!(options.set("Hash", Some("99999999")).is_err());
        assert_eq!(options.threads, 1);
        assert_eq!(options.set("threads", Some("2")).unwrap(), OptionChange::Threads);
        assert_eq!(options.threads, 2);
        for bad in ["0", "65", "abc", "-1"] {
            assert!(options.set("Threads", Some(bad)).is_err(), "{bad}");
            assert_eq!(options.threads, 2, "{bad} leaves the setting as it was");
        }
        assert_eq!(options.set("Move Overhead", Some("100")).unwrap(), OptionChange::Other);
        assert_eq!(options.move_overhead, Duration::from_millis(100));
        assert_eq!(options.set("Weights", Some("kaissa")).unwrap(), OptionChange::Weights);
        assert!(matches!(options.set("Ponder", Some("true")), Err(SessionError::UnknownOption(_))));
        assert_eq!(options.castling_mode(&Chess::default()), CastlingMode::Standard);
        options.set("UCI_Chess960", Some("true")).unwrap();
        assert_eq!(options.castling_mode(&Chess::default()), CastlingMode::Chess960);
        assert!(options.set("UCI_Chess960", Some("maybe")).is_err());
        assert!(options.describe().iter().any(|l| l.contains("Weights type string default kaissa")));
    }
}
