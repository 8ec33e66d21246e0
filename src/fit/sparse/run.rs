//! Running the optimisers on the tuning objective (the argmin problem of
//! [`super::penalised`]): L-BFGS and Adam through one argmin executor, and
//! the observers that report progress and keep the trace.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use argmin::core::observers::{Observe, ObserverMode};
use argmin::core::{Error, Executor, IterState, KV, State, TerminationReason};
use argmin::solver::linesearch::{HagerZhangLineSearch, MoreThuenteLineSearch};
use argmin::solver::quasinewton::LBFGS;
use ndarray::Array1;

use super::adam::Adam;
use super::constraints::Freedom;
use super::penalised::TuneProblem;
use super::problem::{Objective, Selection};
use super::{StopReason, TraceRow, TuneConfig, TuneError, TuneProgress, TuneSolver};

/// What every run shares.
pub(super) struct Setup {
    pub objective: Arc<Objective>,
    pub train: Arc<Vec<bool>>,
    pub test: Option<Arc<Vec<bool>>>,
    pub freedom: Arc<Freedom>,
    pub prior: Arc<Vec<f64>>,
    pub lambda: f64,
    pub progress: Arc<dyn Fn(&TuneProgress) + Send + Sync>,
}

/// The result of a run.
pub(super) struct Outcome {
    pub weights: Vec<f64>,
    pub iterations: u64,
    pub passes: u64,
    pub stopped: StopReason,
    pub trace: Vec<TraceRow>,
}

/// Reports every iteration: progress callback, trace row, budget reset.
#[derive(Clone)]
struct Reporter {
    /// Iterations done by an earlier phase (L-BFGS's finishing phase counts on).
    offset: u64,
    problem: TuneProblem,
    test: Option<Arc<Vec<bool>>>,
    limit: u64,
    progress: Arc<dyn Fn(&TuneProgress) + Send + Sync>,
    trace: Arc<Mutex<Vec<TraceRow>>>,
    evaluations: Arc<AtomicU64>,
}

impl Reporter {
    fn record(&self, iteration: u64, param: &[f64], objective: f64) {
        let w = &self.problem.weights_of(param);
        let holdout_loss = self.test.as_ref().map(|t| {
            let s = self.problem.objective().sums(Selection::Mask(t), w, false);
            s.loss / s.count.max(1.0)
        });
        // The state's cost is the penalised training loss at w.
        let train_loss = objective - self.problem.penalty_of(w);
        self.trace.lock().expect("trace lock").push(TraceRow { iteration, train_loss, holdout_loss });
        (self.progress)(&TuneProgress { iteration, limit: self.limit, objective, holdout_loss });
    }
}

impl<G, H> Observe<IterState<Array1<f64>, G, (), H, (), f64>> for Reporter {
    fn observe_init(&mut self, _: &str, state: &IterState<Array1<f64>, G, (), H, (), f64>, _: &KV) -> Result<(), Error> {
        // A finishing phase starts where the first one stopped: recorded already.
        if let (Some(w), 0) = (state.get_param(), self.offset) {
            self.record(0, w.as_slice().expect("contiguous"), state.get_cost());
        }
        Ok(())
    }

    fn observe_iter(&mut self, state: &IterState<Array1<f64>, G, (), H, (), f64>, _: &KV) -> Result<(), Error> {
        self.evaluations.store(0, Ordering::Relaxed);
        if let Some(w) = state.get_param() {
            self.record(self.offset + state.get_iter() + 1, w.as_slice().expect("contiguous"), state.get_cost());
        }
        Ok(())
    }
}

/// One L-BFGS run with line search `$search` from `$start`: the best
/// parameters, the iterations done and why it stopped. (A macro, because
/// the line-search problem type L-BFGS requires of `$search` is private
/// to argmin and cannot be named in a generic bound.)
macro_rules! lbfgs {
    ($problem:expr, $search:expr, $start:expr, $iters:expr, $config:expr, $reporter:expr) => {{
        // The tolerance applies to the preconditioned gradient, whose
        // coordinates all have unit curvature. Also stop once an iteration
        // improves the mean loss by less than cost_tol: on millions of
        // positions the last digits of the gradient are noise, and chasing
        // them costs hundreds of passes for changes in the ninth decimal.
        let solver = LBFGS::new($search, 10)
            .with_tolerance_grad($config.tol)
            .and_then(|s| s.with_tolerance_cost($config.cost_tol))
            .map_err(TuneError::Solver)?;
        let start: Array1<f64> = $start;
        let result = Executor::new($problem.clone(), solver)
            .configure(|s| s.param(start.clone()).max_iters($iters))
            .timer(false)
            .add_observer($reporter, ObserverMode::Always)
            .run()
            .map_err(TuneError::Solver)?;
        let state = result.state();
        // The last parameters, where the gradient test was made (the "best"
        // by cost can be an earlier point whose cost differs in the 16th digit).
        let w = state.get_param().or(state.get_best_param()).cloned().unwrap_or(start);
        (w, state.get_iter(), state.get_termination_reason().cloned())
    }};
}

/// Minimises the objective with the configured solver.
pub(super) fn minimise(setup: &Setup, config: &TuneConfig) -> Result<Outcome, TuneError> {
    let c = setup.objective.c;
    let evaluations = Arc::new(AtomicU64::new(0));
    let unit = match config.solver {
        TuneSolver::Lbfgs => diagonal_scale(&setup.objective, &setup.train, &config.start, &setup.freedom, setup.lambda),
        TuneSolver::Adam { .. } => vec![1.0; config.start.len()],
    };
    let unit = Arc::new(unit);
    let problem =
        TuneProblem::new(&setup.objective, &setup.train, &setup.freedom, &setup.prior, setup.lambda * c * c, unit.clone(), evaluations.clone());
    let trace = Arc::new(Mutex::new(Vec::new()));
    let limit = match config.solver {
        TuneSolver::Lbfgs => config.max_iters,
        TuneSolver::Adam { epochs, .. } => epochs,
    };
    let reporter = Reporter {
        offset: 0,
        problem: problem.clone(),
        test: setup.test.clone(),
        limit,
        progress: setup.progress.clone(),
        trace: trace.clone(),
        evaluations,
    };
    let start = Array1::from(config.start.iter().zip(unit.iter()).map(|(w, u)| w * u).collect::<Vec<f64>>());
    let (weights, iterations, reason) = match config.solver {
        TuneSolver::Lbfgs => {
            // Two phases. More–Thuené's line search accepts L-BFGS's unit
            // step almost always (about one pass over the positions per
            // iteration), but its interval arithmetic stalls some 1e-8 short
            // of the optimum; Hager–Zhang's approximate Wolfe conditions are
            // made for that last stretch, at three or four passes per
            // iteration. So the first does the bulk and the second finishes
            // when the gradient tolerance asks for more.
            let (w, iters, reason) = lbfgs!(problem, MoreThuenteLineSearch::new(), start, config.max_iters, config, reporter.clone());
            let (_, g) = problem.full(w.as_slice().expect("contiguous"));
            let norm = g.iter().map(|v| v * v).sum::<f64>().sqrt();
            let stalled = matches!(&reason, Some(TerminationReason::SolverExit(_))) || matches!(reason, Some(TerminationReason::SolverConverged));
            if stalled && norm >= config.tol && iters < config.max_iters {
                let finish = Reporter { offset: iters, ..reporter };
                let (w, more, reason) = lbfgs!(problem, HagerZhangLineSearch::new(), w, config.max_iters - iters, config, finish);
                (w, iters + more, reason)
            } else {
                (w, iters, reason)
            }
        }
        TuneSolver::Adam { epochs, batch, lr } => {
            let adam = Adam::new(lr, batch, config.seed);
            let result = Executor::new(problem.clone(), adam)
                .configure(|s| s.param(start.clone()).max_iters(epochs))
                .timer(false)
                .add_observer(reporter, ObserverMode::Always)
                .run()
                .map_err(TuneError::Solver)?;
            let state = result.state();
            let w = state.get_param().cloned().unwrap_or(start);
            (w, state.get_iter(), state.get_termination_reason().cloned())
        }
    };
    let stopped = match reason {
        Some(TerminationReason::MaxItersReached) => StopReason::IterationLimit,
        Some(TerminationReason::SolverConverged) => {
            let (_, g) = problem.full(weights.as_slice().expect("contiguous"));
            let norm = g.iter().map(|v| v * v).sum::<f64>().sqrt();
            if norm < config.tol { StopReason::Converged } else { StopReason::LossSettled }
        }
        _ => StopReason::NoProgress,
    };
    let trace = std::mem::take(&mut *trace.lock().expect("trace lock"));
    let passes = problem.passes();
    Ok(Outcome { weights: problem.weights_of(weights.as_slice().expect("contiguous")), iterations, passes, stopped, trace })
}

/// The preconditioner: per column, the square root of the diagonal of the
/// mean Fisher information (plus the ridge) at `w`; 1 for fixed columns and
/// columns the data never touches.
fn diagonal_scale(objective: &Objective, train: &[bool], w: &[f64], freedom: &Freedom, lambda: f64) -> Vec<f64> {
    let diagonal = objective.information_diagonal(Selection::Mask(train), w);
    let ridge = 2.0 * lambda * objective.c * objective.c;
    diagonal
        .iter()
        .enumerate()
        .map(|(j, &d)| {
            let d = d + ridge;
            if freedom.free[j] && d > 0.0 && d.is_finite() { d.sqrt() } else { 1.0 }
        })
        .collect()
}
