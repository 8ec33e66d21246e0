//! How sure the fit is: covariance from the Fisher information (or the
//! quasi-binomial and sandwich variants), intervals for ratios by the delta
//! method, percentile intervals by bootstrapping whole games, and held-out
//! evaluation on a split by game.

use ndarray::{Array1, Array2};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use serde::Serialize;

use super::linalg::spd_inverse;
use super::model::{sigmoid, softplus};
use super::{DrawMode, FitConfig, FitError, Loss, Model, SolverKind};
use crate::dataset::merged::MergedRows;

/// Covariance of all parameters at `param`, and the dispersion used:
/// * cross-entropy, draws excluded or ordinal: the inverse Fisher information;
/// * cross-entropy, draws as half points: the same scaled by the Pearson
///   dispersion (quasi-binomial, as R's `quasibinomial` reports);
/// * squared error: the sandwich `H⁻¹ G H⁻¹`.
///
/// `None` when the information is singular.
pub(crate) fn covariance(model: &Model, param: &Array1<f64>, config: &FitConfig) -> (Option<Array2<f64>>, Option<f64>) {
    match model {
        Model::Binary(p) if config.loss == Loss::Mse => (p.sandwich(param), None),
        Model::Binary(p) => {
            let cov = spd_inverse(&p.information(param)).ok();
            if config.draws == DrawMode::Half {
                let phi = p.dispersion(param);
                (cov.map(|c| c * phi), Some(phi))
            } else {
                (cov, None)
            }
        }
        Model::Ordinal(p) => (spd_inverse(&p.information(param)).ok(), None),
    }
}

/// 95% intervals of `100 θ_j / θ_r` by the delta method. `offset` is the
/// index of the first feature weight in the covariance (1 with an intercept).
pub fn ratio_intervals(theta: &[f64], r: usize, offset: usize, cov: Option<&Array2<f64>>) -> Vec<Option<(f64, f64)>> {
    let tr = theta[r];
    (0..theta.len())
        .map(|j| {
            let cov = cov?;
            if j == r {
                return Some((100.0, 100.0));
            }
            // ∂(100 θj/θr)/∂θj = 100/θr, ∂/∂θr = −100 θj/θr².
            let (gj, gr) = (100.0 / tr, -100.0 * theta[j] / (tr * tr));
            let (a, b) = (offset + j, offset + r);
            let var = gj * gj * cov[[a, a]] + 2.0 * gj * gr * cov[[a, b]] + gr * gr * cov[[b, b]];
            if !(var.is_finite() && var >= 0.0) {
                return None;
            }
            let v = 100.0 * theta[j] / tr;
            let half = crate::stats::Z_95 * var.sqrt();
            Some((v - half, v + half))
        })
        .collect()
}

/// Whether the fitted scores separate the decisive rows perfectly (every
/// row of a white win scores above 0, every row of a black win below).
pub(crate) fn is_separable(model: &Model, param: &Array1<f64>) -> bool {
    let scores = model.scores(param);
    let counts = &model.design().counts;
    let mut decisive = false;
    for (s, c) in scores.iter().zip(counts) {
        if c[2] > 0.0 && *s <= 0.0 || c[0] > 0.0 && *s >= 0.0 {
            return false;
        }
        decisive |= c[0] + c[2] > 0.0;
    }
    decisive
}

/// Percentile intervals from refits on resampled games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BootstrapSummary {
    /// Replicates that converged and were used.
    pub replicates: usize,
    /// Replicates asked for.
    pub requested: usize,
    /// The seed.
    pub seed: u64,
    /// Whether whole games were resampled (false: rows, for inputs without game ids).
    pub by_game: bool,
    /// 95% percentile intervals of θ per column.
    pub theta_ci95: Vec<(f64, f64)>,
    /// 95% percentile intervals of the normalised values, when a reference exists.
    pub values_ci95: Option<Vec<(f64, f64)>>,
}

/// Linear-interpolated quantile of sorted data (R's type 7).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

fn percentile_intervals(samples: &[Vec<f64>], width: usize) -> Vec<(f64, f64)> {
    (0..width)
        .map(|j| {
            let mut column: Vec<f64> = samples.iter().map(|s| s[j]).collect();
            column.sort_by(f64::total_cmp);
            (quantile(&column, 0.025), quantile(&column, 0.975))
        })
        .collect()
}

/// The groups that resampling draws from: games when the rows carry game
/// ids, else single rows.
fn resampling_units(rows: &MergedRows) -> (MergedRows, bool) {
    if rows.games.is_some() {
        return (rows.clone(), true);
    }
    // Without game ids, every row is its own unit.
    let mut merged = rows.clone();
    let mut games = Vec::new();
    for (i, c) in rows.counts.iter().enumerate() {
        for (slot, result) in
            [(0, crate::dataset::GameResult::BlackWins), (1, crate::dataset::GameResult::Draw), (2, crate::dataset::GameResult::WhiteWins)]
        {
            for _ in 0..c[slot] as u64 {
                games.push(crate::dataset::merged::GameRows { result, rows: vec![i as u32] });
            }
        }
    }
    merged.games = Some(games);
    (merged, false)
}

/// The refit settings: Newton's method, warm-started from the full fit,
/// without trace. Newton needs a handful of steps from there and no line
/// search (L-BFGS's line search can stall on a replicate whose optimum is
/// within rounding of the start).
fn refit_config(config: &FitConfig) -> FitConfig {
    FitConfig { solver: SolverKind::Newton, trace: false, bootstrap: None, holdout: None, max_iters: None, ..config.clone() }
}

/// Refits on `replicates` resamples of the games, in parallel; each
/// replicate has its own seeded generator, so results do not depend on the
/// number of threads.
pub(crate) fn bootstrap(
    rows: &MergedRows,
    config: &FitConfig,
    start: &Array1<f64>,
    replicates: usize,
    seed: u64,
    reference: Option<usize>,
) -> Result<BootstrapSummary, FitError> {
    if replicates < 2 {
        return Err(FitError::Invalid("--bootstrap needs at least 2 replicates".into()));
    }
    let (units, by_game) = resampling_units(rows);
    let n_units = units.games.as_ref().map_or(0, Vec::len);
    let refit = refit_config(config);
    let solve_config = refit.solve_config();
    let offset = usize::from(config.intercept);
    let width = rows.width();
    let samples: Vec<Option<Vec<f64>>> = (0..replicates)
        .into_par_iter()
        .map(|b| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ (b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let picks: Vec<usize> = (0..n_units).map(|_| rng.random_range(0..n_units)).collect();
            let sample = units.with_games(&picks);
            let model = Model::new(&sample, &refit);
            let solution = model.solve(start.clone(), &solve_config).ok()?;
            solution.converged.then(|| (0..width).map(|j| solution.param[offset + j]).collect())
        })
        .collect();
    let thetas: Vec<Vec<f64>> = samples.into_iter().flatten().collect();
    if thetas.len() < 2 {
        return Err(FitError::Solver(argmin::core::Error::msg("fewer than two bootstrap refits converged")));
    }
    let values_ci95 = reference.map(|r| {
        let values: Vec<Vec<f64>> = thetas.iter().map(|t| t.iter().map(|v| 100.0 * v / t[r]).collect()).collect();
        percentile_intervals(&values, width)
    });
    Ok(BootstrapSummary {
        replicates: thetas.len(),
        requested: replicates,
        seed,
        by_game,
        theta_ci95: percentile_intervals(&thetas, width),
        values_ci95,
    })
}

/// Fit quality on a set of rows.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Metrics {
    /// Rows evaluated (as the model counts them).
    pub rows: f64,
    /// Mean log-loss (cross-entropy of the model's probabilities).
    pub log_loss: f64,
    /// Share of decisive rows whose winner the model favours (ordinal: of
    /// all rows, the most likely of the three outcomes).
    pub accuracy: f64,
}

/// Training and held-out metrics of a fit on part of the games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HoldoutSummary {
    /// Fraction of games held out.
    pub fraction: f64,
    /// The seed of the split.
    pub seed: u64,
    /// Games in the training and held-out parts.
    pub games: (usize, usize),
    /// Rows without a game id in each part (inputs mixing files with and
    /// without game ids: those rows are split one by one). They were once
    /// counted with the games, so the holdout's games did not add up to the
    /// data's.
    pub loose_rows: (usize, usize),
    /// Whether the split was by game (false: by row, without game ids).
    pub by_game: bool,
    /// On the games fitted.
    pub train: Metrics,
    /// On the held-out games.
    pub test: Metrics,
    /// Whether the fit on the training games converged.
    pub converged: bool,
}

/// Metrics of parameters `param` on `rows`.
fn metrics(rows: &MergedRows, config: &FitConfig, param: &Array1<f64>) -> Metrics {
    let model = Model::new(rows, config);
    let scores = model.scores(param);
    let counts = &model.design().counts;
    let (mut n, mut loss, mut decisive, mut right) = (0.0, 0.0, 0.0, 0.0);
    match &model {
        Model::Binary(_) => {
            let half = if config.draws == DrawMode::Half { 0.5 } else { 0.0 };
            for (&s, c) in scores.iter().zip(counts) {
                let (pos, neg) = (c[2] + half * c[1], c[0] + half * c[1]);
                n += pos + neg;
                loss += pos * softplus(-s) + neg * softplus(s);
                decisive += c[0] + c[2];
                right += if s > 0.0 {
                    c[2]
                } else if s < 0.0 {
                    c[0]
                } else {
                    0.5 * (c[0] + c[2])
                };
            }
        }
        Model::Ordinal(p) => {
            let c_band = param[p.design().coefficients()].exp();
            for (&s, c) in scores.iter().zip(counts) {
                let (pw, pl) = (sigmoid(s - c_band), sigmoid(-s - c_band));
                let pd = (1.0 - pw - pl).max(f64::MIN_POSITIVE);
                n += c[0] + c[1] + c[2];
                loss -= c[2] * pw.ln() + c[0] * pl.ln() + c[1] * pd.ln();
                decisive += c[0] + c[1] + c[2];
                right += if pw >= pl && pw >= pd {
                    c[2]
                } else if pl >= pd {
                    c[0]
                } else {
                    c[1]
                };
            }
        }
    }
    Metrics { rows: n, log_loss: loss / n, accuracy: if decisive > 0.0 { right / decisive } else { 0.0 } }
}

/// A random split of the games (or rows, without game ids) into a part to
/// fit and a part held out.
pub(crate) struct HoldoutSplit {
    /// The rows of the games to fit.
    pub train: MergedRows,
    /// The rows of the games held out.
    pub test: MergedRows,
    /// Games (or rows, without game ids) in each part.
    pub games: (usize, usize),
    /// Rows without a game id in each part, beside games.
    pub loose_rows: (usize, usize),
    /// Whether the split was by game.
    pub by_game: bool,
}

/// Splits `rows` for `--holdout`: each game (each row, without game ids)
/// is held out with probability `fraction`, drawn from `seed`.
pub(crate) fn split_holdout(rows: &MergedRows, fraction: f64, seed: u64) -> Result<HoldoutSplit, FitError> {
    if !(fraction > 0.0 && fraction < 1.0) {
        let shown = crate::dataset::number_text::shown(fraction);
        return Err(FitError::Invalid(format!("--holdout must be a fraction between 0 and 1, not {shown}")));
    }
    let (units, by_game) = resampling_units(rows);
    let n_units = units.games.as_ref().map_or(0, Vec::len);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for g in 0..n_units {
        if rng.random::<f64>() < fraction { test.push(g) } else { train.push(g) }
    }
    let (mut train_rows, test_rows) = (units.with_games(&train), units.with_games(&test));
    let decisive = |r: &MergedRows| r.totals()[0] + r.totals()[2] > 0.0;
    if !decisive(&train_rows) || test_rows.total_rows() == 0.0 {
        return Err(FitError::Invalid("--holdout: the split leaves no decisive training games or no held-out rows; use a different fraction".into()));
    }
    // The training part keeps its games, so that a bootstrap of the fit
    // resamples whole games as it does on the whole input.
    if by_game && let Some(games) = &units.games {
        train_rows.games = Some(train.iter().map(|&g| games[g].clone()).collect());
    }
    // Units past the data's games are rows that came without a game id.
    let real = if by_game { rows.game_count.unwrap_or(0) as usize } else { n_units };
    let part = |units: &[usize]| (units.iter().filter(|&&g| g < real).count(), units.iter().filter(|&&g| g >= real).count());
    let ((train_games, train_loose), (test_games, test_loose)) = (part(&train), part(&test));
    Ok(HoldoutSplit { train: train_rows, test: test_rows, games: (train_games, test_games), loose_rows: (train_loose, test_loose), by_game })
}

/// The metrics of the fit `param` (made on `split.train`) on both parts.
pub(crate) fn holdout_summary(
    split: &HoldoutSplit,
    config: &FitConfig,
    param: &Array1<f64>,
    fraction: f64,
    seed: u64,
    converged: bool,
) -> HoldoutSummary {
    HoldoutSummary {
        fraction,
        seed,
        games: split.games,
        loose_rows: split.loose_rows,
        by_game: split.by_game,
        train: metrics(&split.train, config, param),
        test: metrics(&split.test, config, param),
        converged,
    }
}
