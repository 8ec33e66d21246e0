//! How to fit, as the user asked for it, and the choice of the fitter it
//! implies: the article's dense fitter for its small material models, the
//! whole-evaluation tuner for everything else.

use std::str::FromStr;

use super::error::TuneRunError;
use crate::features::{FeatureLayout, FeatureSet};
use crate::fit::sparse::columns::{frozen_columns, prior_for};
use crate::fit::sparse::problem::SparseLoss;
use crate::fit::sparse::{LabelScale, MAX_K, MIN_K, ScaleK, TuneConfig, TuneSolver};
use crate::fit::{DrawMode, FitConfig, Loss, SolverKind};
use crate::weights::Weights;

/// The optimiser asked for.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Solver {
    /// The fitter's own choice: Newton's method for the article's small
    /// dense models (L-BFGS if it does not converge), L-BFGS for the
    /// whole-evaluation tuner.
    Auto,
    /// Limited-memory BFGS (argmin): both fitters.
    Lbfgs,
    /// Newton's method: the article's fitter only.
    Newton,
    /// The article's fixed-step gradient descent: the article's fitter only.
    Gd,
    /// Adam over mini-batches: the whole-evaluation tuner only.
    Adam {
        /// Passes over the training positions.
        epochs: u64,
        /// Positions per mini-batch.
        batch: usize,
        /// Step size in centipawns.
        lr: f64,
    },
}

/// Every fitting option of `fit` and `tune`, typed; which of them apply
/// depends on the fitter [`FitOptions::wants_tuner`] chooses.
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// How draws count.
    pub draws: DrawMode,
    /// Cross-entropy or squared error.
    pub loss: Loss,
    /// The ridge λ.
    pub lambda: f64,
    /// Fit an intercept (the article's fitter).
    pub intercept: bool,
    /// The optimiser.
    pub solver: Solver,
    /// Gradient-norm tolerance [default: 1e-9; the tuner's own otherwise].
    pub tol: Option<f64>,
    /// The tuner's cost tolerance.
    pub cost_tol: Option<f64>,
    /// Iteration limit.
    pub iters: Option<u64>,
    /// Step size of gd.
    pub alpha: f64,
    /// Refits on resampled games (the article's fitter).
    pub bootstrap: Option<usize>,
    /// The fraction of games held out.
    pub holdout: Option<f64>,
    /// Seed of the bootstrap and the holdout.
    pub seed: u64,
    /// Record the trajectory (a trace file, or gd's printout).
    pub trace: bool,
    /// Texel's K (the tuner).
    pub k: ScaleK,
    /// The scale of the evaluation labels (the tuner).
    pub label_k: LabelScale,
    /// The weights the ridge pulls toward and the tuner starts from.
    pub prior: Option<Weights>,
    /// Sets or columns kept at their start.
    pub freeze: Vec<String>,
    /// The weight of evaluation labels in the target.
    pub eval_weight: f64,
    /// Compute standard errors (the tuner; the article's fitter always does).
    pub standard_errors: bool,
    /// Worker threads (0: one per core).
    pub threads: usize,
}

impl FitOptions {
    /// Options as `pgntune fit` starts from, before the user's.
    pub fn new() -> FitOptions {
        FitOptions {
            draws: DrawMode::Half,
            loss: Loss::CrossEntropy,
            lambda: 1e-6,
            intercept: false,
            solver: Solver::Auto,
            tol: None,
            cost_tol: None,
            iters: None,
            alpha: 1.0,
            bootstrap: None,
            holdout: None,
            seed: 1,
            trace: false,
            k: ScaleK::Auto,
            label_k: LabelScale::Model,
            prior: None,
            freeze: Vec::new(),
            eval_weight: 0.0,
            standard_errors: true,
            threads: 0,
        }
    }

    /// True when an option only the whole-evaluation tuner has was given
    /// (`extra` for the run's own: a plot of the tables, a verification).
    pub fn asks_for_tuner(&self, extra: bool) -> bool {
        extra
            || self.prior.is_some()
            || !self.freeze.is_empty()
            || self.eval_weight != 0.0
            || self.k != ScaleK::Auto
            || self.label_k != LabelScale::Model
            || matches!(self.solver, Solver::Adam { .. })
    }

    /// Whether the whole-evaluation tuner fits `layout`: the article's
    /// dense fitter keeps untapered layouts of pgntune's sets of up to 64
    /// columns, unless an option only the tuner has was given.
    pub fn wants_tuner(&self, layout: &FeatureLayout, extra: bool) -> bool {
        self.asks_for_tuner(extra) || layout.is_tapered() || layout.is_custom() || layout.len() > 64
    }

    /// Whether the article's fitter needs each row's game (to resample or
    /// hold out whole games).
    pub fn needs_games(&self) -> bool {
        self.bootstrap.is_some() || self.holdout.is_some()
    }

    /// The article's fitter's configuration.
    pub fn article_config(&self) -> Result<FitConfig, TuneRunError> {
        let solver = match self.solver {
            Solver::Lbfgs => SolverKind::Lbfgs,
            Solver::Auto | Solver::Newton => SolverKind::Newton,
            Solver::Gd => SolverKind::Gd,
            Solver::Adam { .. } => {
                return Err(TuneRunError::Config(
                    "--solver adam is for the whole-evaluation tuner (tapered feature sets, or --prior, --freeze, --k, --eval-weight)".into(),
                ));
            }
        };
        Ok(FitConfig {
            draws: self.draws,
            loss: self.loss,
            lambda: self.lambda,
            intercept: self.intercept,
            solver,
            tol: self.tol.unwrap_or(1e-9),
            max_iters: self.iters,
            alpha: self.alpha,
            // gd prints its trajectory, so it always records it.
            trace: self.trace || solver == SolverKind::Gd,
            bootstrap: self.bootstrap.map(|n| (n, self.seed)),
            holdout: self.holdout.map(|f| (f, self.seed)),
        })
    }

    /// The whole-evaluation tuner's configuration for `layout` (`plot`:
    /// the tables are to be drawn, which needs them in the layout).
    pub fn tuner_config(&self, layout: &FeatureLayout, plot: bool) -> Result<TuneConfig, TuneRunError> {
        if self.draws == DrawMode::Ordinal || self.bootstrap.is_some() || self.intercept {
            return Err(TuneRunError::Config(
                "--draws ordinal, --bootstrap and --intercept belong to the article's material model; the whole-evaluation tuner does not offer them"
                    .into(),
            ));
        }
        if plot && !layout.contains(FeatureSet::Pst) {
            return Err(TuneRunError::Config(format!("--plot draws the piece-square tables, and the layout '{}' has none", layout.spec())));
        }
        if !(0.0..=1.0).contains(&self.eval_weight) {
            return Err(TuneRunError::Config("--eval-weight must be between 0 and 1".into()));
        }
        let solver = match self.solver {
            Solver::Auto | Solver::Lbfgs => TuneSolver::Lbfgs,
            Solver::Adam { epochs, batch, lr } => {
                if !(lr.is_finite() && lr > 0.0) {
                    return Err(TuneRunError::Config("--lr must be a positive number of centipawns".into()));
                }
                if epochs == 0 || batch == 0 {
                    return Err(TuneRunError::Config("--epochs and --batch must be at least 1".into()));
                }
                TuneSolver::Adam { epochs, batch, lr }
            }
            Solver::Newton | Solver::Gd => {
                return Err(TuneRunError::Config(
                    "--solver newton and gd are for the article's small models; the whole-evaluation tuner uses lbfgs or adam".into(),
                ));
            }
        };
        let prior = prior_for(layout, self.prior.as_ref()).map_err(TuneRunError::Prior)?;
        let frozen = frozen_columns(layout, &self.freeze).map_err(TuneRunError::Freeze)?;
        let mut config = TuneConfig::new(prior);
        config.loss = match self.loss {
            Loss::CrossEntropy => SparseLoss::CrossEntropy,
            Loss::Mse => SparseLoss::Mse,
        };
        config.k = self.k;
        config.lambda = self.lambda;
        config.frozen = frozen;
        config.solver = solver;
        config.eval_weight = self.eval_weight;
        config.label_k = self.label_k;
        config.exclude_draws = self.draws == DrawMode::Exclude;
        if let Some(tol) = self.tol {
            config.tol = tol;
        }
        if let Some(cost_tol) = self.cost_tol {
            config.cost_tol = cost_tol;
        }
        if let Some(iters) = self.iters {
            config.max_iters = iters;
        }
        config.holdout = self.holdout.map(|f| (f, self.seed));
        config.threads = self.threads;
        config.standard_errors = self.standard_errors;
        config.seed = self.seed;
        Ok(config)
    }
}

impl Default for FitOptions {
    fn default() -> FitOptions {
        FitOptions::new()
    }
}

/// A [`LabelScale`] that cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("must be 'model', 'auto' or a number from {MIN_K} to {MAX_K}")]
pub struct BadLabelScale;

impl FromStr for LabelScale {
    type Err = BadLabelScale;

    fn from_str(text: &str) -> Result<LabelScale, BadLabelScale> {
        match text.trim() {
            "auto" => Ok(LabelScale::Auto),
            "model" => Ok(LabelScale::Model),
            number => match number.parse::<f64>() {
                Ok(k) if (MIN_K..=MAX_K).contains(&k) => Ok(LabelScale::Fixed(k)),
                _ => Err(BadLabelScale),
            },
        }
    }
}
