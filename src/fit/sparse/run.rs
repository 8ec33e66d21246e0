//! Running the optimisers on the tuning objective: the argmin problem
//! (penalised mean loss, projected gradient), L-BFGS and Adam through one
//! argmin executor, and the observers that report progress and keep the
//! trace.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use argmin::core::observers::{Observe, ObserverMode};
use argmin::core::{CostFunction, Error, Executor, Gradient, IterState, KV, State, TerminationReason};
use argmin::solver::linesearch::{HagerZhangLineSearch, MoreThuenteLineSearch};
use argmin::solver::quasinewton::LBFGS;
use ndarray::Array1;

use super::adam::Adam;
use super::constraints::Freedom;
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

/// Cost evaluations allowed within one L-BFGS iteration before the line
/// search counts as stalled (see `fit::solve` for why argmin needs this).
const EVALUATIONS_PER_ITERATION: u64 = 40;

/// The argmin problem: penalised mean training loss over the free weights.
#[derive(Clone)]
pub(super) struct TuneProblem {
    objective: Arc<Objective>,
    train: Arc<Vec<bool>>,
    freedom: Arc<Freedom>,
    prior: Arc<Vec<f64>>,
    /// `λ c²`: the penalty per squared centipawn.
    penalty: f64,
    /// The solver's parameters are `unit ⊙ w`. For L-BFGS, `unit_j` is the
    /// square root of column `j`'s diagonal of the information at the start:
    /// a rarely seen PST square and a piece value then have curvatures of
    /// the same size, and L-BFGS needs a fraction of the iterations it
    /// needs on centipawns (the problem's conditioning improves by orders
    /// of magnitude). Adam works on centipawns (`unit = 1`), where its step
    /// size is meant.
    unit: Arc<Vec<f64>>,
    /// The last (weights, cost, gradient): L-BFGS asks for the cost and the
    /// gradient of the same point one after the other; one pass gives both.
    cache: Arc<Mutex<Option<CostAndGradient>>>,
    evaluations: Arc<AtomicU64>,
    /// Passes over the training positions (cost and gradient together).
    passes: Arc<AtomicU64>,
}

/// Weights with the cost and the gradient there.
type CostAndGradient = (Vec<f64>, f64, Vec<f64>);

impl TuneProblem {
    fn penalty_of(&self, w: &[f64]) -> f64 {
        let mut sum = 0.0;
        for (j, (&w, &p)) in w.iter().zip(self.prior.iter()).enumerate() {
            if self.freedom.free[j] {
                sum += (w - p) * (w - p);
            }
        }
        self.penalty * sum
    }

    /// Mean loss plus penalty, and its gradient in centipawns (not yet
    /// projected), over `selection`.
    fn raw(&self, w: &[f64], selection: Selection) -> (f64, Vec<f64>) {
        let sums = self.objective.sums(selection, w, true);
        let n = sums.count.max(1.0);
        let mut g = self.objective.column_gradient(&sums, w.len());
        for (j, g) in g.iter_mut().enumerate() {
            *g = *g / n + 2.0 * self.penalty * (w[j] - self.prior[j]);
        }
        (sums.loss / n + self.penalty_of(w), g)
    }

    /// Mean loss plus penalty, and its gradient in centipawns projected onto
    /// the tuner's freedom, over `selection` (Adam's mini-batches).
    pub fn evaluate(&self, w: &[f64], selection: Selection) -> (f64, Vec<f64>) {
        let (cost, mut g) = self.raw(w, selection);
        self.freedom.project(&mut g);
        (cost, g)
    }

    /// Cost and gradient over the training positions at solver parameters `param`.
    fn full(&self, param: &[f64]) -> (f64, Vec<f64>) {
        let mut cache = self.cache.lock().expect("cache lock");
        if let Some((cw, cost, g)) = cache.as_ref()
            && cw.as_slice() == param
        {
            return (*cost, g.clone());
        }
        let w = self.weights_of(param);
        self.passes.fetch_add(1, Ordering::Relaxed);
        let (cost, mut g) = self.raw(&w, Selection::Mask(&self.train));
        // The chain rule, then the projection in the solver's own scale (a
        // held sum Σ w_j = Σ p_j / unit_j is a weighted sum of parameters).
        for (v, u) in g.iter_mut().zip(self.unit.iter()) {
            *v /= u;
        }
        self.freedom.project_scaled(&mut g, &self.unit);
        *cache = Some((param.to_vec(), cost, g.clone()));
        (cost, g)
    }

    /// Solver parameters to centipawns.
    pub fn weights_of(&self, param: &[f64]) -> Vec<f64> {
        param.iter().zip(self.unit.iter()).map(|(p, u)| p / u).collect()
    }

    pub fn freedom(&self) -> &Freedom {
        &self.freedom
    }

    pub fn train(&self) -> &[bool] {
        &self.train
    }
}

impl CostFunction for TuneProblem {
    type Param = Array1<f64>;
    type Output = f64;

    fn cost(&self, w: &Array1<f64>) -> Result<f64, Error> {
        if self.evaluations.fetch_add(1, Ordering::Relaxed) >= EVALUATIONS_PER_ITERATION {
            return Err(argmin::core::ArgminError::ConditionViolated { text: "no further progress within double precision".into() }.into());
        }
        Ok(self.full(w.as_slice().expect("contiguous")).0)
    }
}

impl Gradient for TuneProblem {
    type Param = Array1<f64>;
    type Gradient = Array1<f64>;

    fn gradient(&self, w: &Array1<f64>) -> Result<Array1<f64>, Error> {
        Ok(Array1::from(self.full(w.as_slice().expect("contiguous")).1))
    }
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
            let s = self.problem.objective.sums(Selection::Mask(t), w, false);
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
    let problem = TuneProblem {
        objective: setup.objective.clone(),
        train: setup.train.clone(),
        freedom: setup.freedom.clone(),
        prior: setup.prior.clone(),
        penalty: setup.lambda * c * c,
        unit: unit.clone(),
        cache: Arc::new(Mutex::new(None)),
        evaluations: evaluations.clone(),
        passes: Arc::new(AtomicU64::new(0)),
    };
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
    let passes = problem.passes.load(Ordering::Relaxed);
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
