//! What an output is, so that an existing file can be recognised as an
//! earlier output of the same kind (which a command may replace without
//! `--force`) rather than a file of the user's.
//!
//! Recognition reads the start of the file (the whole footer for
//! Parquet). It errs on the side of refusing: a file is recognised only
//! when it carries what pgntune itself writes there.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::carries_written_mark;
use crate::dataset::Format;

/// The comment that opens every SVG figure pgntune draws.
pub const FIGURE_SVG_MARK: &str = "<!-- drawn by pgntune -->";

/// The `tEXt` chunk (keyword `Software`) of every PNG figure pgntune draws,
/// as it appears in the file.
pub const FIGURE_PNG_MARK: &[u8] = b"tEXtSoftware\0pgntune";

/// How much of a file recognition reads.
const HEAD_BYTES: u64 = 64 << 10;

/// The kinds of file pgntune writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// Rows written by `extract` in this format.
    Dataset(Format),
    /// `extract --score-table`.
    ScoreTable,
    /// A weights file (`--weights-out`).
    Weights,
    /// `--trace`: a CSV row per iteration.
    Trace,
    /// A figure (PNG or SVG) in a `--plot` folder.
    Figure,
    /// An opening suite written by `openings`: never replaced without
    /// `--force`, since it is plain EPD with nothing to mark it, and a
    /// user's opening book (UHO, 8moves, ...) looks the same.
    Openings,
    /// The games of a match (`--pgn-out`): never replaced without
    /// `--force`, since a match appends to it and a user's PGN looks the same.
    MatchGames,
    /// The games of `selfplay --out` (plain or compressed PGN).
    SelfplayGames,
    /// A match state (`--state`).
    State,
    /// Source code or JSON of tuned terms (`--emit`).
    Source,
    /// A shard of `pgntune split` (PGN, maybe compressed): recognised by
    /// the split manifest beside it, which lists it.
    Shard,
    /// The manifest of `pgntune split`.
    SplitManifest,
}

impl OutputKind {
    /// What the kind is called in messages.
    pub fn describe(self) -> &'static str {
        match self {
            OutputKind::Dataset(Format::Mat) => "a .mat dataset",
            OutputKind::Dataset(Format::Csv) => "a CSV dataset",
            OutputKind::Dataset(Format::Tsv) => "a TSV dataset",
            OutputKind::Dataset(Format::Parquet) => "a Parquet dataset",
            OutputKind::Dataset(Format::Octave) => "an Octave dataset",
            OutputKind::Dataset(Format::Epd) => "an EPD dataset",
            OutputKind::Dataset(Format::Ijv) => "a sparse triplet dataset",
            OutputKind::Dataset(Format::Svm) => "a LIBSVM dataset",
            OutputKind::Source => "emitted source code",
            OutputKind::ScoreTable => "a score table",
            OutputKind::Weights => "a weights file",
            OutputKind::Trace => "a fit trace",
            OutputKind::Figure => "a figure",
            OutputKind::Openings => "an opening suite",
            OutputKind::MatchGames => "the games of a match",
            OutputKind::SelfplayGames => "self-play games",
            OutputKind::State => "a match state",
            OutputKind::Shard => "a shard listed in the split manifest beside it",
            OutputKind::SplitManifest => "a split manifest",
        }
    }

    /// Why an existing file of this kind is never replaced without
    /// `--force`, for the kinds whose files carry no mark of pgntune's.
    pub fn never_replaced_because(self) -> Option<&'static str> {
        match self {
            OutputKind::MatchGames => Some("a new match writes its games afresh"),
            OutputKind::Openings => Some("an opening suite looks like any EPD book, so it may be yours"),
            _ => None,
        }
    }

    /// True when the file at `path` is one pgntune wrote as this kind.
    pub fn recognises(self, path: &Path) -> bool {
        let Ok(head) = head(path) else { return false };
        match self {
            // These formats have no room for a mark of pgntune's: a
            // hand-written file with the same header (or pgnlearn's own
            // matrix) is the user's unless the file carries the mark.
            OutputKind::Dataset(Format::Mat) => is_integer_matrix(&head) && carries_written_mark(path),
            OutputKind::Dataset(Format::Csv) => header_has_metadata(&head, b',') && carries_written_mark(path),
            OutputKind::Dataset(Format::Tsv) => header_has_metadata(&head, b'\t') && carries_written_mark(path),
            OutputKind::Dataset(Format::Octave) => head.starts_with(b"# Created by pgntune"),
            OutputKind::Dataset(Format::Parquet) => is_pgntune_parquet(path),
            OutputKind::Dataset(Format::Epd) => is_epd(&head, EPD_DATASET_OPCODES, &["hmvc", "fmvn", "c9"]),
            OutputKind::Dataset(Format::Ijv) => head.starts_with(b"% pgntune sparse rows"),
            OutputKind::Dataset(Format::Svm) => head.starts_with(crate::dataset::svm::HEADER.as_bytes()),
            OutputKind::Source => contains(&head[..head.len().min(200)], b"written by pgntune"),
            OutputKind::ScoreTable => head.starts_with(b"balance,rows,points,score\n") && carries_written_mark(path),
            OutputKind::Weights => head.starts_with(b"# pgntune weights") || is_json_weights(path),
            OutputKind::Trace => head.starts_with(b"iteration,") && carries_written_mark(path),
            // pgntune's figures carry its name: a PNG `tEXt` chunk, an SVG
            // comment (see `analysis::plots`). Any other picture is the user's.
            OutputKind::Figure => {
                (head.starts_with(b"\x89PNG\r\n\x1a\n") && contains(&head, FIGURE_PNG_MARK))
                    || (head.starts_with(FIGURE_SVG_MARK.as_bytes()) && contains(&head, b"<svg"))
            }
            OutputKind::Openings => false,
            OutputKind::MatchGames => false,
            OutputKind::SelfplayGames => is_selfplay_pgn(path),
            OutputKind::State => head.starts_with(b"{") && contains(&head, b"\"committed\"") && contains(&head, b"\"config\""),
            OutputKind::Shard => is_listed_shard(path),
            OutputKind::SplitManifest => crate::pgn::split::Manifest::load(path).is_ok(),
        }
    }
}

/// A file the split manifest in its folder lists as a shard.
fn is_listed_shard(path: &Path) -> bool {
    let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else { return false };
    let folder = if folder.as_os_str().is_empty() { Path::new(".") } else { folder };
    crate::pgn::split::Manifest::load(&folder.join(crate::pgn::split::MANIFEST)).is_ok_and(|m| m.shards.iter().any(|s| name == s.file.as_str()))
}

fn head(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    File::open(path)?.take(HEAD_BYTES).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The complete lines of `head` (a last line cut by the read limit is dropped).
fn complete_lines(head: &[u8]) -> impl Iterator<Item = &[u8]> {
    let end = if head.len() as u64 >= HEAD_BYTES { head.iter().rposition(|&b| b == b'\n').unwrap_or(0) } else { head.len() };
    head[..end].split(|&b| b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace))
}

/// pgnlearn's matrix: lines of at least two integers, all the same length.
fn is_integer_matrix(head: &[u8]) -> bool {
    let mut width = None;
    let mut lines = 0;
    for line in complete_lines(head) {
        let Ok(text) = std::str::from_utf8(line) else { return false };
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() < 2 || fields.iter().any(|f| f.parse::<i64>().is_err()) || *width.get_or_insert(fields.len()) != fields.len() {
            return false;
        }
        lines += 1;
    }
    lines > 0
}

/// A header line with pgntune's `result`, `game`, `ply` columns in a row.
fn header_has_metadata(head: &[u8], sep: u8) -> bool {
    let line = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let fields: Vec<&[u8]> = line.split(|&b| b == sep).map(|f| f.trim_ascii()).collect();
    fields.windows(3).any(|w| w == [b"result".as_slice(), b"game", b"ply"])
}

fn is_pgntune_parquet(path: &Path) -> bool {
    use polars::prelude::{ParquetReader, SerReader};
    let Ok(file) = File::open(path) else { return false };
    let Ok(schema) = ParquetReader::new(file).schema() else { return false };
    ["result", "game", "ply"].iter().all(|c| schema.contains(c))
}

fn is_json_weights(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else { return false };
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(&text) else { return false };
    // The mark pgntune writes, not just the keys: a user's hand-written
    // weights in pgntune's format are the user's.
    map.get("written_by").and_then(|v| v.as_str()) == Some(crate::weights::JSON_MARK)
}

/// The operations `extract` writes on an EPD line (move counters, result,
/// evaluation label).
const EPD_DATASET_OPCODES: &[&str] = &["hmvc", "fmvn", "c9", "ce"];

/// Lines of EPD (or comments) as pgntune writes them: operations only from
/// `opcodes`, and every one of `required` on every line. A test suite's
/// `bm` or `id` lines, an opening book without operations, or another
/// tuner's training set (`c9` alone, as in Zurichess' quiet-labeled.epd)
/// are the user's files, not earlier outputs.
fn is_epd(head: &[u8], opcodes: &[&str], required: &[&str]) -> bool {
    let mut positions = 0;
    for line in complete_lines(head) {
        let Ok(text) = std::str::from_utf8(line) else { return false };
        let text = text.trim();
        if text.starts_with('#') {
            continue;
        }
        let mut fields = text.splitn(5, char::is_whitespace);
        let epd: Vec<&str> = fields.by_ref().take(4).collect();
        if epd.join(" ").parse::<shakmaty::fen::Epd>().is_err() {
            return false;
        }
        let operations: Vec<&str> = fields.next().unwrap_or("").split(';').map(str::trim).filter(|op| !op.is_empty()).collect();
        let opcode = |op: &&str| op.split_whitespace().next().unwrap_or("").to_string();
        if !operations.iter().all(|op| opcodes.contains(&opcode(op).as_str()))
            || !required.iter().all(|r| operations.iter().any(|op| opcode(op) == *r))
        {
            return false;
        }
        positions += 1;
    }
    positions > 0
}

/// PGN (plain or compressed) whose first game was played by pgntune.
fn is_selfplay_pgn(path: &Path) -> bool {
    use crate::pgn::input::{ByteCounters, InputSource, open};
    let Ok(stream) = open(&InputSource::File(path.to_path_buf()), &ByteCounters::default()) else { return false };
    let mut text = Vec::new();
    if stream.reader.take(HEAD_BYTES).read_to_end(&mut text).is_err() && text.is_empty() {
        return false;
    }
    text.starts_with(b"[Event \"pgntune selfplay\"]")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn pgntune_outputs_are_recognised_and_other_files_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let pgn = file(d, "games.pgn", b"[Event \"x\"]\n\n1. e4 e5 1-0\n");
        let mat = file(d, "rows.mat", b" 1  0  0  0  0  2\n-1  0  0  0  0  0\n");
        let csv = file(d, "rows.csv", b"P,N,B,R,Q,result,game,ply\n1,0,0,0,0,1,0,3\n");
        let table = file(d, "t.csv", b"balance,rows,points,score\n0,1,1,1.0\n");
        let weights = file(d, "w.toml", b"# pgntune weights: centipawns = ...\nformat = 1\n");
        let epd = file(d, "o.epd", b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n");
        let selfplay = file(d, "s.pgn", b"[Event \"pgntune selfplay\"]\n[Site \"pgntune\"]\n");
        // Written by hand, pgnlearn's matrix and a CSV with pgntune's header
        // are the user's; written by pgntune, they carry its mark.
        assert!(!OutputKind::Dataset(Format::Mat).recognises(&mat), "pgnlearn's own .mat is not pgntune's");
        assert!(!OutputKind::Dataset(Format::Csv).recognises(&csv), "a hand-written CSV with pgntune's header");
        assert!(!OutputKind::ScoreTable.recognises(&table));
        for path in [&mat, &csv, &table] {
            let bytes = std::fs::read(path).unwrap();
            crate::atomic::AtomicFile::write_all(path, &bytes).unwrap();
        }
        assert!(OutputKind::Dataset(Format::Mat).recognises(&mat));
        assert!(OutputKind::Dataset(Format::Csv).recognises(&csv));
        assert!(OutputKind::ScoreTable.recognises(&table));
        // A copy loses the mark (cp does not keep extended attributes).
        let copy = file(d, "copy.csv", &std::fs::read(&csv).unwrap());
        assert!(!OutputKind::Dataset(Format::Csv).recognises(&copy));
        // Figures: pgntune's carry its name; another picture is the user's.
        let theirs_png = file(d, "theirs.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
        let theirs_svg = file(d, "theirs.svg", b"<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>");
        let ours_svg = file(d, "ours.svg", format!("{FIGURE_SVG_MARK}\n<svg></svg>").as_bytes());
        let mut ours_png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        ours_png.extend_from_slice(FIGURE_PNG_MARK);
        let ours_png = file(d, "ours.png", &ours_png);
        assert!(!OutputKind::Figure.recognises(&theirs_png));
        assert!(!OutputKind::Figure.recognises(&theirs_svg));
        assert!(OutputKind::Figure.recognises(&ours_png));
        assert!(OutputKind::Figure.recognises(&ours_svg));
        assert!(OutputKind::Weights.recognises(&weights));
        assert!(!OutputKind::Openings.recognises(&epd), "a user's opening book looks like a suite: never replaced without --force");
        assert!(OutputKind::SelfplayGames.recognises(&selfplay));
        for kind in [
            OutputKind::Dataset(Format::Mat),
            OutputKind::Dataset(Format::Csv),
            OutputKind::Dataset(Format::Tsv),
            OutputKind::Dataset(Format::Parquet),
            OutputKind::Dataset(Format::Octave),
            OutputKind::ScoreTable,
            OutputKind::Weights,
            OutputKind::Trace,
            OutputKind::Figure,
            OutputKind::Openings,
            OutputKind::MatchGames,
            OutputKind::SelfplayGames,
            OutputKind::State,
            OutputKind::Dataset(Format::Epd),
            OutputKind::Dataset(Format::Ijv),
            OutputKind::Source,
        ] {
            assert!(!kind.recognises(&pgn), "{kind:?} took a user's PGN for its own");
        }
        assert!(!OutputKind::Dataset(Format::Csv).recognises(&table));
        assert!(!OutputKind::Dataset(Format::Mat).recognises(&csv));
        assert!(!OutputKind::MatchGames.recognises(&selfplay), "match games are never replaced without --force");
        // EPD: an extract dataset, an opening suite, and a test suite of the user's.
        let rows = file(d, "rows.epd", b"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2; c9 \"1-0\"; ce 35;\n");
        let suite = file(d, "suite.epd", b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id \"mine\";\n");
        assert!(OutputKind::Dataset(Format::Epd).recognises(&rows));
        assert!(!OutputKind::Dataset(Format::Epd).recognises(&epd), "a line without a result is no extract row");
        assert!(!OutputKind::Dataset(Format::Epd).recognises(&suite));
        // Another tuner's training set (Zurichess' quiet-labeled.epd) has
        // results but not pgntune's move counters on every line.
        let theirs = file(d, "quiet-labeled.epd", b"rnb1kbnr/pp1pppp1/7p/2q5/5P2/N1P1P3/P2P2PP/R1BQKBNR w KQkq - c9 \"1/2-1/2\";\n");
        assert!(!OutputKind::Dataset(Format::Epd).recognises(&theirs));
        // JSON weights: pgntune's own carry its mark; hand-written ones in
        // the same format are the user's.
        let written = file(d, "w.json", crate::weights::Weights::preset("classical").unwrap().to_text(true).as_bytes());
        let by_hand = file(d, "mine.json", b"{\"format\": 2, \"features\": [\"material\"], \"scale\": 1.0, \"weights\": {\"P\": 100}}\n");
        assert!(OutputKind::Weights.recognises(&written));
        assert!(!OutputKind::Weights.recognises(&by_hand));
        assert!(crate::weights::Weights::load(&written).is_ok(), "the mark does not stop the file from loading");
    }
}
