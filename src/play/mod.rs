//! Playing games: the rules and adjudication, players (the bundled engine
//! in-process, UCI engines as subprocesses), single games with PGN records,
//! openings, and matches that can be interrupted and resumed exactly.

pub mod adjudication;
pub mod game;
pub mod lock;
pub mod openings;
pub mod player;
pub mod rules;
pub mod state;
pub mod tournament;
pub mod uci_client;

pub use adjudication::{Adjudication, DrawRule, ResignRule};
pub use game::{GameSetup, InProgress, PgnHeader, PlayedGame, play_game, to_pgn};
pub use openings::{BalanceCheck, Opening, random_opening};
pub use player::{BundledPlayer, Clocks, EngineSpec, MoveLimits, MoveReply, MoveRequest, Player, PlayerError};
pub use rules::{DrawRules, GameEnd, Termination};
pub use state::MatchState;
pub use tournament::{MatchConfig, MatchError, MatchProgress, OpeningPlan, Timing, run_match};
