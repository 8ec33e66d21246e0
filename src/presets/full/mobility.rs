//! Hand-set starting values of the `mobility` set (see
//! `crate::features::mobility`): a middlegame and an endgame value in
//! centipawns per term, in term order (`mob_N_0` … `mob_Q_27`).
//!
//! These are starting points for the fit, not tuned values. They were
//! written from ordinary chess knowledge: a piece with no safe square is
//! nearly lost (a large penalty), the first few squares matter most, and
//! each further square adds less; long-range pieces gain more from
//! mobility in the endgame, when the board is emptier and a rook or queen
//! that cannot move is a real handicap. The tables sit around zero at a
//! typical count (a knight with 4, a bishop with 5 to 6, a rook with 5, a
//! queen with 7 to 8 squares), so the material values keep their meaning.
//!
//! This file uses nothing from the crate, so that tests can include it on
//! its own.

/// Knight, 0 … 8 squares: (middlegame, endgame).
const KNIGHT: [(f64, f64); 9] =
    [(-40.0, -45.0), (-25.0, -30.0), (-12.0, -15.0), (-4.0, -5.0), (3.0, 3.0), (9.0, 9.0), (14.0, 14.0), (18.0, 17.0), (21.0, 19.0)];

/// Bishop, 0 … 13 squares.
const BISHOP: [(f64, f64); 14] = [
    (-35.0, -45.0),
    (-22.0, -30.0),
    (-11.0, -17.0),
    (-3.0, -7.0),
    (4.0, 1.0),
    (10.0, 8.0),
    (15.0, 14.0),
    (19.0, 19.0),
    (23.0, 23.0),
    (26.0, 27.0),
    (29.0, 30.0),
    (31.0, 32.0),
    (33.0, 34.0),
    (35.0, 36.0),
];

/// Rook, 0 … 14 squares.
const ROOK: [(f64, f64); 15] = [
    (-25.0, -50.0),
    (-17.0, -36.0),
    (-11.0, -24.0),
    (-6.0, -14.0),
    (-2.0, -6.0),
    (1.0, 1.0),
    (4.0, 8.0),
    (7.0, 14.0),
    (10.0, 20.0),
    (12.0, 25.0),
    (14.0, 29.0),
    (16.0, 33.0),
    (18.0, 36.0),
    (19.0, 38.0),
    (20.0, 40.0),
];

/// Queen, 0 … 27 squares.
const QUEEN: [(f64, f64); 28] = [
    (-25.0, -40.0),
    (-19.0, -32.0),
    (-14.0, -25.0),
    (-10.0, -19.0),
    (-7.0, -14.0),
    (-4.0, -10.0),
    (-2.0, -6.0),
    (0.0, -3.0),
    (2.0, 0.0),
    (4.0, 3.0),
    (6.0, 6.0),
    (8.0, 9.0),
    (9.0, 12.0),
    (10.0, 14.0),
    (11.0, 16.0),
    (12.0, 18.0),
    (13.0, 20.0),
    (14.0, 22.0),
    (15.0, 24.0),
    (16.0, 26.0),
    (17.0, 28.0),
    (18.0, 30.0),
    (19.0, 32.0),
    (20.0, 33.0),
    (21.0, 34.0),
    (22.0, 35.0),
    (23.0, 36.0),
    (24.0, 37.0),
];

/// One (middlegame, endgame) pair per `mobility` term, in term order.
pub fn starting_values() -> Vec<(f64, f64)> {
    [&KNIGHT[..], &BISHOP[..], &ROOK[..], &QUEEN[..]].concat()
}
