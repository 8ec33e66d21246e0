//! `pgntune stats` as a library call: counts in, every statistic out.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use super::counts::{Penta, Wdl};
use super::json::{EstimateJson, PentaJson, SprtJson, WdlJson};
use super::report::Report;
use super::sprt::{SprtConfig, SprtStatus};

/// What to summarise: single-game counts, game-pair counts or both, and
/// optionally an SPRT to judge them by.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StatsConfig {
    /// Wins, draws and losses of the first engine.
    pub wdl: Option<Wdl>,
    /// Game pairs by score (LL, LD, DD+WL, WD, WW).
    pub penta: Option<Penta>,
    /// The SPRT bounds.
    pub sprt: Option<SprtConfig>,
}

/// Why there is nothing to summarise.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StatsError {
    /// Neither single-game nor pair counts were given.
    #[error("no counts: give win/draw/loss counts or game-pair counts")]
    NoCounts,
    /// Single-game and pair counts that cannot be the same games.
    #[error("the win/draw/loss counts ({wdl}) and the game-pair counts ({penta}) are not the same games: {why}")]
    Mismatch {
        /// The single-game counts.
        wdl: String,
        /// The pair counts.
        penta: String,
        /// Which sum differs.
        why: String,
    },
}

/// Refuses single-game and pair counts of different games: each pair is two
/// games, and the pairs' points are the games' points. (Both were reported
/// side by side, each statistic from its own counts.)
fn check_same_games(wdl: &Wdl, penta: &Penta) -> Result<(), StatsError> {
    let p = penta.0.map(u128::from);
    let pair_games = 2 * p.iter().sum::<u128>();
    let games = u128::from(wdl.wins) + u128::from(wdl.draws) + u128::from(wdl.losses);
    // Half points: a pair of score s/2 holds s half points; a win 2, a draw 1.
    let pair_half_points = p[1] + 2 * p[2] + 3 * p[3] + 4 * p[4];
    let half_points = 2 * u128::from(wdl.wins) + u128::from(wdl.draws);
    let why = if games != pair_games {
        format!("{games} games against {pair_games} in the pairs")
    } else if half_points != pair_half_points {
        format!("a score of {} against {} in the pairs", half_points as f64 / 2.0, pair_half_points as f64 / 2.0)
    } else {
        return Ok(());
    };
    Err(StatsError::Mismatch { wdl: format!("{} {} {}", wdl.wins, wdl.draws, wdl.losses), penta: penta.0.map(|c| c.to_string()).join(" "), why })
}

/// The statistics of some counts. `Display` gives fastchess's report
/// lines (the trinomial ones only with single-game counts) and, with an
/// SPRT on pairs, the exact and the approximate LLR; [`StatsReport::to_json`]
/// gives the same as one object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StatsReport {
    /// The counts summarised.
    pub config: StatsConfig,
    /// The SPRT on the pairs if there are any, else on single games.
    pub sprt: Option<SprtStatus>,
    /// Fishtest's closed-form LLR on the pairs, beside the exact one.
    pub llr_approx: Option<f64>,
}

/// Summarises counts.
pub fn summarise(config: StatsConfig) -> Result<StatsReport, StatsError> {
    if config.wdl.is_none() && config.penta.is_none() {
        return Err(StatsError::NoCounts);
    }
    if let (Some(wdl), Some(penta)) = (&config.wdl, &config.penta) {
        check_same_games(wdl, penta)?;
    }
    let sprt = config.sprt.map(|s| match &config.penta {
        Some(p) => s.status(p),
        None => s.status_trinomial(&config.wdl.unwrap_or_default()),
    });
    let llr_approx = config.sprt.zip(config.penta).map(|(s, p)| s.llr_approx(&p));
    Ok(StatsReport { config, sprt, llr_approx })
}

/// [`StatsReport`]'s JSON: the counts, the estimates from each, the SPRT.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatsReportJson {
    /// The single-game counts, `null` when not given.
    pub games: Option<WdlJson>,
    /// The pair counts, `null` when not given.
    pub pairs: Option<PentaJson>,
    /// The estimate from single games.
    pub trinomial: Option<EstimateJson>,
    /// The estimate from pairs.
    pub pentanomial: Option<EstimateJson>,
    /// The SPRT, `null` without bounds.
    pub sprt: Option<StatsSprtJson>,
}

/// The SPRT of `stats`: the shared shape ([`SprtJson`]) and, last,
/// fishtest's closed-form LLR (`null` without pairs).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatsSprtJson {
    /// Settings, LLR, bounds and decision.
    #[serde(flatten)]
    pub sprt: SprtJson,
    /// The closed-form LLR on the pairs.
    pub llr_approx: Option<f64>,
}

impl StatsReport {
    /// The report as one JSON object: `games` (`{"wins", "draws",
    /// "losses"}` or `null`), `pairs` (`{"LL", "LD", "DD+WL", "WD", "WW"}` or
    /// `null`), `trinomial` and `pentanomial` (estimates, see
    /// [`super::json`], or `null` without their counts), `sprt` (`null`
    /// without bounds; it ends with `llr_approx`, `null` without pairs).
    pub fn json(&self) -> StatsReportJson {
        let c = &self.config;
        StatsReportJson {
            games: c.wdl.as_ref().map(WdlJson::from),
            pairs: c.penta.as_ref().map(PentaJson::from),
            trinomial: c.wdl.map(|w| w.estimate().into()),
            pentanomial: c.penta.map(|p| p.estimate().into()),
            sprt: c.sprt.zip(self.sprt).map(|(config, status)| StatsSprtJson { sprt: SprtJson::new(&config, &status), llr_approx: self.llr_approx }),
        }
    }

    /// [`StatsReport::json`] as a value (what `stats --json` prints).
    pub fn to_json(&self) -> Value {
        crate::json::to_value(&self.json())
    }
}

impl fmt::Display for StatsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.config;
        let report = Report { wdl: c.wdl.unwrap_or_default(), penta: c.penta, sprt: c.sprt };
        if c.wdl.is_some() {
            write!(f, "{report}")?;
        } else {
            // Pairs alone fix the points, not the split into wins and draws
            // (DD and WL look alike): the pentanomial lines only.
            let text = report.to_string();
            let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with("Games ") && !l.starts_with("Trinomial")).collect();
            write!(f, "{}", lines.join("\n"))?;
        }
        if let (Some(status), Some(approx)) = (&self.sprt, self.llr_approx) {
            write!(f, "\nLLR {:.3} (generalised SPRT, MLE multinomial); {approx:.3} by fishtest's closed-form approximation", status.llr)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_built_without_the_command_line() {
        let sprt: SprtConfig = "elo0=0 elo1=2 alpha=0.05 beta=0.05 model=normalized".parse().unwrap();
        let report = summarise(StatsConfig { wdl: None, penta: Some(Penta([379, 10170, 21828, 10640, 343])), sprt: Some(sprt) }).unwrap();
        let text = report.to_string();
        assert!(text.starts_with("Pairs 43360:") && !text.contains("Trinomial"), "{text}");
        assert!(text.ends_with("LLR 2.945 (generalised SPRT, MLE multinomial); 2.946 by fishtest's closed-form approximation"), "{text}");
        let json = report.to_json();
        assert_eq!(json["sprt"]["decision"], "H1");
        assert_eq!(json["pairs"]["DD+WL"], 21828);
        assert!(json["games"].is_null() && json["trinomial"].is_null());
        assert!((json["sprt"]["llr"].as_f64().unwrap() - 2.945).abs() < 5e-4);
        assert_eq!(summarise(StatsConfig::default()), Err(StatsError::NoCounts));
        let all_won = summarise(StatsConfig { wdl: Some(Wdl::new(5, 0, 0)), ..StatsConfig::default() }).unwrap().to_json();
        assert!(all_won["trinomial"]["degenerate"].as_str().unwrap().contains("every game won"));
    }
}
