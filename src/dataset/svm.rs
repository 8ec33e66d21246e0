//! LIBSVM lines (`.svm`): one row per line, `label index:value ...`, the
//! format Spark MLlib reads natively (`spark.read.format("libsvm")`), as do
//! scikit-learn's `load_svmlight_file`, LIBLINEAR and XGBoost.
//!
//! * The label is white's score: `1`, `0.5` or `0`.
//! * Indices count from 1 and rise along the line; index `j` is the
//!   layout's column `j` (tapered terms' columns hold `count · p/24` and
//!   `count · (24 − p)/24`, as in every other format). Zeros are left out,
//!   so a position of a whole evaluation costs its ~50 non-zero terms.
//! * Lines starting with `#` are comments for LIBSVM readers; pgntune puts
//!   its side channel there. The header names the layout and its columns;
//!   before each game's rows a line `# game G plies P1 P2 ...` gives the
//!   game id and the ply of each of the rows that follow (and, with
//!   `--eval-labels`, `evals E1 E2 ...` in centipawns, `nan` for none).
//!
//! ```text
//! # pgntune rows (LIBSVM): label = white's score; indices 1..5 = the layout's columns
//! # layout: material
//! # columns: P N B R Q
//! # game 0 plies 23 40
//! 1 1:1
//! 1 1:1 2:1 3:-1
//! ```
//!
//! Game ids are those of extraction (0-based over all games read, plus
//! `--game-base`), so the rows of shards extracted apart, each with its
//! shard's first game as base, have the ids of one extraction of all of
//! them. Spark: `spark.read.format("libsvm").option("numFeatures", C)`
//! (C from the header; without it Spark takes the largest index seen);
//! the comment lines are skipped there, so the game ids are only for
//! readers that look for them (pgntune's, `scale/spark`'s).
//!
//! PGN tags and FENs are not written (use CSV, TSV or Parquet for them).

use std::io::{BufRead, Write};
use std::path::Path;

use super::columns::ColumnDecoder;
use super::{DatasetError, GameResult, RowBatch, RowWriter, Schema};
use crate::atomic::{AtomicFile, OutputError};
use crate::features::FeatureLayout;

/// The first line of every `.svm` file pgntune writes (and how it is recognised).
pub const HEADER: &str = "# pgntune rows (LIBSVM)";

pub(super) struct SvmWriter {
    file: AtomicFile,
    layout: FeatureLayout,
    line: Vec<u8>,
    pairs: Vec<(usize, f64)>,
}

impl SvmWriter {
    pub(super) fn create(path: &Path, schema: &Schema) -> Result<SvmWriter, DatasetError> {
        let mut file = AtomicFile::create(path)?;
        let header = format!(
            "{HEADER}: label = white's score; indices 1..{} = the layout's columns\n# layout: {}\n# columns: {}\n",
            schema.layout.len(),
            schema.layout.spec(),
            schema.features.join(" ")
        );
        file.write_all(header.as_bytes()).map_err(|e| OutputError::new(path, e))?;
        Ok(SvmWriter { file, layout: schema.layout.clone(), line: Vec::with_capacity(1024), pairs: Vec::new() })
    }
}

impl RowWriter for SvmWriter {
    fn write(&mut self, batch: &RowBatch) -> Result<(), DatasetError> {
        let mut numbers = super::number_text::NumberText::new();
        let mut start = 0;
        // Rows come game by game: a comment line per run of rows of one game.
        while start < batch.len() {
            let game = batch.games[start];
            let end = (start..batch.len()).find(|&r| batch.games[r] != game).unwrap_or(batch.len());
            let line = &mut self.line;
            line.clear();
            line.extend_from_slice(b"# game ");
            line.extend_from_slice(numbers.int(game).as_bytes());
            line.extend_from_slice(b" plies");
            for r in start..end {
                line.push(b' ');
                line.extend_from_slice(numbers.int(batch.plies[r]).as_bytes());
            }
            if !batch.evals.is_empty() {
                line.extend_from_slice(b" evals");
                for r in start..end {
                    let eval = batch.evals[r];
                    line.push(b' ');
                    if eval.is_nan() {
                        line.extend_from_slice(b"nan");
                    } else {
                        line.extend_from_slice(eval.to_string().as_bytes());
                    }
                }
            }
            line.push(b'\n');
            for r in start..end {
                self.layout.sparse_columns(batch.row_terms(r), batch.phases[r], &mut self.pairs);
                line.extend_from_slice(batch.results[r].score_str().as_bytes());
                for &(j, v) in &self.pairs {
                    if v != 0.0 {
                        line.push(b' ');
                        line.extend_from_slice(numbers.int(j + 1).as_bytes());
                        line.push(b':');
                        numbers.push(line, v);
                    }
                }
                line.push(b'\n');
            }
            self.file.write_all(line).map_err(|e| OutputError::new(self.file.target(), e))?;
            start = end;
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), DatasetError> {
        Ok(self.file.commit()?)
    }
}

/// The game line's ids and plies (and labels) for the rows that follow it.
#[derive(Debug, Default)]
struct GameLine {
    game: u64,
    plies: Vec<u32>,
    evals: Vec<f32>,
    /// Rows of this game read so far.
    used: usize,
}

/// Parses `game G plies P... [evals E...]`.
fn parse_game_line(text: &str) -> Result<GameLine, String> {
    let mut words = text.split_whitespace();
    let game = words.next().and_then(|g| g.parse().ok()).ok_or_else(|| format!("'# game {text}': no game id"))?;
    let mut line = GameLine { game, ..GameLine::default() };
    let mut list = None;
    for word in words {
        match word {
            "plies" | "evals" => list = Some(word),
            _ => match list {
                Some("plies") => line.plies.push(word.parse().map_err(|_| format!("ply '{word}' is not a number"))?),
                Some(_) => line.evals.push(word.parse().map_err(|_| format!("label '{word}' is not a number"))?),
                None => return Err(format!("'{word}' after the game id (expected 'plies')")),
            },
        }
    }
    if !line.evals.is_empty() && line.evals.len() != line.plies.len() {
        return Err(format!("{} plies but {} labels", line.plies.len(), line.evals.len()));
    }
    Ok(line)
}

/// Checks a `# columns:` line against the layout before it: the same
/// names in the same order.
fn check_columns(layout: &FeatureLayout, names: &str) -> Result<(), String> {
    let names: Vec<&str> = names.split_whitespace().collect();
    let want = layout.columns();
    if names.len() != want.len() {
        return Err(format!("the '# columns:' line names {} columns, the layout '{}' has {}", names.len(), layout.spec(), want.len()));
    }
    match names.iter().zip(&want).position(|(a, b)| a != b) {
        Some(j) => Err(format!("column {} is '{}' on the '# columns:' line, but '{}' in the layout '{}'", j + 1, names[j], want[j], layout.spec())),
        None => Ok(()),
    }
}

/// Reads a `.svm` file written by pgntune (or LIBSVM lines with its
/// `# layout:` header), calling `sink` with batches of rows. Rows without a
/// `# game` line before them get their line number as game id.
pub fn read_svm(path: &Path, sink: &mut dyn FnMut(&FeatureLayout, &RowBatch) -> Result<(), DatasetError>) -> Result<(), DatasetError> {
    let invalid = |message: String| DatasetError::Invalid { path: path.display().to_string(), message };
    let file = super::text::open(path).map_err(|source| DatasetError::Io { path: path.display().to_string(), source })?;
    let reader = std::io::BufReader::with_capacity(1 << 16, file);
    let mut layout: Option<(FeatureLayout, ColumnDecoder)> = None;
    let mut game: Option<GameLine> = None;
    let mut batch = RowBatch::default();
    let (mut pairs, mut terms) = (Vec::new(), Vec::new());
    for (n, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| invalid(super::text::line_error(n as u64 + 1, &e)))?;
        let at = |m: String| invalid(format!("line {}: {m}", n + 1));
        if let Some(comment) = line.strip_prefix('#') {
            let comment = comment.trim();
            if let Some(spec) = comment.strip_prefix("layout:") {
                let l = FeatureLayout::parse(spec.trim()).map_err(|e| at(e.to_string()))?;
                let decoder = ColumnDecoder::new(&l);
                if let Some((previous, _)) = &layout
                    && !batch.is_empty()
                {
                    sink(previous, &batch)?;
                    batch.clear();
                }
                layout = Some((l, decoder));
            } else if let Some(names) = comment.strip_prefix("columns:") {
                // The layout line alone once decided: one edited from
                // `material` to `full` read P..Q as mg_P..mg_Q.
                let Some((l, _)) = &layout else { return Err(at("a '# columns:' line before the '# layout:' line".into())) };
                check_columns(l, names).map_err(&at)?;
            } else if let Some(rest) = comment.strip_prefix("game ") {
                if let Some(g) = &game
                    && g.used < g.plies.len()
                {
                    return Err(at(format!("game {} lists {} plies but has {} rows", g.game, g.plies.len(), g.used)));
                }
                game = Some(parse_game_line(rest).map_err(&at)?);
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let Some((l, decoder)) = &mut layout else {
            return Err(at("no '# layout:' header line before the rows (not a pgntune .svm file)".into()));
        };
        let mut words = line.split_whitespace();
        let label = words.next().unwrap_or_default();
        let score: f64 = label.parse().map_err(|_| at(format!("label '{label}' is not a number")))?;
        let result = GameResult::from_score(score).ok_or_else(|| at(format!("label {score} is not 0, 0.5 or 1 (white's score)")))?;
        pairs.clear();
        for item in words {
            let parsed = item.split_once(':').and_then(|(j, v)| Some((j.parse::<usize>().ok()?, v.parse::<f64>().ok().filter(|v| v.is_finite())?)));
            let Some((j, v)) = parsed else { return Err(at(format!("'{item}' is not index:value"))) };
            if j == 0 || pairs.last().is_some_and(|&(prev, _)| j - 1 <= prev) {
                return Err(at(format!("index {j}: indices count from 1 and rise along the line")));
            }
            pairs.push((j - 1, v));
        }
        let phase = decoder.decode(pairs.iter().copied(), &mut terms).map_err(|e| at(e.to_string()))?;
        let (id, ply, eval) = match &mut game {
            Some(g) if g.used < g.plies.len() => {
                g.used += 1;
                (g.game, g.plies[g.used - 1], g.evals.get(g.used - 1).copied().unwrap_or(f32::NAN))
            }
            Some(g) => return Err(at(format!("more rows than the {} plies listed for game {}", g.plies.len(), g.game))),
            None => (n as u64, 0, f32::NAN),
        };
        batch.push_features(&terms, phase.unwrap_or(0));
        batch.results.push(result);
        batch.games.push(id);
        batch.plies.push(ply);
        batch.evals.push(eval);
        if batch.len() >= 4096 {
            sink(l, &batch)?;
            batch.clear();
        }
    }
    let Some((l, _)) = layout else {
        return Err(invalid("no '# layout:' header line (not a pgntune .svm file)".into()));
    };
    if let Some(g) = &game
        && g.used < g.plies.len()
    {
        return Err(invalid(format!("game {} lists {} plies but the file ends after {} of its rows", g.game, g.plies.len(), g.used)));
    }
    if !batch.is_empty() {
        sink(&l, &batch)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_lines_parse_and_bad_ones_are_refused() {
        let g = parse_game_line("17 plies 3 9 evals 35 nan").unwrap();
        assert_eq!((g.game, g.plies.as_slice()), (17, [3, 9].as_slice()));
        assert_eq!(g.evals[0], 35.0);
        assert!(g.evals[1].is_nan());
        assert!(parse_game_line("x plies 1").is_err());
        assert!(parse_game_line("3 plies 1 2 evals 5").unwrap_err().contains("2 plies but 1 labels"));
        assert!(parse_game_line("3 4").is_err());
    }

    #[test]
    fn rows_read_back_with_their_games_and_plies() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.svm");
        let schema = Schema::new(FeatureLayout::default());
        let mut batch = RowBatch::new(&schema);
        for (i, (terms, result, game, ply)) in [
            (vec![(0u16, 1i16)], GameResult::WhiteWins, 7u64, 12u32),
            (vec![(0, 1), (3, -1)], GameResult::WhiteWins, 7, 30),
            (vec![], GameResult::Draw, 9, 4),
        ]
        .into_iter()
        .enumerate()
        {
            let terms: Vec<_> = terms.into_iter().map(|(term, value)| crate::features::TermValue { term, value }).collect();
            batch.push_features(&terms, 0);
            batch.results.push(result);
            batch.games.push(game);
            batch.plies.push(ply);
            assert_eq!(batch.len(), i + 1);
        }
        let mut writer: Box<dyn RowWriter> = Box::new(SvmWriter::create(&path, &schema).unwrap());
        writer.write(&batch).unwrap();
        writer.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("# game 7 plies 12 30\n1 1:1\n1 1:1 4:-1\n# game 9 plies 4\n0.5\n"), "{text}");
        let mut back = RowBatch::default();
        read_svm(&path, &mut |_, b| {
            back.append(b);
            Ok(())
        })
        .unwrap();
        assert_eq!((back.terms, back.games, back.plies, back.results), (batch.terms, batch.games, batch.plies, batch.results));
        std::fs::write(&path, format!("{HEADER}\n# layout: material\n# game 1 plies 3 4\n1 1:1\n")).unwrap();
        assert!(read_svm(&path, &mut |_, _| Ok(())).unwrap_err().to_string().contains("lists 2 plies"));
        std::fs::write(&path, "# layout: material\n1 2:1 1:1\n").unwrap();
        assert!(read_svm(&path, &mut |_, _| Ok(())).unwrap_err().to_string().contains("rise along the line"));
    }
}
