//! What a tuning run reports: a short summary a person can read (never
//! hundreds of values on one line: `pgntune weights show` draws them as
//! boards and tables), one JSON object, the weights file and the trace.

use crate::stats::Z_95;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::{ColumnStatus, LabelAgreement, StopReason, TuneReport};
use crate::features::FeatureSet;
use crate::weights::{FORMAT, Weights};

impl TuneReport {
    /// The tuned weights as a weights file (centipawns, `scale = 1`).
    pub fn weights(&self, name: &str) -> Weights {
        Weights {
            format: FORMAT,
            name: name.to_string(),
            features: self.layout.feature_names(),
            scale: 1.0,
            intercept: None,
            default: None,
            weights: self.columns.iter().cloned().zip(self.weights.iter().copied()).collect(),
        }
    }

    /// The summary.
    pub fn to_text(&self) -> String {
        let mut t = String::new();
        // The columns that moved, of all the layout's: with --freeze (or
        // columns no position has) the first line said "Tuned 5 columns"
        // above "Columns: 4 tuned, 1 frozen".
        let tuned = self.status.iter().filter(|&&s| s == ColumnStatus::Tuned).count();
        let _ = writeln!(
            t,
            "Tuned {tuned} of the {} columns of '{}' on {} from {} ({} MB in memory)",
            self.columns.len(),
            self.features,
            crate::plural::count(self.train_positions as u64, "position", "positions"),
            crate::plural::count(self.train_games as u64, "game", "games"),
            self.memory_bytes / 1_000_000
        );
        if self.labelled_positions > 0 {
            let _ = writeln!(t, "  {} positions carry evaluation labels", self.labelled_positions);
        }
        let k = if self.k_fitted { format!("K = {:.4} (fitted on the starting weights)", self.k) } else { format!("K = {:.4}", self.k) };
        let _ = writeln!(
            t,
            "Model: P(white scores) = 1 / (1 + 10^(-K·eval/400)), {k}; loss {}",
            if self.loss == "ce" { "cross-entropy" } else { "squared error" }
        );
        if let Some((label_k, fitted)) = self.label_k {
            let how = if fitted { " (the labels' own, fitted against the results)" } else { "" };
            let own = match (fitted, self.label_k_own) {
                (false, Some(own)) => format!("; the labels' own K against the results is {own:.4} (--label-k auto)"),
                _ => String::new(),
            };
            let _ = writeln!(t, "Labels: target = W·σ(K_label·eval) + (1 − W)·result with K_label = {label_k:.4}{how}{own}");
        }
        if let Some(a) = &self.label_agreement {
            let accuracy = a.accuracy.map_or("n/a (no decisive games)".to_string(), |x| format!("{:.1}%", 100.0 * x));
            let _ = writeln!(
                t,
                "  labels vs results on {}: log-loss {:.6} (the starting weights: {:.6}); the label favours the winner in {accuracy} of decisive positions",
                crate::plural::count(a.positions as u64, "position", "positions"),
                a.log_loss,
                a.start_log_loss
            );
        }
        let _ = writeln!(
            t,
            "Solver: {}, {} ({} over the positions) in {:.1} s; stopped: {}",
            self.solver,
            crate::plural::count(self.iterations, "iteration", "iterations"),
            crate::plural::count(self.passes, "pass", "passes"),
            self.seconds,
            self.stopped.describe()
        );
        let _ = writeln!(
            t,
            "Loss: training {:.6} -> {:.6} ({:+.2}%)",
            self.start_loss,
            self.train_loss,
            100.0 * (self.train_loss / self.start_loss - 1.0)
        );
        if let (Some(a), Some(b)) = (self.start_holdout_loss, self.holdout_loss) {
            let _ = writeln!(
                t,
                "      held out {a:.6} -> {b:.6} ({:+.2}%) on {} positions of held-out {}",
                100.0 * (b / a - 1.0),
                self.holdout_positions,
                if self.warnings.is_empty() { "games" } else { "rows" }
            );
        }
        let count = |s: ColumnStatus| self.status.iter().filter(|&&x| x == s).count();
        let _ = writeln!(
            t,
            "Columns: {} tuned, {} frozen, {} never seen (left at the prior)",
            count(ColumnStatus::Tuned),
            count(ColumnStatus::Frozen),
            count(ColumnStatus::Unseen)
        );
        if !self.held.is_empty() {
            let _ = writeln!(t, "Levels held (not identified beside material): {}", summarise(&self.held, 6));
        }
        if !self.not_identified.is_empty() {
            let _ = writeln!(t, "No standard error (collinear with other columns): {}", summarise(&self.not_identified, 8));
        }
        if let Some(note) = &self.stderr_note {
            let _ = writeln!(t, "Note: {note}");
        }
        let _ = writeln!(t, "\nPer feature set (centipawns; change = mean |tuned − start| over tuned columns):");
        let _ = writeln!(t, "  {:<18} {:>7} {:>7} {:>9} {:>9}", "set", "columns", "tuned", "change", "median SE");
        let layout = &self.layout;
        if layout.is_custom() {
            let tuned: Vec<usize> = (0..self.columns.len()).filter(|&j| self.status[j] == ColumnStatus::Tuned).collect();
            let change =
                if tuned.is_empty() { 0.0 } else { tuned.iter().map(|&j| (self.weights[j] - self.start[j]).abs()).sum::<f64>() / tuned.len() as f64 };
            let mut ses: Vec<f64> = tuned.iter().filter_map(|&j| self.stderr[j]).collect();
            ses.sort_by(f64::total_cmp);
            let se = ses.get(ses.len() / 2).map_or("n/a".to_string(), |s| format!("{s:.1}"));
            let _ = writeln!(t, "  {:<18} {:>7} {:>7} {:>9.1} {:>9}", "(the trace's terms)", self.columns.len(), tuned.len(), change, se);
        }
        let mut offset = 0;
        for set in layout.sets() {
            let range = offset..offset + set.len();
            offset += set.len();
            let tuned: Vec<usize> = range.clone().filter(|&j| self.status[j] == ColumnStatus::Tuned).collect();
            let change =
                if tuned.is_empty() { 0.0 } else { tuned.iter().map(|&j| (self.weights[j] - self.start[j]).abs()).sum::<f64>() / tuned.len() as f64 };
            let mut ses: Vec<f64> = tuned.iter().filter_map(|&j| self.stderr[j]).collect();
            ses.sort_by(f64::total_cmp);
            let se = ses.get(ses.len() / 2).map_or("n/a".to_string(), |s| format!("{s:.1}"));
            let _ = writeln!(t, "  {:<18} {:>7} {:>7} {:>9.1} {:>9}", set.name(), set.len(), tuned.len(), change, se);
        }
        // The piece values, with intervals: the numbers people look for first.
        let pieces: Vec<usize> = (0..self.columns.len())
            .filter(|&j| matches!(layout.set_of_column(j), Some(FeatureSet::Material | FeatureSet::MaterialTapered)))
            .collect();
        if !pieces.is_empty() {
            let _ = writeln!(t, "\nPiece values (centipawns, 95% interval):");
            for j in pieces {
                let interval = self.stderr[j]
                    .map_or("n/a".to_string(), |se| format!("[{:.1}, {:.1}]", self.weights[j] - Z_95 * se, self.weights[j] + Z_95 * se));
                let _ = writeln!(t, "  {:<6} {:>8.1}  {interval}", self.columns[j], self.weights[j]);
            }
        }
        for w in &self.warnings {
            let _ = write!(t, "\nwarning: {w}\n");
        }
        t
    }

    /// One JSON object with every number of the report: see [`TuneReportJson`].
    pub fn json(&self) -> TuneReportJson<'_> {
        TuneReportJson {
            features: &self.features,
            k: self.k,
            k_fitted: self.k_fitted,
            label_k: self.label_k.map(|(k, _)| k),
            label_k_fitted: self.label_k.map(|(_, fitted)| fitted),
            label_k_own: self.label_k_own,
            label_agreement: self.label_agreement.as_ref(),
            loss: self.loss,
            solver: self.solver,
            iterations: self.iterations,
            passes: self.passes,
            stopped: self.stopped,
            seconds: self.seconds,
            train_positions: self.train_positions,
            holdout_positions: self.holdout_positions,
            train_games: self.train_games,
            labelled_positions: self.labelled_positions,
            start_loss: self.start_loss,
            train_loss: self.train_loss,
            start_holdout_loss: self.start_holdout_loss,
            holdout_loss: self.holdout_loss,
            dispersion: self.dispersion,
            held: &self.held,
            not_identified: &self.not_identified,
            memory_bytes: self.memory_bytes,
            warnings: &self.warnings,
            columns: (0..self.columns.len())
                .map(|j| TunedColumnJson {
                    name: &self.columns[j],
                    value: self.weights[j],
                    start: self.start[j],
                    prior: self.prior[j],
                    stderr: self.stderr[j],
                    status: self.status[j],
                })
                .collect(),
        }
    }

    /// [`TuneReport::json`] as a value (what `fit --json` and `tune --json`
    /// print for the whole-evaluation tuner).
    pub fn to_json(&self) -> Value {
        crate::json::to_value(&self.json())
    }

    /// The trace as CSV: iteration, training loss, held-out loss.
    pub fn trace_csv(&self) -> String {
        let mut out = String::from("iteration,train_loss,holdout_loss\n");
        for row in &self.trace {
            let holdout = row.holdout_loss.map_or(String::new(), |h| format!("{h:.12}"));
            let _ = writeln!(out, "{},{:.12},{holdout}", row.iteration, row.train_loss);
        }
        out
    }
}

/// A [`TuneReport`] as JSON: the settings, the losses, then one entry per
/// column. Every key is always there, `null` when unknown.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TuneReportJson<'a> {
    /// The layout's specification.
    pub features: &'a str,
    /// Texel's K.
    pub k: f64,
    /// Whether K was fitted on the starting weights.
    pub k_fitted: bool,
    /// The labels' K in the targets, when labels are mixed in.
    pub label_k: Option<f64>,
    /// Whether that K is the labels' own fitted one.
    pub label_k_fitted: Option<bool>,
    /// The labels' own K against the results.
    pub label_k_own: Option<f64>,
    /// How well the labels agree with the results.
    pub label_agreement: Option<&'a LabelAgreement>,
    /// `ce` or `mse`.
    pub loss: &'static str,
    /// The solver.
    pub solver: &'static str,
    /// Iterations (L-BFGS) or epochs (Adam).
    pub iterations: u64,
    /// Passes over the positions.
    pub passes: u64,
    /// Why the solver stopped.
    pub stopped: StopReason,
    /// Seconds spent fitting.
    pub seconds: f64,
    /// Positions trained on.
    pub train_positions: usize,
    /// Positions held out.
    pub holdout_positions: usize,
    /// Distinct games among the training positions.
    pub train_games: usize,
    /// Positions with evaluation labels.
    pub labelled_positions: usize,
    /// The training loss at the start.
    pub start_loss: f64,
    /// The training loss at the end.
    pub train_loss: f64,
    /// The held-out loss at the start.
    pub start_holdout_loss: Option<f64>,
    /// The held-out loss at the end.
    pub holdout_loss: Option<f64>,
    /// Quasi-binomial dispersion.
    pub dispersion: Option<f64>,
    /// Levels held at their start.
    pub held: &'a [String],
    /// Columns without a standard error.
    pub not_identified: &'a [String],
    /// Memory of the positions in bytes.
    pub memory_bytes: usize,
    /// Messages worth showing.
    pub warnings: &'a [String],
    /// Every column, in the layout's order.
    pub columns: Vec<TunedColumnJson<'a>>,
}

/// One column in [`TuneReportJson`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TunedColumnJson<'a> {
    /// The column's name.
    pub name: &'a str,
    /// Its tuned value (centipawns).
    pub value: f64,
    /// Its starting value.
    pub start: f64,
    /// Its prior.
    pub prior: f64,
    /// Its standard error, `null` when not identified.
    pub stderr: Option<f64>,
    /// `tuned`, `frozen` or `unseen`.
    pub status: ColumnStatus,
}

/// The first `n` names and how many more.
fn summarise(names: &[String], n: usize) -> String {
    let mut s = names.iter().take(n).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > n {
        let _ = write!(s, " and {} more", names.len() - n);
    }
    s
}
