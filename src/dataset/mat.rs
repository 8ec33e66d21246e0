//! pgnlearn's `.mat` text format, byte for byte: each feature as `%2d`, then
//! the result as 0 (black won), 1 (draw) or 2 (white won), separated by one
//! space, one row per line.

use std::io::Write;
use std::path::Path;

use super::{DatasetError, RowBatch, RowWriter, Schema};
use crate::atomic::{AtomicFile, OutputError};

pub(super) struct MatWriter {
    file: AtomicFile,
    schema: Schema,
    x: Vec<f64>,
    line: Vec<u8>,
}

impl MatWriter {
    pub(super) fn create(path: &Path, schema: &Schema) -> Result<MatWriter, DatasetError> {
        if schema.layout.is_tapered() {
            return Err(DatasetError::Invalid {
                path: path.display().to_string(),
                message: format!(
                    "the .mat format holds whole numbers, but the tapered sets of '{}' have fractional values; use .csv, .tsv, .parquet, .ijv or --format octave",
                    schema.layout.spec()
                ),
            });
        }
        Ok(MatWriter { file: AtomicFile::create(path)?, x: vec![0.0; schema.layout.len()], schema: schema.clone(), line: Vec::with_capacity(64) })
    }
}

/// Appends `value` as C's `%2d` would print it.
#[inline]
fn push_2d(out: &mut Vec<u8>, value: i64) {
    if (0..10).contains(&value) {
        out.extend_from_slice(&[b' ', b'0' + value as u8]);
        return;
    }
    let mut buffer = itoa::Buffer::new();
    let text = buffer.format(value);
    if text.len() < 2 {
        out.push(b' ');
    }
    out.extend_from_slice(text.as_bytes());
}

impl RowWriter for MatWriter {
    fn write(&mut self, batch: &RowBatch) -> Result<(), DatasetError> {
        for i in 0..batch.len() {
            self.line.clear();
            batch.dense_row(i, &self.schema.layout, &mut self.x);
            for &x in &self.x {
                // Untapered features are whole numbers (checked in `create`).
                push_2d(&mut self.line, x as i64);
                self.line.push(b' ');
            }
            push_2d(&mut self.line, i64::from(batch.results[i].mat_code()));
            self.line.push(b'\n');
            self.file.write_all(&self.line).map_err(|e| OutputError::new(self.file.target(), e))?;
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
    fn formats_like_printf_2d() {
        let mut out = vec![];
        for v in [0, 5, -1, 12, -10] {
            push_2d(&mut out, v);
            out.push(b'|');
        }
        assert_eq!(out, b" 0| 5|-1|12|-10|");
    }
}
