//! Why a `fit`, `tune` or `evaluate` run failed: each cause kept as the
//! source, with the option it came from in the message.

use crate::analysis::plots::PlotError;
use crate::atomic::OutputError;
use crate::dataset::DatasetError;
use crate::dataset::positions::TooManyTerms;
use crate::features::UnknownFeatureSet;
use crate::fit::FitError;
use crate::fit::sparse::TuneError;
use crate::fit::sparse::columns::ColumnsError;
use crate::pgn::extract::ExtractError;
use crate::play::run::RunError;
use crate::weights::WeightsError;

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum TuneRunError {
    /// Settings that cannot go together, or input with nothing to fit.
    #[error("{0}")]
    Config(String),
    /// The prior does not fit the layout.
    #[error("--prior")]
    Prior(#[source] ColumnsError),
    /// A column to freeze that the layout lacks.
    #[error("--freeze")]
    Freeze(#[source] ColumnsError),
    /// The weights evaluated do not fit the dataset.
    #[error("--weights (the dataset's sets are '{sets}')")]
    Weights {
        /// The dataset's feature sets.
        sets: String,
        /// Why.
        #[source]
        source: ColumnsError,
    },
    /// The datasets cannot be read.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// The games cannot be read.
    #[error(transparent)]
    Extract(#[from] ExtractError),
    /// A layout with more terms than a position can hold.
    #[error(transparent)]
    Layout(#[from] TooManyTerms),
    /// The article's fitter failed on rows read from datasets.
    #[error(transparent)]
    Fit(FitError),
    /// The article's fitter failed on rows extracted from games.
    #[error("fitting the extracted rows")]
    FitExtracted(#[source] FitError),
    /// The evaluation failed (no positions, say).
    #[error(transparent)]
    Evaluate(TuneError),
    /// The whole-evaluation tuner failed.
    #[error("tuning")]
    Tune(#[source] TuneError),
    /// Fitted weights the engine cannot play, so an output was not written.
    #[error("{output}: the {fitted} weights cannot be played, so nothing was written")]
    Unplayable {
        /// The option of the output.
        output: &'static str,
        /// "fitted" or "tuned".
        fitted: &'static str,
        /// Why.
        #[source]
        source: Box<WeightsError>,
    },
    /// An output cannot be written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// Code for a set the emitter does not know.
    #[error(transparent)]
    Emit(#[from] UnknownFeatureSet),
    /// The tables cannot be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// The report cannot be shown (standard output closed, say).
    #[error("writing the report")]
    Report(#[source] std::io::Error),
    /// Tuned weights the proving match cannot play.
    #[error("--verify: the tuned weights cannot be played")]
    VerifyUnplayable(#[source] Box<WeightsError>),
    /// The proving match failed.
    #[error("--verify")]
    Verify(#[source] RunError),
}
