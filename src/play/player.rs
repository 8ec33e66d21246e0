//! Players: what the game runner sees of an engine. The bundled engine
//! plays in-process (no process start, no pipes, no UCI text: it answers
//! with a [`Move`]); any other engine plays through UCI as a subprocess
//! ([`super::uci_client`]), whose reply is read into a legal [`Move`]
//! there. Tests use scripted players through the same trait.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::{Chess, Color, Move, Position};

use super::limits::{Clocks, MoveLimits};
use crate::engine::{Engine, Evaluator, EvaluatorError, GameClock, Limits, Score};
use crate::weights::Weights;

/// What a player is asked for: the game so far and the limits.
#[derive(Debug)]
pub struct MoveRequest<'a> {
    /// The starting position when it is not the standard one.
    pub start_fen: Option<&'a Fen>,
    /// The moves since the start.
    pub moves: &'a [Move],
    /// The current position.
    pub position: &'a Chess,
    /// Hashes of the positions before the current one (oldest first).
    pub history: &'a [u64],
    /// The side to move's limits for this move.
    pub limits: &'a MoveLimits,
    /// Both clocks as they stand (a side without a clock has `None`).
    pub clocks: &'a Clocks,
    /// Milliseconds an engine may exceed its time before its flag falls.
    pub time_margin_ms: u64,
}

/// A player's move.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReply {
    /// The move, legal in the request's position.
    pub best: Move,
    /// The engine's score for its move, from its own point of view.
    pub score: Option<Score>,
    /// The depth of the search that chose it, when the engine says.
    pub depth: Option<u32>,
    /// Nodes searched.
    pub nodes: u64,
    /// Time the engine's search took (in-process) or the reply took (UCI).
    pub engine_time: Duration,
}

/// A player that could not move, or could not start.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// The program could not be run.
    #[error("cannot start {program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The weights do not make an evaluator.
    #[error("the weights cannot be used: {0}")]
    Evaluator(#[source] EvaluatorError),
    /// An option value the engine does not take.
    #[error("option {name}={value}: {reason}")]
    Option {
        /// The option.
        name: String,
        /// The value given.
        value: String,
        /// Why the engine would not take it.
        reason: String,
    },
    /// Writing to the engine failed (it exited).
    #[error("the engine crashed: cannot write to it: {0}")]
    Write(#[source] std::io::Error),
    /// The engine closed its output.
    #[error("the engine crashed: it closed its output")]
    Closed,
    /// No reply within the time allowed.
    #[error("no reply in time")]
    Timeout,
    /// The engine broke the protocol.
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The engine answered a move that is not legal (or not a move).
    #[error("illegal move '{text}'")]
    IllegalMove {
        /// The move as the engine wrote it.
        text: String,
        /// How long the engine took to answer it (a late answer loses on time).
        after: Duration,
    },
    /// A Chess960 position for an engine without `UCI_Chess960`.
    #[error("the engine has no UCI_Chess960 option, so it cannot play a Chess960 position")]
    NoChess960,
    /// The player's weights cannot be changed.
    #[error("this engine's weights cannot be changed")]
    FixedWeights,
}

/// Something that plays moves.
pub trait Player: Send {
    /// The name in PGN headers and reports.
    fn name(&self) -> &str;
    /// Prepares for a new game (clears hash tables and history).
    fn new_game(&mut self) -> Result<(), PlayerError>;
    /// Chooses a move.
    fn go(&mut self, request: &MoveRequest<'_>) -> Result<MoveReply, PlayerError>;

    /// Plays from now on with other weights, under the name `name` (the
    /// bundled engine only; self-play varies weights from game to game).
    fn set_weights(&mut self, _name: &str, _weights: &Weights) -> Result<(), PlayerError> {
        Err(PlayerError::FixedWeights)
    }
}

/// The bundled engine, in-process.
pub struct BundledPlayer {
    name: String,
    engine: Engine,
    stop: AtomicBool,
}

impl BundledPlayer {
    /// The engine with `weights` and a `hash_mb` table.
    pub fn new(name: &str, weights: &Weights, hash_mb: usize) -> Result<BundledPlayer, PlayerError> {
        let evaluator = Evaluator::new(weights).map_err(PlayerError::Evaluator)?;
        Ok(BundledPlayer { name: name.to_string(), engine: Engine::new(evaluator, hash_mb), stop: AtomicBool::new(false) })
    }
}

/// The engine's limits for a move: its own limits and its clock.
pub fn engine_limits(limits: &MoveLimits, clocks: &Clocks, side: Color) -> Limits {
    let clock = clocks.of(side).map(|c| GameClock {
        time_left: Duration::from_millis(c.left_ms),
        increment: Duration::from_millis(c.increment_ms),
        moves_to_go: None,
    });
    Limits { depth: limits.depth, nodes: limits.nodes, movetime: limits.movetime_ms.map(Duration::from_millis), clock, ..Limits::default() }
}

impl Player for BundledPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.engine.new_game();
        Ok(())
    }

    fn set_weights(&mut self, name: &str, weights: &Weights) -> Result<(), PlayerError> {
        let evaluator = Evaluator::new(weights).map_err(PlayerError::Evaluator)?;
        self.engine.set_evaluator(evaluator);
        self.name = name.to_string();
        Ok(())
    }

    fn go(&mut self, request: &MoveRequest<'_>) -> Result<MoveReply, PlayerError> {
        let limits = engine_limits(request.limits, request.clocks, request.position.turn());
        let started = Instant::now();
        let result = self.engine.search(request.position, request.history, &limits, &self.stop, &mut |_| {});
        let engine_time = started.elapsed();
        let best = result.best.ok_or_else(|| PlayerError::Protocol("no move in a position with legal moves".into()))?;
        let depth = (result.depth > 0).then_some(result.depth);
        Ok(MoveReply { best, score: Some(result.score), depth, nodes: result.nodes, engine_time })
    }
}
