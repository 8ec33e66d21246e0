//! EPD: the interchange format of Texel tuners, one labelled position a line.
//!
//! Written: `<board> <side> <castling> <ep> hmvc N; fmvn N; c9 "1-0";`, plus
//! `ce N;` (centipawns from the side to move's view, as EPD defines it) when
//! the row has an evaluation label.
//!
//! Read, one position a line, in any of the styles tuners exchange:
//!
//! * `FEN c9 "1-0";` with any standard EPD opcodes (`ce` is taken as an
//!   evaluation label; `hmvc`/`fmvn` set the move counters);
//! * `FEN [1.0]`, `[0.5]`, `[0.0]` (also `[1-0]`, `[1/2-1/2]`, `[0-1]`);
//! * `FEN | eval | result` and `FEN | result`, the eval in centipawns from
//!   white's view, the result as `1.0`/`0.5`/`0.0` or `1-0`/`1/2-1/2`/`0-1`.
//!
//! The FEN may have four fields (EPD) or six. A line with a bad FEN, no
//! result or an opcode EPD does not define is reported with its number and
//! skipped, or stops the read when strict.

use std::io::{BufRead, Write};
use std::path::Path;

use shakmaty::fen::Fen;
use shakmaty::{Chess, Color, Position};

use super::{DatasetError, GameResult, RowBatch, RowWriter, Schema};
use crate::atomic::{AtomicFile, OutputError};
use crate::features::{FeatureLayout, TermScratch};
use crate::fen::position_from_fen;

/// The opcodes the EPD standard defines (PGN standard, section 16.2).
const STANDARD_OPCODES: &[&str] = &[
    "acn",
    "acs",
    "am",
    "bm",
    "c0",
    "c1",
    "c2",
    "c3",
    "c4",
    "c5",
    "c6",
    "c7",
    "c8",
    "c9",
    "ce",
    "dm",
    "draw_accept",
    "draw_claim",
    "draw_offer",
    "draw_reject",
    "eco",
    "fmvn",
    "hmvc",
    "id",
    "nic",
    "noop",
    "pm",
    "pv",
    "rc",
    "resign",
    "sm",
    "tcgs",
    "tcri",
    "tcsi",
    "v0",
    "v1",
    "v2",
    "v3",
    "v4",
    "v5",
    "v6",
    "v7",
    "v8",
    "v9",
];

pub(super) struct EpdWriter {
    file: AtomicFile,
    line: String,
}

impl EpdWriter {
    pub(super) fn create(path: &Path, schema: &Schema) -> Result<EpdWriter, DatasetError> {
        if !schema.fen {
            return Err(DatasetError::Invalid {
                path: path.display().to_string(),
                message: "EPD output needs the rows' positions (internal: schema without FEN)".into(),
            });
        }
        Ok(EpdWriter { file: AtomicFile::create(path)?, line: String::with_capacity(128) })
    }
}

impl RowWriter for EpdWriter {
    fn write(&mut self, batch: &RowBatch) -> Result<(), DatasetError> {
        use std::fmt::Write as _;
        for i in 0..batch.len() {
            // The FEN's six fields, taken apart without a vector per row
            // (pgntune's FENs are single-spaced and complete).
            let mut fields = batch.fens.get(i).unwrap_or_default().split(' ');
            let mut field = || fields.next().unwrap_or("");
            let (board, turn, castling, en_passant, halfmoves, fullmoves) = (field(), field(), field(), field(), field(), field());
            let line = &mut self.line;
            line.clear();
            for (k, text) in [board, turn, castling, en_passant].into_iter().enumerate() {
                if k > 0 {
                    line.push(' ');
                }
                line.push_str(text);
            }
            if !fullmoves.is_empty() {
                for (op, value) in [(" hmvc ", halfmoves), ("; fmvn ", fullmoves)] {
                    line.push_str(op);
                    line.push_str(value);
                }
                line.push(';');
            }
            line.push_str(" c9 \"");
            line.push_str(batch.results[i].as_str());
            line.push_str("\";");
            if let Some(&eval) = batch.evals.get(i)
                && !eval.is_nan()
            {
                let stm = if turn == "b" { -eval } else { eval };
                let _ = write!(line, " ce {};", stm.round() as i64);
            }
            line.push('\n');
            self.file.write_all(line.as_bytes()).map_err(|e| OutputError::new(self.file.target(), e))?;
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), DatasetError> {
        Ok(self.file.commit()?)
    }
}

/// One labelled position read from a line.
#[derive(Clone, Debug, PartialEq)]
pub struct EpdPosition {
    /// The position.
    pub position: Chess,
    /// The game result.
    pub result: GameResult,
    /// An evaluation label in centipawns from white's view, NaN when none.
    pub eval: f32,
}

fn parse_result(text: &str) -> Option<GameResult> {
    match text.trim().trim_matches('"') {
        "1-0" | "1.0" | "1" => Some(GameResult::WhiteWins),
        "0-1" | "0.0" | "0" => Some(GameResult::BlackWins),
        "1/2-1/2" | "0.5" | "1/2" => Some(GameResult::Draw),
        _ => None,
    }
}

fn parse_fen(text: &str) -> Result<Chess, String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let full = match fields.len() {
        4 => format!("{} 0 1", fields.join(" ")),
        6 => fields.join(" "),
        n => return Err(format!("a FEN has 4 or 6 fields, found {n}")),
    };
    let fen: Fen = full.parse().map_err(|e| format!("bad FEN '{full}': {e}"))?;
    position_from_fen(fen).map_err(|e| format!("bad FEN '{full}': {e}"))
}

/// Parses one line (trimmed, not empty).
pub fn parse_line(line: &str) -> Result<EpdPosition, String> {
    // `FEN | eval | result` or `FEN | result`.
    if line.contains('|') {
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        let (fen, eval, result) = match parts.as_slice() {
            [fen, result] => (*fen, None, *result),
            [fen, eval, result] => (*fen, Some(*eval), *result),
            _ => return Err("expected 'FEN | eval | result' or 'FEN | result'".into()),
        };
        let position = parse_fen(fen)?;
        let result = parse_result(result).ok_or_else(|| format!("'{result}' is not a result (1.0, 0.5, 0.0, 1-0, 1/2-1/2, 0-1)"))?;
        let eval = match eval {
            Some(e) => e.parse::<f32>().ok().filter(|v| v.is_finite()).ok_or_else(|| format!("'{e}' is not an evaluation in centipawns"))?,
            None => f32::NAN,
        };
        return Ok(EpdPosition { position, result, eval });
    }
    // `FEN [1.0]`.
    if let Some(open) = line.find('[') {
        let close = line[open..].find(']').ok_or("a '[' without its ']'")? + open;
        let position = parse_fen(&line[..open])?;
        let text = &line[open + 1..close];
        let result = parse_result(text).ok_or_else(|| format!("'[{text}]' is not a result ([1.0], [0.5], [0.0])"))?;
        if !line[close + 1..].trim().is_empty() {
            return Err(format!("unexpected text after the result: '{}'", line[close + 1..].trim()));
        }
        return Ok(EpdPosition { position, result, eval: f32::NAN });
    }
    // EPD with opcodes: four fields, optionally the FEN's two counters, then `opcode operands;` ...
    let mut rest = line;
    let mut fields = Vec::with_capacity(6);
    for _ in 0..4 {
        rest = rest.trim_start();
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        if end == 0 {
            return Err("a FEN has 4 or 6 fields".into());
        }
        fields.push(rest[..end].to_string());
        rest = &rest[end..];
    }
    let (mut halfmove, mut fullmove) = ("0".to_string(), "1".to_string());
    // The FEN's two counters, when the line has them before any opcode.
    let next_token = |text: &str| -> (String, usize) {
        let start = text.len() - text.trim_start().len();
        let end = text[start..].find(char::is_whitespace).map_or(text.len(), |e| start + e);
        (text[start..end].to_string(), end)
    };
    let (first, after_first) = next_token(rest);
    let (second, after_second) = next_token(&rest[after_first..]);
    if first.parse::<u32>().is_ok() && second.trim_end_matches(';').parse::<u32>().is_ok() && !second.ends_with(';') {
        halfmove = first;
        fullmove = second;
        rest = &rest[after_first + after_second..];
    }
    let (mut result, mut ce) = (None, None);
    let mut read: Vec<&str> = Vec::new();
    for operation in rest.split(';').map(str::trim).filter(|o| !o.is_empty()) {
        let (opcode, operand) = operation.split_once(char::is_whitespace).map_or((operation, ""), |(a, b)| (a, b.trim()));
        // An opcode this reader uses, given twice: which one is meant cannot be told.
        if ["c9", "ce", "hmvc", "fmvn"].contains(&opcode) {
            if read.contains(&opcode) {
                return Err(format!("two '{opcode}' opcodes"));
            }
            read.push(opcode);
        }
        match opcode {
            "c9" => result = Some(parse_result(operand).ok_or_else(|| format!("c9 {operand} is not a result"))?),
            "ce" => ce = Some(operand.parse::<i32>().map_err(|_| format!("ce {operand} is not a centipawn score"))?),
            "hmvc" => halfmove = operand.to_string(),
            "fmvn" => fullmove = operand.to_string(),
            other if STANDARD_OPCODES.contains(&other) => {}
            other => return Err(format!("unknown EPD opcode '{other}'")),
        }
    }
    let position = parse_fen(&format!("{} {halfmove} {fullmove}", fields.join(" ")))?;
    let result = result.ok_or("no result label (c9 \"1-0\";, [1.0] or | 1.0)")?;
    let eval = match ce {
        Some(cp) if position.turn() == Color::Black => -(cp as f32),
        Some(cp) => cp as f32,
        None => f32::NAN,
    };
    Ok(EpdPosition { position, result, eval })
}

/// A line that was skipped, for the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpdProblem {
    /// 1-based line number.
    pub line: u64,
    /// Why.
    pub message: String,
}

/// Reads an EPD file into rows of `layout`, `batch_rows` at a time, calling
/// `sink` with each batch (game ids are line numbers). Bad lines are
/// collected (the first 10 kept) and skipped, or stop the read when
/// `strict`. Returns the number of bad lines and the first of them.
pub fn read_epd(
    path: &Path,
    layout: &FeatureLayout,
    strict: bool,
    sink: &mut dyn FnMut(&RowBatch) -> Result<(), DatasetError>,
) -> Result<(u64, Vec<EpdProblem>), DatasetError> {
    let io_err = |source| DatasetError::Io { path: path.display().to_string(), source };
    let file = super::text::open(path).map_err(io_err)?;
    let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
    let schema = Schema { eval: true, ..Schema::new(layout.clone()) };
    let mut batch = RowBatch::new(&schema);
    let mut scratch = TermScratch::default();
    let mut terms = Vec::new();
    let (mut bad, mut problems) = (0u64, Vec::new());
    let mut line = String::new();
    let mut number = 0u64;
    loop {
        line.clear();
        let read = reader.read_line(&mut line).map_err(|e| {
            if e.get_ref().is_some_and(|inner| inner.is::<super::text::LineTooLong>()) {
                DatasetError::Invalid { path: path.display().to_string(), message: super::text::line_error(number + 1, &e) }
            } else if e.kind() == std::io::ErrorKind::InvalidData {
                DatasetError::Invalid { path: path.display().to_string(), message: format!("line {}: not text (UTF-8)", number + 1) }
            } else {
                io_err(e)
            }
        })?;
        if read == 0 {
            break;
        }
        number += 1;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        match parse_line(text) {
            Ok(p) => {
                let phase = layout.terms_of(&p.position, &mut scratch, &mut terms);
                batch.push_features(&terms, phase);
                batch.results.push(p.result);
                batch.evals.push(p.eval);
                batch.games.push(number - 1);
                batch.plies.push(0);
                if batch.len() >= 4096 {
                    sink(&batch)?;
                    batch.clear();
                }
            }
            Err(message) if strict => {
                return Err(DatasetError::Invalid { path: path.display().to_string(), message: format!("line {number}: {message}") });
            }
            Err(message) => {
                bad += 1;
                if problems.len() < 10 {
                    problems.push(EpdProblem { line: number, message });
                }
            }
        }
    }
    if !batch.is_empty() {
        sink(&batch)?;
    }
    Ok((bad, problems))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_style_of_label() {
        let a = parse_line("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 \"1/2-1/2\";").unwrap();
        assert_eq!(a.result, GameResult::Draw);
        let b = parse_line("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 [1.0]").unwrap();
        assert_eq!((b.result, b.position.clone()), (GameResult::WhiteWins, a.position.clone()));
        let c = parse_line("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 35 | 0.0").unwrap();
        assert_eq!((c.result, c.eval), (GameResult::BlackWins, 35.0));
        // ce is the side to move's view: black to move, +20 for black is -20 for white.
        let d = parse_line("r7/8/3k4/8/8/3K4/8/7R b - - hmvc 100; fmvn 60; c9 \"0-1\"; ce 20; id \"x\";").unwrap();
        assert_eq!(d.eval, -20.0);
        assert_eq!(Fen::from_position(&d.position, shakmaty::EnPassantMode::Legal).to_string(), "r7/8/3k4/8/8/3K4/8/7R b - - 100 60");
        assert_eq!(parse_line("8/8/8/8/8/8/8/K6k w - - | 1-0").unwrap().result, GameResult::WhiteWins);
    }

    #[test]
    fn bad_lines_say_why() {
        assert!(parse_line("rnbqkbnr/pppppppp/8/8 w KQkq - c9 \"1-0\";").unwrap_err().contains("bad FEN"));
        assert!(parse_line("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"x\";").unwrap_err().contains("no result label"));
        assert!(
            parse_line("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - zz 3; c9 \"1-0\";").unwrap_err().contains("unknown EPD opcode 'zz'")
        );
        assert!(parse_line("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - [2.0]").unwrap_err().contains("not a result"));
        assert!(parse_line("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - | abc | 1.0").unwrap_err().contains("not an evaluation"));
        // Issue 33: a label given twice was the last one, silently.
        let twice = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 \"1-0\"; c9 \"0-1\";";
        assert_eq!(parse_line(twice).unwrap_err(), "two 'c9' opcodes");
    }

    #[test]
    fn a_file_with_bad_lines_is_read_around_them_or_refused_when_strict() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.epd");
        std::fs::write(&path, "8/8/8/8/8/8/8/K6k w - - [1.0]\n\nnot a fen [1.0]\n8/8/8/8/8/8/8/K6k b - - c9 \"0-1\";\n").unwrap();
        let layout = FeatureLayout::default();
        let mut rows = 0;
        let (bad, problems) = read_epd(&path, &layout, false, &mut |b| {
            rows += b.len();
            assert_eq!(b.games, [0, 3]);
            Ok(())
        })
        .unwrap();
        assert_eq!((rows, bad), (2, 1));
        assert_eq!(problems[0].line, 3);
        let err = read_epd(&path, &layout, true, &mut |_| Ok(())).unwrap_err().to_string();
        assert!(err.contains("line 3:"), "{err}");
    }
}
