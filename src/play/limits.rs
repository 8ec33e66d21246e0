//! How long an engine may think: nodes, depth, time per move or a time
//! control, for the match and, where an engine's spec says so, for one
//! engine; and the clocks of a game in progress.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use shakmaty::{ByColor, Color};

use crate::engine::params::MAX_DEPTH;

/// A time control: base time and increment per move (PGN's `BASE+INC`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    /// Time at the start of the game, in milliseconds (at least 1).
    pub base_ms: u64,
    /// Time added after each move, in milliseconds.
    pub increment_ms: u64,
}

/// Why a time control was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    /// Not `BASE+INC` in seconds.
    #[error("'{0}' is not BASE+INC in seconds, e.g. 10+0.1")]
    Syntax(String),
    /// A base under a millisecond or a negative increment.
    #[error("'{0}': the base time must be positive (a millisecond at least) and the increment not negative (seconds, e.g. 10+0.1)")]
    Range(String),
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    /// `BASE+INC` or `BASE`, in seconds (`10+0.1`, `60`).
    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
        let seconds = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v < 1e9);
        let (Some(base), Some(inc)) = (seconds(base), seconds(inc)) else { return Err(TimeControlError::Syntax(text.to_string())) };
        let (base_ms, inc_ms) = ((base * 1000.0).round(), (inc * 1000.0).round());
        if base_ms < 1.0 || inc_ms < 0.0 {
            return Err(TimeControlError::Range(text.to_string()));
        }
        Ok(TimeControl { base_ms: base_ms as u64, increment_ms: inc_ms as u64 })
    }
}

/// Seconds without a trailing `.0`: `10`, `0.1`.
fn seconds(ms: u64) -> String {
    let s = format!("{}", ms as f64 / 1000.0);
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// `BASE+INC` in seconds, as the PGN `[TimeControl]` tag writes it.
impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", seconds(self.base_ms), seconds(self.increment_ms))
    }
}

/// The longest a move may be given, or an engine may overstep its clock
/// (`--movetime`, `--timemargin`): a day. More is a typo, and near
/// `u64::MAX` milliseconds the sums of clock and margin would wrap.
pub const MAX_MOVE_MS: u64 = 86_400_000;

/// How long an engine may think about a move.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveLimits {
    /// Nodes per move.
    pub nodes: Option<u64>,
    /// Depth per move.
    pub depth: Option<u32>,
    /// Milliseconds per move.
    pub movetime_ms: Option<u64>,
    /// A game clock.
    pub tc: Option<TimeControl>,
}

/// Why limits cannot be played with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// No limit at all: a search would never end.
    #[error("no limit per move (nodes, depth, movetime or a time control)")]
    None,
    /// A node or time limit of 0.
    #[error("a node or time limit of 0 per move")]
    Zero,
    /// A depth the engine cannot search to.
    #[error("depth {0}: must be from 1 to {MAX_DEPTH}")]
    Depth(u32),
}

impl MoveLimits {
    /// Limits of so many nodes per move.
    pub fn nodes(nodes: u64) -> MoveLimits {
        MoveLimits { nodes: Some(nodes), ..MoveLimits::default() }
    }

    /// True when the limits involve no time at all, so that a game is a
    /// pure function of its opening and engines.
    pub fn is_deterministic(&self) -> bool {
        self.movetime_ms.is_none() && self.tc.is_none()
    }

    /// True when no limit is set.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_none() && self.depth.is_none() && self.movetime_ms.is_none() && self.tc.is_none()
    }

    /// These limits with `own`'s set fields in place of theirs (an engine's
    /// own limits over the match's).
    pub fn overridden_by(&self, own: &MoveLimits) -> MoveLimits {
        MoveLimits {
            nodes: own.nodes.or(self.nodes),
            depth: own.depth.or(self.depth),
            movetime_ms: own.movetime_ms.or(self.movetime_ms),
            tc: own.tc.or(self.tc),
        }
    }

    /// Checks that there is a limit and that each is usable.
    pub fn check(&self) -> Result<(), LimitError> {
        if self.is_empty() {
            return Err(LimitError::None);
        }
        self.check_values()
    }

    /// Checks the limits that are set (an engine's own may set none).
    pub fn check_values(&self) -> Result<(), LimitError> {
        if self.nodes == Some(0) || self.movetime_ms == Some(0) || self.tc.is_some_and(|tc| tc.base_ms == 0) {
            return Err(LimitError::Zero);
        }
        match self.depth {
            Some(depth) if !(1..=MAX_DEPTH).contains(&depth) => Err(LimitError::Depth(depth)),
            _ => Ok(()),
        }
    }
}

/// One side's clock in a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideClock {
    /// Time left, in milliseconds.
    pub left_ms: u64,
    /// Increment per move, in milliseconds.
    pub increment_ms: u64,
}

/// The clocks of a game in progress: each side's, if it plays with one.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clocks {
    /// White's clock.
    pub white: Option<SideClock>,
    /// Black's clock.
    pub black: Option<SideClock>,
}

impl Clocks {
    /// The clocks at the start of a game with these limits per side.
    pub fn start(limits: &ByColor<MoveLimits>) -> Clocks {
        let clock = |l: &MoveLimits| l.tc.map(|tc| SideClock { left_ms: tc.base_ms, increment_ms: tc.increment_ms });
        Clocks { white: clock(&limits.white), black: clock(&limits.black) }
    }

    /// `color`'s clock.
    pub fn of(&self, color: Color) -> Option<SideClock> {
        color.fold_wb(self.white, self.black)
    }

    /// `color`'s clock, to change.
    pub fn of_mut(&mut self, color: Color) -> &mut Option<SideClock> {
        match color {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    /// True when neither side has a clock.
    pub fn is_empty(&self) -> bool {
        self.white.is_none() && self.black.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse_and_print_as_pgn_writes_them() {
        let tc: TimeControl = "10+0.1".parse().unwrap();
        assert_eq!(tc, TimeControl { base_ms: 10_000, increment_ms: 100 });
        assert_eq!(tc.to_string(), "10+0.1");
        assert_eq!("60".parse::<TimeControl>().unwrap().to_string(), "60+0");
        assert!(matches!("0+1".parse::<TimeControl>(), Err(TimeControlError::Range(_))));
        assert!(matches!("10+-1".parse::<TimeControl>(), Err(TimeControlError::Range(_))));
        assert!(matches!("fast".parse::<TimeControl>(), Err(TimeControlError::Syntax(_))));
    }

    #[test]
    fn an_engines_own_limits_replace_the_matchs() {
        let base = MoveLimits { nodes: Some(1000), tc: Some("10+0.1".parse().unwrap()), ..MoveLimits::default() };
        let own = MoveLimits { depth: Some(5), nodes: Some(50), ..MoveLimits::default() };
        let merged = base.overridden_by(&own);
        assert_eq!((merged.nodes, merged.depth, merged.tc), (Some(50), Some(5), base.tc));
        assert_eq!(MoveLimits::default().check(), Err(LimitError::None));
        assert_eq!(MoveLimits { depth: Some(0), ..MoveLimits::default() }.check(), Err(LimitError::Depth(0)));
        let clocks = Clocks::start(&ByColor { white: merged, black: MoveLimits::nodes(5) });
        assert_eq!(clocks.white, Some(SideClock { left_ms: 10_000, increment_ms: 100 }));
        assert_eq!(clocks.black, None);
    }
}
