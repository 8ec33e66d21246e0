//! `pgntune analyze --imbalance`: what a game collection says about
//! Kaufman's material imbalances, with error bars (issue 15).
//!
//! ## The models
//!
//! Two fits of the logistic model `P(white scores) = σ(c · w·x)` of the
//! whole-evaluation tuner ([`crate::fit::sparse`]), on the same positions,
//! with no penalty (λ = 0) and one fixed `K` (`c = K·ln10/400`):
//!
//! * *material*: `material_tapered` and `bishop_pair` (the imbalance
//!   columns frozen at 0);
//! * *imbalance*: the same plus the 26 products of the `imbalance` set (see
//!   [`crate::features::imbalance`] for the terms and the reductions that
//!   keep them identified).
//!
//! Without a penalty the fitted evaluation does not depend on `K` (the
//! weights just scale with `1/K`), so `K` only sets the unit. It is chosen
//! so that the material fit's pawn, averaged over the collection's
//! positions (`mg_P·φ̄/24 + eg_P·(1 − φ̄/24)` at their mean phase `φ̄`), is
//! 100: every value is in centipawns of that collection's pawn, which is
//! the unit of Kaufman's statements and keeps two collections comparable.
//!
//! ## The tests
//!
//! The likelihood-ratio statistic of a model against one without some
//! columns is `ΔD = 2·n·(mean loss without − mean loss with)`, the
//! difference of the deviances, with the dropped columns as degrees of
//! freedom. With decisive games only (`--draws exclude`) the targets are
//! 0 or 1 and `ΔD` is the exact likelihood ratio: R's
//! `anova(glm_small, glm_big, test = "LRT")` on the same rows gives the same
//! number (tests/external/imbalance_lrt.R). With draws as half points the
//! loss is a quasi-likelihood: `ΔD` is divided by the Pearson dispersion
//! `φ̂` of the larger model and referred to χ², which is what R's
//! `anova(..., test = "LRT")` does for `quasibinomial` fits (its F-test,
//! `ΔD/(df·φ̂)` against `F(df, n − p)`, gives the same p-value to several
//! digits at these `n`).
//!
//! Rows of one game share its result, so they are not independent and the
//! model's standard errors (and the likelihood-ratio test) are too
//! confident. Every estimate also gets a standard error clustered by game
//! (the sandwich, see [`covariance`]) and every dropped set of columns a
//! Wald test with that covariance; the intervals reported are the
//! clustered ones.
//!
//! ## The effects
//!
//! Kaufman's findings, each as a linear combination of the weights with its
//! test: the knight's and the rook's change per own pawn (the
//! `kaufman_*_pawns` terms), the rook pair and the queen-rook product (the
//! redundancy of major pieces), their sum (how much less the exchange is
//! worth with all major pieces on than after the queens and a pair of rooks
//! are gone), and the bishop pair's bonus at [`reference`] configurations.
//! The knight's and the rook's values by own pawns are the marginal values
//! at those configurations (see [`reference`]).

mod chi_square;
mod collections;
mod compare;
mod covariance;
mod models;
pub mod reference;
mod report;

use std::sync::Arc;

use ndarray::Array2;
use serde::Serialize;
use shakmaty::Role;

pub use chi_square::chi_square_sf;
pub use collections::{Collection, pgn_files, read};
pub use compare::{Comparison, Difference, compare};
use covariance::{Covariances, covariances, variance, wald};
use models::{Fitted, fit_model};
use reference::{ENDGAME, MIDDLEGAME, Reference};

use super::error::AnalyzeError;
use super::run::ReadObserver;
use crate::dataset::positions::Positions;
use crate::features::{FeatureLayout, FeatureSet};
use crate::fit::DrawMode;
use crate::fit::sparse::{StopReason, scale};
use crate::pgn::{ExtractConfig, ExtractStats};
use crate::stats::{Z_95, normal_cdf};

/// The feature sets the analysis fits.
pub const LAYOUT: &str = "material_tapered,bishop_pair,imbalance";

/// The layout of [`LAYOUT`].
pub fn layout() -> FeatureLayout {
    FeatureLayout::parse(LAYOUT).expect("the analysis' feature sets exist")
}

/// The figure's file name, without extension.
pub const FIGURE: &str = "imbalance_by_pawns";

/// Own pawn counts of the value-by-pawns tables.
pub const PAWNS: std::ops::RangeInclusive<u8> = 0..=8;

/// How the fits are made.
#[derive(Clone, Debug, PartialEq)]
pub struct FitOptions {
    /// Draws: left out (`Exclude`, a true likelihood) or half points (`Half`,
    /// a quasi-likelihood). `Ordinal` is not supported.
    pub draws: DrawMode,
    /// `K`; `None` chooses it so that the material fit's mean pawn is 100.
    pub k: Option<f64>,
    /// L-BFGS stops when the gradient norm (logistic scale) is below this.
    pub tol: f64,
    /// L-BFGS iteration limit per fit.
    pub max_iters: u64,
    /// Worker threads (0: one per core).
    pub threads: usize,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions { draws: DrawMode::Half, k: None, tol: 1e-9, max_iters: 2000, threads: 0 }
    }
}

/// An imbalance analysis to make.
#[derive(Clone, Debug)]
pub struct ImbalanceConfig {
    /// PGN files (plain or compressed), folders of them (read recursively),
    /// or datasets `extract` wrote with the features of [`LAYOUT`].
    pub inputs: Vec<String>,
    /// How PGN inputs are read; the layout is replaced by [`LAYOUT`]'s.
    pub read: ExtractConfig,
    /// Each input is a collection, the later ones compared with the first;
    /// otherwise all inputs are one collection.
    pub compare: bool,
    /// The fits.
    pub fit: FitOptions,
}

/// A value with its standard errors: the model's and clustered by game.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The value (centipawns).
    pub value: f64,
    /// The model's standard error.
    pub se: f64,
    /// The standard error clustered by game.
    pub se_clustered: f64,
}

impl Estimate {
    /// `a · w` and its standard errors under `cov`.
    fn of(a: &[f64], w: &[f64], cov: &Covariances) -> Estimate {
        Estimate {
            value: a.iter().zip(w).map(|(x, y)| x * y).sum(),
            se: variance(a, &cov.model).max(0.0).sqrt(),
            se_clustered: variance(a, &cov.clustered).max(0.0).sqrt(),
        }
    }

    /// The 95% interval from the clustered standard error.
    pub fn ci95(&self) -> (f64, f64) {
        (self.value - Z_95 * self.se_clustered, self.value + Z_95 * self.se_clustered)
    }

    /// The two-sided p-value of "the value is 0", from the clustered error.
    pub fn p_clustered(&self) -> f64 {
        two_sided(self.value / self.se_clustered)
    }
}

/// The two-sided normal p-value of `z`.
fn two_sided(z: f64) -> f64 {
    2.0 * normal_cdf(-z.abs())
}

/// One fitted model.
#[derive(Clone, Debug, Serialize)]
pub struct ModelFit {
    /// `material` or `imbalance`.
    pub name: &'static str,
    /// The layout's columns.
    pub columns: Vec<String>,
    /// Weights in centipawns (0 for columns the model leaves out).
    pub weights: Vec<f64>,
    /// The model's standard errors (`None` for columns left out).
    pub se: Vec<Option<f64>>,
    /// Standard errors clustered by game.
    pub se_clustered: Vec<Option<f64>>,
    /// Mean loss (cross-entropy) per row.
    pub mean_loss: f64,
    /// Columns fitted.
    pub parameters: usize,
    /// L-BFGS iterations.
    pub iterations: u64,
    /// Why L-BFGS stopped.
    pub stopped: StopReason,
    /// The quasi-binomial dispersion (1 with decisive games only).
    pub dispersion: f64,
    #[serde(skip)]
    covariances: Covariances,
}

/// A likelihood-ratio test of the imbalance model against one without some of its columns.
#[derive(Clone, Debug, Serialize)]
pub struct LikelihoodRatio {
    /// A short key (`imbalance`, `kaufman_N_pawns`, ...).
    pub key: &'static str,
    /// What is tested, in words.
    pub label: &'static str,
    /// The columns left out of the smaller model.
    pub dropped: Vec<String>,
    /// Degrees of freedom.
    pub df: usize,
    /// `ΔD = 2·n·(mean loss without − mean loss with)`.
    pub deviance_difference: f64,
    /// The dispersion `ΔD` is divided by (1 with decisive games only).
    pub dispersion: f64,
    /// `ΔD / dispersion`, referred to χ²(df).
    pub statistic: f64,
    /// Its p-value.
    pub p_value: f64,
    /// The Wald statistic of the dropped columns with the covariance clustered by game.
    pub wald_clustered: f64,
    /// Its p-value (χ²(df)).
    pub p_clustered: f64,
}

/// One of Kaufman's findings, as the collection gives it.
#[derive(Clone, Debug, Serialize)]
pub struct Effect {
    /// A short key (`knight_per_pawn`, ...).
    pub key: &'static str,
    /// What it is, in words.
    pub label: &'static str,
    /// The imbalance model's value.
    pub estimate: Estimate,
    /// The material model's value, where it has one (the bishop pair).
    pub material_only: Option<Estimate>,
    /// Kaufman's value in centipawns, when he gave one.
    pub kaufman: Option<f64>,
    /// Kaufman's claim in words (`+6.25`, `< 0`).
    pub kaufman_claim: &'static str,
    /// The key of its likelihood-ratio test.
    pub test: &'static str,
}

/// A piece's value against the number of own pawns at one reference configuration.
#[derive(Clone, Debug, Serialize)]
pub struct ValueByPawns {
    /// `knight` or `rook`.
    pub piece: &'static str,
    /// The reference configuration (`middlegame`, `endgame`).
    pub reference: &'static str,
    /// Its game phase.
    pub phase: u8,
    /// One value per own pawn count, 0 to 8.
    pub values: Vec<Estimate>,
    /// The material model's value (the same for every pawn count).
    pub material_only: Estimate,
}

/// Everything the analysis found in one collection.
#[derive(Clone, Debug, Serialize)]
pub struct CollectionFit {
    /// The collection.
    pub name: String,
    /// Rows fitted.
    pub rows: usize,
    /// Games among them.
    pub games: usize,
    /// Decisive games among them.
    pub decisive_games: usize,
    /// `exclude` or `half`.
    pub draws: &'static str,
    /// `K` of every fit.
    pub k: f64,
    /// Whether `K` was chosen to make the material fit's mean pawn 100.
    pub pawn_is_100: bool,
    /// The mean game phase of the rows.
    pub mean_phase: f64,
    /// The material model.
    pub material: ModelFit,
    /// The imbalance model.
    pub imbalance: ModelFit,
    /// The likelihood-ratio tests, the whole imbalance set first.
    pub tests: Vec<LikelihoodRatio>,
    /// Kaufman's findings.
    pub effects: Vec<Effect>,
    /// Knight and rook by own pawns.
    pub by_pawns: Vec<ValueByPawns>,
    /// Warnings (a fit that did not converge).
    pub notes: Vec<String>,
}

/// The dropped columns of each test: a key, words, and which columns.
fn test_definitions(columns: &[String]) -> Vec<(&'static str, &'static str, Vec<usize>)> {
    let find = |name: &str| columns.iter().position(|c| c == name).expect("a column of the analysis' layout");
    let layout = layout();
    let imbalance: Vec<usize> = (0..columns.len()).filter(|&j| layout.set_of_column(j) == Some(FeatureSet::Imbalance)).collect();
    let pair: Vec<usize> = (0..columns.len()).filter(|&j| columns[j].contains("bishop_pair") || columns[j].contains("Bpair")).collect();
    vec![
        ("imbalance", "all 26 imbalance products", imbalance),
        ("kaufman_N_pawns", "knight by own pawns", vec![find("kaufman_N_pawns")]),
        ("kaufman_R_pawns", "rook by own pawns", vec![find("kaufman_R_pawns")]),
        ("imb_R_R", "rook pair", vec![find("imb_R_R")]),
        ("imb_Q_R", "queen and rook", vec![find("imb_Q_R")]),
        ("major_redundancy", "rook pair and queen-rook together", vec![find("imb_R_R"), find("imb_Q_R")]),
        ("bishop_pair", "bishop pair: its bonus and its 8 products", pair),
    ]
}

/// Fits the material and the imbalance models to `positions` (whose layout
/// must be [`LAYOUT`]'s) and derives the tests, effects and values.
pub fn fit_collection(name: &str, positions: Arc<Positions>, options: &FitOptions) -> Result<CollectionFit, AnalyzeError> {
    let data = |reason: String| AnalyzeError::Data { collection: name.to_string(), reason };
    let tuning = |model: &str| {
        let model = model.to_string();
        move |source| AnalyzeError::Tune { collection: name.to_string(), model, source }
    };
    let draws = match options.draws {
        DrawMode::Exclude => "exclude",
        DrawMode::Half => "half",
        DrawMode::Ordinal => {
            return Err(AnalyzeError::Invalid(
                "the imbalance analysis fits decisive games (--draws exclude) or draws as half points (--draws half), not ordinal".into(),
            ));
        }
    };
    let layout = positions.layout().clone();
    if layout != self::layout() {
        return Err(data(format!("the positions have the features '{}', not '{LAYOUT}'", layout.spec())));
    }
    let columns = layout.columns();
    let p = columns.len();
    let col = |c: &str| columns.iter().position(|x| x == c).expect("a column of the analysis' layout");
    let is_imbalance: Vec<bool> = (0..p).map(|j| layout.set_of_column(j) == Some(FeatureSet::Imbalance)).collect();
    let n = positions.len();
    let used: Vec<bool> = (0..n).map(|i| !(options.draws == DrawMode::Exclude && positions.score(i) == 0.5)).collect();
    let rows = used.iter().filter(|&&u| u).count();
    if rows == 0 {
        return Err(data("no positions to fit (with --draws exclude: no decisive game)".into()));
    }
    let mut notes = Vec::new();
    let mut note_convergence = |model: &str, r: &Fitted| {
        if r.stopped == StopReason::IterationLimit {
            notes.push(format!("the {model} fit stopped at the iteration limit ({} iterations) before converging", r.iterations));
        }
    };

    // The material model at K = 1 (or the K asked for), then the unit.
    let k0 = options.k.unwrap_or(1.0);
    let material = fit_model(&positions, &used, options, k0, vec![0.0; p], is_imbalance.clone()).map_err(tuning("material"))?;
    note_convergence("material", &material);
    let mean_phase = (0..n).filter(|&i| used[i]).map(|i| f64::from(positions.phase(i))).sum::<f64>() / rows as f64;
    let pawn = material.weights[col("mg_P")] * mean_phase / 24.0 + material.weights[col("eg_P")] * (1.0 - mean_phase / 24.0);
    let (k, unit) = match options.k {
        Some(k) => (k, 1.0),
        None if pawn > 0.0 && pawn.is_finite() => (pawn / 100.0, 100.0 / pawn),
        None => return Err(data(format!("the material fit gives the pawn no positive value ({pawn:.3}): too few games?"))),
    };
    let material_weights: Vec<f64> = material.weights.iter().map(|w| w * unit).collect();

    // The imbalance model, from the material model's weights.
    let imbalance = fit_model(&positions, &used, options, k, material_weights.clone(), vec![false; p]).map_err(tuning("imbalance"))?;
    note_convergence("imbalance", &imbalance);
    let c = scale::c_of_k(k);
    let not_identified =
        |_| data("the model is not identified on these positions (a column is constant or a combination of others: too few games?)".into());
    let small_columns: Vec<usize> = (0..p).filter(|&j| !is_imbalance[j]).collect();
    let material_cov = covariances(&positions, &used, &material_weights, c, &small_columns).map_err(not_identified)?;
    let imbalance_cov = covariances(&positions, &used, &imbalance.weights, c, &(0..p).collect::<Vec<_>>()).map_err(not_identified)?;
    let material = model_fit("material", &columns, material_weights, material.train_loss, &material, material_cov);
    let imbalance = model_fit("imbalance", &columns, imbalance.weights.clone(), imbalance.train_loss, &imbalance, imbalance_cov);

    // One smaller model per test; the whole set's is the material model.
    let mut tests = Vec::new();
    for (key, label, dropped) in test_definitions(&columns) {
        let without_loss = if key == "imbalance" {
            material.mean_loss
        } else {
            let mut start = imbalance.weights.clone();
            let mut frozen = vec![false; p];
            for &j in &dropped {
                start[j] = 0.0;
                frozen[j] = true;
            }
            let smaller = fit_model(&positions, &used, options, k, start, frozen).map_err(tuning(&format!("imbalance without {key}")))?;
            note_convergence(&format!("without {key}"), &smaller);
            smaller.train_loss
        };
        let deviance_difference = 2.0 * rows as f64 * (without_loss - imbalance.mean_loss);
        let dispersion = imbalance.dispersion;
        let statistic = deviance_difference / dispersion;
        let wald_clustered = wald(&imbalance.weights, &imbalance.covariances.clustered, &dropped).unwrap_or(f64::NAN);
        tests.push(LikelihoodRatio {
            key,
            label,
            dropped: dropped.iter().map(|&j| columns[j].clone()).collect(),
            df: dropped.len(),
            deviance_difference,
            dispersion,
            statistic,
            p_value: chi_square_sf(statistic, dropped.len()),
            wald_clustered,
            p_clustered: chi_square_sf(wald_clustered, dropped.len()),
        });
    }

    let effects = effects(&layout, &material, &imbalance);
    let by_pawns =
        [("knight", Role::Knight, MIDDLEGAME), ("rook", Role::Rook, MIDDLEGAME), ("knight", Role::Knight, ENDGAME), ("rook", Role::Rook, ENDGAME)]
            .into_iter()
            .map(|(piece, role, reference)| value_by_pawns(&layout, piece, role, &reference, &material, &imbalance))
            .collect();
    let games = distinct(used.iter().enumerate().filter(|&(_, &u)| u).map(|(i, _)| positions.game(i)));
    let decisive_games = distinct((0..n).filter(|&i| used[i] && positions.score(i) != 0.5).map(|i| positions.game(i)));
    Ok(CollectionFit {
        name: name.to_string(),
        rows,
        games,
        decisive_games,
        draws,
        k,
        pawn_is_100: options.k.is_none(),
        mean_phase,
        material,
        imbalance,
        tests,
        effects,
        by_pawns,
        notes,
    })
}

/// Number of distinct values.
fn distinct(values: impl Iterator<Item = u64>) -> usize {
    let mut v: Vec<u64> = values.collect();
    v.sort_unstable();
    v.dedup();
    v.len()
}

fn model_fit(name: &'static str, columns: &[String], weights: Vec<f64>, mean_loss: f64, report: &Fitted, covariances: Covariances) -> ModelFit {
    let fitted: Vec<bool> = (0..columns.len()).map(|j| covariances.model[[j, j]] > 0.0).collect();
    let se = |v: &Array2<f64>| (0..columns.len()).map(|j| fitted[j].then(|| v[[j, j]].sqrt())).collect();
    ModelFit {
        name,
        columns: columns.to_vec(),
        se: se(&covariances.model),
        se_clustered: se(&covariances.clustered),
        parameters: fitted.iter().filter(|&&f| f).count(),
        weights,
        mean_loss,
        iterations: report.iterations,
        stopped: report.stopped,
        dispersion: covariances.dispersion,
        covariances,
    }
}

/// Kaufman's findings as combinations of the weights.
fn effects(layout: &FeatureLayout, material: &ModelFit, imbalance: &ModelFit) -> Vec<Effect> {
    let columns = layout.columns();
    let unit = |names: &[&str]| -> Vec<f64> { columns.iter().map(|c| if names.contains(&c.as_str()) { 1.0 } else { 0.0 }).collect() };
    let estimate = |a: &[f64], m: &ModelFit| Estimate::of(a, &m.weights, &m.covariances);
    let pair_middlegame = reference::bishop_pair(layout, &MIDDLEGAME, MIDDLEGAME.pieces.pawns);
    let pair_endgame = reference::bishop_pair(layout, &ENDGAME, ENDGAME.pieces.pawns);
    let effect = |key, label, a: &[f64], material_only: bool, kaufman: Option<f64>, kaufman_claim, test| Effect {
        key,
        label,
        estimate: estimate(a, imbalance),
        material_only: material_only.then(|| estimate(a, material)),
        kaufman,
        kaufman_claim,
        test,
    };
    vec![
        effect(
            "knight_per_pawn",
            "knight, per own pawn (kaufman_N_pawns)",
            &unit(&["kaufman_N_pawns"]),
            false,
            Some(6.25),
            "+6.25",
            "kaufman_N_pawns",
        ),
        effect("rook_per_pawn", "rook, per own pawn (kaufman_R_pawns)", &unit(&["kaufman_R_pawns"]), false, Some(-12.5), "-12.5", "kaufman_R_pawns"),
        effect("rook_pair", "second rook beyond the first (imb_R_R)", &unit(&["imb_R_R"]), false, None, "< 0", "imb_R_R"),
        effect("queen_rook", "rook beside a queen (imb_Q_R)", &unit(&["imb_Q_R"]), false, None, "< 0", "imb_Q_R"),
        effect(
            "exchange_shift",
            "exchange, all majors vs queens and a rook pair off (imb_R_R + imb_Q_R)",
            &unit(&["imb_R_R", "imb_Q_R"]),
            false,
            Some(-50.0),
            "-50",
            "major_redundancy",
        ),
        effect("bishop_pair_middlegame", "bishop pair, middlegame reference", &pair_middlegame, true, Some(50.0), "+50", "bishop_pair"),
        effect("bishop_pair_endgame", "bishop pair, endgame reference", &pair_endgame, true, Some(50.0), "+50", "bishop_pair"),
    ]
}

fn value_by_pawns(
    layout: &FeatureLayout,
    piece: &'static str,
    role: Role,
    reference: &Reference,
    material: &ModelFit,
    imbalance: &ModelFit,
) -> ValueByPawns {
    let values = PAWNS
        .map(|pawns| {
            let a = reference::piece_value(layout, reference, role, pawns);
            Estimate::of(&a, &imbalance.weights, &imbalance.covariances)
        })
        .collect();
    let a = reference::piece_value(layout, reference, role, reference.pieces.pawns);
    ValueByPawns {
        piece,
        reference: reference.name,
        phase: reference::phase(reference),
        values,
        material_only: Estimate::of(&a, &material.weights, &material.covariances),
    }
}

/// The whole analysis.
#[derive(Clone, Debug, Serialize)]
pub struct ImbalanceReport {
    /// Per collection.
    pub collections: Vec<CollectionFit>,
    /// Each later collection against the first (with `compare`).
    pub comparisons: Vec<Comparison>,
    /// Per collection, its PGN inputs' extraction statistics.
    #[serde(skip)]
    pub reads: Vec<Vec<(String, ExtractStats)>>,
}

/// Runs the analysis: reads, fits every collection, compares. `stage` hears
/// what is being done (for a person waiting).
pub fn run(config: &ImbalanceConfig, observer: &dyn ReadObserver, stage: &dyn Fn(&str)) -> Result<ImbalanceReport, AnalyzeError> {
    let collections = read(config, observer)?;
    let mut fits = Vec::new();
    let mut reads = Vec::new();
    for collection in collections {
        if collection.positions.is_empty() {
            return Err(AnalyzeError::Data { collection: collection.name, reason: "no positions".into() });
        }
        stage(&format!(
            "{}: fitting the material and imbalance models and 6 smaller ones on {} positions",
            collection.name,
            collection.positions.len()
        ));
        fits.push(fit_collection(&collection.name, Arc::new(collection.positions), &config.fit)?);
        reads.push(collection.reads);
    }
    let comparisons = if config.compare { fits[1..].iter().map(|other| compare(&fits[0], other)).collect() } else { Vec::new() };
    Ok(ImbalanceReport { collections: fits, comparisons, reads })
}
