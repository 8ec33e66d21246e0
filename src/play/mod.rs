//! Playing games, in layers: the rules and adjudication ([`rules`],
//! [`adjudication`]); players behind one trait ([`player`]: the bundled
//! engine in-process, UCI programs as subprocesses in [`uci_client`],
//! scripted players in tests) started from typed [`spec`]s with their
//! [`limits`]; one game ([`game`]) and its PGN record ([`record`]);
//! [`openings`]; matches configured as a whole ([`config`]) that can be
//! interrupted and resumed exactly ([`tournament`], [`state`], [`lock`]);
//! and on top the commands as library calls, a configuration in and a
//! report out: [`run`](mod@run) (`match`, `verify`), [`selfplay`] and
//! [`single`] (`play`).

pub mod adjudication;
pub mod config;
pub mod game;
pub mod limits;
pub mod lock;
pub mod merge;
pub mod openings;
pub mod player;
pub mod prove;
pub mod record;
pub mod rules;
pub mod run;
pub mod selfplay;
pub mod shard;
pub mod single;
pub mod spec;
pub mod state;
pub mod tournament;
pub mod uci_client;

pub use adjudication::{Adjudication, DrawRule, ResignRule};
pub use config::{ConfigError, MatchConfig, OpeningPlan, RunKind, StopReason};
pub use game::{GameSetup, InProgress, MoveNote, PlayedGame, PlayedMove, play_game};
pub use limits::{Clocks, MoveLimits, SideClock, TimeControl};
pub use openings::{BalanceCheck, Opening, random_opening};
pub use player::{BundledPlayer, MoveReply, MoveRequest, Player, PlayerError};
pub use record::{PgnHeader, to_pgn};
pub use rules::{DrawRules, GameEnd, Termination};
pub use run::{Execution, MatchReport, MatchStart, RunError, RunFiles, VerifyConfig, VerifyOutcome, VerifyReport, VerifyStart, run_match, verify};
pub use selfplay::{SelfplayConfig, SelfplayReport, SelfplayStart, run_selfplay};
pub use single::{PlayConfig, play_one};
pub use spec::{EngineKind, EngineSpec, EngineSpecError};
pub use state::MatchState;
pub use tournament::{MatchError, MatchProgress, Timing, play_match};
