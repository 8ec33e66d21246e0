//! Matches and gauntlets: who plays whom with which opening, on how many
//! threads, in what order results count, and when the SPRT stops it all.
//!
//! Game `g` belongs to pair `g / 2`; in a pair both engines play the same
//! opening, the first engine with white in the even game. Pairs cycle
//! through the opponents (a gauntlet of the first engine against the
//! others; two engines make a match). Results count in game order, so the
//! statistics, the SPRT's stopping point and the PGN file do not depend on
//! the number of threads.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;
use shakmaty::{ByColor, Color};

pub use super::config::{ConfigError, MAX_GAMES, MatchConfig, OpeningPlan, StopReason, varied_weights};
use super::game::{GameAborted, GameSetup, InProgress, PlayedGame, play_game};
use super::openings::{BadOpening, BalanceCheck, Opening, random_opening};
use super::player::{Player, PlayerError};
use super::record::to_pgn;
use super::rules::Termination;
use super::spec::EngineSpec;
use super::state::{FinishedGame, MatchState, PgnOutput, StateError, fnv1a};
use crate::dataset::GameResult;
use crate::stats::GameOutcome;

/// What a match reports while it runs.
pub trait MatchProgress: Sync {
    /// After every committed game.
    fn update(&self, state: &MatchState);

    /// Something the user should know that does not stop the match (an
    /// engine option the engine does not list), once per message.
    fn note(&self, _text: &str) {}
}

/// Why a match stopped early with an error.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// The configuration cannot be played.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The state or PGN file failed.
    #[error(transparent)]
    State(#[from] StateError),
    /// An engine could not be started.
    #[error("engine '{name}': {source}")]
    Engine {
        /// The engine.
        name: String,
        /// Why.
        #[source]
        source: PlayerError,
    },
    /// An opening cannot be played.
    #[error("game {game}: {source}")]
    Opening {
        /// The game.
        game: u64,
        /// Why.
        #[source]
        source: BadOpening,
    },
    /// No random opening could be drawn.
    #[error("game {game}: no random opening of {plies} plies found (random moves ended every try)")]
    NoRandomOpening {
        /// The game.
        game: u64,
        /// The plies asked for.
        plies: u32,
    },
    /// The game was abandoned because the match is stopping (not an error
    /// that reaches the caller).
    #[error("game abandoned")]
    Abandoned,
}

/// Timing over the games played in this run (for the benchmark).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timing {
    /// Games played in this run.
    pub games: u64,
    /// Time the engines spent searching.
    pub engine: Duration,
    /// Time the games took, from start to end.
    pub games_wall: Duration,
    /// The run's wall time.
    pub wall: Duration,
    /// Nodes searched.
    pub nodes: u64,
}

/// The first engine's outcome in game `g`.
pub fn outcome_for_first(g: u64, result: GameResult) -> GameOutcome {
    let first_is_white = g.is_multiple_of(2);
    match (result, first_is_white) {
        (GameResult::Draw, _) => GameOutcome::Draw,
        (GameResult::WhiteWins, true) | (GameResult::BlackWins, false) => GameOutcome::Win,
        _ => GameOutcome::Loss,
    }
}

/// What the workers send back.
enum Report {
    Played(u64, Box<PlayedGame>),
    Failed(MatchError),
}

/// The players of one worker, started on first use and kept between games.
struct Seats<'a> {
    players: Vec<Option<Box<dyn Player>>>,
    /// Hears an engine's warnings.
    warn: &'a (dyn Fn(String) + Sync),
}

impl Seats<'_> {
    fn take(&mut self, specs: &[EngineSpec], i: usize) -> Result<Box<dyn Player>, MatchError> {
        match self.players[i].take() {
            Some(player) => Ok(player),
            None => specs[i].start(&mut |w| (self.warn)(w)).map_err(|source| MatchError::Engine { name: specs[i].name.clone(), source }),
        }
    }
}

/// Plays game `g` with the worker's players. An engine that fails to
/// start a new game is restarted once; if it fails again it loses the game.
/// An engine that lost by failing, or on time (it may have hung), is
/// restarted before its next game.
fn play_one(
    config: &MatchConfig,
    seats: &mut Seats<'_>,
    g: u64,
    opening: &Opening,
    adjourned: Option<&InProgress>,
    cancelled: &dyn Fn() -> bool,
    seal: &mut dyn FnMut(&InProgress),
) -> Result<PlayedGame, MatchError> {
    let opponent = 1 + config.opponent_of(g);
    let (w, b) = if g.is_multiple_of(2) { (0, opponent) } else { (opponent, 0) };
    let cancel = AtomicBool::new(false);
    let (white_limits, black_limits) = (config.limits_of(w), config.limits_of(b));
    let setup = GameSetup {
        opening,
        limits: ByColor { white: &white_limits, black: &black_limits },
        adjudication: &config.adjudication,
        draw_rules: config.draw_rules,
        time_margin_ms: config.time_margin_ms,
        cancel: &cancel,
        adjourned,
    };
    // The game an engine that cannot start it loses, after one restart.
    let forfeit = |side: Color, error: &dyn std::fmt::Display| PlayedGame {
        white: config.engines[w].name.clone(),
        black: config.engines[b].name.clone(),
        start_fen: opening.fen.clone(),
        moves: Vec::new(),
        opening_plies: 0,
        end: super::rules::GameEnd::loss(side, Termination::EngineFailure(format!("cannot start a new game: {error}"))),
        engine_time: Duration::ZERO,
        wall_time: Duration::ZERO,
        nodes: 0,
    };
    let mut restarted = false;
    loop {
        let (mut white, mut black) = match (seats.take(&config.engines, w), seats.take(&config.engines, b)) {
            (Ok(white), Ok(black)) => (white, black),
            // An engine that does not start at all is a setup error; one
            // that fails again after a restart loses the game.
            (white, black) => {
                let (side, error) = match (white, black) {
                    (Err(error), black) => {
                        seats.players[b] = black.ok();
                        (Color::White, error)
                    }
                    (Ok(white), Err(error)) => {
                        seats.players[w] = Some(white);
                        (Color::Black, error)
                    }
                    (Ok(_), Ok(_)) => unreachable!("matched above"),
                };
                return if restarted { Ok(forfeit(side, &error)) } else { Err(error) };
            }
        };
        if let Some(vary) = config.vary_weights {
            for (player, i) in [(&mut white, w), (&mut black, b)] {
                if let Some((name, weights)) = varied_weights(&config.engines[i], vary, config.seed, g / 2, i) {
                    player.set_weights(&name, &weights).map_err(|source| MatchError::Engine { name: name.clone(), source })?;
                }
            }
        }
        let played = play_game(white.as_mut(), black.as_mut(), &setup, &mut |snapshot| {
            seal(snapshot);
            if cancelled() {
                cancel.store(true, Ordering::Relaxed);
            }
        });
        let unhealthy = match &played {
            Ok(game) => matches!(game.end.termination, Termination::EngineFailure(_) | Termination::TimeForfeit | Termination::TimeForfeitDraw)
                .then_some(game.end.side),
            Err(GameAborted::Player(side, _)) => Some(*side),
            Err(_) => None,
        };
        if unhealthy != Some(Color::White) {
            seats.players[w] = Some(white);
        }
        if unhealthy != Some(Color::Black) {
            seats.players[b] = Some(black);
        }
        return match played {
            Ok(game) => Ok(game),
            Err(GameAborted::Player(..)) if !restarted => {
                restarted = true;
                continue;
            }
            Err(GameAborted::Player(side, error)) => Ok(forfeit(side, &error)),
            Err(GameAborted::Opening(source)) => Err(MatchError::Opening { game: g, source }),
            Err(GameAborted::Cancelled) => Err(MatchError::Abandoned),
        };
    }
}

/// The opening of game `g`: both games of a pair share it, unless the
/// sides are identical ([`MatchConfig::identical_sides`]).
fn opening_of(config: &MatchConfig, g: u64, check: &mut Option<BalanceCheck>) -> Result<Opening, MatchError> {
    let round = if config.identical_sides() { g } else { g / 2 / config.opponents().max(1) };
    match &config.openings {
        OpeningPlan::Suite { openings, shuffled, .. } => {
            let n = openings.len() as u64;
            let mut i = round % n;
            if *shuffled {
                // A fresh permutation for each pass through the suite.
                let pass = round / n;
                let mut order: Vec<usize> = (0..openings.len()).collect();
                order.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(config.seed ^ pass.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
                i = order[i as usize] as u64;
            }
            Ok(openings[i as usize].clone())
        }
        OpeningPlan::Random { plies, balance_cp } => {
            if check.is_none()
                && let Some(cp) = balance_cp
            {
                *check = Some(BalanceCheck::new(*cp, 3000));
            }
            random_opening(config.seed, round, *plies, check.as_mut()).ok_or(MatchError::NoRandomOpening { game: g, plies: *plies })
        }
    }
}

/// Plays (or continues) the match in `state` on `threads` threads. The
/// state is saved to `state_path` after every finished game. A `fresh`
/// match starts its PGN file afresh; a resumed one checks that the file
/// holds exactly the games the state has committed, then continues it.
pub fn play_match(
    mut state: MatchState,
    state_path: Option<&std::path::Path>,
    fresh: bool,
    threads: usize,
    progress: &dyn MatchProgress,
) -> Result<(MatchState, Timing), MatchError> {
    let started = Instant::now();
    let config = state.config.clone();
    let deterministic = config.is_deterministic();
    // Each warning once, however many workers start the engine.
    let warned = Mutex::new(std::collections::HashSet::new());
    let warn = |text: String| {
        if warned.lock().expect("warnings").insert(text.clone()) {
            progress.note(&text);
        }
    };
    let mut pgn = match &config.pgn_out {
        Some(path) => Some(PgnOutput::open(path, &state, fresh)?),
        None => None,
    };
    let mut timing = Timing::default();
    if state.stopped.is_some() {
        return Ok((state, timing));
    }
    // Games left: everything from the frontier on that has not finished,
    // claimed one at a time from a counter. (A list of them, made up front,
    // took 8 bytes a game: `--games 100000000000` filled the memory before
    // the first move.) Games finished beyond the frontier are few (fewer
    // than the threads) and are skipped.
    let first = state.committed;
    let done_beyond: std::collections::BTreeSet<u64> = state.finished.keys().copied().filter(|&g| g >= first).collect();
    let pending_count = state.cutoff.saturating_sub(first).saturating_sub(done_beyond.len() as u64);
    let adjourned = std::mem::take(&mut state.in_progress);
    let next = AtomicU64::new(0);
    let cutoff = AtomicU64::new(state.cutoff);
    // Sealed moves stay in the state until their game moves on, even if a
    // second interruption comes before a worker reaches it.
    let resumable = adjourned.iter().filter(|_| !deterministic).map(|(&g, game)| (g, game.clone())).collect();
    let sealed: Mutex<std::collections::BTreeMap<u64, InProgress>> = Mutex::new(resumable);
    let failed = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel::<Report>();

    let outcome = std::thread::scope(|scope| -> Result<(), MatchError> {
        for _ in 0..(threads.max(1) as u64).min(pending_count.max(1)) {
            let tx = tx.clone();
            let (config, done_beyond, adjourned, next, cutoff, sealed, failed, warn) =
                (&config, &done_beyond, &adjourned, &next, &cutoff, &sealed, &failed, &warn);
            scope.spawn(move || {
                let mut seats = Seats { players: (0..config.engines.len()).map(|_| None).collect(), warn };
                let mut check = None;
                loop {
                    let g = first + next.fetch_add(1, Ordering::Relaxed);
                    if g >= cutoff.load(Ordering::Relaxed) || failed.load(Ordering::Relaxed) {
                        break;
                    }
                    if done_beyond.contains(&g) {
                        continue;
                    }
                    // `g` counts this run's games; `game` is its number in the whole match.
                    let game = config.game_at(g);
                    let opening = match opening_of(config, game, &mut check) {
                        Ok(opening) => opening,
                        Err(e) => {
                            failed.store(true, Ordering::Relaxed);
                            let _ = tx.send(Report::Failed(e));
                            break;
                        }
                    };
                    // An adjourned game resumes from its sealed moves only when
                    // the limits involve time; otherwise it is replayed, and
                    // comes out as it would have without the interruption.
                    let sealed_game = adjourned.get(&g).filter(|_| !deterministic);
                    let stop = || g >= cutoff.load(Ordering::Relaxed) || failed.load(Ordering::Relaxed);
                    let report = play_one(config, &mut seats, game, &opening, sealed_game, &stop, &mut |snapshot| {
                        sealed.lock().expect("sealed games").insert(g, snapshot.clone());
                    });
                    sealed.lock().expect("sealed games").remove(&g);
                    match report {
                        Ok(game) => {
                            let _ = tx.send(Report::Played(g, Box::new(game)));
                        }
                        Err(MatchError::Abandoned) => break,
                        Err(e) => {
                            failed.store(true, Ordering::Relaxed);
                            let _ = tx.send(Report::Failed(e));
                            break;
                        }
                    }
                }
            });
        }
        drop(tx);

        let mut consume = || -> Result<(), MatchError> {
            for report in rx.iter() {
                let (g, game) = match report {
                    Report::Played(g, game) => (g, game),
                    Report::Failed(e) => return Err(e),
                };
                if g >= state.cutoff {
                    continue;
                }
                timing.games += 1;
                timing.engine += game.engine_time;
                timing.games_wall += game.wall_time;
                timing.nodes += game.nodes;
                let number = config.game_at(g);
                // A game lost because an engine failed is scored and the
                // match goes on, as in cutechess and fastchess; the user
                // hears of it at once, not only from the PGN.
                if matches!(game.end.termination, Termination::EngineFailure(_)) {
                    let why = game.end.termination.describe(game.end.side).replace(['\n', '\r'], " ");
                    warn(format!("game {} (round {}): {why}; scored as a loss", number + 1, config.header(number).round));
                }
                let finished = FinishedGame { outcome: outcome_for_first(number, game.result()), pgn: to_pgn(&game, &config.header(number)) };
                state.finished.insert(g, finished);
                // Commit every game that is now next in order.
                while let Some(done) = state.finished.remove(&state.committed) {
                    if let Some(out) = pgn.as_mut() {
                        state.pgn_bytes += out.append(&done.pgn)?;
                        state.pgn_hash = fnv1a(state.pgn_hash, done.pgn.as_bytes());
                    }
                    state.count(done.outcome);
                    // (A shard's SPRT is decided when the shards are merged.)
                    if state.decide_sprt() {
                        cutoff.store(state.cutoff, Ordering::Relaxed);
                    }
                    progress.update(&state);
                    if state.stopped.is_some() {
                        break;
                    }
                }
                if state.committed >= state.cutoff && state.stopped.is_none() {
                    state.stopped = Some(StopReason::AllGamesPlayed);
                }
                state.in_progress = sealed.lock().expect("sealed games").clone();
                if let Some(path) = state_path {
                    state.save(path)?;
                }
                if state.stopped.is_some() {
                    break;
                }
            }
            Ok(())
        };
        let outcome = consume();
        if outcome.is_err() {
            // Stop the workers at once: no game started after this counts.
            failed.store(true, Ordering::Relaxed);
            cutoff.store(0, Ordering::Relaxed);
        }
        outcome
    });
    timing.wall = started.elapsed();
    outcome?;
    if state.stopped.is_none() && state.committed >= state.cutoff {
        state.stopped = Some(StopReason::AllGamesPlayed);
    }
    state.in_progress.clear();
    if let Some(path) = state_path {
        state.save(path)?;
    }
    Ok((state, timing))
}
