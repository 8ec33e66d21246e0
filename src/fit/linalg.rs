//! The dense linear algebra of the fitter and the analyses, in one place:
//! Cholesky factorisations of symmetric positive-definite matrices (Hessians,
//! information matrices, covariances), solves and inverses. The arithmetic is
//! faer's; this file turns ndarray matrices into faer's and back, and keeps
//! the rules the callers rely on (a typed error when a matrix is not
//! positive definite, dependent coordinates skipped for standard errors).
//!
//! Matrices here are p × p with p the number of columns, so faer runs
//! single-threaded (`Par::Seq`): the factorisation is cheap next to the
//! pass over the positions that built the matrix, and the results are the
//! same bits whatever the thread count.

use argmin_math::{ArgminDot, ArgminInv};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::{ldlt, llt};
use faer::{Mat, Par};
use ndarray::{Array1, Array2};

/// A symmetric positive-definite matrix: the Hessian type handed to argmin's
/// Newton solver, which needs its inverse and its product with a vector.
#[derive(Clone, Debug, PartialEq)]
pub struct SymMatrix(pub Array2<f64>);

/// The matrix is not positive definite (singular or indefinite).
#[derive(Debug, thiserror::Error)]
#[error("the Hessian is not positive definite (the features may be collinear, or a column is always zero)")]
pub struct NotPositiveDefinite;

/// The Cholesky factorisation `A = L Lᵀ` of a symmetric positive-definite
/// matrix, for solves and the inverse.
#[derive(Clone, Debug)]
pub struct Cholesky {
    /// The lower-triangular factor (zero above the diagonal).
    l: Mat<f64>,
}

impl Cholesky {
    /// Factors `a`, reading its lower triangle. Fails when a pivot is not
    /// positive or not finite: `a` is singular, indefinite or holds NaN.
    pub fn new(a: &Array2<f64>) -> Result<Cholesky, NotPositiveDefinite> {
        assert_eq!(a.nrows(), a.ncols(), "a Cholesky factorisation needs a square matrix");
        factor(lower(a, &(0..a.nrows()).collect::<Vec<_>>())).map_err(|_| NotPositiveDefinite)
    }

    /// The order of the matrix.
    pub fn dim(&self) -> usize {
        self.l.nrows()
    }

    /// `x` with `A x = b`.
    pub fn solve(&self, b: &Array1<f64>) -> Array1<f64> {
        assert_eq!(b.len(), self.dim(), "the right-hand side has the matrix's order");
        let mut x = Mat::from_fn(b.len(), 1, |i, _| b[i]);
        faer::linalg::triangular_solve::solve_lower_triangular_in_place(self.l.as_ref(), x.as_mut(), Par::Seq);
        faer::linalg::triangular_solve::solve_upper_triangular_in_place(self.l.transpose(), x.as_mut(), Par::Seq);
        Array1::from_shape_fn(b.len(), |i| x[(i, 0)])
    }

    /// `A⁻¹`, symmetric.
    pub fn inverse(&self) -> Array2<f64> {
        let n = self.dim();
        let mut inverse = Mat::<f64>::zeros(n, n);
        let mut buffer = MemBuffer::new(llt::inverse::inverse_scratch::<f64>(n, Par::Seq));
        // faer fills the lower triangle; the upper one is its mirror.
        llt::inverse::inverse(inverse.as_mut(), self.l.as_ref(), Par::Seq, MemStack::new(&mut buffer));
        Array2::from_shape_fn((n, n), |(i, j)| if i >= j { inverse[(i, j)] } else { inverse[(j, i)] })
    }
}

/// Factors the lower triangle of `a` (`a`'s upper triangle is zero) in
/// place. `Err(j)`: pivot `j` is not positive or not finite.
fn factor(mut a: Mat<f64>) -> Result<Cholesky, usize> {
    let n = a.nrows();
    let mut buffer = MemBuffer::new(llt::factor::cholesky_in_place_scratch::<f64>(n, Par::Seq, Default::default()));
    match llt::factor::cholesky_in_place(a.as_mut(), Default::default(), Par::Seq, MemStack::new(&mut buffer), Default::default()) {
        Ok(_) => Ok(Cholesky { l: a }),
        Err(llt::factor::LltError::NonPositivePivot { index }) => Err(index),
    }
}

/// The pivots of `a = L D Lᵀ` (the lower triangle of `a`), each one at or
/// below `epsilon` replaced by `delta`. `Err(j)`: pivot `j` is not finite.
fn cut_off_pivots(mut a: Mat<f64>, epsilon: f64, delta: f64) -> Result<Vec<f64>, usize> {
    let n = a.nrows();
    let signs = vec![1i8; n];
    let regularization = ldlt::factor::LdltRegularization {
        dynamic_regularization_signs: Some(&signs),
        dynamic_regularization_delta: delta,
        dynamic_regularization_epsilon: epsilon,
    };
    let mut buffer = MemBuffer::new(ldlt::factor::cholesky_in_place_scratch::<f64>(n, Par::Seq, Default::default()));
    match ldlt::factor::cholesky_in_place(a.as_mut(), regularization, Par::Seq, MemStack::new(&mut buffer), Default::default()) {
        // faer leaves D on the diagonal.
        Ok(_) => Ok((0..n).map(|j| a[(j, j)]).collect()),
        Err(ldlt::factor::LdltError::ZeroPivot { index }) => Err(index),
    }
}

/// The lower triangle of `a` over the coordinates `at`, zero above it.
fn lower(a: &Array2<f64>, at: &[usize]) -> Mat<f64> {
    Mat::from_fn(at.len(), at.len(), |i, j| if i >= j { a[[at[i], at[j]]] } else { 0.0 })
}

/// Inverse of a symmetric positive-definite matrix.
pub fn spd_inverse(a: &Array2<f64>) -> Result<Array2<f64>, NotPositiveDefinite> {
    Ok(Cholesky::new(a)?.inverse())
}

/// For a symmetric positive-semidefinite `a` (an information matrix whose
/// coordinates may be linear combinations of others): the coordinates kept,
/// in order, and the inverse of `a` over them. A coordinate is skipped when
/// its pivot, after the kept coordinates before it, is at most
/// `relative_tolerance` times the largest diagonal entry (or not finite):
/// it is a combination of earlier ones, and the others keep their inverse
/// instead of the whole inverse failing.
pub fn pivoted_inverse(a: &Array2<f64>, relative_tolerance: f64) -> (Vec<usize>, Array2<f64>) {
    let m = a.nrows();
    let max_diag = (0..m).map(|i| a[[i, i]]).fold(0.0f64, f64::max);
    if !(max_diag > 0.0 && max_diag.is_finite()) {
        return (Vec::new(), Array2::zeros((0, 0)));
    }
    let tolerance = max_diag * relative_tolerance;
    // An LDLᵀ factorisation in which faer replaces each pivot at or below
    // `tolerance` by `delta`, far above any true pivot (each is at most its
    // diagonal entry, so at most max_diag): the column of L under it is
    // divided by delta, so it adds at most max_diag·1e-200 to the pivots
    // after it: they are the pivots of the matrix without that coordinate,
    // as if it had been skipped. The replaced pivots are the
    // ones equal to delta; the kept coordinates are then factored again
    // without any, for their inverse.
    let delta = max_diag * 1e200;
    let mut kept: Vec<usize> = (0..m).collect();
    loop {
        // Each turn either returns or drops a coordinate.
        match cut_off_pivots(lower(a, &kept), tolerance, delta) {
            // Not finite (NaN): skipped like a vanishing pivot.
            Err(j) => {
                kept.remove(j);
            }
            Ok(pivots) if pivots.contains(&delta) => {
                kept = kept.iter().zip(&pivots).filter(|&(_, &d)| d != delta).map(|(&j, _)| j).collect();
            }
            Ok(_) => match factor(lower(a, &kept)) {
                Ok(cholesky) => return (kept, cholesky.inverse()),
                // Rounding cannot take a pivot above the tolerance to zero,
                // but should it, that coordinate goes too.
                Err(j) => {
                    kept.remove(j);
                }
            },
        }
    }
}

impl ArgminInv<SymMatrix> for SymMatrix {
    fn inv(&self) -> Result<SymMatrix, argmin_math::Error> {
        Ok(SymMatrix(spd_inverse(&self.0)?))
    }
}

impl ArgminDot<Array1<f64>, Array1<f64>> for SymMatrix {
    fn dot(&self, other: &Array1<f64>) -> Array1<f64> {
        self.0.dot(other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn close(a: &Array2<f64>, b: &Array2<f64>, tolerance: f64) -> bool {
        a.shape() == b.shape() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tolerance)
    }

    #[test]
    fn inverse_and_solve_of_spd_matrix() {
        let a = array![[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]];
        let inv = spd_inverse(&a).unwrap();
        assert!(close(&a.dot(&inv), &Array2::eye(3), 1e-12));
        assert_eq!(inv, inv.t());
        let b = array![1.0, -2.0, 0.5];
        let x = Cholesky::new(&a).unwrap().solve(&b);
        assert!((a.dot(&x) - &b).iter().all(|r| r.abs() < 1e-12), "{x}");
        // Only the lower triangle is read.
        let mut lower = a.clone();
        lower[[0, 2]] = f64::NAN;
        assert!(close(&spd_inverse(&lower).unwrap(), &inv, 0.0));
    }

    #[test]
    fn matrices_that_are_not_positive_definite_are_refused() {
        assert!(spd_inverse(&array![[1.0, 2.0], [2.0, 1.0]]).is_err());
        assert!(spd_inverse(&array![[1.0, 1.0], [1.0, 1.0]]).is_err());
        assert!(spd_inverse(&array![[1.0, 0.0], [f64::NAN, 1.0]]).is_err());
        assert!(spd_inverse(&array![[f64::INFINITY]]).is_err());
        assert_eq!(spd_inverse(&Array2::zeros((0, 0))).unwrap().shape(), [0, 0]);
    }

    #[test]
    fn pivoted_inverse_skips_dependent_coordinates() {
        // x2 = x0 + x1: the third coordinate is dropped.
        let a = array![[2.0, 1.0, 3.0], [1.0, 2.0, 3.0], [3.0, 3.0, 6.0]];
        let (kept, inv) = pivoted_inverse(&a, 1e-11);
        assert_eq!(kept, [0, 1]);
        assert!(close(&inv, &(array![[2.0, -1.0], [-1.0, 2.0]] / 3.0), 1e-12));
        // A zero column, a repeated one and a NaN one go; the rest keep the
        // inverse of their own block.
        let a = array![
            [4.0, 0.0, 1.0, 4.0, 0.5, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 3.0, 1.0, 0.2, 0.0],
            [4.0, 0.0, 1.0, 4.0, 0.5, 0.0],
            [0.5, 0.0, 0.2, 0.5, 2.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, f64::NAN],
        ];
        let (kept, inv) = pivoted_inverse(&a, 1e-11);
        assert_eq!(kept, [0, 2, 4]);
        let own = spd_inverse(&array![[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]).unwrap();
        assert!(close(&inv, &own, 1e-15), "{inv}");
        assert!(pivoted_inverse(&Array2::zeros((3, 3)), 1e-11).0.is_empty());
    }

    #[test]
    fn factors_larger_than_faer_blocks_agree_with_the_definition() {
        // An information-like matrix of 150 columns: Σ w x xᵀ over rows.
        let (p, rows) = (150, 600);
        let mut a = Array2::<f64>::eye(p) * 1e-3;
        for r in 0..rows {
            let x: Vec<f64> = (0..p).map(|j| (((r * 31 + j * 17) % 23) as f64 - 11.0) / 7.0).collect();
            for i in 0..p {
                for j in 0..p {
                    a[[i, j]] += x[i] * x[j] / rows as f64;
                }
            }
        }
        let inv = spd_inverse(&a).unwrap();
        assert!(close(&a.dot(&inv), &Array2::eye(p), 1e-9));
        let (kept, pivoted) = pivoted_inverse(&a, 1e-11);
        assert_eq!(kept, (0..p).collect::<Vec<_>>());
        assert!(close(&pivoted, &inv, 1e-9));
    }
}
