//! CSV and TSV back into rows: the feature columns are those before
//! `result` (or before `wins`, `draws` and `losses`, for merged rows).

use std::io::{BufReader, Read};
use std::path::Path;

use super::{Consumer, GameIds, Row, game_id, invalid, io_error, nonzero, stored_phase};
use crate::dataset::{DatasetError, GameResult};
use crate::features::FeatureLayout;

pub(super) fn read_delimited(path: &Path, sep: u8, consumer: &mut dyn Consumer, games: &mut GameIds) -> Result<(), DatasetError> {
    let file = crate::dataset::text::open(path).map_err(io_error(path))?;
    let mut builder = csv::ReaderBuilder::new();
    builder.delimiter(sep).has_headers(true).flexible(true);
    if sep != b',' {
        // pgntune's TSV escapes quotes R's way, with a backslash.
        builder.escape(Some(b'\\')).double_quote(false);
    }
    let mut reader = builder.from_reader(BufReader::with_capacity(1 << 16, file));
    let csv_err = |e: csv::Error| crate::dataset::text::csv_error(path, e);
    let header: Vec<String> = reader.headers().map_err(csv_err)?.iter().map(|h| h.trim().to_string()).collect();
    check_header(path, &header)?;
    let column = |name: &str| header.iter().position(|h| h == name);
    if column("result").is_none()
        && let (Some(wins), Some(draws), Some(losses)) = (column("wins"), column("draws"), column("losses"))
    {
        return read_counts(path, &header, [wins, draws, losses], &mut reader, consumer);
    }
    let result_col = column("result").ok_or_else(|| invalid(path, "no 'result' column in the header (nor wins, draws and losses)"))?;
    check_feature_columns(path, &header[..result_col])?;
    let game_col = header.iter().position(|h| h == "game");
    let eval_col = header.iter().position(|h| h == "eval");
    let phase_col = header.iter().position(|h| h == "phase").filter(|&p| p > result_col);
    let width = result_col;
    consumer.columns(path, header[..result_col].to_vec())?;
    let mut x = vec![0.0; width];
    let mut pairs = Vec::new();
    let mut record = csv::ByteRecord::new();
    let mut line = 1u64;
    while reader.read_byte_record(&mut record).map_err(csv_err)? {
        line += 1;
        let at = |msg: String| invalid(path, format!("line {line}: {msg}"));
        // Longer rows too: a field too many shifts every column after it.
        if record.len() != header.len() {
            return Err(at(format!("{} fields, the header has {}", record.len(), header.len())));
        }
        let text = |i: usize| std::str::from_utf8(&record[i]).unwrap_or("").trim();
        let number = |i: usize| -> Result<f64, DatasetError> {
            text(i)
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| at(format!("'{}' in column '{}' is not a number", String::from_utf8_lossy(&record[i]), header[i])))
        };
        for (j, v) in x.iter_mut().enumerate() {
            *v = number(j)?;
        }
        let score = number(result_col)?;
        let result = GameResult::from_score(score).ok_or_else(|| at(format!("result {score} is not 0, 0.5 or 1")))?;
        let game = match game_col {
            Some(g) => Some(game_id(text(g)).map_err(at)?),
            None => None,
        };
        let eval = match eval_col.map(text) {
            None | Some("" | "NA") => f32::NAN,
            Some(_) => number(eval_col.expect("checked"))? as f32,
        };
        let phase = match phase_col {
            Some(p) => Some(stored_phase(number(p)?).map_err(at)?),
            None => None,
        };
        nonzero(&x, &mut pairs);
        let id = games.id(game);
        consumer.row(Row { values: &pairs, result, eval, phase, weight: 1.0 }, id).map_err(|e| at(e.to_string()))?;
    }
    Ok(())
}

/// Refuses a header that names a column twice: `P,N,B,R,Q,Q` read as
/// two Q features (and `--json` showed one).
fn check_header(path: &Path, header: &[String]) -> Result<(), DatasetError> {
    for (i, name) in header.iter().enumerate() {
        if header[..i].contains(name) {
            return Err(invalid(
                path,
                format!(
                    "the header names column '{name}' twice (columns {} and {})",
                    header[..i].iter().position(|h| h == name).expect("found") + 1,
                    i + 1
                ),
            ));
        }
    }
    Ok(())
}

/// The columns of a row, not of its features, that `extract` writes after
/// the features.
const ROW_COLUMNS: [&str; 9] = ["result", "game", "ply", "phase", "eval", "fen", "wins", "draws", "losses"];

/// Refuses feature columns (those before `result`) that cannot be features:
/// the names of row columns (`wins` placed before `result` was fitted as a
/// feature), and, beside pgntune's feature columns, a column of no feature
/// set (`P,N,B,R,Q,foo`). Columns of none of pgntune's sets at all (`a,b`)
/// are another program's features, which the classic fitter takes.
fn check_feature_columns(path: &Path, features: &[String]) -> Result<(), DatasetError> {
    if let Some(name) = features.iter().find(|f| ROW_COLUMNS.contains(&f.as_str())) {
        return Err(invalid(
            path,
            format!("'{name}' is before 'result', where the feature columns are; it is a row's column, not a feature (put it after 'result')"),
        ));
    }
    if FeatureLayout::from_columns(features).is_some() {
        return Ok(());
    }
    let known = |name: &str| crate::features::FeatureSet::ALL.iter().any(|set| set.columns().iter().any(|c| c == name));
    if features.iter().any(|f| known(f))
        && let Some(name) = features.iter().find(|f| !known(f))
    {
        return Err(invalid(
            path,
            format!(
                "column '{name}' before 'result' is not a column of any feature set, beside ones that are (the columns before 'result' are the features; put other columns after it)"
            ),
        ));
    }
    Ok(())
}

/// Merged rows: the feature columns, then `wins`, `draws` and `losses`
/// (white's), one line per distinct feature vector, as a Spark
/// aggregation writes them. Each line stands for that many rows, and is
/// read as one row per result with its count as weight; they have no game
/// ids.
fn read_counts<R: Read>(
    path: &Path,
    header: &[String],
    [wins, draws, losses]: [usize; 3],
    reader: &mut csv::Reader<R>,
    consumer: &mut dyn Consumer,
) -> Result<(), DatasetError> {
    let width = wins.min(draws).min(losses);
    check_feature_columns(path, &header[..width])?;
    consumer.columns(path, header[..width].to_vec())?;
    let (mut x, mut pairs) = (vec![0.0; width], Vec::new());
    let mut record = csv::ByteRecord::new();
    let mut line = 1u64;
    while reader.read_byte_record(&mut record).map_err(|e| crate::dataset::text::csv_error(path, e))? {
        line += 1;
        let at = |msg: String| invalid(path, format!("line {line}: {msg}"));
        // Longer rows too: a field too many shifts every column after it.
        if record.len() != header.len() {
            return Err(at(format!("{} fields, the header has {}", record.len(), header.len())));
        }
        let number = |i: usize| -> Result<f64, DatasetError> {
            let text = std::str::from_utf8(&record[i]).unwrap_or("").trim();
            text.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| at(format!("'{text}' in column '{}' is not a number", header[i])))
        };
        for (j, v) in x.iter_mut().enumerate() {
            *v = number(j)?;
        }
        nonzero(&x, &mut pairs);
        for (col, result) in [(wins, GameResult::WhiteWins), (draws, GameResult::Draw), (losses, GameResult::BlackWins)] {
            let n = number(col)?;
            if n < 0.0 || n.fract() != 0.0 {
                return Err(at(format!("'{n}' in column '{}' is not a count", header[col])));
            }
            // One row of weight n, not n rows: counts of a big aggregation
            // (10^8 and more) held a row each, more than memory.
            if n > 0.0 {
                consumer.row(Row { values: &pairs, result, eval: f32::NAN, phase: None, weight: n }, None).map_err(|e| at(e.to_string()))?;
            }
        }
    }
    Ok(())
}
