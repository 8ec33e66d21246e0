//! Sparse triplets (`.ijv`): one `i j v` line per non-zero value, the
//! format Octave's `spconvert` and R's `Matrix::sparseMatrix` load.
//!
//! Rows `i` and columns `j` count from 1. Columns `1..C` are the layout's
//! features (design values, tapered ones scaled by the phase), then
//! `C+1` white's score (0, 0.5, 1), `C+2` the game id, `C+3` the ply, and,
//! when the rows carry evaluation labels, `C+4` the label in centipawns
//! (written even when 0; a row without a label has no entry there). Zeros
//! are not written, and the last line `R C' 0` fixes the matrix size, as
//! `spconvert` expects. Header lines start with `%` (a comment for Octave's
//! `load` and for R's `read.table(comment.char = "%")`):
//!
//! ```text
//! % pgntune sparse rows: i j v, 1-based; columns 1..773 features, 774 result, 775 game, 776 ply
//! % layout: material,pst
//! % columns: P N B R Q mg_P_a1 ...
//! 1 1 -1
//! 1 774 1
//! ```
//!
//! In Octave: `M = spconvert(load("rows.ijv")); X = M(:, 1:end-3); y = full(M(:, end-2));`.

use std::io::{BufRead, Write};
use std::path::Path;

use super::columns::ColumnDecoder;
use super::{DatasetError, GameResult, RowBatch, RowWriter, Schema};
use crate::atomic::{AtomicFile, OutputError};
use crate::features::FeatureLayout;

pub(super) struct TripletWriter {
    file: AtomicFile,
    layout: FeatureLayout,
    eval: bool,
    rows: u64,
    line: Vec<u8>,
    pairs: Vec<(usize, f64)>,
}

/// Extra columns after the features: result, game, ply.
const EXTRA: usize = 3;

impl TripletWriter {
    pub(super) fn create(path: &Path, schema: &Schema) -> Result<TripletWriter, DatasetError> {
        let mut file = AtomicFile::create(path)?;
        let c = schema.layout.len();
        let eval = if schema.eval { format!(", {} eval", c + EXTRA + 1) } else { String::new() };
        let header = format!(
            "% pgntune sparse rows: i j v, 1-based; columns 1..{c} features, {} result, {} game, {} ply{eval}\n% layout: {}\n% columns: {}\n",
            c + 1,
            c + 2,
            c + 3,
            schema.layout.spec(),
            schema.features.join(" ")
        );
        file.write_all(header.as_bytes()).map_err(|e| OutputError::new(path, e))?;
        Ok(TripletWriter { file, pairs: Vec::new(), layout: schema.layout.clone(), eval: schema.eval, rows: 0, line: Vec::with_capacity(256) })
    }

    fn width(&self) -> usize {
        self.layout.len() + EXTRA + usize::from(self.eval)
    }
}

impl RowWriter for TripletWriter {
    fn write(&mut self, batch: &RowBatch) -> Result<(), DatasetError> {
        let mut numbers = super::number_text::NumberText::new();
        let c = self.layout.len();
        for r in 0..batch.len() {
            self.rows += 1;
            let i = self.rows;
            self.line.clear();
            self.layout.sparse_columns(batch.row_terms(r), batch.phases[r], &mut self.pairs);
            let entry = |line: &mut Vec<u8>, j: usize, v: f64, numbers: &mut super::number_text::NumberText| {
                line.extend_from_slice(numbers.int(i).as_bytes());
                line.push(b' ');
                line.extend_from_slice(numbers.int(j).as_bytes());
                line.push(b' ');
                numbers.push(line, v);
                line.push(b'\n');
            };
            for &(j, v) in &self.pairs {
                entry(&mut self.line, j + 1, v, &mut numbers);
            }
            if batch.results[r].score() != 0.0 {
                entry(&mut self.line, c + 1, batch.results[r].score(), &mut numbers);
            }
            // The game id as an integer: ids past 2^53 have no exact float.
            if batch.games[r] != 0 {
                let line = &mut self.line;
                line.extend_from_slice(numbers.int(i).as_bytes());
                line.push(b' ');
                line.extend_from_slice(numbers.int(c + 2).as_bytes());
                line.push(b' ');
                line.extend_from_slice(numbers.int(batch.games[r]).as_bytes());
                line.push(b'\n');
            }
            if batch.plies[r] != 0 {
                entry(&mut self.line, c + 3, f64::from(batch.plies[r]), &mut numbers);
            }
            if self.eval
                && let Some(&e) = batch.evals.get(r)
                && !e.is_nan()
            {
                entry(&mut self.line, c + 4, f64::from(e), &mut numbers);
            }
            self.file.write_all(&self.line).map_err(|e| OutputError::new(self.file.target(), e))?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<(), DatasetError> {
        if self.rows > 0 {
            let last = format!("{} {} 0\n", self.rows, self.width());
            self.file.write_all(last.as_bytes()).map_err(|e| OutputError::new(self.file.target(), e))?;
        }
        Ok(self.file.commit()?)
    }
}

/// The size line `R C 0` that ends a `.ijv` file (blank lines after it
/// allowed), read from the file's tail.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum SizeLine {
    /// The last line: `rows` rows of `columns` columns.
    Found { rows: u64, columns: u64 },
    /// A file of header lines only (an empty dataset, written without a
    /// size line, which Octave and R would refuse) or no lines at all (left
    /// to the header check): no row may follow.
    Empty,
}

/// Reads the size line from the file's tail; `None` when the last line is
/// something else. The file is left at its start.
fn size_line(file: &mut std::fs::File) -> std::io::Result<Option<SizeLine>> {
    use std::io::{Read, Seek, SeekFrom};
    let length = file.seek(SeekFrom::End(0))?;
    let tail_start = length.saturating_sub(4096);
    file.seek(SeekFrom::Start(tail_start))?;
    let mut tail = Vec::new();
    // At most the tail's length: a device (/dev/zero) has no end to read to.
    Read::by_ref(file).take(length - tail_start).read_to_end(&mut tail)?;
    file.seek(SeekFrom::Start(0))?;
    let text = String::from_utf8_lossy(&tail);
    let Some(last) = text.lines().rev().map(str::trim).find(|l| !l.is_empty()) else { return Ok(Some(SizeLine::Empty)) };
    if last.starts_with('%') {
        return Ok(Some(SizeLine::Empty));
    }
    let numbers: Vec<&str> = last.split_whitespace().collect();
    Ok(match numbers[..] {
        [rows, columns, "0"] => match (rows.parse::<u64>(), columns.parse::<u64>()) {
            (Ok(rows), Ok(columns)) if columns >= 1 => Some(SizeLine::Found { rows, columns }),
            _ => None,
        },
        _ => None,
    })
}

/// The row being gathered: its number, feature values and extra columns.
#[derive(Default)]
struct Gathered {
    values: Vec<(usize, f64)>,
    result: f64,
    game: u64,
    ply: f64,
    eval: Option<f64>,
}

/// Reads a `.ijv` file written by pgntune, calling `sink` with batches of rows.
pub fn read_triplets(path: &Path, sink: &mut dyn FnMut(&FeatureLayout, &RowBatch) -> Result<(), DatasetError>) -> Result<(), DatasetError> {
    let invalid = |message: String| DatasetError::Invalid { path: path.display().to_string(), message };
    let io = |source| DatasetError::Io { path: path.display().to_string(), source };
    let mut file = std::fs::File::open(path).map_err(io)?;
    // The size line, read first: rows with no entry are implied by the gaps
    // between row numbers, and only the declared size says how many there
    // may be. Without it a cut-short file lost its last rows' entries
    // unnoticed, and one wrong row number made up billions of empty rows.
    let size = size_line(&mut file).map_err(io)?.ok_or_else(|| {
        invalid("the last line is not the size line 'R C 0' that ends every pgntune .ijv file: the file is cut short, or not a pgntune .ijv".into())
    })?;
    let (declared_rows, declared_columns) = match size {
        SizeLine::Found { rows, columns } => (rows, Some(columns)),
        SizeLine::Empty => (0, None),
    };
    let reader = std::io::BufReader::with_capacity(1 << 16, super::text::TextReader::new(file));
    let mut layout: Option<FeatureLayout> = None;
    let mut decoder: Option<ColumnDecoder> = None;
    let mut batch = RowBatch::default();
    let mut current: Option<u64> = None;
    let mut row = Gathered::default();
    let mut terms = Vec::new();
    let mut flush = |decoder: &mut ColumnDecoder, row: &mut Gathered, batch: &mut RowBatch| -> Result<(), String> {
        let phase = decoder.decode(row.values.drain(..), &mut terms).map_err(|e| e.to_string())?;
        let result = GameResult::from_score(row.result).ok_or_else(|| format!("result {} is not 0, 0.5 or 1", row.result))?;
        batch.push_features(&terms, phase.unwrap_or(0));
        batch.results.push(result);
        batch.games.push(row.game);
        batch.plies.push(row.ply as u32);
        batch.evals.push(row.eval.map_or(f32::NAN, |e| e as f32));
        Ok(())
    };
    // Each data line is handled when the next one is read: the last one is
    // the size line (whose value 0 is no entry, while a label of 0 is one).
    let mut held: Option<(usize, String)> = None;
    for (n, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| invalid(super::text::line_error(n as u64 + 1, &e)))?;
        let at = |m: String| invalid(format!("line {}: {m}", n + 1));
        if let Some(comment) = line.strip_prefix('%') {
            if let Some(spec) = comment.trim().strip_prefix("layout:") {
                let l = FeatureLayout::parse(spec.trim()).map_err(|e| at(e.to_string()))?;
                decoder = Some(ColumnDecoder::new(&l));
                layout = Some(l);
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let (Some(l), Some(d)) = (&layout, &mut decoder) else {
            return Err(at("no '% layout:' header line before the values (not a pgntune .ijv file)".into()));
        };
        if declared_columns.is_none() {
            return Err(at("values, but the last line is not the size line 'R C 0' that ends every pgntune .ijv file: the file is cut short, or not a pgntune .ijv".into()));
        }
        let Some((n, line)) = held.replace((n, line)) else { continue };
        let at = |m: String| invalid(format!("line {}: {m}", n + 1));
        let mut parts = line.split_whitespace();
        let (Some(i), Some(j), Some(v)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(at(format!("expected 'i j v', found '{line}'")));
        };
        let (Ok(i), Ok(j)) = (i.parse::<u64>(), j.parse::<u64>()) else {
            return Err(at(format!("row and column numbers are whole numbers counting from 1: '{line}'")));
        };
        let Some(v) = v.parse::<f64>().ok().filter(|v| v.is_finite()) else {
            return Err(at(format!("expected 'i j v', found '{line}'")));
        };
        if i < 1 || j < 1 {
            return Err(at(format!("row and column numbers count from 1: '{line}'")));
        }
        if i > declared_rows {
            return Err(at(format!("row {i} is past the {declared_rows} rows the size line at the end declares")));
        }
        if let Some(columns) = declared_columns.filter(|&c| j > c) {
            return Err(at(format!("column {j} is past the {columns} columns the size line at the end declares")));
        }
        let j = j as usize - 1;
        if current != Some(i) {
            if current.is_some_and(|c| i < c) {
                return Err(at("rows out of order".into()));
            }
            if current.is_some() {
                flush(d, &mut row, &mut batch).map_err(&at)?;
            }
            // Rows without any entry are all zeros (black won, game 0, ply 0).
            for _ in current.unwrap_or(0) + 1..i {
                flush(d, &mut Gathered::default(), &mut batch).map_err(&at)?;
                if batch.len() >= 4096 {
                    sink(l, &batch)?;
                    batch.clear();
                }
            }
            if batch.len() >= 4096 {
                sink(l, &batch)?;
                batch.clear();
            }
            current = Some(i);
            row = Gathered::default();
        }
        let c = l.len();
        match j {
            j if j < c => {
                if v != 0.0 {
                    row.values.push((j, v));
                }
            }
            j if j == c => row.result = v,
            j if j == c + 1 => {
                // Read as an integer: ids past 2^53 have no exact float.
                let text = line.split_whitespace().nth(2).unwrap_or_default();
                row.game = text.parse::<u64>().map_err(|_| at(format!("game id '{text}' is not a whole number of at least 0")))?;
            }
            j if j == c + 2 => row.ply = v,
            j if j == c + EXTRA => row.eval = Some(v),
            _ => return Err(at(format!("column {} is past the layout's {} columns and 4 extra", j + 1, c))),
        }
    }
    let Some(l) = layout else {
        return Err(invalid("no '% layout:' header line (not a pgntune .ijv file)".into()));
    };
    let d = decoder.as_mut().expect("set with the layout");
    if current.is_some() {
        flush(d, &mut row, &mut batch).map_err(|m| invalid(format!("last row: {m}")))?;
    }
    for _ in current.unwrap_or(0)..declared_rows {
        flush(d, &mut Gathered::default(), &mut batch).map_err(|m| invalid(format!("last row: {m}")))?;
        if batch.len() >= 4096 {
            sink(&l, &batch)?;
            batch.clear();
        }
    }
    if !batch.is_empty() {
        sink(&l, &batch)?;
    }
    Ok(())
}
