//! Running the solvers: argmin's L-BFGS (Hager-Zhang line search, with
//! More-Thuente as a fallback) and Newton method, and the fixed-step gradient descent of the 2015 article,
//! written as an argmin [`Solver`] because argmin has no fixed-step variant.
//! A trace observer records every iterate for `--trace`.

use std::sync::{Arc, Mutex};

use argmin::core::observers::{Observe, ObserverMode};
use argmin::core::{CostFunction, Error, Executor, Gradient, Hessian, IterState, KV, Problem, Solver, State, TerminationReason, TerminationStatus};
use argmin::solver::linesearch::{HagerZhangLineSearch, MoreThuenteLineSearch};
use argmin::solver::newton::Newton;
use argmin::solver::quasinewton::LBFGS;
use ndarray::Array1;

use super::linalg::SymMatrix;

/// Which optimiser fits the model.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum SolverKind {
    /// Limited-memory BFGS with a Hager-Zhang line search (argmin).
    Lbfgs,
    /// Newton's method with the analytic Hessian (argmin).
    Newton,
    /// Plain fixed-step gradient descent from θ = 0, as in the 2015 article.
    Gd,
}

/// Solver settings.
#[derive(Clone, Debug)]
pub struct SolveConfig {
    /// The optimiser.
    pub kind: SolverKind,
    /// Stop when the gradient's Euclidean norm is below this.
    pub tol: f64,
    /// Iteration limit (the number of steps for `gd`).
    pub max_iters: u64,
    /// Step size of `gd`.
    pub alpha: f64,
    /// Record every iterate.
    pub trace: bool,
}

/// One iterate, for traces.
#[derive(Clone, Debug, PartialEq)]
pub struct TracePoint {
    /// 0 for the starting point.
    pub iteration: u64,
    /// The parameters after this iteration.
    pub param: Array1<f64>,
    /// The cost there.
    pub cost: f64,
}

/// The outcome of a solver run.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The final parameters.
    pub param: Array1<f64>,
    /// The cost there.
    pub cost: f64,
    /// The gradient norm there.
    pub grad_norm: f64,
    /// Iterations taken.
    pub iterations: u64,
    /// Whether the gradient norm fell below the tolerance.
    pub converged: bool,
    /// Why the solver stopped, in words.
    pub stopped: String,
    /// Every iterate, when tracing.
    pub trace: Vec<TracePoint>,
}

/// What the solvers need of a problem.
pub trait Objective:
    CostFunction<Param = Array1<f64>, Output = f64>
    + Gradient<Param = Array1<f64>, Gradient = Array1<f64>>
    + Hessian<Param = Array1<f64>, Hessian = SymMatrix>
    + Clone
    + Send
    + Sync
    + 'static
{
}

impl<T> Objective for T where
    T: CostFunction<Param = Array1<f64>, Output = f64>
        + Gradient<Param = Array1<f64>, Gradient = Array1<f64>>
        + Hessian<Param = Array1<f64>, Hessian = SymMatrix>
        + Clone
        + Send
        + Sync
        + 'static
{
}

fn l2(v: &Array1<f64>) -> f64 {
    v.dot(v).sqrt()
}

/// Cost evaluations allowed within one solver iteration.
/// argmin's More-Thuente line search has no iteration limit of its own and
/// cycles forever once the cost differences it tests fall below the
/// resolution of a double (gradient norms around 1e-9 on these costs); the
/// budget turns that into a line-search failure, which ends the run with
/// the last good parameters.
const EVALUATIONS_PER_ITERATION: u64 = 50;

/// A problem that fails once it has been evaluated too often since the
/// solver's last completed iteration.
#[derive(Debug)]
struct Budgeted<'a, P> {
    inner: &'a P,
    used: Arc<std::sync::atomic::AtomicU64>,
}

impl<P> Budgeted<'_, P> {
    fn spend(&self) -> Result<(), Error> {
        if self.used.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= EVALUATIONS_PER_ITERATION {
            return Err(argmin::core::ArgminError::ConditionViolated { text: "no further progress within double precision".into() }.into());
        }
        Ok(())
    }
}

/// Resets the evaluation budget after every completed iteration.
struct BudgetReset(Arc<std::sync::atomic::AtomicU64>);

impl<I> Observe<I> for BudgetReset {
    fn observe_iter(&mut self, _: &I, _: &KV) -> Result<(), Error> {
        self.0.store(0, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
}

impl<P: Objective> CostFunction for Budgeted<'_, P> {
    type Param = Array1<f64>;
    type Output = f64;

    fn cost(&self, param: &Array1<f64>) -> Result<f64, Error> {
        self.spend()?;
        self.inner.cost(param)
    }
}

impl<P: Objective> Gradient for Budgeted<'_, P> {
    type Param = Array1<f64>;
    type Gradient = Array1<f64>;

    fn gradient(&self, param: &Array1<f64>) -> Result<Array1<f64>, Error> {
        // Only cost evaluations spend the budget: every line-search trial
        // evaluates the cost first, so a stalled search fails inside the line
        // search (which L-BFGS reports as its exit), never in L-BFGS's own
        // gradient evaluation after a successful search.
        self.inner.gradient(param)
    }
}

impl<P: Objective> Hessian for Budgeted<'_, P> {
    type Param = Array1<f64>;
    type Hessian = SymMatrix;

    fn hessian(&self, param: &Array1<f64>) -> Result<SymMatrix, Error> {
        self.inner.hessian(param)
    }
}

/// Minimises `problem` from `start`.
///
/// `lbfgs` uses argmin's L-BFGS with the Hager-Zhang line search, whose
/// approximate Wolfe conditions keep working when cost differences fall
/// below double precision near the optimum (More-Thuente cannot verify a
/// decrease there). Should Hager-Zhang fail, the run continues from the
/// best point with More-Thuente.
pub fn solve<P: Objective>(problem: &P, start: Array1<f64>, config: &SolveConfig) -> Result<Solution, Error> {
    let trace = Arc::new(Mutex::new(Vec::new()));
    let (param, iterations, stopped) = match config.kind {
        SolverKind::Lbfgs => {
            let hager_zhang = LBFGS::new(HagerZhangLineSearch::new(), 10).with_tolerance_grad(config.tol)?.with_tolerance_cost(0.0)?;
            let (param, iterations, stopped) = run(problem, hager_zhang, start.clone(), config, &trace, 0)?;
            let param = param.unwrap_or(start);
            if l2(&problem.gradient(&param)?) < config.tol || iterations >= config.max_iters {
                (Some(param), iterations, stopped)
            } else {
                let more_thuente = LBFGS::new(MoreThuenteLineSearch::new(), 10).with_tolerance_grad(config.tol)?.with_tolerance_cost(0.0)?;
                let rest = SolveConfig { max_iters: config.max_iters - iterations, ..config.clone() };
                let (param, more, stopped) = run(problem, more_thuente, param, &rest, &trace, iterations)?;
                (param, iterations + more, stopped)
            }
        }
        SolverKind::Newton => run(problem, Tracked { inner: Newton::new(), tol: config.tol }, start, config, &trace, 0)?,
        SolverKind::Gd => run(problem, Tracked { inner: FixedStepDescent { alpha: config.alpha }, tol: config.tol }, start, config, &trace, 0)?,
    };
    let param = param.ok_or_else(|| argmin::core::ArgminError::NotInitialized { text: "solver returned no parameters".into() })?;
    let cost = problem.cost(&param)?;
    let grad_norm = l2(&problem.gradient(&param)?);
    let converged = grad_norm < config.tol && cost.is_finite();
    let trace = std::mem::take(&mut *trace.lock().expect("trace lock"));
    Ok(Solution { param, cost, grad_norm, iterations, converged, stopped, trace })
}

/// Runs one argmin executor; returns the final (or best) parameters, the
/// iterations and why it stopped. Trace points are numbered from `offset`.
fn run<P, S, G, H>(
    problem: &P,
    solver: S,
    start: Array1<f64>,
    config: &SolveConfig,
    trace: &Arc<Mutex<Vec<TracePoint>>>,
    offset: u64,
) -> Result<(Option<Array1<f64>>, u64, String), Error>
where
    P: Objective,
    S: for<'a> Solver<Budgeted<'a, P>, IterState<Array1<f64>, G, (), H, (), f64>>,
    G: Clone,
    H: Clone,
    IterState<Array1<f64>, G, (), H, (), f64>: State<Param = Array1<f64>, Float = f64>,
{
    let used = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let budgeted = Budgeted { inner: problem, used: used.clone() };
    let mut exec = Executor::new(budgeted, solver)
        .configure(|s| s.param(start).max_iters(config.max_iters))
        .timer(false)
        .add_observer(BudgetReset(used), ObserverMode::Always);
    if config.trace {
        exec = exec.add_observer(TraceObserver { points: trace.clone(), offset }, ObserverMode::Always);
    }
    let result = exec.run()?;
    let state = result.state();
    Ok((state.get_param().or(state.get_best_param()).cloned(), state.get_iter(), termination_text(state.get_termination_reason())))
}

fn termination_text(reason: Option<&TerminationReason>) -> String {
    match reason {
        Some(TerminationReason::SolverConverged) => "gradient norm below tolerance".into(),
        Some(TerminationReason::MaxItersReached) => "iteration limit reached".into(),
        // argmin ends L-BFGS this way when its line search finds no lower
        // cost: within double precision, the optimum.
        Some(TerminationReason::SolverExit(_)) => "the line search could not lower the cost further within double precision".into(),
        Some(other) => other.text().to_string(),
        None => "stopped".into(),
    }
}

/// Records every iterate.
struct TraceObserver {
    points: Arc<Mutex<Vec<TracePoint>>>,
    /// Iterations done by earlier runs (a restart continues the numbering).
    offset: u64,
}

impl<G, H> Observe<IterState<Array1<f64>, G, (), H, (), f64>> for TraceObserver {
    fn observe_init(&mut self, _: &str, state: &IterState<Array1<f64>, G, (), H, (), f64>, _: &KV) -> Result<(), Error> {
        // A restart's starting point is the previous run's last iterate.
        if self.offset == 0 { self.record(0, state) } else { Ok(()) }
    }

    fn observe_iter(&mut self, state: &IterState<Array1<f64>, G, (), H, (), f64>, _: &KV) -> Result<(), Error> {
        // Observers see the state before its iteration counter is incremented.
        self.record(self.offset + state.get_iter() + 1, state)
    }
}

impl TraceObserver {
    fn record<G, H>(&mut self, iteration: u64, state: &IterState<Array1<f64>, G, (), H, (), f64>) -> Result<(), Error> {
        if let Some(param) = state.get_param() {
            self.points.lock().expect("trace lock").push(TracePoint { iteration, param: param.clone(), cost: state.get_cost() });
        }
        Ok(())
    }
}

/// Fixed-step gradient descent: `θ ← θ − α ∇J(θ)`.
#[derive(Clone, Debug)]
pub struct FixedStepDescent {
    /// The step size α.
    pub alpha: f64,
}

impl<O> Solver<O, IterState<Array1<f64>, Array1<f64>, (), SymMatrix, (), f64>> for FixedStepDescent
where
    O: Gradient<Param = Array1<f64>, Gradient = Array1<f64>>,
{
    fn name(&self) -> &str {
        "fixed-step gradient descent"
    }

    fn next_iter(
        &mut self,
        problem: &mut Problem<O>,
        mut state: IterState<Array1<f64>, Array1<f64>, (), SymMatrix, (), f64>,
    ) -> Result<(IterState<Array1<f64>, Array1<f64>, (), SymMatrix, (), f64>, Option<KV>), Error> {
        let param = state.take_param().expect("Tracked initialises the parameters");
        let gradient = match state.take_gradient() {
            Some(g) => g,
            None => problem.gradient(&param)?,
        };
        Ok((state.param(&param - &(gradient * self.alpha)), None))
    }
}

/// Wraps a solver so that after each step the cost and gradient at the new
/// parameters are known: for traces, and to stop on a gradient-norm
/// tolerance (argmin's Newton method has no stopping rule of its own).
#[derive(Clone, Debug)]
pub struct Tracked<S> {
    inner: S,
    tol: f64,
}

type NewtonState = IterState<Array1<f64>, Array1<f64>, (), SymMatrix, (), f64>;

impl<O, S> Solver<O, NewtonState> for Tracked<S>
where
    O: CostFunction<Param = Array1<f64>, Output = f64> + Gradient<Param = Array1<f64>, Gradient = Array1<f64>>,
    S: Solver<O, NewtonState>,
{
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn init(&mut self, problem: &mut Problem<O>, state: NewtonState) -> Result<(NewtonState, Option<KV>), Error> {
        let param = state.get_param().cloned().expect("start parameters are configured");
        let cost = problem.cost(&param)?;
        let gradient = problem.gradient(&param)?;
        Ok((state.cost(cost).gradient(gradient), None))
    }

    fn next_iter(&mut self, problem: &mut Problem<O>, state: NewtonState) -> Result<(NewtonState, Option<KV>), Error> {
        let before = (state.get_param().cloned(), state.get_cost());
        let (state, kv) = self.inner.next_iter(problem, state)?;
        let param = state.get_param().cloned().expect("the inner solver sets parameters");
        let cost = problem.cost(&param)?;
        let gradient = problem.gradient(&param)?;
        if !cost.is_finite() || gradient.iter().any(|g| !g.is_finite()) {
            // Stop on the last finite iterate, so that the caller reports a
            // diverged run rather than NaN weights.
            let mut state = state.cost(before.1);
            if let Some(p) = before.0 {
                state = state.param(p);
            }
            return Ok((state.terminate_with(TerminationReason::SolverExit("diverged (the cost is no longer finite)".into())), kv));
        }
        Ok((state.cost(cost).gradient(gradient), kv))
    }

    fn terminate(&mut self, state: &NewtonState) -> TerminationStatus {
        match state.get_gradient() {
            Some(g) if l2(g) < self.tol => TerminationStatus::Terminated(TerminationReason::SolverConverged),
            _ => TerminationStatus::NotTerminated,
        }
    }
}
