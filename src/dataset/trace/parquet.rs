//! Parquet traces: a trace's header in the file's key-value metadata
//! ([`KEY`]), its rows as columns (the schema is in the [module
//! docs](super)), read one row group at a time so that memory stays
//! bounded whatever the file's size.

use std::fs::File;
use std::path::Path;

use polars::prelude::*;

use super::{header_of, parse_header};
use crate::atomic::{AtomicFile, OutputError};
use crate::dataset::load::parquet::game_column;
use crate::dataset::positions::Positions;
use crate::dataset::{DatasetError, GameResult, RowBatch};
use crate::features::{FeatureLayout, TermValue};

/// The key-value metadata key holding a Parquet trace's header (and
/// telling a Parquet trace from other Parquet files). Defined beside the
/// Parquet writer, below both readers: the dataset reader names it too.
pub use crate::dataset::parquet::TRACE_KEY as KEY;

/// Rows per row group written.
const ROW_GROUP: usize = if cfg!(test) { 3 } else { 1 << 16 };

fn polars_err(path: &Path) -> impl Fn(PolarsError) -> DatasetError + '_ {
    move |source| DatasetError::Polars { path: path.display().to_string(), source }
}

fn invalid(path: &Path, message: impl Into<String>) -> DatasetError {
    DatasetError::Invalid { path: path.display().to_string(), message: message.into() }
}

fn open(path: &Path) -> Result<ParquetReader<File>, DatasetError> {
    let file = File::open(path).map_err(|source| DatasetError::Io { path: path.display().to_string(), source })?;
    Ok(ParquetReader::new(file))
}

/// The header text of a Parquet file's metadata, if it is a trace.
fn header_text(reader: &mut ParquetReader<File>, path: &Path) -> Result<Option<String>, DatasetError> {
    let metadata = reader.get_metadata().map_err(polars_err(path))?;
    Ok(metadata.key_value_metadata().iter().flatten().find(|kv| kv.key == KEY).map(|kv| kv.value.clone().unwrap_or_default()))
}

/// Whether the Parquet file `path` is a trace (its metadata has [`KEY`]).
pub fn is_parquet_trace(path: &Path) -> Result<bool, DatasetError> {
    Ok(header_text(&mut open(path)?, path)?.is_some())
}

/// Reads a Parquet trace, calling `sink` with its layout and the rows of
/// one row group after another. Rows without a game id get
/// their row number (from 0) as one.
pub fn read_parquet_trace(path: &Path, sink: &mut dyn FnMut(&FeatureLayout, &RowBatch) -> Result<(), DatasetError>) -> Result<(), DatasetError> {
    let mut reader = open(path)?;
    let text = header_text(&mut reader, path)?.ok_or_else(|| invalid(path, format!("Parquet without the '{KEY}' metadata: not a trace")))?;
    let layout = parse_header(&text).map_err(|e| invalid(path, format!("metadata '{KEY}' {e}")))?;
    let metadata = reader.get_metadata().map_err(polars_err(path))?.clone();
    let names: Vec<String> = reader.schema().map_err(polars_err(path))?.iter_names().map(|n| n.to_string()).collect();
    let has = |name: &str| names.iter().any(|n| n == name);
    for (name, what) in [("result", "white's score"), ("phase", "0 to 24"), ("terms", "lists of term indices"), ("coefs", "lists of coefficients")] {
        if !has(name) {
            return Err(invalid(path, format!("a trace without the '{name}' column ({what})")));
        }
    }
    let mut wanted: Vec<String> = ["result", "phase", "terms", "coefs"].into_iter().map(String::from).collect();
    wanted.extend(["eval", "game"].into_iter().filter(|&n| has(n)).map(String::from));
    let schema = reader.schema().map_err(polars_err(path))?;
    for (name, field) in schema.iter().filter(|(name, _)| wanted.iter().any(|w| w == name.as_str())) {
        if let Some(width) = narrow(&field.dtype) {
            return Err(invalid(path, format!("column '{name}' holds {width}-bit integers: write 32- or 64-bit ones (pgntune reads no narrower)")));
        }
    }
    let mut first = 0;
    let mut batch = RowBatch::default();
    let mut terms = Vec::new();
    for group in &metadata.row_groups {
        let n = group.num_rows();
        if n == 0 {
            continue;
        }
        let mut reader = open(path)?;
        reader.set_metadata(metadata.clone());
        let frame = reader.with_slice(Some((first, n))).with_columns(Some(wanted.clone())).finish().map_err(polars_err(path))?;
        read_group(&frame, path, first, layout.term_count(), &mut terms, &mut batch)?;
        first += n;
        sink(&layout, &batch)?;
        batch.clear();
    }
    // Also when empty: the consumer learns the layout.
    sink(&layout, &batch)
}

/// The width of 8- or 16-bit integers (also in lists), which pgntune's
/// polars is built without.
fn narrow(dtype: &ArrowDataType) -> Option<u32> {
    match dtype {
        ArrowDataType::Int8 | ArrowDataType::UInt8 => Some(8),
        ArrowDataType::Int16 | ArrowDataType::UInt16 => Some(16),
        ArrowDataType::List(f) | ArrowDataType::LargeList(f) | ArrowDataType::FixedSizeList(f, _) => narrow(&f.dtype),
        _ => None,
    }
}

/// A column cast to `dtype`, or an error naming what it should hold.
fn cast(frame: &DataFrame, path: &Path, name: &str, dtype: DataType, what: &str) -> Result<Series, DatasetError> {
    let column = frame.column(name).map_err(polars_err(path))?;
    let cast = column.cast(&dtype).map_err(|_| invalid(path, format!("column '{name}' is not {what}")))?;
    Ok(cast.as_materialized_series().clone())
}

/// The rows of one row group (`first`: the file's row number of its first
/// row, from 0) appended to `batch`.
fn read_group(
    frame: &DataFrame,
    path: &Path,
    first: usize,
    count: usize,
    terms: &mut Vec<TermValue>,
    batch: &mut RowBatch,
) -> Result<(), DatasetError> {
    let at = |i: usize, m: String| invalid(path, format!("row {}: {m}", first + i + 1));
    let numbers = |name: &str| -> Result<Vec<Option<f64>>, DatasetError> {
        let s = cast(frame, path, name, DataType::Float64, "numeric")?;
        Ok(s.f64().map_err(polars_err(path))?.iter().collect())
    };
    let lists = |name: &str| -> Result<ListChunked, DatasetError> {
        let s = cast(frame, path, name, DataType::List(Box::new(DataType::Int64)), "a list of whole numbers")?;
        Ok(s.list().map_err(polars_err(path))?.clone())
    };
    let results = numbers("result")?;
    let phases = numbers("phase")?;
    let evals = if frame.column("eval").is_ok() { Some(numbers("eval")?) } else { None };
    let games = if frame.column("game").is_ok() { Some(game_column(frame, path, first)?) } else { None };
    let (indices, coefs) = (lists("terms")?, lists("coefs")?);
    for (i, (ix, cx)) in indices.amortized_iter().zip(coefs.amortized_iter()).enumerate() {
        let score = results[i].ok_or_else(|| at(i, "no result".into()))?;
        let result = GameResult::from_score(score).ok_or_else(|| at(i, format!("result {score} is not 1, 0.5 or 0 (white's score)")))?;
        let phase = phases[i].ok_or_else(|| at(i, "no phase".into()))?;
        if !(phase.fract() == 0.0 && (0.0..=24.0).contains(&phase)) {
            return Err(at(i, format!("phase {phase} is not a whole number from 0 to 24")));
        }
        let eval = match evals.as_ref().and_then(|e| e[i]) {
            Some(e) if e.is_finite() => e as f32,
            Some(e) if !e.is_nan() => return Err(at(i, format!("eval {e} is not a number"))),
            _ => f32::NAN,
        };
        let (Some(ix), Some(cx)) = (ix, cx) else { return Err(at(i, "no 'terms' or 'coefs' list (an empty list is a row without terms)".into())) };
        let (ix, cx) = (ix.as_ref().i64().map_err(polars_err(path))?, cx.as_ref().i64().map_err(polars_err(path))?);
        if ix.len() != cx.len() {
            return Err(at(i, format!("{} term indices but {} coefficients", ix.len(), cx.len())));
        }
        terms.clear();
        for (index, coef) in ix.iter().zip(cx.iter()) {
            let (Some(index), Some(coef)) = (index, coef) else { return Err(at(i, "a missing term index or coefficient".into())) };
            if index < 1 || index as u64 > count as u64 {
                return Err(at(i, format!("term index {index} is beyond the {count} terms of the header (they count from 1)")));
            }
            let coef = i16::try_from(coef).map_err(|_| at(i, format!("coefficient {coef} is not a whole number from -32768 to 32767")))?;
            if coef != 0 {
                terms.push(TermValue { term: (index - 1) as u16, value: coef });
            }
        }
        terms.sort_unstable_by_key(|t| t.term);
        if let Some(w) = terms.windows(2).find(|w| w[0].term == w[1].term) {
            return Err(at(i, format!("term index {} is given twice", w[0].term + 1)));
        }
        batch.push_features(terms, phase as u8);
        batch.results.push(result);
        batch.games.push(games.as_ref().and_then(|g| g[i]).unwrap_or((first + i) as u64));
        batch.plies.push(0);
        batch.evals.push(eval);
    }
    Ok(())
}

/// Positions `from..to` as a frame of a Parquet trace's columns.
fn frame_of(positions: &Positions, from: usize, to: usize) -> PolarsResult<DataFrame> {
    let n = to - from;
    let values = (from..to).map(|i| positions.entries(i).len()).sum();
    let mut terms = ListPrimitiveChunkedBuilder::<Int32Type>::new("terms".into(), n, values, DataType::Int32);
    let mut coefs = ListPrimitiveChunkedBuilder::<Int32Type>::new("coefs".into(), n, values, DataType::Int32);
    for i in from..to {
        let row = positions.terms(i);
        terms.append_values_iter(row.iter().map(|t| i32::from(t.term) + 1));
        coefs.append_values_iter(row.iter().map(|t| i32::from(t.value)));
    }
    let list = |mut list: ListChunked| -> PolarsResult<Column> {
        // Typed List<Int32> even without rows.
        if list.inner_dtype() != &DataType::Int32 {
            let name = list.name().clone();
            list = list.cast(&DataType::List(Box::new(DataType::Int32)))?.list()?.clone().with_name(name);
        }
        Ok(list.into_series().into_column())
    };
    let mut columns = vec![
        Column::new("result".into(), (from..to).map(|i| positions.result(i).score()).collect::<Vec<f64>>()),
        Column::new("phase".into(), (from..to).map(|i| i32::from(positions.phase(i))).collect::<Vec<i32>>()),
        Column::new("eval".into(), (from..to).map(|i| Some(f64::from(positions.eval(i))).filter(|e| !e.is_nan())).collect::<Vec<Option<f64>>>()),
    ];
    if positions.games_known() {
        columns.push(Column::new("game".into(), (from..to).map(|i| positions.game(i)).collect::<Vec<u64>>()));
    }
    columns.push(list(terms.finish())?);
    columns.push(list(coefs.finish())?);
    DataFrame::new(n, columns)
}

/// Writes `positions` as a Parquet trace with the current values `start`
/// (per column of their layout) and the sums `held` (name, columns of
/// their layout), as [`super::write_trace`] writes a text trace.
pub fn write_parquet_trace(positions: &Positions, start: &[f64], held: &[(String, Vec<usize>)], path: &Path) -> Result<(), DatasetError> {
    let mut file = AtomicFile::create(path)?;
    let handle = file.clone_handle().map_err(|e| OutputError::new(path, e))?;
    let metadata = polars::io::parquet::write::KeyValueMetadata::from_static(vec![(KEY.to_string(), header_of(positions.layout(), start, held))]);
    let empty = frame_of(positions, 0, 0).map_err(polars_err(path))?;
    let mut writer = ParquetWriter::new(handle)
        .with_compression(ParquetCompression::Zstd(None))
        .with_key_value_metadata(Some(metadata))
        .batched(empty.schema())
        .map_err(polars_err(path))?;
    for from in (0..positions.len()).step_by(ROW_GROUP) {
        let frame = frame_of(positions, from, (from + ROW_GROUP).min(positions.len())).map_err(polars_err(path))?;
        writer.write_batch(&frame).map_err(polars_err(path))?;
    }
    writer.finish().map_err(polars_err(path))?;
    Ok(file.commit()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_parquet_trace_reads_back_as_the_same_positions() {
        let layout = FeatureLayout::parse("material_tapered,tempo").unwrap();
        let mut p = Positions::new(layout.clone()).unwrap();
        for k in 0..8u64 {
            let v = k as i16 - 4;
            p.push(&[TermValue { term: 0, value: 3 + v }, TermValue { term: 5, value: 1 }], (k * 3) as u8, 1.0, 12.5, k / 2);
        }
        p.push(&[TermValue { term: 4, value: -9 }], 2, 0.0, f32::NAN, 9);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let start: Vec<f64> = (0..layout.len()).map(|j| j as f64 * 10.0).collect();
        write_parquet_trace(&p, &start, &[("the queen".into(), vec![4, 9])], &path).unwrap();
        assert!(is_parquet_trace(&path).unwrap());
        let (mut back, mut all, mut calls) = (None, RowBatch::default(), 0);
        read_parquet_trace(&path, &mut |l, b| {
            back = Some(l.clone());
            all.append(b);
            calls += 1;
            Ok(())
        })
        .unwrap();
        assert!(calls > 3, "read a row group at a time: {calls} batches");
        let back = back.unwrap();
        assert_eq!(back.term_names(), layout.term_names());
        // The same values by column name (a custom layout orders mg, eg by term).
        for (name, value) in back.columns().iter().zip(back.custom_start().unwrap()) {
            let j = layout.columns().iter().position(|c| c == name).unwrap();
            assert_eq!(*value, start[j], "{name}");
        }
        assert_eq!(back.custom_terms().unwrap().held(), [("the_queen".to_string(), vec![8, 9])]);
        assert_eq!(all.len(), p.len());
        for i in 0..p.len() {
            assert_eq!(all.row_terms(i), p.terms(i), "row {i}");
            assert_eq!((all.phases[i], all.games[i], all.results[i]), (p.phase(i), p.game(i), p.result(i)), "row {i}");
            assert_eq!(all.evals[i].to_bits(), p.eval(i).to_bits(), "row {i}");
        }
    }
}
