//! Adam (Kingma and Ba, 2015) over mini-batches, as an argmin [`Solver`]:
//! argmin has no stochastic first-order method, and Adam is what engine
//! tuners use on tens of millions of positions.
//!
//! One argmin iteration is one epoch: the training positions are put in a
//! seeded random order (a new one every epoch), cut into batches, and each
//! batch's projected gradient makes one Adam step. The step size follows a
//! cosine from `lr` down to 0 over the epochs, so that the last epochs
//! settle on the optimum instead of circling it at the distance of one
//! step (mini-batch noise and Adam's normalised steps never shrink by
//! themselves). Adam scales each weight's
//! step by its own history, which would move the held sums of
//! [`super::constraints`]; every step is therefore moved back onto them.

use argmin::core::{CostFunction, Error, IterState, KV, Problem, Solver, State};
use ndarray::Array1;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::penalised::TuneProblem;
use super::problem::Selection;

/// The solver state argmin keeps.
pub type AdamState = IterState<Array1<f64>, Array1<f64>, (), (), (), f64>;

/// Adam's settings and moments.
#[derive(Clone, Debug)]
pub struct Adam {
    lr: f64,
    batch: usize,
    seed: u64,
    beta1: f64,
    beta2: f64,
    epsilon: f64,
    m: Vec<f64>,
    v: Vec<f64>,
    steps: i32,
    epochs: u64,
    order: Vec<u32>,
}

impl Adam {
    /// Adam with step size `lr` (centipawns), `batch` positions per step and
    /// a seed for the batch order; β₁ = 0.9, β₂ = 0.999, ε = 1e-8.
    pub fn new(lr: f64, batch: usize, seed: u64) -> Adam {
        Adam {
            lr,
            batch: batch.max(1),
            seed,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            m: Vec::new(),
            v: Vec::new(),
            steps: 0,
            epochs: 1,
            order: Vec::new(),
        }
    }
}

impl Solver<TuneProblem, AdamState> for Adam {
    fn name(&self) -> &str {
        "Adam"
    }

    fn init(&mut self, problem: &mut Problem<TuneProblem>, state: AdamState) -> Result<(AdamState, Option<KV>), Error> {
        let w = state.get_param().cloned().expect("start parameters are configured");
        let p = problem.problem.as_ref().expect("problem");
        self.m = vec![0.0; w.len()];
        self.v = vec![0.0; w.len()];
        self.order = p.train().iter().enumerate().filter(|&(_, &t)| t).map(|(i, _)| i as u32).collect();
        self.epochs = state.get_max_iters().max(1);
        let cost = problem.cost(&w)?;
        Ok((state.cost(cost), None))
    }

    fn next_iter(&mut self, problem: &mut Problem<TuneProblem>, mut state: AdamState) -> Result<(AdamState, Option<KV>), Error> {
        let mut w = state.take_param().expect("parameters").to_vec();
        let reference = w.clone();
        let p = problem.problem.as_ref().expect("problem");
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(self.seed ^ state.get_iter().wrapping_mul(0x9E37_79B9_7F4A_7C15));
        self.order.shuffle(&mut rng);
        let batches = self.order.len().div_ceil(self.batch).max(1);
        for (b, batch) in self.order.chunks(self.batch).enumerate() {
            // Cosine annealing over the whole run, step by step.
            let progress = (state.get_iter() as f64 + b as f64 / batches as f64) / self.epochs as f64;
            let lr = self.lr * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos());
            let (_, g) = p.evaluate(&w, Selection::List(batch));
            self.steps += 1;
            let (b1, b2) = (self.beta1, self.beta2);
            let correction1 = 1.0 - b1.powi(self.steps);
            let correction2 = 1.0 - b2.powi(self.steps);
            for j in 0..w.len() {
                if g[j] == 0.0 && self.m[j] == 0.0 {
                    continue;
                }
                self.m[j] = b1 * self.m[j] + (1.0 - b1) * g[j];
                self.v[j] = b2 * self.v[j] + (1.0 - b2) * g[j] * g[j];
                let m_hat = self.m[j] / correction1;
                let v_hat = self.v[j] / correction2;
                w[j] -= lr * m_hat / (v_hat.sqrt() + self.epsilon);
            }
            p.freedom().restore_sums(&mut w, &reference);
        }
        let w = Array1::from(w);
        // A full pass for the epoch's training loss, for progress and traces.
        let cost = p.cost(&w)?;
        Ok((state.param(w).cost(cost), None))
    }
}
