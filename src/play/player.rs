//! Players: what the game runner sees of an engine. The bundled engine
//! plays in-process (no process start, no pipes, no UCI text); any other
//! engine plays through UCI as a subprocess ([`super::uci_client`]).
//! Tests use scripted players through the same trait.

use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Move, Position};

use crate::engine::{Engine, Evaluator, GameClock, Limits, Score};
use crate::weights::Weights;

/// The clocks of a game in progress.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clocks {
    /// White's time left, in milliseconds.
    pub white_ms: u64,
    /// Black's time left, in milliseconds.
    pub black_ms: u64,
    /// Increment per move, in milliseconds.
    pub increment_ms: u64,
}

/// How long an engine may think about a move.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveLimits {
    /// Nodes per move.
    pub nodes: Option<u64>,
    /// Depth per move.
    pub depth: Option<u32>,
    /// Milliseconds per move.
    pub movetime_ms: Option<u64>,
    /// The game clocks (base + increment time control).
    pub clocks: Option<Clocks>,
}

impl MoveLimits {
    /// True when the limits involve no time at all, so that a game is a
    /// pure function of its opening and engines.
    pub fn is_deterministic(&self) -> bool {
        self.movetime_ms.is_none() && self.clocks.is_none()
    }

    /// Checks that there is a limit and that each is usable.
    pub fn check(&self) -> Result<(), String> {
        if self.nodes.is_none() && self.depth.is_none() && self.movetime_ms.is_none() && self.clocks.is_none() {
            return Err("no limit per move (nodes, depth, movetime or a time control)".into());
        }
        if self.nodes == Some(0) || self.movetime_ms == Some(0) {
            return Err("a node or time limit of 0 per move".into());
        }
        if let Some(depth) = self.depth.filter(|d| !(1..=crate::engine::params::MAX_DEPTH).contains(d)) {
            return Err(format!("depth {depth}: must be from 1 to {}", crate::engine::params::MAX_DEPTH));
        }
        if let Some(c) = &self.clocks
            && (c.white_ms == 0 || c.black_ms == 0)
        {
            return Err("a clock with no time on it".into());
        }
        Ok(())
    }
}

/// What a player is asked for: the game so far and the limits.
#[derive(Debug)]
pub struct MoveRequest<'a> {
    /// The starting FEN, `None` for the standard start position.
    pub start_fen: Option<&'a str>,
    /// The moves since the start, in UCI notation.
    pub moves: &'a [String],
    /// The current position.
    pub position: &'a Chess,
    /// Hashes of the positions before the current one (oldest first).
    pub history: &'a [u64],
    /// The limits for this move (with the clocks as they stand).
    pub limits: &'a MoveLimits,
    /// Milliseconds an engine may exceed its time before its flag falls.
    pub time_margin_ms: u64,
}

/// A player's move.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReply {
    /// The move in UCI notation (checked by the game runner).
    pub uci: String,
    /// The engine's score for its move, from its own point of view.
    pub score: Option<Score>,
    /// Nodes searched.
    pub nodes: u64,
    /// Time the engine's search took (in-process) or the reply took (UCI).
    pub engine_time: Duration,
}

/// A player that could not move.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlayerError {
    /// The engine could not be started.
    #[error("cannot start {0}")]
    Start(String),
    /// The engine exited or closed its output.
    #[error("the engine crashed: {0}")]
    Crashed(String),
    /// No reply within the time allowed.
    #[error("no reply in time")]
    Timeout,
    /// The engine broke the protocol.
    #[error("protocol error: {0}")]
    Protocol(String),
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
        Err(PlayerError::Protocol("this engine's weights cannot be changed".into()))
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
        let evaluator = Evaluator::new(weights).map_err(|e| PlayerError::Start(e.to_string()))?;
        Ok(BundledPlayer { name: name.to_string(), engine: Engine::new(evaluator, hash_mb), stop: AtomicBool::new(false) })
    }
}

/// The engine's limits for a move: from the side to move's clock.
pub fn engine_limits(limits: &MoveLimits, side: Color) -> Limits {
    let clock = limits.clocks.map(|c| GameClock {
        time_left: Duration::from_millis(if side == Color::White { c.white_ms } else { c.black_ms }),
        increment: Duration::from_millis(c.increment_ms),
        moves_to_go: None,
    });
    Limits {
        depth: limits.depth,
        nodes: limits.nodes,
        movetime: limits.movetime_ms.map(Duration::from_millis),
        clock,
        ..Limits::default()
    }
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
        let evaluator = Evaluator::new(weights).map_err(|e| PlayerError::Start(e.to_string()))?;
        self.engine.set_evaluator(evaluator);
        self.name = name.to_string();
        Ok(())
    }

    fn go(&mut self, request: &MoveRequest<'_>) -> Result<MoveReply, PlayerError> {
        let limits = engine_limits(request.limits, request.position.turn());
        let started = Instant::now();
        let result = self.engine.search(request.position, request.history, &limits, &self.stop, &mut |_| {});
        let engine_time = started.elapsed();
        let best: Move = result.best.ok_or_else(|| PlayerError::Protocol("no move in a position with legal moves".into()))?;
        let uci = UciMove::from_move(best, request.position.castles().mode()).to_string();
        Ok(MoveReply { uci, score: Some(result.score), nodes: result.nodes, engine_time })
    }
}

/// How to start an engine: `name=… weights=… hash=…` for the bundled
/// engine, `name=… cmd=… arg=… option.NAME=VALUE` for a UCI engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineSpec {
    /// Its name in reports and PGN.
    pub name: String,
    /// Hash table size in MB.
    pub hash_mb: usize,
    /// Bundled or external.
    pub kind: EngineKind,
}

/// The two kinds of engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// The bundled engine with these weights (kept in full, so a resumed
    /// match plays the same weights even if the file has changed).
    Bundled {
        /// The weights as given (preset name or file).
        source: String,
        /// The weights themselves.
        weights: Weights,
    },
    /// A UCI engine subprocess.
    Uci {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// UCI options set after the handshake.
        options: Vec<(String, String)>,
    },
}

impl FromStr for EngineSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (mut name, mut weights, mut hash, mut command) = (None, None, 16usize, None);
        let (mut args, mut options) = (Vec::new(), Vec::new());
        for token in s.split([' ', ',']).filter(|t| !t.is_empty()) {
            let (key, value) = token.split_once('=').ok_or_else(|| format!("'{token}' is not key=value (keys: name, weights, hash, cmd, arg, option.NAME)"))?;
            match key {
                "name" => name = Some(value.to_string()),
                "weights" => weights = Some(value.to_string()),
                "hash" => hash = value.parse().ok().filter(|&mb| mb >= 1).ok_or_else(|| format!("hash={value} is not a whole number of MB ≥ 1"))?,
                "cmd" => command = Some(value.to_string()),
                "arg" => args.push(value.to_string()),
                _ if key.starts_with("option.") => options.push((key["option.".len()..].to_string(), value.to_string())),
                _ => return Err(format!("unknown key '{key}' (keys: name, weights, hash, cmd, arg, option.NAME)")),
            }
        }
        let kind = match (weights, command) {
            (Some(_), Some(_)) => return Err("give either weights= (the bundled engine) or cmd= (a UCI engine), not both".into()),
            (None, Some(command)) => EngineKind::Uci { command, args, options },
            (weights, None) => {
                if !args.is_empty() || !options.is_empty() {
                    return Err("arg= and option.* apply to UCI engines (cmd=)".into());
                }
                let source = weights.unwrap_or_else(|| "classical".to_string());
                let weights = Weights::resolve(&source).map_err(|e| e.to_string())?;
                EngineKind::Bundled { source, weights }
            }
        };
        let name = name.unwrap_or_else(|| match &kind {
            EngineKind::Bundled { source, .. } => source.rsplit('/').next().unwrap_or(source).trim_end_matches(".toml").trim_end_matches(".json").to_string(),
            EngineKind::Uci { command, .. } => command.rsplit('/').next().unwrap_or(command).to_string(),
        });
        let spec = EngineSpec { name, hash_mb: hash, kind };
        spec.check()?;
        Ok(spec)
    }
}

impl EngineSpec {
    /// The bundled engine with `weights` (a preset name or file).
    pub fn bundled(name: &str, weights: &str) -> Result<EngineSpec, String> {
        format!("name={name} weights={weights}").parse()
    }

    /// Checks that the engine can be started as specified: a name, a hash
    /// size the bundled engine accepts (its UCI option's range; a UCI
    /// engine's own range is checked when it starts), usable weights.
    pub fn check(&self) -> Result<(), String> {
        if self.name.trim().is_empty() {
            return Err("an empty name".into());
        }
        match &self.kind {
            EngineKind::Bundled { weights, .. } => {
                let max = crate::uci::session::MAX_HASH_MB;
                if !(1..=max).contains(&self.hash_mb) {
                    return Err(format!("hash={} MB: the bundled engine takes 1 to {max} MB", self.hash_mb));
                }
                weights.validate().map_err(|e| e.to_string())
            }
            EngineKind::Uci { command, .. } if command.is_empty() => Err("cmd= names no program".into()),
            EngineKind::Uci { .. } => {
                if self.hash_mb == 0 {
                    return Err("hash=0 MB".into());
                }
                Ok(())
            }
        }
    }

    /// Starts the engine.
    pub fn start(&self) -> Result<Box<dyn Player>, PlayerError> {
        Ok(match &self.kind {
            EngineKind::Bundled { weights, .. } => Box::new(BundledPlayer::new(&self.name, weights, self.hash_mb)?),
            EngineKind::Uci { command, args, options } => {
                let mut all = options.clone();
                if !all.iter().any(|(k, _)| k.eq_ignore_ascii_case("Hash")) {
                    all.push(("Hash".into(), self.hash_mb.to_string()));
                }
                Box::new(super::uci_client::UciPlayer::start(&self.name, command, args, &all)?)
            }
        })
    }

}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_specs() {
        let a: EngineSpec = "name=tuned weights=pgnlearn2015 hash=8".parse().unwrap();
        assert_eq!((a.name.as_str(), a.hash_mb), ("tuned", 8));
        assert!(matches!(&a.kind, EngineKind::Bundled { source, .. } if source == "pgnlearn2015"));
        let b: EngineSpec = "name=sf,cmd=/usr/games/stockfish,option.UCI_LimitStrength=true,option.UCI_Elo=1500".parse().unwrap();
        let EngineKind::Uci { command, options, .. } = &b.kind else { panic!() };
        assert_eq!(command, "/usr/games/stockfish");
        assert_eq!(options[1], ("UCI_Elo".to_string(), "1500".to_string()));
        let c: EngineSpec = "weights=flat".parse().unwrap();
        assert_eq!(c.name, "flat");
        assert!("name=x weights=nonsense-file".parse::<EngineSpec>().is_err());
        assert!("name=x cmd=a weights=flat".parse::<EngineSpec>().is_err());
        assert!("bogus".parse::<EngineSpec>().is_err());
        let err = "name=a weights=classical hash=999999999".parse::<EngineSpec>().unwrap_err();
        assert!(err.contains("1 to 4096"), "{err}");
        assert!("name=a weights=classical hash=0".parse::<EngineSpec>().is_err());
    }
}
