//! Evaluation labels from move comments: what an engine or a server said
//! about the position after the move.
//!
//! * lichess: `[%eval 0.35]` (pawns, white's view) and `[%eval #-4]` (mate
//!   in 4 for black);
//! * TCEC: `wv=1.44` (pawns, white's view), `wv=M12` / `wv=-M3` for mates;
//!   the early seasons (Season 3) wrote `ev=1.44`, also white's view (in
//!   their decisive games it has the winner's sign after either side's
//!   moves), with mates as about ±327 pawns;
//! * cutechess, fastchess and pgntune's own matches: `+0.54/12 0.232s`
//!   (pawns from the view of the side that made the move, `/depth`, then
//!   optionally the time; `+M3`/`-M3` for mates), so an engine author can
//!   tune on the games of their own test matches.
//!
//! Labels are returned in centipawns, with the side they are seen from
//! ([`EvalLabel`]); a mate is
//! [`MATE_LABEL`] centipawns for the winning side, a value at which any
//! scaling constant makes the win probability 1 for practical purposes.

/// The label of a forced mate, in centipawns.
pub const MATE_LABEL: f32 = 10_000.0;

/// Parses `text` as pawns (`0.35`, `-1.2`, `+0.5`) or a mate (`#-4`, `M12`,
/// `-M3`, `#4`), returning centipawns from the same side's view.
fn parse_value(text: &str) -> Option<f32> {
    let text = text.trim();
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if let Some(mate) = rest.strip_prefix('#').or_else(|| rest.strip_prefix('M')) {
        // `#-4`: the sign may follow the mate mark.
        let (negative, mate) = match mate.strip_prefix('-') {
            Some(m) => (!negative, m),
            None => (negative, mate.strip_prefix('+').unwrap_or(mate)),
        };
        mate.parse::<u32>().ok()?;
        return Some(if negative { -MATE_LABEL } else { MATE_LABEL });
    }
    let pawns: f64 = rest.parse().ok().filter(|v: &f64| v.is_finite())?;
    let cp = (pawns * 100.0).clamp(-f64::from(MATE_LABEL), f64::from(MATE_LABEL)) as f32;
    Some(if negative { -cp } else { cp })
}

/// An evaluation found in a move comment, in centipawns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EvalLabel {
    /// From white's point of view (lichess, TCEC).
    White(f32),
    /// From the point of view of the side that made the move (match
    /// runners' `+0.54/12` comments).
    Mover(f32),
}

impl EvalLabel {
    /// The label from white's point of view, given who made the move.
    pub fn white_view(self, white_moved: bool) -> f32 {
        match self {
            EvalLabel::White(cp) => cp,
            EvalLabel::Mover(cp) if white_moved => cp,
            EvalLabel::Mover(cp) => -cp,
        }
    }
}

/// The evaluation label in a move comment, if it has one.
pub fn eval_label(comment: &[u8]) -> Option<EvalLabel> {
    let text = std::str::from_utf8(comment).ok()?;
    if let Some(at) = text.find("[%eval") {
        let rest = &text[at + "[%eval".len()..];
        let end = rest.find(']')?;
        // `[%eval 0.35,20]` carries a depth after a comma.
        let value = rest[..end].split(',').next()?;
        return parse_value(value).map(EvalLabel::White);
    }
    // TCEC: comma-separated key=value pairs; `wv` (or the early seasons'
    // `ev`) must be a whole key.
    for field in text.split(',') {
        let field = field.trim();
        if let Some(value) = field.strip_prefix("wv=").or_else(|| field.strip_prefix("ev=")) {
            return parse_value(value).map(EvalLabel::White);
        }
    }
    match_runner_label(text).map(EvalLabel::Mover)
}

/// A match runner's comment: its first word is `score/depth`, the score
/// signed in pawns or `±M<moves>`. The depth must be there: a comment that
/// merely starts with a number is a person's, not an engine's.
fn match_runner_label(text: &str) -> Option<f32> {
    let word = text.split_whitespace().next()?;
    let (score, depth) = word.split_once('/')?;
    depth.trim_end_matches(',').parse::<u32>().ok()?;
    if !score.starts_with(['+', '-']) {
        return None;
    }
    parse_value(score)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lichess_and_tcec_labels() {
        let white = |cp| Some(EvalLabel::White(cp));
        assert_eq!(eval_label(b"[%eval 0.35]"), white(35.0));
        assert_eq!(eval_label(b" [%clk 0:01:00] [%eval -1.5] "), white(-150.0));
        assert_eq!(eval_label(b"[%eval #-4]"), white(-MATE_LABEL));
        assert_eq!(eval_label(b"[%eval #3]"), white(MATE_LABEL));
        assert_eq!(eval_label(b"[%eval 0.2,18]"), white(20.0));
        assert_eq!(eval_label(b"d=33, sd=33, mt=37918, pv=d4 e6, tb=0, wv=0.60, R50=50"), white(60.0));
        assert_eq!(eval_label(b"d=20, wv=-M3, R50=50"), white(-MATE_LABEL));
        assert_eq!(eval_label(b"d=20, wv=M12,"), white(MATE_LABEL));
        assert_eq!(eval_label(b"book, mb=+0+0+0+0+0,"), None);
        assert_eq!(eval_label(b"a fine move"), None);
        assert_eq!(eval_label(b"[%eval nan]"), None);
        assert_eq!(eval_label(b"[%eval 1e9]"), white(MATE_LABEL));
        // A key that merely ends in "wv" is not the label.
        assert_eq!(eval_label(b"xwv=3.0"), None);
        assert_eq!(eval_label(b"xev=3.0"), None);
        // TCEC Season 3.
        assert_eq!(eval_label(b" ev=-1.25, d=18, mt=00:01:02, tl=01:20:00, s=2100 kN/s, pv=Nf3, tb=0, R50=49,  "), white(-125.0));
        assert_eq!(eval_label(b" ev=327.41, d=40, "), white(MATE_LABEL));
    }

    #[test]
    fn match_runner_labels_are_the_movers_view() {
        let mover = |cp| Some(EvalLabel::Mover(cp));
        // cutechess and pgntune's matches; fastchess adds fields after a comma.
        assert_eq!(eval_label(b"+0.68/12 0.232s"), mover(68.0));
        assert_eq!(eval_label(b"-0.05/4"), mover(-5.0));
        assert_eq!(eval_label(b"+M3/10 0.1s"), mover(MATE_LABEL));
        assert_eq!(eval_label(b"-M2/7"), mover(-MATE_LABEL));
        assert_eq!(eval_label(b"+1.25/17 0.671s, 1.2s left"), mover(125.0));
        // Not an engine's comment: no sign, no depth, words.
        assert_eq!(eval_label(b"0.68/12"), None);
        assert_eq!(eval_label(b"+0.68 0.232s"), None);
        assert_eq!(eval_label(b"+1 is what I would play/3"), None);
        assert_eq!(eval_label(b"book"), None);
        assert_eq!(eval_label(b"?/12"), None);
        assert_eq!(EvalLabel::Mover(30.0).white_view(false), -30.0);
        assert_eq!(EvalLabel::Mover(30.0).white_view(true), 30.0);
        assert_eq!(EvalLabel::White(30.0).white_view(false), 30.0);
    }
}
