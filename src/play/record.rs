//! The PGN record of a played game, as match runners (cutechess, fastchess)
//! write it: the seven tag roster, `FEN`/`SetUp`/`Variant` for other
//! starts, `TimeControl` (per side when the engines' differ), `Termination`,
//! `PlyCount` and `GameDuration`; `{book}` after each opening move, and
//! after each engine move its score from the mover's side, depth and time,
//! `{+0.68/12 0.232s}` (`+M3`/`-M3` for mates, in moves).

use std::fmt::Write as _;

use shakmaty::{ByColor, CastlingMode, Chess, Color, Position};

use super::game::{MoveNote, PlayedGame};
use super::limits::TimeControl;
use super::openings::Opening;
use crate::engine::Score;

/// PGN header values that are not in the game itself.
#[derive(Clone, Debug, Default)]
pub struct PgnHeader {
    /// `[Event]`.
    pub event: String,
    /// `[Date]`, as `YYYY.MM.DD`.
    pub date: String,
    /// `[Round]`.
    pub round: String,
    /// Each side's time control (`None`: none, written `-`).
    pub time_control: ByColor<Option<TimeControl>>,
    /// Write the time of each move and the `GameDuration` tag. A match
    /// under node or depth limits leaves them out: its games are then a
    /// function of the openings and engines, and its PGN the same bytes for
    /// any concurrency, after a resume, and when merged from shards.
    pub times: bool,
}

/// A PGN tag value with its quotes and backslashes escaped.
pub(super) fn escape(tag: &str) -> String {
    tag.replace('\\', "\\\\").replace('"', "\\\"")
}

/// `-` for no time control.
fn tc_tag(tc: Option<TimeControl>) -> String {
    tc.map_or_else(|| "-".to_string(), |tc| tc.to_string())
}

/// A score in pawns from the mover's side, as cutechess writes it.
fn score_text(score: Score) -> String {
    match score {
        Score::Cp(cp) => format!("{}{:.2}", if cp >= 0 { "+" } else { "-" }, f64::from(cp.unsigned_abs()) / 100.0),
        Score::Mate(n) if n > 0 => format!("+M{n}"),
        Score::Mate(n) => format!("-M{}", n.unsigned_abs()),
    }
}

/// The comment after an engine's move: `+0.68/12 0.232s` (without the
/// time when `times` is off).
pub fn move_comment(note: &MoveNote, times: bool) -> String {
    let mut text = note.score.map_or_else(|| "?".to_string(), score_text);
    if let Some(depth) = note.depth {
        let _ = write!(text, "/{depth}");
    }
    if times {
        let _ = write!(text, " {}.{:03}s", note.time_ms / 1000, note.time_ms % 1000);
    }
    text
}

/// `HH:MM:SS`.
fn duration_tag(seconds: u64) -> String {
    format!("{:02}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60)
}

/// The game as PGN, with a blank line after it.
pub fn to_pgn(game: &PlayedGame, header: &PgnHeader) -> String {
    let mut out = String::new();
    let tag = |out: &mut String, name: &str, value: &str| {
        let _ = writeln!(out, "[{name} \"{}\"]", escape(value));
    };
    tag(&mut out, "Event", &header.event);
    tag(&mut out, "Site", "pgntune");
    tag(&mut out, "Date", &header.date);
    tag(&mut out, "Round", &header.round);
    tag(&mut out, "White", &game.white);
    tag(&mut out, "Black", &game.black);
    tag(&mut out, "Result", game.result().as_str());
    let start: Chess = match &game.start_fen {
        Some(fen) => Opening { fen: Some(fen.clone()), moves: vec![] }.start().map(|(p, _)| p).unwrap_or_default(),
        None => Chess::default(),
    };
    if let Some(fen) = &game.start_fen {
        // Castling that only Chess960 allows makes it a Chess960 game,
        // which readers must replay with Chess960 castling.
        if start.castles().mode() == CastlingMode::Chess960 {
            tag(&mut out, "Variant", "Chess960");
        }
        tag(&mut out, "FEN", &fen.to_string());
        tag(&mut out, "SetUp", "1");
    }
    let ByColor { white, black } = header.time_control;
    if white == black {
        tag(&mut out, "TimeControl", &tc_tag(white));
    } else {
        tag(&mut out, "WhiteTimeControl", &tc_tag(white));
        tag(&mut out, "BlackTimeControl", &tc_tag(black));
    }
    tag(&mut out, "Termination", game.end.termination.tag());
    tag(&mut out, "PlyCount", &game.moves.len().to_string());
    if header.times {
        tag(&mut out, "GameDuration", &duration_tag(game.wall_time.as_secs()));
    }
    out.push('\n');

    let mut tokens: Vec<String> = Vec::new();
    let (mut number, mut to_move) = (start.fullmoves().get(), start.turn());
    for (i, played) in game.moves.iter().enumerate() {
        if to_move == Color::White {
            tokens.push(format!("{number}."));
        } else if i == 0 || tokens.last().is_some_and(|t| t.ends_with('}')) {
            // After a comment, Black's move gets its number again.
            tokens.push(format!("{number}..."));
        }
        tokens.push(played.san.to_string());
        let comment = match &played.note {
            Some(note) => move_comment(note, header.times),
            None => "book".to_string(),
        };
        tokens.push(format!("{{{comment}}}"));
        if to_move == Color::Black {
            number += 1;
        }
        to_move = !to_move;
    }
    let comment = game.end.termination.describe(game.end.side).replace(['{', '}'], "");
    tokens.push(format!("{{{comment}}}"));
    tokens.push(game.result().as_str().to_string());
    // Lines of at most 80 characters, as the PGN export format asks; a
    // comment stays on one line (readers keep its line breaks) unless it
    // is longer than a line itself.
    let mut line = String::new();
    for token in tokens.iter().flat_map(|t| if t.len() > 80 { t.split(' ').collect::<Vec<_>>() } else { vec![t.as_str()] }) {
        if !line.is_empty() && line.len() + 1 + token.len() > 80 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(token);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_as_cutechess_writes_them() {
        let note = MoveNote { score: Some(Score::Cp(68)), depth: Some(12), time_ms: 232, nodes: 1 };
        assert_eq!(move_comment(&note, true), "+0.68/12 0.232s");
        assert_eq!(move_comment(&note, false), "+0.68/12");
        let note = MoveNote { score: Some(Score::Cp(-5)), depth: None, time_ms: 12_040, nodes: 1 };
        assert_eq!(move_comment(&note, true), "-0.05 12.040s");
        assert_eq!(score_text(Score::Mate(3)), "+M3");
        assert_eq!(score_text(Score::Mate(-2)), "-M2");
        assert_eq!(score_text(Score::Mate(0)), "-M0");
        assert_eq!(duration_tag(3725), "01:02:05");
    }
}
