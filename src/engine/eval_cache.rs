//! Two caches of the search's evaluation: whole evaluations by the
//! position's Zobrist hash ([`EvalCache`]), and the sums of the terms that
//! depend only on the pawns and kings ([`PawnKingCache`], an engine's pawn
//! hash table).
//!
//! The whole evaluation costs about as much as the rest of a node, and the
//! search evaluates the same positions again and again: quiescence nodes
//! reached through different capture orders, positions re-searched after a
//! reduction fails high, and every node of the next iteration. The
//! transposition table keeps evaluations too, but only of the positions it
//! keeps, and its slots go to deeper results first.
//!
//! The evaluation is a pure function of the position, so the cache changes
//! no score: a hit returns what evaluating would have returned. (A false
//! hit needs two positions whose 64-bit hashes agree in the 48 bits the
//! entry keeps and in the slot's index bits.) One entry is one `u64`: the
//! hash's upper 48 bits and the evaluation's 16 (evaluations are clamped
//! to ±`EVAL_LIMIT`, well inside `i16`).

use super::phase_sums::PhaseSums;
use crate::features::{PawnKingFacts, PawnKingKey};

/// A direct-mapped cache of evaluations from the side to move's view.
#[derive(Clone, Debug)]
pub struct EvalCache {
    entries: Box<[u64]>,
}

/// Entries of the default cache: 1 MB, small enough to stay in the
/// processor's caches next to the search's own tables.
pub const EVAL_CACHE_ENTRIES: usize = 1 << 17;

const KEY_MASK: u64 = !0xFFFF;

impl Default for EvalCache {
    fn default() -> Self {
        EvalCache::with_entries(EVAL_CACHE_ENTRIES)
    }
}

impl EvalCache {
    /// A cache of `entries` slots (rounded up to a power of two).
    pub fn with_entries(entries: usize) -> EvalCache {
        EvalCache { entries: vec![0; entries.max(1).next_power_of_two()].into_boxed_slice() }
    }

    #[inline]
    fn slot(&self, hash: u64) -> usize {
        // The low bits index; the high bits verify.
        (hash as usize) & (self.entries.len() - 1)
    }

    /// The evaluation stored for `hash`, if any.
    #[inline]
    pub fn get(&self, hash: u64) -> Option<i32> {
        let entry = self.entries[self.slot(hash)];
        // An empty slot is 0 and never a hit. (So is the entry of a hash
        // whose upper 48 bits are zero with an evaluation of 0: a miss,
        // which only costs an evaluation.)
        (entry != 0 && entry & KEY_MASK == hash & KEY_MASK).then_some(i32::from(entry as u16 as i16))
    }

    /// Stores `eval` for `hash`, replacing whatever the slot held.
    #[inline]
    pub fn insert(&mut self, hash: u64, eval: i32) {
        debug_assert!(i16::try_from(eval).is_ok(), "evaluation {eval} outside i16");
        let slot = self.slot(hash);
        self.entries[slot] = (hash & KEY_MASK) | u64::from(eval as i16 as u16);
    }

    /// Forgets every evaluation (new weights, or a reproducible new game).
    pub fn clear(&mut self) {
        self.entries.fill(0);
    }
}

/// The fixed-point (middlegame, endgame) sums of a layout's pawn-king terms
/// for one [`PawnKingKey`], with the facts the other terms need.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PawnKingEntry {
    /// The pawns and kings these sums are for.
    pub key: PawnKingKey,
    /// The weighted sums of the pawn-king terms.
    pub sums: PhaseSums,
    /// What the other terms need (passed pawns).
    pub facts: PawnKingFacts,
}

/// A direct-mapped table of [`PawnKingEntry`]s. An entry keeps its whole
/// key, so a hit is never another position's: the cache cannot change an
/// evaluation.
#[derive(Clone, Debug)]
pub struct PawnKingCache {
    entries: Box<[Option<PawnKingEntry>]>,
}

/// Entries of the default pawn-king cache (about 1 MB).
pub const PAWN_KING_CACHE_ENTRIES: usize = 1 << 14;

impl Default for PawnKingCache {
    fn default() -> Self {
        PawnKingCache::with_entries(PAWN_KING_CACHE_ENTRIES)
    }
}

impl PawnKingCache {
    /// A cache of `entries` slots (rounded up to a power of two).
    pub fn with_entries(entries: usize) -> PawnKingCache {
        PawnKingCache { entries: vec![None; entries.max(1).next_power_of_two()].into_boxed_slice() }
    }

    #[inline]
    fn slot(&self, key: &PawnKingKey) -> usize {
        (key.hash() as usize) & (self.entries.len() - 1)
    }

    /// The entry of `key`, if it is stored.
    #[inline]
    pub fn get(&self, key: &PawnKingKey) -> Option<&PawnKingEntry> {
        self.entries[self.slot(key)].as_ref().filter(|entry| entry.key == *key)
    }

    /// Stores `entry`, replacing whatever its slot held.
    #[inline]
    pub fn insert(&mut self, entry: PawnKingEntry) {
        let slot = self.slot(&entry.key);
        self.entries[slot] = Some(entry);
    }

    /// Forgets every entry (new weights).
    pub fn clear(&mut self) {
        self.entries.fill(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_returns_evaluations_of_either_sign() {
        let mut cache = EvalCache::with_entries(1024);
        for (hash, eval) in
            [(0x1234_5678_9abc_def0u64, -20_000), (0xfedc_ba98_7654_3210, 20_000), (0x0f0f_0f0f_0f0f_0f0f, 0), (0x8000_0000_0000_0001, -1)]
        {
            assert_eq!(cache.get(hash), None);
            cache.insert(hash, eval);
            assert_eq!(cache.get(hash), Some(eval), "{hash:x}");
        }
    }

    #[test]
    fn another_position_in_the_same_slot_is_a_miss_and_replaces() {
        let mut cache = EvalCache::with_entries(16);
        let a = 0xaaaa_0000_0000_0003u64;
        let b = 0xbbbb_0000_0000_0003u64;
        cache.insert(a, 55);
        assert_eq!(cache.get(b), None);
        cache.insert(b, -7);
        assert_eq!(cache.get(a), None);
        assert_eq!(cache.get(b), Some(-7));
        cache.clear();
        assert_eq!(cache.get(b), None);
    }
}
