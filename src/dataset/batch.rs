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

    /// An empty batch of the same columns, with room for as many rows and
    /// terms as this one holds: a writer that hands full batches on and
    /// starts the next one does not grow it again by doubling (each
    /// doubling a copy, into memory the kernel must first clear).
    pub fn empty_with_room(&self) -> RowBatch {
        fn room<T>(column: &[T]) -> Vec<T> {
            Vec::with_capacity(column.len())
        }
        RowBatch {
            terms: room(&self.terms),
            ends: room(&self.ends),
            phases: room(&self.phases),
            results: room(&self.results),
            evals: room(&self.evals),
            games: room(&self.games),
            plies: room(&self.plies),
            tags: vec![TextColumn::default(); self.tags.len()],
            fens: TextColumn::default(),
            keys: room(&self.keys),
        }
    }

    /// Moves the rows from `at` on into a new batch, keeping the first `at`.
    pub fn split_off(&mut self, at: usize) -> RowBatch {
        fn tail<T>(column: &mut Vec<T>, at: usize) -> Vec<T> {
            // A column the schema does not use stays empty.
            if at <= column.len() { column.split_off(at) } else { Vec::new() }
        }
        let start = if at == 0 { 0 } else { self.ends[at - 1] };
        RowBatch {
            terms: self.terms.split_off(start as usize),
            ends: self.ends.split_off(at).into_iter().map(|e| e - start).collect(),
            phases: self.phases.split_off(at),
            results: self.results.split_off(at),
            evals: tail(&mut self.evals, at),
            games: self.games.split_off(at),
            plies: self.plies.split_off(at),
            tags: self.tags.iter_mut().map(|column| column.split_off(at)).collect(),
            fens: self.fens.split_off(at),
            keys: tail(&mut self.keys, at),
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
