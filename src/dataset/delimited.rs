//! CSV and TSV: a header line, the feature columns, `result` (0, 0.5, 1 from
//! white's side), `game`, `ply`, `phase` (tapered layouts only), then any
//! kept tags and the FEN.
//!
//! The phase of a row with no tapered term (equal material) cannot be read
//! from its feature columns; a mean phase over the rows (the unit of
//! `analyze --imbalance`) needs it, so tapered layouts store it.
//!
//! Both are written by the `csv` crate's writer, the crate that reads them
//! back. CSV is its RFC 4180 form: a field is quoted only when it must be,
//! quotes doubled. TSV is for R's `read.table(header = TRUE)`, which splits
//! on any white space, and quotes every text field itself (see
//! [`tsv_text`]): the writer cannot, as its quoting rule is one for all
//! fields and the numbers must stay bare.

use std::path::Path;

use super::{DatasetError, RowBatch, RowWriter, Schema};
use crate::atomic::{AtomicFile, OutputError};

pub(super) struct DelimitedWriter {
    out: csv::Writer<AtomicFile>,
    layout: crate::features::FeatureLayout,
    x: Vec<f64>,
    tsv: bool,
    /// One field's text.
    field: Vec<u8>,
}

impl DelimitedWriter {
    pub(super) fn create(path: &Path, schema: &Schema, sep: u8) -> Result<DelimitedWriter, DatasetError> {
        let file = AtomicFile::create(path)?;
        let tsv = sep != b',';
        let mut builder = csv::WriterBuilder::new();
        builder.delimiter(sep).terminator(csv::Terminator::Any(b'\n'));
        if tsv {
            // Text fields come quoted by `tsv_text`; numbers need none.
            builder.quote_style(csv::QuoteStyle::Never);
        }
        let mut out = builder.from_writer(file);
        let mut header: Vec<&str> = schema.features.iter().map(String::as_str).collect();
        header.extend(["result", "game", "ply"]);
        if schema.layout.is_tapered() {
            header.push("phase");
        }
        header.extend(schema.tags.iter().map(String::as_str));
        if schema.eval {
            header.push("eval");
        }
        if schema.fen {
            header.push("fen");
        }
        let mut field = Vec::new();
        for name in header {
            // Names stay bare in TSV too unless they must be quoted.
            if tsv && name.bytes().any(|b| matches!(b, b'\t' | b'"' | b'\n' | b'\r')) {
                text(&mut out, &mut field, tsv, name)?;
            } else {
                put(&mut out, name.as_bytes())?;
            }
        }
        end_record(&mut out)?;
        Ok(DelimitedWriter { out, layout: schema.layout.clone(), x: vec![0.0; schema.layout.len()], tsv, field })
    }
}

fn put(out: &mut csv::Writer<AtomicFile>, field: &[u8]) -> Result<(), DatasetError> {
    out.write_field(field).map_err(|e| write_error(out, e))
}

fn end_record(out: &mut csv::Writer<AtomicFile>) -> Result<(), DatasetError> {
    out.write_record(None::<&[u8]>).map_err(|e| write_error(out, e))
}

/// A text field: the writer quotes it as CSV needs; TSV's is quoted here
/// (in `scratch`).
fn text(out: &mut csv::Writer<AtomicFile>, scratch: &mut Vec<u8>, tsv: bool, text: &str) -> Result<(), DatasetError> {
    if !tsv {
        return put(out, text.as_bytes());
    }
    scratch.clear();
    tsv_text(scratch, text);
    put(out, scratch)
}

fn write_error(out: &csv::Writer<AtomicFile>, error: csv::Error) -> DatasetError {
    let message = error.to_string();
    let source = match error.into_kind() {
        csv::ErrorKind::Io(e) => e,
        _ => std::io::Error::other(message),
    };
    OutputError::new(out.get_ref().target(), source).into()
}

/// A TSV text field: always in quotes, as R's `read.table` with its default
/// white-space separator needs for names and FENs with spaces. A quote is
/// escaped with a backslash, which that reader takes (it does not take a
/// doubled quote) and pgntune's own TSV reader is set to; other backslashes
/// stay as they are.
///
/// Tabs, newlines and carriage returns become spaces, although a quoted
/// field could hold them: R's `read.table` and `read.delim`, polars and
/// pandas keep a quoted tab inside its field, but Octave's `dlmread` splits
/// there and shifts the columns after it, and a newline would make a row
/// two lines for every line-based tool (`read_tags.R` checks rows = lines).
fn tsv_text(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    for b in text.bytes() {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\n' | b'\r' | b'\t' => out.push(b' '),
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

impl RowWriter for DelimitedWriter {
    fn write(&mut self, batch: &RowBatch) -> Result<(), DatasetError> {
        let DelimitedWriter { out, layout, x, tsv, field } = self;
        let tsv = *tsv;
        let mut numbers = super::number_text::NumberText::new();
        for i in 0..batch.len() {
            batch.dense_row(i, layout, x);
            for &value in x.iter() {
                field.clear();
                numbers.push(field, value);
                put(out, field)?;
            }
            put(out, batch.results[i].score_str().as_bytes())?;
            put(out, numbers.int(batch.games[i]).as_bytes())?;
            put(out, numbers.int(batch.plies[i]).as_bytes())?;
            if layout.is_tapered() {
                put(out, numbers.int(batch.phases[i]).as_bytes())?;
            }
            for column in &batch.tags {
                text(out, field, tsv, column.get(i).unwrap_or_default())?;
            }
            if let Some(&eval) = batch.evals.get(i) {
                // No label: R's missing value in TSV, an empty field in CSV.
                match (eval.is_nan(), tsv) {
                    (true, true) => put(out, b"NA")?,
                    (true, false) => put(out, b"")?,
                    (false, _) => put(out, eval.to_string().as_bytes())?,
                }
            }
            if let Some(fen) = batch.fens.get(i) {
                text(out, field, tsv, fen)?;
            }
            end_record(out)?;
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), DatasetError> {
        let target = self.out.get_ref().target().to_path_buf();
        let file = self.out.into_inner().map_err(|e| OutputError::new(&target, e.into_error()))?;
        Ok(file.commit()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv_line(fields: &[&str]) -> String {
        let mut out = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(vec![]);
        out.write_record(fields).unwrap();
        String::from_utf8(out.into_inner().unwrap()).unwrap()
    }

    #[test]
    fn quoting() {
        // CSV: the csv crate quotes what must be (RFC 4180), nothing else.
        assert_eq!(csv_line(&["Carlsen, Magnus", "say \"hi\"", "plain", "O'Kelly", ""]), "\"Carlsen, Magnus\",\"say \"\"hi\"\"\",plain,O'Kelly,\n");
        let tsv = |text: &str| {
            let mut out = vec![];
            tsv_text(&mut out, text);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(tsv("O'Kelly"), "\"O'Kelly\"");
        assert_eq!(tsv("back\\slash \"q\""), "\"back\\slash \\\"q\\\"\"");
        assert_eq!(tsv("tab\there\r\n"), "\"tab here  \"");
    }
}
