//! Hand-set starting values of the `threats` set (see
//! `crate::features::threats`): a middlegame and an endgame value in
//! centipawns per term, in term order.
//!
//! These are starting points for the fit, not tuned values, written from
//! ordinary chess knowledge. Terms count threats made by a side, so the
//! values are what making the threat is worth. Most positions a fit or a
//! search sees have the threatened side to move, able to answer the threat,
//! so a threat is worth a fraction of the piece: it gains a tempo, or wins
//! material when it is a double attack. A pawn attacking a piece is the
//! most forcing; threats fade a little in the endgame where there are
//! fewer pieces to combine them with, except against loose pawns, which
//! are then often simply lost.
//!
//! This file uses nothing from the crate, so that tests can include it on
//! its own.

/// One (middlegame, endgame) pair per `threats` term, in term order.
pub fn starting_values() -> Vec<(f64, f64)> {
    vec![
        (55.0, 40.0), // threat_pawn_N
        (55.0, 40.0), // threat_pawn_B
        (75.0, 50.0), // threat_pawn_R
        (70.0, 40.0), // threat_pawn_Q
        (40.0, 35.0), // threat_minor_R
        (45.0, 30.0), // threat_minor_Q
        (40.0, 30.0), // threat_rook_Q
        (5.0, 15.0),  // hanging_P
        (30.0, 20.0), // hanging_N
        (30.0, 20.0), // hanging_B
        (35.0, 25.0), // hanging_R
        (40.0, 30.0), // hanging_Q
        (25.0, 25.0), // hanging_mover: the side to move can take it now
        (15.0, 12.0), // threat_push
    ]
}
