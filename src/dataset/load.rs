//! Reading datasets back for fitting: pgnlearn `.mat` files and the `.csv`,
//! `.tsv` and `.parquet` files `pgntune extract` writes. Text rows stream
//! into a [`RowMerger`], which keeps distinct feature vectors (and game
//! ids); a Parquet file is read whole by polars first.
//!
//! In CSV, TSV and Parquet the feature columns are the columns before
//! `result` (0, 0.5 or 1); a `game` column, when present, groups rows by
//! game for resampling. In `.mat` files the last number is the result code
//! (0 black won, 1 draw, 2 white won); five features are named P N B R Q.
//! Octave's text format (`extract --format octave`) is told apart from a
//! `.mat` matrix by its content, whatever the file is called.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use polars::prelude::*;

use super::{DatasetError, GameResult};
use crate::fit::data::{MergedRows, RowMerger};

/// Where a file's games start in the combined numbering, so that game ids
/// from different files never collide.
struct Loader {
    merger: Option<RowMerger>,
    track_games: bool,
    game_offset: u64,
    next_offset: u64,
    x: Vec<f64>,
}

/// Reads `paths` (formats from their extensions) into merged rows.
/// `track_games` keeps per-game membership for bootstrap and holdout.
pub fn load(paths: &[impl AsRef<Path>], track_games: bool) -> Result<MergedRows, DatasetError> {
    let mut loader = Loader { merger: None, track_games, game_offset: 0, next_offset: 0, x: Vec::new() };
    for path in paths {
        let path = path.as_ref();
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
        match ext.as_str() {
            _ if is_octave_text(path) => loader.read_octave(path)?,
            "mat" => loader.read_mat(path)?,
            "csv" => loader.read_delimited(path, b',')?,
            "tsv" | "tab" => loader.read_delimited(path, b'\t')?,
            "parquet" | "pq" => loader.read_parquet(path)?,
            _ => {
                return Err(invalid(path, "unknown dataset format (use .mat, .csv, .tsv, .parquet, or Octave text from extract --format octave)"));
            }
        }
        loader.game_offset = loader.next_offset;
    }
    Ok(loader.merger.map(RowMerger::finish).unwrap_or_default())
}

/// Octave's text format begins with a comment line (`# Created by ...`)
/// or a variable header (`# name: X`); pgnlearn's matrix with numbers.
fn is_octave_text(path: &Path) -> bool {
    let Ok(file) = File::open(path) else { return false };
    let mut first = String::new();
    let _ = BufReader::new(file).take(4096).read_line(&mut first);
    first.starts_with("# Created by") || first.starts_with("# name:")
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
    let file = File::open(path).map_err(io_error(path))?;
    let mut lines = BufReader::new(file).lines().enumerate();
    let mut name = String::new();
    let mut numbers = Vec::new();
    while let Some((n, line)) = lines.next() {
        let line = line.map_err(io_error(path))?;
        let at = |msg: String| invalid(path, format!("line {}: {msg}", n + 1));
        let header = |key: &str| line.strip_prefix("# ").and_then(|l| l.strip_prefix(key)).map(|v| v.trim().to_string());
        if let Some(v) = header("name:") {
            name = v;
        } else if let Some(rows) = header("rows:") {
            let rows: u64 = rows.parse().map_err(|_| at(format!("'{rows}' is not a row count")))?;
            let Some((_, Ok(columns))) = lines.next() else { return Err(at("a matrix without its column count".into())) };
            let columns: usize = columns.strip_prefix("# columns:").and_then(|c| c.trim().parse().ok()).ok_or_else(|| at("a matrix without its column count".into()))?;
            for _ in 0..rows {
                let Some((m, row)) = lines.next() else { return Err(at(format!("matrix '{name}' ends before its {rows} rows"))) };
                let row = row.map_err(io_error(path))?;
                numbers.clear();
                for t in row.split_whitespace() {
                    numbers.push(t.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| invalid(path, format!("line {}: '{t}' is not a number", m + 1)))?);
                }
                if numbers.len() != columns {
                    return Err(invalid(path, format!("line {}: {} numbers in a matrix of {columns} columns", m + 1, numbers.len())));
                }
                visit(OctaveItem::Row(&name, &numbers))?;
            }
        } else if let Some(elements) = header("elements:") {
            let elements: u64 = elements.parse().map_err(|_| at(format!("'{elements}' is not an element count")))?;
            for _ in 0..elements {
                let (Some(_), Some((_, Ok(text)))) = (lines.next(), lines.next()) else { return Err(at(format!("string array '{name}' ends early"))) };
                visit(OctaveItem::Text(&name, text.trim_end()))?;
            }
        }
    }
    Ok(())
}

fn invalid(path: &Path, message: impl Into<String>) -> DatasetError {
    DatasetError::Invalid { path: path.display().to_string(), message: message.into() }
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> DatasetError + '_ {
    move |source| DatasetError::Io { path: path.display().to_string(), source }
}

impl Loader {
    /// Checks the columns against earlier files and returns the merger.
    fn merger_for(&mut self, path: &Path, columns: Vec<String>) -> Result<&mut RowMerger, DatasetError> {
        if columns.is_empty() {
            return Err(invalid(path, "no feature columns"));
        }
        match &self.merger {
            Some(m) if m.columns() != columns.as_slice() => {
                return Err(invalid(path, format!("feature columns {} differ from the first file's {}", columns.join(" "), m.columns().join(" "))));
            }
            Some(_) => {}
            None => self.merger = Some(RowMerger::new(columns, self.track_games)),
        }
        Ok(self.merger.as_mut().expect("merger just set"))
    }

    fn game_id(&mut self, game: Option<f64>) -> Option<u64> {
        let id = game.filter(|g| *g >= 0.0 && g.fract() == 0.0)? as u64;
        self.next_offset = self.next_offset.max(self.game_offset + id + 1);
        Some(self.game_offset + id)
    }

    fn read_mat(&mut self, path: &Path) -> Result<(), DatasetError> {
        let file = File::open(path).map_err(io_error(path))?;
        let mut width: Option<usize> = None;
        let mut n_checked: Option<bool> = None;
        for (n, line) in BufReader::new(file).lines().enumerate() {
            let line = line.map_err(io_error(path))?;
            let at = |msg: String| invalid(path, format!("line {}: {msg}", n + 1));
            if line.trim().is_empty() {
                continue;
            }
            let numbers = line
                .split_whitespace()
                .map(|t| t.parse::<i64>().map_err(|_| at(format!("'{t}' is not an integer"))))
                .collect::<Result<Vec<i64>, _>>()?;
            let w = *width.get_or_insert(numbers.len());
            if numbers.len() != w || w < 2 {
                return Err(at(format!("expected {w} numbers like the first line, found {}", numbers.len())));
            }
            let code = numbers[w - 1];
            let result = GameResult::from_mat_code(code).ok_or_else(|| at(format!("result code {code} is not 0, 1 or 2")))?;
            // The first line of each file fixes (and checks) its columns.
            if n_checked.replace(true).is_none() {
                let columns = if w - 1 == 5 {
                    ["P", "N", "B", "R", "Q"].map(String::from).to_vec()
                } else {
                    (1..w).map(|i| format!("x{i}")).collect()
                };
                self.merger_for(path, columns)?;
                self.x = vec![0.0; w - 1];
            }
            for (v, &f) in self.x.iter_mut().zip(&numbers) {
                *v = f as f64;
            }
            let merger = self.merger.as_mut().expect("set above");
            merger.add(&self.x, result, None);
        }
        Ok(())
    }

    /// Octave text as `extract --format octave` writes it: `X` (features),
    /// `y` (white's score), `game`, and the column names `features`. Read
    /// twice, so that only `y` and `game` are held in memory.
    fn read_octave(&mut self, path: &Path) -> Result<(), DatasetError> {
        let (mut scores, mut games, mut columns) = (Vec::new(), Vec::new(), Vec::new());
        octave_items(path, |item| {
            match item {
                OctaveItem::Row("y", v) => scores.push(v[0]),
                OctaveItem::Row("game", v) => games.push(v[0]),
                OctaveItem::Text("features", name) => columns.push(name.to_string()),
                _ => {}
            }
            Ok(())
        })?;
        if columns.is_empty() {
            return Err(invalid(path, "Octave text without the 'features' names (not written by pgntune extract --format octave)"));
        }
        let width = columns.len();
        self.merger_for(path, columns)?;
        let mut row = 0usize;
        octave_items(path, |item| {
            let OctaveItem::Row("X", x) = item else { return Ok(()) };
            let at = |msg: String| invalid(path, format!("row {} of X: {msg}", row + 1));
            if x.len() != width {
                return Err(at(format!("{} columns, but {width} feature names", x.len())));
            }
            let score = *scores.get(row).ok_or_else(|| at("no result in y".into()))?;
            let result = GameResult::from_score(score).ok_or_else(|| at(format!("result {score} is not 0, 0.5 or 1")))?;
            let game = self.game_id(games.get(row).copied());
            self.merger.as_mut().expect("set above").add(x, result, game);
            row += 1;
            Ok(())
        })?;
        if row != scores.len() {
            return Err(invalid(path, format!("{row} rows in X but {} results in y", scores.len())));
        }
        Ok(())
    }

    fn read_delimited(&mut self, path: &Path, sep: u8) -> Result<(), DatasetError> {
        let file = File::open(path).map_err(io_error(path))?;
        let mut builder = csv::ReaderBuilder::new();
        builder.delimiter(sep).has_headers(true).flexible(true);
        if sep != b',' {
            // pgntune's TSV escapes quotes R's way, with a backslash.
            builder.escape(Some(b'\\')).double_quote(false);
        }
        let mut reader = builder.from_reader(BufReader::with_capacity(1 << 16, file));
        let csv_err = |e: csv::Error| invalid(path, e.to_string());
        let header: Vec<String> = reader.headers().map_err(csv_err)?.iter().map(|h| h.trim().to_string()).collect();
        let result_col = header.iter().position(|h| h == "result").ok_or_else(|| invalid(path, "no 'result' column in the header"))?;
        let game_col = header.iter().position(|h| h == "game");
        let columns = header[..result_col].to_vec();
        let width = columns.len();
        self.merger_for(path, columns)?;
        self.x = vec![0.0; width];
        let mut record = csv::ByteRecord::new();
        let mut line = 1u64;
        while reader.read_byte_record(&mut record).map_err(csv_err)? {
            line += 1;
            let at = |msg: String| invalid(path, format!("line {line}: {msg}"));
            if record.len() < header.len() {
                return Err(at(format!("{} fields, the header has {}", record.len(), header.len())));
            }
            let number = |i: usize| -> Result<f64, DatasetError> {
                let text = std::str::from_utf8(&record[i]).unwrap_or("").trim();
                text.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
                    at(format!("'{}' in column '{}' is not a number", String::from_utf8_lossy(&record[i]), header[i]))
                })
            };
            for j in 0..width {
                self.x[j] = number(j)?;
            }
            let score = number(result_col)?;
            let result = GameResult::from_score(score).ok_or_else(|| at(format!("result {score} is not 0, 0.5 or 1")))?;
            let game = match game_col {
                Some(g) => Some(number(g)?),
                None => None,
            };
            let game = self.game_id(game);
            let merger = self.merger.as_mut().expect("set above");
            merger.add(&self.x, result, game);
        }
        Ok(())
    }

    fn read_parquet(&mut self, path: &Path) -> Result<(), DatasetError> {
        let polars_err = |source| DatasetError::Polars { path: path.display().to_string(), source };
        let file = File::open(path).map_err(io_error(path))?;
        let frame = ParquetReader::new(file).finish().map_err(polars_err)?;
        let names: Vec<String> = frame.get_column_names().iter().map(|n| n.to_string()).collect();
        let result_col = names.iter().position(|h| h == "result").ok_or_else(|| invalid(path, "no 'result' column"))?;
        let as_f64 = |name: &str| -> Result<Vec<Option<f64>>, DatasetError> {
            let column = frame.column(name).map_err(polars_err)?;
            let cast = column.cast(&DataType::Float64).map_err(|_| invalid(path, format!("column '{name}' is not numeric")))?;
            Ok(cast.f64().map_err(polars_err)?.iter().collect())
        };
        let features = names[..result_col].iter().map(|n| as_f64(n)).collect::<Result<Vec<_>, _>>()?;
        let results = as_f64("result")?;
        let games = if names.iter().any(|n| n == "game") { Some(as_f64("game")?) } else { None };
        let width = features.len();
        self.merger_for(path, names[..result_col].to_vec())?;
        self.x = vec![0.0; width];
        for i in 0..frame.height() {
            let at = |msg: String| invalid(path, format!("row {}: {msg}", i + 1));
            for j in 0..width {
                self.x[j] = features[j][i].filter(|v| v.is_finite()).ok_or_else(|| at(format!("missing value in column '{}'", names[j])))?;
            }
            let score = results[i].ok_or_else(|| at("missing result".into()))?;
            let result = GameResult::from_score(score).ok_or_else(|| at(format!("result {score} is not 0, 0.5 or 1")))?;
            let game = games.as_ref().and_then(|g| g[i]);
            let game = self.game_id(game);
            let merger = self.merger.as_mut().expect("set above");
            merger.add(&self.x, result, game);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mat_and_csv_load_and_bad_lines_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let mat = dir.path().join("a.mat");
        std::fs::write(&mat, " 0  0  0  0  0  2\n 1  0  0  0  0  0\n 0  0  0  0  0  2\n").unwrap();
        let rows = load(&[&mat], false).unwrap();
        assert_eq!(rows.columns, ["P", "N", "B", "R", "Q"]);
        assert_eq!(rows.counts, [[0.0, 0.0, 2.0], [1.0, 0.0, 0.0]]);
        assert_eq!(rows.game_count, None);

        let csv = dir.path().join("a.csv");
        std::fs::write(&csv, "a,b,result,game,ply,White\n1,0,1,0,2,\"X, Y\"\n1,0,0.5,1,2,Z\n0,1,0,1,4,Z\n").unwrap();
        let rows = load(&[&csv, &csv], true).unwrap();
        assert_eq!(rows.columns, ["a", "b"]);
        assert_eq!(rows.game_count, Some(4), "game ids of the second file are offset");
        assert_eq!(rows.counts, [[0.0, 2.0, 2.0], [2.0, 0.0, 0.0]]);

        let bad = dir.path().join("bad.mat");
        std::fs::write(&bad, " 0  0  0  0  0  2\n 0  0  0  0  2\n").unwrap();
        assert!(load(&[&bad], false).unwrap_err().to_string().contains("line 2: expected 6 numbers"));
        std::fs::write(&bad, " 0  0  x  0  0  2\n").unwrap();
        assert!(load(&[&bad], false).unwrap_err().to_string().contains("'x' is not an integer"));
        let bad = dir.path().join("bad.csv");
        std::fs::write(&bad, "a,result\n1,1\nfoo,0\n").unwrap();
        assert!(load(&[&bad], false).unwrap_err().to_string().contains("line 3: 'foo' in column 'a' is not a number"));
        std::fs::write(&bad, "a,result\n1,0.7\n").unwrap();
        assert!(load(&[&bad], false).unwrap_err().to_string().contains("result 0.7 is not 0, 0.5 or 1"));
        assert!(load(&[&bad, &mat], false).is_err());
    }

    #[test]
    fn octave_text_is_read_whatever_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let text = "# Created by pgntune 0.1.0\n# name: X\n# type: matrix\n# rows: 3\n# columns: 2\n 1 0\n 1 0\n 0 1\n\n\n\
# name: y\n# type: matrix\n# rows: 3\n# columns: 1\n 1\n 0.5\n 0\n\n\n# name: game\n# type: matrix\n# rows: 3\n# columns: 1\n 0\n 1\n 1\n\n\n\
# name: ply\n# type: matrix\n# rows: 3\n# columns: 1\n 2\n 4\n 6\n\n\n# name: features\n# type: string\n# elements: 2\n# length: 1\nP\n# length: 1\nN\n\n\n";
        for name in ["rows.mat", "rows.txt"] {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            let rows = load(&[&path], true).unwrap();
            assert_eq!(rows.columns, ["P", "N"], "{name}");
            assert_eq!(rows.counts, [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]], "{name}");
            assert_eq!(rows.game_count, Some(2), "{name}");
        }
        let path = dir.path().join("cut.mat");
        std::fs::write(&path, text.lines().take(7).collect::<Vec<_>>().join("\n")).unwrap();
        assert!(load(&[&path], false).unwrap_err().to_string().contains("ends before its 3 rows"));
    }
}
