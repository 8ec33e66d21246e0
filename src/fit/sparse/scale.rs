//! Texel's scaling constant `K`, training targets and held-out games.
//!
//! `K` converts centipawns to a win probability: `P = 1 / (1 + 10^(−K·q/400))`,
//! i.e. `σ(c·q)` with `c = K · ln 10 / 400`. Tuners fit it once, on the
//! starting weights, before tuning, and then keep it fixed: with free
//! weights only the product `c·w` matters, but a prior in centipawns, an
//! evaluation label in centipawns and the reported values all need `K`.

use std::str::FromStr;

use argmin::core::{CostFunction, Error, Executor};
use argmin::solver::brent::BrentOpt;

use super::problem::SparseLoss;
use crate::fit::model::{sigmoid, softplus};

/// The largest `K` a fit or an evaluation takes. Texel's K is about 1 for
/// centipawns (`P = 1/(1+10^(-K·cp/400))`); 10,000 already makes a one
/// centipawn edge a near certainty, and beyond it the loss overflows.
pub const MAX_K: f64 = 10_000.0;

/// The smallest `K` a fit or an evaluation takes: at 0.0001 a position a
/// queen and a rook up (1,400 cp) is scored 50.08%, every prediction a coin
/// flip, and the gradient too small for a fit to move the weights at all.
pub const MIN_K: f64 = 0.0001;

/// How to choose `K`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ScaleK {
    /// Fit it on the starting weights (Texel's method).
    Auto,
    /// Use this value.
    Fixed(f64),
}

/// A `K` that is neither `auto` nor a number from [`MIN_K`] to [`MAX_K`].
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("must be 'auto' or a number from {} to {}", MIN_K, MAX_K)]
pub struct BadScaleK;

/// `auto`, or a number from [`MIN_K`] to [`MAX_K`], as `--k` takes it
/// (surrounding spaces are ignored).
impl FromStr for ScaleK {
    type Err = BadScaleK;

    fn from_str(text: &str) -> Result<ScaleK, BadScaleK> {
        match text.trim() {
            "auto" => Ok(ScaleK::Auto),
            number => match number.parse::<f64>() {
                Ok(k) if (MIN_K..=MAX_K).contains(&k) => Ok(ScaleK::Fixed(k)),
                _ => Err(BadScaleK),
            },
        }
    }
}

/// `c` for a given `K`.
pub fn c_of_k(k: f64) -> f64 {
    k * std::f64::consts::LN_10 / 400.0
}

/// The loss of evaluations `q` (centipawns) against `targets` at scale `c`,
/// each counted `weights` times (once without).
fn mean_loss(q: &[f64], targets: &[f64], weights: Option<&[f64]>, c: f64, loss: SparseLoss) -> f64 {
    let one = |q: f64, t: f64| {
        let z = c * q;
        match loss {
            SparseLoss::CrossEntropy => softplus(z) - t * z,
            SparseLoss::Mse => (sigmoid(z) - t).powi(2),
        }
    };
    match weights {
        None => q.iter().zip(targets).map(|(&q, &t)| one(q, t)).sum::<f64>() / q.len().max(1) as f64,
        Some(w) => {
            let total: f64 = q.iter().zip(targets).zip(w).map(|((&q, &t), &w)| w * one(q, t)).sum();
            total / w.iter().sum::<f64>().max(f64::MIN_POSITIVE)
        }
    }
}

struct KProblem<'a> {
    q: &'a [f64],
    targets: &'a [f64],
    weights: Option<&'a [f64]>,
    loss: SparseLoss,
}

impl CostFunction for KProblem<'_> {
    type Param = f64;
    type Output = f64;

    fn cost(&self, k: &f64) -> Result<f64, Error> {
        Ok(mean_loss(self.q, self.targets, self.weights, c_of_k(*k), self.loss))
    }
}

/// Mean log-loss of evaluations `q` against `results` at scale `c`.
pub fn log_loss(q: &[f64], results: &[f64], c: f64) -> f64 {
    mean_loss(q, results, None, c, SparseLoss::CrossEntropy)
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

/// The usual interval for `K`: from a hundredth of the usual scale to ten
/// times it. A best `K` at one of its ends is looked for further out, up
/// to [`MIN_K`] and [`MAX_K`], the range `--k` accepts.
pub const K_RANGE: (f64, f64) = (0.01, 10.0);

/// The loss as a function of `ln K`: the search beyond [`K_RANGE`] spans
/// orders of magnitude, which Brent's method on `K` itself would step
/// through at one scale only.
struct LogKProblem<'a>(KProblem<'a>);

impl CostFunction for LogKProblem<'_> {
    type Param = f64;
    type Output = f64;

    fn cost(&self, log_k: &f64) -> Result<f64, Error> {
        self.0.cost(&log_k.exp())
    }
}

/// The `K` that minimises the loss of fixed evaluations `q` (Brent's method,
/// argmin), or `None` when every evaluation is zero (no scale to fit). The
/// result lies in `MIN_K..=MAX_K`.
pub fn fit_k(q: &[f64], targets: &[f64], loss: SparseLoss) -> Result<Option<f64>, Error> {
    fit_k_weighted(q, targets, None, loss)
}

/// [`fit_k`] with each evaluation counted `weights` times (positions that
/// stand for several rows).
pub fn fit_k_weighted(q: &[f64], targets: &[f64], weights: Option<&[f64]>, loss: SparseLoss) -> Result<Option<f64>, Error> {
    if q.iter().all(|&v| v == 0.0) {
        return Ok(None);
    }
    let problem = KProblem { q, targets, weights, loss };
    let solver = BrentOpt::new(K_RANGE.0, K_RANGE.1).set_tolerance(1e-10, 1e-12);
    let result = Executor::new(problem, solver).configure(|s| s.max_iters(200)).timer(false).run()?;
    let Some(k) = result.state().best_param else { return Ok(None) };
    // At an end of the usual interval (Brent's method stops within its
    // tolerance of it): the best K may lie beyond, up to the range --k takes.
    let at = |end: f64| (k - end).abs() <= 1e-6 * end;
    let beyond = if at(K_RANGE.0) {
        (MIN_K, K_RANGE.0)
    } else if at(K_RANGE.1) {
        (K_RANGE.1, MAX_K)
    } else {
        return Ok(Some(k));
    };
    let problem = LogKProblem(KProblem { q, targets, weights, loss });
    let solver = BrentOpt::new(beyond.0.ln(), beyond.1.ln()).set_tolerance(1e-10, 1e-12);
    let outer = Executor::new(problem, solver).configure(|s| s.max_iters(200)).timer(false).run()?;
    let Some(log_k) = outer.state().best_param else { return Ok(Some(k)) };
    let further = log_k.exp().clamp(MIN_K, MAX_K);
    let cost = |k: f64| mean_loss(q, targets, weights, c_of_k(k), loss);
    Ok(Some(if cost(further) < cost(k) { further } else { k }))
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

    #[test]
    fn k_from_text() {
        assert_eq!(" auto ".parse::<ScaleK>(), Ok(ScaleK::Auto));
        assert_eq!("1.5".parse::<ScaleK>(), Ok(ScaleK::Fixed(1.5)));
        for bad in ["-1", "0", "10001", "NaN", "fixed", ""] {
            assert_eq!(bad.parse::<ScaleK>(), Err(BadScaleK), "{bad}");
        }
        assert_eq!(BadScaleK.to_string(), "must be 'auto' or a number from 0.0001 to 10000");
    }
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
