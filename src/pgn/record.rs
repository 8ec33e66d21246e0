//! Reading games into [`GameRecord`]s: the tags that matter and the main
//! line's moves, unvalidated. Legality is checked later, in worker threads,
//! by [`crate::pgn::replay`].
//!
//! pgn-reader delimits games by blank lines and tag lines. Real files bend
//! that in two ways, and pgntune follows the PGN standard instead:
//!
//! * the game termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`) ends a game,
//!   so moves after it on the following lines (games without tags, one per
//!   line) start a new game;
//! * a blank line inside the movetext (after a leading comment, or between
//!   moves) does not end a game that has not been terminated yet: the
//!   tagless stretch that follows is joined to it ([`Joiner`]).

use std::ops::ControlFlow;

use pgn_reader::{RawComment, RawTag, SanPlus, Visitor};

/// One game as read from the PGN text, before replay.
#[derive(Clone, Debug, Default)]
pub struct GameRecord {
    /// 0-based index over all games read, across all inputs.
    pub index: u64,
    /// Which input (0-based) the game came from.
    pub input: usize,
    /// 1-based number of the game within its input.
    pub number: u64,
    /// Value of `[Result]`, if present.
    pub result: Option<Vec<u8>>,
    /// Value of `[FEN]`, if present.
    pub fen: Option<Vec<u8>>,
    /// Value of `[Variant]`, if present.
    pub variant: Option<Vec<u8>>,
    /// Values of the tags the caller asked to keep, in the order asked.
    pub kept_tags: Vec<Option<Vec<u8>>>,
    /// The main line, as read.
    pub moves: Vec<SanPlus>,
    /// When labels are read: the evaluation label after each move of
    /// `moves` (centipawns, white's view; NaN where the comment has none).
    pub evals: Vec<f32>,
    /// A parse error that ended this game early (from pgn-reader).
    pub parse_error: Option<String>,
    /// Whether the game had any tag.
    pub has_tags: bool,
    /// Whether the movetext ended with a termination marker.
    pub terminated: bool,
    /// The termination marker itself (`1-0`, `0-1`, `1/2-1/2`, `*`), if
    /// there was one: the result the movetext says, beside the tag's.
    pub marker: Option<&'static str>,
    /// Whether the input ended inside this game: it has tags, and its
    /// movetext runs to the end of the input without a termination marker.
    /// A file cut short ends like this (so does one whose writer left the
    /// last marker out); the moves read are sound all the same.
    pub unfinished: bool,
    /// Where the game begins in its input's text (decompressed bytes),
    /// when the text from there on reads the same on its own: the game
    /// begins a stretch the PGN reader reads in one go and is not joined
    /// to the game before. `None` for the further games of a stretch that
    /// termination markers split. Where a collection may be cut into shards.
    pub start: Option<u64>,
}

impl GameRecord {
    /// True when nothing at all was read: no tag, no move, no termination
    /// marker. Stray bytes between games (such as a DOS end-of-file byte)
    /// look like this to the PGN reader; they are not games.
    pub fn is_blank(&self) -> bool {
        !self.has_tags && !self.terminated && self.moves.is_empty() && self.parse_error.is_none()
    }

    fn new(input: usize, kept_tags: usize) -> GameRecord {
        GameRecord { input, kept_tags: vec![None; kept_tags], moves: Vec::with_capacity(128), ..GameRecord::default() }
    }
}

/// What a game's `[Result]` tag and its termination marker say together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultCheck<'a> {
    /// Nothing to say: they agree, or one of them is missing.
    Agree,
    /// The tag is none of `1-0`, `0-1`, `1/2-1/2` and `*` (`2-0`, say):
    /// the game's result cannot be read.
    Unreadable(&'a [u8]),
    /// The tag and the marker say different results. The tag is the
    /// game's result, as pgnlearn read it.
    Disagree {
        /// The tag's value.
        tag: &'a [u8],
        /// The marker ending the movetext.
        marker: &'static str,
    },
}

impl GameRecord {
    /// Whether the `[Result]` tag can be read and agrees with the marker.
    pub fn check_result(&self) -> ResultCheck<'_> {
        let Some(tag) = self.result.as_deref() else { return ResultCheck::Agree };
        let value = tag.trim_ascii();
        if !matches!(value, b"1-0" | b"0-1" | b"1/2-1/2" | b"*") {
            return ResultCheck::Unreadable(tag);
        }
        match self.marker {
            Some(marker) if marker.as_bytes() != value => ResultCheck::Disagree { tag, marker },
            _ => ResultCheck::Agree,
        }
    }
}

/// A [`Visitor`] that turns PGN text into [`GameRecord`]s: usually one per
/// call of `read_game`, several when termination markers split the text.
#[derive(Debug)]
pub struct RecordVisitor {
    kept_tags: Vec<Vec<u8>>,
    input: usize,
    read_evals: bool,
}

/// The games of one `read_game` call, the last one still open.
#[derive(Debug)]
pub struct Movetext {
    done: Vec<GameRecord>,
    current: GameRecord,
}

impl RecordVisitor {
    /// A visitor for input number `input`, keeping the named tags.
    pub fn new(input: usize, kept_tags: &[String]) -> RecordVisitor {
        RecordVisitor { kept_tags: kept_tags.iter().map(|t| t.as_bytes().to_vec()).collect(), input, read_evals: false }
    }

    /// Also reads evaluation labels from move comments (see [`super::labels`]).
    pub fn with_evals(mut self, read_evals: bool) -> RecordVisitor {
        self.read_evals = read_evals;
        self
    }
}

impl Visitor for RecordVisitor {
    type Tags = GameRecord;
    type Movetext = Movetext;
    type Output = Vec<GameRecord>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(GameRecord::new(self.input, self.kept_tags.len()))
    }

    fn tag(&mut self, record: &mut GameRecord, name: &[u8], value: RawTag<'_>) -> ControlFlow<Self::Output> {
        record.has_tags = true;
        let value = || value.decode().into_owned();
        match name {
            b"Result" => record.result = Some(value()),
            b"FEN" => record.fen = Some(value()),
            b"Variant" => record.variant = Some(value()),
            _ => {}
        }
        for (slot, wanted) in record.kept_tags.iter_mut().zip(&self.kept_tags) {
            if wanted.as_slice() == name {
                *slot = Some(value());
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, record: GameRecord) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(Movetext { done: Vec::new(), current: record })
    }

    fn san(&mut self, movetext: &mut Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        if movetext.current.terminated {
            // Moves after a termination marker belong to the next game.
            let next = GameRecord::new(self.input, self.kept_tags.len());
            movetext.done.push(std::mem::replace(&mut movetext.current, next));
        }
        movetext.current.moves.push(san_plus);
        if self.read_evals {
            movetext.current.evals.push(f32::NAN);
        }
        ControlFlow::Continue(())
    }

    fn comment(&mut self, movetext: &mut Movetext, comment: RawComment<'_>) -> ControlFlow<Self::Output> {
        let game = &mut movetext.current;
        if self.read_evals
            && let Some(moved) = game.evals.len().checked_sub(1)
            && let Some(label) = super::labels::eval_label(comment.as_bytes())
        {
            // Who made the move: white makes the even moves of a game that
            // white starts. A malformed FEN is the replay's to report.
            let black_starts =
                game.fen.as_deref().is_some_and(|fen| fen.split(u8::is_ascii_whitespace).filter(|w| !w.is_empty()).nth(1) == Some(b"b"));
            game.evals[moved] = label.white_view((moved % 2 == 0) != black_starts);
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, movetext: &mut Movetext, outcome: pgn_reader::Outcome) -> ControlFlow<Self::Output> {
        let game = &mut movetext.current;
        game.terminated = true;
        game.marker = Some(outcome.as_str());
        // A game without a Result tag (a bare list of moves, as some tools
        // write them) says its result here; the tag, where there is one,
        // stays the result, as pgnlearn read it.
        if game.result.is_none() && matches!(outcome, pgn_reader::Outcome::Known(_)) {
            game.result = Some(outcome.as_str().as_bytes().to_vec());
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Movetext) -> Self::Output {
        let Movetext { mut done, current } = movetext;
        done.push(current);
        done.retain(|g| !g.is_blank());
        done
    }
}

/// pgn-reader's error for a tag line it cannot read whole: one without its
/// closing quote, or one longer than its buffer holds (over 4 KB may be,
/// over about 16 KB always is). It goes on at the next line, in the same
/// game's tags.
pub const UNTERMINATED_TAG: &str = "unterminated tag";

/// Joins a game that a blank line cut before its termination marker with
/// the tagless stretch that follows it, and numbers games within an input.
#[derive(Debug, Default)]
pub struct Joiner {
    held: Option<GameRecord>,
    /// A game whose tag line the reader gave up on, waiting for the rest of it.
    lost_tag: Option<GameRecord>,
    numbered: u64,
}

impl Joiner {
    /// Feeds the next record read; returns the games that are complete.
    pub fn push(&mut self, record: GameRecord, out: &mut Vec<GameRecord>) {
        let lost_tag = record.parse_error.as_deref() == Some(UNTERMINATED_TAG);
        if let Some(lost) = self.lost_tag.take() {
            // The reader went on after the bad tag line: what it reads next
            // (the other tags and the moves) is the rest of the same game,
            // which stays one unreadable game, not two.
            if lost_tag {
                self.lost_tag = Some(lost);
            } else {
                let rest = GameRecord { parse_error: lost.parse_error, start: lost.start, has_tags: true, ..record };
                self.emit(rest, out);
            }
            return;
        }
        if lost_tag {
            if let Some(held) = self.held.take() {
                self.emit(held, out);
            }
            self.lost_tag = Some(record);
            return;
        }
        match self.held.take() {
            Some(mut held) if !record.has_tags && record.parse_error.is_none() => {
                held.moves.extend_from_slice(&record.moves);
                held.evals.extend_from_slice(&record.evals);
                held.terminated = record.terminated;
                held.marker = record.marker;
                // The marker that ends the joined game, if its tags had no result.
                held.result = held.result.or(record.result);
                self.hold_or_emit(held, out);
            }
            Some(held) => {
                self.emit(held, out);
                self.hold_or_emit(record, out);
            }
            None => self.hold_or_emit(record, out),
        }
    }

    /// Flushes the held game at the end of an input: one that has tags and
    /// no termination marker yet, so the input ended inside it
    /// ([`GameRecord::unfinished`]).
    pub fn finish(&mut self, out: &mut Vec<GameRecord>) {
        if let Some(held) = self.held.take() {
            self.emit(GameRecord { unfinished: true, ..held }, out);
        }
        if let Some(lost) = self.lost_tag.take() {
            self.emit(lost, out);
        }
    }

    fn hold_or_emit(&mut self, record: GameRecord, out: &mut Vec<GameRecord>) {
        if record.has_tags && !record.terminated && record.parse_error.is_none() {
            self.held = Some(record);
        } else {
            self.emit(record, out);
        }
    }

    fn emit(&mut self, mut record: GameRecord, out: &mut Vec<GameRecord>) {
        self.numbered += 1;
        record.number = self.numbered;
        out.push(record);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The games of `text`, read and joined as the commands read them.
    fn records(text: &str) -> Vec<GameRecord> {
        let mut reader = pgn_reader::Reader::new(std::io::Cursor::new(text.as_bytes().to_vec()));
        let mut visitor = RecordVisitor::new(0, &[]);
        let mut joiner = Joiner::default();
        let mut out = vec![];
        while let Some(records) = reader.read_game(&mut visitor).unwrap() {
            for r in records {
                joiner.push(r, &mut out);
            }
        }
        joiner.finish(&mut out);
        out
    }

    fn read(text: &str) -> Vec<(bool, usize, bool)> {
        records(text).iter().map(|g| (g.has_tags, g.moves.len(), g.terminated)).collect()
    }

    fn unfinished(text: &str) -> Vec<bool> {
        records(text).iter().map(|g| g.unfinished).collect()
    }

    #[test]
    fn a_game_the_input_ends_inside_is_unfinished() {
        let whole = "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Result \"0-1\"]\n\n1. d4 d5 0-1\n";
        assert_eq!(unfinished(whole), [false, false]);
        // Cut in the second game's moves, and right after its tags.
        assert_eq!(unfinished(&whole[..whole.len() - 8]), [false, true]);
        assert_eq!(unfinished("[Result \"1-0\"]\n\n1. e4 1-0\n\n[Result \"0-1\"]\n"), [false, true]);
        // A game without a marker that another game follows is not the input's end.
        assert_eq!(unfinished("[Result \"1-0\"]\n\n1. e4\n\n[Result \"0-1\"]\n\n1. d4 0-1\n"), [false, false]);
    }

    #[test]
    fn termination_markers_split_tagless_games() {
        assert_eq!(read("e4 e5 Nf3 *\nd4 d5 *\nc4 1-0\n"), [(false, 3, true), (false, 2, true), (false, 1, true)]);
    }

    #[test]
    fn a_game_without_a_result_tag_takes_its_marker() {
        let results = |text: &str| -> Vec<Option<String>> {
            records(text).iter().map(|g| g.result.as_deref().map(|r| String::from_utf8_lossy(r).into_owned())).collect()
        };
        // Bare move lists, as some tools write them; `*` says nothing.
        assert_eq!(
            results(
                "e4 e5 1-0
d4 d5 1/2-1/2
c4 *
"
            ),
            [Some("1-0".into()), Some("1/2-1/2".into()), None]
        );
        // The tag, where there is one, is the result, whatever the marker says.
        assert_eq!(results("[Result \"0-1\"]\n\n1. e4 1-0\n"), [Some("0-1".into())]);
        // A tagged game without a Result tag, cut by a blank line before its marker.
        assert_eq!(results("[Event \"x\"]\n\n1. e4 e5\n\n2. Nf3 0-1\n"), [Some("0-1".into())]);
    }

    #[test]
    fn blank_line_inside_a_game_does_not_end_it() {
        let text = "[Result \"1-0\"]\n\n{ intro }\n\n1. e4 e5\n\n2. Nf3 1-0\n\n[Result \"*\"]\n\n1. d4 *\n";
        assert_eq!(read(text), [(true, 3, true), (true, 1, true)]);
    }

    #[test]
    fn a_tag_line_too_long_to_read_is_one_unreadable_game_not_two() {
        // What extraction does with the reader's error: an unreadable game.
        let text = format!("[Event \"a\"]\n[Annotator \"{}\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n[Result \"0-1\"]\n\n1. d4 0-1\n", "x".repeat(20_000));
        let mut reader = pgn_reader::Reader::new(std::io::Cursor::new(text.into_bytes()));
        let mut visitor = RecordVisitor::new(0, &[]);
        let (mut joiner, mut out) = (Joiner::default(), vec![]);
        loop {
            match reader.read_game(&mut visitor) {
                Ok(Some(records)) => records.into_iter().for_each(|r| joiner.push(r, &mut out)),
                Ok(None) => break,
                Err(e) => joiner.push(GameRecord { parse_error: Some(e.to_string()), ..GameRecord::default() }, &mut out),
            }
        }
        joiner.finish(&mut out);
        let games: Vec<(u64, Option<&str>, usize)> = out.iter().map(|g| (g.number, g.parse_error.as_deref(), g.moves.len())).collect();
        assert_eq!(games, [(1, Some(UNTERMINATED_TAG), 1), (2, None, 1)]);
    }

    #[test]
    fn the_result_tag_is_checked_against_the_marker() {
        let checks = |text: &str| -> Vec<String> { records(text).iter().map(|g| format!("{:?}", g.check_result())).collect() };
        assert_eq!(checks("[Result \"1-0\"]\n\n1. e4 1-0\n"), ["Agree"]);
        // No tag: the marker is the result; no marker: nothing to compare.
        assert_eq!(checks("e4 e5 0-1\n"), ["Agree"]);
        assert_eq!(checks("[Result \"1-0\"]\n\n1. e4\n"), ["Agree"]);
        assert_eq!(checks("[Result \"1-0\"]\n\n1. e4 0-1\n"), ["Disagree { tag: [49, 45, 48], marker: \"0-1\" }"]);
        assert_eq!(checks("[Result \"*\"]\n\n1. e4 1/2-1/2\n"), ["Disagree { tag: [42], marker: \"1/2-1/2\" }"]);
        assert_eq!(checks("[Result \"2-0\"]\n\n1. e4 2-0\n"), ["Unreadable([50, 45, 48])"]);
        // A marker after a blank line inside the movetext is the joined game's.
        assert_eq!(checks("[Result \"1-0\"]\n\n1. e4 e5\n\n2. Nf3 0-1\n").len(), 1);
        assert_eq!(records("[Result \"1-0\"]\n\n1. e4 e5\n\n2. Nf3 0-1\n")[0].marker, Some("0-1"));
    }

    #[test]
    fn dos_eof_byte_is_not_a_game() {
        assert_eq!(read("[Result \"1-0\"]\n\n1. e4 1-0\n\n\x1a"), [(true, 1, true)]);
    }
}
