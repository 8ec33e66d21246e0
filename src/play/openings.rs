//! Openings: where the games of a match start. A suite from a file (EPD
//! positions, or the main lines of PGN games), or random openings: a few
//! random legal moves from the start position, kept only when the engine
//! sees the result as roughly balanced. `pgntune openings` builds an EPD
//! suite from a game collection.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use shakmaty::fen::{Epd, Fen};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position, PositionError};

use crate::engine::{Engine, Evaluator, Limits, Score};
use crate::pgn::extract::Problem;
use crate::pgn::input::{ByteCounters, InputSource, open};
use crate::pgn::record::{GameRecord, Joiner, RecordVisitor};
use crate::pgn::replay::{position_from_fen, resolve, start_position};
use crate::weights::Weights;

/// Where a game starts: a position (FEN, or the standard start) and moves
/// played from it before the engines take over.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Opening {
    /// The starting position; `None` for the standard one.
    pub fen: Option<Fen>,
    /// Moves from it.
    pub moves: Vec<UciMove>,
}

/// Why an opening cannot be played.
#[derive(Debug, thiserror::Error)]
pub enum BadOpening {
    /// The FEN is not a legal position.
    #[error("'{fen}': {source}")]
    Position {
        /// The FEN.
        fen: String,
        /// Why (boxed: it holds the position).
        #[source]
        source: Box<PositionError<Chess>>,
    },
    /// A move is not legal where it is played.
    #[error("move {ply} '{text}' is not legal")]
    IllegalMove {
        /// Its place, from 1.
        ply: usize,
        /// The move.
        text: String,
    },
    /// The game is over after it.
    #[error("the game is over after it ({0})")]
    Over(&'static str),
}

impl Opening {
    /// An opening of `moves` from `fen` (or the standard start), checked.
    pub fn new(fen: Option<Fen>, moves: Vec<UciMove>) -> Result<Opening, BadOpening> {
        let opening = Opening { fen, moves };
        opening.start()?;
        Ok(opening)
    }

    /// The starting position and the opening's moves, checked for legality.
    pub fn start(&self) -> Result<(Chess, Vec<Move>), BadOpening> {
        let mut pos: Chess = match &self.fen {
            Some(fen) => position_from_fen(fen.clone()).map_err(|source| BadOpening::Position { fen: fen.to_string(), source: Box::new(source) })?,
            None => Chess::default(),
        };
        let start = pos.clone();
        let mut moves = Vec::with_capacity(self.moves.len());
        for (i, uci) in self.moves.iter().enumerate() {
            let m = uci.to_move(&pos).map_err(|_| BadOpening::IllegalMove { ply: i + 1, text: uci.to_string() })?;
            pos.play_unchecked(m);
            moves.push(m);
        }
        Ok((start, moves))
    }

    /// The position after the opening's moves.
    pub fn position(&self) -> Result<Chess, BadOpening> {
        let (mut pos, moves) = self.start()?;
        for m in moves {
            pos.play_unchecked(m);
        }
        Ok(pos)
    }

    /// Checks that the opening can be played: legal, and the game not
    /// already over after it (checkmate, stalemate, dead position), which
    /// would score a game without a single engine move.
    pub fn check_playable(&self) -> Result<(), BadOpening> {
        match game_over(&self.position()?) {
            Some(why) => Err(BadOpening::Over(why)),
            None => Ok(()),
        }
    }
}

/// Why the game is over in `pos` whatever the draw rules, if it is.
pub fn game_over(pos: &Chess) -> Option<&'static str> {
    if pos.legal_moves().is_empty() {
        return Some(if pos.is_check() { "checkmate" } else { "stalemate" });
    }
    pos.is_insufficient_material().then_some("dead position")
}

/// The most random plies an opening may have: random moves soon blunder
/// into positions no game between engines would reach, and after a few
/// dozen they end games before the engines play.
pub const MAX_RANDOM_PLIES: u32 = 40;

/// Plies of each game a PGN suite plays when no limit is given (the
/// length of common books such as 8moves).
pub const DEFAULT_PGN_PLIES: usize = 16;

/// Why openings could not be read.
#[derive(Debug, thiserror::Error)]
pub enum OpeningError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
    /// A line or game is not a usable opening.
    #[error("{path}: {what}: {message}")]
    Bad {
        /// The file.
        path: String,
        /// Line or game.
        what: String,
        /// Why.
        message: String,
    },
    /// A position of an EPD suite is over (mate, stalemate, a draw by rule).
    #[error("{path}: position {position}: {source}")]
    Unplayable {
        /// The file.
        path: String,
        /// The position, from 1.
        position: usize,
        /// What is over.
        #[source]
        source: BadOpening,
    },
    /// An opening of a PGN suite ends in a finished game.
    #[error("{path}: game {game}: {source}; take fewer plies of each game")]
    Finished {
        /// The file.
        path: String,
        /// The game, from 1.
        game: usize,
        /// What is over.
        #[source]
        source: BadOpening,
    },
    /// A line of an EPD suite is not a legal position.
    #[error("{path}: line {line}: {source}")]
    Position {
        /// The file.
        path: String,
        /// The line, from 1.
        line: usize,
        /// Why (an unreadable FEN or an illegal position).
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// No openings at all.
    #[error("{0}: no openings found")]
    Empty(String),
    /// The file could not be opened (the message names it).
    #[error(transparent)]
    Open(#[from] crate::pgn::input::OpenError),
}

/// Reads an opening suite: `.epd` (one position per line) or PGN (each
/// game's main line from its start position, at most `plies` plies of it),
/// plain or compressed. Every opening must be playable: an opening after
/// which the game is over is refused, naming it.
pub fn load(path: &Path, plies: usize) -> Result<Vec<Opening>, OpeningError> {
    let name = path.display().to_string();
    let is_epd = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("epd"));
    let openings = if is_epd { load_epd(path)? } else { load_pgn(path, Some(plies), true)?.0 };
    if openings.is_empty() {
        return Err(OpeningError::Empty(name));
    }
    for (i, opening) in openings.iter().enumerate() {
        match opening.check_playable() {
            Ok(()) => {}
            Err(source) if !is_epd => return Err(OpeningError::Finished { path: name, game: i + 1, source }),
            Err(source) => return Err(OpeningError::Unplayable { path: name, position: i + 1, source }),
        }
    }
    Ok(openings)
}

/// The FEN of an EPD line: its four fields, with the move counters from
/// two more numeric fields (a full FEN) or from `hmvc` and `fmvn`
/// operations, else 0 and 1.
fn epd_to_fen(line: &str) -> String {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let board = fields.iter().take(4).copied().collect::<Vec<_>>().join(" ");
    let number = |s: &&str| s.trim_end_matches(';').parse::<u32>().ok();
    if let (Some(half), Some(full)) = (fields.get(4).and_then(number), fields.get(5).and_then(number)) {
        return format!("{board} {half} {full}");
    }
    let operation = |op: &str| fields.iter().position(|f| *f == op).and_then(|i| fields.get(i + 1)).and_then(number);
    format!("{board} {} {}", operation("hmvc").unwrap_or(0), operation("fmvn").unwrap_or(1).max(1))
}

fn load_epd(path: &Path) -> Result<Vec<Opening>, OpeningError> {
    let name = path.display().to_string();
    let mut text = String::new();
    open(&InputSource::File(path.to_path_buf()), &ByteCounters::default())?
        .reader
        .read_to_string(&mut text)
        .map_err(|source| OpeningError::Read { path: name.clone(), source })?;
    let mut openings = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // EPD: four FEN fields, then optional operations; a full FEN is
        // accepted too. Chess960 castling (Shredder-FEN, X-FEN) is read as
        // `play --fen` reads it.
        if line.split_whitespace().count() < 4 {
            // shakmaty reads a bare board as white to move without castling
            // rights: a line cut short would be played as another position.
            return Err(OpeningError::Bad {
                path: name,
                what: format!("line {}", n + 1),
                message: "fewer than the four EPD fields (board, side to move, castling, en passant): is the line cut short?".into(),
            });
        }
        let position = epd_to_fen(line)
            .parse::<Fen>()
            .map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)
            .and_then(|fen| position_from_fen(fen).map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>));
        let pos = position.map_err(|source| OpeningError::Position { path: name.clone(), line: n + 1, source })?;
        openings.push(Opening { fen: Some(Fen::from_position(&pos, EnPassantMode::Legal)), moves: vec![] });
    }
    Ok(openings)
}

/// The main lines of the games in `path` (at most `plies` moves each), and
/// the problems met on the way. `strict`: a game that cannot be read or
/// replayed is an error (a suite must be played as written); else it is
/// skipped, and named in the problems (building a suite from a collection).
fn load_pgn(path: &Path, plies: Option<usize>, strict: bool) -> Result<(Vec<Opening>, Vec<Problem>), OpeningError> {
    let name = path.display().to_string();
    // `-` is standard input (a suite built from a pipe of games).
    let source = if crate::atomic::is_stdout(path) { InputSource::Stdin } else { InputSource::File(path.to_path_buf()) };
    let stream = open(&source, &ByteCounters::default())?;
    let mut reader = pgn_reader::Reader::new(stream.reader);
    let mut visitor = RecordVisitor::new(0, &[]);
    let mut joiner = Joiner::default();
    let mut records = Vec::new();
    loop {
        match reader.read_game(&mut visitor) {
            Ok(Some(games)) => games.into_iter().for_each(|g| joiner.push(g, &mut records)),
            Ok(None) => break,
            // Text the PGN reader cannot parse (an unterminated comment or
            // tag, as in a file cut short) is one unreadable game, as
            // extraction reads it: the games before it are kept.
            Err(source) if source.kind() == std::io::ErrorKind::InvalidData && !stream.stream_failed.load(Ordering::Relaxed) => {
                joiner.push(GameRecord { parse_error: Some(source.to_string()), ..GameRecord::default() }, &mut records);
            }
            Err(source) => return Err(OpeningError::Read { path: name, source }),
        }
    }
    joiner.finish(&mut records);
    let mut problems = Vec::new();
    // A file of text with not one tag nor one playable tagless game is no
    // PGN at all (a binary file, say): said as such, not as a collection
    // whose games are all too short.
    let any_tags = records.iter().any(|r| r.has_tags);
    let mut openings = Vec::new();
    for record in records {
        let bad = |message: String| OpeningError::Bad { path: name.clone(), what: format!("game {}", record.number), message };
        // Bytes that are not PGN at all parse as games without tags; they
        // are no openings (and a file of nothing else has none).
        if let Some(problem) = Problem::unreadable(&name, &record) {
            if strict {
                return Err(bad(problem.message));
            }
            problems.push(problem);
            continue;
        }
        if !record.has_tags && record.moves.is_empty() {
            continue;
        }
        problems.extend(Problem::unfinished(&name, &record));
        let replayed = (|| {
            let mut pos = start_position(&record).map_err(|e| bad(e.to_string()))?;
            let fen = record.fen.as_ref().map(|_| Fen::from_position(&pos, EnPassantMode::Legal));
            let mode = pos.castles().mode();
            let mut moves = Vec::new();
            for (ply, san) in record.moves.iter().take(plies.unwrap_or(usize::MAX)).enumerate() {
                let m = resolve(&pos, san.san).map_err(|e| bad(format!("ply {}: {e} '{}'", ply + 1, san)))?;
                moves.push(UciMove::from_move(m, mode));
                pos.play_unchecked(m);
            }
            Ok((fen, moves))
        })();
        let (fen, moves) = match replayed {
            Ok(opening) => opening,
            Err(e) if strict => return Err(e),
            Err(OpeningError::Bad { message, .. }) => {
                problems.push(Problem { file: name.clone(), game: record.number, ply: None, message: format!("{message}; skipped") });
                continue;
            }
            Err(_) => continue,
        };
        // A game without a start position or moves is no opening.
        if fen.is_none() && moves.is_empty() {
            continue;
        }
        openings.push(Opening { fen, moves });
    }
    if openings.is_empty() && !any_tags && std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
        return Err(OpeningError::Bad { path: name, what: "the file".into(), message: "no PGN game in it (is it a PGN file?)".into() });
    }
    Ok((openings, problems))
}

/// A short engine search to judge whether an opening is balanced.
pub struct BalanceCheck {
    engine: Engine,
    nodes: u64,
    /// Largest |score| in centipawns accepted.
    pub max_cp: i32,
}

impl BalanceCheck {
    /// A check with the classical weights, `nodes` per search.
    pub fn new(max_cp: i32, nodes: u64) -> BalanceCheck {
        let evaluator = Evaluator::new(&Weights::preset("classical").expect("classical preset")).expect("preset evaluator");
        BalanceCheck { engine: Engine::new(evaluator, 4), nodes, max_cp }
    }

    /// The engine's score of `pos` for the side to move.
    pub fn score(&mut self, pos: &Chess) -> Option<i32> {
        self.engine.new_game();
        let result = self.engine.search(pos, &[], &Limits::nodes(self.nodes), &AtomicBool::new(false), &mut |_| {});
        match result.score {
            Score::Cp(cp) => Some(cp),
            Score::Mate(_) => None,
        }
    }

    /// Whether `pos` is roughly balanced.
    pub fn accepts(&mut self, pos: &Chess) -> bool {
        self.score(pos).is_some_and(|cp| cp.abs() <= self.max_cp)
    }
}

/// A random opening: `plies` random legal moves from the start position,
/// drawn from a generator seeded by `(seed, index)`, retried until the
/// position is balanced (when a check is given; after 200 tries the first
/// unbalanced one is taken). Deterministic. `None` when no try reached
/// `plies` moves with the game still going.
pub fn random_opening(seed: u64, index: u64, plies: u32, mut check: Option<&mut BalanceCheck>) -> Option<Opening> {
    let mut fallback = None;
    for attempt in 0..200u64 {
        let mut rng =
            Xoshiro256PlusPlus::seed_from_u64(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ attempt.wrapping_mul(0xD1B5_4A32_D192_ED03));
        let mut pos = Chess::default();
        let mut moves = Vec::with_capacity(plies as usize);
        for _ in 0..plies {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.random_range(0..legal.len())];
            moves.push(UciMove::from_move(m, CastlingMode::Standard));
            pos.play_unchecked(m);
        }
        if game_over(&pos).is_some() || moves.len() < plies as usize {
            continue;
        }
        let opening = Opening { fen: None, moves };
        let balanced = match check.as_deref_mut() {
            Some(c) => c.accepts(&pos),
            None => true,
        };
        if balanced {
            return Some(opening);
        }
        fallback.get_or_insert(opening);
    }
    fallback
}

/// `pgntune openings`: distinct positions after `plies` plies of the games
/// in `inputs`, in order of first appearance, optionally only balanced ones.
/// Games that could not be read or replayed are skipped and returned as problems.
pub fn suite_from_games(inputs: &[&Path], plies: usize, mut check: Option<&mut BalanceCheck>) -> Result<(Vec<String>, Vec<Problem>), OpeningError> {
    let mut seen = HashSet::new();
    let mut epd = Vec::new();
    let mut problems = Vec::new();
    for path in inputs {
        let (openings, mut found) = load_pgn(path, Some(plies), false)?;
        problems.append(&mut found);
        for opening in openings {
            if opening.moves.len() < plies {
                continue;
            }
            let Ok(pos) = opening.position() else { continue };
            if pos.legal_moves().is_empty() {
                continue;
            }
            let line = Epd::from_position(&pos, EnPassantMode::Legal).to_string();
            if !seen.insert(line.clone()) {
                continue;
            }
            if let Some(c) = check.as_deref_mut()
                && !c.accepts(&pos)
            {
                continue;
            }
            epd.push(line);
        }
    }
    Ok((epd, problems))
}

/// `pgntune openings`: an EPD suite from game collections.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteConfig {
    /// PGN files to take openings from (`-`: standard input).
    pub inputs: Vec<PathBuf>,
    /// The position after this many plies of each game.
    pub plies: usize,
    /// Keep only positions the engine scores within ±`max_cp` after
    /// `nodes` nodes: `(max_cp, nodes)`.
    pub balance: Option<(i32, u64)>,
    /// The EPD file (`-`: standard output).
    pub out: PathBuf,
    /// Replace an existing `out` (without it, an existing file is never
    /// replaced: a suite cannot be told from a user's opening book).
    pub force: bool,
}

/// What `pgntune openings` wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteReport {
    /// Distinct openings written.
    pub openings: usize,
    /// Games skipped because they could not be read or replayed, and
    /// games the input ended inside (their moves are used).
    pub problems: Vec<Problem>,
}

/// Why a suite was not written.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// The inputs could not be read.
    #[error(transparent)]
    Openings(#[from] OpeningError),
    /// The output would destroy a file or cannot be made.
    #[error(transparent)]
    Plan(#[from] crate::atomic::PlanError),
    /// The output could not be written.
    #[error(transparent)]
    Output(#[from] crate::atomic::OutputError),
    /// No game was long enough.
    #[error("no game had {0} plies to give an opening")]
    Empty(usize),
    /// `-` named twice: standard input can be read once.
    #[error("-: standard input is named more than once, and it can be read only once")]
    StdinTwice,
}

/// Builds the suite and writes it (atomically).
pub fn build_suite(config: &SuiteConfig) -> Result<SuiteReport, SuiteError> {
    if config.inputs.iter().filter(|p| crate::atomic::is_stdout(p)).count() > 1 {
        return Err(SuiteError::StdinTwice);
    }
    let mut plan = crate::atomic::OutputPlan::new(config.force).allow_stdout();
    for input in &config.inputs {
        plan.input(input);
    }
    plan.output(&config.out, crate::atomic::OutputKind::Openings)?;
    let inputs: Vec<&Path> = config.inputs.iter().map(PathBuf::as_path).collect();
    let mut check = config.balance.map(|(cp, nodes)| BalanceCheck::new(cp, nodes));
    let (lines, problems) = suite_from_games(&inputs, config.plies, check.as_mut())?;
    if lines.is_empty() {
        return Err(SuiteError::Empty(config.plies));
    }
    let mut text = lines.join("\n");
    text.push('\n');
    crate::atomic::AtomicFile::write_all(&config.out, text.as_bytes())?;
    Ok(SuiteReport { openings: lines.len(), problems })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_openings_are_deterministic_and_legal() {
        let a = random_opening(7, 3, 8, None).unwrap();
        assert_eq!(a, random_opening(7, 3, 8, None).unwrap());
        assert_ne!(a, random_opening(7, 4, 8, None).unwrap());
        assert_eq!(a.moves.len(), 8);
        assert!(a.position().is_ok());
    }

    #[test]
    fn balanced_openings_pass_the_check() {
        let mut check = BalanceCheck::new(80, 2000);
        let o = random_opening(1, 0, 6, Some(&mut check)).unwrap();
        let pos = o.position().unwrap();
        assert!(check.score(&pos).unwrap().abs() <= 80);
    }

    #[test]
    fn epd_and_pgn_suites_load() {
        let dir = tempfile::tempdir().unwrap();
        let epd = dir.path().join("o.epd");
        std::fs::write(&epd, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"e4\";\n# comment\n\n").unwrap();
        let suite = load(&epd, DEFAULT_PGN_PLIES).unwrap();
        assert_eq!(suite.len(), 1);
        assert_eq!(suite[0].position().unwrap().turn(), shakmaty::Color::Black);
        let pgn = dir.path().join("o.pgn");
        std::fs::write(&pgn, "[Result \"*\"]\n\n1. e4 c5 2. Nf3 *\n\n[Result \"*\"]\n\n1. d4 d5 *\n").unwrap();
        let suite = load(&pgn, DEFAULT_PGN_PLIES).unwrap();
        assert_eq!(suite[0].moves.iter().map(UciMove::to_string).collect::<Vec<_>>(), ["e2e4", "c7c5", "g1f3"]);
        let (lines, _) = suite_from_games(&[pgn.as_path()], 2, None).unwrap();
        assert_eq!(lines, ["rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -", "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq -"]);
        let out = dir.path().join("suite.epd");
        let report = build_suite(&SuiteConfig { inputs: vec![pgn.clone()], plies: 2, balance: None, out: out.clone(), force: false }).unwrap();
        assert_eq!(report.openings, 2);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), format!("{}\n", lines.join("\n")));
        // The suite just written is an existing file like any other: only
        // `force` lets a run replace it.
        let again = build_suite(&SuiteConfig { inputs: vec![pgn.clone()], plies: 2, balance: None, out: out.clone(), force: false });
        assert!(matches!(again, Err(SuiteError::Plan(_))));
        let none = build_suite(&SuiteConfig { inputs: vec![pgn], plies: 9, balance: None, out, force: true });
        assert!(matches!(none, Err(SuiteError::Empty(9))));
        std::fs::write(&epd, "not a fen\n").unwrap();
        assert!(load(&epd, DEFAULT_PGN_PLIES).unwrap_err().to_string().contains("line 1"));
        // A line cut after the side to move would parse, without castling rights.
        std::fs::write(&epd, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\nrnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b\n").unwrap();
        let cut = load(&epd, DEFAULT_PGN_PLIES).unwrap_err().to_string();
        assert!(cut.contains("line 2: fewer than the four EPD fields"), "{cut}");
    }
}
