//! Parquet through polars: the same columns as CSV, typed. Features are
//! `Int32`, `result` is `Float64` (0, 0.5, 1), `game` is `Int64`, `ply` is
//! `Int32`, tags and FEN are strings.
//!
//! Rows are buffered into row groups of [`ROW_GROUP`] rows, so memory stays
//! bounded and the file layout does not depend on how extraction batched
//! its work.

use std::fs::File;
use std::path::Path;

use polars::prelude::*;

use super::{DatasetError, RowBatch, RowWriter, Schema};
use crate::atomic::AtomicFile;

/// Rows per Parquet row group.
const ROW_GROUP: usize = 1 << 17;

pub(super) struct ParquetRowWriter {
    file: AtomicFile,
    writer: polars::io::parquet::write::BatchedWriter<File>,
    schema: Schema,
    pending: RowBatch,
}

fn polars_err(path: &Path) -> impl Fn(PolarsError) -> DatasetError + '_ {
    move |source| DatasetError::Polars { path: path.display().to_string(), source }
}

/// Turns a batch into a polars DataFrame with the dataset's column types.
pub fn batch_to_frame(batch: &RowBatch, schema: &Schema) -> PolarsResult<DataFrame> {
    let n = batch.len();
    let mut columns: Vec<Column> =
        Vec::with_capacity(schema.features.len() + 3 + schema.tags.len() + 1);
    let layout = &schema.layout;
    let mut dense = vec![0.0; layout.len()];
    let mut values: Vec<Vec<f64>> = vec![Vec::with_capacity(n); layout.len()];
    for i in 0..n {
        batch.dense_row(i, layout, &mut dense);
        for (column, &v) in values.iter_mut().zip(&dense) {
            column.push(v);
        }
    }
    for (name, values) in schema.features.iter().zip(values) {
        // Untapered sets keep today's integer columns.
        if layout.is_tapered() {
            columns.push(Column::new(name.as_str().into(), values));
        } else {
            columns.push(Column::new(
                name.as_str().into(),
                values.into_iter().map(|v| v as i32).collect::<Vec<i32>>(),
            ));
        }
    }
    columns.push(Column::new("result".into(), batch.results.iter().map(|r| r.score()).collect::<Vec<f64>>()));
    columns.push(Column::new("game".into(), batch.games.iter().map(|&g| g as i64).collect::<Vec<i64>>()));
    columns.push(Column::new("ply".into(), batch.plies.iter().map(|&p| p as i32).collect::<Vec<i32>>()));
    for (name, values) in schema.tags.iter().zip(&batch.tags) {
        columns.push(Column::new(name.as_str().into(), values.as_slice()));
    }
    if schema.fen {
        columns.push(Column::new("fen".into(), batch.fens.as_slice()));
    }
    DataFrame::new(n, columns)
}

impl ParquetRowWriter {
    pub(super) fn create(path: &Path, schema: &Schema) -> Result<ParquetRowWriter, DatasetError> {
        let mut file = AtomicFile::create(path)?;
        let handle = file.clone_handle().map_err(|e| crate::atomic::OutputError::new(path, e))?;
        let empty = batch_to_frame(&RowBatch::new(schema), schema).map_err(polars_err(path))?;
        let writer = ParquetWriter::new(handle)
            .with_compression(ParquetCompression::Zstd(None))
            .set_parallel(false)
            .batched(empty.schema())
            .map_err(polars_err(path))?;
        Ok(ParquetRowWriter { file, writer, schema: schema.clone(), pending: RowBatch::new(schema) })
    }

    fn flush_pending(&mut self) -> Result<(), DatasetError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let path = self.file.target().to_path_buf();
        let frame = batch_to_frame(&self.pending, &self.schema).map_err(polars_err(&path))?;
        self.writer.write_batch(&frame).map_err(polars_err(&path))?;
        self.pending.clear();
        Ok(())
    }
}

impl RowWriter for ParquetRowWriter {
    fn write(&mut self, batch: &RowBatch) -> Result<(), DatasetError> {
        self.pending.append(batch);
        if self.pending.len() >= ROW_GROUP {
            self.flush_pending()?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<(), DatasetError> {
        self.flush_pending()?;
        let path = self.file.target().to_path_buf();
        self.writer.finish().map_err(polars_err(&path))?;
        Ok(self.file.commit()?)
    }
}
