//! Evaluation labels from move comments: what an engine or a server said
//! about the position after the move.
//!
//! * lichess: `[%eval 0.35]` (pawns, white's view) and `[%eval #-4]` (mate
//!   in 4 for black);
//! * TCEC: `wv=1.44` (pawns, white's view), `wv=M12` / `wv=-M3` for mates.
//!
//! Labels are returned in centipawns from white's point of view; a mate is
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

/// The evaluation label in a move comment, if it has one.
pub fn eval_label(comment: &[u8]) -> Option<f32> {
    let text = std::str::from_utf8(comment).ok()?;
    if let Some(at) = text.find("[%eval") {
        let rest = &text[at + "[%eval".len()..];
        let end = rest.find(']')?;
        // `[%eval 0.35,20]` carries a depth after a comma.
        let value = rest[..end].split(',').next()?;
        return parse_value(value);
    }
    // TCEC: comma-separated key=value pairs; `wv` must be a whole key.
    for field in text.split(',') {
        if let Some(value) = field.trim().strip_prefix("wv=") {
            return parse_value(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lichess_and_tcec_labels() {
        assert_eq!(eval_label(b"[%eval 0.35]"), Some(35.0));
        assert_eq!(eval_label(b" [%clk 0:01:00] [%eval -1.5] "), Some(-150.0));
        assert_eq!(eval_label(b"[%eval #-4]"), Some(-MATE_LABEL));
        assert_eq!(eval_label(b"[%eval #3]"), Some(MATE_LABEL));
        assert_eq!(eval_label(b"[%eval 0.2,18]"), Some(20.0));
        assert_eq!(eval_label(b"d=33, sd=33, mt=37918, pv=d4 e6, tb=0, wv=0.60, R50=50"), Some(60.0));
        assert_eq!(eval_label(b"d=20, wv=-M3, R50=50"), Some(-MATE_LABEL));
        assert_eq!(eval_label(b"d=20, wv=M12,"), Some(MATE_LABEL));
        assert_eq!(eval_label(b"book, mb=+0+0+0+0+0,"), None);
        assert_eq!(eval_label(b"a fine move"), None);
        assert_eq!(eval_label(b"[%eval nan]"), None);
        assert_eq!(eval_label(b"[%eval 1e9]"), Some(MATE_LABEL));
        // A key that merely ends in "wv" is not the label.
        assert_eq!(eval_label(b"xwv=3.0"), None);
    }
}
