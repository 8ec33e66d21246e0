//! The small dense linear algebra the fitter needs: inverting a symmetric
//! positive-definite Hessian (Cholesky). Matrices here are p × p with p the
//! number of features, so a plain O(p³) factorisation is the right tool and
//! no BLAS/LAPACK is needed (argmin-math's ndarray backend without linalg).

use argmin_math::{ArgminDot, ArgminInv};
use ndarray::{Array1, Array2};

/// A symmetric positive-definite matrix: the Hessian type handed to argmin's
/// Newton solver, which needs its inverse and its product with a vector.
#[derive(Clone, Debug, PartialEq)]
pub struct SymMatrix(pub Array2<f64>);

/// The matrix is not positive definite (singular or indefinite).
#[derive(Debug, thiserror::Error)]
#[error("the Hessian is not positive definite (the features may be collinear, or a column is always zero)")]
pub struct NotPositiveDefinite;

/// Lower-triangular Cholesky factor `L` with `A = L Lᵀ`.
pub fn cholesky(a: &Array2<f64>) -> Result<Array2<f64>, NotPositiveDefinite> {
    let n = a.nrows();
    let mut l = Array2::<f64>::zeros((n, n));
    for j in 0..n {
        let mut d = a[[j, j]];
        for k in 0..j {
            d -= l[[j, k]] * l[[j, k]];
        }
        if !d.is_finite() || d <= 0.0 {
            return Err(NotPositiveDefinite);
        }
        let d = d.sqrt();
        l[[j, j]] = d;
        for i in j + 1..n {
            let mut s = a[[i, j]];
            for k in 0..j {
                s -= l[[i, k]] * l[[j, k]];
            }
            l[[i, j]] = s / d;
        }
    }
    Ok(l)
}

/// Inverse of a symmetric positive-definite matrix.
pub fn spd_inverse(a: &Array2<f64>) -> Result<Array2<f64>, NotPositiveDefinite> {
    let n = a.nrows();
    let l = cholesky(a)?;
    // Solve L Lᵀ X = I column by column.
    let mut inv = Array2::<f64>::zeros((n, n));
    let mut y = vec![0.0; n];
    for c in 0..n {
        for i in 0..n {
            let mut s = if i == c { 1.0 } else { 0.0 };
            for k in 0..i {
                s -= l[[i, k]] * y[k];
            }
            y[i] = s / l[[i, i]];
        }
        for i in (0..n).rev() {
            let mut s = y[i];
            for k in i + 1..n {
                s -= l[[k, i]] * inv[[k, c]];
            }
            inv[[i, c]] = s / l[[i, i]];
        }
    }
    Ok(inv)
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

    #[test]
    fn inverse_of_spd_matrix() {
        let a = array![[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]];
        let inv = spd_inverse(&a).unwrap();
        let id = a.dot(&inv);
        for i in 0..3 {
            for j in 0..3 {
                assert!((id[[i, j]] - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12);
            }
        }
        assert!(spd_inverse(&array![[1.0, 2.0], [2.0, 1.0]]).is_err());
        assert!(spd_inverse(&array![[1.0, 1.0], [1.0, 1.0]]).is_err());
    }
}
