//! Datasets that carry positions, not only features: EPD files, and the
//! CSV, TSV and Parquet rows that `extract --fen` writes. `pgntune label`
//! searches these positions; features alone cannot be searched.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use polars::prelude::*;
use shakmaty::Chess;
use shakmaty::fen::Fen;

use super::epd::parse_line;
use super::{DatasetError, GameResult};
use crate::fen::position_from_fen;

/// One row with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionRow {
    /// The position.
    pub position: Chess,
    /// Its game's result.
    pub result: GameResult,
    /// Its game (line number for EPD).
    pub game: u64,
    /// Its ply (0 when unknown).
    pub ply: u32,
    /// Its kept tags, in the order of [`Positions::tags`].
    pub tags: Vec<String>,
}

/// The positions of a dataset, with the names of the tag columns it kept
/// (`extract --tags`), which `label` carries over to what it writes.
#[derive(Clone, Debug, Default)]
pub struct Positions {
    /// The tag columns.
    pub tags: Vec<String>,
    /// The positions.
    pub rows: Vec<PositionRow>,
}

/// The columns of an `extract` dataset that are kept tags: those after
/// `ply`, but for the phase, the label and the FEN (see [`super::delimited`]).
fn tag_columns(header: &[String]) -> Vec<usize> {
    let Some(ply) = header.iter().position(|h| h == "ply") else { return Vec::new() };
    (ply + 1..header.len()).filter(|&i| !matches!(header[i].as_str(), "phase" | "eval" | "fen")).collect()
}

fn invalid(path: &Path, message: impl Into<String>) -> DatasetError {
    DatasetError::Invalid { path: path.display().to_string(), message: message.into() }
}

fn position(path: &Path, at: &str, fen: &str) -> Result<Chess, DatasetError> {
    let parsed: Fen = fen.trim().parse().map_err(|e| invalid(path, format!("{at}: bad FEN '{fen}': {e}")))?;
    position_from_fen(parsed).map_err(|e| invalid(path, format!("{at}: bad FEN '{fen}': {e}")))
}

/// Reads the positions of `path`: EPD (by extension), or CSV/TSV/Parquet
/// with a `fen` column. Any bad row is an error with its line or row.
pub fn read_positions(path: &Path) -> Result<Positions, DatasetError> {
    let format = super::Format::from_path(path);
    let io = |source| DatasetError::Io { path: path.display().to_string(), source };
    // A missing file or a folder is that, whatever its name says it holds.
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Err(invalid(path, "is a directory, not a dataset"));
    }
    match format {
        Some(super::Format::Epd) => {
            let mut bytes = Vec::new();
            super::text::open(path).and_then(|mut r| std::io::Read::read_to_end(&mut r, &mut bytes)).map_err(|e| {
                if e.get_ref().is_some_and(|inner| inner.is::<super::text::LineTooLong>()) { invalid(path, e.to_string()) } else { io(e) }
            })?;
            let mut rows = Vec::new();
            for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
                // Said per line: "stream did not contain valid UTF-8" named neither the line nor the cause.
                let line = std::str::from_utf8(line).map_err(|_| invalid(path, format!("line {}: not text (UTF-8): not an EPD file", n + 1)))?;
                let line = line.trim();
                if line.is_empty() {
                    continue;
                }
                let p = parse_line(line).map_err(|m| invalid(path, format!("line {}: {m}", n + 1)))?;
                rows.push(PositionRow { position: p.position, result: p.result, game: n as u64, ply: 0, tags: Vec::new() });
            }
            Ok(Positions { tags: Vec::new(), rows })
        }
        Some(super::Format::Csv | super::Format::Tsv) => {
            let sep = if format == Some(super::Format::Csv) { b',' } else { b'\t' };
            let mut builder = csv::ReaderBuilder::new();
            builder.delimiter(sep).has_headers(true).flexible(true);
            if sep != b',' {
                builder.escape(Some(b'\\')).double_quote(false);
            }
            let mut reader = builder.from_reader(BufReader::new(super::text::open(path).map_err(io)?));
            let csv_err = |e: csv::Error| super::text::csv_error(path, e);
            let header: Vec<String> = reader.headers().map_err(csv_err)?.iter().map(|h| h.trim().to_string()).collect();
            let col = |name: &str| header.iter().position(|h| h == name);
            let fen_col = col("fen").ok_or_else(|| invalid(path, "no 'fen' column (extract with --fen, or use EPD)"))?;
            let result_col = col("result").ok_or_else(|| invalid(path, "no 'result' column"))?;
            let (game_col, ply_col) = (col("game"), col("ply"));
            let tag_cols = tag_columns(&header);
            let mut rows = Vec::new();
            for (n, record) in reader.records().enumerate() {
                let record = record.map_err(csv_err)?;
                let at = format!("line {}", n + 2);
                if record.len() != header.len() {
                    return Err(invalid(path, format!("{at}: {} fields, the header has {}", record.len(), header.len())));
                }
                let field = |i: usize| record.get(i).unwrap_or("").trim();
                let score: f64 =
                    field(result_col).parse().map_err(|_| invalid(path, format!("{at}: result '{}' is not a number", field(result_col))))?;
                let result = GameResult::from_score(score).ok_or_else(|| invalid(path, format!("{at}: result {score} is not 0, 0.5 or 1")))?;
                let number = |c: Option<usize>| c.and_then(|c| field(c).parse::<u64>().ok()).unwrap_or(0);
                rows.push(PositionRow {
                    position: position(path, &at, field(fen_col))?,
                    result,
                    game: number(game_col),
                    ply: number(ply_col) as u32,
                    tags: tag_cols.iter().map(|&c| field(c).to_string()).collect(),
                });
            }
            Ok(Positions { tags: tag_cols.iter().map(|&c| header[c].clone()).collect(), rows })
        }
        Some(super::Format::Parquet) => {
            let polars_err = |source| DatasetError::Polars { path: path.display().to_string(), source };
            let frame = ParquetReader::new(File::open(path).map_err(io)?).finish().map_err(polars_err)?;
            let fens = frame
                .column("fen")
                .map_err(|_| invalid(path, "no 'fen' column (extract with --fen, or use EPD)"))?
                .str()
                .map_err(polars_err)?
                .clone();
            let numbers = |name: &str| -> Result<Vec<Option<f64>>, DatasetError> {
                match frame.column(name) {
                    Ok(c) => Ok(c.cast(&DataType::Float64).map_err(polars_err)?.f64().map_err(polars_err)?.iter().collect()),
                    Err(_) => Ok(vec![None; frame.height()]),
                }
            };
            let (results, games, plies) = (numbers("result")?, numbers("game")?, numbers("ply")?);
            let names: Vec<String> = frame.get_column_names().iter().map(|n| n.to_string()).collect();
            let tag_names: Vec<String> = tag_columns(&names).into_iter().map(|c| names[c].clone()).collect();
            let mut tag_values = Vec::with_capacity(tag_names.len());
            for name in &tag_names {
                let column = frame.column(name).map_err(polars_err)?.cast(&DataType::String).map_err(polars_err)?;
                let values: Vec<String> = column.str().map_err(polars_err)?.iter().map(|v| v.unwrap_or("").to_string()).collect();
                tag_values.push(values);
            }
            let mut rows = Vec::new();
            for (i, fen) in fens.iter().enumerate() {
                let at = format!("row {}", i + 1);
                let fen = fen.ok_or_else(|| invalid(path, format!("{at}: no FEN")))?;
                let result = results[i].and_then(GameResult::from_score).ok_or_else(|| invalid(path, format!("{at}: no result of 0, 0.5 or 1")))?;
                rows.push(PositionRow {
                    position: position(path, &at, fen)?,
                    result,
                    game: games[i].unwrap_or(0.0) as u64,
                    ply: plies[i].unwrap_or(0.0) as u32,
                    tags: tag_values.iter().map(|v| v[i].clone()).collect(),
                });
            }
            Ok(Positions { tags: tag_names, rows })
        }
        _ => Err(invalid(path, "label reads EPD files, or CSV, TSV or Parquet datasets with a 'fen' column")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_csv(text: &str) -> Result<Vec<PositionRow>, DatasetError> {
        read_csv_with_tags(text).map(|p| p.rows)
    }

    fn read_csv_with_tags(text: &str) -> Result<Positions, DatasetError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.csv");
        std::fs::write(&path, text).unwrap();
        read_positions(&path)
    }

    #[test]
    fn csv_positions_are_read_and_rows_of_the_wrong_width_refused() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let rows = read_csv(&format!("result,game,ply,fen\n1,7,3,{start}\n")).unwrap();
        assert_eq!((rows.len(), rows[0].game, rows[0].ply, rows[0].result), (1, 7, 3, GameResult::WhiteWins));
        // Kept tags are the columns after `ply`, but for the label and the FEN.
        let kept = read_csv_with_tags(&format!("P,result,game,ply,White,Date,eval,fen\n1,1,7,3,Kasparov,1985.??.??,35,{start}\n")).unwrap();
        assert_eq!(kept.tags, ["White", "Date"]);
        assert_eq!(kept.rows[0].tags, ["Kasparov", "1985.??.??"]);
        // A field too many would shift every column after it; one too few
        // would read as a missing FEN.
        for (line, fields) in [(format!("1,7,3,{start},x"), 5), ("1,7,3".to_string(), 3)] {
            let err = read_csv(&format!("result,game,ply,fen\n1,7,3,{start}\n{line}\n")).unwrap_err().to_string();
            assert!(err.contains(&format!("line 3: {fields} fields, the header has 4")), "{err}");
        }
    }
}
