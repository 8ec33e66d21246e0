//! Reading datasets back: every format `pgntune extract` writes (`.mat`,
//! `.csv`, `.tsv`, dense or sparse `.parquet`, Octave text, `.ijv`
//! triplets, `.svm` LIBSVM lines, `.epd`), pgnlearn's own `.mat` files,
//! and other engines' traces, text or Parquet ([`super::trace`]).
//!
//! Readers turn each file into rows of non-zero `(column, value)` pairs
//! with a result, a game id and an optional evaluation label, and hand
//! them to a consumer:
//!
//! * [`load`] merges identical rows for the dense fitter ([`MergedRows`]),
//!   whatever the columns are called;
//! * [`load_positions`] keeps every row as a training position
//!   ([`Positions`]), which needs columns that are pgntune feature sets
//!   (checked against the layout, value by value, by [`ColumnDecoder`]).
//!
//! In CSV, TSV and dense Parquet the feature columns are the columns before
//! `result` (0, 0.5 or 1); `game` groups rows by game; `eval` is the
//! label. A CSV or TSV with `wins`, `draws` and `losses` columns in place
//! of `result` holds merged rows: each line a distinct feature vector (the
//! columns before them) with white's wins, draws and losses there, as the
//! Spark job's aggregation (`scale/spark`) writes them. In `.mat` files the last number is the result code (0 black won,
//! 1 draw, 2 white won); five features are named P N B R Q. Game ids of
//! each file are offset past the previous files' ids.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use self::delimited::read_delimited;
use self::parquet::read_parquet;
use super::columns::{ColumnDecoder, RowError};
use super::epd::{EpdProblem, read_epd};
use super::merged::{MergedRows, RowMerger};
use super::positions::Positions;
use super::svm::read_svm;
use super::triplets::read_triplets;
use super::{DatasetError, GameResult, RowBatch};
use crate::features::{FeatureLayout, TermValue};

/// One row as a reader hands it over.
struct Row<'a> {
    /// Non-zero feature values by column.
    values: &'a [(usize, f64)],
    result: GameResult,
    eval: f32,
    /// How many rows of this result it stands for (a merged row's count).
    weight: f64,
    /// The game phase the file stores (Parquet's `phase`), if any.
    phase: Option<u8>,
}

/// What readers feed.
trait Consumer {
    /// A file's feature columns (checked against earlier files).
    fn columns(&mut self, path: &Path, columns: Vec<String>) -> Result<(), DatasetError>;
    /// One row; the readers add the file and the row's line to its error.
    fn row(&mut self, row: Row, game: Option<u64>) -> Result<(), RowError>;
    /// Rows already in terms (triplets, EPD), with game ids offset by `game_base`.
    fn batch(&mut self, path: &Path, layout: &FeatureLayout, batch: &RowBatch, game_base: u64) -> Result<(), DatasetError>;
    /// The rows of a batch had no game ids (EPD's are line numbers).
    fn games_unknown(&mut self) {}
}

/// Options of [`load_positions`].
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// The feature layout of positions read from EPD files (which carry no features).
    pub epd_layout: FeatureLayout,
    /// Stop at the first bad EPD line instead of skipping it.
    pub strict: bool,
}

/// Lines skipped while reading (EPD), for the report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// Lines skipped.
    pub bad_lines: u64,
    /// The first of them: file, line, why.
    pub problems: Vec<(String, EpdProblem)>,
    /// Rows of a tapered layout whose phase is unknown: no tapered term is
    /// non-zero (equal material, say) and the file stores no phase. The
    /// fit does not need it; a mean phase over the rows does.
    pub without_phase: u64,
}

/// Reads `paths` into merged rows. `track_games` keeps per-game membership
/// for bootstrap and holdout.
pub fn load(paths: &[impl AsRef<Path>], track_games: bool) -> Result<MergedRows, DatasetError> {
    let mut consumer = MergeConsumer { merger: None, track_games, x: Vec::new() };
    let options = LoadOptions { epd_layout: FeatureLayout::default(), strict: false };
    read_all(paths, &options, &mut consumer)?;
    Ok(consumer.merger.map(RowMerger::finish).unwrap_or_default())
}

/// Reads `paths` into training positions; their columns must be pgntune
/// feature sets (EPD files take `options.epd_layout`).
pub fn load_positions(paths: &[impl AsRef<Path>], options: &LoadOptions) -> Result<(Positions, LoadReport), DatasetError> {
    let mut consumer = PositionConsumer { positions: None, decoder: None, terms: Vec::new(), without_phase: 0, games_unknown: false };
    let mut report = read_all(paths, options, &mut consumer)?;
    report.without_phase = consumer.without_phase;
    let mut positions = match consumer.positions {
        Some(p) => p,
        None => Positions::new(options.epd_layout.clone()).map_err(|e| DatasetError::Invalid { path: String::new(), message: e.to_string() })?,
    };
    if consumer.games_unknown {
        positions.set_games_unknown();
    }
    positions.shrink_to_fit();
    Ok((positions, report))
}

/// The formats a dataset file can be in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Mat,
    Octave,
    Delimited(u8),
    Parquet,
    Triplets,
    Svm,
    Epd,
    Trace,
    ParquetTrace,
}

/// Tells the format from the extension, and Octave's text format by its
/// first line (an Octave export may well be named `.mat`, Octave's own
/// extension).
fn kind_of(path: &Path) -> Result<Kind, DatasetError> {
    let mut head = [0u8; 64];
    let n = File::open(path).and_then(|mut f| f.read(&mut head)).map_err(io_error(path))?;
    let head = &head[..n];
    if head.starts_with(b"# Created by") || head.starts_with(b"# name:") {
        return Ok(Kind::Octave);
    }
    if head.starts_with(b"PAR1") {
        // A trace by its metadata, whatever the file's name.
        return Ok(if super::trace::is_parquet_trace(path)? { Kind::ParquetTrace } else { Kind::Parquet });
    }
    if head.starts_with(super::trace::HEADER.as_bytes()) || path.extension().is_some_and(|e| e.eq_ignore_ascii_case("trace")) {
        return Ok(Kind::Trace);
    }
    use super::format::Format;
    Ok(match Format::from_path(path) {
        Some(Format::Mat) => Kind::Mat,
        Some(Format::Csv) => Kind::Delimited(b','),
        Some(Format::Tsv) => Kind::Delimited(b'\t'),
        Some(Format::Parquet) => Kind::Parquet,
        Some(Format::Ijv) => Kind::Triplets,
        Some(Format::Svm) => Kind::Svm,
        Some(Format::Epd) => Kind::Epd,
        Some(Format::Octave) => Kind::Octave,
        None => return Err(invalid(path, "unknown dataset format (use .mat, .csv, .tsv, .parquet, .ijv, .svm, .epd or an Octave text export)")),
    })
}

fn read_all(paths: &[impl AsRef<Path>], options: &LoadOptions, consumer: &mut dyn Consumer) -> Result<LoadReport, DatasetError> {
    let mut report = LoadReport::default();
    let mut games = GameIds::default();
    for path in paths {
        let path = path.as_ref();
        let kind = kind_of(path)?;
        match kind {
            Kind::Mat => read_mat(path, consumer)?,
            Kind::Octave => read_octave(path, consumer, &mut games)?,
            Kind::Delimited(sep) => read_delimited(path, sep, consumer, &mut games)?,
            Kind::Parquet => read_parquet(path, consumer, &mut games)?,
            Kind::Triplets | Kind::Svm | Kind::Trace | Kind::ParquetTrace => {
                let base = games.offset;
                let read = match kind {
                    Kind::Svm => read_svm,
                    Kind::ParquetTrace => super::trace::read_parquet_trace,
                    Kind::Trace => super::trace::read_trace,
                    _ => read_triplets,
                };
                read(path, &mut |layout, batch| {
                    games.see(batch.games.iter().copied().max());
                    consumer.batch(path, layout, batch, base)
                })?;
            }
            Kind::Epd => {
                let base = games.offset;
                consumer.games_unknown();
                let (bad, problems) = read_epd(path, &options.epd_layout, options.strict, &mut |batch| {
                    games.see(batch.games.iter().copied().max());
                    consumer.batch(path, &options.epd_layout, batch, base)
                })?;
                report.bad_lines += bad;
                report.problems.extend(problems.into_iter().map(|p| (path.display().to_string(), p)).take(10 - report.problems.len().min(10)));
            }
        }
        games.next_file();
    }
    Ok(report)
}

/// Game ids made unique across files.
#[derive(Default)]
struct GameIds {
    offset: u64,
    next: u64,
}

impl GameIds {
    /// The combined id of a file's game id (None for a missing id).
    fn id(&mut self, game: Option<u64>) -> Option<u64> {
        let id = self.offset.saturating_add(game?);
        self.next = self.next.max(id.saturating_add(1));
        Some(id)
    }

    fn see(&mut self, max: Option<u64>) {
        self.id(max);
    }

    fn next_file(&mut self) {
        self.offset = self.next;
    }
}

/// A game id written as text: a whole number of at least 0, read as an
/// integer (ids past 2^53 have no exact float: read as floats, games
/// merged), or a float with a whole value below 2^53 (`12.0`).
fn game_id(text: &str) -> Result<u64, String> {
    match (text.parse::<u64>(), text.parse::<f64>()) {
        (Ok(id), _) => Ok(id),
        (_, Ok(v)) => game_id_of_float(v),
        _ => Err(format!("game id '{text}' is not a whole number of at least 0")),
    }
}

/// A game id stored as a float: whole, at least 0 and exact (below 2^53).
pub(super) fn game_id_of_float(v: f64) -> Result<u64, String> {
    if !(v >= 0.0 && v.fract() == 0.0) {
        Err(format!("game id {v} is not a whole number of at least 0"))
    } else if v >= 9_007_199_254_740_992.0 {
        Err(format!("game id {v} is past 2^53 as a float, where ids are not exact: write game ids as integers"))
    } else {
        Ok(v as u64)
    }
}

fn invalid(path: &Path, message: impl Into<String>) -> DatasetError {
    DatasetError::Invalid { path: path.display().to_string(), message: message.into() }
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> DatasetError + '_ {
    move |source| DatasetError::Io { path: path.display().to_string(), source }
}

/// A stored phase: a whole number from 0 to 24.
fn stored_phase(value: f64) -> Result<u8, String> {
    if value.fract() == 0.0 && (0.0..=24.0).contains(&value) {
        Ok(value as u8)
    } else {
        Err(format!("phase {value} is not a whole number from 0 to 24"))
    }
}

/// The non-zero entries of a dense row.
fn nonzero(x: &[f64], out: &mut Vec<(usize, f64)>) {
    out.clear();
    out.extend(x.iter().enumerate().filter(|&(_, &v)| v != 0.0).map(|(j, &v)| (j, v)));
}

fn read_mat(path: &Path, consumer: &mut dyn Consumer) -> Result<(), DatasetError> {
    let file = super::text::open(path).map_err(io_error(path))?;
    let mut width: Option<usize> = None;
    let mut pairs = Vec::new();
    let mut x = Vec::new();
    for (n, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| invalid(path, super::text::line_error(n as u64 + 1, &e)))?;
        let at = |msg: String| invalid(path, format!("line {}: {msg}", n + 1));
        if line.trim().is_empty() {
            continue;
        }
        let numbers =
            line.split_whitespace().map(|t| t.parse::<i64>().map_err(|_| at(format!("'{t}' is not an integer")))).collect::<Result<Vec<i64>, _>>()?;
        let w = match width {
            Some(w) => w,
            None => {
                let w = numbers.len();
                if w < 2 {
                    return Err(at(format!("expected features and a result, found {w} number")));
                }
                // The first line fixes (and checks) the file's columns.
                let columns = if w - 1 == 5 {
                    crate::features::material::Material::COLUMNS.map(String::from).to_vec()
                } else {
                    (1..w).map(|i| format!("x{i}")).collect()
                };
                consumer.columns(path, columns)?;
                width = Some(w);
                w
            }
        };
        if numbers.len() != w {
            return Err(at(format!("expected {w} numbers like the first line, found {}", numbers.len())));
        }
        let code = numbers[w - 1];
        let result = GameResult::from_mat_code(code).ok_or_else(|| at(format!("result code {code} is not 0, 1 or 2")))?;
        x.clear();
        x.extend(numbers[..w - 1].iter().map(|&v| v as f64));
        nonzero(&x, &mut pairs);
        consumer.row(Row { values: &pairs, result, eval: f32::NAN, weight: 1.0, phase: None }, None).map_err(|e| at(e.to_string()))?;
    }
    Ok(())
}

/// Octave text as `extract --format octave` writes it: `X` (features), `y`
/// (white's score), `game`, and the column names `features`. Read twice,
/// so that only `y` and `game` are held in memory.
fn read_octave(path: &Path, consumer: &mut dyn Consumer, games: &mut GameIds) -> Result<(), DatasetError> {
    let (mut scores, mut game_ids, mut columns) = (Vec::new(), Vec::new(), Vec::new());
    octave_items(path, |item| {
        match item {
            OctaveItem::Row("y", v) => scores.push(v[0]),
            OctaveItem::Row("game", v) => game_ids.push(v[0]),
            OctaveItem::Text("features", name) => columns.push(name.to_string()),
            _ => {}
        }
        Ok(())
    })?;
    if columns.is_empty() {
        return Err(invalid(path, "Octave text without the 'features' names (not written by pgntune extract --format octave)"));
    }
    let width = columns.len();
    consumer.columns(path, columns)?;
    let mut row = 0usize;
    let mut pairs = Vec::new();
    octave_items(path, |item| {
        let OctaveItem::Row("X", x) = item else { return Ok(()) };
        let at = |msg: String| invalid(path, format!("row {} of X: {msg}", row + 1));
        if x.len() != width {
            return Err(at(format!("{} columns, but {width} feature names", x.len())));
        }
        let score = *scores.get(row).ok_or_else(|| at("no result in y".into()))?;
        let result = GameResult::from_score(score).ok_or_else(|| at(format!("result {score} is not 0, 0.5 or 1")))?;
        let game = match game_ids.get(row) {
            Some(&g) => Some(game_id_of_float(g).map_err(&at)?),
            None => None,
        };
        let id = games.id(game);
        nonzero(x, &mut pairs);
        consumer.row(Row { values: &pairs, result, eval: f32::NAN, weight: 1.0, phase: None }, id).map_err(|e| at(e.to_string()))?;
        row += 1;
        Ok(())
    })?;
    if row != scores.len() {
        return Err(invalid(path, format!("{row} rows in X but {} results in y", scores.len())));
    }
    Ok(())
}

/// One variable of an Octave text file, as far as the reader needs it.
enum OctaveItem<'a> {
    /// A row of the numeric matrix `name`.
    Row(&'a str, &'a [f64]),
    /// An element of the string array `name`.
    Text(&'a str, &'a str),
}

/// Walks the variables of an Octave text file, calling `visit` for every
/// matrix row and string element.
fn octave_items(path: &Path, mut visit: impl FnMut(OctaveItem<'_>) -> Result<(), DatasetError>) -> Result<(), DatasetError> {
    let file = super::text::open(path).map_err(io_error(path))?;
    let mut lines = BufReader::new(file).lines().enumerate();
    let mut name = String::new();
    let mut numbers = Vec::new();
    while let Some((n, line)) = lines.next() {
        let line = line.map_err(|e| invalid(path, super::text::line_error(n as u64 + 1, &e)))?;
        let at = |msg: String| invalid(path, format!("line {}: {msg}", n + 1));
        let header = |key: &str| line.strip_prefix("# ").and_then(|l| l.strip_prefix(key)).map(|v| v.trim().to_string());
        if let Some(v) = header("name:") {
            name = v;
        } else if let Some(rows) = header("rows:") {
            let rows: u64 = rows.parse().map_err(|_| at(format!("'{rows}' is not a row count")))?;
            let Some((_, Ok(columns))) = lines.next() else { return Err(at("a matrix without its column count".into())) };
            let columns: usize = columns
                .strip_prefix("# columns:")
                .and_then(|c| c.trim().parse().ok())
                .ok_or_else(|| at("a matrix without its column count".into()))?;
            for _ in 0..rows {
                let Some((m, row)) = lines.next() else { return Err(at(format!("matrix '{name}' ends before its {rows} rows"))) };
                let row = row.map_err(io_error(path))?;
                numbers.clear();
                for t in row.split_whitespace() {
                    numbers.push(
                        t.parse::<f64>()
                            .ok()
                            .filter(|v| v.is_finite())
                            .ok_or_else(|| invalid(path, format!("line {}: '{t}' is not a number", m + 1)))?,
                    );
                }
                if numbers.len() != columns {
                    return Err(invalid(path, format!("line {}: {} numbers in a matrix of {columns} columns", m + 1, numbers.len())));
                }
                visit(OctaveItem::Row(&name, &numbers))?;
            }
        } else if let Some(elements) = header("elements:") {
            let elements: u64 = elements.parse().map_err(|_| at(format!("'{elements}' is not an element count")))?;
            for _ in 0..elements {
                let (Some(_), Some((_, Ok(text)))) = (lines.next(), lines.next()) else {
                    return Err(at(format!("string array '{name}' ends early")));
                };
                visit(OctaveItem::Text(&name, text.trim_end()))?;
            }
        }
    }
    Ok(())
}

/// Merges rows for the dense fitter.
struct MergeConsumer {
    merger: Option<RowMerger>,
    track_games: bool,
    x: Vec<f64>,
}

impl Consumer for MergeConsumer {
    fn columns(&mut self, path: &Path, columns: Vec<String>) -> Result<(), DatasetError> {
        if columns.is_empty() {
            return Err(invalid(path, "no feature columns"));
        }
        match &self.merger {
            Some(m) if m.columns() != columns.as_slice() => {
                return Err(invalid(path, format!("feature columns {} differ from the first file's {}", columns.join(" "), m.columns().join(" "))));
            }
            Some(_) => {}
            None => self.merger = Some(RowMerger::new(columns.clone(), self.track_games)),
        }
        self.x = vec![0.0; columns.len()];
        Ok(())
    }

    fn row(&mut self, row: Row, game: Option<u64>) -> Result<(), RowError> {
        self.x.fill(0.0);
        for &(j, v) in row.values {
            self.x[j] = v;
        }
        let merger = self.merger.as_mut().expect("columns first");
        if row.weight == 1.0 {
            merger.add(&self.x, row.result, game);
        } else {
            let mut counts = [0.0; 3];
            counts[match row.result {
                GameResult::BlackWins => 0,
                GameResult::Draw => 1,
                GameResult::WhiteWins => 2,
            }] = row.weight;
            merger.add_counts(&self.x, counts);
        }
        Ok(())
    }

    fn batch(&mut self, path: &Path, layout: &FeatureLayout, batch: &RowBatch, game_base: u64) -> Result<(), DatasetError> {
        self.columns(path, layout.columns())?;
        let merger = self.merger.as_mut().expect("columns set");
        for i in 0..batch.len() {
            batch.dense_row(i, layout, &mut self.x);
            merger.add(&self.x, batch.results[i], Some(game_base + batch.games[i]));
        }
        Ok(())
    }
}

/// Keeps rows as training positions.
struct PositionConsumer {
    positions: Option<Positions>,
    decoder: Option<ColumnDecoder>,
    terms: Vec<TermValue>,
    /// Rows of a tapered layout with no phase (see [`LoadReport::without_phase`]).
    without_phase: u64,
    /// An EPD file was read: its game ids are line numbers.
    games_unknown: bool,
}

impl PositionConsumer {
    fn layout_for(&mut self, path: &Path, layout: FeatureLayout) -> Result<(), DatasetError> {
        match &self.positions {
            Some(p) if *p.layout() != layout => {
                Err(invalid(path, format!("its feature sets '{}' differ from the first file's '{}'", layout.spec(), p.layout().spec())))
            }
            Some(_) => Ok(()),
            None => {
                self.decoder = Some(ColumnDecoder::new(&layout));
                self.positions = Some(Positions::new(layout).map_err(|e| invalid(path, e.to_string()))?);
                Ok(())
            }
        }
    }
}

impl Consumer for PositionConsumer {
    fn columns(&mut self, path: &Path, columns: Vec<String>) -> Result<(), DatasetError> {
        let layout = FeatureLayout::from_columns(&columns).ok_or_else(|| {
            let shown: Vec<&str> = columns.iter().take(8).map(String::as_str).collect();
            DatasetError::NotFeatureSets {
                path: path.display().to_string(),
                shown: format!("{}{}", shown.join(" "), if columns.len() > 8 { " ..." } else { "" }),
            }
        })?;
        self.layout_for(path, layout)
    }

    fn row(&mut self, row: Row, game: Option<u64>) -> Result<(), RowError> {
        let decoder = self.decoder.as_mut().expect("columns first");
        let implied = decoder.decode(row.values.iter().copied(), &mut self.terms)?;
        let positions = self.positions.as_mut().expect("columns first");
        let phase = match (implied, row.phase) {
            (Some(implied), Some(stored)) if implied != stored => {
                return Err(RowError::PhaseColumnDisagrees { stored, implied });
            }
            (Some(p), _) | (None, Some(p)) => p,
            (None, None) => {
                if positions.layout().is_tapered() {
                    self.without_phase += 1;
                }
                0
            }
        };
        let game = game.unwrap_or_else(|| {
            positions.set_games_unknown();
            positions.len() as u64
        });
        positions.push_weighted(&self.terms, phase, row.result.score() as f32, row.eval, game, row.weight);
        Ok(())
    }

    fn batch(&mut self, path: &Path, layout: &FeatureLayout, batch: &RowBatch, game_base: u64) -> Result<(), DatasetError> {
        self.layout_for(path, layout.clone())?;
        self.positions.as_mut().expect("set").push_batch(batch, game_base);
        Ok(())
    }

    fn games_unknown(&mut self) {
        self.games_unknown = true;
    }
}

mod delimited;
pub(in crate::dataset) mod parquet;
#[cfg(test)]
mod tests;
