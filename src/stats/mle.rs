//! Maximum-likelihood multinomial distributions under a constraint, the core
//! of the generalised SPRT (M. Van den Bergh, "Comments on normalized Elo"
//! and "Support for MLE multinomial", as fishtest's `LLRcalc.py` and
//! fastchess's `sprt.cpp` compute them).
//!
//! The data are an empirical distribution `p̂` over bucket scores `aᵢ` (a
//! game's 0, ½, 1 or a pair's 0, ¼, …, 1). For a constraint of the form
//! `Σ pᵢ φᵢ = 0`, Lagrange multipliers give the likelihood maximiser
//! `pᵢ = p̂ᵢ / (1 + θ φᵢ)`, where θ solves the *secular equation*
//! `Σ p̂ᵢ φᵢ / (1 + θ φᵢ) = 0`. Any solution sums to 1 by itself:
//! `Σ pᵢ = Σ p̂ᵢ − θ Σ p̂ᵢ φᵢ/(1 + θ φᵢ) = 1`.
//!
//! * Expected score `s` (logistic Elo): `φᵢ = aᵢ − s`, solved once.
//! * t-value `(μ − ref)/σ = t` (normalised Elo): not linear in `p`, so it is
//!   linearised around the current estimate — `φᵢ = aᵢ − ref − t·σ·(1 +
//!   ((aᵢ − μ)/σ)²)/2` with μ, σ those of the current estimate — and the
//!   step is repeated from the uniform distribution until it stops moving.
//!
//! The fits return `None` instead of panicking when the equation has no root
//! (all `φᵢ` of one sign) or the t-value iteration ends without meeting its
//! constraint.

/// Iterations of the t-value linearisation at most; fishtest stops after 10.
const MAX_T_VALUE_STEPS: usize = 100;
/// The t-value iteration has settled when no probability moves by more than
/// this (fishtest: 1e-9, fastchess: 1e-4). The LLR multiplies fit errors by
/// the number of pairs, so it pays to settle far below fishtest's value.
const T_VALUE_TOLERANCE: f64 = 1e-14;
/// How far the fitted t-value may be from the target (fishtest checks 1e-5).
const T_VALUE_CONSTRAINT_TOLERANCE: f64 = 1e-6;
/// Bisection steps; each halves the bracket, and 400 reach full precision
/// even for a root 1e-60 of the bracket away from a pole.
const MAX_BISECTIONS: usize = 400;

/// The denominators `dᵢ = 1 + θ φᵢ` at the θ with `Σ wᵢ φᵢ / dᵢ = 0` and
/// every `dᵢ > 0`.
///
/// The left side falls strictly from +∞ to −∞ across the open interval
/// `(−1/max φ, −1/min φ)`, so the root is unique and bisection finds it
/// without a starting guess. Needs positive weights and φ of both signs.
///
/// θ is not bisected directly: near-degenerate samples put the root so
/// close to a pole that `1 + θφᵢ` would lose most of its digits to
/// cancellation. Instead θ is measured from the nearer pole, `θ = −1/φ_max + x`
/// or `θ = −1/φ_min − x`, and `dᵢ = (1 − φᵢ/φ_pole) ± x φᵢ` keeps full
/// relative precision (the pole's own `dᵢ` is exactly `±x φᵢ`).
fn secular_denominators<const N: usize>(weights: &[f64; N], phi: &[f64; N]) -> Option<[f64; N]> {
    let min_phi = phi.iter().copied().fold(f64::INFINITY, f64::min);
    let max_phi = phi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(min_phi < 0.0 && max_phi > 0.0) {
        return None;
    }
    let secular = |d: &[f64; N]| -> f64 { (0..N).map(|i| weights[i] * phi[i] / d[i]).sum() };
    let from_left = |x: f64| -> [f64; N] { std::array::from_fn(|i| (1.0 - phi[i] / max_phi) + x * phi[i]) };
    let from_right = |x: f64| -> [f64; N] { std::array::from_fn(|i| (1.0 - phi[i] / min_phi) - x * phi[i]) };
    let half_width = (1.0 / max_phi - 1.0 / min_phi) / 2.0;
    let root_in_left_half = secular(&from_left(half_width)) <= 0.0;
    let denominators = |x: f64| {
        if root_in_left_half { from_left(x) } else { from_right(x) }
    };
    // Oriented so that it is +∞ at the pole (x → 0) and falls with x.
    let falling = |x: f64| {
        let value = secular(&denominators(x));
        if root_in_left_half { value } else { -value }
    };
    let (mut low, mut high) = (0.0, half_width);
    for _ in 0..MAX_BISECTIONS {
        let middle = low + (high - low) / 2.0;
        if middle <= low || middle >= high || high - low <= 2.0 * f64::EPSILON * high {
            break;
        }
        let value = falling(middle);
        if value > 0.0 {
            low = middle;
        } else if value < 0.0 {
            high = middle;
        } else {
            low = middle;
            high = middle;
        }
    }
    let d = denominators(low + (high - low) / 2.0);
    d.iter().all(|&di| di > 0.0).then_some(d)
}

/// `p̂ᵢ / (1 + θ φᵢ)` for the θ that solves the secular equation.
fn reweight<const N: usize>(empirical: &[f64; N], phi: &[f64; N]) -> Option<[f64; N]> {
    let d = secular_denominators(empirical, phi)?;
    Some(std::array::from_fn(|i| empirical[i] / d[i]))
}

/// Mean and variance of the scores under the probabilities.
pub(super) fn mean_variance(scores: &[f64], probabilities: &[f64]) -> (f64, f64) {
    let mean: f64 = scores.iter().zip(probabilities).map(|(a, p)| a * p).sum();
    let variance = scores.iter().zip(probabilities).map(|(a, p)| p * (a - mean).powi(2)).sum();
    (mean, variance)
}

/// The most likely distribution (given `empirical`) whose expected score is
/// `s`. Needs `s` strictly between the lowest and the highest score.
pub(super) fn mle_with_expectation<const N: usize>(scores: &[f64; N], empirical: &[f64; N], s: f64) -> Option<[f64; N]> {
    let phi = scores.map(|a| a - s);
    reweight(empirical, &phi)
}

/// The most likely distribution (given `empirical`) whose t-value
/// `(μ − reference)/σ` is `t`.
pub(super) fn mle_with_t_value<const N: usize>(scores: &[f64; N], empirical: &[f64; N], reference: f64, t: f64) -> Option<[f64; N]> {
    let mut estimate = [1.0 / N as f64; N];
    for _ in 0..MAX_T_VALUE_STEPS {
        let (mean, variance) = mean_variance(scores, &estimate);
        let sigma = variance.sqrt();
        let phi = scores.map(|a| a - reference - t * sigma * (1.0 + ((a - mean) / sigma).powi(2)) / 2.0);
        let next = reweight(empirical, &phi)?;
        let moved = next.iter().zip(&estimate).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
        estimate = next;
        if moved < T_VALUE_TOLERANCE {
            break;
        }
    }
    // Settled or not, the estimate is only good if it meets the constraint.
    let (mean, variance) = mean_variance(scores, &estimate);
    let meets_constraint = ((mean - reference) / variance.sqrt() - t).abs() < T_VALUE_CONSTRAINT_TOLERANCE;
    meets_constraint.then_some(estimate)
}

/// `Σ p̂ᵢ (ln p1ᵢ − ln p0ᵢ)`: the log-likelihood ratio per sample of two
/// fitted distributions.
pub(super) fn llr_per_sample(empirical: &[f64], p0: &[f64], p1: &[f64]) -> f64 {
    empirical.iter().zip(p0.iter().zip(p1)).map(|(e, (a, b))| e * (b.ln() - a.ln())).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

    fn empirical(counts: [f64; 5]) -> [f64; 5] {
        let total: f64 = counts.iter().sum();
        counts.map(|c| c / total)
    }

    #[test]
    fn secular_root_is_inside_and_exact() {
        let weights = [0.2, 0.3, 0.5];
        for phi in [[-0.4, 0.1, 0.6], [-0.6, -0.1, 0.4], [-1e-3, 0.0, 2.0]] {
            let d = secular_denominators(&weights, &phi).unwrap();
            assert!(d.iter().all(|&di| di > 0.0));
            let residual: f64 = (0..3).map(|i| weights[i] * phi[i] / d[i]).sum();
            assert!(residual.abs() < 1e-13, "{residual} for {phi:?}");
            // All dᵢ belong to one θ.
            let theta = (d[2] - 1.0) / phi[2];
            assert!((1.0 + theta * phi[0] - d[0]).abs() < 1e-12);
        }
    }

    #[test]
    fn secular_root_next_to_a_pole_keeps_its_digits() {
        // A 1e-3 prior on a bucket whose fitted probability must be ~0.4:
        // its denominator is ~1e-8 and must still be exact to many digits.
        let weights = [4.2e-9, 1.0 - 4.2e-9];
        let phi = [-0.5, 0.3];
        let d = secular_denominators(&weights, &phi).unwrap();
        let residual = weights[0] * phi[0] / d[0] + weights[1] * phi[1] / d[1];
        assert!(residual.abs() < 1e-14, "{residual}");
        let p0 = weights[0] / d[0];
        assert!((p0 + weights[1] / d[1] - 1.0).abs() < 1e-14);
        assert!((p0 - 0.375).abs() < 1e-6, "{p0}");
    }

    #[test]
    fn secular_without_a_sign_change_has_no_root() {
        assert_eq!(secular_denominators(&[0.5, 0.5], &[0.1, 0.2]), None);
        assert_eq!(secular_denominators(&[0.5, 0.5], &[-0.1, 0.0]), None);
        assert_eq!(secular_denominators(&[0.5, 0.5], &[f64::NAN, 0.1]), None);
    }

    #[test]
    fn expectation_constraint_holds() {
        let p_hat = empirical([34.0, 54.0, 63.0, 64.0, 75.0]);
        for s in [0.3, 0.5, 0.57, 0.9] {
            let p = mle_with_expectation(&PAIR_SCORES, &p_hat, s).unwrap();
            let (mean, _) = mean_variance(&PAIR_SCORES, &p);
            assert!((mean - s).abs() < 1e-12, "mean {mean} for s {s}");
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        // The empirical mean is its own maximum-likelihood fit.
        let (mean, _) = mean_variance(&PAIR_SCORES, &p_hat);
        let p = mle_with_expectation(&PAIR_SCORES, &p_hat, mean).unwrap();
        assert!(p.iter().zip(&p_hat).all(|(a, b)| (a - b).abs() < 1e-12));
    }

    #[test]
    fn t_value_constraint_holds() {
        let p_hat = empirical([379.0, 10170.0, 21828.0, 10640.0, 343.0]);
        for t in [-0.1, 0.0, 0.008, 0.05] {
            let p = mle_with_t_value(&PAIR_SCORES, &p_hat, 0.5, t).unwrap();
            let (mean, variance) = mean_variance(&PAIR_SCORES, &p);
            assert!(((mean - 0.5) / variance.sqrt() - t).abs() < 1e-10);
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }
}
