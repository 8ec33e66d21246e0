//! `pgntune play` as a library call: one game between two engines, as PGN.

use std::sync::atomic::AtomicBool;

use shakmaty::ByColor;

use super::adjudication::Adjudication;
use super::game::{GameAborted, GameSetup, PlayedGame, play_game};
use super::limits::MoveLimits;
use super::openings::Opening;
use super::player::PlayerError;
use super::record::{PgnHeader, to_pgn};
use super::rules::DrawRules;
use super::spec::EngineSpec;

/// One game.
#[derive(Clone, Debug)]
pub struct PlayConfig {
    /// White.
    pub white: EngineSpec,
    /// Black.
    pub black: EngineSpec,
    /// Where the game starts.
    pub opening: Opening,
    /// Limits per move (each engine's own limits replace them where set).
    pub limits: MoveLimits,
    /// Adjudication.
    pub adjudication: Adjudication,
    /// Claimed or automatic draws.
    pub draw_rules: DrawRules,
    /// Milliseconds an engine may exceed its clock.
    pub time_margin_ms: u64,
    /// `[Event]`.
    pub event: String,
    /// `[Date]`.
    pub date: String,
}

/// Why the game was not played.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// An engine could not be started.
    #[error("engine '{name}': {source}")]
    Engine {
        /// The engine.
        name: String,
        /// Why.
        #[source]
        source: PlayerError,
    },
    /// The limits cannot be played with.
    #[error("{0}")]
    Limits(#[source] super::limits::LimitError),
    /// The game could not be played to its end.
    #[error(transparent)]
    Aborted(#[from] GameAborted),
}

/// Plays the game; returns it and its PGN text.
pub fn play_one(config: &PlayConfig, warn: &mut dyn FnMut(String)) -> Result<(PlayedGame, String), PlayError> {
    let limits = ByColor { white: config.limits.overridden_by(&config.white.limits), black: config.limits.overridden_by(&config.black.limits) };
    for l in [&limits.white, &limits.black] {
        l.check().map_err(PlayError::Limits)?;
    }
    let start =
        |spec: &EngineSpec, warn: &mut dyn FnMut(String)| spec.start(warn).map_err(|source| PlayError::Engine { name: spec.name.clone(), source });
    let mut white = start(&config.white, warn)?;
    let mut black = start(&config.black, warn)?;
    let cancel = AtomicBool::new(false);
    let setup = GameSetup {
        opening: &config.opening,
        limits: ByColor { white: &limits.white, black: &limits.black },
        adjudication: &config.adjudication,
        draw_rules: config.draw_rules,
        time_margin_ms: config.time_margin_ms,
        cancel: &cancel,
        adjourned: None,
    };
    let game = play_game(white.as_mut(), black.as_mut(), &setup, &mut |_| {})?;
    let header = PgnHeader {
        event: config.event.clone(),
        date: config.date.clone(),
        round: "1".into(),
        time_control: ByColor { white: limits.white.tc, black: limits.black.tc },
        times: true,
    };
    let pgn = to_pgn(&game, &header);
    Ok((game, pgn))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::GameResult;

    #[test]
    fn a_game_configured_without_the_command_line() {
        let config = PlayConfig {
            white: EngineSpec::bundled("classical", "classical").unwrap(),
            black: EngineSpec::bundled("flat", "flat").unwrap(),
            opening: Opening::new(Some("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1".parse().unwrap()), vec![]).unwrap(),
            limits: MoveLimits { depth: Some(4), ..MoveLimits::default() },
            adjudication: Adjudication::default(),
            draw_rules: DrawRules::Claim,
            time_margin_ms: 0,
            event: "test".into(),
            date: "2026.01.01".into(),
        };
        let (game, pgn) = play_one(&config, &mut |_| {}).unwrap();
        assert_eq!(game.result(), GameResult::WhiteWins, "back-rank mate in one");
        assert!(pgn.contains("1. Rd8# {+M1/"), "{pgn}");
        assert!(pgn.contains("[PlyCount \"1\"]") && pgn.contains("[TimeControl \"-\"]"), "{pgn}");
    }
}
