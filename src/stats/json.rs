//! The statistics as JSON values, with the keys every `--json` output
//! shares (`stats`, `match`, `verify`). Keys are stable: new ones may be
//! added, none renamed or removed.
//!
//! An estimate is `{"samples", "score", "score_ci95", "elo", "elo_ci95",
//! "elo_interval", "nelo", "nelo_ci95", "los"}` (`elo_ci95` and
//! `elo_interval` are `null` when the interval is unbounded), or
//! `{"degenerate": "sentence"}` when the sample has none. An SPRT is
//! `{"elo0", "elo1", "alpha", "beta", "model", "llr", "lower_bound",
//! "upper_bound", "decision"}` with `decision` one of `"H1"`, `"H0"`,
//! `"continue"`.

use serde_json::{Value, json};

use super::counts::{Penta, Wdl};
use super::elo::{Degenerate, EloEstimate};
use super::sprt::{SprtConfig, SprtDecision, SprtStatus};

/// An estimate, or why there is none.
pub fn estimate_json(estimate: Result<EloEstimate, Degenerate>) -> Value {
    match estimate {
        Ok(e) => json!({
            "samples": e.samples,
            "score": e.score,
            "score_ci95": e.score_ci95,
            "elo": e.elo,
            "elo_ci95": e.ci95,
            "elo_interval": e.elo_interval().map(|(lo, hi)| [lo, hi]),
            "nelo": e.nelo,
            "nelo_ci95": e.nelo_ci95,
            "los": e.los,
        }),
        Err(why) => json!({ "degenerate": why.to_string() }),
    }
}

/// `{"wins", "draws", "losses"}`.
pub fn wdl_json(wdl: &Wdl) -> Value {
    json!({ "wins": wdl.wins, "draws": wdl.draws, "losses": wdl.losses })
}

/// `{"LL", "LD", "DD+WL", "WD", "WW"}`: pairs by the pair's score, 0 to 2.
pub fn penta_json(penta: &Penta) -> Value {
    let [ll, ld, dd_wl, wd, ww] = penta.0;
    json!({ "LL": ll, "LD": ld, "DD+WL": dd_wl, "WD": wd, "WW": ww })
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
pub fn sprt_json(config: &SprtConfig, status: &SprtStatus) -> Value {
    json!({
        "elo0": config.elo0(),
        "elo1": config.elo1(),
        "alpha": config.alpha(),
        "beta": config.beta(),
        "model": config.model().to_string(),
        "llr": status.llr,
        "lower_bound": status.lower_bound,
        "upper_bound": status.upper_bound,
        "decision": decision_word(status.decision),
    })
}
