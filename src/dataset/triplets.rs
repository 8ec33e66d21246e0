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
            for (j, v) in [(c + 1, batch.results[r].score()), (c + 2, batch.games[r] as f64), (c + 3, f64::from(batch.plies[r]))] {
                if v != 0.0 {
                    entry(&mut self.line, j, v, &mut numbers);
                }
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

/// The number of rows declared by the size line `R C 0` that ends a
/// `.ijv` file (blank lines after it allowed), read from the file's tail;
/// 0 for a file of header lines only (an empty dataset, written without a
/// size line, which Octave and R would refuse) or no lines at all (left to
/// the header check); `None` when the last line is something else. The
/// file is left at its start.
fn size_line(file: &mut std::fs::File) -> std::io::Result<Option<u64>> {
    use std::io::{Read, Seek, SeekFrom};
    let length = file.seek(SeekFrom::End(0))?;
    let tail_start = length.saturating_sub(4096);
    file.seek(SeekFrom::Start(tail_start))?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail)?;
    file.seek(SeekFrom::Start(0))?;
    let text = String::from_utf8_lossy(&tail);
    let Some(last) = text.lines().rev().map(str::trim).find(|l| !l.is_empty()) else { return Ok(Some(0)) };
    if last.starts_with('%') {
        return Ok(Some(0));
    }
    let numbers: Vec<f64> = last.split_whitespace().map_while(|t| t.parse::<f64>().ok()).collect();
    Ok(match numbers[..] {
        [rows, columns, v] if v == 0.0 && rows >= 0.0 && rows.fract() == 0.0 && columns >= 1.0 && last.split_whitespace().count() == 3 => {
            Some(rows as u64)
        }
        _ => None,
    })
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
    let declared_rows = match size_line(&mut file).map_err(io)? {
        Some(rows) => rows,
        None => {
            return Err(invalid(
                "the last line is not the size line 'R C 0' that ends every pgntune .ijv file: the file is cut short, or not a pgntune .ijv".into(),
            ));
        }
    };
    let reader = std::io::BufReader::with_capacity(1 << 16, file);
    let mut layout: Option<FeatureLayout> = None;
    let mut decoder: Option<ColumnDecoder> = None;
    let mut batch = RowBatch::default();
    // The row being gathered: its number, feature values and extra columns.
    let mut current: Option<u64> = None;
    let mut values: Vec<(usize, f64)> = Vec::new();
    let mut extra = [0.0f64; 4];
    let mut has_eval = false;
    let mut terms = Vec::new();
    let mut flush = |layout: &FeatureLayout,
                     decoder: &mut ColumnDecoder,
                     values: &mut Vec<(usize, f64)>,
                     extra: &[f64; 4],
                     has_eval: bool,
                     batch: &mut RowBatch|
     -> Result<(), String> {
        let phase = decoder.decode(values.drain(..), &mut terms)?;
        let result = GameResult::from_score(extra[0]).ok_or_else(|| format!("result {} is not 0, 0.5 or 1", extra[0]))?;
        batch.push_features(&terms, phase.unwrap_or(0));
        batch.results.push(result);
        batch.games.push(extra[1] as u64);
        batch.plies.push(extra[2] as u32);
        batch.evals.push(if has_eval { extra[3] as f32 } else { f32::NAN });
        debug_assert!(terms.iter().all(|t| usize::from(t.term) < layout.term_count()));
        Ok(())
    };
    for (n, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| invalid(format!("line {}: {e}", n + 1)))?;
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
        let mut parts = line.split_whitespace();
        let mut number = || parts.next().and_then(|t| t.parse::<f64>().ok()).filter(|v| v.is_finite());
        let (Some(i), Some(j), Some(v)) = (number(), number(), number()) else {
            return Err(at(format!("expected 'i j v', found '{line}'")));
        };
        if i < 1.0 || j < 1.0 || i.fract() != 0.0 || j.fract() != 0.0 {
            return Err(at(format!("row and column numbers count from 1: '{line}'")));
        }
        let (i, j) = (i as u64, j as usize - 1);
        if i > declared_rows {
            return Err(at(format!("row {i} is past the {declared_rows} rows the size line at the end declares")));
        }
        if v == 0.0 {
            continue; // The size line.
        }
        if current != Some(i) {
            if current.is_some_and(|c| i < c) {
                return Err(at("rows out of order".into()));
            }
            if current.is_some() {
                flush(l, d, &mut values, &extra, has_eval, &mut batch).map_err(&at)?;
            }
            // Rows without any entry are all zeros (black won, game 0, ply 0).
            for _ in current.unwrap_or(0) + 1..i {
                flush(l, d, &mut Vec::new(), &[0.0; 4], false, &mut batch).map_err(&at)?;
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
            extra = [0.0; 4];
            has_eval = false;
        }
        let c = l.len();
        match j {
            j if j < c => values.push((j, v)),
            j if j < c + EXTRA => extra[j - c] = v,
            j if j == c + EXTRA => {
                extra[3] = v;
                has_eval = true;
            }
            _ => return Err(at(format!("column {} is past the layout's {} columns and 4 extra", j + 1, c))),
        }
    }
    let Some(l) = layout else {
        return Err(invalid("no '% layout:' header line (not a pgntune .ijv file)".into()));
    };
    let d = decoder.as_mut().expect("set with the layout");
    if current.is_some() {
        flush(&l, d, &mut values, &extra, has_eval, &mut batch).map_err(|m| invalid(format!("last row: {m}")))?;
    }
    for _ in current.unwrap_or(0)..declared_rows {
        flush(&l, d, &mut Vec::new(), &[0.0; 4], false, &mut batch).map_err(|m| invalid(format!("last row: {m}")))?;
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
