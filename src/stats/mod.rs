//! Match statistics: Elo, normalised Elo, LOS and the SPRT, as pure functions
//! over win/draw/loss and pentanomial game-pair counts.
//!
//! Nothing here knows about engines or games in progress; the match runner
//! counts results into [`Wdl`] and [`Penta`] and asks this module what they
//! mean. Definitions follow fastchess (`elo_wdl.cpp`, `elo_pentanomial.cpp`,
//! `sprt.cpp`) and fishtest (`stat_util.py`, `LLRcalc.py`), and the tests
//! check them against the numbers those projects publish.
//!
//! ```
//! use pgntune::stats::{EloModel, Penta, SprtConfig, SprtDecision, Wdl};
//!
//! let estimate = Wdl::new(136, 111, 96).estimate().unwrap();
//! assert_eq!(estimate.to_string(), "Elo 40.70 ± 30.43 (95%), nElo 49.77 ± 36.77, LOS 99.60%");
//!
//! let sprt: SprtConfig = "elo0=0 elo1=2 alpha=0.05 beta=0.05 model=normalized".parse().unwrap();
//! let pairs = Penta([379, 10170, 21828, 10640, 343]);
//! assert_eq!(sprt.decide(&pairs), SprtDecision::AcceptH1);
//! assert_eq!(sprt.status(&pairs).to_string(), "LLR 2.95 (-2.94, 2.94) [0.00, 2.00] H1 accepted");
//!
//! // Degenerate samples are sentences, not `inf ± nan`.
//! assert_eq!(Wdl::default().estimate().unwrap_err().to_string(), "no games played");
//! ```

mod counts;
mod display;
mod elo;
pub mod json;
mod mle;
mod normal;
mod report;
mod sprt;
mod summary;

pub use counts::{GameOutcome, Penta, Wdl};
pub use display::Signed1;
pub use elo::{Degenerate, EloEstimate, NELO_PER_T, elo_from_score, score_from_elo};
pub use normal::{Z_95, normal_cdf};
pub use report::Report;
pub use sprt::{EloModel, MAX_LOGISTIC_ELO, MAX_NORMALIZED_ELO, SprtConfig, SprtConfigError, SprtDecision, SprtStatus};
pub use summary::{StatsConfig, StatsError, StatsReport, StatsReportJson, StatsSprtJson, summarise};

#[cfg(test)]
mod properties;
