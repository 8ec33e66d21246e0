//! CSV and TSV: a header line, the feature columns, `result` (0, 0.5, 1 from
//! white's side), `game`, `ply`, `phase` (tapered layouts only), then any
//! kept tags and the FEN.
//!
//! The phase of a row with no tapered term (equal material) cannot be read
//! from its feature columns; a mean phase over the rows (the unit of
//! `analyze --imbalance`) needs it, so tapered layouts store it.
//!
//! CSV quotes a field only when it must (RFC 4180). TSV always quotes text
//! fields: R's `read.table(header = TRUE)` splits on any white space by
//! default, so a player name or FEN with spaces must be in quotes.

use std::io::Write;
use std::path::Path;

use super::{DatasetError, RowBatch, RowWriter, Schema};
use crate::atomic::{AtomicFile, OutputError};

pub(super) struct DelimitedWriter {
    file: AtomicFile,
    layout: crate::features::FeatureLayout,
    x: Vec<f64>,
    sep: u8,
    line: Vec<u8>,
}

impl DelimitedWriter {
    pub(super) fn create(path: &Path, schema: &Schema, sep: u8) -> Result<DelimitedWriter, DatasetError> {
        let mut file = AtomicFile::create(path)?;
        let mut header: Vec<String> = schema.features.clone();
        header.extend(["result", "game", "ply"].map(String::from));
        if schema.layout.is_tapered() {
            header.push("phase".into());
        }
        header.extend(schema.tags.iter().cloned());
        if schema.eval {
            header.push("eval".into());
        }
        if schema.fen {
            header.push("fen".into());
        }
        let mut line = Vec::new();
        for (i, name) in header.iter().enumerate() {
            if i > 0 {
                line.push(sep);
            }
            push_text(&mut line, name, sep, false);
        }
        line.push(b'\n');
        file.write_all(&line).map_err(|e| OutputError::new(path, e))?;
        Ok(DelimitedWriter { file, layout: schema.layout.clone(), x: vec![0.0; schema.layout.len()], sep, line })
    }
}

/// Appends an evaluation label: centipawns, or `NA` (R's missing value) or
/// an empty CSV field when the row has none.
fn push_eval(out: &mut Vec<u8>, eval: f32, r_style: bool) {
    if eval.is_nan() {
        out.extend_from_slice(if r_style { b"NA" } else { b"" });
    } else {
        out.extend_from_slice(eval.to_string().as_bytes());
    }
}

/// Appends a text field, quoted as the format needs.
fn push_text(out: &mut Vec<u8>, text: &str, sep: u8, always_quote: bool) {
    let needs_quotes = always_quote || text.bytes().any(|b| b == sep || b == b'"' || b == b'\n' || b == b'\r');
    if !needs_quotes {
        out.extend_from_slice(text.as_bytes());
        return;
    }
    out.push(b'"');
    for b in text.bytes() {
        match b {
            // RFC 4180 doubles quotes; R's white-space separated reader takes
            // a backslash before a quote (and reads other backslashes as they are).
            b'"' if sep == b',' => out.extend_from_slice(b"\"\""),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\n' | b'\r' | b'\t' if sep != b',' => out.push(b' '),
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

impl RowWriter for DelimitedWriter {
    fn write(&mut self, batch: &RowBatch) -> Result<(), DatasetError> {
        let sep = self.sep;
        let quote_text = sep != b',';
        let mut numbers = super::number_text::NumberText::new();
        for i in 0..batch.len() {
            let line = &mut self.line;
            line.clear();
            batch.dense_row(i, &self.layout, &mut self.x);
            for &x in &self.x {
                numbers.push(line, x);
                line.push(sep);
            }
            line.extend_from_slice(batch.results[i].score_str().as_bytes());
            line.push(sep);
            line.extend_from_slice(numbers.int(batch.games[i]).as_bytes());
            line.push(sep);
            line.extend_from_slice(numbers.int(batch.plies[i]).as_bytes());
            if self.layout.is_tapered() {
                line.push(sep);
                line.extend_from_slice(numbers.int(batch.phases[i]).as_bytes());
            }
            for column in &batch.tags {
                line.push(sep);
                push_text(line, &column[i], sep, quote_text);
            }
            if let Some(&eval) = batch.evals.get(i) {
                line.push(sep);
                push_eval(line, eval, quote_text);
            }
            if let Some(fen) = batch.fens.get(i) {
                line.push(sep);
                push_text(line, fen, sep, quote_text);
            }
            line.push(b'\n');
            self.file.write_all(line).map_err(|e| OutputError::new(self.file.target(), e))?;
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), DatasetError> {
        Ok(self.file.commit()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        let mut out = vec![];
        push_text(&mut out, "Carlsen, Magnus", b',', false);
        out.push(b'|');
        push_text(&mut out, "say \"hi\"", b',', false);
        out.push(b'|');
        push_text(&mut out, "O'Kelly", b'\t', true);
        out.push(b'|');
        push_text(&mut out, "plain", b',', false);
        out.push(b'|');
        push_text(&mut out, "back\\slash \"q\"", b'\t', true);
        assert_eq!(String::from_utf8(out).unwrap(), "\"Carlsen, Magnus\"|\"say \"\"hi\"\"\"|\"O'Kelly\"|plain|\"back\\slash \\\"q\\\"\"");
    }
}
