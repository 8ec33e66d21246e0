//! The dataset formats as outputs (see [`crate::atomic::Recognise`]): what
//! each is called in messages, and how an existing file is told to be
//! rows pgntune wrote in that format rather than a file of the user's.

use std::fs::File;
use std::path::Path;

use super::Format;
use crate::atomic::{Recognise, carries_written_mark, complete_lines, head};

impl Format {
    /// What rows in this format are called in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Format::Mat => "a .mat dataset",
            Format::Csv => "a CSV dataset",
            Format::Tsv => "a TSV dataset",
            Format::Parquet => "a Parquet dataset",
            Format::Octave => "an Octave dataset",
            Format::Epd => "an EPD dataset",
            Format::Ijv => "a sparse triplet dataset",
            Format::Svm => "a LIBSVM dataset",
        }
    }

    /// True when the file at `path` holds rows pgntune wrote in this format.
    pub fn recognises(self, path: &Path) -> bool {
        let Ok(head) = head(path) else { return false };
        match self {
            // These formats have no room for a mark of pgntune's: a
            // hand-written file with the same header (or pgnlearn's own
            // matrix) is the user's unless the file carries the mark.
            Format::Mat => is_integer_matrix(&head) && carries_written_mark(path),
            Format::Csv => header_has_metadata(&head, b',') && carries_written_mark(path),
            Format::Tsv => header_has_metadata(&head, b'\t') && carries_written_mark(path),
            Format::Octave => head.starts_with(b"# Created by pgntune"),
            Format::Parquet => is_pgntune_parquet(path),
            Format::Epd => is_epd(&head, EPD_DATASET_OPCODES, &["hmvc", "fmvn", "c9"]),
            Format::Ijv => head.starts_with(b"% pgntune sparse rows"),
            Format::Svm => head.starts_with(super::svm::HEADER.as_bytes()),
        }
    }
}

impl Recognise for Format {
    fn describe(&self) -> &'static str {
        Format::describe(*self)
    }

    fn recognises(&self, path: &Path) -> bool {
        Format::recognises(*self, path)
    }
}

/// pgnlearn's matrix: lines of at least two integers, all the same length.
fn is_integer_matrix(head: &[u8]) -> bool {
    let mut width = None;
    let mut lines = 0;
    for line in complete_lines(head) {
        let Ok(text) = std::str::from_utf8(line) else { return false };
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() < 2 || fields.iter().any(|f| f.parse::<i64>().is_err()) || *width.get_or_insert(fields.len()) != fields.len() {
            return false;
        }
        lines += 1;
    }
    lines > 0
}

/// A header line with pgntune's `result`, `game`, `ply` columns in a row.
fn header_has_metadata(head: &[u8], sep: u8) -> bool {
    let line = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let fields: Vec<&[u8]> = line.split(|&b| b == sep).map(|f| f.trim_ascii()).collect();
    fields.windows(3).any(|w| w == [b"result".as_slice(), b"game", b"ply"])
}

fn is_pgntune_parquet(path: &Path) -> bool {
    use polars::prelude::{ParquetReader, SerReader};
    let Ok(file) = File::open(path) else { return false };
    let Ok(schema) = ParquetReader::new(file).schema() else { return false };
    ["result", "game", "ply"].iter().all(|c| schema.contains(c))
}

/// The operations `extract` writes on an EPD line (move counters, result,
/// evaluation label).
const EPD_DATASET_OPCODES: &[&str] = &["hmvc", "fmvn", "c9", "ce"];

/// Lines of EPD (or comments) as pgntune writes them: operations only from
/// `opcodes`, and every one of `required` on every line. A test suite's
/// `bm` or `id` lines, an opening book without operations, or another
/// tuner's training set (`c9` alone, as in Zurichess' quiet-labeled.epd)
/// are the user's files, not earlier outputs.
fn is_epd(head: &[u8], opcodes: &[&str], required: &[&str]) -> bool {
    let mut positions = 0;
    for line in complete_lines(head) {
        let Ok(text) = std::str::from_utf8(line) else { return false };
        let text = text.trim();
        if text.starts_with('#') {
            continue;
        }
        let mut fields = text.splitn(5, char::is_whitespace);
        let epd: Vec<&str> = fields.by_ref().take(4).collect();
        if epd.join(" ").parse::<shakmaty::fen::Epd>().is_err() {
            return false;
        }
        let operations: Vec<&str> = fields.next().unwrap_or("").split(';').map(str::trim).filter(|op| !op.is_empty()).collect();
        let opcode = |op: &&str| op.split_whitespace().next().unwrap_or("").to_string();
        if !operations.iter().all(|op| opcodes.contains(&opcode(op).as_str()))
            || !required.iter().all(|r| operations.iter().any(|op| opcode(op) == *r))
        {
            return false;
        }
        positions += 1;
    }
    positions > 0
}
