//! The extraction pipeline: PGN inputs → [`RowBatch`](crate::dataset::RowBatch)es, in input order.
//!
//! One reader thread decompresses and parses (pgn-reader never checks
//! legality), handing batches of [`GameRecord`](super::record::GameRecord)s to a rayon pool that
//! replays them with shakmaty and computes feature rows. The caller's sink
//! receives the batches in input order, so the output is the same bytes
//! whatever the thread count. With one thread everything runs inline.
//! In-flight batches are limited, so memory stays bounded for any input.

mod config;
mod pipeline;
mod report;
mod rows;

pub use config::{BadGames, ExtractConfig, QuietMode, UnknownResult};
pub use pipeline::{NoProgress, Progress, extract};
pub(crate) use pipeline::{Tap, read_games_tapped};
pub use report::{ExtractError, ExtractStats, PROBLEMS_KEPT, Problem};
