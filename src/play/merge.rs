//! Merging the shards of a match ([`super::shard`]) into the match they
//! are parts of: the same PGN, byte for byte and in the same order, and
//! the same statistics as one run of the whole match.
//!
//! Every shard state is checked as a resumed match would be (its counts,
//! its PGN's length, hash and number of games), its games are put at their
//! numbers in the whole match, and the results are counted again in game
//! order, from game 0, for as long as no game is missing.
//!
//! **The SPRT across shards** is decided here, merge-then-decide: the
//! stopping rule of one run (after every complete pair, in pair order) is
//! applied to the merged games, so a merged match stops at the very pair
//! where one run would have, with the same counts and PGN; the shards'
//! games after that pair are left out. Shards are played in waves (a
//! window of pairs per wave, `--pair-range`): after each wave the shards
//! so far are merged, and the next wave starts only if the SPRT has not
//! decided. A merge that ends at a missing game and has not decided keeps
//! a state of the whole match there, which `match --resume` can continue
//! on one machine, or the next wave's shards complete.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::config::{MatchConfig, RunKind, StopReason};
use super::run::{MatchReport, RunError, RunFiles, prepare_new};
use super::state::{MatchState, PgnOutput, StateError, fnv1a, game_texts};
use super::tournament::{MatchError, Timing, outcome_for_first};
use crate::atomic::{OutputKind, OutputPlan};
use crate::dataset::GameResult;
use crate::stats::GameOutcome;

/// What to merge and where the merged match goes.
#[derive(Clone, Debug)]
pub struct MergeConfig {
    /// The shards' state files.
    pub states: Vec<PathBuf>,
    /// The merged match's games and state.
    pub files: RunFiles,
}

/// The merged match, and how much of it the shards covered.
#[derive(Clone, Debug, PartialEq)]
pub struct MergeReport {
    /// The merged match, as one run would report it.
    pub report: MatchReport,
    /// Shard states merged.
    pub shards: usize,
    /// Games the shards had played.
    pub games_played: u64,
    /// Games of the whole match (before an SPRT stop).
    pub games_total: u64,
    /// The first game no shard had played, when the merge ended there undecided.
    pub missing: Option<u64>,
}

impl MergeReport {
    /// One line about the merge itself.
    pub fn summary(&self) -> String {
        let mut line = format!(
            "merged {} shard states: {} games played, {} counted of the match's {}",
            self.shards, self.games_played, self.report.games, self.games_total
        );
        if let Some(g) = self.missing {
            line.push_str(&format!("; game {g} (round {}.{}) is in no shard yet, so the match is not finished", g / 2 + 1, g % 2 + 1));
        }
        line
    }
}

fn inconsistent(path: &std::path::Path, message: String) -> RunError {
    RunError::Match(MatchError::State(StateError::Inconsistent { path: path.display().to_string(), message }))
}

/// A shard's committed games, checked against its state: `(game number in
/// the whole match, outcome for the first engine, PGN text)`.
fn shard_games(path: &std::path::Path, state: &MatchState) -> Result<Vec<(u64, GameOutcome, String)>, RunError> {
    let Some(pgn) = &state.config.pgn_out else {
        return Err(inconsistent(path, "the shard kept no PGN, so its games cannot be merged".into()));
    };
    let text = std::fs::read(pgn).map_err(|source| RunError::Io { path: pgn.clone(), source })?;
    if (text.len() as u64) < state.pgn_bytes || fnv1a(super::state::FNV_START, &text[..state.pgn_bytes as usize]) != state.pgn_hash {
        return Err(inconsistent(pgn, format!("does not begin with the {} bytes of games its state {} recorded", state.pgn_bytes, path.display())));
    }
    let games = game_texts(&text[..state.pgn_bytes as usize]);
    if games.len() as u64 != state.committed {
        return Err(inconsistent(pgn, format!("holds {} games, but its state has {} committed", games.len(), state.committed)));
    }
    // Count the games again, to check the results against the state's totals.
    let mut recount = MatchState::new(state.config.clone());
    let mut out = Vec::with_capacity(games.len());
    for (seq, game) in games.into_iter().enumerate() {
        let number = state.config.game_at(seq as u64);
        let text = String::from_utf8_lossy(game).into_owned();
        let result = text
            .lines()
            .find_map(|l| l.strip_prefix("[Result \"").and_then(|r| r.strip_suffix("\"]")))
            .and_then(|r| GameResult::from_tag(r.as_bytes()))
            .ok_or_else(|| inconsistent(pgn, format!("game {} has no result", seq + 1)))?;
        let outcome = outcome_for_first(number, result);
        recount.count(outcome);
        out.push((number, outcome, text));
    }
    if recount.totals != state.totals {
        return Err(inconsistent(path, "its counts differ from the results of the games in its PGN".into()));
    }
    Ok(out)
}

/// Merges shard states into one match (see the module's doc).
pub fn merge_shards(config: &MergeConfig) -> Result<MergeReport, RunError> {
    if config.states.is_empty() {
        return Err(RunError::Unsuitable("no shard states to merge"));
    }
    let mut whole: Option<(MatchConfig, PathBuf)> = None;
    let mut games: BTreeMap<u64, (GameOutcome, String, usize)> = BTreeMap::new();
    // The merged files may not be any shard's files.
    let mut plan = OutputPlan::new(true).allow_stdout();
    for (i, path) in config.states.iter().enumerate() {
        let state = MatchState::load(path).map_err(MatchError::from)?;
        if state.config.kind != RunKind::Match {
            return Err(RunError::WrongKind { path: path.clone(), found: state.config.kind, expected: RunKind::Match });
        }
        if state.config.shard.is_none() {
            return Err(inconsistent(path, "not the state of a shard (--shard K/N)".into()));
        }
        plan.input(path);
        if let Some(pgn) = &state.config.pgn_out {
            plan.input(pgn);
        }
        let match_config = MatchConfig { shard: None, pgn_out: None, ..state.config.clone() };
        match &whole {
            None => whole = Some((match_config, path.clone())),
            Some((first, first_path)) if *first != match_config => {
                return Err(inconsistent(
                    path,
                    format!("a shard of another match than {} (engines, limits, openings, date or seed differ)", first_path.display()),
                ));
            }
            Some(_) => {}
        }
        for (number, outcome, text) in shard_games(path, &state)? {
            if let Some((_, _, other)) = games.insert(number, (outcome, text, i)) {
                return Err(inconsistent(path, format!("game {number} is also in {}: shards must not overlap", config.states[other].display())));
            }
        }
    }
    let (whole, _) = whole.expect("at least one state");
    if let Some(path) = &config.files.pgn_out {
        plan.output(path, OutputKind::MatchGames)?;
    }
    if let Some(path) = config.files.state_path().filter(|_| config.files.pgn_out.as_ref().is_some_and(|p| !crate::atomic::is_stdout(p))) {
        plan.output(&path, OutputKind::State)?;
    }
    let files = prepare_new(&config.files, RunKind::Match, &config.states)?;
    let merged = MatchConfig { pgn_out: config.files.pgn_out.clone(), ..whole };
    let mut state = MatchState::new(merged);
    let mut pgn = match &state.config.pgn_out {
        Some(path) => Some(PgnOutput::open(path, &state, true).map_err(MatchError::from)?),
        None => None,
    };
    let games_played = games.len() as u64;
    let mut missing = None;
    while state.committed < state.cutoff {
        let g = state.committed;
        let Some((outcome, text, _)) = games.remove(&g) else {
            missing = Some(g);
            break;
        };
        if let Some(out) = pgn.as_mut() {
            state.pgn_bytes += out.append(&text).map_err(MatchError::from)?;
            state.pgn_hash = fnv1a(state.pgn_hash, text.as_bytes());
        }
        state.count(outcome);
        state.decide_sprt();
    }
    if state.committed == state.cutoff && state.stopped.is_none() {
        state.stopped = Some(StopReason::AllGamesPlayed);
    }
    if let Some(path) = &files.state {
        state.save(path).map_err(MatchError::from)?;
    }
    let games_total = state.config.total_games();
    let report = MatchReport::new(&state, Timing::default(), files.state.clone(), files.games_on_stdout);
    Ok(MergeReport { report, shards: config.states.len(), games_played, games_total, missing })
}
