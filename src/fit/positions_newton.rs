//! Newton's method (argmin's, through [`super::solve`]) for small logistic
//! models over training positions: the analyses' fits of a few dozen
//! columns (`analyze --imbalance` and its likelihood-ratio tests).
//!
//! The whole-evaluation tuner's L-BFGS needs about a thousand iterations on
//! such a model when its columns are strongly correlated (the imbalance
//! products with material: R's `glm` needed 14 s where L-BFGS took 320 s).
//! Newton's method, which is what `glm`'s IRLS is, takes a handful: each
//! iteration is one pass over the positions that sums the loss, the gradient
//! and the dense Hessian `Σ n σ(1−σ) c² x xᵀ` of the free columns together.
//! The rows are summed in fixed chunks, the chunk sums added in order: the
//! same bits at any thread count.

use std::sync::{Arc, Mutex};

use argmin::core::{CostFunction, Error, Gradient, Hessian};
use ndarray::{Array1, Array2};
use rayon::prelude::*;

use super::linalg::SymMatrix;
use super::model::{sigmoid, softplus};
use super::solve::{SolveConfig, SolverKind, solve};
use crate::dataset::positions::Positions;

/// Rows per chunk of a pass.
const CHUNK: usize = 8192;

/// A logistic model of some of a layout's columns over some of the
/// positions, the other columns held at fixed values.
#[derive(Clone)]
pub struct PositionsLogit {
    positions: Arc<Positions>,
    /// The rows in the fit.
    rows: Arc<Vec<usize>>,
    /// `c = K·ln 10 / 400`: weights are centipawns.
    c: f64,
    /// Every column's weight; the free ones are replaced by the parameters.
    fixed: Arc<Vec<f64>>,
    /// The free columns, in parameter order.
    free: Arc<Vec<usize>>,
    /// The rows' total weight (merged rows count as many).
    total: f64,
    pool: Arc<rayon::ThreadPool>,
    /// The last pass: its parameters and sums (cost, gradient and Hessian
    /// are asked for one after the other at the same point).
    last: LastPass,
}

/// The parameters of the last pass and its sums.
type LastPass = Arc<Mutex<Option<(Array1<f64>, Sums)>>>;

/// The mean loss, gradient and Hessian of the free columns at one point.
#[derive(Clone, Debug)]
struct Sums {
    loss: f64,
    gradient: Array1<f64>,
    hessian: Array2<f64>,
}

/// What a Newton fit found.
#[derive(Clone, Debug)]
pub struct NewtonFit {
    /// Every column's weight (centipawns): the free ones fitted.
    pub weights: Vec<f64>,
    /// The mean loss (cross-entropy) over the rows at those weights.
    pub mean_loss: f64,
    /// Newton iterations taken.
    pub iterations: u64,
    /// Whether the gradient norm fell below the tolerance.
    pub converged: bool,
}

impl PositionsLogit {
    /// The model of the `free` columns over the positions `rows`, the other
    /// columns at `start`'s values (which are also where the free ones start).
    pub fn new(positions: Arc<Positions>, rows: Vec<usize>, c: f64, start: Vec<f64>, free: Vec<usize>, threads: usize) -> PositionsLogit {
        let total = rows.iter().map(|&i| positions.weight(i)).sum();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(crate::thread_count(threads)).build().expect("a thread pool");
        PositionsLogit {
            positions,
            rows: Arc::new(rows),
            c,
            fixed: Arc::new(start),
            free: Arc::new(free),
            total,
            pool: Arc::new(pool),
            last: Arc::new(Mutex::new(None)),
        }
    }

    /// Fits the free columns by Newton's method: at most `max_iters`
    /// iterations, stopping when the gradient's norm is below `tol`.
    pub fn fit(&self, tol: f64, max_iters: u64) -> Result<NewtonFit, Error> {
        let start: Array1<f64> = self.free.iter().map(|&j| self.fixed[j]).collect();
        let config = SolveConfig { kind: SolverKind::Newton, tol, max_iters, alpha: 0.0, trace: false };
        let solution = solve(self, start, &config)?;
        Ok(NewtonFit {
            weights: self.weights(&solution.param),
            mean_loss: solution.cost,
            iterations: solution.iterations,
            converged: solution.converged,
        })
    }

    /// Every column's weight with the free ones at `param`.
    fn weights(&self, param: &Array1<f64>) -> Vec<f64> {
        let mut w = self.fixed.to_vec();
        for (&j, &v) in self.free.iter().zip(param) {
            w[j] = v;
        }
        w
    }

    /// The sums at `param`, from the last pass when it was at the same point.
    fn sums(&self, param: &Array1<f64>) -> Sums {
        let mut last = self.last.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((at, sums)) = last.as_ref()
            && at == param
        {
            return sums.clone();
        }
        let sums = self.pass(param);
        *last = Some((param.clone(), sums.clone()));
        sums
    }

    fn pass(&self, param: &Array1<f64>) -> Sums {
        let w = self.weights(param);
        let (k, all) = (self.free.len(), self.positions.layout().len());
        let chunks: Vec<&[usize]> = self.rows.chunks(CHUNK).collect();
        let partial: Vec<(f64, Vec<f64>, Vec<f64>)> = self.pool.install(|| {
            chunks
                .par_iter()
                .map(|rows| {
                    let (mut loss, mut gradient, mut hessian) = (0.0, vec![0.0; k], vec![0.0; k * k]);
                    let (mut x, mut local) = (vec![0.0; all], vec![0.0; k]);
                    for &i in rows.iter() {
                        self.positions.dense_row(i, &mut x);
                        let z = self.c * x.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>();
                        let (s, t, n) = (sigmoid(z), f64::from(self.positions.score(i)), self.positions.weight(i));
                        loss += n * (softplus(z) - t * z);
                        for (l, &j) in local.iter_mut().zip(self.free.iter()) {
                            *l = x[j];
                        }
                        let (dz, curvature) = (n * (s - t) * self.c, n * s * (1.0 - s) * self.c * self.c);
                        for a in 0..k {
                            if local[a] == 0.0 {
                                continue;
                            }
                            gradient[a] += dz * local[a];
                            let ca = curvature * local[a];
                            for b in a..k {
                                hessian[a * k + b] += ca * local[b];
                            }
                        }
                    }
                    (loss, gradient, hessian)
                })
                .collect()
        });
        // Chunk sums in chunk order: the same bits for any thread count.
        let (mut loss, mut gradient, mut hessian) = (0.0, Array1::<f64>::zeros(k), Array2::<f64>::zeros((k, k)));
        for (l, g, h) in &partial {
            loss += l;
            for a in 0..k {
                gradient[a] += g[a];
                for b in a..k {
                    hessian[[a, b]] += h[a * k + b];
                }
            }
        }
        for a in 0..k {
            for b in 0..a {
                hessian[[a, b]] = hessian[[b, a]];
            }
        }
        let mean = 1.0 / self.total;
        Sums { loss: loss * mean, gradient: gradient * mean, hessian: hessian * mean }
    }
}

impl CostFunction for PositionsLogit {
    type Param = Array1<f64>;
    type Output = f64;

    fn cost(&self, param: &Array1<f64>) -> Result<f64, Error> {
        Ok(self.sums(param).loss)
    }
}

impl Gradient for PositionsLogit {
    type Param = Array1<f64>;
    type Gradient = Array1<f64>;

    fn gradient(&self, param: &Array1<f64>) -> Result<Array1<f64>, Error> {
        Ok(self.sums(param).gradient)
    }
}

impl Hessian for PositionsLogit {
    type Param = Array1<f64>;
    type Hessian = SymMatrix;

    fn hessian(&self, param: &Array1<f64>) -> Result<SymMatrix, Error> {
        Ok(SymMatrix(self.sums(param).hessian))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{FeatureLayout, TermValue};

    /// Positions of one untapered column whose score depends on it, and a
    /// second column always 1 (an intercept).
    fn positions() -> Arc<Positions> {
        let layout = FeatureLayout::parse("material").unwrap();
        let mut positions = Positions::new(layout).unwrap();
        // 1 pawn up: 3 of 4 won; 2 up: 7 of 8; level: half.
        for (pawns, wins, losses) in [(1i16, 3, 1), (2, 7, 1), (0, 5, 5), (-1, 1, 3)] {
            for r in 0..wins + losses {
                let terms = if pawns == 0 { vec![] } else { vec![TermValue { term: 0, value: pawns }] };
                positions.push(&terms, 24, if r < wins { 1.0 } else { 0.0 }, f32::NAN, r as u64);
            }
        }
        Arc::new(positions)
    }

    #[test]
    fn newton_reaches_the_optimum_that_l_bfgs_reaches_and_sums_do_not_depend_on_threads() {
        let positions = positions();
        let rows: Vec<usize> = (0..positions.len()).collect();
        let c = 10f64.ln() / 400.0;
        let model = PositionsLogit::new(positions.clone(), rows.clone(), c, vec![0.0; 5], vec![0], 1);
        let fit = model.fit(1e-12, 50).unwrap();
        assert!(fit.converged && fit.iterations < 15, "{fit:?}");
        // At the optimum the gradient vanishes: Σ (σ − t) x = 0, checked by hand.
        let p = fit.weights[0];
        let residual: f64 = (0..positions.len())
            .map(|i| {
                let mut x = vec![0.0; 5];
                positions.dense_row(i, &mut x);
                (sigmoid(c * p * x[0]) - f64::from(positions.score(i))) * x[0]
            })
            .sum();
        assert!(residual.abs() < 1e-9, "{residual}");
        assert!(p > 100.0 && p < 1000.0, "{p}");
        // The same bits on four threads.
        let four = PositionsLogit::new(positions, rows, c, vec![0.0; 5], vec![0], 4).fit(1e-12, 50).unwrap();
        assert_eq!(four.weights, fit.weights);
        assert_eq!(four.mean_loss.to_bits(), fit.mean_loss.to_bits());
    }
}
