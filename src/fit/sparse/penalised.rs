//! The argmin problem of the whole-evaluation tuner: penalised mean
//! training loss over the free weights, with its gradient projected onto
//! the tuner's freedom. Both optimisers ([`super::adam`] and L-BFGS in
//! [`super::run`]) solve it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use argmin::core::{CostFunction, Error, Gradient};
use ndarray::Array1;

use super::constraints::Freedom;
use super::problem::{Objective, Selection};

/// Cost evaluations allowed within one L-BFGS iteration before the line
/// search counts as stalled (see `fit::solve` for why argmin needs this).
const EVALUATIONS_PER_ITERATION: u64 = 40;

/// The argmin problem: penalised mean training loss over the free weights.
#[derive(Clone)]
pub struct TuneProblem {
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
    /// The problem over `objective`'s `train` positions, with `penalty` per
    /// squared centipawn away from `prior`, in solver units `unit`;
    /// `evaluations` counts cost evaluations (the caller resets it every
    /// iteration).
    pub fn new(
        objective: &Arc<Objective>,
        train: &Arc<Vec<bool>>,
        freedom: &Arc<Freedom>,
        prior: &Arc<Vec<f64>>,
        penalty: f64,
        unit: Arc<Vec<f64>>,
        evaluations: Arc<AtomicU64>,
    ) -> TuneProblem {
        TuneProblem {
            objective: objective.clone(),
            train: train.clone(),
            freedom: freedom.clone(),
            prior: prior.clone(),
            penalty,
            unit,
            cache: Arc::new(Mutex::new(None)),
            evaluations,
            passes: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Passes over the training positions so far.
    pub fn passes(&self) -> u64 {
        self.passes.load(Ordering::Relaxed)
    }

    pub fn penalty_of(&self, w: &[f64]) -> f64 {
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
    pub fn full(&self, param: &[f64]) -> (f64, Vec<f64>) {
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

    /// The training positions' objective.
    pub fn objective(&self) -> &Objective {
        &self.objective
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
