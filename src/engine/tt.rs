//! The transposition table: results of earlier searches, keyed by
//! shakmaty's 64-bit Zobrist hash.
//!
//! One 16-byte entry per slot, slots addressed by the high bits of
//! `hash × slots` (so any number of slots works, not only powers of two),
//! the full hash stored for verification. An entry is replaced when it
//! comes from an older search, describes another position, or was searched
//! less deeply than the new result (plus a small slack so that fresh results
//! win). Several search threads share one table without locks (see
//! `Slot`).

use std::sync::atomic::{AtomicU64, Ordering};

use shakmaty::{Move, Role, Square};

use super::params::MATE_BOUND;

/// Which side of the true score a stored score is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true score (a PV node).
    Exact,
    /// The true score is at least this (a beta cutoff).
    Lower,
    /// The true score is at most this (no move reached alpha).
    Upper,
}

impl Bound {
    /// What a search of the window (`original_alpha`, `beta`) that ended
    /// with `best` and raised alpha to `alpha` knows of the true score.
    pub fn of_search(best: i32, original_alpha: i32, alpha: i32, beta: i32) -> Bound {
        if best >= beta {
            Bound::Lower
        } else if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
}

/// A move as the table stores it: from, to and promotion in 16 bits; the
/// full [`Move`] is recovered by matching against the legal moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct PackedMove(u16);

impl PackedMove {
    /// No move (a1a1 is never a move, so zero is free).
    pub const NONE: PackedMove = PackedMove(0);

    /// Packs a move; castling is stored as king square to rook square, the
    /// way shakmaty represents it.
    #[inline]
    pub fn new(m: Move) -> PackedMove {
        let from = m.from().map_or(0, |sq| sq as u16);
        let to = m.to() as u16;
        let promotion = m.promotion().map_or(0, |r| r as u16);
        PackedMove(from | (to << 6) | (promotion << 12))
    }

    /// True when this is [`PackedMove::NONE`].
    #[inline]
    pub fn is_none(self) -> bool {
        self.0 == 0
    }

    /// True when `m` packs to this.
    #[inline]
    pub fn matches(self, m: Move) -> bool {
        !self.is_none() && PackedMove::new(m) == self
    }

    /// The (from, to) square indices, for tables indexed by them.
    #[inline]
    pub fn squares(self) -> (usize, usize) {
        (usize::from(self.0 & 63), usize::from((self.0 >> 6) & 63))
    }

    /// The origin square, for tests and debugging.
    pub fn from_square(self) -> Square {
        Square::new(u32::from(self.0 & 63))
    }

    /// The promotion role, if any.
    pub fn promotion(self) -> Option<Role> {
        Role::try_from(u32::from(self.0 >> 12)).ok()
    }
}

/// What a probe found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// The best (or refuting) move found, possibly none.
    pub best: PackedMove,
    /// The score, already adjusted to the probing ply for mate scores.
    pub score: i32,
    /// The static evaluation of the position.
    pub eval: i32,
    /// The depth the score was searched to.
    pub depth: i32,
    /// How the score bounds the true score.
    pub bound: Bound,
}

/// One slot as the search reads and writes it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Entry {
    key: u64,
    best: PackedMove,
    score: i16,
    eval: i16,
    depth: u8,
    /// Bits 0–1: bound (0 = empty slot); bits 2–7: search generation.
    flags: u8,
}

impl Entry {
    /// Everything but the key in one word.
    #[inline]
    fn data(self) -> u64 {
        u64::from(self.best.0)
            | (u64::from(self.score as u16) << 16)
            | (u64::from(self.eval as u16) << 32)
            | (u64::from(self.depth) << 48)
            | (u64::from(self.flags) << 56)
    }

    #[inline]
    fn from_words(key: u64, data: u64) -> Entry {
        Entry {
            key,
            best: PackedMove(data as u16),
            score: (data >> 16) as u16 as i16,
            eval: (data >> 32) as u16 as i16,
            depth: (data >> 48) as u8,
            flags: (data >> 56) as u8,
        }
    }
}

/// A slot in memory: two words that several search threads (lazy SMP)
/// read and write without locks. The first word is the key XOR the data,
/// so a slot torn by two threads writing at once (one's key, the other's
/// data) fails the key check and reads as another position's entry,
/// instead of handing one position another's move and score. Relaxed
/// atomics compile to the plain loads and stores of a one-thread table.
#[derive(Debug, Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    #[inline]
    fn load(&self) -> Entry {
        let data = self.data.load(Ordering::Relaxed);
        Entry::from_words(self.check.load(Ordering::Relaxed) ^ data, data)
    }

    #[inline]
    fn save(&self, entry: Entry) {
        let data = entry.data();
        self.check.store(entry.key ^ data, Ordering::Relaxed);
        self.data.store(data, Ordering::Relaxed);
    }
}

/// The transposition table. Probes and stores take `&self`, so that the
/// threads of one search share it.
#[derive(Debug)]
pub struct TranspositionTable {
    slots: Vec<Slot>,
    generation: u8,
}

const SLOT_BYTES: usize = std::mem::size_of::<Slot>();
const GENERATIONS: u8 = 64;

impl TranspositionTable {
    /// A table of `mb` megabytes (at least one entry).
    pub fn new(mb: usize) -> TranspositionTable {
        let count = (mb.saturating_mul(1 << 20) / SLOT_BYTES).max(1);
        TranspositionTable { slots: std::iter::repeat_with(Slot::default).take(count).collect(), generation: 0 }
    }

    /// A table of `mb` megabytes, or the allocation's error when that much
    /// memory cannot be had (instead of aborting the process).
    pub fn try_new(mb: usize) -> Result<TranspositionTable, std::collections::TryReserveError> {
        let count = (mb.saturating_mul(1 << 20) / SLOT_BYTES).max(1);
        let mut slots = Vec::new();
        slots.try_reserve_exact(count)?;
        slots.extend(std::iter::repeat_with(Slot::default).take(count));
        Ok(TranspositionTable { slots, generation: 0 })
    }

    /// Reallocates to `mb` megabytes, dropping all entries.
    pub fn resize(&mut self, mb: usize) {
        *self = TranspositionTable::new(mb);
    }

    /// Empties the table.
    pub fn clear(&mut self) {
        for slot in &mut self.slots {
            *slot.check.get_mut() = 0;
            *slot.data.get_mut() = 0;
        }
        self.generation = 0;
    }

    /// Marks the start of a new search, so that older entries are replaced
    /// first.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) % GENERATIONS;
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when the table has no slots (never: it has at least one).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    #[inline]
    fn slot(&self, hash: u64) -> &Slot {
        &self.slots[((u128::from(hash) * self.slots.len() as u128) >> 64) as usize]
    }

    /// Asks the CPU to start loading the slot of `hash`, so that a probe
    /// a little later does not wait for memory (the table is far larger
    /// than the caches, and a probe is otherwise a cache miss).
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        crate::prefetch::prefetch(self.slot(hash));
    }

    /// Looks up `hash`; mate scores come back relative to `ply`.
    #[inline]
    pub fn probe(&self, hash: u64, ply: usize) -> Option<Hit> {
        let entry = self.slot(hash).load();
        let bound = match entry.flags & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        if entry.key != hash {
            return None;
        }
        Some(Hit {
            best: entry.best,
            score: score_from_table(i32::from(entry.score), ply),
            eval: i32::from(entry.eval),
            depth: i32::from(entry.depth),
            bound,
        })
    }

    /// Stores a search result for `hash` found at `ply`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn store(&self, hash: u64, ply: usize, best: PackedMove, score: i32, eval: i32, depth: i32, bound: Bound) {
        let generation = self.generation;
        let slot = self.slot(hash);
        let old = slot.load();
        let old_generation = old.flags >> 2;
        let depth = depth.clamp(0, i32::from(u8::MAX)) as u8;
        let same = old.key == hash && old.flags & 3 != 0;
        let replace = !same || old_generation != generation || bound == Bound::Exact || depth + 3 >= old.depth;
        if !replace {
            return;
        }
        let bound_bits = match bound {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        slot.save(Entry {
            key: hash,
            // A result without a move keeps the move an earlier search of
            // the same position found.
            best: if best.is_none() && same { old.best } else { best },
            score: score_to_table(score, ply) as i16,
            eval: eval.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            depth,
            flags: bound_bits | (generation << 2),
        });
    }

    /// Permille of a sample of slots filled in the current search (UCI
    /// `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let sample = self.slots.len().min(1000);
        let used = self.slots[..sample].iter().map(Slot::load).filter(|e| e.flags & 3 != 0 && e.flags >> 2 == self.generation).count();
        (used * 1000 / sample.max(1)) as u32
    }
}

/// Mate scores are stored as distance from the stored node, not the root,
/// so that they stay right when the position is reached at another ply.
fn score_to_table(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_table(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::params::MATE;

    #[test]
    fn entries_are_sixteen_bytes() {
        assert_eq!(SLOT_BYTES, 16);
        assert_eq!(TranspositionTable::new(1).len(), 65_536);
        assert_eq!(TranspositionTable::new(0).len(), 1);
    }

    #[test]
    fn store_and_probe_round_trip_with_mate_distances() {
        let tt = TranspositionTable::new(1);
        let m = Move::Normal { role: Role::Pawn, from: Square::E7, capture: None, to: Square::E8, promotion: Some(Role::Knight) };
        let packed = PackedMove::new(m);
        assert!(packed.matches(m));
        assert_eq!(packed.promotion(), Some(Role::Knight));
        assert_eq!(packed.from_square(), Square::E7);
        // Mate in 3 plies from a node at ply 5 = mate in 8 from the root.
        tt.store(0xDEAD_BEEF, 5, packed, MATE - 8, 12, 7, Bound::Exact);
        let hit = tt.probe(0xDEAD_BEEF, 5).unwrap();
        assert_eq!((hit.score, hit.eval, hit.depth, hit.bound, hit.best), (MATE - 8, 12, 7, Bound::Exact, packed));
        // The same position reached at ply 1: mate in 4 plies from the root.
        assert_eq!(tt.probe(0xDEAD_BEEF, 1).unwrap().score, MATE - 4);
        assert!(tt.probe(0xBEEF_DEAD, 5).is_none());
        let mut tt = tt;
        tt.clear();
        assert!(tt.probe(0xDEAD_BEEF, 5).is_none());
    }

    #[test]
    fn entries_survive_the_packing_into_words() {
        let entry = Entry { key: 0x0123_4567_89AB_CDEF, best: PackedMove(0xF123), score: -31_000, eval: -1, depth: 255, flags: 0b1011_1110 };
        assert_eq!(Entry::from_words(entry.key, entry.data()), entry);
        let slot = Slot::default();
        slot.save(entry);
        assert_eq!(slot.load(), entry);
        // A torn slot (another entry's data under this key) fails the key check.
        let other = Entry { score: 5, ..entry };
        slot.data.store(other.data(), Ordering::Relaxed);
        assert_ne!(slot.load().key, entry.key);
    }

    #[test]
    fn shallow_results_do_not_replace_deep_ones_of_the_same_search() {
        let mut tt = TranspositionTable::new(1);
        tt.store(42, 0, PackedMove::NONE, 10, 0, 12, Bound::Lower);
        tt.store(42, 0, PackedMove::NONE, 20, 0, 2, Bound::Lower);
        assert_eq!(tt.probe(42, 0).unwrap().depth, 12);
        tt.new_search();
        tt.store(42, 0, PackedMove::NONE, 20, 0, 2, Bound::Upper);
        assert_eq!(tt.probe(42, 0).unwrap().depth, 2);
    }
}
