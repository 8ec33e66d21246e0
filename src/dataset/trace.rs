//! Traces: any engine's evaluation as training positions, so that
//! `pgntune fit` tunes an engine's own terms (as Ethereal's and Weiss'
//! TRACE builds feed their tuners).
//!
//! The engine evaluates each position once with a trace switched on: each
//! term adds its coefficient (white's count minus black's) to the trace
//! instead of only adding its value. The evaluation must be linear in its
//! terms' values: `eval = Σ coef·value` for an untapered term, and
//! `Σ coef·(mg·p + eg·(24 − p))/24` for a tapered one at phase `p`.
//!
//! # The text format
//!
//! ```text
//! # pgntune trace
//! # term pawn tapered 82 94
//! # term knight tapered 337 281
//! # term tempo single 20
//! 1 24 1:0 2:1 3:1
//! 0.5 11 eval=35 game=7 1:-2 3:-1
//! ```
//!
//! * Line 1 is `# pgntune trace` (anything may follow on it).
//! * Then one `# term NAME MARK VALUES` line per term, in the engine's
//!   order: `MARK` is `tapered` (two values: middlegame, endgame) or
//!   `single` (one value). The values are the engine's current ones in
//!   centipawns: the tuner starts from them and its ridge (`--lambda`)
//!   pulls toward them. Names are unique, without spaces, `:` or `#`; a
//!   tapered term `x` has the weight columns `mg_x` and `eg_x`, an untapered
//!   one the column `x` (names for `--freeze`, reports and weights files).
//! * Optional `# hold NAME COLUMN COLUMN ...` lines (after the terms): the
//!   tuner keeps the sum of these columns at its start. For a level the
//!   data cannot identify, such as a piece-square table's mean beside the
//!   piece's value (otherwise `--lambda` settles it).
//! * Other lines starting with `#` are comments; blank lines are skipped.
//! * A row is a position: `RESULT PHASE [eval=CP] [game=ID] INDEX:COEF ...`
//!   - `RESULT`: white's score in the game, `1`, `0.5` or `0`;
//!   - `PHASE`: a whole number from 0 (bare kings) to 24 (all pieces),
//!     the weight of the middlegame values (an engine with another taper
//!     scale maps its own onto 0..24);
//!   - `eval=CP`: an optional evaluation label in centipawns, white's view
//!     (for `--eval-weight`);
//!   - `game=ID`: the game, a whole number (for `--holdout`, which holds out
//!     whole games); a row without one is a game of its own;
//!   - `INDEX:COEF`: term `INDEX` (counting from 1 in header order) with
//!     coefficient `COEF`, a whole number from −32768 to 32767 (white's count
//!     minus black's); terms not listed are 0, each term at most once.
//!
//! Rows are read in batches and stored as pgntune's own training
//! positions, two bytes a term: millions of positions fit in a few GB.
//!
//! # The Parquet format
//!
//! The same content in a Parquet file ([`read_parquet_trace`],
//! [`write_parquet_trace`]), told from other Parquet files by its
//! key-value metadata, whatever the file's name:
//!
//! * metadata key `pgntune.trace` ([`KEY`]): the header, the text format's
//!   header lines (`# pgntune trace`, `# term`, `# hold`, comments) joined
//!   by newlines, without rows;
//! * one row a position, in the columns (others are ignored):
//!   - `result`: float or integer, white's score `1`, `0.5` or `0`;
//!   - `phase`: integer (or whole float) from 0 to 24;
//!   - `terms`: list of integers, the term indices counting from 1 in header
//!     order (as `INDEX` in the text);
//!   - `coefs`: list of integers from −32768 to 32767, their coefficients,
//!     as long as `terms`; an empty pair of lists is a row without terms;
//!   - `eval` (optional): float, the label in centipawns from white's view,
//!     null (or NaN) where a row has none;
//!   - `game` (optional): integer of at least 0 (or a whole float below
//!     2^53), null where a row has none; such a row gets its row number
//!     (from 0) as its game.
//!
//! Integer columns are 32 or 64 bits wide: pgntune's polars is built
//! without 8- and 16-bit integers, and a file with them in these columns is
//! refused, naming the column. The file is read one row group at a time.
//! With polars in Python (pyarrow: `pq.write_table(table.replace_schema_metadata({"pgntune.trace": header}), path)`):
//!
//! ```python
//! import polars as pl
//!
//! header = "# pgntune trace\n# term pawn tapered 82 94\n# term tempo single 20\n"
//! pl.DataFrame({
//!     "result": [1.0, 0.5],
//!     "phase": [24, 11],
//!     "eval": [None, 35.0],
//!     "game": [1, 7],
//!     "terms": [[1, 2], [1]],      # counting from 1
//!     "coefs": [[1, 1], [-2]],
//! }).write_parquet("positions.parquet", metadata={"pgntune.trace": header})
//! ```

use std::io::{BufRead, Write};
use std::path::Path;

use super::positions::Positions;
use super::{DatasetError, GameResult, RowBatch};
use crate::atomic::{AtomicFile, OutputError};
use crate::features::custom::{CustomTerm, CustomTerms, SINGLE, TAPERED};
use crate::features::{FeatureLayout, TermColumns, TermValue};

mod parquet;

pub use self::parquet::{KEY, is_parquet_trace, read_parquet_trace, write_parquet_trace};

/// The first line of every trace (and how one is recognised).
pub const HEADER: &str = "# pgntune trace";

/// Rows per batch handed to the consumer.
const BATCH: usize = 4096;

/// Parses a `# term` line's words after `term`.
fn parse_term(text: &str) -> Result<CustomTerm, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let Some((&name, rest)) = words.split_first() else { return Err("'# term' without a name".into()) };
    let Some((&mark, values)) = rest.split_first() else {
        return Err(format!("term '{name}': no mark ('{TAPERED}' or '{SINGLE}') and values"));
    };
    let tapered = match mark {
        TAPERED => true,
        SINGLE => false,
        _ => return Err(format!("term '{name}': mark '{mark}' is not '{TAPERED}' or '{SINGLE}'")),
    };
    let want = if tapered { 2 } else { 1 };
    if values.len() != want {
        let what = if tapered { "two values (middlegame, endgame)" } else { "one value" };
        return Err(format!("term '{name}' is {mark} and needs {what}, found {}", values.len()));
    }
    let values = values
        .iter()
        .map(|v| v.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| format!("term '{name}': value '{v}' is not a number")))
        .collect::<Result<Vec<f64>, String>>()?;
    Ok(CustomTerm { name: name.to_string(), tapered, values })
}

/// One row's fields.
struct TraceRow {
    result: GameResult,
    phase: u8,
    eval: f32,
    game: Option<u64>,
}

/// Parses a row into its fields and its terms (sorted, into `terms`).
fn parse_row(line: &str, count: usize, terms: &mut Vec<TermValue>) -> Result<TraceRow, String> {
    let mut words = line.split_whitespace();
    let result = words.next().unwrap_or_default();
    let result =
        result.parse::<f64>().ok().and_then(GameResult::from_score).ok_or_else(|| format!("result '{result}' is not 1, 0.5 or 0 (white's score)"))?;
    let phase = words.next().ok_or("no phase after the result")?;
    let phase = phase.parse::<u8>().ok().filter(|&p| p <= 24).ok_or_else(|| format!("phase '{phase}' is not a whole number from 0 to 24"))?;
    let mut row = TraceRow { result, phase, eval: f32::NAN, game: None };
    terms.clear();
    for word in words {
        if let Some(v) = word.strip_prefix("eval=") {
            row.eval = v.parse::<f32>().ok().filter(|x| x.is_finite()).ok_or_else(|| format!("eval '{v}' is not a number"))?;
        } else if let Some(v) = word.strip_prefix("game=") {
            row.game = Some(v.parse::<u64>().map_err(|_| format!("game '{v}' is not a whole number of at least 0"))?);
        } else {
            let (i, c) = word.split_once(':').ok_or_else(|| format!("'{word}' is not INDEX:COEF, eval=CP or game=ID"))?;
            let index: usize = i.parse().map_err(|_| format!("'{word}': term index '{i}' is not a whole number"))?;
            let coef: i16 = c.parse().map_err(|_| format!("'{word}': coefficient '{c}' is not a whole number from -32768 to 32767"))?;
            if index == 0 || index > count {
                return Err(format!("term index {index} is beyond the {count} terms of the header (they count from 1)"));
            }
            if coef != 0 {
                terms.push(TermValue { term: (index - 1) as u16, value: coef });
            }
        }
    }
    terms.sort_unstable_by_key(|t| t.term);
    if let Some(w) = terms.windows(2).find(|w| w[0].term == w[1].term) {
        return Err(format!("term index {} is given twice", w[0].term + 1));
    }
    Ok(row)
}

/// Reads a text trace, calling `sink` with its layout and batches of rows.
/// Rows without `game=` get their line number as game id.
pub fn read_trace(path: &Path, sink: &mut dyn FnMut(&FeatureLayout, &RowBatch) -> Result<(), DatasetError>) -> Result<(), DatasetError> {
    let invalid = |message: String| DatasetError::Invalid { path: path.display().to_string(), message };
    let file = super::text::open(path).map_err(|source| DatasetError::Io { path: path.display().to_string(), source })?;
    let reader = std::io::BufReader::with_capacity(1 << 16, file);
    let mut declared: Vec<CustomTerm> = Vec::new();
    let mut holds: Vec<(usize, String)> = Vec::new();
    let mut layout: Option<FeatureLayout> = None;
    let mut batch = RowBatch::default();
    let mut terms = Vec::new();
    let mut lines = 0;
    for (n, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| invalid(super::text::line_error(n as u64 + 1, &e)))?;
        lines = n + 1;
        let at = |m: String| invalid(format!("line {}: {m}", n + 1));
        if n == 0 {
            if !line.starts_with(HEADER) {
                return Err(at(format!("no '{HEADER}' header (a trace starts with it, then a '# term NAME tapered|single VALUES' line per term)")));
            }
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            if let Some(rest) = comment.trim_start().strip_prefix("term ") {
                if layout.is_some() || !holds.is_empty() {
                    return Err(at("a '# term' line after the first row or '# hold' line (the terms come first)".into()));
                }
                declared.push(parse_term(rest).map_err(&at)?);
            } else if let Some(rest) = comment.trim_start().strip_prefix("hold ") {
                if layout.is_some() {
                    return Err(at("a '# hold' line after the first row (the header comes first)".into()));
                }
                holds.push((n + 1, rest.to_string()));
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        if layout.is_none() {
            if declared.is_empty() {
                return Err(at("a row before any '# term' line (the header declares the terms)".into()));
            }
            let custom =
                terms_of(std::mem::take(&mut declared), &holds).map_err(|(line, e)| invalid(format!("line {}: {e}", line.unwrap_or(n + 1))))?;
            layout = Some(FeatureLayout::custom(custom));
        }
        let l = layout.as_ref().expect("set above");
        let row = parse_row(&line, l.term_count(), &mut terms).map_err(&at)?;
        batch.push_features(&terms, row.phase);
        batch.results.push(row.result);
        batch.games.push(row.game.unwrap_or(n as u64));
        batch.plies.push(0);
        batch.evals.push(row.eval);
        if batch.len() >= BATCH {
            sink(l, &batch)?;
            batch.clear();
        }
    }
    if lines == 0 {
        return Err(invalid(format!("empty: no '{HEADER}' header")));
    }
    let layout = match layout {
        Some(l) => l,
        // A header without rows: its terms, no positions.
        None => FeatureLayout::custom(terms_of(declared, &holds).map_err(|(line, e)| match line {
            Some(line) => invalid(format!("line {line}: {e}")),
            None => invalid(e),
        })?),
    };
    // Also when empty: the consumer learns the layout.
    sink(&layout, &batch)?;
    Ok(())
}

/// The layout of a header given as text (a Parquet trace's metadata):
/// the same lines as a text trace's header, without rows. An error names
/// the header's line.
pub(crate) fn parse_header(text: &str) -> Result<FeatureLayout, String> {
    let mut declared = Vec::new();
    let mut holds: Vec<(usize, String)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = |m: String| format!("line {}: {m}", n + 1);
        if n == 0 {
            if !line.starts_with(HEADER) {
                return Err(at(format!("no '{HEADER}' header")));
            }
            continue;
        }
        let Some(comment) = line.strip_prefix('#') else {
            if line.trim().is_empty() {
                continue;
            }
            return Err(at("not a '#' line (the header holds no rows)".into()));
        };
        if let Some(rest) = comment.trim_start().strip_prefix("term ") {
            if !holds.is_empty() {
                return Err(at("a '# term' line after a '# hold' line (the terms come first)".into()));
            }
            declared.push(parse_term(rest).map_err(at)?);
        } else if let Some(rest) = comment.trim_start().strip_prefix("hold ") {
            holds.push((n + 1, rest.to_string()));
        }
    }
    if declared.is_empty() {
        return Err(format!("no '# term' line (the header declares the terms: '# term NAME {TAPERED}|{SINGLE} VALUES')"));
    }
    let terms = terms_of(declared, &holds).map_err(|(line, e)| match line {
        Some(line) => format!("line {line}: {e}"),
        None => e,
    })?;
    Ok(FeatureLayout::custom(terms))
}

/// The declared terms with their held sums (`# hold NAME COLUMN...`);
/// an error with the line of the `# hold` it is about.
fn terms_of(declared: Vec<CustomTerm>, holds: &[(usize, String)]) -> Result<CustomTerms, (Option<usize>, String)> {
    let mut terms = CustomTerms::new(declared).map_err(|e| (None, e.to_string()))?;
    for (line, text) in holds {
        let words: Vec<&str> = text.split_whitespace().collect();
        let Some((name, columns)) = words.split_first().filter(|(_, c)| c.len() >= 2) else {
            return Err((Some(*line), "'# hold' needs a name and at least two columns".into()));
        };
        terms.hold(name, columns).map_err(|e| (Some(*line), e.to_string()))?;
    }
    Ok(terms)
}

/// The `# term` lines of a trace of `layout` with current values `start`
/// (per column).
pub fn header_of(layout: &FeatureLayout, start: &[f64], held: &[(String, Vec<usize>)]) -> String {
    let mut out = format!("{HEADER}\n");
    for (t, name) in layout.term_names().iter().enumerate() {
        match layout.term_columns(t) {
            TermColumns::Single(c) => out.push_str(&format!("# term {name} {SINGLE} {}\n", start[c])),
            TermColumns::Tapered { mg, eg } => out.push_str(&format!("# term {name} {TAPERED} {} {}\n", start[mg], start[eg])),
        }
    }
    let columns = layout.columns();
    for (name, held) in held {
        let name: String = name.chars().map(|c| if c.is_whitespace() { '_' } else { c }).collect();
        let names: Vec<&str> = held.iter().map(|&c| columns[c].as_str()).collect();
        out.push_str(&format!("# hold {name} {}\n", names.join(" ")));
    }
    out
}

/// Writes `positions` as a trace with the current values `start` (per
/// column of their layout) and the sums `held` (name, columns of their
/// layout): any layout, pgntune's own too, whose terms then tune as an
/// engine's own.
pub fn write_trace(positions: &Positions, start: &[f64], held: &[(String, Vec<usize>)], path: &Path) -> Result<(), DatasetError> {
    let mut file = AtomicFile::create(path)?;
    let io = |e| DatasetError::from(OutputError::new(path, e));
    file.write_all(header_of(positions.layout(), start, held).as_bytes()).map_err(io)?;
    let mut line = String::new();
    for i in 0..positions.len() {
        line.clear();
        line.push_str(positions.result(i).score_str());
        line.push_str(&format!(" {}", positions.phase(i)));
        let eval = positions.eval(i);
        if !eval.is_nan() {
            line.push_str(&format!(" eval={eval}"));
        }
        if positions.games_known() {
            line.push_str(&format!(" game={}", positions.game(i)));
        }
        for t in positions.terms(i) {
            line.push_str(&format!(" {}:{}", t.term + 1, t.value));
        }
        line.push('\n');
        file.write_all(line.as_bytes()).map_err(io)?;
    }
    Ok(file.commit()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<(FeatureLayout, RowBatch), String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.trace");
        std::fs::write(&path, text).unwrap();
        let mut all = RowBatch::default();
        let mut layout = None;
        read_trace(&path, &mut |l, b| {
            layout = Some(l.clone());
            all.append(b);
            Ok(())
        })
        .map_err(|e| e.to_string())?;
        Ok((layout.unwrap(), all))
    }

    const GOOD: &str =
        "# pgntune trace\n# term pawn tapered 82 94\n# a comment\n# term tempo single 20\n1 24 1:2 2:1\n\n0.5 3 game=7 eval=-35.5 2:-1\n0 0\n";

    #[test]
    fn rows_read_with_their_terms_phases_labels_and_games() {
        let (layout, b) = read(GOOD).unwrap();
        assert_eq!(layout.columns(), ["mg_pawn", "eg_pawn", "tempo"]);
        assert_eq!(layout.custom_start().unwrap(), [82.0, 94.0, 20.0]);
        assert_eq!(b.len(), 3);
        assert_eq!(b.row_terms(0), [TermValue { term: 0, value: 2 }, TermValue { term: 1, value: 1 }]);
        assert_eq!(b.row_terms(1), [TermValue { term: 1, value: -1 }]);
        assert_eq!((b.phases.as_slice(), b.games.as_slice()), ([24, 3, 0].as_slice(), [4, 7, 7].as_slice()));
        assert_eq!(b.evals[1], -35.5);
        assert_eq!(b.results, [GameResult::WhiteWins, GameResult::Draw, GameResult::BlackWins]);
    }

    #[test]
    fn bad_traces_are_refused_with_their_line() {
        let cases = [
            ("# term a single 1\n1 0 1:1\n", "line 1: no '# pgntune trace' header"),
            ("# pgntune trace\n1 0 1:1\n", "line 2: a row before any '# term' line"),
            ("# pgntune trace\n# term a single 1\n1 0 2:1\n", "line 3: term index 2 is beyond the 1 terms of the header"),
            ("# pgntune trace\n# term a single 1\n# term a tapered 1 2\n1 0\n", "line 4: term 'a' is declared twice"),
            ("# pgntune trace\n# term a taper 1 2\n", "line 2: term 'a': mark 'taper' is not 'tapered' or 'single'"),
            ("# pgntune trace\n# term a single x\n", "line 2: term 'a': value 'x' is not a number"),
            ("# pgntune trace\n# term a tapered 1\n", "line 2: term 'a' is tapered and needs two values"),
            ("# pgntune trace\n# term a single 1\n1 0 1:x\n", "coefficient 'x' is not a whole number"),
            ("# pgntune trace\n# term a single 1\n1 25 1:1\n", "phase '25' is not a whole number from 0 to 24"),
            ("# pgntune trace\n# term a single 1\nwin 3 1:1\n", "result 'win' is not 1, 0.5 or 0"),
            ("# pgntune trace\n# term a single 1\n1 3 1:1 1:2\n", "term index 1 is given twice"),
            ("# pgntune trace\n# term a single 1\n1 3 1:1\n# term b single 1\n", "line 4: a '# term' line after the first row"),
            ("", "empty: no '# pgntune trace' header"),
        ];
        for (text, want) in cases {
            let err = read(text).unwrap_err();
            assert!(err.contains(want), "{text:?}: {err}");
        }
    }

    #[test]
    fn a_written_trace_reads_back_as_the_same_positions() {
        let layout = FeatureLayout::parse("material_tapered,tempo").unwrap();
        let mut p = Positions::new(layout.clone()).unwrap();
        p.push(&[TermValue { term: 0, value: 3 }, TermValue { term: 5, value: 1 }], 17, 1.0, 12.5, 4);
        p.push(&[TermValue { term: 4, value: -9 }], 2, 0.0, f32::NAN, 9);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.trace");
        let start: Vec<f64> = (0..layout.len()).map(|j| j as f64 * 10.0).collect();
        write_trace(&p, &start, &[("the queen".into(), vec![4, 9])], &path).unwrap();
        let (back, b) = read(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(back.term_names(), layout.term_names());
        assert_eq!(back.custom_terms().unwrap().held(), [("the_queen".to_string(), vec![8, 9])]);
        assert_eq!(b.row_terms(0), p.terms(0));
        assert_eq!(b.row_terms(1), p.terms(1));
        assert_eq!((b.phases.as_slice(), b.games.as_slice()), ([17, 2].as_slice(), [4, 9].as_slice()));
        assert_eq!(b.evals[0], 12.5);
        let err = read("# pgntune trace\n# term a single 1\n# term b single 1\n# hold x a c\n1 0\n").unwrap_err();
        assert!(err.contains("line 4: 'c' is no column of the terms"), "{err}");
        assert!(b.evals[1].is_nan());
    }
}
