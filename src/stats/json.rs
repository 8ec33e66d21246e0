//! The statistics' JSON shapes, with the keys every `--json` output
//! shares (`stats`, `match`, `verify`). Keys are stable: new ones may be
//! added, none renamed or removed. Each shape is a struct whose field order
//! is the key order.
//!
//! An estimate is `{"samples", "score", "score_ci95", "elo", "elo_ci95",
//! "elo_interval", "nelo", "nelo_ci95", "los"}` (`elo_ci95` and
//! `elo_interval` are `null` when the interval is unbounded), or
//! `{"degenerate": "sentence"}` when the sample has none. An SPRT is
//! `{"elo0", "elo1", "alpha", "beta", "model", "llr", "lower_bound",
//! "upper_bound", "decision"}` with `decision` one of `"H1"`, `"H0"`,
//! `"continue"`.

use serde::Serialize;

use super::counts::{Penta, Wdl};
use super::elo::{Degenerate, EloEstimate};
use super::sprt::{SprtConfig, SprtDecision, SprtStatus};

/// An estimate, or why there is none.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum EstimateJson {
    /// The estimate.
    Estimate {
        /// Games (or pairs) behind it.
        samples: u64,
        /// The mean score, 0 to 1.
        score: f64,
        /// Half the score's 95% interval.
        score_ci95: f64,
        /// Elo.
        elo: f64,
        /// Half the Elo interval, `null` when unbounded.
        elo_ci95: Option<f64>,
        /// The Elo interval `[low, high]`, `null` when unbounded.
        elo_interval: Option<[f64; 2]>,
        /// Normalised Elo.
        nelo: f64,
        /// Half its 95% interval.
        nelo_ci95: f64,
        /// Likelihood of superiority.
        los: f64,
    },
    /// Why the sample has none.
    Degenerate {
        /// The sentence.
        degenerate: String,
    },
}

impl From<Result<EloEstimate, Degenerate>> for EstimateJson {
    fn from(estimate: Result<EloEstimate, Degenerate>) -> Self {
        match estimate {
            Ok(e) => EstimateJson::Estimate {
                samples: e.samples,
                score: e.score,
                score_ci95: e.score_ci95,
                elo: e.elo,
                elo_ci95: e.ci95,
                elo_interval: e.elo_interval().map(|(lo, hi)| [lo, hi]),
                nelo: e.nelo,
                nelo_ci95: e.nelo_ci95,
                los: e.los,
            },
            Err(why) => EstimateJson::Degenerate { degenerate: why.to_string() },
        }
    }
}

/// `{"wins", "draws", "losses"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct WdlJson {
    /// Wins of the first engine.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
}

impl From<&Wdl> for WdlJson {
    fn from(wdl: &Wdl) -> Self {
        WdlJson { wins: wdl.wins, draws: wdl.draws, losses: wdl.losses }
    }
}

/// `{"LL", "LD", "DD+WL", "WD", "WW"}`: pairs by the pair's score, 0 to 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PentaJson {
    /// Pairs scoring 0.
    #[serde(rename = "LL")]
    pub ll: u64,
    /// Pairs scoring ½.
    #[serde(rename = "LD")]
    pub ld: u64,
    /// Pairs scoring 1.
    #[serde(rename = "DD+WL")]
    pub dd_wl: u64,
    /// Pairs scoring 1½.
    #[serde(rename = "WD")]
    pub wd: u64,
    /// Pairs scoring 2.
    #[serde(rename = "WW")]
    pub ww: u64,
}

impl From<&Penta> for PentaJson {
    fn from(penta: &Penta) -> Self {
        let [ll, ld, dd_wl, wd, ww] = penta.0;
        PentaJson { ll, ld, dd_wl, wd, ww }
    }
}

/// The decision as a short word: `"H1"`, `"H0"` or `"continue"`.
pub fn decision_word(decision: SprtDecision) -> &'static str {
    match decision {
        SprtDecision::AcceptH1 => "H1",
        SprtDecision::AcceptH0 => "H0",
        SprtDecision::Continue => "continue",
    }
}

/// The SPRT's settings and where it stands.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SprtJson {
    /// The Elo of H0.
    pub elo0: f64,
    /// The Elo of H1.
    pub elo1: f64,
    /// The false-positive rate.
    pub alpha: f64,
    /// The false-negative rate.
    pub beta: f64,
    /// The unit of the Elo bounds (`logistic`, `normalized`).
    pub model: String,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// Accept H0 at or below it.
    pub lower_bound: f64,
    /// Accept H1 at or above it.
    pub upper_bound: f64,
    /// [`decision_word`].
    pub decision: &'static str,
}

impl SprtJson {
    /// The settings of `config` with `status`, the state it reached.
    pub fn new(config: &SprtConfig, status: &SprtStatus) -> SprtJson {
        SprtJson {
            elo0: config.elo0(),
            elo1: config.elo1(),
            alpha: config.alpha(),
            beta: config.beta(),
            model: config.model().to_string(),
            llr: status.llr,
            lower_bound: status.lower_bound,
            upper_bound: status.upper_bound,
            decision: decision_word(status.decision),
        }
    }
}
