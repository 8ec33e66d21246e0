//! `pgntune evaluate` as one library call, [`run`]: how well weights
//! predict the results of a dataset's positions (log-loss, squared error,
//! accuracy), to compare weight files on held-out data.

use std::path::PathBuf;
use std::sync::Arc;

use super::TuneRunError;
use crate::dataset::load::{LoadOptions, LoadReport, load_positions};
use crate::fit::sparse::Evaluation;
use crate::fit::sparse::columns::{column_weights, left_out_warning};
use crate::weights::Weights;

/// Everything an evaluation needs.
#[derive(Clone, Debug)]
pub struct EvaluateConfig {
    /// The datasets whose positions to evaluate.
    pub datasets: Vec<PathBuf>,
    /// The weights.
    pub weights: Weights,
    /// Texel's K; `None` fits the best K for these weights on these positions.
    pub k: Option<f64>,
    /// How EPD files are read.
    pub load: LoadOptions,
    /// Worker threads (0: one per core); the result does not depend on it.
    pub threads: usize,
}

/// What an evaluation found.
#[derive(Clone, Debug)]
pub struct EvaluateReport {
    /// The weights' name.
    pub name: String,
    /// The figures.
    pub evaluation: Evaluation,
    /// Lines the readers skipped.
    pub load: LoadReport,
    /// Sets of the dataset the weights leave out (they count as zero).
    pub warnings: Vec<String>,
}

/// Evaluates `config.weights` on the datasets' positions.
pub fn run(config: &EvaluateConfig) -> Result<EvaluateReport, TuneRunError> {
    let (positions, load) = load_positions(&config.datasets, &config.load)?;
    let layout = positions.layout().clone();
    let sets = || layout.spec();
    // The tuner's own mapping of weights to columns (its start and prior).
    let w = column_weights(&layout, &config.weights).map_err(|source| TuneRunError::Weights { sets: sets(), source })?;
    let warnings = left_out_warning("--weights", &layout, &config.weights)
        .map_err(|source| TuneRunError::Weights { sets: sets(), source })?
        .into_iter()
        .collect();
    let evaluation = crate::fit::sparse::evaluate(Arc::new(positions), &w, config.k, config.threads).map_err(TuneRunError::Evaluate)?;
    Ok(EvaluateReport { name: config.weights.name.clone(), evaluation, load, warnings })
}
