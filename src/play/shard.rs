//! A shard of a match: the game pairs whose index is K modulo N (within an
//! optional window of pair indices, for waves), played on their own with
//! the games they would have in the whole match. Games at fixed nodes or
//! depth are a function of their engines and opening alone, and the
//! opening of pair `p` depends only on `p` and the seed, so any machine can
//! play any pair; [`super::merge`] puts the shards back together.
//!
//! Inside a shard, games are numbered in the shard's own order ("sequence
//! numbers": the state's `committed` and `cutoff` count them); the game's
//! number in the whole match (its colours, opponent, opening, `[Round]`)
//! comes from [`ShardSpec::game_at`].

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Which game pairs a shard plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardSpec {
    /// K: pairs whose index is K modulo `count`.
    pub index: u64,
    /// N, the number of shards.
    pub count: u64,
    /// Only pairs from this index on (a wave's first pair).
    #[serde(default)]
    pub first_pair: u64,
    /// Only pairs before this index (a wave's end), if set.
    #[serde(default)]
    pub end_pair: Option<u64>,
}

/// A `--shard` or `--pair-range` value that does not parse.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct ShardParseError(String);

impl FromStr for ShardSpec {
    type Err = ShardParseError;

    /// `K/N`, with 0 ≤ K < N.
    fn from_str(text: &str) -> Result<ShardSpec, ShardParseError> {
        let bad = || ShardParseError(format!("'{text}' is not K/N (shard K of N, 0 ≤ K < N), e.g. 0/4"));
        let (k, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let (index, count): (u64, u64) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(ShardSpec { index, count, first_pair: 0, end_pair: None })
    }
}

/// Parses `A..B` (pairs A to B−1, counted from 0), `A..` or `..B`.
pub fn parse_pair_range(text: &str) -> Result<(u64, Option<u64>), ShardParseError> {
    let bad = || ShardParseError(format!("'{text}' is not a range of pair indices A..B (from 0; B excluded)"));
    let (a, b) = text.trim().split_once("..").ok_or_else(bad)?;
    let first = if a.trim().is_empty() { 0 } else { a.trim().parse().map_err(|_| bad())? };
    let end = if b.trim().is_empty() { None } else { Some(b.trim().parse::<u64>().map_err(|_| bad())?) };
    if end.is_some_and(|e| e <= first) {
        return Err(bad());
    }
    Ok((first, end))
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)?;
        match (self.first_pair, self.end_pair) {
            (0, None) => Ok(()),
            (a, Some(b)) => write!(f, " pairs {a}..{b}"),
            (a, None) => write!(f, " pairs {a}.."),
        }
    }
}

impl ShardSpec {
    /// The pair indices of the whole match (`pairs` in all) this shard plays, as
    /// (first, step, how many).
    fn pairs(&self, pairs: u64) -> (u64, u64, u64) {
        let end = self.end_pair.map_or(pairs, |e| e.min(pairs));
        // The first pair index ≥ first_pair that is ≡ index (mod count).
        let first = self.first_pair + (self.index + self.count - self.first_pair % self.count) % self.count;
        let n = if first >= end { 0 } else { (end - 1 - first) / self.count + 1 };
        (first, self.count, n)
    }

    /// Games this shard plays in a match of `pairs` game pairs.
    pub fn games(&self, pairs: u64) -> u64 {
        2 * self.pairs(pairs).2
    }

    /// The whole match's game number of the shard's game `seq` (both games of a pair stay together).
    pub fn game_at(&self, seq: u64, pairs: u64) -> u64 {
        let (first, step, _) = self.pairs(pairs);
        2 * (first + (seq / 2) * step) + seq % 2
    }

    /// The whole match's pair indices this shard plays.
    pub fn pair_indices(&self, pairs: u64) -> impl Iterator<Item = u64> {
        let (first, step, n) = self.pairs(pairs);
        (0..n).map(move |j| first + j * step)
    }

    /// How many of the shard's first `local_pairs` pairs go to each of
    /// `opponents` opponents (pair `p` is against opponent `p % opponents`).
    pub fn pairs_per_opponent(&self, pairs: u64, local_pairs: u64, opponents: u64) -> Vec<u64> {
        let (first, step, _) = self.pairs(pairs);
        let n = opponents.max(1);
        let mut counts = vec![0u64; n as usize];
        // The opponent repeats every n pairs of the shard.
        let (cycles, rest) = (local_pairs / n, local_pairs % n);
        for j in 0..n.min(local_pairs) {
            let o = ((first + j * step) % n) as usize;
            counts[o] += cycles + u64::from(j < rest);
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_pairs_and_keep_pairs_whole() {
        let pairs = 11;
        let mut seen = vec![0; 2 * pairs as usize];
        for k in 0..4 {
            let shard: ShardSpec = format!("{k}/4").parse().unwrap();
            for seq in 0..shard.games(pairs) {
                let g = shard.game_at(seq, pairs);
                assert_eq!(g % 2, seq % 2, "a pair's games stay in order");
                assert_eq!((g / 2) % 4, k);
                seen[g as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
        let wave = ShardSpec { first_pair: 5, end_pair: Some(9), ..ShardSpec::from_str("1/4").unwrap() };
        assert_eq!(wave.pair_indices(pairs).collect::<Vec<_>>(), [5]);
        let wave = ShardSpec { first_pair: 4, end_pair: Some(20), ..ShardSpec::from_str("3/4").unwrap() };
        assert_eq!(wave.pair_indices(pairs).collect::<Vec<_>>(), [7]);
        assert_eq!(wave.games(pairs), 2);
    }

    #[test]
    fn opponents_are_counted_as_pair_index_modulo_opponents() {
        let shard: ShardSpec = "1/2".parse().unwrap();
        // Pairs 1, 3, 5, 7, 9 against 3 opponents: 1, 0, 2, 1, 0.
        assert_eq!(shard.pairs_per_opponent(100, 5, 3), [2, 2, 1]);
        let whole = ShardSpec { index: 0, count: 1, first_pair: 0, end_pair: None };
        assert_eq!(whole.pairs_per_opponent(100, 7, 3), [3, 2, 2]);
    }

    #[test]
    fn specs_parse() {
        assert_eq!("2/4".parse::<ShardSpec>().unwrap(), ShardSpec { index: 2, count: 4, first_pair: 0, end_pair: None });
        assert!("4/4".parse::<ShardSpec>().is_err() && "1/0".parse::<ShardSpec>().is_err() && "x".parse::<ShardSpec>().is_err());
        assert_eq!(parse_pair_range("10..20"), Ok((10, Some(20))));
        assert_eq!(parse_pair_range("10.."), Ok((10, None)));
        assert!(parse_pair_range("20..10").is_err());
    }
}
