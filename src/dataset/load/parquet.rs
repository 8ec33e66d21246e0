//! Parquet back into rows, one row group at a time.
//!
//! Reading a whole file into one frame held every column of every row at
//! once (tags and FENs too) plus a 64-bit copy of the indices: 5 GB for
//! the human collection's 3.3 million whole-evaluation rows, far more than
//! the 0.8 GB the positions themselves take. A row group at a time, and
//! only the columns a row needs, the frame is a few megabytes.

use std::fs::File;
use std::path::Path;

use polars::prelude::*;

use super::{Consumer, GameIds, Row, game_id_of_float, invalid, io_error, nonzero, stored_phase};
use crate::dataset::{DatasetError, GameResult};

/// Reads `path` (either shape of `extract`'s Parquet) into `consumer`.
pub(super) fn read_parquet(path: &Path, consumer: &mut dyn Consumer, games: &mut GameIds) -> Result<(), DatasetError> {
    let polars_err = |source| DatasetError::Polars { path: path.display().to_string(), source };
    let open = || -> Result<ParquetReader<File>, DatasetError> { Ok(ParquetReader::new(File::open(path).map_err(io_error(path))?)) };
    let mut reader = open()?;
    let metadata = reader.get_metadata().map_err(polars_err)?.clone();
    let names: Vec<String> = reader.schema().map_err(polars_err)?.iter_names().map(|n| n.to_string()).collect();
    let has = |name: &str| names.iter().any(|n| n == name);
    if has("terms") && has("coefs") {
        // A trace is told by its header: without it, the terms have no names.
        let key = crate::dataset::parquet::TRACE_KEY;
        return Err(invalid(
            path,
            format!("'terms' and 'coefs' columns without the '{key}' metadata (a Parquet trace's header: its '# term' lines)"),
        ));
    }
    if !has("result") {
        return Err(invalid(path, "no numeric 'result' column"));
    }
    let value_of = |key: &str| -> Option<&str> { metadata.key_value_metadata().iter().flatten().find(|kv| kv.key == key)?.value.as_deref() };
    // Compact rows are told by their metadata: a user's dense file may
    // well have feature columns called `term` and `count`.
    let compact = value_of("pgntune.shape") == Some("compact") || value_of("pgntune.term_columns").is_some();
    let shape = if compact && has("term") && has("count") {
        Shape::Compact
    } else if has("idx") && has("val") {
        Shape::Expanded
    } else {
        Shape::Dense
    };
    let metadata_json = |key: &str, what: &str| -> Result<serde_json::Value, DatasetError> {
        let text = value_of(key).ok_or_else(|| invalid(path, format!("{what} without the '{key}' metadata")))?;
        serde_json::from_str(text).map_err(|e| invalid(path, format!("its '{key}' metadata is not JSON: {e}")))
    };
    let term_columns: Vec<Vec<usize>> = match shape {
        Shape::Compact => serde_json::from_value(metadata_json("pgntune.term_columns", "compact rows (term, count)")?)
            .map_err(|_| invalid(path, "its 'pgntune.term_columns' metadata is not a list of column lists (whole numbers from 0)"))?,
        _ => Vec::new(),
    };
    let sparse = shape != Shape::Dense;
    let columns: Vec<String> = if sparse {
        // The sparse shapes: columns named in the metadata.
        serde_json::from_value(metadata_json("pgntune.columns", "sparse rows")?)
            .map_err(|_| invalid(path, "its 'pgntune.columns' metadata is not a list of names"))?
    } else {
        // The dense shape: every column before `result` is a feature.
        names[..names.iter().position(|n| n == "result").expect("checked above")].to_vec()
    };
    if let Some((t, bad)) = term_columns.iter().enumerate().find(|(_, c)| c.is_empty() || c.len() > 2 || c.iter().any(|&c| c >= columns.len())) {
        return Err(invalid(
            path,
            format!("'pgntune.term_columns' gives term {t} the columns {bad:?}, not one or two of the {} columns", columns.len()),
        ));
    }
    // Each column belongs to one term: a row could not say which value it means.
    let mut owners = vec![None; columns.len()];
    for (t, cs) in term_columns.iter().enumerate() {
        for &c in cs {
            if let Some(other) = owners[c].replace(t) {
                return Err(invalid(path, format!("'pgntune.term_columns' gives column {c} ('{}') to terms {other} and {t}", columns[c])));
            }
        }
    }
    consumer.columns(path, columns.clone())?;
    let mut wanted: Vec<String> = match shape {
        Shape::Compact => vec!["term".into(), "count".into()],
        Shape::Expanded => vec!["idx".into(), "val".into()],
        Shape::Dense => columns.clone(),
    };
    wanted.extend(["result", "game", "eval", "phase"].into_iter().filter(|&n| has(n)).map(String::from));

    let mut rows = RowsOf { path, columns: &columns, term_columns: &term_columns, shape, first: 0, pairs: Vec::new() };
    for group in &metadata.row_groups {
        let n = group.num_rows();
        if n == 0 {
            continue;
        }
        let mut reader = open()?;
        reader.set_metadata(metadata.clone());
        let frame = reader.with_slice(Some((rows.first, n))).with_columns(Some(wanted.clone())).finish().map_err(polars_err)?;
        rows.read(&frame, consumer, games)?;
        rows.first += n;
    }
    Ok(())
}

/// The shape of a pgntune Parquet file (see `dataset::parquet`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// One column per feature.
    Dense,
    /// `term` and `count` lists, expanded through `pgntune.term_columns`.
    Compact,
    /// `idx` and `val` lists.
    Expanded,
}

/// The rows of one row group after another.
struct RowsOf<'a> {
    path: &'a Path,
    /// The feature columns.
    columns: &'a [String],
    /// Each term's one or two columns (compact rows).
    term_columns: &'a [Vec<usize>],
    shape: Shape,
    /// The file's row number of the group's first row (from 0).
    first: usize,
    pairs: Vec<(usize, f64)>,
}

impl RowsOf<'_> {
    fn read(&mut self, frame: &DataFrame, consumer: &mut dyn Consumer, games: &mut GameIds) -> Result<(), DatasetError> {
        let path = self.path;
        let polars_err = |source| DatasetError::Polars { path: path.display().to_string(), source };
        let has = |name: &str| frame.column(name).is_ok();
        let as_f64 = |name: &str| -> Result<Vec<Option<f64>>, DatasetError> {
            let column = frame.column(name).map_err(polars_err)?;
            let cast = column.cast(&DataType::Float64).map_err(|_| invalid(path, format!("column '{name}' is not numeric")))?;
            Ok(cast.f64().map_err(polars_err)?.iter().collect())
        };
        let results = as_f64("result").map_err(|_| invalid(path, "no numeric 'result' column"))?;
        // The dense shape's `phase` could be a feature column before `result`.
        let phases = if has("phase") && !self.columns.iter().any(|c| c == "phase") { Some(as_f64("phase")?) } else { None };
        let first = self.first;
        let at = |i: usize, msg: String| invalid(path, format!("row {}: {msg}", first + i + 1));
        let game_ids = if has("game") { Some(game_column(frame, path, first)?) } else { None };
        let evals = if has("eval") { Some(as_f64("eval")?) } else { None };
        let mut emit = |i: usize, pairs: &[(usize, f64)], consumer: &mut dyn Consumer| -> Result<(), DatasetError> {
            let score = results[i].ok_or_else(|| at(i, "missing result".into()))?;
            let result = GameResult::from_score(score).ok_or_else(|| at(i, format!("result {score} is not 0, 0.5 or 1")))?;
            let game = game_ids.as_ref().and_then(|g| g[i]);
            let eval = evals.as_ref().and_then(|e| e[i]).map_or(f32::NAN, |e| e as f32);
            let phase = match phases.as_ref().and_then(|p| p[i]) {
                Some(p) => Some(stored_phase(p).map_err(|msg| at(i, msg))?),
                None => None,
            };
            let id = games.id(game);
            consumer.row(Row { values: pairs, result, eval, phase, weight: 1.0 }, id).map_err(|e| at(i, e.to_string()))
        };
        let pairs = &mut self.pairs;
        let list = |name: &str, dtype: DataType| -> Result<ListChunked, DatasetError> {
            let column = frame.column(name).map_err(polars_err)?;
            let cast =
                column.cast(&DataType::List(Box::new(dtype))).map_err(|_| invalid(path, format!("column '{name}' is not a list of numbers")))?;
            Ok(cast.list().map_err(polars_err)?.clone())
        };
        if self.shape == Shape::Compact {
            // Integers only: a cast would truncate a count of 1.5 to 1.
            for name in ["term", "count"] {
                let dtype = frame.column(name).map_err(polars_err)?.dtype();
                if !matches!(dtype, DataType::List(inner) if inner.is_integer()) {
                    return Err(invalid(path, format!("column '{name}' is not a list of integers ({dtype})")));
                }
            }
            let (terms, counts) = (list("term", DataType::Int64)?, list("count", DataType::Int64)?);
            let phases = phases.as_ref().ok_or_else(|| invalid(path, "compact rows (term, count) without a 'phase' column"))?;
            let mut seen = Vec::new();
            for (i, (tx, cx)) in terms.amortized_iter().zip(counts.amortized_iter()).enumerate() {
                let (tx, cx) = (tx.ok_or_else(|| at(i, "missing term".into()))?, cx.ok_or_else(|| at(i, "missing count".into()))?);
                let (tx, cx) = (tx.as_ref().i64().map_err(polars_err)?, cx.as_ref().i64().map_err(polars_err)?);
                if tx.len() != cx.len() {
                    return Err(at(i, format!("{} terms but {} counts", tx.len(), cx.len())));
                }
                let p = phases[i].ok_or_else(|| at(i, "missing phase".into()))?;
                let phase = f64::from(stored_phase(p).map_err(|msg| at(i, msg))?);
                pairs.clear();
                seen.clear();
                for (t, n) in tx.iter().zip(cx.iter()) {
                    let (Some(t), Some(n)) = (t, n) else { return Err(at(i, "missing term or count".into())) };
                    let columns = usize::try_from(t).ok().and_then(|t| self.term_columns.get(t));
                    let (Some(columns), Ok(n)) = (columns, i16::try_from(n)) else {
                        return Err(at(i, format!("term {t} or count {n} out of range ({} terms)", self.term_columns.len())));
                    };
                    seen.push(t);
                    // As `FeatureLayout::sparse_columns` computes them.
                    let v = f64::from(n);
                    match columns[..] {
                        [c] => pairs.push((c, v)),
                        [mg, eg] => pairs.extend([(mg, v * phase / 24.0), (eg, v * (24.0 - phase) / 24.0)]),
                        _ => unreachable!("checked when the metadata was read"),
                    }
                }
                seen.sort_unstable();
                if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
                    return Err(at(i, format!("term {} appears twice", w[0])));
                }
                pairs.retain(|&(_, v)| v != 0.0);
                pairs.sort_unstable_by_key(|&(c, _)| c);
                emit(i, pairs, consumer)?;
            }
            return Ok(());
        }
        if self.shape == Shape::Expanded {
            let (idx, val) = (list("idx", DataType::Int64)?, list("val", DataType::Float64)?);
            let mut seen = Vec::new();
            for (i, (ix, vx)) in idx.amortized_iter().zip(val.amortized_iter()).enumerate() {
                let (ix, vx) = (ix.ok_or_else(|| at(i, "missing idx".into()))?, vx.ok_or_else(|| at(i, "missing val".into()))?);
                let (ix, vx) = (ix.as_ref().i64().map_err(polars_err)?, vx.as_ref().f64().map_err(polars_err)?);
                if ix.len() != vx.len() {
                    return Err(at(i, format!("{} indices but {} values", ix.len(), vx.len())));
                }
                pairs.clear();
                for (j, v) in ix.iter().zip(vx.iter()) {
                    let (Some(j), Some(v)) = (j, v) else { return Err(at(i, "missing index or value".into())) };
                    if j < 0 || j as usize >= self.columns.len() || !v.is_finite() {
                        return Err(at(i, format!("index {j} or value {v} out of range")));
                    }
                    pairs.push((j as usize, v));
                }
                // A column twice: which value is meant cannot be told.
                seen.clear();
                seen.extend(pairs.iter().map(|&(j, _)| j));
                seen.sort_unstable();
                if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
                    return Err(at(i, format!("index {} ('{}') appears twice in idx", w[0], self.columns[w[0]])));
                }
                emit(i, pairs, consumer)?;
            }
            return Ok(());
        }
        let features = self.columns.iter().map(|n| as_f64(n)).collect::<Result<Vec<_>, _>>()?;
        let mut x = vec![0.0; features.len()];
        for i in 0..frame.height() {
            for (j, (v, column)) in x.iter_mut().zip(&features).enumerate() {
                *v = column[i].filter(|v| v.is_finite()).ok_or_else(|| at(i, format!("missing value in column '{}'", self.columns[j])))?;
            }
            nonzero(&x, pairs);
            emit(i, pairs, consumer)?;
        }
        Ok(())
    }
}

/// The `game` column of a frame as integers: an integer column is read as
/// one (ids past 2^53 have no exact float: read as floats, games merged),
/// a float column must hold whole values below 2^53. A missing value is no
/// id; a negative or fractional one is an error naming its row.
pub(in crate::dataset) fn game_column(frame: &DataFrame, path: &Path, first: usize) -> Result<Vec<Option<u64>>, DatasetError> {
    let polars_err = |source| DatasetError::Polars { path: path.display().to_string(), source };
    let column = frame.column("game").map_err(polars_err)?;
    let bad = |i: usize, message: String| invalid(path, format!("row {}: {message}", first + i + 1));
    let dtype = column.dtype();
    if dtype.is_unsigned_integer() {
        let cast = column.cast(&DataType::UInt64).map_err(polars_err)?;
        return Ok(cast.u64().map_err(polars_err)?.iter().collect());
    }
    if dtype.is_signed_integer() {
        let cast = column.cast(&DataType::Int64).map_err(polars_err)?;
        return cast
            .i64()
            .map_err(polars_err)?
            .iter()
            .enumerate()
            .map(|(i, g)| g.map(|g| u64::try_from(g).map_err(|_| bad(i, format!("game id {g} is not a whole number of at least 0")))).transpose())
            .collect();
    }
    let cast = column.cast(&DataType::Float64).map_err(|_| invalid(path, "column 'game' is not numeric"))?;
    cast.f64().map_err(polars_err)?.iter().enumerate().map(|(i, g)| g.map(|g| game_id_of_float(g).map_err(|m| bad(i, m))).transpose()).collect()
}
