//! Figures of what the other modules computed: the score curve with its
//! fitted logistic, the convergence of a fit trace, piece values per
//! group, and the knight and rook by own pawns (the imbalance analysis). The plots compute nothing; they take plain data and draw it.
//!
//! Each function takes its data and an output path. The format follows the
//! extension, `.svg` or `.png` (in any case); anything else is an error
//! before any work. The file appears only when complete (see
//! [`crate::atomic`]). Text is drawn with a subset of DejaVu Sans that is
//! compiled into the binary (`plots/fonts/`), so PNG output never depends
//! on the fonts of the machine, and the same data give the same bytes
//! everywhere.
//!
//! Data the plots cannot show are reported as [`PlotError::InvalidData`];
//! what is merely undefined is left out of the picture, as each function
//! documents.

use std::error::Error;
use std::path::Path;

use crate::atomic::OutputError;

mod bitmap_text;
mod canvas;
mod convergence;
mod group_comparison;
mod heatmap;
mod imbalance;
mod score_curve;
#[cfg(test)]
mod tests;

/// One material balance of the score curve.
#[derive(Clone, Debug, PartialEq)]
pub struct ScorePoint {
    /// Material balance for white, in pawns.
    pub balance: f64,
    /// Rows (positions) with this balance.
    pub rows: u64,
    /// White's mean score over those rows, in [0, 1].
    pub mean: f64,
    /// 95% interval of the mean.
    pub ci95: (f64, f64),
}

/// White's mean score against the material balance, with the fitted
/// logistic `E(ΔM) = 1 / (1 + e^(−α·ΔM))` and reference curves for other α.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreCurvePlot {
    pub title: String,
    /// The piece-value scale of the balance, such as `"1-3-3-5-9"`.
    pub scale: String,
    pub points: Vec<ScorePoint>,
    /// The fitted slope, per pawn.
    pub alpha: f64,
    /// 95% interval of `alpha`.
    pub alpha_ci95: (f64, f64),
    /// Slopes drawn dashed for comparison.
    pub reference_alphas: Vec<f64>,
}

/// Normalised piece values and the loss along a fit's iterations.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvergencePlot {
    pub title: String,
    /// The pieces, such as `["P", "N", "B", "R", "Q"]`.
    pub columns: Vec<String>,
    /// The iteration numbers, increasing; 0 is the starting point.
    pub iterations: Vec<u64>,
    /// Per iteration, one value per column, normalised to pawn = 100.
    pub values: Vec<Vec<f64>>,
    /// Per iteration, the mean loss per row; empty when the trace has none.
    pub loss: Vec<f64>,
}

/// The piece values fitted on one group of games.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupValues {
    /// The group's name: a player, a rating band, a time control.
    pub group: String,
    /// Games in the group (`None` when unknown: rows without game ids).
    pub games: Option<u64>,
    /// One value per column, normalised to pawn = 100.
    pub values: Vec<f64>,
    /// 95% intervals of the values; empty when there are none.
    pub ci95: Vec<(f64, f64)>,
}

/// Piece values with their intervals, group by group.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupComparisonPlot {
    pub title: String,
    /// The pieces, such as `["N", "B", "R", "Q"]`.
    pub columns: Vec<String>,
    pub groups: Vec<GroupValues>,
}

/// Piece-square tables to draw as heat maps.
#[derive(Clone, Debug, PartialEq)]
pub struct PstHeatmapPlot {
    pub title: String,
    /// One board per table, such as `("N middlegame", [64 values, a1..h8])`.
    pub boards: Vec<(String, Vec<f64>)>,
}

/// One piece's value against the number of own pawns, in one collection
/// at one reference configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct PawnCurve {
    /// The collection, such as `human`.
    pub collection: String,
    /// The piece, such as `knight`: one panel each.
    pub piece: String,
    /// The reference configuration, such as `middlegame`.
    pub reference: String,
    /// Own pawn counts, increasing.
    pub pawns: Vec<f64>,
    /// The value at each count.
    pub values: Vec<f64>,
    /// 95% intervals of the values; empty when there are none.
    pub ci95: Vec<(f64, f64)>,
}

/// Piece values by own pawns (the imbalance analysis): a panel per piece,
/// a line per collection and reference.
#[derive(Clone, Debug, PartialEq)]
pub struct ImbalancePlot {
    pub title: String,
    /// The value axis' unit, such as `centipawns`.
    pub unit: String,
    pub curves: Vec<PawnCurve>,
    /// Per piece, a slope (value per pawn) drawn dashed through the piece's
    /// first curve at five pawns (Kaufman's).
    pub kaufman_slopes: Vec<(String, f64)>,
}

/// Why a plot was not written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The extension is neither `.svg` nor `.png`.
    #[error("{path}: unknown plot format (the name must end in .svg or .png)")]
    UnknownFormat { path: String },
    /// The data cannot be drawn.
    #[error("{plot}: {reason}")]
    InvalidData { plot: &'static str, reason: String },
    /// The bundled font was rejected by the text renderer.
    #[error("the bundled plot font could not be loaded")]
    Font,
    /// The drawing library failed.
    #[error("{path}: drawing failed: {source}")]
    Draw {
        path: String,
        #[source]
        source: Box<dyn Error + Send + Sync>,
    },
    /// The PNG encoder failed (a failed write included).
    #[error("{path}: PNG encoding failed: {source}")]
    Png {
        path: String,
        #[source]
        source: png::EncodingError,
    },
    /// The output file could not be written.
    #[error(transparent)]
    Output(#[from] OutputError),
}

/// Draws the score curve: white's mean score per material balance with its
/// 95% intervals (larger markers for balances with more rows), the fitted
/// logistic labelled with α and its interval, and the reference slopes
/// dashed.
///
/// Every point needs a finite balance and a mean in [0, 1], and α and the
/// reference slopes must be finite; an interval that is not finite is not
/// drawn, and one reaching past [0, 1] is cut at the frame.
pub fn score_curve(plot: &ScoreCurvePlot, path: &Path) -> Result<(), PlotError> {
    let figure = score_curve::ScoreCurve::new(plot)?;
    canvas::render(&figure, path)
}

/// Draws a fit trace: the normalised value of each piece per iteration
/// above, the loss per iteration below. The iteration axis is logarithmic
/// when the trace spans more than two decades (gradient descent's 10,000
/// steps); iteration 0 cannot be shown there, and the axis says so.
///
/// Values that are not finite leave a gap in their line. The value axis
/// follows the data unless early iterates lie far outside the final values
/// (normalising by a pawn weight near zero), in which case it is cut to a
/// window around them and its label says so.
pub fn convergence(plot: &ConvergencePlot, path: &Path) -> Result<(), PlotError> {
    let figure = convergence::Convergence::new(plot)?;
    canvas::render(&figure, path)
}

/// Draws piece values with their 95% intervals per group: one panel per
/// piece, one row per group (the first on top), each group in its own
/// colour and named with its number of games at the left. A value that is
/// not finite is left out; so is an interval that is not.
pub fn group_comparison(plot: &GroupComparisonPlot, path: &Path) -> Result<(), PlotError> {
    let figure = group_comparison::Comparison::new(plot)?;
    canvas::render(&figure, path)
}

/// Draws piece values by own pawns: a panel per piece, each curve a line
/// (colour: collection; solid or dashed: the first or a later reference)
/// over its 95% band, and the slopes of [`ImbalancePlot::kaufman_slopes`]
/// dashed grey. Values or interval ends that are not finite are left out.
pub fn imbalance_by_pawns(plot: &ImbalancePlot, path: &Path) -> Result<(), PlotError> {
    let figure = imbalance::PawnValues::new(plot)?;
    canvas::render(&figure, path)
}

/// Draws piece-square tables as heat maps (see [`PstHeatmapPlot`]); every
/// value must be finite.
pub fn pst_heatmap(plot: &PstHeatmapPlot, path: &Path) -> Result<(), PlotError> {
    let figure = heatmap::Heatmap::new(plot)?;
    canvas::render(&figure, path)
}

/// The files [`pst_heatmaps`] writes into `dir`, for checking them
/// before any work (in the order it writes them).
pub fn pst_heatmap_files(dir: &Path) -> Vec<std::path::PathBuf> {
    ["mg", "eg"].iter().flat_map(|phase| ["png", "svg"].map(|ext| dir.join(format!("pst_{phase}.{ext}")))).collect()
}

/// Draws the piece-square tables of `weights` into `dir` (made if missing;
/// its parent must exist): the middlegame and the endgame tables, each as
/// `pst_mg.png`/`.svg` and `pst_eg.png`/`.svg` ([`pst_heatmap_files`]).
/// Returns the files written; none when the weights have no `pst` set.
pub fn pst_heatmaps(weights: &crate::weights::Weights, dir: &Path) -> Result<Vec<std::path::PathBuf>, PlotError> {
    use crate::features::{FeatureSet, Pst};
    let sets = weights.layout().map(|l| l.contains(FeatureSet::Pst)).unwrap_or(false);
    if !sets {
        return Ok(Vec::new());
    }
    std::fs::create_dir(dir)
        .or_else(|e| if dir.is_dir() { Ok(()) } else { Err(e) })
        .map_err(|e| PlotError::Draw { path: dir.display().to_string(), source: Box::new(e) })?;
    let terms = Pst::terms();
    let mut files = pst_heatmap_files(dir).into_iter();
    let mut written = Vec::new();
    for (phase, long) in [("mg", "middlegame"), ("eg", "endgame")] {
        let boards = Pst::ROLES
            .iter()
            .enumerate()
            .map(|(r, role)| {
                let values = (0..64).map(|sq| weights.centipawns(&format!("{phase}_{}", terms[r * 64 + sq]))).collect();
                (format!("{} {long}", role.upper_char()), values)
            })
            .collect();
        let plot = PstHeatmapPlot { title: format!("{}: piece-square tables, {long} (centipawns)", weights.name), boards };
        for _ in ["png", "svg"] {
            let path = files.next().expect("two files per phase");
            pst_heatmap(&plot, &path)?;
            written.push(path);
        }
    }
    Ok(written)
}
