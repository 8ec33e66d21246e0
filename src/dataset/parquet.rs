//! Parquet through polars, in one of two shapes:
//!
//! * dense, for layouts of at most [`DENSE_COLUMNS`] columns: the same
//!   columns as CSV, typed (features `Int32` for untapered layouts, `Float64`
//!   for tapered ones);
//! * sparse, for wider layouts (a whole evaluation): `idx` (`List<Int32>`,
//!   the 0-based feature columns that are non-zero) and `val`
//!   (`List<Float64>`, their design values), plus `phase` (`Int32`, 0-24).
//!   The column names are in the file's key-value metadata under
//!   `pgntune.columns` (a JSON array), the layout under `pgntune.layout`.
//!   pandas, polars and Spark read the list columns as arrays; a Spark
//!   `SparseVector(len(columns), idx, val)` is one row of the design matrix.
//!
//! Both then have `result` (`Float64`: 0, 0.5, 1), `game` (`Int64`), `ply`
//! (`Int32`), `eval` (`Float64`, null where a row has no label; only when
//! labels were read), the kept tags and the FEN (strings).
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

/// Layouts up to this many columns are written dense, wider ones sparse.
pub const DENSE_COLUMNS: usize = 64;

/// Whether rows of `schema` are written in the sparse shape.
pub fn is_sparse(schema: &Schema) -> bool {
    schema.layout.len() > DENSE_COLUMNS
}

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
    let mut columns: Vec<Column> = Vec::with_capacity(schema.features.len() + 3 + schema.tags.len() + 1);
    let layout = &schema.layout;
    let mut dense = vec![0.0; layout.len()];
    if is_sparse(schema) {
        // Each list column is built as one flat array of values plus row
        // offsets: a Series per row (two allocations and an Arrow array
        // each) made writing the human collection 40% slower.
        // A tapered term fills one or two columns (mg, eg): room for 1.5 each.
        let values = batch.terms.len() + batch.terms.len() / 2;
        let mut idx = ListPrimitiveChunkedBuilder::<Int32Type>::new("idx".into(), n, values, DataType::Int32);
        let mut val = ListPrimitiveChunkedBuilder::<Float64Type>::new("val".into(), n, values, DataType::Float64);
        let mut pairs = Vec::new();
        for i in 0..n {
            layout.sparse_columns(batch.row_terms(i), batch.phases[i], &mut pairs);
            idx.append_values_iter(pairs.iter().map(|p| p.0 as i32));
            val.append_values_iter(pairs.iter().map(|p| p.1));
        }
        columns.push(list_column(idx.finish(), DataType::Int32)?);
        columns.push(list_column(val.finish(), DataType::Float64)?);
        columns.push(Column::new("phase".into(), batch.phases.iter().map(|&p| i32::from(p)).collect::<Vec<i32>>()));
    } else {
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
                columns.push(Column::new(name.as_str().into(), values.into_iter().map(|v| v as i32).collect::<Vec<i32>>()));
            }
        }
    }
    columns.push(Column::new("result".into(), batch.results.iter().map(|r| r.score()).collect::<Vec<f64>>()));
    columns.push(Column::new("game".into(), batch.games.iter().map(|&g| g as i64).collect::<Vec<i64>>()));
    columns.push(Column::new("ply".into(), batch.plies.iter().map(|&p| p as i32).collect::<Vec<i32>>()));
    if schema.eval {
        let evals: Vec<Option<f64>> = batch.evals.iter().map(|&e| (!e.is_nan()).then_some(f64::from(e))).collect();
        columns.push(Column::new("eval".into(), evals));
    }
    for (name, values) in schema.tags.iter().zip(&batch.tags) {
        columns.push(Column::new(name.as_str().into(), values.as_slice()));
    }
    if schema.fen {
        columns.push(Column::new("fen".into(), batch.fens.as_slice()));
    }
    DataFrame::new(n, columns)
}

/// `list` as a column, typed `List<inner>` even when it has no rows.
fn list_column(mut list: ListChunked, inner: DataType) -> PolarsResult<Column> {
    if list.inner_dtype() != &inner {
        let name = list.name().clone();
        list = list.cast(&DataType::List(Box::new(inner)))?.list()?.clone().with_name(name);
    }
    Ok(list.into_series().into_column())
}

impl ParquetRowWriter {
    pub(super) fn create(path: &Path, schema: &Schema) -> Result<ParquetRowWriter, DatasetError> {
        let mut file = AtomicFile::create(path)?;
        let handle = file.clone_handle().map_err(|e| crate::atomic::OutputError::new(path, e))?;
        let empty = batch_to_frame(&RowBatch::new(schema), schema).map_err(polars_err(path))?;
        let metadata = polars::io::parquet::write::KeyValueMetadata::from_static(vec![
            ("pgntune.layout".to_string(), schema.layout.spec()),
            ("pgntune.columns".to_string(), serde_json::to_string(&schema.features).expect("names serialise")),
        ]);
        let writer = ParquetWriter::new(handle)
            .with_compression(ParquetCompression::Zstd(None))
            .with_key_value_metadata(Some(metadata))
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
