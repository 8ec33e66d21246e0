//! Parquet through polars, in one of two shapes:
//!
//! * dense, for layouts of at most [`DENSE_COLUMNS`] columns: the same
//!   columns as CSV, typed (features `Int32` for untapered layouts, `Float64`
//!   for tapered ones);
//! * sparse, for wider layouts (a whole evaluation), in one of two shapes
//!   ([`SparseShape`]): compact (the default), the rows as pgntune holds
//!   them, `term` (`List<Int32>`, the non-zero terms), `count`
//!   (`List<Int32>`, their counts) and `phase` (`Int32`, 0-24), with each
//!   term's columns under `pgntune.term_columns`; or expanded, `idx`
//!   (`List<Int32>`, the 0-based feature columns that are non-zero) and
//!   `val` (`List<Float64>`, their design values), plus `phase` (`Int32`).
//!   The column names are in the file's key-value metadata under
//!   `pgntune.columns` (a JSON array), the layout under `pgntune.layout`,
//!   the shape under `pgntune.shape`. pandas, polars and Spark read the
//!   list columns as arrays; a Spark `SparseVector(len(columns), idx, val)`
//!   is one expanded row of the design matrix.
//!
//! Both then have `result` (`Float64`: 0, 0.5, 1), `game` (`Int64`), `ply`
//! (`Int32`), the dense shape of a tapered layout `phase` (`Int32`), `eval` (`Float64`, null where a row has no label; only when
//! labels were read), the kept tags and the FEN (strings).
//!
//! Rows are buffered into row groups of [`ROW_GROUP`] rows
//! ([`SPARSE_ROW_GROUP`] in the sparse shape), so memory stays
//! bounded and the file layout does not depend on how extraction batched
//! its work. Row groups are encoded and compressed on background threads
//! ([`encoders`]) and written in order, so the bytes do not depend on the
//! number of threads either.

mod compact;
mod encoders;

/// The key-value metadata key holding a Parquet trace's header (see
/// `dataset::trace`); here, below the readers of both kinds of Parquet.
pub const TRACE_KEY: &str = "pgntune.trace";

use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use polars::prelude::*;

use self::encoders::{EncodedGroup, Encoders, Plan};
use super::{DatasetError, RowBatch, RowWriter, Schema, SparseShape};
use crate::atomic::AtomicFile;

/// Rows per Parquet row group of a dense layout (at most 64 columns).
const ROW_GROUP: usize = 1 << 17;

/// Rows per row group of a sparse layout. A whole evaluation's row is
/// about 70 list values (0.8 KB as the encoder first lays them out), so a
/// group is some 13 MB, which stays in the cache while it is encoded;
/// groups of 2^17 rows made the human collection's `extract -j 2` take
/// 9.4 s instead of 6.5 s and 1.09 GB instead of 0.47 (the file is 0.1%
/// larger).
/// (Unit tests use small groups, to write many from few rows.)
const SPARSE_ROW_GROUP: usize = if cfg!(test) { 700 } else { 1 << 14 };

/// Layouts up to this many columns are written dense, wider ones sparse.
pub const DENSE_COLUMNS: usize = 64;

/// Whether rows of `schema` are written in the sparse shape.
pub fn is_sparse(schema: &Schema) -> bool {
    schema.layout.len() > DENSE_COLUMNS
}

pub(super) struct ParquetRowWriter {
    file: AtomicFile,
    writer: polars::io::parquet::write::BatchedWriter<WatchedFile>,
    /// Set when a write failed because the reader of a pipe went away.
    broken_pipe: Arc<AtomicBool>,
    encoders: Encoders,
    schema: Schema,
    pending: RowBatch,
    /// Rows per row group.
    row_group: usize,
}

fn polars_err(path: &Path) -> impl Fn(PolarsError) -> DatasetError + '_ {
    move |source| DatasetError::Polars { path: path.display().to_string(), source }
}

/// The file polars writes to, watched for a closed pipe: polars turns the
/// `io::Error` into a Thrift transport error without its kind, and a
/// reader that stops early (`| head`) should end the command quietly, as
/// it does for the other formats.
struct WatchedFile {
    file: File,
    broken_pipe: Arc<AtomicBool>,
}

impl std::io::Write for WatchedFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf).inspect_err(|e| self.note(e))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush().inspect_err(|e| self.note(e))
    }
}

impl WatchedFile {
    fn note(&self, error: &std::io::Error) {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            self.broken_pipe.store(true, Ordering::Relaxed);
        }
    }
}

/// Turns a batch into a polars DataFrame with the dataset's column types.
pub fn batch_to_frame(batch: &RowBatch, schema: &Schema) -> PolarsResult<DataFrame> {
    frame_of(batch, schema, FrameLists::Included)
}

/// Whether a frame of the compact shape holds its `term` and `count` lists.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum FrameLists {
    Included,
    /// Left out: the writer encodes them from the batch ([`compact`]).
    Omitted,
}

/// The frame of `batch`, with or without the compact shape's lists.
fn frame_of(batch: &RowBatch, schema: &Schema, lists: FrameLists) -> PolarsResult<DataFrame> {
    let n = batch.len();
    let mut columns: Vec<Column> = Vec::with_capacity(schema.features.len() + 3 + schema.tags.len() + 1);
    let layout = &schema.layout;
    let mut dense = vec![0.0; layout.len()];
    if is_sparse(schema) && schema.sparse_shape == SparseShape::Compact && lists == FrameLists::Omitted {
        columns.push(Column::new("phase".into(), batch.phases.iter().map(|&p| i32::from(p)).collect::<Vec<i32>>()));
    } else if is_sparse(schema) && schema.sparse_shape == SparseShape::Compact {
        // The rows as they are held: a term and its count, two lists of
        // small integers, and the phase once (see `term_columns_json`).
        // (Int32: Parquet stores every small integer as INT32, and polars'
        // narrower types are features that would cost minutes of build.)
        let entries = batch.terms.len();
        let mut term = ListPrimitiveChunkedBuilder::<Int32Type>::new("term".into(), n, entries, DataType::Int32);
        let mut count = ListPrimitiveChunkedBuilder::<Int32Type>::new("count".into(), n, entries, DataType::Int32);
        for i in 0..n {
            let row = batch.row_terms(i);
            term.append_values_iter(row.iter().map(|e| i32::from(e.term)));
            count.append_values_iter(row.iter().map(|e| i32::from(e.value)));
        }
        columns.push(list_column(term.finish(), DataType::Int32)?);
        columns.push(list_column(count.finish(), DataType::Int32)?);
        columns.push(Column::new("phase".into(), batch.phases.iter().map(|&p| i32::from(p)).collect::<Vec<i32>>()));
    } else if is_sparse(schema) {
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
    if !is_sparse(schema) && layout.is_tapered() {
        // As CSV: a row with no tapered term has no phase in its features.
        columns.push(Column::new("phase".into(), batch.phases.iter().map(|&p| i32::from(p)).collect::<Vec<i32>>()));
    }
    if schema.eval {
        let evals: Vec<Option<f64>> = batch.evals.iter().map(|&e| (!e.is_nan()).then_some(f64::from(e))).collect();
        columns.push(Column::new("eval".into(), evals));
    }
    for (name, values) in schema.tags.iter().zip(&batch.tags) {
        columns.push(StringChunked::from_iter_values(name.as_str().into(), values.iter()).into_column());
    }
    if schema.fen {
        columns.push(StringChunked::from_iter_values("fen".into(), batch.fens.iter()).into_column());
    }
    DataFrame::new(n, columns)
}

/// Each term's columns as JSON, in term order: `[mg, eg]` (0-based) for a
/// tapered term, `[c]` for an untapered one. A compact row's term `t` with
/// count `n` at phase `p` is `n·p/24` in column `mg` and `n·(24 − p)/24`
/// in column `eg` (or `n` in column `c`): what a reader needs to expand the
/// rows into the design matrix without knowing pgntune's layouts.
pub fn term_columns_json(layout: &crate::features::FeatureLayout) -> String {
    use crate::features::TermColumns;
    let columns: Vec<Vec<usize>> = layout
        .all_term_columns()
        .into_iter()
        .map(|c| match c {
            TermColumns::Single(c) => vec![c],
            TermColumns::Tapered { mg, eg } => vec![mg, eg],
        })
        .collect();
    serde_json::to_string(&columns).expect("numbers serialise")
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
    /// A writer of `schema`'s rows to `path`, encoding row groups on
    /// `threads` threads (0: one per core; 1: on the caller's thread).
    pub(super) fn create(path: &Path, schema: &Schema, threads: usize) -> Result<ParquetRowWriter, DatasetError> {
        let mut file = AtomicFile::create(path)?;
        let broken_pipe = Arc::new(AtomicBool::new(false));
        let handle =
            WatchedFile { file: file.clone_handle().map_err(|e| crate::atomic::OutputError::new(path, e))?, broken_pipe: Arc::clone(&broken_pipe) };
        let empty = batch_to_frame(&RowBatch::new(schema), schema).map_err(polars_err(path))?;
        let mut pairs = vec![
            ("pgntune.layout".to_string(), schema.layout.spec()),
            ("pgntune.columns".to_string(), serde_json::to_string(&schema.features).expect("names serialise")),
        ];
        if is_sparse(schema) {
            let shape = match schema.sparse_shape {
                SparseShape::Compact => "compact",
                SparseShape::Expanded => "expanded",
            };
            pairs.push(("pgntune.shape".to_string(), shape.to_string()));
            pairs.push(("pgntune.term_columns".to_string(), term_columns_json(&schema.layout)));
        }
        if let Some(provenance) = &schema.provenance {
            pairs.push(("pgntune.labels".to_string(), provenance.clone()));
        }
        let metadata = polars::io::parquet::write::KeyValueMetadata::from_static(pairs);
        let compression = ParquetCompression::Zstd(None);
        let statistics = StatisticsOptions::default();
        let mut writer = ParquetWriter::new(handle)
            .with_compression(compression)
            .with_statistics(statistics)
            .with_key_value_metadata(Some(metadata))
            .batched(empty.schema())
            .map_err(polars_err(path))?;
        // The encoders use the writer's own leaf types and encodings, and
        // the options it materialises from the same settings.
        let arrow_schema = empty.schema().to_arrow(CompatLevel::newest());
        let fields = writer.parquet_schema().fields().to_vec();
        let compact_lists = if is_sparse(schema) && schema.sparse_shape == SparseShape::Compact {
            Some([compact::ListLeaf::of(&fields[0]).map_err(polars_err(path))?, compact::ListLeaf::of(&fields[1]).map_err(polars_err(path))?])
        } else {
            None
        };
        let plan = Plan {
            schema: schema.clone(),
            compact_lists,
            fields,
            encodings: polars::io::parquet::write::get_encodings(&arrow_schema).to_vec(),
            options: polars_parquet::write::WriteOptions {
                statistics,
                compression: compression.into(),
                version: polars_parquet::write::Version::V1,
                data_page_size: None,
            },
        };
        let encoders = Encoders::new(plan, crate::thread_count(threads));
        let row_group = if is_sparse(schema) { SPARSE_ROW_GROUP } else { ROW_GROUP };
        Ok(ParquetRowWriter { file, writer, broken_pipe, encoders, schema: schema.clone(), pending: RowBatch::new(schema), row_group })
    }

    /// Hands the pending rows to the encoders and starts `next` in their place.
    fn flush_pending(&mut self, next: RowBatch) -> Result<(), DatasetError> {
        let rows = std::mem::replace(&mut self.pending, next);
        if rows.is_empty() {
            return Ok(());
        }
        let writer = &mut self.writer;
        let written = self.encoders.submit(rows, &mut |group| write_group(writer, group));
        written.map_err(|e| self.error(e))
    }

    /// A polars error as a dataset error, or the closed pipe it hides.
    fn error(&self, source: PolarsError) -> DatasetError {
        let path = self.file.target().display().to_string();
        if self.broken_pipe.load(Ordering::Relaxed) {
            return DatasetError::Io { path, source: std::io::ErrorKind::BrokenPipe.into() };
        }
        DatasetError::Polars { path, source }
    }
}

/// Appends one encoded row group to the file.
fn write_group(writer: &mut polars::io::parquet::write::BatchedWriter<WatchedFile>, group: EncodedGroup) -> PolarsResult<()> {
    writer.write_row_group(group.rows, &group.columns)
}

impl RowWriter for ParquetRowWriter {
    fn write(&mut self, batch: &RowBatch) -> Result<(), DatasetError> {
        // Whole groups only, so that where they end does not depend on how
        // the rows came in; each group is copied once, however large the
        // batch (a labelled set arrives as one).
        let mut next = 0;
        while next < batch.len() {
            let take = (self.row_group - self.pending.len()).min(batch.len() - next);
            self.pending.append_rows(batch, next..next + take);
            next += take;
            if self.pending.len() == self.row_group {
                let room = self.pending.empty_with_room(self.row_group);
                self.flush_pending(room)?;
            }
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<(), DatasetError> {
        self.flush_pending(RowBatch::new(&self.schema))?;
        let writer = &mut self.writer;
        let written = self.encoders.finish(&mut |group| write_group(writer, group));
        written.map_err(|e| self.error(e))?;
        let finished = self.writer.finish();
        finished.map_err(|e| self.error(e))?;
        Ok(self.file.commit()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::{ExtractConfig, InputSource, extract, extract::NoProgress};

    /// pgntune's own self-play games, the whole evaluation's rows.
    fn selfplay_rows() -> (Schema, RowBatch) {
        let config = ExtractConfig { layout: crate::features::FeatureLayout::parse("full").unwrap(), ..ExtractConfig::default() };
        let schema = config.schema();
        let mut all = RowBatch::new(&schema);
        let input = InputSource::from_arg(concat!(env!("CARGO_MANIFEST_DIR"), "/data/selfplay.pgn.zst"));
        extract(&[input], &config, &NoProgress, |b| {
            all.append(b);
            Ok(())
        })
        .unwrap();
        (schema, all)
    }

    fn write(path: &Path, schema: &Schema, rows: &RowBatch, threads: usize) {
        let mut writer: Box<dyn RowWriter> = Box::new(ParquetRowWriter::create(path, schema, threads).unwrap());
        // In uneven pieces, as extraction delivers them.
        let mut piece = RowBatch::new(schema);
        for i in 0..rows.len() {
            piece.push_features(rows.row_terms(i), rows.phases[i]);
            piece.results.push(rows.results[i]);
            piece.games.push(rows.games[i]);
            piece.plies.push(rows.plies[i]);
            if piece.len() == 333 {
                writer.write(&piece).unwrap();
                piece.clear();
            }
        }
        writer.write(&piece).unwrap();
        writer.finish().unwrap();
    }

    #[test]
    fn row_groups_encoded_on_threads_come_out_in_order_with_the_same_bytes() {
        let (schema, rows) = selfplay_rows();
        assert!(is_sparse(&schema));
        assert!(rows.len() > 20 * SPARSE_ROW_GROUP, "{} rows", rows.len());
        for shape in [SparseShape::Compact, SparseShape::Expanded] {
            let schema = Schema { sparse_shape: shape, ..schema.clone() };
            let dir = tempfile::tempdir().unwrap();
            let (inline, threaded) = (dir.path().join("1.parquet"), dir.path().join("3.parquet"));
            write(&inline, &schema, &rows, 1);
            write(&threaded, &schema, &rows, 3);
            assert!(std::fs::read(&inline).unwrap() == std::fs::read(&threaded).unwrap(), "{shape:?}: the bytes depend on the threads");

            let file = File::open(&threaded).unwrap();
            let mut reader = ParquetReader::new(file);
            assert_eq!(reader.num_rows().unwrap(), rows.len());
            let metadata = reader.get_metadata().unwrap().clone();
            assert_eq!(metadata.row_groups.len(), rows.len().div_ceil(SPARSE_ROW_GROUP));
            let value_of = |key: &str| {
                let pairs = metadata.key_value_metadata().as_ref().unwrap();
                pairs.iter().find(|kv| kv.key == key).and_then(|kv| kv.value.clone()).unwrap_or_else(|| panic!("no {key}"))
            };
            let frame = reader.finish().unwrap();
            let games: Vec<i64> = frame.column("game").unwrap().i64().unwrap().into_no_null_iter().collect();
            let plies: Vec<i32> = frame.column("ply").unwrap().i32().unwrap().into_no_null_iter().collect();
            assert_eq!(games, rows.games.iter().map(|&g| g as i64).collect::<Vec<_>>());
            assert_eq!(plies, rows.plies.iter().map(|&p| p as i32).collect::<Vec<_>>());
            let phases: Vec<i32> = frame.column("phase").unwrap().i32().unwrap().into_no_null_iter().collect();
            assert_eq!(phases, rows.phases.iter().map(|&p| i32::from(p)).collect::<Vec<_>>());
            let mut pairs = Vec::new();
            match shape {
                SparseShape::Compact => {
                    assert_eq!(value_of("pgntune.shape"), "compact");
                    // Every row's lists are its terms and counts, and the
                    // metadata's term columns expand them into its design row.
                    let term_columns: Vec<Vec<usize>> = serde_json::from_str(&value_of("pgntune.term_columns")).unwrap();
                    assert_eq!(term_columns.len(), schema.layout.term_count());
                    let (terms, counts) = (frame.column("term").unwrap().list().unwrap(), frame.column("count").unwrap().list().unwrap());
                    for (i, (t, c)) in terms.amortized_iter().zip(counts.amortized_iter()).enumerate() {
                        let t: Vec<i32> = t.unwrap().as_ref().i32().unwrap().into_no_null_iter().collect();
                        let c: Vec<i32> = c.unwrap().as_ref().i32().unwrap().into_no_null_iter().collect();
                        let row = rows.row_terms(i);
                        assert_eq!(t, row.iter().map(|e| i32::from(e.term)).collect::<Vec<_>>(), "row {i}");
                        assert_eq!(c, row.iter().map(|e| i32::from(e.value)).collect::<Vec<_>>(), "row {i}");
                        let p = f64::from(rows.phases[i]);
                        let mut expanded: Vec<(usize, f64)> = t
                            .iter()
                            .zip(&c)
                            .flat_map(|(&t, &n)| match term_columns[t as usize][..] {
                                [c] => vec![(c, f64::from(n))],
                                [mg, eg] => vec![(mg, f64::from(n) * p / 24.0), (eg, f64::from(n) * (24.0 - p) / 24.0)],
                                _ => panic!("term {t}: {:?}", term_columns[t as usize]),
                            })
                            .filter(|&(_, v)| v != 0.0)
                            .collect();
                        expanded.sort_by_key(|&(c, _)| c);
                        schema.layout.sparse_columns(row, rows.phases[i], &mut pairs);
                        assert_eq!(expanded, pairs, "row {i}");
                    }
                }
                SparseShape::Expanded => {
                    assert_eq!(value_of("pgntune.shape"), "expanded");
                    // Every row's list values are its sparse design row.
                    let (idx, val) = (frame.column("idx").unwrap().list().unwrap(), frame.column("val").unwrap().list().unwrap());
                    for (i, (idx, val)) in idx.amortized_iter().zip(val.amortized_iter()).enumerate() {
                        schema.layout.sparse_columns(rows.row_terms(i), rows.phases[i], &mut pairs);
                        let idx: Vec<i32> = idx.unwrap().as_ref().i32().unwrap().into_no_null_iter().collect();
                        let val: Vec<f64> = val.unwrap().as_ref().f64().unwrap().into_no_null_iter().collect();
                        assert_eq!(idx, pairs.iter().map(|p| p.0 as i32).collect::<Vec<_>>(), "row {i}");
                        assert_eq!(val, pairs.iter().map(|p| p.1).collect::<Vec<_>>(), "row {i}");
                    }
                }
            }
            // And pgntune reads every group back, one at a time.
            let options = crate::dataset::load::LoadOptions { epd_layout: schema.layout.clone(), strict: true };
            let (positions, _) = crate::dataset::load::load_positions(&[&threaded], &options).unwrap();
            assert_eq!(positions.len(), rows.len());
            for i in 0..rows.len() {
                let mut want = rows.row_terms(i).to_vec();
                want.sort();
                assert_eq!(positions.terms(i), want, "{shape:?} row {i}");
                assert_eq!(positions.game(i), rows.games[i], "{shape:?} row {i}");
            }
        }
    }
}
