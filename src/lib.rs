//! # pgntune
//!
//! Learns chess evaluation weights from game collections and proves them
//! over the board. The library is in layers; each command of the `pgntune`
//! binary is one library call (a typed configuration in, a report out),
//! and [`cli`] only turns arguments into configurations and prints reports.
//!
//! Reading and learning, following the data's path:
//!
//! * [`pgn`]: reading PGN inputs (plain or compressed), replaying every game
//!   legally with shakmaty, the quiescence filter, and parallel extraction
//!   of rows in input order;
//! * [`features`]: feature sets (material, piece-square tables, ...)
//!   computed from a position, one definition shared by extraction, the
//!   fitter and the engine's evaluation;
//! * [`dataset`]: rows of (features, result) and their file formats;
//! * [`fit`]: the logistic model fitted with argmin's solvers, standard
//!   errors and checks;
//! * [`weights`] and [`presets`]: the weights file the fitter writes and
//!   the engine reads, and hand-set starting values;
//! * [`label`]: evaluation labels by search, the bundled engine's or any
//!   UCI engine's, resumable (`pgntune label`);
//! * [`tune`]: the `fit`, `tune` and `evaluate` commands as library calls:
//!   games or datasets in, the fitter chosen from the rows and the
//!   options, the weights written and, when asked, proved over the board;
//! * [`tables`]: the text tables reports print.
//!
//! Playing and judging:
//!
//! * [`engine`]: the bundled engine (evaluation from weights, search,
//!   transposition table, clock), with `bench` and `perft`;
//! * [`uci`]: the engine behind the UCI protocol (`pgntune uci`);
//! * [`play`]: games and matches: rules and adjudication, players behind
//!   one trait (in-process or UCI subprocesses), typed engine specs,
//!   openings, resumable matches, and the `match`, `verify`, `selfplay`
//!   and `play` commands as library calls;
//! * [`stats`]: Elo, LOS and the SPRT as pure functions over win/draw/loss
//!   and game-pair counts (`pgntune stats`), and their JSON form;
//! * [`analysis`]: score curves, per-group fits and comparisons, and the
//!   plots that draw them (`pgntune analyze`).
//!
//! Around them:
//!
//! * [`atomic`]: outputs planned before any work and written atomically;
//!   temporary files removed on SIGINT/SIGTERM;
//! * `cli`: the command-line front end that `main.rs` calls (clap
//!   definitions, help, completions and the man page), behind the `cli`
//!   feature (on by default). The other modules do not depend on clap: their
//!   enums derive `clap::ValueEnum` only when the feature is on, and
//!   `default-features = false` builds the library without it;
//! * [`fen`]: positions from FEN, as every reader reads them;
//! * [`json`]: what the commands' JSON reports share (objects keyed by
//!   column or term names);
//! * [`plural`]: counts in messages.
//!
//! The library never prints; the command-line layer does.
//!
//! ## Layers
//!
//! The modules stand in floors, the lowest last. A module uses only modules
//! on floors below its own, never one beside it or above it; so there is no
//! loop, and a change to a floor cannot break the floors beneath it. What
//! two modules share moves down, or the higher one passes it in (a
//! parameter, a trait). `tests/all/layers.rs` reads every `crate::`,
//! `super::` and `self::` path in `src/` and fails on a loop between modules,
//! on a loop between the files of one module, and on a use that does not
//! keep to this list:
//!
//! ```text
//! cli
//! label tune
//! analysis play
//! fit uci
//! pgn
//! engine tables
//! presets
//! dataset weights
//! atomic features fen plural stats
//! json prefetch
//! ```
//!
//! [`atomic`] stands low (only [`json`] is below it) and still tells an
//! earlier output from a file of the user's: it asks a
//! [`atomic::Recognise`], and the modules above bring their own kinds (the
//! dataset formats, the weights file, the split shards and manifest,
//! self-play games).

pub mod analysis;
pub mod atomic;
#[cfg(feature = "cli")]
pub mod cli;
pub mod dataset;
pub mod engine;
pub mod features;
pub mod fen;
pub mod fit;
pub mod json;
pub mod label;
pub mod pgn;
pub mod play;
pub mod plural;
pub mod prefetch;
pub mod presets;
pub mod stats;
pub mod tables;
pub mod tune;
pub mod uci;
pub mod weights;

/// The threads to use for a `--threads` setting: `requested`, or one per
/// core when it is 0 (every command's default).
pub fn thread_count(requested: usize) -> usize {
    if requested == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { requested }
}
