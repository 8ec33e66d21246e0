//! Hand-set starting values of the `rooks` set for the `full` preset, in
//! centipawns (middlegame, endgame), in term order.
//!
//! These are hand-set starting points written from ordinary chess
//! knowledge, not tuned and not taken from any engine: the fit starts here
//! (and regularises toward here) and moves them. An open file is worth
//! about a fifth of a pawn to a rook in the middlegame (less in the
//! endgame, where files are open anyway), a semi-open file half that; the
//! 7th rank matters more in the endgame (pawns at home, king cut off); a
//! queen gains little from an open file; connected and doubled rooks help
//! a little, mostly while there is something to attack.

/// Each term's name with its (middlegame, endgame) starting value in cp.
pub const NAMED_STARTING_VALUES: [(&str, f64, f64); 6] = [
    ("rook_open_file", 20.0, 10.0),
    ("rook_semi_open_file", 10.0, 5.0),
    ("rook_seventh", 10.0, 25.0),
    ("queen_open_file", 5.0, 5.0),
    ("rooks_connected", 5.0, 0.0),
    ("rooks_doubled", 10.0, 5.0),
];

/// The (middlegame, endgame) starting values in cp, one pair per term of
/// the `rooks` set, in term order.
pub fn starting_values() -> Vec<(f64, f64)> {
    NAMED_STARTING_VALUES.iter().map(|&(_, mg, eg)| (mg, eg)).collect()
}
