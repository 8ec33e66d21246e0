//! # pgntune
//!
//! Learns chess evaluation weights from game collections and proves them
//! over the board. The modules follow the data's path:
//!
//! * [`pgn`]: reading PGN inputs (plain or compressed), replaying every game
//!   legally, the quiescence filter, and parallel extraction of rows;
//! * [`features`]: feature sets (material, ...) computed from a position,
//!   shared by extraction and the engine's evaluation;
//! * [`dataset`]: rows of (features, result) and their file formats;
//! * [`cli`]: the command-line front end that `main.rs` calls.
//!
//! The library never prints; the command-line layer does.

pub mod analysis;
pub mod atomic;
pub mod cli;
pub mod dataset;
pub mod engine;
pub mod features;
pub mod fit;
pub mod pgn;
pub mod play;
pub mod presets;
pub mod stats;
pub mod tables;
pub mod uci;
pub mod weights;
