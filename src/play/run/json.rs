//! The JSON of `match`, `selfplay` and `verify` reports: structs whose
//! field order is the key order, with the statistics' shapes of
//! [`crate::stats::json`].

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use super::{MatchReport, RunKind, StopReason, VerifyOutcome, VerifyReport, verdict_estimate};
use crate::stats::json::{EstimateJson, PentaJson, SprtJson, WdlJson};

impl MatchReport {
    /// The report as one JSON object: `kind` (`match`, `verify`,
    /// `selfplay`), `games` (all committed), `stopped` (`{"kind":
    /// "all_games_played"}`, `{"kind": "sprt_accepted_h1", "pairs": N}`,
    /// `{"kind": "sprt_accepted_h0", "pairs": N}` or `null`), `results` (per
    /// opponent: `engine`, `opponent`, `games` {wins, draws, losses},
    /// `pairs` {LL, LD, DD+WL, WD, WW}, `trinomial` and `pentanomial`
    /// estimates, `sprt` or `null`; see [`crate::stats::json`]), `pgn_out`
    /// and `state` (paths or `null`), `timing` {games, wall_seconds,
    /// engine_seconds, nodes} of this run.
    pub fn json(&self) -> MatchReportJson<'_> {
        let results = self
            .results
            .iter()
            .map(|r| OpponentJson {
                engine: &r.engine,
                opponent: &r.opponent,
                games: WdlJson::from(&r.wdl),
                pairs: PentaJson::from(&r.penta),
                trinomial: r.wdl.estimate().into(),
                pentanomial: r.penta.estimate().into(),
                sprt: self.sprt.map(|s| SprtJson::new(&s, &s.status(&r.penta))),
            })
            .collect();
        let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
        MatchReportJson {
            kind: self.kind,
            games: self.games,
            stopped: self.stopped,
            results,
            pgn_out: path(&self.pgn_out),
            state: path(&self.state),
            timing: TimingJson {
                games: self.timing.games,
                wall_seconds: self.timing.wall.as_secs_f64(),
                engine_seconds: self.timing.engine.as_secs_f64(),
                nodes: self.timing.nodes,
            },
        }
    }

    /// [`MatchReport::json`] as a value (what `match --json` prints).
    pub fn to_json(&self) -> Value {
        crate::json::to_value(&self.json())
    }
}

/// [`MatchReport`]'s JSON (see [`MatchReport::json`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchReportJson<'a> {
    /// `match`, `verify` or `selfplay`.
    pub kind: RunKind,
    /// Games committed, earlier runs included.
    pub games: u64,
    /// Why it stopped, `null` if it did not.
    pub stopped: Option<StopReason>,
    /// Per opponent that played.
    pub results: Vec<OpponentJson<'a>>,
    /// The games' file.
    pub pgn_out: Option<String>,
    /// The state file.
    pub state: Option<String>,
    /// This run's games and time.
    pub timing: TimingJson,
}

/// One opponent's counts and statistics in [`MatchReportJson`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpponentJson<'a> {
    /// The first engine.
    pub engine: &'a str,
    /// Its opponent.
    pub opponent: &'a str,
    /// The first engine's single-game counts.
    pub games: WdlJson,
    /// The pairs by score.
    pub pairs: PentaJson,
    /// The estimate from single games.
    pub trinomial: EstimateJson,
    /// The estimate from pairs.
    pub pentanomial: EstimateJson,
    /// The SPRT on the pairs, `null` without one.
    pub sprt: Option<SprtJson>,
}

/// What this run played, in [`MatchReportJson`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TimingJson {
    /// Games played in this run.
    pub games: u64,
    /// Wall-clock seconds of the run.
    pub wall_seconds: f64,
    /// Seconds the engines searched.
    pub engine_seconds: f64,
    /// Nodes the engines searched.
    pub nodes: u64,
}

impl VerifyReport {
    /// The match's JSON ([`MatchReport::json`]) with, last, `verdict`:
    /// `outcome` (`accepted_h1`, `accepted_h0`, `undecided`), `exit_code`,
    /// `estimate` (see [`crate::stats::json`]), `basis` (pairs or single
    /// games) and `text` (the paragraph `Display` gives).
    pub fn json(&self) -> VerifyReportJson<'_> {
        let (estimate, basis) = match verdict_estimate(&self.report.results[0]) {
            Ok((e, basis)) => (Ok(e).into(), Some(basis)),
            Err(why) => (Err(why).into(), None),
        };
        VerifyReportJson {
            report: self.report.json(),
            verdict: VerdictJson { outcome: self.outcome, exit_code: self.outcome.exit_code(), estimate, basis, text: self.to_string() },
        }
    }

    /// [`VerifyReport::json`] as a value (what `verify --json` prints).
    pub fn to_json(&self) -> Value {
        crate::json::to_value(&self.json())
    }
}

/// [`VerifyReport`]'s JSON: the match's keys, then `verdict`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VerifyReportJson<'a> {
    /// The match.
    #[serde(flatten)]
    pub report: MatchReportJson<'a>,
    /// What it means.
    pub verdict: VerdictJson,
}

/// The verdict in [`VerifyReportJson`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VerdictJson {
    /// `accepted_h1`, `accepted_h0` or `undecided`.
    pub outcome: VerifyOutcome,
    /// [`VerifyOutcome::exit_code`].
    pub exit_code: u8,
    /// The Elo estimate the verdict quotes.
    pub estimate: EstimateJson,
    /// Whether it is from pairs or single games, `null` without one.
    pub basis: Option<&'static str>,
    /// The paragraph `Display` gives.
    pub text: String,
}
