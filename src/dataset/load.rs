//! Reading datasets back for fitting: pgnlearn `.mat` files and the `.csv`,
//! `.tsv` and `.parquet` files `pgntune extract` writes. Text rows stream
//! into a [`RowMerger`], which keeps distinct feature vectors (and game
//! ids); a Parquet file is read whole by polars first.
//!
//! In CSV, TSV and Parquet the feature columns are the columns before
//! `result` (0, 0.5 or 1); a `game` column, when present, groups rows by
//! game for resampling. In `.mat` files the last number is the result code
//! (0 black won, 1 draw, 2 white won); five features are named P N B R Q.

use std::fs::File;
use std::io::{BufRead, BufReader};
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
            "mat" => loader.read_mat(path)?,
            "csv" => loader.read_delimited(path, b',')?,
            "tsv" | "tab" => loader.read_delimited(path, b'\t')?,
            "parquet" | "pq" => loader.read_parquet(path)?,
            _ => {
                return Err(invalid(path, "unknown dataset format (use .mat, .csv, .tsv or .parquet)"));
            }
        }
        loader.game_offset = loader.next_offset;
    }
    Ok(loader.merger.map(RowMerger::finish).unwrap_or_default())
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
}
