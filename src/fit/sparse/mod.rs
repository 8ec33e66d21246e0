//! Tuning a whole evaluation: the logistic model over sparse positions,
//! Texel-style, with hundreds of tapered weights.
//!
//! Input: [`Positions`] (each position its non-zero terms) and a
//! [`TuneConfig`]; output: a [`TuneReport`] with the weights in centipawns,
//! their standard errors where the data identifies them, and the losses.
//!
//! * The model is `P(white scores) = σ(c · w·x)` with `w` in centipawns and
//!   `c = K · ln 10 / 400`; `--k auto` fits `K` on the starting weights
//!   first ([`scale`]).
//! * The objective is the mean loss (cross-entropy, or Texel's squared
//!   error) plus `λ Σ (c·(w − prior))²` over the free weights: a ridge toward
//!   the prior, which is the engine's current weights by default.
//! * Solvers: argmin's L-BFGS on the full-batch gradient, or Adam over
//!   mini-batches ([`adam`]); both on the parallel, deterministic sums of
//!   [`problem`] and within the freedom of [`constraints`].
//! * Standard errors come from the Fisher information ([`information`]).

pub mod adam;
pub mod columns;
pub mod constraints;
pub mod information;
mod kernel;
mod penalised;
pub mod plausible;
pub mod problem;
mod report;
mod run;
pub mod scale;

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use crate::dataset::positions::{Positions, unpack};
use constraints::Freedom;
use problem::{Objective, Selection, SparseLoss};
pub use report::{TuneReportJson, TunedColumnJson};
pub use scale::{BadScaleK, MAX_K, MIN_K, ScaleK};

/// The scale of evaluation labels: how their centipawns become a win
/// probability in the targets, `σ(c_label · eval)`. The default is the
/// model's own `K`: the tuner then fits its evaluation to the labels'
/// centipawns as they are. A `K` of the labels' own (fitted against the
/// results: Stockfish's centipawns are normalised to its own win rates) is
/// always reported; used (`Auto`) it stretches the evaluation by
/// `K_label / K`, which lost on the board: 600 games of human positions
/// labelled by Stockfish (see the guide's "Tuning from a game collection").
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum LabelScale {
    /// Fit `K` of the labels against the results (Texel's method on the
    /// labels alone).
    Auto,
    /// The model's `K`.
    Model,
    /// This `K`.
    Fixed(f64),
}

/// How well the evaluation labels agree with the game results, at the
/// labels' own `K`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LabelAgreement {
    /// Training positions with a label.
    pub positions: usize,
    /// Mean log-loss of `σ(c_label · eval)` against the results (at the
    /// labels' own `K` when it could be fitted).
    pub log_loss: f64,
    /// Mean log-loss of the starting weights against the same results, at the model's `K`.
    pub start_log_loss: f64,
    /// Share of positions of decisive games whose winner the label favours.
    pub accuracy: Option<f64>,
}

/// The optimiser.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TuneSolver {
    /// argmin's L-BFGS on the full-batch gradient.
    Lbfgs,
    /// Adam over mini-batches (the usual choice of engine tuners).
    Adam {
        /// Passes over the training positions.
        epochs: u64,
        /// Positions per mini-batch.
        batch: usize,
        /// Step size in centipawns.
        lr: f64,
    },
}

/// Everything a tuning run needs besides the positions.
#[derive(Clone, Debug)]
pub struct TuneConfig {
    /// The loss.
    pub loss: SparseLoss,
    /// The scaling constant.
    pub k: ScaleK,
    /// Ridge penalty toward the prior, on the logistic scale.
    pub lambda: f64,
    /// The prior, per column, in centipawns.
    pub prior: Vec<f64>,
    /// The starting weights, per column, in centipawns.
    pub start: Vec<f64>,
    /// Columns that stay at their starting value.
    pub frozen: Vec<bool>,
    /// The optimiser.
    pub solver: TuneSolver,
    /// Weight `W` of evaluation labels in the target: `W·σ(c_label·eval) + (1 − W)·score`.
    pub eval_weight: f64,
    /// The labels' scale `c_label`.
    pub label_k: LabelScale,
    /// Leave out positions of drawn games.
    pub exclude_draws: bool,
    /// Stop L-BFGS when the norm of the preconditioned gradient is below this.
    pub tol: f64,
    /// Stop L-BFGS when an iteration lowers the objective by less than this
    /// (default 1e-7: on the human collection the held-out loss stops
    /// improving well before the training loss creeps down by that much).
    pub cost_tol: f64,
    /// Iteration (L-BFGS) limit.
    pub max_iters: u64,
    /// Hold out this fraction of games (by a hash of the game id and the seed).
    pub holdout: Option<(f64, u64)>,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Compute standard errors.
    pub standard_errors: bool,
    /// Seed of Adam's batch order.
    pub seed: u64,
}

impl TuneConfig {
    /// Defaults for `columns` columns starting from (and regularised toward) `prior`.
    pub fn new(prior: Vec<f64>) -> TuneConfig {
        TuneConfig {
            loss: SparseLoss::CrossEntropy,
            k: ScaleK::Auto,
            lambda: 1e-6,
            start: prior.clone(),
            frozen: vec![false; prior.len()],
            prior,
            solver: TuneSolver::Lbfgs,
            eval_weight: 0.0,
            label_k: LabelScale::Model,
            exclude_draws: false,
            tol: 1e-7,
            cost_tol: 1e-7,
            max_iters: 500,
            holdout: None,
            threads: 0,
            standard_errors: true,
            seed: 1,
        }
    }
}

/// What an empty training set says: only the reasons that applied (the
/// same words for "the file held none" and "all were held out" misled).
fn empty_message(read: usize, held_out: usize, draws: usize) -> String {
    if read == 0 {
        return "no training positions: the dataset holds none".to_string();
    }
    let mut why = Vec::new();
    if held_out > 0 {
        why.push(format!("{held_out} held out"));
    }
    if draws > 0 {
        why.push(format!("{draws} from drawn games left out"));
    }
    format!("no training positions left of the {read} read ({})", why.join(", "))
}

/// Why a tuning run could not be made.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// No positions to learn from, or to evaluate on.
    #[error("{}", empty_message(*.read, *.held_out, *.draws_left_out))]
    Empty {
        /// Positions read.
        read: usize,
        /// Positions held out.
        held_out: usize,
        /// Positions of drawn games left out.
        draws_left_out: usize,
    },
    /// The configuration does not fit the positions.
    #[error("{0}")]
    Invalid(String),
    /// argmin failed.
    #[error("the solver failed: {0}")]
    Solver(#[source] argmin::core::Error),
    /// The worker threads could not be started.
    #[error("cannot start worker threads: {0}")]
    Threads(#[source] rayon::ThreadPoolBuildError),
}

/// Why the solver stopped.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The gradient norm fell below the tolerance.
    Converged,
    /// An iteration lowered the loss by less than the cost tolerance.
    LossSettled,
    /// The line search found no lower loss within double precision.
    NoProgress,
    /// The iteration or epoch limit was reached.
    IterationLimit,
    /// Nothing was free to move.
    NothingToTune,
}

impl StopReason {
    /// In words, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            StopReason::Converged => "the gradient norm fell below the tolerance",
            StopReason::LossSettled => "an iteration improved the loss by less than the cost tolerance",
            StopReason::NoProgress => "the line search found no lower loss within double precision",
            StopReason::IterationLimit => "the iteration limit was reached",
            StopReason::NothingToTune => "no column was free to move",
        }
    }
}

/// What a column of the tuned weights is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ColumnStatus {
    /// Tuned.
    Tuned,
    /// Frozen at its starting value.
    Frozen,
    /// Never occurs in the training positions: left at its prior.
    Unseen,
}

/// One row of the trace: the losses after an iteration (L-BFGS) or epoch (Adam).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceRow {
    /// 0 for the starting point.
    pub iteration: u64,
    /// Mean training loss (without the penalty).
    pub train_loss: f64,
    /// Mean held-out loss, when games are held out.
    pub holdout_loss: Option<f64>,
}

/// Progress of a running fit, for progress bars.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneProgress {
    /// Iteration or epoch just completed.
    pub iteration: u64,
    /// The iteration or epoch limit.
    pub limit: u64,
    /// Mean training loss with the penalty.
    pub objective: f64,
    /// Mean held-out loss, when games are held out.
    pub holdout_loss: Option<f64>,
}

/// The outcome of a tuning run.
#[derive(Clone, Debug, Serialize)]
pub struct TuneReport {
    /// The layout's specification.
    pub features: String,
    /// The layout (an engine's own terms have no specification to parse back).
    #[serde(skip)]
    pub layout: crate::features::FeatureLayout,
    /// Column names.
    pub columns: Vec<String>,
    /// Tuned weights in centipawns (design values as documented in `features`).
    pub weights: Vec<f64>,
    /// The starting weights.
    pub start: Vec<f64>,
    /// The prior the ridge pulls toward.
    pub prior: Vec<f64>,
    /// Standard errors in centipawns, where identified.
    pub stderr: Vec<Option<f64>>,
    /// Per column: tuned, frozen or unseen.
    pub status: Vec<ColumnStatus>,
    /// Names of the held sums (tables kept at their starting level).
    pub held: Vec<String>,
    /// Columns the data cannot tell apart from others (no standard error).
    pub not_identified: Vec<String>,
    /// The quasi-binomial dispersion of the standard errors.
    pub dispersion: Option<f64>,
    /// A note on how the standard errors were computed, if not from every position.
    pub stderr_note: Option<String>,
    /// `K`.
    pub k: f64,
    /// Whether `K` was fitted.
    pub k_fitted: bool,
    /// The labels' `K` in the targets and whether it is their own fitted
    /// one, when labels are mixed in.
    pub label_k: Option<(f64, bool)>,
    /// The labels' own `K`, fitted against the results (Texel's method on
    /// the labels alone), whether used or not.
    pub label_k_own: Option<f64>,
    /// How well the labels agree with the results.
    pub label_agreement: Option<LabelAgreement>,
    /// The loss name (`ce` or `mse`).
    pub loss: &'static str,
    /// Training positions and held-out positions.
    pub train_positions: usize,
    /// Held-out positions.
    pub holdout_positions: usize,
    /// Distinct games among the training positions.
    pub train_games: usize,
    /// Positions with an evaluation label.
    pub labelled_positions: usize,
    /// Mean training loss at the start and at the end.
    pub start_loss: f64,
    /// Mean training loss at the end.
    pub train_loss: f64,
    /// Mean held-out loss at the start and at the end.
    pub start_holdout_loss: Option<f64>,
    /// Mean held-out loss at the end.
    pub holdout_loss: Option<f64>,
    /// Iterations (L-BFGS) or epochs (Adam).
    pub iterations: u64,
    /// Passes over the training positions the solver made (line searches
    /// take more than one per iteration).
    pub passes: u64,
    /// Why it stopped.
    pub stopped: StopReason,
    /// The solver's name.
    pub solver: &'static str,
    /// Seconds spent fitting.
    pub seconds: f64,
    /// Memory of the positions in bytes.
    pub memory_bytes: usize,
    /// The losses per iteration.
    pub trace: Vec<TraceRow>,
    /// What the reader should know about the numbers (a holdout split by
    /// position, for positions without game ids).
    pub warnings: Vec<String>,
}

/// Tunes the weights of `positions`' layout.
pub fn tune(positions: Arc<Positions>, config: &TuneConfig, progress: Arc<dyn Fn(&TuneProgress) + Send + Sync>) -> Result<TuneReport, TuneError> {
    let started = Instant::now();
    let layout = positions.layout().clone();
    let columns = layout.len();
    for (what, v) in [("prior", &config.prior), ("starting weights", &config.start)] {
        if v.len() != columns {
            return Err(TuneError::Invalid(format!("the {what} have {} columns, the positions {columns}", v.len())));
        }
    }
    if config.frozen.len() != columns {
        return Err(TuneError::Invalid(format!("{} frozen flags for {columns} columns", config.frozen.len())));
    }
    let threads = crate::thread_count(config.threads);
    let pool = Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(TuneError::Threads)?);

    // Which positions train and which are held out.
    let n = positions.len();
    let holdout: Option<Vec<bool>> = config.holdout.map(|(f, seed)| (0..n).map(|i| scale::held_out(positions.game(i), f, seed)).collect());
    let usable = |i: usize| !(config.exclude_draws && positions.score(i) == 0.5);
    let train: Vec<bool> = (0..n).map(|i| usable(i) && !holdout.as_ref().is_some_and(|h| h[i])).collect();
    let test: Option<Vec<bool>> = holdout.map(|h| (0..n).map(|i| usable(i) && h[i]).collect());
    let mut warnings = Vec::new();
    if config.holdout.is_some() && !positions.games_known() {
        // The dense fitter says the same (crate::fit).
        warnings.push(
            "the input has no game ids: the holdout split positions, not games, so positions of one game fall on both sides (which flatters the held-out loss)"
                .to_string(),
        );
    }
    let train_positions = train.iter().filter(|&&t| t).count();
    // The rows the positions stand for (merged rows count their rows).
    let rows_of = |mask: &[bool]| positions.total_weight(|i| mask[i]).round() as usize;
    if train_positions == 0 {
        let held_out = test.as_ref().map_or(0, |t| t.iter().filter(|&&h| h).count());
        let draws_left_out = (0..n).filter(|&i| !usable(i)).count();
        return Err(TuneError::Empty { read: n, held_out, draws_left_out });
    }
    // Nothing held out: the held-out loss would be 0/0, printed as NaN.
    if let (Some(test), Some((fraction, _))) = (&test, config.holdout)
        && !test.iter().any(|&h| h)
    {
        return Err(TuneError::Invalid(format!(
            "--holdout {fraction}: no game is held out of the {n} positions; give a larger fraction (or leave out --holdout)"
        )));
    }

    // K, fitted on the starting weights against the game results.
    let mut objective = Objective {
        targets: (0..n).map(|i| positions.score(i)).collect(),
        term_columns: Objective::columns_of(&positions),
        positions: positions.clone(),
        loss: config.loss,
        c: 1.0,
        pool: pool.clone(),
    };
    let (k, k_fitted) = match config.k {
        ScaleK::Fixed(k) => (k, false),
        ScaleK::Auto => {
            let weights = objective.entry_weights(&config.start);
            let selected: Vec<usize> = (0..n).filter(|&i| train[i]).collect();
            let q: Vec<f64> = selected.iter().map(|&i| objective.eval(i, &weights)).collect();
            let t: Vec<f64> = selected.iter().map(|&i| f64::from(objective.targets[i])).collect();
            let weights: Option<Vec<f64>> = positions.is_weighted().then(|| selected.iter().map(|&i| positions.weight(i)).collect());
            match scale::fit_k_weighted(&q, &t, weights.as_deref(), config.loss).map_err(TuneError::Solver)? {
                Some(k) => (k, true),
                None => (1.0, false),
            }
        }
    };
    objective.c = scale::c_of_k(k);
    let mut label_k = None;
    let mut label_k_own = None;
    let mut agreement = None;
    if config.eval_weight > 0.0 {
        let labelled: Vec<usize> = (0..n).filter(|&i| train[i] && !positions.eval(i).is_nan()).collect();
        let labels: Vec<f64> = labelled.iter().map(|&i| f64::from(positions.eval(i))).collect();
        let results: Vec<f64> = labelled.iter().map(|&i| f64::from(positions.score(i))).collect();
        let own = scale::fit_k(&labels, &results, SparseLoss::CrossEntropy).map_err(TuneError::Solver)?;
        let (lk, fitted) = match (config.label_k, own) {
            (LabelScale::Model, _) | (LabelScale::Auto, None) => (k, false),
            (LabelScale::Fixed(v), _) => (v, false),
            (LabelScale::Auto, Some(v)) => (v, true),
        };
        label_k = Some((lk, fitted));
        label_k_own = own;
        if !labelled.is_empty() {
            let weights = objective.entry_weights(&config.start);
            let start_q: Vec<f64> = labelled.iter().map(|&i| objective.eval(i, &weights)).collect();
            agreement = Some(LabelAgreement {
                positions: labelled.len(),
                log_loss: scale::log_loss(&labels, &results, scale::c_of_k(own.unwrap_or(lk))),
                start_log_loss: scale::log_loss(&start_q, &results, objective.c),
                accuracy: scale::accuracy(&labels, &results),
            });
        }
        let c = scale::c_of_k(lk);
        objective.targets = (0..n).map(|i| scale::target(positions.score(i), positions.eval(i), config.eval_weight, c)).collect();
    }

    let observed = observed_columns(&positions, &objective, &train, columns);
    let freedom = Freedom::new(&layout, observed, &config.frozen);
    let objective = Arc::new(objective);
    let train = Arc::new(train);
    let test = test.map(Arc::new);
    let mean_loss = |mask: &[bool], w: &[f64]| {
        let s = objective.sums(Selection::Mask(mask), w, false);
        if s.count > 0.0 { s.loss / s.count } else { f64::NAN }
    };
    let start_loss = mean_loss(&train, &config.start);
    let start_holdout_loss = test.as_ref().map(|t| mean_loss(t, &config.start));

    let setup = run::Setup {
        objective: objective.clone(),
        train: train.clone(),
        test: test.clone(),
        freedom: Arc::new(freedom.clone()),
        prior: Arc::new(config.prior.clone()),
        lambda: config.lambda,
        progress,
    };
    let outcome = if freedom.free.iter().any(|&f| f) {
        run::minimise(&setup, config)?
    } else {
        run::Outcome { weights: config.start.clone(), iterations: 0, passes: 0, stopped: StopReason::NothingToTune, trace: Vec::new() }
    };
    let weights = outcome.weights;

    let (stderr, not_identified, dispersion, stderr_note) = if config.standard_errors && config.loss == SparseLoss::CrossEntropy {
        let errors = information::standard_errors(&objective, Some(&train), &weights, &freedom, config.lambda);
        let note = information::sample_note(&errors);
        let names = layout.columns();
        let not_identified = errors.not_identified.iter().map(|&j| names[j].clone()).collect();
        (errors.stderr, not_identified, Some(errors.dispersion), note)
    } else {
        let why = if config.loss == SparseLoss::Mse {
            "no standard errors for the squared-error loss (they belong to the likelihood)"
        } else {
            "standard errors not asked for"
        };
        (vec![None; columns], Vec::new(), None, Some(why.to_string()))
    };
    let status = (0..columns)
        .map(|j| {
            if freedom.free[j] {
                ColumnStatus::Tuned
            } else if !freedom.observed[j] {
                ColumnStatus::Unseen
            } else {
                ColumnStatus::Frozen
            }
        })
        .collect();
    let mut games: Vec<u64> = (0..n).filter(|&i| train[i]).map(|i| positions.game(i)).collect();
    games.dedup();
    games.sort_unstable();
    games.dedup();
    // A merged row (with a count, and no game id) stands for as many rows,
    // each of its own game, as the rows written out one by one would.
    let train_games = if positions.is_weighted() {
        let mut firsts: Vec<(u64, f64)> = (0..n).filter(|&i| train[i]).map(|i| (positions.game(i), positions.weight(i))).collect();
        firsts.sort_by_key(|&(game, _)| game);
        firsts.dedup_by_key(|&mut (game, _)| game);
        firsts.iter().map(|&(_, w)| w).sum::<f64>().round() as usize
    } else {
        games.len()
    };
    let train_loss = mean_loss(&train, &weights);
    Ok(TuneReport {
        features: layout.spec(),
        layout: layout.clone(),
        columns: layout.columns(),
        start: config.start.clone(),
        prior: config.prior.clone(),
        stderr,
        status,
        held: freedom.held.iter().map(|h| h.name.clone()).collect(),
        not_identified,
        dispersion,
        stderr_note,
        k,
        k_fitted,
        label_k,
        label_k_own,
        label_agreement: agreement,
        loss: match config.loss {
            SparseLoss::CrossEntropy => "ce",
            SparseLoss::Mse => "mse",
        },
        train_positions: if positions.is_weighted() { rows_of(&train) } else { train_positions },
        holdout_positions: test.as_ref().map_or(0, |t| if positions.is_weighted() { rows_of(t) } else { t.iter().filter(|&&x| x).count() }),
        train_games,
        labelled_positions: positions.labelled(),
        start_loss,
        train_loss,
        start_holdout_loss,
        holdout_loss: test.as_ref().map(|t| mean_loss(t, &weights)),
        iterations: outcome.iterations,
        passes: outcome.passes,
        stopped: outcome.stopped,
        solver: match config.solver {
            TuneSolver::Lbfgs => "lbfgs",
            TuneSolver::Adam { .. } => "adam",
        },
        seconds: started.elapsed().as_secs_f64(),
        memory_bytes: positions.memory_bytes(),
        trace: outcome.trace,
        weights,
        warnings,
    })
}

/// Which columns occur in the training positions: a tapered term's middlegame
/// column needs a position with phase above 0, its endgame column one below 24.
fn observed_columns(positions: &Positions, objective: &Objective, train: &[bool], columns: usize) -> Vec<bool> {
    let mut observed = vec![false; columns];
    for i in (0..positions.len()).filter(|&i| train[i]) {
        let p = positions.phase(i);
        for &e in positions.entries(i) {
            let (t, _) = unpack(e);
            let (m, g) = objective.term_columns[t];
            if m == g || p > 0 {
                observed[m as usize] = true;
            }
            if m == g || p < 24 {
                observed[g as usize] = true;
            }
        }
    }
    observed
}

/// The mean loss of fixed weights on positions: log-loss, the squared error
/// at `K`, and the accuracy (share of decisive positions whose side the
/// evaluation favours), for `pgntune evaluate`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Evaluation {
    /// Positions evaluated.
    pub positions: usize,
    /// `K` used for the squared error and the log-loss.
    pub k: f64,
    /// Mean cross-entropy against the game results.
    pub log_loss: f64,
    /// Mean squared error of σ against the game results at `K`.
    pub mse: f64,
    /// Share of positions from decisive games whose winner the evaluation favours.
    pub accuracy: f64,
}

/// Evaluates weights `w` (per column, centipawns) on `positions` at `K` (or
/// the best `K` for them when `None`).
pub fn evaluate(positions: Arc<Positions>, w: &[f64], k: Option<f64>, threads: usize) -> Result<Evaluation, TuneError> {
    if positions.is_empty() {
        return Err(TuneError::Empty { read: 0, held_out: 0, draws_left_out: 0 });
    }
    let threads = crate::thread_count(threads);
    let pool = Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(TuneError::Threads)?);
    let objective = Objective {
        targets: (0..positions.len()).map(|i| positions.score(i)).collect(),
        term_columns: Objective::columns_of(&positions),
        positions: positions.clone(),
        loss: SparseLoss::CrossEntropy,
        c: 1.0,
        pool,
    };
    let weights = objective.entry_weights(w);
    let q: Vec<f64> = (0..positions.len()).map(|i| objective.eval(i, &weights)).collect();
    let t: Vec<f64> = objective.targets.iter().map(|&t| f64::from(t)).collect();
    // Positions that stand for several rows (merged counts) count as many.
    let weights: Option<Vec<f64>> = positions.is_weighted().then(|| (0..positions.len()).map(|i| positions.weight(i)).collect());
    let k = match k {
        Some(k) => k,
        None => scale::fit_k_weighted(&q, &t, weights.as_deref(), SparseLoss::CrossEntropy).map_err(TuneError::Solver)?.unwrap_or(1.0),
    };
    let c = scale::c_of_k(k);
    let (mut ll, mut se, mut right, mut decisive, mut n) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for (i, (&q, &t)) in q.iter().zip(&t).enumerate() {
        let rows = positions.weight(i);
        let z = c * q;
        n += rows;
        ll += rows * (crate::fit::model::softplus(z) - t * z);
        se += rows * (crate::fit::model::sigmoid(z) - t).powi(2);
        if t != 0.5 {
            decisive += rows;
            if (q > 0.0 && t == 1.0) || (q < 0.0 && t == 0.0) {
                right += rows;
            } else if q == 0.0 {
                right += 0.5 * rows;
            }
        }
    }
    let positions = if positions.is_weighted() { n.round() as usize } else { q.len() };
    Ok(Evaluation { positions, k, log_loss: ll / n, mse: se / n, accuracy: if decisive > 0.0 { right / decisive } else { f64::NAN } })
}

#[cfg(test)]
mod tests;
