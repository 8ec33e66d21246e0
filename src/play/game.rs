//! Playing one game between two players under the rules, with clocks and
//! adjudication; what each engine said about its moves is kept for the
//! PGN record ([`super::record`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{ByColor, Color, Move, Position};

use super::adjudication::{Adjudication, Adjudicator};
use super::limits::{Clocks, MoveLimits};
use super::openings::{BadOpening, Opening};
use super::player::{MoveRequest, Player, PlayerError};
use super::rules::{Arbiter, DrawRules, GameEnd, Termination, flag_fall};
use crate::dataset::GameResult;
use crate::engine::{Score, position_hash};

/// What an engine said about a move it played.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveNote {
    /// Its score, from its own point of view.
    pub score: Option<Score>,
    /// The depth it searched.
    pub depth: Option<u32>,
    /// The time it took, in milliseconds (rounded up: a move is never free).
    pub time_ms: u64,
    /// Nodes searched.
    pub nodes: u64,
}

/// A move of a game in progress, as the state keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealedMove {
    /// The move.
    pub uci: UciMove,
    /// What its engine said.
    pub note: MoveNote,
}

/// A game in progress, as it is sealed into the match state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InProgress {
    /// Moves played after the opening.
    pub moves: Vec<SealedMove>,
    /// The clocks after the last move.
    pub clocks: Clocks,
}

/// The settings one game is played under.
#[derive(Debug)]
pub struct GameSetup<'a> {
    /// The opening (start position and moves played before the engines start).
    pub opening: &'a Opening,
    /// Each side's limits per move; a time control sets its starting clock.
    pub limits: ByColor<&'a MoveLimits>,
    /// Resign/draw/length adjudication.
    pub adjudication: &'a Adjudication,
    /// Claimed or automatic draws.
    pub draw_rules: DrawRules,
    /// Milliseconds an engine may exceed its time before its flag falls.
    pub time_margin_ms: u64,
    /// Set to abandon the game (between moves).
    pub cancel: &'a AtomicBool,
    /// An adjourned game to continue: its moves and clocks.
    pub adjourned: Option<&'a InProgress>,
}

/// One move of a finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedMove {
    /// The move in SAN, with its check or mate suffix.
    pub san: SanPlus,
    /// What the engine said, or `None` for an opening move.
    pub note: Option<MoveNote>,
}

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedGame {
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The starting position when it is not the standard one.
    pub start_fen: Option<Fen>,
    /// All moves from the start, the opening's included.
    pub moves: Vec<PlayedMove>,
    /// How many of them were the opening's.
    pub opening_plies: usize,
    /// How the game ended.
    pub end: GameEnd,
    /// Time the engines spent thinking.
    pub engine_time: Duration,
    /// Time the whole game took.
    pub wall_time: Duration,
    /// Nodes the engines searched.
    pub nodes: u64,
}

impl PlayedGame {
    /// The result.
    pub fn result(&self) -> GameResult {
        self.end.result
    }
}

/// Why a game was not finished.
#[derive(Debug, thiserror::Error)]
pub enum GameAborted {
    /// The match was stopped.
    #[error("cancelled")]
    Cancelled,
    /// The opening (or an adjourned game's moves) cannot be played.
    #[error("bad opening: {0}")]
    Opening(#[source] BadOpening),
    /// A player could not start a new game.
    #[error("{1}")]
    Player(Color, #[source] PlayerError),
}

/// Whole milliseconds, rounded up.
fn millis(time: Duration) -> u64 {
    time.as_micros().div_ceil(1000) as u64
}

/// Plays a game; `on_move` is called after every move with the game so far
/// (for sealing it into the match state).
pub fn play_game(
    white: &mut dyn Player,
    black: &mut dyn Player,
    setup: &GameSetup<'_>,
    on_move: &mut dyn FnMut(&InProgress),
) -> Result<PlayedGame, GameAborted> {
    let started = Instant::now();
    let (mut pos, opening_moves) = setup.opening.start().map_err(GameAborted::Opening)?;
    let start_fen = setup.opening.fen.clone();
    let mode = pos.castles().mode();
    white.new_game().map_err(|e| GameAborted::Player(Color::White, e))?;
    black.new_game().map_err(|e| GameAborted::Player(Color::Black, e))?;

    let mut moves: Vec<Move> = Vec::new();
    let mut played: Vec<PlayedMove> = Vec::new();
    let mut history: Vec<u64> = Vec::new();
    let mut hash = position_hash(&pos);
    let mut arbiter = Arbiter::new(setup.draw_rules, hash);
    let mut adjudicator = Adjudicator::new(setup.adjudication);
    let mut clocks = Clocks::start(&setup.limits.map(Clone::clone));
    let mut sealed = InProgress { moves: Vec::new(), clocks };
    let (mut engine_time, mut nodes) = (Duration::ZERO, 0u64);

    // The opening, then any adjourned moves, are played without the engines.
    let adjourned: &[SealedMove] = setup.adjourned.map_or(&[], |a| &a.moves);
    let mut end: Option<GameEnd> = None;
    let replayed = opening_moves.iter().map(|&m| (UciMove::from_move(m, mode), None)).chain(adjourned.iter().map(|s| (s.uci, Some(s.note))));
    for (i, (uci, note)) in replayed.enumerate() {
        let m = uci.to_move(&pos).map_err(|_| GameAborted::Opening(BadOpening::IllegalMove { ply: i + 1, text: uci.to_string() }))?;
        played.push(PlayedMove { san: SanPlus::from_move_and_play_unchecked(&mut pos.clone(), m), note });
        history.push(hash);
        pos.play_unchecked(m);
        hash = position_hash(&pos);
        moves.push(m);
        if let Some(note) = note {
            sealed.moves.push(SealedMove { uci, note });
        }
        end = arbiter.after_move(&pos, hash);
        if end.is_some() {
            break;
        }
    }
    if let Some(a) = setup.adjourned {
        clocks = a.clocks;
        sealed.clocks = clocks;
    }
    if moves.is_empty() {
        // No move was played yet: the start position itself may already be
        // over (mate, stalemate, a dead position, a claimable 50-move count).
        end = arbiter.at_start(&pos);
    }

    while end.is_none() {
        if setup.cancel.load(Ordering::Relaxed) {
            return Err(GameAborted::Cancelled);
        }
        let side = pos.turn();
        let limits = side.fold_wb(setup.limits.white, setup.limits.black);
        let player: &mut dyn Player = if side == Color::White { &mut *white } else { &mut *black };
        let request = MoveRequest {
            start_fen: start_fen.as_ref(),
            moves: &moves,
            position: &pos,
            history: &history,
            limits,
            clocks: &clocks,
            time_margin_ms: setup.time_margin_ms,
        };
        // A move that came too late loses on time, whatever the move was.
        let (reply, used_ms) = match player.go(&request) {
            Ok(reply) => {
                let used = millis(reply.engine_time);
                (Ok(reply), used)
            }
            Err(PlayerError::IllegalMove { text, after }) => (Err(text), millis(after)),
            Err(PlayerError::Timeout) if !limits.is_deterministic() => {
                end = Some(flag_fall(&pos));
                break;
            }
            Err(e) => {
                end = Some(GameEnd::loss(side, Termination::EngineFailure(e.to_string())));
                break;
            }
        };
        let late_for_clock = clocks.of(side).is_some_and(|c| used_ms > c.left_ms.saturating_add(setup.time_margin_ms));
        let late_for_movetime = limits.movetime_ms.is_some_and(|ms| used_ms > ms.saturating_add(setup.time_margin_ms));
        if late_for_clock || late_for_movetime {
            if let Some(clock) = clocks.of_mut(side).as_mut().filter(|_| late_for_clock) {
                clock.left_ms = 0;
            }
            end = Some(flag_fall(&pos));
            break;
        }
        let reply = match reply {
            Ok(reply) => reply,
            Err(text) => {
                end = Some(GameEnd::loss(side, Termination::IllegalMove(text)));
                break;
            }
        };
        engine_time += reply.engine_time;
        nodes += reply.nodes;
        if let Some(clock) = clocks.of_mut(side) {
            clock.left_ms = clock.left_ms.saturating_sub(used_ms) + clock.increment_ms;
        }
        // A player's move is legal by the trait's contract; a scripted or
        // buggy one that is not loses like an illegal UCI move.
        let m = reply.best;
        if !pos.is_legal(m) {
            end = Some(GameEnd::loss(side, Termination::IllegalMove(UciMove::from_move(m, mode).to_string())));
            break;
        }
        let fullmove = pos.fullmoves().get();
        let note = MoveNote { score: reply.score, depth: reply.depth, time_ms: used_ms, nodes: reply.nodes };
        played.push(PlayedMove { san: SanPlus::from_move_and_play_unchecked(&mut pos.clone(), m), note: Some(note) });
        history.push(hash);
        pos.play_unchecked(m);
        hash = position_hash(&pos);
        moves.push(m);
        sealed.moves.push(SealedMove { uci: UciMove::from_move(m, mode), note });
        sealed.clocks = clocks;
        on_move(&sealed);
        end = arbiter.after_move(&pos, hash).or_else(|| adjudicator.record(side, reply.score, fullmove, pos.halfmoves(), played.len() as u32));
    }

    Ok(PlayedGame {
        white: white.name().to_string(),
        black: black.name().to_string(),
        start_fen,
        moves: played,
        opening_plies: opening_moves.len(),
        end: end.expect("the loop ends only with an end"),
        engine_time,
        wall_time: started.elapsed(),
        nodes,
    })
}
