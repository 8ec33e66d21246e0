//! The generalised sequential probability ratio test (GSPRT) on game pairs,
//! as fishtest (`LLRcalc.py`, `stat_util.py`) and fastchess (`sprt.cpp`)
//! compute it.
//!
//! H0 says the Elo is `elo0`, H1 that it is `elo1`. The log-likelihood ratio
//! compares the most likely pentanomial distribution under each hypothesis
//! (fitted in `mle.rs`) on the observed pairs:
//! `LLR = N · Σ p̂ᵢ ln(p1ᵢ/p0ᵢ)`. The match stops when the LLR leaves
//! `(ln(β/(1−α)), ln((1−β)/α))`: below, H0 is accepted; above, H1.
//!
//! Bounds are in logistic Elo (H: the expected score is `1/(1 + 10^(−elo/400))`)
//! or, the default, in normalised Elo (H: the t-value `(μ − ½)/σ` is
//! `nElo/(800/ln 10)` per game, `√2` times that per pair). Normalised Elo
//! measures strength in units of the noise, so a bound means the same
//! number of games at any draw rate.
//!
//! As in both references, empty buckets count as 1e-3 pairs, so the
//! distributions stay strictly positive and the LLR finite.

use std::f64::consts::SQRT_2;
use std::fmt;
use std::str::FromStr;

use super::counts::{Penta, Wdl};
use super::display::{Fixed2, Short};
use super::elo::{NELO_PER_T, score_from_elo};
use super::mle::{llr_per_sample, mean_variance, mle_with_expectation, mle_with_t_value};

/// What an empty bucket counts as (fishtest's and fastchess's `regularize`).
const EMPTY_BUCKET: f64 = 1e-3;
/// Largest |bound| accepted in logistic Elo (a 99.7% expected score).
pub const MAX_LOGISTIC_ELO: f64 = 1000.0;
/// Largest |bound| accepted in normalised Elo. Real tests use bounds below
/// 10. Past about 230 the t-value fit's first step (from the uniform
/// distribution) has no solution; 100 keeps well clear of that.
pub const MAX_NORMALIZED_ELO: f64 = 100.0;

/// The unit the SPRT's Elo bounds are given in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EloModel {
    /// Normalised Elo: strength relative to the per-game standard deviation.
    #[default]
    Normalized,
    /// Logistic Elo, the usual scale of [`elo_from_score`](super::elo_from_score).
    Logistic,
}

impl fmt::Display for EloModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EloModel::Normalized => "normalized",
            EloModel::Logistic => "logistic",
        })
    }
}

impl FromStr for EloModel {
    type Err = SprtConfigError;
    fn from_str(text: &str) -> Result<EloModel, SprtConfigError> {
        match text.to_ascii_lowercase().as_str() {
            "normalized" | "normalised" => Ok(EloModel::Normalized),
            "logistic" => Ok(EloModel::Logistic),
            _ => Err(SprtConfigError::UnknownModel(text.to_string())),
        }
    }
}

/// What the SPRT says about the sample so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SprtDecision {
    /// The LLR reached the lower bound: stop, H0 (Elo = elo0) accepted.
    AcceptH0,
    /// The LLR reached the upper bound: stop, H1 (Elo = elo1) accepted.
    AcceptH1,
    /// The LLR is between the bounds: keep playing.
    Continue,
}

impl SprtDecision {
    /// Whether the match should stop.
    pub fn is_final(self) -> bool {
        self != SprtDecision::Continue
    }
}

impl fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::AcceptH1 => "H1 accepted",
            SprtDecision::Continue => "continue",
        })
    }
}

/// Why an SPRT configuration was rejected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SprtConfigError {
    /// A token without `=`.
    #[error("expected key=value, found `{0}`")]
    NotKeyValue(String),
    /// A key other than elo0, elo1, alpha, beta, model.
    #[error("unknown SPRT setting `{0}` (expected elo0, elo1, alpha, beta or model)")]
    UnknownKey(String),
    /// The same key twice.
    #[error("SPRT setting `{0}` given twice")]
    DuplicateKey(String),
    /// A value that is not a number.
    #[error("SPRT setting {key}: `{value}` is not a number")]
    NotANumber {
        /// The setting.
        key: String,
        /// What was given.
        value: String,
    },
    /// A model other than normalized or logistic.
    #[error("unknown Elo model `{0}` (expected normalized or logistic)")]
    UnknownModel(String),
    /// `elo0 ≥ elo1`.
    #[error("elo0 ({}) must be less than elo1 ({})", Short(*.elo0), Short(*.elo1))]
    BoundsNotIncreasing {
        /// The H0 bound.
        elo0: f64,
        /// The H1 bound.
        elo1: f64,
    },
    /// A bound beyond [`MAX_LOGISTIC_ELO`] or [`MAX_NORMALIZED_ELO`], or not finite.
    #[error("Elo bound {} is outside ±{limit} for the {model} model", Short(*.value))]
    BoundOutOfRange {
        /// The bound.
        value: f64,
        /// The largest magnitude accepted.
        limit: f64,
        /// The model the bounds are in.
        model: EloModel,
    },
    /// alpha or beta outside (0, 1).
    #[error("{name} ({}) must be strictly between 0 and 1", Short(*.value))]
    ErrorRateOutOfRange {
        /// "alpha" or "beta".
        name: &'static str,
        /// What was given.
        value: f64,
    },
    /// `alpha + beta ≥ 1`: the bounds would not be on either side of 0.
    #[error("alpha + beta ({} + {}) must be less than 1", Short(*.alpha), Short(*.beta))]
    ErrorRatesTooLarge {
        /// The type I error rate.
        alpha: f64,
        /// The type II error rate.
        beta: f64,
    },
}

/// A validated SPRT: hypotheses, error rates and the unit of the bounds.
///
/// Fields are private so that every value in use passed [`SprtConfig::new`];
/// parse one from `"elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized"`
/// (space- or comma-separated `key=value`, any subset, the rest defaulting
/// to [`SprtConfig::default`]). `Display` writes the same form back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtConfig {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    model: EloModel,
}

impl Default for SprtConfig {
    /// elo0 = 0, elo1 = 5, alpha = beta = 0.05, normalised Elo.
    fn default() -> SprtConfig {
        SprtConfig { elo0: 0.0, elo1: 5.0, alpha: 0.05, beta: 0.05, model: EloModel::Normalized }
    }
}

impl SprtConfig {
    /// Checks and builds a configuration: `elo0 < elo1`, both within the
    /// model's range, `0 < alpha, beta` and `alpha + beta < 1`.
    ///
    /// # Errors
    ///
    /// The first of those conditions that fails, as a [`SprtConfigError`].
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64, model: EloModel) -> Result<SprtConfig, SprtConfigError> {
        let limit = match model {
            EloModel::Normalized => MAX_NORMALIZED_ELO,
            EloModel::Logistic => MAX_LOGISTIC_ELO,
        };
        // NaN fails every comparison, so each check tests for it first.
        for value in [elo0, elo1] {
            if value.is_nan() || value.abs() > limit {
                return Err(SprtConfigError::BoundOutOfRange { value, limit, model });
            }
        }
        if elo0 >= elo1 {
            return Err(SprtConfigError::BoundsNotIncreasing { elo0, elo1 });
        }
        for (name, value) in [("alpha", alpha), ("beta", beta)] {
            if value.is_nan() || value <= 0.0 || value >= 1.0 {
                return Err(SprtConfigError::ErrorRateOutOfRange { name, value });
            }
        }
        if alpha + beta >= 1.0 {
            return Err(SprtConfigError::ErrorRatesTooLarge { alpha, beta });
        }
        Ok(SprtConfig { elo0, elo1, alpha, beta, model })
    }

    /// The Elo of H0.
    pub fn elo0(&self) -> f64 {
        self.elo0
    }

    /// The Elo of H1.
    pub fn elo1(&self) -> f64 {
        self.elo1
    }

    /// The largest probability of accepting H1 when H0 holds.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The largest probability of accepting H0 when H1 holds.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// The unit of `elo0` and `elo1`.
    pub fn model(&self) -> EloModel {
        self.model
    }

    /// `ln(β/(1−α))`: at or below it, H0 is accepted.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// `ln((1−β)/α)`: at or above it, H1 is accepted.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The generalised log-likelihood ratio of H1 against H0 on the pairs
    /// (0 for no pairs: no evidence either way). Always finite.
    pub fn llr(&self, penta: &Penta) -> f64 {
        self.llr_of_counts(&penta.0, SQRT_2)
    }

    /// The same test on single games (trinomial), for samples without
    /// pairing. Pairs are preferred: games of a pair are not independent.
    pub fn llr_trinomial(&self, wdl: &Wdl) -> f64 {
        self.llr_of_counts(&wdl.by_score(), 1.0)
    }

    /// Van den Bergh's closed-form approximation of [`SprtConfig::llr`]
    /// (fishtest's `LLR_normalized_alt` for normalised bounds,
    /// `LLR_alt2` for logistic ones). Close to the exact LLR on realistic
    /// samples (2.9461 against 2.9455 on the reference sample of the tests);
    /// the exact LLR falls back to it should a constrained fit ever fail.
    pub fn llr_approx(&self, penta: &Penta) -> f64 {
        self.approx_of_counts(&penta.0, SQRT_2)
    }

    /// What an LLR means under these bounds.
    pub fn decision(&self, llr: f64) -> SprtDecision {
        if llr >= self.upper_bound() {
            SprtDecision::AcceptH1
        } else if llr <= self.lower_bound() {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }

    /// Whether to stop after these pairs, and with which hypothesis.
    pub fn decide(&self, penta: &Penta) -> SprtDecision {
        self.decision(self.llr(penta))
    }

    /// LLR, bounds and decision together, for a report line.
    pub fn status(&self, penta: &Penta) -> SprtStatus {
        self.status_of(self.llr(penta))
    }

    /// [`SprtConfig::status`] for single games ([`SprtConfig::llr_trinomial`]).
    pub fn status_trinomial(&self, wdl: &Wdl) -> SprtStatus {
        self.status_of(self.llr_trinomial(wdl))
    }

    fn status_of(&self, llr: f64) -> SprtStatus {
        SprtStatus {
            llr,
            lower_bound: self.lower_bound(),
            upper_bound: self.upper_bound(),
            elo0: self.elo0,
            elo1: self.elo1,
            model: self.model,
            decision: self.decision(llr),
        }
    }

    /// The LLR from bucket counts ordered by score; `t_per_sample` is how
    /// much larger a sample's t-value is than a game's (√2 for a pair).
    fn llr_of_counts<const N: usize>(&self, counts: &[u64; N], t_per_sample: f64) -> f64 {
        self.exact_llr_of_counts(counts, t_per_sample).unwrap_or_else(|| self.approx_of_counts(counts, t_per_sample))
    }

    /// The exact GSPRT, or `None` if a constrained fit fails (which the
    /// validated bounds are chosen to prevent, see `properties.rs`).
    pub(super) fn exact_llr_of_counts<const N: usize>(&self, counts: &[u64; N], t_per_sample: f64) -> Option<f64> {
        let Some((total, empirical)) = regularized(counts) else {
            return Some(0.0);
        };
        let scores = bucket_scores::<N>();
        let (p0, p1) = match self.model {
            EloModel::Logistic => {
                let fit = |elo| mle_with_expectation(&scores, &empirical, score_from_elo(elo));
                fit(self.elo0).zip(fit(self.elo1))?
            }
            EloModel::Normalized => {
                let fit = |nelo| mle_with_t_value(&scores, &empirical, 0.5, nelo / NELO_PER_T * t_per_sample);
                fit(self.elo0).zip(fit(self.elo1))?
            }
        };
        Some(total * llr_per_sample(&empirical, &p0, &p1))
    }

    /// The closed-form approximation, from the regularised mean and variance.
    fn approx_of_counts<const N: usize>(&self, counts: &[u64; N], t_per_sample: f64) -> f64 {
        let Some((total, empirical)) = regularized(counts) else {
            return 0.0;
        };
        let (mean, variance) = mean_variance(&bucket_scores::<N>(), &empirical);
        match self.model {
            EloModel::Logistic => {
                let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
                total * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)
            }
            EloModel::Normalized => {
                // In per-game units: games = samples · t_per_sample².
                let games = total * t_per_sample * t_per_sample;
                let t = (mean - 0.5) / (variance.sqrt() * t_per_sample);
                let (t0, t1) = (self.elo0 / NELO_PER_T, self.elo1 / NELO_PER_T);
                games / 2.0 * ((1.0 + (t - t0).powi(2)) / (1.0 + (t - t1).powi(2))).ln()
            }
        }
    }
}

/// The score of bucket `i` of `N`, `i/(N−1)`.
fn bucket_scores<const N: usize>() -> [f64; N] {
    std::array::from_fn(|i| i as f64 / (N - 1) as f64)
}

/// Total and empirical distribution with empty buckets counted as 1e-3, or
/// `None` for no samples at all.
fn regularized<const N: usize>(counts: &[u64; N]) -> Option<(f64, [f64; N])> {
    if counts.iter().all(|&count| count == 0) {
        return None;
    }
    let weights = counts.map(|count| if count == 0 { EMPTY_BUCKET } else { count as f64 });
    let total: f64 = weights.iter().sum();
    Some((total, weights.map(|weight| weight / total)))
}

impl FromStr for SprtConfig {
    type Err = SprtConfigError;

    /// Parses `key=value` settings separated by spaces or commas; keys are
    /// elo0, elo1, alpha, beta and model, each at most once.
    fn from_str(text: &str) -> Result<SprtConfig, SprtConfigError> {
        SprtConfig::parse_over(text, SprtConfig::default())
    }
}

impl SprtConfig {
    /// Parses settings as [`FromStr`] does, the keys not given taken from
    /// `defaults` (a command whose default bounds are not
    /// [`SprtConfig::default`]'s: `verify --sprt elo0=0` keeps verify's elo1).
    pub fn parse_over(text: &str, defaults: SprtConfig) -> Result<SprtConfig, SprtConfigError> {
        let (mut elo0, mut elo1, mut alpha, mut beta, mut model) = (None, None, None, None, None);
        for token in text.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()) {
            let (key, value) = token.split_once('=').ok_or_else(|| SprtConfigError::NotKeyValue(token.to_string()))?;
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim();
            let number = || value.parse::<f64>().map_err(|_| SprtConfigError::NotANumber { key: key.clone(), value: value.to_string() });
            let already_set = match key.as_str() {
                "elo0" => elo0.replace(number()?).is_some(),
                "elo1" => elo1.replace(number()?).is_some(),
                "alpha" => alpha.replace(number()?).is_some(),
                "beta" => beta.replace(number()?).is_some(),
                "model" => model.replace(value.parse::<EloModel>()?).is_some(),
                _ => return Err(SprtConfigError::UnknownKey(key)),
            };
            if already_set {
                return Err(SprtConfigError::DuplicateKey(key));
            }
        }
        SprtConfig::new(
            elo0.unwrap_or(defaults.elo0),
            elo1.unwrap_or(defaults.elo1),
            alpha.unwrap_or(defaults.alpha),
            beta.unwrap_or(defaults.beta),
            model.unwrap_or(defaults.model),
        )
    }
}

impl fmt::Display for SprtConfig {
    /// `elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized`; parses back
    /// to the same configuration.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "elo0={} elo1={} alpha={} beta={} model={}", self.elo0, self.elo1, self.alpha, self.beta, self.model)
    }
}

/// The SPRT's state after some pairs. `Display` gives
/// `LLR 2.95 (-2.94, 2.94) [0.00, 2.00] H1 accepted`: the LLR, its bounds,
/// the Elo hypotheses and the decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtStatus {
    /// The log-likelihood ratio.
    pub llr: f64,
    /// `ln(β/(1−α))`.
    pub lower_bound: f64,
    /// `ln((1−β)/α)`.
    pub upper_bound: f64,
    /// The Elo of H0.
    pub elo0: f64,
    /// The Elo of H1.
    pub elo1: f64,
    /// The unit of the Elo bounds.
    pub model: EloModel,
    /// Stop or continue.
    pub decision: SprtDecision,
}

impl fmt::Display for SprtStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LLR {} ({}, {}) [{}, {}] {}",
            Fixed2(self.llr),
            Fixed2(self.lower_bound),
            Fixed2(self.upper_bound),
            Fixed2(self.elo0),
            Fixed2(self.elo1),
            self.decision
        )
    }
}

#[cfg(test)]
mod tests;
