//! What an output is, so that an existing file can be recognised as an
//! earlier output of the same kind (which a command may replace without
//! `--force`) rather than a file of the user's.
//!
//! Recognition reads the start of the file (the whole footer for
//! Parquet). It errs on the side of refusing: a file is recognised only
//! when it carries what pgntune itself writes there.
//!
//! [`OutputPlan`](super::OutputPlan) asks any [`Recognise`]: this module
//! knows the kinds whose marks it can read without knowing their formats
//! ([`OutputKind`]); the modules above it bring their own (the dataset
//! formats, the weights file, the split shards and manifest, self-play
//! games), so that `atomic` stays at the bottom of the layers.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::carries_written_mark;

/// The comment that opens every SVG figure pgntune draws.
pub const FIGURE_SVG_MARK: &str = "<!-- drawn by pgntune -->";

/// The `tEXt` chunk (keyword `Software`) of every PNG figure pgntune draws,
/// as it appears in the file.
pub const FIGURE_PNG_MARK: &[u8] = b"tEXtSoftware\0pgntune";

/// How much of a file recognition reads.
pub const HEAD_BYTES: u64 = 64 << 10;

/// A kind of output: what it is called in messages, and how an existing
/// file is told to be an earlier output of this kind.
pub trait Recognise {
    /// What the kind is called in messages ("a weights file").
    fn describe(&self) -> &'static str;

    /// Why an existing file of this kind is never replaced without
    /// `--force`, for the kinds whose files carry no mark of pgntune's.
    fn never_replaced_because(&self) -> Option<&'static str> {
        None
    }

    /// True when the file at `path` is one pgntune wrote as this kind.
    fn recognises(&self, path: &Path) -> bool;
}

/// The kinds of file pgntune writes whose marks need no knowledge of a
/// higher module's formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// `extract --score-table`.
    ScoreTable,
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
    /// A match state (`--state`).
    State,
    /// Source code or JSON of tuned terms (`--emit`).
    Source,
}

impl OutputKind {
    /// What the kind is called in messages.
    pub fn describe(self) -> &'static str {
        match self {
            OutputKind::Source => "emitted source code",
            OutputKind::ScoreTable => "a score table",
            OutputKind::Trace => "a fit trace",
            OutputKind::Figure => "a figure",
            OutputKind::Openings => "an opening suite",
            OutputKind::MatchGames => "the games of a match",
            OutputKind::State => "a match state",
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
            OutputKind::Source => contains(&head[..head.len().min(200)], b"written by pgntune"),
            OutputKind::ScoreTable => head.starts_with(b"balance,rows,points,score\n") && carries_written_mark(path),
            OutputKind::Trace => head.starts_with(b"iteration,") && carries_written_mark(path),
            // pgntune's figures carry its name: a PNG `tEXt` chunk, an SVG
            // comment (see `analysis::plots`). Any other picture is the user's.
            OutputKind::Figure => {
                (head.starts_with(b"\x89PNG\r\n\x1a\n") && contains(&head, FIGURE_PNG_MARK))
                    || (head.starts_with(FIGURE_SVG_MARK.as_bytes()) && contains(&head, b"<svg"))
            }
            OutputKind::Openings => false,
            OutputKind::MatchGames => false,
            OutputKind::State => head.starts_with(b"{") && contains(&head, b"\"committed\"") && contains(&head, b"\"config\""),
        }
    }
}

impl Recognise for OutputKind {
    fn describe(&self) -> &'static str {
        OutputKind::describe(*self)
    }

    fn never_replaced_because(&self) -> Option<&'static str> {
        OutputKind::never_replaced_because(*self)
    }

    fn recognises(&self, path: &Path) -> bool {
        OutputKind::recognises(*self, path)
    }
}

/// The first [`HEAD_BYTES`] of the file at `path`.
pub fn head(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    File::open(path)?.take(HEAD_BYTES).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// True when `needle` occurs in `haystack`.
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The complete lines of `head` (a last line cut by the read limit is dropped).
pub fn complete_lines(head: &[u8]) -> impl Iterator<Item = &[u8]> {
    let end = if head.len() as u64 >= HEAD_BYTES { head.iter().rposition(|&b| b == b'\n').unwrap_or(0) } else { head.len() };
    head[..end].split(|&b| b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Format;
    use crate::play::selfplay::SelfplayGames;
    use crate::weights::WeightsOutput;

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
        assert!(!Format::Mat.recognises(&mat), "pgnlearn's own .mat is not pgntune's");
        assert!(!Format::Csv.recognises(&csv), "a hand-written CSV with pgntune's header");
        assert!(!OutputKind::ScoreTable.recognises(&table));
        for path in [&mat, &csv, &table] {
            let bytes = std::fs::read(path).unwrap();
            crate::atomic::AtomicFile::write_all(path, &bytes).unwrap();
        }
        assert!(Format::Mat.recognises(&mat));
        assert!(Format::Csv.recognises(&csv));
        assert!(OutputKind::ScoreTable.recognises(&table));
        // A copy loses the mark (cp does not keep extended attributes).
        let copy = file(d, "copy.csv", &std::fs::read(&csv).unwrap());
        assert!(!Format::Csv.recognises(&copy));
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
        assert!(WeightsOutput.recognises(&weights));
        assert!(!OutputKind::Openings.recognises(&epd), "a user's opening book looks like a suite: never replaced without --force");
        assert!(SelfplayGames.recognises(&selfplay));
        let kinds: [(&str, &dyn Recognise); 16] = [
            ("Format::Mat", &Format::Mat),
            ("Format::Csv", &Format::Csv),
            ("Format::Tsv", &Format::Tsv),
            ("Format::Parquet", &Format::Parquet),
            ("Format::Octave", &Format::Octave),
            ("OutputKind::ScoreTable", &OutputKind::ScoreTable),
            ("WeightsOutput", &WeightsOutput),
            ("OutputKind::Trace", &OutputKind::Trace),
            ("OutputKind::Figure", &OutputKind::Figure),
            ("OutputKind::Openings", &OutputKind::Openings),
            ("OutputKind::MatchGames", &OutputKind::MatchGames),
            ("SelfplayGames", &SelfplayGames),
            ("OutputKind::State", &OutputKind::State),
            ("Format::Epd", &Format::Epd),
            ("Format::Ijv", &Format::Ijv),
            ("OutputKind::Source", &OutputKind::Source),
        ];
        for (name, kind) in kinds {
            assert!(!kind.recognises(&pgn), "{name} took a user's PGN for its own");
        }
        assert!(!Format::Csv.recognises(&table));
        assert!(!Format::Mat.recognises(&csv));
        assert!(!OutputKind::MatchGames.recognises(&selfplay), "match games are never replaced without --force");
        // EPD: an extract dataset, an opening suite, and a test suite of the user's.
        let rows = file(d, "rows.epd", b"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2; c9 \"1-0\"; ce 35;\n");
        let suite = file(d, "suite.epd", b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id \"mine\";\n");
        assert!(Format::Epd.recognises(&rows));
        assert!(!Format::Epd.recognises(&epd), "a line without a result is no extract row");
        assert!(!Format::Epd.recognises(&suite));
        // Another tuner's training set (Zurichess' quiet-labeled.epd) has
        // results but not pgntune's move counters on every line.
        let theirs = file(d, "quiet-labeled.epd", b"rnb1kbnr/pp1pppp1/7p/2q5/5P2/N1P1P3/P2P2PP/R1BQKBNR w KQkq - c9 \"1/2-1/2\";\n");
        assert!(!Format::Epd.recognises(&theirs));
        // JSON weights: pgntune's own carry its mark; hand-written ones in
        // the same format are the user's.
        let written = file(d, "w.json", crate::weights::Weights::preset("classical").unwrap().to_text(true).as_bytes());
        let by_hand = file(d, "mine.json", b"{\"format\": 2, \"features\": [\"material\"], \"scale\": 1.0, \"weights\": {\"P\": 100}}\n");
        assert!(WeightsOutput.recognises(&written));
        assert!(!WeightsOutput.recognises(&by_hand));
        assert!(crate::weights::Weights::load(&written).is_ok(), "the mark does not stop the file from loading");
    }
}
