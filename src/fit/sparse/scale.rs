//! Texel's scaling constant `K`, training targets and held-out games.
//!
//! `K` converts centipawns to a win probability: `P = 1 / (1 + 10^(−K·q/400))`,
//! i.e. `σ(c·q)` with `c = K · ln 10 / 400`. Tuners fit it once, on the
//! starting weights, before tuning, and then keep it fixed: with free
//! weights only the product `c·w` matters, but a prior in centipawns, an
//! evaluation label in centipawns and the reported values all need `K`.

use argmin::core::{CostFunction, Error, Executor};
use argmin::solver::brent::BrentOpt;

use super::problem::SparseLoss;
use crate::fit::model::{sigmoid, softplus};

/// `c` for a given `K`.
pub fn c_of_k(k: f64) -> f64 {
    k * std::f64::consts::LN_10 / 400.0
}

/// The loss of evaluations `q` (centipawns) against `targets` at scale `c`.
fn mean_loss(q: &[f64], targets: &[f64], c: f64, loss: SparseLoss) -> f64 {
    let total: f64 = q
        .iter()
        .zip(targets)
        .map(|(&q, &t)| {
            let z = c * q;
            match loss {
                SparseLoss::CrossEntropy => softplus(z) - t * z,
                SparseLoss::Mse => (sigmoid(z) - t).powi(2),
            }
        })
        .sum();
    total / q.len().max(1) as f64
}

struct KProblem<'a> {
    q: &'a [f64],
    targets: &'a [f64],
    loss: SparseLoss,
}

impl CostFunction for KProblem<'_> {
    type Param = f64;
    type Output = f64;

    fn cost(&self, k: &f64) -> Result<f64, Error> {
        Ok(mean_loss(self.q, self.targets, c_of_k(*k), self.loss))
    }
}

/// Mean log-loss of evaluations `q` against `results` at scale `c`.
pub fn log_loss(q: &[f64], results: &[f64], c: f64) -> f64 {
    mean_loss(q, results, c, SparseLoss::CrossEntropy)
}

/// Share of positions of decisive games (result 0 or 1) whose winner the
/// evaluation favours (a zero evaluation counts half); `None` without any.
pub fn accuracy(q: &[f64], results: &[f64]) -> Option<f64> {
    let (mut right, mut decisive) = (0.0, 0usize);
    for (&q, &t) in q.iter().zip(results) {
        if t == 0.5 {
            continue;
        }
        decisive += 1;
        if (q > 0.0 && t == 1.0) || (q < 0.0 && t == 0.0) {
            right += 1.0;
        } else if q == 0.0 {
            right += 0.5;
        }
    }
    (decisive > 0).then(|| right / decisive as f64)
}

/// The search interval for `K`: from a hundredth of the usual scale to ten times it.
pub const K_RANGE: (f64, f64) = (0.01, 10.0);

/// The `K` that minimises the loss of fixed evaluations `q` (Brent's method,
/// argmin), or `None` when every evaluation is zero (no scale to fit).
pub fn fit_k(q: &[f64], targets: &[f64], loss: SparseLoss) -> Result<Option<f64>, Error> {
    if q.iter().all(|&v| v == 0.0) {
        return Ok(None);
    }
    let problem = KProblem { q, targets, loss };
    let solver = BrentOpt::new(K_RANGE.0, K_RANGE.1).set_tolerance(1e-10, 1e-12);
    let result = Executor::new(problem, solver).configure(|s| s.max_iters(200)).timer(false).run()?;
    Ok(result.state().best_param)
}

/// Whether game `game` is held out, for a held-out fraction and seed: a
/// hash of the game's id, so that the split is the same whatever the order
/// or thread count, and whole games go one way.
pub fn held_out(game: u64, fraction: f64, seed: u64) -> bool {
    // splitmix64 of the id and the seed.
    let mut z = game.wrapping_add(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    ((z >> 11) as f64) / ((1u64 << 53) as f64) < fraction
}

/// The training target of a position: its game's score, mixed with its
/// evaluation label when it has one: `W·σ(c·eval) + (1 − W)·score`.
pub fn target(score: f32, eval: f32, eval_weight: f64, c: f64) -> f32 {
    if eval.is_nan() || eval_weight == 0.0 {
        return score;
    }
    (eval_weight * sigmoid(c * f64::from(eval)) + (1.0 - eval_weight) * f64::from(score)) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn a_planted_k_is_recovered() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let planted = 1.3;
        let c = c_of_k(planted);
        let q: Vec<f64> = (0..200_000).map(|_| rng.random_range(-600.0..600.0)).collect();
        let targets: Vec<f64> = q.iter().map(|&q| if rng.random::<f64>() < sigmoid(c * q) { 1.0 } else { 0.0 }).collect();
        let k = fit_k(&q, &targets, SparseLoss::CrossEntropy).unwrap().unwrap();
        assert!((k - planted).abs() < 0.03, "{k}");
        let k = fit_k(&q, &targets, SparseLoss::Mse).unwrap().unwrap();
        assert!((k - planted).abs() < 0.05, "{k}");
        assert_eq!(fit_k(&[0.0; 10], &[1.0; 10], SparseLoss::Mse).unwrap(), None);
    }

    #[test]
    fn held_out_games_are_a_stable_fraction() {
        let n = (0..100_000u64).filter(|&g| held_out(g, 0.2, 1)).count();
        assert!((n as f64 / 100_000.0 - 0.2).abs() < 0.01, "{n}");
        assert_ne!((0..64u64).map(|g| held_out(g, 0.5, 1)).collect::<Vec<_>>(), (0..64u64).map(|g| held_out(g, 0.5, 2)).collect::<Vec<_>>());
        assert!(!held_out(5, 0.0, 9));
    }

    #[test]
    fn targets_mix_evaluations_in() {
        assert_eq!(target(1.0, f32::NAN, 0.5, 0.01), 1.0);
        assert_eq!(target(1.0, 0.0, 0.5, 0.01), 0.75);
        assert_eq!(target(0.0, 123.0, 0.0, 0.01), 0.0);
    }
}
