//! Fitting piece values: regularised logistic regression of game results on
//! feature rows, with standard errors, intervals and sanity checks.
//!
//! Input is [`MergedRows`] (distinct feature vectors with result counts);
//! output a [`FitReport`]. Models live in [`model`], solvers in [`solve`],
//! uncertainty (Fisher information, delta method, bootstrap, holdout) in
//! [`uncertainty`], and rendering in [`report`].

pub mod checks;
pub mod linalg;
pub mod model;
pub mod positions_newton;
pub mod report;
pub mod solve;
pub mod sparse;
pub mod uncertainty;

use std::time::Instant;

use ndarray::Array1;
use serde::Serialize;

pub use checks::Check;
// The rows a fit reads are the dataset layer's; re-exported for callers of `fit`.
pub use crate::dataset::merged::{GameRows, MergedRows, ResultCounts, RowMerger};
pub use model::{DrawMode, Loss};
pub use solve::{SolverKind, TracePoint};
pub use uncertainty::{BootstrapSummary, HoldoutSummary, Metrics};

use model::{BinaryProblem, Design, OrdinalProblem};
use solve::{Solution, SolveConfig};

/// The reference column for normalised values (pawn = 100).
pub const REFERENCE: &str = "P";

/// How to fit.
#[derive(Clone, Debug)]
pub struct FitConfig {
    /// How draws enter the model.
    pub draws: DrawMode,
    /// Cross-entropy or squared error (binary models only).
    pub loss: Loss,
    /// L2 penalty on the feature weights (never on the intercept).
    pub lambda: f64,
    /// Fit an intercept (white's first-move edge).
    pub intercept: bool,
    /// The optimiser.
    pub solver: SolverKind,
    /// Gradient-norm tolerance.
    pub tol: f64,
    /// Iteration limit; `None` for the solver's default.
    pub max_iters: Option<u64>,
    /// Step size of `gd`.
    pub alpha: f64,
    /// Record every iterate.
    pub trace: bool,
    /// Bootstrap replicates over games, with a seed.
    pub bootstrap: Option<(usize, u64)>,
    /// Hold out this fraction of games, with a seed.
    pub holdout: Option<(f64, u64)>,
}

impl Default for FitConfig {
    fn default() -> Self {
        FitConfig {
            draws: DrawMode::Half,
            loss: Loss::CrossEntropy,
            lambda: 1e-6,
            intercept: false,
            solver: SolverKind::Newton,
            tol: 1e-9,
            max_iters: None,
            alpha: 1.0,
            trace: false,
            bootstrap: None,
            holdout: None,
        }
    }
}

impl FitConfig {
    fn solve_config(&self) -> SolveConfig {
        let default_iters = match self.solver {
            SolverKind::Lbfgs => 1000,
            SolverKind::Newton => 100,
            SolverKind::Gd => 10_000,
        };
        SolveConfig { kind: self.solver, tol: self.tol, max_iters: self.max_iters.unwrap_or(default_iters), alpha: self.alpha, trace: self.trace }
    }
}

/// Why a fit could not be made.
#[derive(Debug, thiserror::Error)]
pub enum FitError {
    /// No rows at all.
    #[error("the dataset has no rows")]
    Empty,
    /// Nothing to learn from.
    #[error("no decisive games in the data: every row is a draw, so piece values cannot be estimated")]
    NoDecisive,
    /// An option combination that does not make sense.
    #[error("{0}")]
    Invalid(String),
    /// The solver failed: argmin's error, kept as the source.
    #[error("the solver failed: {0}")]
    Solver(#[source] argmin::core::Error),
    /// The reference piece came out without a positive weight.
    #[error("the fitted weight of {REFERENCE} is {0:.3e}, not positive: values normalised to {REFERENCE} = 100 are meaningless")]
    Reference(f64),
}

/// The draw band of the ordinal model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DrawBand {
    /// Half-width `c` in logistic units.
    pub half_width: f64,
    /// Full width `2c` in logistic units.
    pub width: f64,
    /// Standard error of the width.
    pub width_stderr: Option<f64>,
    /// The width in centipawns (pawn = 100).
    pub width_centipawns: Option<f64>,
}

/// Everything a fit found.
#[derive(Clone, Debug)]
pub struct FitReport {
    /// Feature columns, in order.
    pub columns: Vec<String>,
    /// The settings used.
    pub draws: DrawMode,
    /// The loss used.
    pub loss_kind: Loss,
    /// The solver used.
    pub solver: SolverKind,
    /// The penalty.
    pub lambda: f64,
    /// Games with rows, when known.
    pub games: Option<u64>,
    /// All rows given.
    pub rows: u64,
    /// Rows the model used (decisive rows with draws excluded).
    pub rows_used: u64,
    /// Distinct feature vectors.
    pub distinct_rows: usize,
    /// Rows per result `[black won, draw, white won]`.
    pub results: [u64; 3],
    /// Feature weights θ.
    pub theta: Vec<f64>,
    /// Their standard errors (None where not estimable).
    pub stderr: Vec<Option<f64>>,
    /// The intercept and its standard error, when fitted.
    pub intercept: Option<(f64, Option<f64>)>,
    /// Index of the reference column, when present.
    pub reference: Option<usize>,
    /// Values normalised to the reference = 100.
    pub values: Option<Vec<f64>>,
    /// 95% intervals of the normalised values (delta method).
    pub values_ci95: Option<Vec<Option<(f64, f64)>>>,
    /// The ordinal model's draw band.
    pub draw_band: Option<DrawBand>,
    /// Quasi-binomial dispersion (draws as half points).
    pub dispersion: Option<f64>,
    /// The final cost (mean loss + penalty).
    pub loss: f64,
    /// Iterations.
    pub iterations: u64,
    /// Whether the gradient norm fell below the tolerance.
    pub converged: bool,
    /// The final gradient norm.
    pub grad_norm: f64,
    /// Why the solver stopped.
    pub stopped: String,
    /// Decisive rows are perfectly separated by the fitted weights: the
    /// unpenalised maximum-likelihood estimate does not exist, and the
    /// numbers shown are the penalised fit's.
    pub separable: bool,
    /// The Capablanca rules.
    pub checks: Vec<Check>,
    /// Bootstrap intervals.
    pub bootstrap: Option<BootstrapSummary>,
    /// Held-out evaluation.
    pub holdout: Option<HoldoutSummary>,
    /// The iterates, when traced.
    pub trace: Vec<TracePoint>,
    /// Messages worth showing (not errors).
    pub warnings: Vec<String>,
    /// Seconds spent fitting (after loading).
    pub seconds: f64,
}

/// A model ready to be solved.
#[derive(Clone, Debug)]
pub(crate) enum Model {
    Binary(BinaryProblem),
    Ordinal(OrdinalProblem),
}

impl Model {
    pub(crate) fn new(rows: &MergedRows, config: &FitConfig) -> Model {
        let design = Design::new(rows, config.intercept);
        match config.draws {
            DrawMode::Ordinal => Model::Ordinal(OrdinalProblem::new(design, config.lambda)),
            draws => Model::Binary(BinaryProblem::new(design, draws, config.loss, config.lambda)),
        }
    }

    pub(crate) fn start(&self) -> Array1<f64> {
        match self {
            Model::Binary(p) => Array1::zeros(p.design().coefficients()),
            Model::Ordinal(p) => p.start(),
        }
    }

    pub(crate) fn solve(&self, start: Array1<f64>, config: &SolveConfig) -> Result<Solution, FitError> {
        let result = match self {
            Model::Binary(p) => solve::solve(p, start, config),
            Model::Ordinal(p) => solve::solve(p, start, config),
        };
        result.map_err(FitError::Solver)
    }

    pub(crate) fn design(&self) -> &Design {
        match self {
            Model::Binary(p) => p.design(),
            Model::Ordinal(p) => p.design(),
        }
    }

    /// Linear scores `x·θ` of every distinct row.
    pub(crate) fn scores(&self, param: &Array1<f64>) -> Array1<f64> {
        let k = self.design().coefficients();
        self.design().x.dot(&param.slice(ndarray::s![..k]))
    }
}

/// Fits `rows` as `config` says.
pub fn fit(rows: &MergedRows, config: &FitConfig) -> Result<FitReport, FitError> {
    let started = Instant::now();
    if rows.is_empty() {
        return Err(FitError::Empty);
    }
    if config.draws == DrawMode::Ordinal && config.loss == Loss::Mse {
        return Err(FitError::Invalid("--loss mse applies to the binary models (--draws exclude or half), not to --draws ordinal".into()));
    }
    if config.solver == SolverKind::Gd && config.draws == DrawMode::Ordinal {
        return Err(FitError::Invalid("--solver gd fits the binary models only; use lbfgs or newton with --draws ordinal".into()));
    }
    let totals = rows.totals();
    if totals[0] + totals[2] == 0.0 {
        return Err(FitError::NoDecisive);
    }
    // With --holdout, everything below (the weights, their errors, the
    // bootstrap) is the fit on the training games, as the option says and
    // as the whole-evaluation tuner does; the report still describes the
    // whole input. (The held-out games were once only refitted apart, for
    // their metrics, while the values shown and written used every row.)
    let all = rows;
    let split = match config.holdout {
        Some((fraction, seed)) => Some(uncertainty::split_holdout(rows, fraction, seed)?),
        None => None,
    };
    let rows = split.as_ref().map_or(rows, |s| &s.train);
    let fitted_totals = rows.totals();
    let model = Model::new(rows, config);
    let mut warnings = Vec::new();
    let (solution, solver) = match (config.solver, model.solve(model.start(), &config.solve_config())) {
        // Newton's full steps reach the optimum of these small models in a
        // handful of passes, but can overshoot where the likelihood is
        // nearly flat (rows close to separable); L-BFGS's line search
        // cannot, so it takes over from the start.
        (SolverKind::Newton, newton) if !newton.as_ref().is_ok_and(|s| s.converged && s.cost.is_finite()) => {
            let why = match &newton {
                Ok(s) => format!("{}, gradient norm {:.2e}", s.stopped, s.grad_norm),
                Err(e) => e.to_string(),
            };
            let lbfgs = FitConfig { solver: SolverKind::Lbfgs, ..config.clone() };
            let solution = model.solve(model.start(), &lbfgs.solve_config())?;
            warnings.push(format!("Newton's method did not converge ({why}): the fit is L-BFGS's"));
            (solution, SolverKind::Lbfgs)
        }
        (solver, result) => (result?, solver),
    };
    if !solution.converged {
        let hint = if config.solver == SolverKind::Lbfgs { "; --solver newton reaches the optimum without a line search" } else { "" };
        warnings.push(format!(
            "the solver did not converge ({}; gradient norm {:.2e} > tolerance {:.0e}){hint}",
            solution.stopped, solution.grad_norm, config.tol
        ));
    }
    let param = &solution.param;
    let offset = usize::from(config.intercept);
    let width = rows.width();
    let theta: Vec<f64> = (0..width).map(|j| param[offset + j]).collect();
    let (covariance, dispersion) = uncertainty::covariance(&model, param, config);
    let se = |j: usize| covariance.as_ref().map(|c| c[[j, j]]).filter(|v| v.is_finite() && *v >= 0.0).map(f64::sqrt);
    let stderr: Vec<Option<f64>> = (0..width).map(|j| se(offset + j)).collect();
    let intercept = config.intercept.then(|| (param[0], se(0)));

    let reference = rows.columns.iter().position(|c| c == REFERENCE);
    let (values, values_ci95) = match reference {
        Some(r) if theta[r] > 0.0 => {
            let values: Vec<f64> = theta.iter().map(|t| 100.0 * t / theta[r]).collect();
            let ci = uncertainty::ratio_intervals(&theta, r, offset, covariance.as_ref());
            (Some(values), Some(ci))
        }
        Some(r) => return Err(FitError::Reference(theta[r])),
        None => (None, None),
    };

    let draw_band = match &model {
        Model::Ordinal(_) => {
            let k = model.design().coefficients();
            let c = param[k].exp();
            let se_gamma = covariance.as_ref().map(|cov| cov[[k, k]]).filter(|v| v.is_finite() && *v >= 0.0).map(f64::sqrt);
            Some(DrawBand {
                half_width: c,
                width: 2.0 * c,
                width_stderr: se_gamma.map(|s| 2.0 * c * s),
                width_centipawns: reference.filter(|&r| theta[r] > 0.0).map(|r| 200.0 * c / theta[r]),
            })
        }
        Model::Binary(_) => None,
    };

    let separable = uncertainty::is_separable(&model, param);
    if separable {
        warnings.push(
            "the decisive rows are perfectly separable: without the L2 penalty the weights would grow without bound; the values shown are the penalised fit's"
                .into(),
        );
    }
    let checks = match &values {
        Some(v) => checks::capablanca(|c| rows.columns.iter().position(|x| x == c).map(|j| v[j])),
        None => Vec::new(),
    };

    let bootstrap = match config.bootstrap {
        Some((replicates, seed)) => Some(uncertainty::bootstrap(rows, config, param, replicates, seed, reference)?),
        None => None,
    };
    if let Some(b) = &bootstrap
        && !b.by_game
    {
        warnings.push(
            "the input has no game ids: the bootstrap resampled rows, which understates the uncertainty (rows of one game are not independent)"
                .into(),
        );
    }
    let holdout = match (&split, config.holdout) {
        (Some(split), Some((fraction, seed))) => Some(uncertainty::holdout_summary(split, config, param, fraction, seed, solution.converged)),
        _ => None,
    };
    if let Some(h) = holdout.as_ref().filter(|h| h.by_game && h.loose_rows.0 + h.loose_rows.1 > 0) {
        warnings.push(format!(
            "{} rows have no game id (an input without a game column): the holdout split them one by one, not by game",
            h.loose_rows.0 + h.loose_rows.1
        ));
    }
    if holdout.as_ref().is_some_and(|h| !h.by_game) {
        warnings.push("the input has no game ids: the holdout split rows, not games, so rows of one game fall on both sides (which flatters the held-out metrics)".into());
    }

    let rows_used = match config.draws {
        DrawMode::Exclude => fitted_totals[0] + fitted_totals[2],
        _ => fitted_totals[0] + fitted_totals[1] + fitted_totals[2],
    };
    Ok(FitReport {
        columns: all.columns.clone(),
        draws: config.draws,
        loss_kind: config.loss,
        solver,
        lambda: config.lambda,
        games: all.game_count,
        rows: all.total_rows() as u64,
        rows_used: rows_used as u64,
        distinct_rows: all.len(),
        results: totals.map(|t| t as u64),
        theta,
        stderr,
        intercept,
        reference,
        values,
        values_ci95,
        draw_band,
        dispersion,
        loss: solution.cost,
        iterations: solution.iterations,
        converged: solution.converged,
        grad_norm: solution.grad_norm,
        stopped: solution.stopped,
        separable,
        checks,
        bootstrap,
        holdout,
        trace: solution.trace,
        warnings,
        seconds: started.elapsed().as_secs_f64(),
    })
}
