use std::fmt;

use super::TextColumn;
use crate::features::{FeatureLayout, TermValue};

/// A game's result, from `[Result]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameResult {
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `1-0`.
    WhiteWins,
}

impl GameResult {
    /// Reads a `[Result]` tag value: only `1-0`, `0-1` and `1/2-1/2` count.
    pub fn from_tag(value: &[u8]) -> Option<GameResult> {
        match value.trim_ascii() {
            b"1-0" => Some(GameResult::WhiteWins),
            b"0-1" => Some(GameResult::BlackWins),
            b"1/2-1/2" => Some(GameResult::Draw),
            _ => None,
        }
    }

    /// White's score: 1, 0.5 or 0.
    pub fn score(self) -> f64 {
        match self {
            GameResult::WhiteWins => 1.0,
            GameResult::Draw => 0.5,
            GameResult::BlackWins => 0.0,
        }
    }

    /// pgnlearn's code in `.mat` files: 0 black won, 1 draw, 2 white won.
    pub fn mat_code(self) -> u8 {
        match self {
            GameResult::BlackWins => 0,
            GameResult::Draw => 1,
            GameResult::WhiteWins => 2,
        }
    }

    /// Inverse of [`GameResult::mat_code`].
    pub fn from_mat_code(code: i64) -> Option<GameResult> {
        match code {
            0 => Some(GameResult::BlackWins),
            1 => Some(GameResult::Draw),
            2 => Some(GameResult::WhiteWins),
            _ => None,
        }
    }

    /// Inverse of [`GameResult::score`] (0, 0.5, 1).
    pub fn from_score(score: f64) -> Option<GameResult> {
        if score == 1.0 {
            Some(GameResult::WhiteWins)
        } else if score == 0.5 {
            Some(GameResult::Draw)
        } else if score == 0.0 {
            Some(GameResult::BlackWins)
        } else {
            None
        }
    }

    /// The PGN notation.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// Text of the score for CSV output: `0`, `0.5`, `1`.
    pub fn score_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1",
            GameResult::Draw => "0.5",
            GameResult::BlackWins => "0",
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The columns of a dataset.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Schema {
    /// The feature layout of the rows.
    pub layout: FeatureLayout,
    /// Feature column names, in vector order (the layout's columns).
    pub features: Vec<String>,
    /// Names of PGN tags kept as extra columns.
    pub tags: Vec<String>,
    /// Whether each row carries its position's FEN.
    pub fen: bool,
    /// Whether each row carries an evaluation label (centipawns, white's view).
    pub eval: bool,
    /// Who made the labels and how (`label`'s engine, options and limit),
    /// kept in the file where the format has room for it (Parquet's metadata).
    pub provenance: Option<String>,
    /// How a wide layout's rows go into Parquet.
    pub sparse_shape: SparseShape,
}

/// The Parquet shape of a layout too wide for one column per feature.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum SparseShape {
    /// The rows as pgntune holds them: each non-zero term's index
    /// (`term`) and count (`count`), two lists of small integers, and the
    /// phase once; the metadata maps terms to columns.
    #[default]
    Compact,
    /// The design matrix's non-zero columns (`idx`, `List<Int32>`) and
    /// values (`val`, `List<Float64>`), each tapered term's two columns
    /// already scaled by the phase: a row is a sparse vector as it stands.
    Expanded,
}

impl Schema {
    /// The schema of rows with `layout`'s features and nothing else.
    pub fn new(layout: FeatureLayout) -> Schema {
        Schema { features: layout.columns(), layout, tags: Vec::new(), fen: false, eval: false, provenance: None, sparse_shape: SparseShape::Compact }
    }
}

/// A block of rows, stored by column; the features of a row are its
/// non-zero terms (see [`crate::features`]) and its game phase.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RowBatch {
    /// Every row's non-zero terms, one row after another.
    pub terms: Vec<TermValue>,
    /// Where each row's terms end in `terms`.
    pub ends: Vec<u32>,
    /// Each row's game phase (0 to 24).
    pub phases: Vec<u8>,
    /// The result of each row's game.
    pub results: Vec<GameResult>,
    /// Each row's evaluation label in centipawns from white's side (NaN:
    /// none), when the schema has labels; empty otherwise.
    pub evals: Vec<f32>,
    /// Each row's game index (0-based, over all games read).
    pub games: Vec<u64>,
    /// Each row's ply (number of half-moves played to reach the position).
    pub plies: Vec<u32>,
    /// Kept tag values: `tags[t].get(i)` is tag `t` of row `i`.
    pub tags: Vec<TextColumn>,
    /// Each row's FEN, when asked for.
    pub fens: TextColumn,
    /// Each row's Zobrist key, when repeats are to be dropped.
    pub keys: Vec<u64>,
}

impl RowBatch {
    /// An empty batch for `schema`.
    pub fn new(schema: &Schema) -> RowBatch {
        RowBatch { tags: vec![TextColumn::default(); schema.tags.len()], ..RowBatch::default() }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.results.len()
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.results.is_empty()
    }

    /// The non-zero terms of row `i`.
    pub fn row_terms(&self, i: usize) -> &[TermValue] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.terms[start..self.ends[i] as usize]
    }

    /// Writes the dense design row `i` under `layout` into `out`.
    pub fn dense_row(&self, i: usize, layout: &FeatureLayout, out: &mut [f64]) {
        layout.expand(self.row_terms(i), self.phases[i], out);
    }

    /// Appends the features of one row (the other columns are the caller's).
    pub fn push_features(&mut self, terms: &[TermValue], phase: u8) {
        self.terms.extend_from_slice(terms);
        self.ends.push(self.terms.len() as u32);
        self.phases.push(phase);
    }

    /// Appends all rows of `other` (same schema).
    pub fn append(&mut self, other: &RowBatch) {
        let base = self.terms.len() as u32;
        self.terms.extend_from_slice(&other.terms);
        self.ends.extend(other.ends.iter().map(|e| e + base));
        self.phases.extend_from_slice(&other.phases);
        self.results.extend_from_slice(&other.results);
        self.evals.extend_from_slice(&other.evals);
        self.games.extend_from_slice(&other.games);
        self.plies.extend_from_slice(&other.plies);
        for (mine, theirs) in self.tags.iter_mut().zip(&other.tags) {
            mine.append(theirs);
        }
        self.fens.append(&other.fens);
        self.keys.extend_from_slice(&other.keys);
    }

    /// Keeps, among the rows from `first` on, those whose flag in `keep` is
    /// set (`keep[i]` is row `first + i`), in order.
    pub fn retain_from(&mut self, first: usize, keep: &[bool]) {
        debug_assert_eq!(first + keep.len(), self.len());
        if keep.iter().all(|&k| k) {
            return;
        }
        let tail = {
            let mut tail = RowBatch { tags: vec![TextColumn::default(); self.tags.len()], ..RowBatch::default() };
            for (i, _) in keep.iter().enumerate().filter(|&(_, &k)| k) {
                let r = first + i;
                tail.push_features(self.row_terms(r), self.phases[r]);
                tail.results.push(self.results[r]);
                tail.games.push(self.games[r]);
                tail.plies.push(self.plies[r]);
                for (t, column) in self.tags.iter().enumerate() {
                    tail.tags[t].push(column.get(r).unwrap_or_default());
                }
                if let Some(e) = self.evals.get(r) {
                    tail.evals.push(*e);
                }
                if let Some(f) = self.fens.get(r) {
                    tail.fens.push(f);
                }
                if let Some(k) = self.keys.get(r) {
                    tail.keys.push(*k);
                }
            }
            tail
        };
        self.truncate(first);
        self.append(&tail);
    }

    /// Appends the rows `rows` of `other` (same schema): what [`append`]
    /// does for all of them, so that a writer can take whole row groups
    /// out of a large batch without copying the rest again per group.
    ///
    /// [`append`]: RowBatch::append
    pub fn append_rows(&mut self, other: &RowBatch, rows: std::ops::Range<usize>) {
        fn range<T: Copy>(mine: &mut Vec<T>, theirs: &[T], rows: &std::ops::Range<usize>) {
            // A column the schema does not use stays empty.
            if rows.end <= theirs.len() {
                mine.extend_from_slice(&theirs[rows.clone()]);
            }
        }
        if rows.is_empty() {
            return;
        }
        let first = if rows.start == 0 { 0 } else { other.ends[rows.start - 1] };
        let last = other.ends[rows.end - 1];
        let base = self.terms.len() as u32;
        self.terms.extend_from_slice(&other.terms[first as usize..last as usize]);
        self.ends.extend(other.ends[rows.clone()].iter().map(|e| e - first + base));
        range(&mut self.phases, &other.phases, &rows);
        range(&mut self.results, &other.results, &rows);
        range(&mut self.evals, &other.evals, &rows);
        range(&mut self.games, &other.games, &rows);
        range(&mut self.plies, &other.plies, &rows);
        for (mine, theirs) in self.tags.iter_mut().zip(&other.tags) {
            mine.append_range(theirs, rows.clone());
        }
        self.fens.append_range(&other.fens, rows.clone());
        range(&mut self.keys, &other.keys, &rows);
    }

    /// An empty batch of the same columns, with room for `rows` rows and
    /// their terms at this batch's terms per row: a writer that hands full
    /// groups on and starts the next one does not grow it again by
    /// doubling (each doubling a copy, into memory the kernel must first
    /// clear).
    pub fn empty_with_room(&self, rows: usize) -> RowBatch {
        let terms = if self.is_empty() { 0 } else { self.terms.len().div_ceil(self.len()) * rows };
        RowBatch {
            terms: Vec::with_capacity(terms),
            ends: Vec::with_capacity(rows),
            phases: Vec::with_capacity(rows),
            results: Vec::with_capacity(rows),
            evals: Vec::with_capacity(if self.evals.is_empty() { 0 } else { rows }),
            games: Vec::with_capacity(rows),
            plies: Vec::with_capacity(rows),
            tags: vec![TextColumn::default(); self.tags.len()],
            fens: TextColumn::default(),
            keys: Vec::with_capacity(if self.keys.is_empty() { 0 } else { rows }),
        }
    }

    /// Keeps the first `rows` rows.
    pub fn truncate(&mut self, rows: usize) {
        let end = if rows == 0 { 0 } else { self.ends[rows - 1] as usize };
        self.terms.truncate(end);
        self.ends.truncate(rows);
        self.phases.truncate(rows);
        self.results.truncate(rows);
        self.evals.truncate(rows);
        self.games.truncate(rows);
        self.plies.truncate(rows);
        self.tags.iter_mut().for_each(|t| t.truncate(rows));
        self.fens.truncate(rows);
        self.keys.truncate(rows);
    }

    /// Removes all rows, keeping the allocations.
    pub fn clear(&mut self) {
        self.truncate(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows with every column in use: terms (some rows none), labels, tags
    /// and FENs of different lengths, keys.
    fn rows(n: usize) -> RowBatch {
        let mut batch = RowBatch { tags: vec![TextColumn::default(); 2], ..RowBatch::default() };
        for i in 0..n {
            let terms: Vec<TermValue> = (0..i % 5).map(|t| TermValue { term: (3 * t + i) as u16, value: (t as i16) - 2 }).collect();
            batch.push_features(&terms, (i % 25) as u8);
            batch.results.push([GameResult::WhiteWins, GameResult::Draw, GameResult::BlackWins][i % 3]);
            batch.evals.push(i as f32 * 1.5);
            batch.games.push(i as u64 / 4);
            batch.plies.push(i as u32);
            batch.tags[0].push(&"w".repeat(i % 4));
            batch.tags[1].push_display(i);
            batch.fens.push(&format!("fen {i}"));
            batch.keys.push(i as u64 * 7919);
        }
        batch
    }

    #[test]
    fn rows_appended_by_ranges_make_the_same_batch() {
        let all = rows(23);
        for cuts in [vec![0, 23], vec![0, 1, 23], vec![0, 5, 5, 17, 22, 23], vec![0, 10, 11, 12, 23]] {
            let mut pieced = RowBatch { tags: vec![TextColumn::default(); 2], ..RowBatch::default() };
            for w in cuts.windows(2) {
                pieced.append_rows(&all, w[0]..w[1]);
            }
            assert_eq!(pieced, all, "cuts {cuts:?}");
        }
        // Unused columns stay empty.
        let mut bare = rows(6);
        bare.evals.clear();
        bare.keys.clear();
        let mut pieced = RowBatch { tags: vec![TextColumn::default(); 2], ..RowBatch::default() };
        pieced.append_rows(&bare, 0..2);
        pieced.append_rows(&bare, 2..6);
        assert_eq!(pieced, bare);
    }
}
