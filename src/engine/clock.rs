//! Search limits and the time manager.
//!
//! The search never reads the time or the input itself: it asks a [`Clock`]
//! at every node whether to stop (an exact node limit is checked every
//! node, the time and the stop flag every [`CHECK_INTERVAL`] nodes) and
//! after every iteration whether another one is worth starting (the soft
//! limit). Searches limited only by depth or nodes never look at the time
//! to decide anything, so they are deterministic.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use shakmaty::Move;

use super::params::{
    CHECK_INTERVAL, DEFAULT_MOVES_TO_GO, HARD_LIMIT_FACTOR, HARD_LIMIT_MAX_PERCENT, INCREMENT_PERCENT, MOVE_OVERHEAD, SOFT_LIMIT_PERCENT,
};

/// The side to move's clock in a timed game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameClock {
    /// Time left on the clock.
    pub time_left: Duration,
    /// Time added after every move.
    pub increment: Duration,
    /// Moves until the next time control, if the control has one.
    pub moves_to_go: Option<u32>,
}

/// What bounds a search. Several limits combine: the first one reached
/// stops the search. With none set (and `infinite` false) the search runs
/// to the maximum depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration to complete.
    pub depth: Option<u32>,
    /// Node budget, honoured exactly (checked at every node).
    pub nodes: Option<u64>,
    /// Fixed time for this move.
    pub movetime: Option<Duration>,
    /// The game clock, for the time manager to plan with.
    pub clock: Option<GameClock>,
    /// Search until stopped (other limits are ignored).
    pub infinite: bool,
    /// Time kept back from every timed move for latency.
    pub move_overhead: Duration,
    /// The root moves to consider (UCI `go searchmoves`); empty: all of them.
    pub searchmoves: Vec<Move>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { depth: None, nodes: None, movetime: None, clock: None, infinite: false, move_overhead: MOVE_OVERHEAD, searchmoves: Vec::new() }
    }
}

impl Limits {
    /// Search to a fixed depth.
    pub fn depth(depth: u32) -> Limits {
        Limits { depth: Some(depth), ..Limits::default() }
    }

    /// Search a fixed number of nodes.
    pub fn nodes(nodes: u64) -> Limits {
        Limits { nodes: Some(nodes), ..Limits::default() }
    }

    /// Search for a fixed time.
    pub fn movetime(time: Duration) -> Limits {
        Limits { movetime: Some(time), ..Limits::default() }
    }

    /// Search until stopped.
    pub fn infinite() -> Limits {
        Limits { infinite: true, ..Limits::default() }
    }
}

/// The time manager of one search.
#[derive(Debug)]
pub struct Clock {
    start: Instant,
    /// No new iteration starts after this (scaled by best-move stability).
    soft: Option<Duration>,
    /// The search stops as soon as it notices this has passed.
    hard: Option<Duration>,
    nodes: Option<u64>,
    /// True when the limits leave the time manager free to stop early (a
    /// game clock): then a single legal move is played at once.
    timed_game: bool,
}

impl Clock {
    /// Plans the search for `limits`, starting the clock now.
    pub fn start(limits: &Limits) -> Clock {
        Clock::start_at(limits, Instant::now())
    }

    /// Plans the search for `limits` with the clock started at `start`.
    pub fn start_at(limits: &Limits, start: Instant) -> Clock {
        if limits.infinite {
            return Clock { start, soft: None, hard: None, nodes: None, timed_game: false };
        }
        let mut soft = None;
        let mut hard = None;
        if let Some(movetime) = limits.movetime {
            // Keep the overhead back, but never more than half the time.
            let time = movetime.saturating_sub(limits.move_overhead.min(movetime / 2));
            soft = Some(time);
            hard = Some(time);
        }
        let timed_game = limits.clock.is_some();
        if let Some(clock) = limits.clock {
            let (s, h) = plan(&clock, limits.move_overhead);
            soft = Some(soft.map_or(s, |t: Duration| t.min(s)));
            hard = Some(hard.map_or(h, |t: Duration| t.min(h)));
        }
        Clock { start, soft, hard, nodes: limits.nodes, timed_game }
    }

    /// Time since the search started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// True when the search must stop now, with `nodes` searched so far:
    /// the node limit is reached, or (checked every [`CHECK_INTERVAL`]
    /// nodes) `stop` was raised or the hard time limit passed.
    #[inline]
    pub fn must_stop(&self, nodes: u64, stop: &AtomicBool) -> bool {
        if self.nodes.is_some_and(|limit| nodes >= limit) {
            return true;
        }
        if !nodes.is_multiple_of(CHECK_INTERVAL) {
            return false;
        }
        stop.load(Ordering::Relaxed) || self.hard.is_some_and(|hard| self.start.elapsed() >= hard)
    }

    /// True when another iteration is worth starting. `stability_percent`
    /// scales the soft limit: above 100 when the best move just changed,
    /// below when it has held for several iterations.
    pub fn may_start_iteration(&self, stability_percent: u32) -> bool {
        match self.soft {
            None => true,
            Some(soft) => {
                let scaled = soft.saturating_mul(stability_percent) / 100;
                let limit = self.hard.map_or(scaled, |hard| scaled.min(hard));
                self.start.elapsed() < limit
            }
        }
    }

    /// True when the search plays for a game clock, where a forced move
    /// may be played without searching.
    pub fn is_timed_game(&self) -> bool {
        self.timed_game
    }

    /// True when a time limit (game clock or move time) bounds the search.
    pub fn is_time_limited(&self) -> bool {
        self.soft.is_some()
    }

    /// The hard limit, if any (for reports and tests).
    pub fn hard_limit(&self) -> Option<Duration> {
        self.hard
    }

    /// The soft limit, if any (for reports and tests).
    pub fn soft_limit(&self) -> Option<Duration> {
        self.soft
    }
}

/// Soft and hard limits for one move of a timed game.
fn plan(clock: &GameClock, overhead: Duration) -> (Duration, Duration) {
    let left = clock.time_left.saturating_sub(overhead);
    let moves_to_go = clock.moves_to_go.unwrap_or(DEFAULT_MOVES_TO_GO).max(1);
    // Saturating: the times come from the GUI and may be absurd.
    let increment = clock.increment.saturating_mul(INCREMENT_PERCENT) / 100;
    let planned = (left / moves_to_go).saturating_add(increment).min(left);
    let hard = planned.saturating_mul(HARD_LIMIT_FACTOR).min(left.saturating_mul(HARD_LIMIT_MAX_PERCENT) / 100);
    let soft = (planned.saturating_mul(SOFT_LIMIT_PERCENT) / 100).min(hard);
    (soft, hard)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(left_ms: u64, inc_ms: u64, moves_to_go: Option<u32>) -> Limits {
        Limits {
            clock: Some(GameClock { time_left: Duration::from_millis(left_ms), increment: Duration::from_millis(inc_ms), moves_to_go }),
            ..Limits::default()
        }
    }

    #[test]
    fn limits_stay_inside_the_time_left() {
        for left in [0, 5, 30, 31, 50, 100, 300, 1_000, 10_000, 600_000] {
            for inc in [0, 10, 1_000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    let clock = Clock::start(&game(left, inc, mtg));
                    let hard = clock.hard_limit().unwrap();
                    let soft = clock.soft_limit().unwrap();
                    assert!(soft <= hard, "{left} {inc} {mtg:?}");
                    let usable = Duration::from_millis(left).saturating_sub(MOVE_OVERHEAD);
                    assert!(hard <= usable * HARD_LIMIT_MAX_PERCENT / 100 + Duration::from_nanos(1), "{left} {inc} {mtg:?}");
                }
            }
        }
    }

    #[test]
    fn absurd_times_do_not_overflow() {
        let clock = Clock::start(&game(u64::MAX / 2, u64::MAX / 2, Some(u32::MAX)));
        assert!(clock.hard_limit().unwrap() > Duration::from_secs(1));
        assert!(clock.may_start_iteration(150));
    }

    #[test]
    fn one_second_plus_increment_plans_tens_of_milliseconds() {
        let clock = Clock::start(&game(1_000, 10, None));
        let soft = clock.soft_limit().unwrap().as_millis();
        let hard = clock.hard_limit().unwrap().as_millis();
        assert!((15..=40).contains(&soft), "{soft}");
        assert!((80..=200).contains(&hard), "{hard}");
    }

    #[test]
    fn node_limit_is_exact_and_depth_only_never_stops() {
        let stop = AtomicBool::new(false);
        let clock = Clock::start(&Limits::nodes(5_000));
        assert!(!clock.must_stop(4_999, &stop));
        assert!(clock.must_stop(5_000, &stop));
        let clock = Clock::start(&Limits::depth(3));
        assert!(!clock.must_stop(CHECK_INTERVAL, &stop));
        assert!(clock.may_start_iteration(100));
        stop.store(true, Ordering::Relaxed);
        assert!(clock.must_stop(CHECK_INTERVAL, &stop));
        assert!(!clock.must_stop(CHECK_INTERVAL + 1, &stop));
    }

    #[test]
    fn movetime_keeps_some_overhead_back() {
        let clock = Clock::start(&Limits::movetime(Duration::from_millis(1_000)));
        assert_eq!(clock.hard_limit(), Some(Duration::from_millis(970)));
        let clock = Clock::start(&Limits::movetime(Duration::from_millis(20)));
        assert_eq!(clock.hard_limit(), Some(Duration::from_millis(10)));
    }
}
