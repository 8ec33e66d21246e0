//! Studying collections: the score curve and its logistic fit ([`curve`]),
//! piece values per group of games and comparisons between groups
//! ([`groups`]), material imbalances with their tests ([`imbalance`]),
//! and the plots that draw them ([`plots`], which compute
//! nothing themselves). [`run`](mod@run) is `pgntune analyze` as a library
//! call: inputs read and grouped, everything fitted, one report.

pub mod curve;
mod error;
pub mod groups;
pub mod imbalance;
pub mod plots;
pub mod run;

pub use curve::{CurvePoint, Scale, ScaleError, ScoreCurve, score_curve};
pub use groups::{Difference, ELO_BANDS, GroupFit, GroupKey, compare, fit_groups};
pub use run::{AnalyzeConfig, AnalyzeError, AnalyzeReport, GroupTable, Grouping, ReadObserver, run};

/// Why an analysis could not be made.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// The data do not allow it.
    #[error("{0}")]
    Invalid(String),
    /// The logistic fit of the score curve failed.
    #[error("the logistic fit of the curve: {0}")]
    CurveFit(#[source] crate::fit::FitError),
}
