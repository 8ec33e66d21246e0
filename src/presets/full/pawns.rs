//! Hand-set starting values of the `pawns` set for the `full` preset, in
//! centipawns (middlegame, endgame), in term order.
//!
//! These are hand-set starting points written from ordinary chess
//! knowledge, not tuned and not taken from any engine: the fit starts here
//! (and regularises toward here) and moves them. The reasoning per term:
//!
//! * passed pawns gain value steeply with their rank, more so in the
//!   endgame, where nothing else distracts from them;
//! * doubled, isolated and backward pawns cost a little in the middlegame
//!   (targets, holes) and a little more in the endgame (they are lost);
//! * connected pawns gain with their rank; a second pawn defender helps a
//!   little;
//! * the passer terms are per king step (capped at 5) or per passer, and
//!   add to `passed_r*`: an own king far away costs, an enemy king far away
//!   helps, a clear and a safe path help, most on the 6th and 7th rank and
//!   in the endgame; an unstoppable passer in a pawn ending is worth nearly
//!   a queen's promotion, discounted because the other side may race.

/// Each term's name with its (middlegame, endgame) starting value in cp.
pub const NAMED_STARTING_VALUES: [(&str, f64, f64); 33] = [
    ("passed_r2", 5.0, 10.0),
    ("passed_r3", 5.0, 15.0),
    ("passed_r4", 10.0, 25.0),
    ("passed_r5", 20.0, 45.0),
    ("passed_r6", 35.0, 75.0),
    ("passed_r7", 60.0, 120.0),
    ("pawn_doubled", -10.0, -20.0),
    ("pawn_isolated", -10.0, -12.0),
    ("pawn_backward", -8.0, -10.0),
    ("connected_r2", 3.0, 2.0),
    ("connected_r3", 5.0, 4.0),
    ("connected_r4", 8.0, 8.0),
    ("connected_r5", 15.0, 15.0),
    ("connected_r6", 25.0, 30.0),
    ("connected_r7", 40.0, 50.0),
    ("pawn_support", 5.0, 3.0),
    ("passed_own_king_r4", 0.0, -3.0),
    ("passed_own_king_r5", 0.0, -5.0),
    ("passed_own_king_r6", 0.0, -8.0),
    ("passed_own_king_r7", 0.0, -10.0),
    ("passed_enemy_king_r4", 0.0, 5.0),
    ("passed_enemy_king_r5", 2.0, 10.0),
    ("passed_enemy_king_r6", 3.0, 15.0),
    ("passed_enemy_king_r7", 5.0, 20.0),
    ("passed_clear_r4", 0.0, 5.0),
    ("passed_clear_r5", 5.0, 10.0),
    ("passed_clear_r6", 10.0, 20.0),
    ("passed_clear_r7", 15.0, 35.0),
    ("passed_safe_r4", 2.0, 10.0),
    ("passed_safe_r5", 5.0, 20.0),
    ("passed_safe_r6", 10.0, 35.0),
    ("passed_safe_r7", 15.0, 60.0),
    ("passed_unstoppable", 0.0, 300.0),
];

/// The (middlegame, endgame) starting values in cp, one pair per term of
/// the `pawns` set, in term order.
pub fn starting_values() -> Vec<(f64, f64)> {
    NAMED_STARTING_VALUES.iter().map(|&(_, mg, eg)| (mg, eg)).collect()
}
