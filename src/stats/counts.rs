//! The counts everything else is computed from: single games as win/draw/loss
//! ([`Wdl`]) and game pairs as pentanomial buckets ([`Penta`]).
//!
//! Counts are `u64` and add with saturation: no real match reaches 2⁶⁴ games,
//! and a saturated count is a better failure than a panic in the middle of a
//! long run.

use std::iter::Sum;
use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

/// The result of one game from the first engine's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameOutcome {
    /// The first engine won.
    Win,
    /// The game was drawn.
    Draw,
    /// The first engine lost.
    Loss,
}

impl GameOutcome {
    /// Half-points the first engine earned: 2, 1 or 0. Summing two of these
    /// gives a game pair's pentanomial bucket.
    pub fn half_points(self) -> usize {
        match self {
            GameOutcome::Win => 2,
            GameOutcome::Draw => 1,
            GameOutcome::Loss => 0,
        }
    }

    /// The same game seen from the other engine.
    pub fn flipped(self) -> GameOutcome {
        match self {
            GameOutcome::Win => GameOutcome::Loss,
            GameOutcome::Draw => GameOutcome::Draw,
            GameOutcome::Loss => GameOutcome::Win,
        }
    }
}

/// Win/draw/loss counts of single games, from the first engine's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Wdl {
    /// Games the first engine won.
    pub wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games the first engine lost.
    pub losses: u64,
}

impl Wdl {
    /// Counts from the three numbers, in the W, D, L order of the field names.
    pub fn new(wins: u64, draws: u64, losses: u64) -> Wdl {
        Wdl { wins, draws, losses }
    }

    /// One game's counts.
    pub fn from_outcome(outcome: GameOutcome) -> Wdl {
        let mut wdl = Wdl::default();
        wdl.record(outcome);
        wdl
    }

    /// Counts one more game.
    pub fn record(&mut self, outcome: GameOutcome) {
        let slot = match outcome {
            GameOutcome::Win => &mut self.wins,
            GameOutcome::Draw => &mut self.draws,
            GameOutcome::Loss => &mut self.losses,
        };
        *slot = slot.saturating_add(1);
    }

    /// Games played.
    pub fn games(&self) -> u64 {
        self.wins.saturating_add(self.draws).saturating_add(self.losses)
    }

    /// The first engine's points (a win is 1, a draw ½).
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// The mean score per game in [0, 1], or `None` if no game was played.
    pub fn score(&self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| self.points() / games as f64)
    }

    /// The same counts from the second engine's point of view.
    pub fn flipped(&self) -> Wdl {
        Wdl { wins: self.losses, draws: self.draws, losses: self.wins }
    }

    /// The counts as `[losses, draws, wins]`, lowest score first, the order
    /// the estimators and the SPRT take their buckets in.
    pub(super) fn by_score(&self) -> [u64; 3] {
        [self.losses, self.draws, self.wins]
    }
}

impl Add for Wdl {
    type Output = Wdl;
    fn add(mut self, rhs: Wdl) -> Wdl {
        self += rhs;
        self
    }
}

impl AddAssign for Wdl {
    fn add_assign(&mut self, rhs: Wdl) {
        self.wins = self.wins.saturating_add(rhs.wins);
        self.draws = self.draws.saturating_add(rhs.draws);
        self.losses = self.losses.saturating_add(rhs.losses);
    }
}

impl Sum for Wdl {
    fn sum<I: Iterator<Item = Wdl>>(iter: I) -> Wdl {
        iter.fold(Wdl::default(), Add::add)
    }
}

/// Pentanomial counts of game pairs (the same opening played once with each
/// colour), indexed by the pair's score in half-points:
/// `[LL, LD, DD+WL, WD, WW]`, i.e. pair scores 0, ½, 1, 1½, 2.
///
/// Counting pairs rather than games removes the variance the opening adds
/// (both engines get the same position with both colours), which is why the
/// pentanomial interval is the narrower, honest one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Penta(pub [u64; 5]);

impl Penta {
    /// Index of pairs the first engine lost twice.
    pub const LL: usize = 0;
    /// Index of pairs with a loss and a draw.
    pub const LD: usize = 1;
    /// Index of pairs with two draws or a win and a loss (score 1 either way).
    pub const DD_WL: usize = 2;
    /// Index of pairs with a win and a draw.
    pub const WD: usize = 3;
    /// Index of pairs the first engine won twice.
    pub const WW: usize = 4;

    /// The bucket a pair of games falls in; the order of the two games does
    /// not matter.
    pub fn bucket(first: GameOutcome, second: GameOutcome) -> usize {
        first.half_points() + second.half_points()
    }

    /// One pair's counts.
    pub fn from_pair(first: GameOutcome, second: GameOutcome) -> Penta {
        let mut penta = Penta::default();
        penta.record(first, second);
        penta
    }

    /// Counts one more game pair.
    pub fn record(&mut self, first: GameOutcome, second: GameOutcome) {
        let slot = &mut self.0[Penta::bucket(first, second)];
        *slot = slot.saturating_add(1);
    }

    /// Game pairs played.
    pub fn pairs(&self) -> u64 {
        self.0.iter().fold(0u64, |total, &count| total.saturating_add(count))
    }

    /// Games played (two per pair).
    pub fn games(&self) -> u64 {
        self.pairs().saturating_mul(2)
    }

    /// The first engine's points over all pairs (a pair is worth 0 to 2).
    pub fn points(&self) -> f64 {
        self.0.iter().enumerate().map(|(half_points, &count)| 0.5 * half_points as f64 * count as f64).sum()
    }

    /// The mean score per game in [0, 1], or `None` if no pair was played.
    pub fn score(&self) -> Option<f64> {
        let pairs = self.pairs();
        (pairs > 0).then(|| self.points() / (2.0 * pairs as f64))
    }

    /// The same counts from the second engine's point of view.
    pub fn flipped(&self) -> Penta {
        let mut reversed = self.0;
        reversed.reverse();
        Penta(reversed)
    }
}

impl Add for Penta {
    type Output = Penta;
    fn add(mut self, rhs: Penta) -> Penta {
        self += rhs;
        self
    }
}

impl AddAssign for Penta {
    fn add_assign(&mut self, rhs: Penta) {
        for (mine, theirs) in self.0.iter_mut().zip(rhs.0) {
            *mine = mine.saturating_add(theirs);
        }
    }
}

impl Sum for Penta {
    fn sum<I: Iterator<Item = Penta>>(iter: I) -> Penta {
        iter.fold(Penta::default(), Add::add)
    }
}

#[cfg(test)]
mod tests {
    use super::GameOutcome::{Draw, Loss, Win};
    use super::*;

    #[test]
    fn pair_buckets_follow_the_pair_score() {
        assert_eq!(Penta::bucket(Loss, Loss), Penta::LL);
        assert_eq!(Penta::bucket(Loss, Draw), Penta::LD);
        assert_eq!(Penta::bucket(Draw, Loss), Penta::LD);
        assert_eq!(Penta::bucket(Draw, Draw), Penta::DD_WL);
        assert_eq!(Penta::bucket(Win, Loss), Penta::DD_WL);
        assert_eq!(Penta::bucket(Loss, Win), Penta::DD_WL);
        assert_eq!(Penta::bucket(Win, Draw), Penta::WD);
        assert_eq!(Penta::bucket(Win, Win), Penta::WW);
    }

    #[test]
    fn counts_add_and_total() {
        let a = Wdl::new(3, 2, 1);
        let b = Wdl::from_outcome(Win) + Wdl::from_outcome(Loss);
        assert_eq!(a + b, Wdl::new(4, 2, 2));
        assert_eq!((a + b).games(), 8);
        assert_eq!([a, b].into_iter().sum::<Wdl>(), a + b);

        let p = Penta::from_pair(Win, Draw) + Penta::from_pair(Loss, Win);
        assert_eq!(p, Penta([0, 0, 1, 1, 0]));
        assert_eq!(p.pairs(), 2);
        assert_eq!(p.games(), 4);
        assert_eq!(p.points(), 2.5);
        assert_eq!([p, p].into_iter().sum::<Penta>(), Penta([0, 0, 2, 2, 0]));
    }

    #[test]
    fn scores_are_per_game_and_absent_without_games() {
        assert_eq!(Wdl::default().score(), None);
        assert_eq!(Penta::default().score(), None);
        assert_eq!(Wdl::new(1, 2, 1).score(), Some(0.5));
        assert_eq!(Penta([0, 0, 0, 1, 1]).score(), Some(0.875));
    }

    #[test]
    fn flipping_mirrors_the_score() {
        let wdl = Wdl::new(5, 3, 1);
        assert_eq!(wdl.flipped().flipped(), wdl);
        assert_eq!(wdl.score().unwrap() + wdl.flipped().score().unwrap(), 1.0);
        let penta = Penta([1, 2, 3, 4, 5]);
        assert_eq!(penta.flipped(), Penta([5, 4, 3, 2, 1]));
        assert_eq!(Win.flipped(), Loss);
        assert_eq!(Draw.flipped(), Draw);
    }

    #[test]
    fn counts_saturate_instead_of_overflowing() {
        let mut wdl = Wdl::new(u64::MAX, u64::MAX, 0);
        wdl.record(Win);
        wdl += Wdl::new(1, 0, 0);
        assert_eq!(wdl.wins, u64::MAX);
        assert_eq!(wdl.games(), u64::MAX);
        let penta = Penta([u64::MAX; 5]) + Penta([1; 5]);
        assert_eq!(penta.pairs(), u64::MAX);
        assert_eq!(penta.games(), u64::MAX);
    }
}
