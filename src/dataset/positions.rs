//! Training positions in memory: each position as its non-zero terms, two
//! bytes a term, plus its phase, its labels and its game.
//!
//! A whole evaluation has hundreds of columns but a position has only
//! 30 to 70 non-zero terms (most of them pieces on squares), so a dense row
//! would waste 95% of its space. A term is packed into 16 bits: the term
//! index in the high 12 bits, the count in the low 4 bits as a signed
//! number in `-8..=7`; a larger count (rare: eight pawns against none) is
//! stored as several entries of the same term, which the sums add up. With
//! 8 bytes of offset, 1 of phase, 4 of result, 4 of evaluation and 8 of
//! game id, a position of 60 terms costs 145 bytes.

use crate::features::{FeatureLayout, TermColumns, TermValue};
use crate::prefetch::prefetch;

use super::{GameResult, RowBatch};

/// The largest term index the packed format holds (kept beside the custom
/// terms, which are refused beyond it, on the floor below).
pub use crate::features::custom::MAX_PACKED_TERMS;

const VALUE_BITS: u32 = 4;
/// One more than the largest packed entry: tables indexed by an entry
/// itself (its term and count together) need no bounds check with this many.
pub const ENTRY_SLOTS: usize = 1 << 16;
const VALUE_MIN: i32 = -(1 << (VALUE_BITS - 1));
const VALUE_MAX: i32 = (1 << (VALUE_BITS - 1)) - 1;

/// Packs a term and a count that fits in 4 bits.
#[inline]
fn pack(term: usize, value: i32) -> u16 {
    debug_assert!(term < MAX_PACKED_TERMS && (VALUE_MIN..=VALUE_MAX).contains(&value));
    ((term as u16) << VALUE_BITS) | (value as u16 & ((1 << VALUE_BITS) - 1))
}

/// The term and count of a packed entry.
#[inline]
pub fn unpack(entry: u16) -> (usize, i32) {
    let term = usize::from(entry >> VALUE_BITS);
    // Sign-extend the low 4 bits.
    let value = i32::from(((entry << (16 - VALUE_BITS)) as i16) >> (16 - VALUE_BITS));
    (term, value)
}

/// Entries per block of [`Entries`]: 64 MiB of them (256 in the unit
/// tests, so that they cross blocks).
#[cfg(not(test))]
const BLOCK_BITS: u32 = 25;
#[cfg(test)]
const BLOCK_BITS: u32 = 8;
const BLOCK: usize = 1 << BLOCK_BITS;
const IN_BLOCK: u64 = BLOCK as u64 - 1;

/// Positions the per-position columns make room for at the first batch
/// (25 bytes each: 100 MiB of address space, backed as it is written).
#[cfg(not(test))]
const INITIAL_POSITIONS: usize = 1 << 22;
#[cfg(test)]
const INITIAL_POSITIONS: usize = 16;

/// The most entries one position can have: every term of the largest
/// layout at the largest count, split into 4-bit parts.
#[cfg_attr(test, allow(dead_code))]
const MAX_POSITION_ENTRIES: usize = MAX_PACKED_TERMS * (i16::MAX as usize).div_ceil(VALUE_MAX as usize);
// Any position fits in a block.
#[cfg(not(test))]
const _: () = assert!(MAX_POSITION_ENTRIES < BLOCK);

/// Every position's packed entries, one position after another, in blocks
/// that never move. A position's entries lie in one block: when they do
/// not fit in the last one, a new block begins and the old one keeps its
/// spare room.
///
/// One vector growing by doubling copied everything stored so far at each
/// step, held the old and the new copy at once, and took its fresh memory
/// from the kernel 4 KiB at a time: storing the whole human collection's
/// rows spent a fifth of its time in the kernel zeroing pages. A block is
/// one allocation of its full size, which the kernel can back with huge
/// pages, and which is never copied.
///
/// An entry's *address* is its block's index times [`BLOCK`] plus its
/// place in the block. A position's end address is always inside its
/// block (a block never fills up to its last entry), so it names the
/// block; its start is the previous position's end in the same block, or
/// the block's first entry.
#[derive(Clone, Debug, Default, PartialEq)]
struct Entries {
    blocks: Vec<Vec<u16>>,
}

impl Entries {
    /// Appends one position's entries (`n` of them, from `entries`) and
    /// returns its end address.
    #[inline]
    fn push(&mut self, n: usize, entries: impl Iterator<Item = u16>) -> u64 {
        debug_assert!(n < BLOCK, "a position has fewer entries than a block");
        if self.blocks.last().is_none_or(|block| block.len() + n >= BLOCK) {
            // Every block, the first too, is reserved whole: the kernel
            // backs only the pages written, so a small dataset stays small
            // all the same, and nothing is ever copied to grow. (A first
            // block that doubled as it filled spent a tenth of a cold run
            // copying and faulting in pages.)
            self.blocks.push(Vec::with_capacity(BLOCK));
        }
        let index = self.blocks.len() - 1;
        let block = &mut self.blocks[index];
        block.extend(entries);
        ((index as u64) << BLOCK_BITS) | block.len() as u64
    }

    /// Appends the entries of every row of `batch` in one pass, and each
    /// row's end address to `ends`, when every term fits one entry and the
    /// whole batch fits in the last block. Returns false, having changed
    /// nothing, otherwise (the caller then adds the rows one by one).
    fn push_batch(&mut self, batch: &RowBatch, ends: &mut Vec<u64>) -> bool {
        if batch.is_empty() {
            return true;
        }
        let n = batch.terms.len();
        if self.blocks.is_empty() {
            // As `push` would for the first position (see there).
            self.blocks.push(Vec::with_capacity(BLOCK));
        }
        let index = self.blocks.len() - 1;
        let block = &mut self.blocks[index];
        // `>=`: a block never fills up to its last entry (see `Entries`).
        if block.len() + n >= BLOCK || !batch.terms.iter().all(fits_one_entry) {
            return false;
        }
        let base = ((index as u64) << BLOCK_BITS) | block.len() as u64;
        block.extend(batch.terms.iter().map(|t| pack(usize::from(t.term), i32::from(t.value))));
        ends.extend(batch.ends.iter().map(|&e| base + u64::from(e)));
        true
    }

    /// The entries between the start of a position and its end address.
    #[inline]
    fn get(&self, start: u64, end: u64) -> &[u16] {
        &self.blocks[(end >> BLOCK_BITS) as usize][(start & IN_BLOCK) as usize..(end & IN_BLOCK) as usize]
    }

    /// Number of entries.
    fn len(&self) -> usize {
        self.blocks.iter().map(Vec::len).sum()
    }

    fn shrink_to_fit(&mut self) {
        if let Some(last) = self.blocks.last_mut() {
            last.shrink_to_fit();
        }
    }
}

/// Training positions of one feature layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Positions {
    layout: FeatureLayout,
    /// Every position's packed terms.
    entries: Entries,
    /// The address where each position's entries end (see [`Entries`]).
    ends: Vec<u64>,
    /// Each position's phase (0 to 24).
    phases: Vec<u8>,
    /// White's score in the position's game: 0, 0.5 or 1.
    scores: Vec<f32>,
    /// An evaluation label in centipawns from white's side, NaN when none.
    evals: Vec<f32>,
    /// The position's game (for resampling and held-out splits by game).
    games: Vec<u64>,
    /// How many rows each position stands for, when any stands for more
    /// (or fewer) than one: a merged dataset's distinct row with its count.
    /// `None` while every weight is 1.
    weights: Option<Vec<f64>>,
    /// False when some positions came without a game id (EPD, `.mat`):
    /// each of those is then a game of its own, and a split by game is a
    /// split by position.
    games_known: bool,
}

/// Why positions cannot be stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the layout '{spec}' has {terms} terms; in-memory training positions hold at most {MAX_PACKED_TERMS}")]
pub struct TooManyTerms {
    /// The layout.
    pub spec: String,
    /// Its number of terms.
    pub terms: usize,
}

impl Positions {
    /// No positions yet, for `layout`.
    pub fn new(layout: FeatureLayout) -> Result<Positions, TooManyTerms> {
        if layout.term_count() > MAX_PACKED_TERMS {
            return Err(TooManyTerms { spec: layout.spec(), terms: layout.term_count() });
        }
        Ok(Positions {
            layout,
            entries: Entries::default(),
            ends: Vec::new(),
            phases: Vec::new(),
            scores: Vec::new(),
            evals: Vec::new(),
            games: Vec::new(),
            weights: None,
            games_known: true,
        })
    }

    /// The feature layout.
    pub fn layout(&self) -> &FeatureLayout {
        &self.layout
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.phases.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.phases.is_empty()
    }

    /// Appends one position.
    pub fn push(&mut self, terms: &[TermValue], phase: u8, score: f32, eval: f32, game: u64) {
        self.push_weighted(terms, phase, score, eval, game, 1.0);
    }

    /// Appends one position that stands for `weight` rows (a merged
    /// dataset's distinct row): the fit counts it `weight` times, without
    /// `weight` copies in memory.
    pub fn push_weighted(&mut self, terms: &[TermValue], phase: u8, score: f32, eval: f32, game: u64, weight: f64) {
        if weight != 1.0 && self.weights.is_none() {
            self.weights = Some(vec![1.0; self.len()]);
        }
        self.push_entries_of(terms);
        self.phases.push(phase);
        self.scores.push(score);
        self.evals.push(eval);
        self.games.push(game);
        if let Some(weights) = &mut self.weights {
            weights.push(weight);
        }
    }

    /// How many rows position `i` stands for (1 unless it was pushed with a weight).
    #[inline]
    pub fn weight(&self, i: usize) -> f64 {
        self.weights.as_ref().map_or(1.0, |w| w[i])
    }

    /// True when some position stands for other than one row.
    pub fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    /// The rows the positions `keep` accepts stand for.
    pub fn total_weight(&self, mut keep: impl FnMut(usize) -> bool) -> f64 {
        (0..self.len()).filter(|&i| keep(i)).map(|i| self.weight(i)).sum()
    }

    /// Appends the packed entries of one position's terms and their end.
    fn push_entries_of(&mut self, terms: &[TermValue]) {
        // Nearly every count fits in one entry: then the entries are the
        // terms mapped one to one, which `extend` writes without checking
        // the capacity per entry.
        let end = if terms.iter().all(fits_one_entry) {
            self.entries.push(terms.len(), terms.iter().map(|t| pack(usize::from(t.term), i32::from(t.value))))
        } else {
            let split = split_entries(terms);
            self.entries.push(split.len(), split.into_iter())
        };
        self.ends.push(end);
    }

    /// Appends every row of an extraction batch, with game ids offset by `game_base`.
    pub fn push_batch(&mut self, batch: &RowBatch, game_base: u64) {
        // Room for many positions at once (as for the entries' blocks, only
        // the pages written are backed), so that the columns grow by
        // copying rarely: from nothing, doubling copied and faulted in
        // about twice their final size.
        let wanted = batch.len().max(if self.is_empty() { INITIAL_POSITIONS } else { 0 });
        for column in [&mut self.scores, &mut self.evals] {
            column.reserve(wanted);
        }
        self.ends.reserve(wanted);
        self.phases.reserve(wanted);
        self.games.reserve(wanted);
        // Column by column rather than row by row: `tune` stores every row
        // here on one thread while the workers extract. Storing the human
        // collection's 3.3 million rows took 0.115 s with a push per row
        // and column, 0.105 s so; the rest is writing fresh memory.
        if !self.entries.push_batch(batch, &mut self.ends) {
            for i in 0..batch.len() {
                self.push_entries_of(batch.row_terms(i));
            }
        }
        self.phases.extend_from_slice(&batch.phases);
        self.scores.extend(batch.results.iter().map(|r| r.score() as f32));
        if batch.evals.len() == batch.len() {
            self.evals.extend_from_slice(&batch.evals);
        } else {
            self.evals.resize(self.evals.len() + batch.len(), f32::NAN);
        }
        self.games.extend(batch.games.iter().map(|g| game_base + g));
        if let Some(weights) = &mut self.weights {
            weights.resize(self.phases.len(), 1.0);
        }
    }

    /// Appends all positions of `other` (same layout), with game ids offset by `game_base`.
    pub fn append(&mut self, other: &Positions, game_base: u64) {
        debug_assert_eq!(self.layout, other.layout);
        for i in 0..other.len() {
            self.push_entries(other.entries(i));
        }
        self.phases.extend_from_slice(&other.phases);
        self.scores.extend_from_slice(&other.scores);
        self.evals.extend_from_slice(&other.evals);
        self.games.extend(other.games.iter().map(|g| g + game_base));
        if self.weights.is_some() || other.weights.is_some() {
            let before = self.len() - other.len();
            let weights = self.weights.get_or_insert_with(|| vec![1.0; before]);
            weights.extend((0..other.len()).map(|i| other.weight(i)));
        }
        self.games_known &= other.games_known;
    }

    /// Marks the positions as having no true game ids (some of them, at least).
    pub fn set_games_unknown(&mut self) {
        self.games_known = false;
    }

    /// Whether every position has its game's id (see [`Positions::set_games_unknown`]).
    pub fn games_known(&self) -> bool {
        self.games_known
    }

    /// Appends a position's packed entries and their end (its other
    /// columns are the caller's).
    fn push_entries(&mut self, entries: &[u16]) {
        let end = self.entries.push(entries.len(), entries.iter().copied());
        self.ends.push(end);
    }

    /// The packed entries of position `i` (see [`unpack`]).
    #[inline]
    pub fn entries(&self, i: usize) -> &[u16] {
        let end = self.ends[i];
        let start = match i.checked_sub(1).map(|previous| self.ends[previous]) {
            Some(previous) if previous >> BLOCK_BITS == end >> BLOCK_BITS => previous,
            _ => end & !IN_BLOCK,
        };
        self.entries.get(start, end)
    }

    /// Starts loading what a read of position `i` needs first: where its
    /// entries end, and its phase. (For reads in a shuffled order, some
    /// places ahead; see [`crate::prefetch`].)
    #[inline]
    pub fn prefetch_index(&self, i: usize) {
        if let (Some(end), Some(phase)) = (self.ends.get(i), self.phases.get(i)) {
            prefetch(end);
            prefetch(phase);
        }
    }

    /// Starts loading position `i`'s entries. It reads where they are, so
    /// it comes a few places after [`Positions::prefetch_index`] of `i`.
    #[inline]
    pub fn prefetch_entries(&self, i: usize) {
        let entries = self.entries(i);
        if let (Some(first), Some(last)) = (entries.first(), entries.last()) {
            prefetch(first);
            prefetch(last);
        }
    }

    /// The terms of position `i`, merged and sorted (as extraction made them).
    pub fn terms(&self, i: usize) -> Vec<TermValue> {
        let mut out: Vec<TermValue> = Vec::new();
        for &e in self.entries(i) {
            let (term, value) = unpack(e);
            match out.last_mut() {
                Some(last) if usize::from(last.term) == term => last.value += value as i16,
                _ => out.push(TermValue { term: term as u16, value: value as i16 }),
            }
        }
        out
    }

    /// The phase of position `i`.
    #[inline]
    pub fn phase(&self, i: usize) -> u8 {
        self.phases[i]
    }

    /// White's score in the game of position `i` (0, 0.5 or 1).
    #[inline]
    pub fn score(&self, i: usize) -> f32 {
        self.scores[i]
    }

    /// The evaluation label of position `i` (centipawns, white's side), NaN when none.
    #[inline]
    pub fn eval(&self, i: usize) -> f32 {
        self.evals[i]
    }

    /// Every position's evaluation label.
    pub fn evals(&self) -> &[f32] {
        &self.evals
    }

    /// Sets the evaluation label of position `i`.
    pub fn set_eval(&mut self, i: usize, eval: f32) {
        self.evals[i] = eval;
    }

    /// The game of position `i`.
    #[inline]
    pub fn game(&self, i: usize) -> u64 {
        self.games[i]
    }

    /// Every position's game id.
    pub fn games(&self) -> &[u64] {
        &self.games
    }

    /// The result of the game of position `i`.
    pub fn result(&self, i: usize) -> GameResult {
        GameResult::from_score(f64::from(self.scores[i])).unwrap_or(GameResult::Draw)
    }

    /// Number of positions with an evaluation label.
    pub fn labelled(&self) -> usize {
        self.evals.iter().filter(|e| !e.is_nan()).count()
    }

    /// The dense design row of position `i`.
    pub fn dense_row(&self, i: usize, out: &mut [f64]) {
        out.fill(0.0);
        let p = f64::from(self.phases[i]);
        for &e in self.entries(i) {
            let (term, value) = unpack(e);
            let v = f64::from(value);
            match self.layout.term_columns(term) {
                TermColumns::Single(c) => out[c] += v,
                TermColumns::Tapered { mg, eg } => {
                    out[mg] += v * p / 24.0;
                    out[eg] += v * (24.0 - p) / 24.0;
                }
            }
        }
    }

    /// The positions whose index `keep` accepts, in order.
    pub fn filter(&self, mut keep: impl FnMut(usize) -> bool) -> Positions {
        let mut out = Positions::new(self.layout.clone()).expect("same layout");
        out.games_known = self.games_known;
        for i in 0..self.len() {
            if keep(i) {
                out.push_entries(self.entries(i));
                out.phases.push(self.phases[i]);
                out.scores.push(self.scores[i]);
                out.evals.push(self.evals[i]);
                out.games.push(self.games[i]);
                if let Some(weights) = &self.weights {
                    out.weights.get_or_insert_with(Vec::new).push(weights[i]);
                }
            }
        }
        out
    }

    /// Bytes of memory the positions occupy (their vectors' lengths).
    pub fn memory_bytes(&self) -> usize {
        self.entries.len() * 2
            + self.ends.len() * 8
            + self.phases.len()
            + self.scores.len() * 4
            + self.evals.len() * 4
            + self.games.len() * 8
            + self.weights.as_ref().map_or(0, |w| w.len() * 8)
    }

    /// Frees spare capacity (after loading, before a long fit).
    pub fn shrink_to_fit(&mut self) {
        self.entries.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.phases.shrink_to_fit();
        self.scores.shrink_to_fit();
        self.evals.shrink_to_fit();
        self.games.shrink_to_fit();
        if let Some(weights) = &mut self.weights {
            weights.shrink_to_fit();
        }
    }
}

/// Whether a term is stored as one entry: a non-zero count in 4 bits.
#[inline]
fn fits_one_entry(t: &TermValue) -> bool {
    t.value != 0 && (VALUE_MIN..=VALUE_MAX).contains(&i32::from(t.value))
}

/// The entries of `terms` when a count needs several entries (or is zero).
fn split_entries(terms: &[TermValue]) -> Vec<u16> {
    let mut entries = Vec::new();
    for t in terms {
        let mut value = i32::from(t.value);
        while value != 0 {
            let part = value.clamp(VALUE_MIN, VALUE_MAX);
            entries.push(pack(usize::from(t.term), part));
            value -= part;
        }
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::TermScratch;
    use shakmaty::{CastlingMode, Chess, fen::Fen};

    #[test]
    fn packing_round_trips_every_count() {
        for term in [0, 1, 777, MAX_PACKED_TERMS - 1] {
            for value in VALUE_MIN..=VALUE_MAX {
                assert_eq!(unpack(pack(term, value)), (term, value));
            }
        }
    }

    #[test]
    fn large_counts_are_split_and_add_up() {
        let mut p = Positions::new(FeatureLayout::default()).unwrap();
        // Sorted by term, as extraction hands them over.
        let terms = [TermValue { term: 0, value: 8 }, TermValue { term: 2, value: 3 }, TermValue { term: 4, value: -9 }];
        p.push(&terms, 0, 1.0, f32::NAN, 7);
        assert_eq!(p.entries(0).len(), 5);
        let mut x = vec![0.0; 5];
        p.dense_row(0, &mut x);
        assert_eq!(x, [8.0, 0.0, 3.0, 0.0, -9.0]);
        assert_eq!(p.terms(0), terms);
        assert_eq!((p.score(0), p.game(0), p.result(0)), (1.0, 7, GameResult::WhiteWins));
    }

    /// Positions of every size, from none to nearly a block (of 256 entries
    /// in the tests), read back whole across many blocks, also after
    /// `filter` and `append`.
    #[test]
    fn positions_cross_blocks_whole() {
        let layout = FeatureLayout::parse("material,pst").unwrap();
        let row = |i: usize| -> Vec<TermValue> {
            let n = [0, 1, 37, 200, 254, 255, 3][i % 7].min(layout.term_count());
            (0..n).map(|t| TermValue { term: t as u16, value: if (t + i).is_multiple_of(3) { -1 } else { 2 } }).collect()
        };
        let mut p = Positions::new(layout.clone()).unwrap();
        let count = 300;
        for i in 0..count {
            p.push(&row(i), (i % 25) as u8, 0.5, i as f32, i as u64);
        }
        assert!(p.entries.blocks.len() > 100, "{} blocks", p.entries.blocks.len());
        assert!(p.entries.blocks.iter().all(|b| b.len() < BLOCK));
        for i in 0..count {
            assert_eq!(p.terms(i), row(i), "position {i}");
            assert_eq!((p.phase(i), p.eval(i), p.game(i)), ((i % 25) as u8, i as f32, i as u64));
        }
        assert_eq!(p.memory_bytes() - count * 25, (0..count).map(|i| row(i).len() * 2).sum::<usize>());
        let odd = p.filter(|i| i % 2 == 1);
        let mut twice = p.clone();
        twice.append(&p, 1000);
        for i in 0..count {
            if i % 2 == 1 {
                assert_eq!(odd.terms(i / 2), row(i));
            }
            assert_eq!((twice.terms(count + i), twice.game(count + i)), (row(i), 1000 + i as u64));
        }
    }

    /// Batches stored column by column are the positions the same rows
    /// pushed one by one make, block for block: batches that fit in the
    /// last block, batches that do not, counts that need several entries,
    /// rows without terms, and batches with and without labels.
    #[test]
    fn batches_store_what_their_rows_pushed_one_by_one_store() {
        let layout = FeatureLayout::parse("material,pst").unwrap();
        let row = |i: usize| -> Vec<TermValue> {
            let n = [3, 0, 12, 40, 1, 90][i % 6];
            let big = i % 11 == 5;
            (0..n).map(|t| TermValue { term: (t * 7 % 773) as u16, value: if big && t == 0 { 9 } else { 1 - 2 * ((t + i) % 2) as i16 } }).collect()
        };
        let results = [GameResult::WhiteWins, GameResult::Draw, GameResult::BlackWins];
        let (mut by_batch, mut by_row) = (Positions::new(layout.clone()).unwrap(), Positions::new(layout.clone()).unwrap());
        let mut next = 0;
        for (b, size) in [0usize, 2, 1, 5, 9, 3, 17, 4, 30, 6].into_iter().enumerate() {
            let mut batch = RowBatch::default();
            let labelled = b % 2 == 0;
            for i in next..next + size {
                let mut terms = row(i);
                terms.sort_by_key(|t| t.term);
                batch.push_features(&terms, (i % 25) as u8);
                batch.results.push(results[i % 3]);
                batch.games.push(i as u64 / 3);
                if labelled {
                    batch.evals.push(i as f32);
                }
                let eval = if labelled { i as f32 } else { f32::NAN };
                by_row.push(&terms, (i % 25) as u8, results[i % 3].score() as f32, eval, 100 + i as u64 / 3);
            }
            next += size;
            by_batch.push_batch(&batch, 100);
        }
        assert!(by_row.entries.blocks.len() > 3, "{} blocks", by_row.entries.blocks.len());
        // `Positions` compare NaN labels as unequal: compare the labels apart.
        assert_eq!(by_batch.entries, by_row.entries);
        assert_eq!(
            (&by_batch.ends, &by_batch.phases, &by_batch.scores, &by_batch.games),
            (&by_row.ends, &by_row.phases, &by_row.scores, &by_row.games)
        );
        let bits = |p: &Positions| p.evals.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&by_batch), bits(&by_row));
        assert_eq!(by_batch.len(), next);
    }

    #[test]
    fn dense_rows_match_the_layout_and_memory_is_small() {
        let layout = FeatureLayout::parse("material_tapered,pst,bishop_pair,tempo").unwrap();
        let pos: Chess = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R b KQ - 1 8"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let mut scratch = TermScratch::default();
        let mut terms = Vec::new();
        let phase = layout.terms_of(&pos, &mut scratch, &mut terms);
        let mut p = Positions::new(layout.clone()).unwrap();
        p.push(&terms, phase, 0.5, 35.0, 0);
        let (mut a, mut b) = (vec![0.0; layout.len()], vec![0.0; layout.len()]);
        p.dense_row(0, &mut a);
        layout.write(&pos, &mut b);
        assert_eq!(a, b);
        assert!(p.memory_bytes() <= 25 + 2 * terms.len() + 8, "{}", p.memory_bytes());
        let kept = p.filter(|_| true);
        assert_eq!(kept, p);
        assert_eq!(p.filter(|_| false).len(), 0);
    }
}
