//! Fitting one model of the imbalance analysis: Newton's method over the
//! positions, with the whole-evaluation tuner's L-BFGS as the fallback.

use std::sync::Arc;

use super::FitOptions;
use crate::dataset::positions::Positions;
use crate::fit::DrawMode;
use crate::fit::positions_newton::PositionsLogit;
use crate::fit::sparse::{ScaleK, StopReason, TuneConfig, TuneError, scale, tune};

/// One model's fit.
pub(super) struct Fitted {
    pub(super) weights: Vec<f64>,
    pub(super) train_loss: f64,
    pub(super) iterations: u64,
    pub(super) stopped: StopReason,
}

/// Fits one model: λ = 0, `K` fixed, the `frozen` columns held at `start`,
/// over the rows `used`. Newton's method (a few passes, as R's `glm`); should
/// it not converge (a Hessian that is not positive definite, say), the
/// whole-evaluation tuner's L-BFGS goes on from where it stopped.
pub(super) fn fit_model(
    positions: &Arc<Positions>,
    used: &[bool],
    options: &FitOptions,
    k: f64,
    start: Vec<f64>,
    frozen: Vec<bool>,
) -> Result<Fitted, TuneError> {
    let rows: Vec<usize> = (0..positions.len()).filter(|&i| used[i]).collect();
    let free: Vec<usize> = (0..start.len()).filter(|&j| !frozen[j]).collect();
    let newton =
        PositionsLogit::new(positions.clone(), rows, scale::c_of_k(k), start.clone(), free, options.threads).fit(options.tol, options.max_iters);
    let start = match newton {
        Ok(fit) if fit.converged => {
            return Ok(Fitted { weights: fit.weights, train_loss: fit.mean_loss, iterations: fit.iterations, stopped: StopReason::Converged });
        }
        Ok(fit) if fit.weights.iter().all(|w| w.is_finite()) => fit.weights,
        _ => start,
    };
    let mut config = TuneConfig::new(vec![0.0; start.len()]);
    config.k = ScaleK::Fixed(k);
    config.lambda = 0.0;
    config.start = start;
    config.frozen = frozen;
    config.exclude_draws = options.draws == DrawMode::Exclude;
    config.tol = options.tol;
    // The likelihood-ratio statistic is a difference of losses times 2n: no
    // early stop on a small gain in loss, only the gradient tolerance.
    config.cost_tol = 0.0;
    config.max_iters = options.max_iters;
    config.threads = options.threads;
    config.standard_errors = false;
    let report = tune(positions.clone(), &config, Arc::new(|_| {}))?;
    Ok(Fitted { weights: report.weights, train_loss: report.train_loss, iterations: report.iterations, stopped: report.stopped })
}
