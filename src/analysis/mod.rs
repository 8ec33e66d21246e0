//! Studying collections: the score curve and its logistic fit, piece values
//! per group of games and comparisons between groups, and the plots that
//! draw them (which compute nothing themselves).

pub mod curve;
pub mod groups;
pub mod plots;

pub use curve::{CurvePoint, Scale, ScoreCurve, score_curve};
pub use groups::{Difference, GroupFit, GroupKey, compare, fit_groups};

/// Why an analysis could not be made.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// The data do not allow it.
    #[error("{0}")]
    Invalid(String),
}
