//! Playing one game between two players under the rules, with clocks,
//! adjudication and a PGN record.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Position};

use super::adjudication::{Adjudication, Adjudicator};
use super::openings::Opening;
use super::player::{Clocks, MoveLimits, MoveRequest, Player, PlayerError};
use super::rules::{Arbiter, DrawRules, GameEnd, Termination, flag_fall};
use crate::dataset::GameResult;
use crate::engine::position_hash;

/// A game in progress, as it is sealed into the match state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InProgress {
    /// Moves played after the opening, in UCI notation.
    pub moves: Vec<String>,
    /// The clocks after the last move, when the game has clocks.
    pub clocks: Option<Clocks>,
}

/// The settings one game is played under.
#[derive(Debug)]
pub struct GameSetup<'a> {
    /// The opening (start position and moves played before the engines start).
    pub opening: &'a Opening,
    /// Limits per move; the clocks are the starting clocks.
    pub limits: &'a MoveLimits,
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

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedGame {
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The starting FEN when it is not the standard start position.
    pub start_fen: Option<String>,
    /// All moves from the start, in SAN (opening included).
    pub sans: Vec<String>,
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
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GameAborted {
    /// The match was stopped.
    #[error("cancelled")]
    Cancelled,
    /// The opening is not playable.
    #[error("bad opening: {0}")]
    Opening(String),
    /// A player could not start a new game.
    #[error("{1}")]
    Player(Color, PlayerError),
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

    let mut uci_moves: Vec<String> = Vec::new();
    let mut sans: Vec<String> = Vec::new();
    let mut history: Vec<u64> = Vec::new();
    let mut hash = position_hash(&pos);
    let mut arbiter = Arbiter::new(setup.draw_rules, hash);
    let mut adjudicator = Adjudicator::new(setup.adjudication);
    let mut limits = setup.limits.clone();
    let mut sealed = InProgress { moves: Vec::new(), clocks: limits.clocks };
    let (mut engine_time, mut nodes) = (Duration::ZERO, 0u64);

    // The opening, then any adjourned moves, are played without the engines.
    let adjourned: Vec<String> = setup.adjourned.map(|a| a.moves.clone()).unwrap_or_default();
    let replayed = opening_moves.iter().map(|m| UciMove::from_move(*m, mode).to_string()).chain(adjourned.iter().cloned()).collect::<Vec<_>>();
    let mut end: Option<GameEnd> = None;
    for (i, text) in replayed.iter().enumerate() {
        let m = UciMove::from_ascii(text.as_bytes())
            .ok()
            .and_then(|u| u.to_move(&pos).ok())
            .ok_or_else(|| GameAborted::Opening(format!("move {} '{text}' is not legal", i + 1)))?;
        sans.push(SanPlus::from_move_and_play_unchecked(&mut pos.clone(), m).to_string());
        history.push(hash);
        pos.play_unchecked(m);
        hash = position_hash(&pos);
        uci_moves.push(text.clone());
        if i >= opening_moves.len() {
            sealed.moves.push(text.clone());
        }
        end = arbiter.after_move(&pos, hash);
        if end.is_some() {
            break;
        }
    }
    if let Some(a) = setup.adjourned {
        limits.clocks = a.clocks.or(limits.clocks);
        sealed.clocks = limits.clocks;
    }
    if replayed.is_empty() {
        // No move was played yet: the start position itself may already be
        // over (mate, stalemate, a dead position, a claimable 50-move count).
        end = arbiter.at_start(&pos);
    }

    while end.is_none() {
        if setup.cancel.load(Ordering::Relaxed) {
            return Err(GameAborted::Cancelled);
        }
        let side = pos.turn();
        let player: &mut dyn Player = if side == Color::White { &mut *white } else { &mut *black };
        let request = MoveRequest {
            start_fen: start_fen.as_deref(),
            moves: &uci_moves,
            position: &pos,
            history: &history,
            limits: &limits,
            time_margin_ms: setup.time_margin_ms,
        };
        let reply = match player.go(&request) {
            Ok(reply) => reply,
            Err(PlayerError::Timeout) if !limits.is_deterministic() => {
                end = Some(flag_fall(&pos));
                break;
            }
            Err(e) => {
                end = Some(GameEnd::loss(side, Termination::EngineFailure(e.to_string())));
                break;
            }
        };
        engine_time += reply.engine_time;
        nodes += reply.nodes;
        // Whole milliseconds, rounded up: a move is never free.
        let used_ms = reply.engine_time.as_micros().div_ceil(1000) as u64;
        if let Some(c) = limits.clocks.as_mut() {
            let left = if side == Color::White { &mut c.white_ms } else { &mut c.black_ms };
            if used_ms > *left + setup.time_margin_ms {
                *left = 0;
                end = Some(flag_fall(&pos));
                break;
            }
            *left = left.saturating_sub(used_ms) + c.increment_ms;
        }
        if let Some(ms) = limits.movetime_ms
            && used_ms > ms + setup.time_margin_ms
        {
            end = Some(flag_fall(&pos));
            break;
        }
        let Some(m) = UciMove::from_ascii(reply.uci.as_bytes()).ok().and_then(|u| u.to_move(&pos).ok()) else {
            end = Some(GameEnd::loss(side, Termination::IllegalMove(reply.uci.clone())));
            break;
        };
        let fullmove = pos.fullmoves().get();
        sans.push(SanPlus::from_move_and_play_unchecked(&mut pos.clone(), m).to_string());
        history.push(hash);
        pos.play_unchecked(m);
        hash = position_hash(&pos);
        // The move as UCI writes it in this position's castling mode, not as
        // the engine spelled it (e1h1 for castling would confuse the other engine).
        let canonical = UciMove::from_move(m, mode).to_string();
        uci_moves.push(canonical.clone());
        sealed.moves.push(canonical);
        sealed.clocks = limits.clocks;
        on_move(&sealed);
        end = arbiter.after_move(&pos, hash).or_else(|| adjudicator.record(side, reply.score, fullmove, pos.halfmoves(), sans.len() as u32));
    }

    Ok(PlayedGame {
        white: white.name().to_string(),
        black: black.name().to_string(),
        start_fen,
        sans,
        opening_plies: opening_moves.len(),
        end: end.expect("the loop ends only with an end"),
        engine_time,
        wall_time: started.elapsed(),
        nodes,
    })
}

/// PGN header values that are not in the game itself.
#[derive(Clone, Debug, Default)]
pub struct PgnHeader {
    /// `[Event]`.
    pub event: String,
    /// `[Date]`, as `YYYY.MM.DD`.
    pub date: String,
    /// `[Round]`.
    pub round: String,
    /// `[TimeControl]` (PGN notation, `-` when there is none).
    pub time_control: String,
}

/// A PGN tag value with its quotes and backslashes escaped.
pub(super) fn escape(tag: &str) -> String {
    tag.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The game as PGN, with a blank line after it.
pub fn to_pgn(game: &PlayedGame, header: &PgnHeader) -> String {
    let mut out = String::new();
    let tag = |out: &mut String, name: &str, value: &str| out.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
    tag(&mut out, "Event", &header.event);
    tag(&mut out, "Site", "pgntune");
    tag(&mut out, "Date", &header.date);
    tag(&mut out, "Round", &header.round);
    tag(&mut out, "White", &game.white);
    tag(&mut out, "Black", &game.black);
    tag(&mut out, "Result", game.result().as_str());
    let start: Chess = match &game.start_fen {
        Some(fen) => Opening { fen: Some(fen.clone()), moves: vec![] }.start().map(|(p, _)| p).unwrap_or_default(),
        None => Chess::default(),
    };
    if let Some(fen) = &game.start_fen {
        // Castling that only Chess960 allows makes it a Chess960 game,
        // which readers must replay with Chess960 castling.
        if start.castles().mode() == shakmaty::CastlingMode::Chess960 {
            tag(&mut out, "Variant", "Chess960");
        }
        tag(&mut out, "FEN", fen);
        tag(&mut out, "SetUp", "1");
    }
    tag(&mut out, "TimeControl", &header.time_control);
    tag(&mut out, "Termination", game.end.termination.tag());
    tag(&mut out, "PlyCount", &game.sans.len().to_string());
    out.push('\n');

    let mut tokens: Vec<String> = Vec::new();
    let (mut number, mut white_to_move) = (start.fullmoves().get(), start.turn() == Color::White);
    for (i, san) in game.sans.iter().enumerate() {
        if white_to_move {
            tokens.push(format!("{number}."));
        } else if i == 0 {
            tokens.push(format!("{number}..."));
        }
        tokens.push(san.clone());
        if !white_to_move {
            number += 1;
        }
        white_to_move = !white_to_move;
    }
    let comment = game.end.termination.describe(game.end.side).replace(['{', '}'], "");
    tokens.push(format!("{{{comment}}}"));
    tokens.push(game.result().as_str().to_string());
    // Lines of at most 80 characters, as the PGN export format asks.
    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > 80 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}
