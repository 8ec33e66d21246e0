//! The covariance of fitted weights, for intervals of their linear
//! combinations (a knight with six pawns is a material weight plus six
//! times a slope) and for Wald tests: the model's, and one clustered by
//! game.
//!
//! The tuner reports standard errors, not the covariance between weights,
//! and these layouts are small (a few dozen columns), so the information is
//! accumulated here densely, at the tuner's weights:
//!
//! * the Fisher information `A = c² Σ σ(1−σ) x xᵀ` over the rows used, and
//!   the model's covariance `φ A⁻¹`, with `φ = 1` for win/loss targets and
//!   the quasi-binomial Pearson dispersion `Σ (t−σ)²/(σ(1−σ)) / (n − p)`
//!   when draws count as half points (as R's `quasibinomial` estimates it,
//!   and the tuner too: the standard errors agree, see the tests);
//! * the sandwich clustered by game, `G/(G−1) · A⁻¹ B A⁻¹` with
//!   `B = c² Σ_g u_g u_gᵀ`, `u_g = Σ_{i ∈ g} (t_i − σ_i) x_i`: every row of a
//!   game shares its result, so the rows are not independent and the model's
//!   errors are too small. The clustered errors need no dispersion.

use std::collections::HashMap;

use ndarray::{Array1, Array2};

use crate::dataset::positions::Positions;
use crate::fit::linalg::{Cholesky, NotPositiveDefinite, spd_inverse};
use crate::fit::model::sigmoid;

/// Both covariances of the weights of some columns.
#[derive(Clone, Debug)]
pub struct Covariances {
    /// The model's covariance, over the layout's columns (zero outside the
    /// columns it was computed for).
    pub model: Array2<f64>,
    /// The covariance clustered by game, likewise.
    pub clustered: Array2<f64>,
    /// The dispersion in `model` (1 for win/loss targets).
    pub dispersion: f64,
}

/// The covariances of the weights `w` (centipawns, at `c = K·ln10/400`) of
/// the layout's `columns`, over the rows `used` of `positions`.
pub fn covariances(positions: &Positions, used: &[bool], w: &[f64], c: f64, columns: &[usize]) -> Result<Covariances, NotPositiveDefinite> {
    let all = positions.layout().len();
    let p = columns.len();
    let mut x = vec![0.0; all];
    let mut local = vec![0.0; p];
    let mut information = vec![0.0; p * p];
    let mut pearson = 0.0;
    let mut binary = true;
    let mut rows = 0usize;
    // Per game, the sum of its rows' scores; games in order of appearance.
    let mut game_index: HashMap<u64, usize> = HashMap::new();
    let mut scores: Vec<f64> = Vec::new();
    for i in (0..positions.len()).filter(|&i| used[i]) {
        positions.dense_row(i, &mut x);
        let z = c * x.iter().zip(w).map(|(a, b)| a * b).sum::<f64>();
        let s = sigmoid(z);
        let weight = (s * (1.0 - s)).max(1e-300);
        let t = f64::from(positions.score(i));
        binary &= t == 0.0 || t == 1.0;
        pearson += (t - s) * (t - s) / weight;
        rows += 1;
        for (l, &j) in local.iter_mut().zip(columns) {
            *l = x[j];
        }
        for a in 0..p {
            if local[a] == 0.0 {
                continue;
            }
            let wa = weight * local[a];
            for b in a..p {
                information[a * p + b] += wa * local[b];
            }
        }
        let next = game_index.len();
        let g = *game_index.entry(positions.game(i)).or_insert(next);
        if g == scores.len() / p.max(1) {
            scores.extend(std::iter::repeat_n(0.0, p));
        }
        for (u, &l) in scores[g * p..(g + 1) * p].iter_mut().zip(&local) {
            *u += (t - s) * l;
        }
    }
    let games = game_index.len();
    let mut a = Array2::<f64>::zeros((p, p));
    for r in 0..p {
        for s in r..p {
            a[[r, s]] = c * c * information[r * p + s];
            a[[s, r]] = a[[r, s]];
        }
    }
    let inverse = spd_inverse(&a)?;
    let mut meat = Array2::<f64>::zeros((p, p));
    for u in scores.chunks_exact(p.max(1)) {
        for r in 0..p {
            for s in 0..p {
                meat[[r, s]] += c * c * u[r] * u[s];
            }
        }
    }
    let correction = if games > 1 { games as f64 / (games as f64 - 1.0) } else { f64::NAN };
    let clustered_local = inverse.dot(&meat).dot(&inverse) * correction;
    let dispersion = if binary || rows <= p { 1.0 } else { pearson / (rows - p) as f64 };
    let mut model = Array2::<f64>::zeros((all, all));
    let mut clustered = Array2::<f64>::zeros((all, all));
    for (r, &jr) in columns.iter().enumerate() {
        for (s, &js) in columns.iter().enumerate() {
            model[[jr, js]] = dispersion * inverse[[r, s]];
            clustered[[jr, js]] = clustered_local[[r, s]];
        }
    }
    Ok(Covariances { model, clustered, dispersion })
}

/// The variance of `a · w` under the covariance `v`.
pub fn variance(a: &[f64], v: &Array2<f64>) -> f64 {
    let mut total = 0.0;
    for (r, &ar) in a.iter().enumerate() {
        if ar == 0.0 {
            continue;
        }
        for (s, &as_) in a.iter().enumerate() {
            total += ar * v[[r, s]] * as_;
        }
    }
    total
}

/// The Wald statistic `βᵀ V⁻¹ β` of the weights `w` of `columns` under the
/// covariance `v` (zero weights under the null hypothesis).
pub fn wald(w: &[f64], v: &Array2<f64>, columns: &[usize]) -> Result<f64, NotPositiveDefinite> {
    let k = columns.len();
    let mut sub = Array2::<f64>::zeros((k, k));
    for (r, &jr) in columns.iter().enumerate() {
        for (s, &js) in columns.iter().enumerate() {
            sub[[r, s]] = v[[jr, js]];
        }
    }
    let beta: Array1<f64> = columns.iter().map(|&j| w[j]).collect();
    Ok(beta.dot(&Cholesky::new(&sub)?.solve(&beta)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variance_and_wald_of_a_diagonal_covariance() {
        let v = Array2::from_shape_vec((3, 3), vec![4.0, 0.0, 0.0, 0.0, 9.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
        // Var(w0 + 2 w1) = 4 + 4·9.
        assert_eq!(variance(&[1.0, 2.0, 0.0], &v), 40.0);
        // (2/2)² + (3/3)² over columns 0 and 1.
        assert!((wald(&[2.0, 3.0, 5.0], &v, &[0, 1]).unwrap() - 2.0).abs() < 1e-12);
        // A correlated pair: Var(w0 − w1) = 2 + 2 − 2·1.5.
        let v = Array2::from_shape_vec((2, 2), vec![2.0, 1.5, 1.5, 2.0]).unwrap();
        assert!((variance(&[1.0, -1.0], &v) - 1.0).abs() < 1e-12);
    }
}
