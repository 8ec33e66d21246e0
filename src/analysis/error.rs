//! The one error type of the analyses.

use super::AnalysisError;
use super::plots::PlotError;
use crate::dataset::DatasetError;
use crate::fit::FitError;
use crate::fit::sparse::TuneError;
use crate::pgn::extract::ExtractError;

/// Why an analysis failed: `analyze` with its score curves and group
/// fits, or the imbalance analysis (one error type for both).
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// Reading a PGN input failed.
    #[error(transparent)]
    Extract(#[from] ExtractError),
    /// Reading a dataset failed.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// An input is not usable.
    #[error("{input}: {reason}")]
    Input {
        /// The input.
        input: String,
        /// Why.
        reason: String,
    },
    /// An input holds no PGN game.
    #[error("{0}: no PGN game found (not a PGN file?)")]
    NoGames(String),
    /// Nothing to analyse.
    #[error("no rows to analyse{}", .player.as_ref().map_or(String::new(), |p| format!(" (no game of '{p}')")))]
    NoRows {
        /// The player filter, if any.
        player: Option<String>,
    },
    /// No game has the tags a grouping needs.
    #[error("--group-by {key}: no game has the tag {tags}")]
    NoTag {
        /// The grouping.
        key: String,
        /// The tags it reads.
        tags: String,
    },
    /// Too many games in one input to tell apart.
    #[error("{0}: more than 2^40 games in one input")]
    TooManyGames(String),
    /// The curve could not be made.
    #[error(transparent)]
    Curve(#[from] AnalysisError),
    /// The fit of all games failed.
    #[error("fitting all rows: {0}")]
    Fit(#[source] FitError),
    /// A figure could not be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// The configuration is not usable.
    #[error("{0}")]
    Invalid(String),
    /// A collection's positions do not allow the analysis.
    #[error("{collection}: {reason}")]
    Data {
        /// The collection.
        collection: String,
        /// Why.
        reason: String,
    },
    /// A fit failed.
    #[error("{collection}: fitting the {model} model: {source}")]
    Tune {
        /// The collection.
        collection: String,
        /// Which model.
        model: String,
        /// The tuner's error.
        #[source]
        source: TuneError,
    },
}
