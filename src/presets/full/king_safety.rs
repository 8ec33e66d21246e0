//! Hand-set starting values of the `king_safety` set (see
//! `crate::features::king_safety`): a middlegame and an endgame value in
//! centipawns per term, in term order.
//!
//! These are starting points for the fit, not tuned values, written from
//! ordinary chess knowledge. Every term describes the king's own side, so
//! a shield pawn is worth a bonus and everything aimed at the king is a
//! penalty. King safety is a middlegame matter: the endgame values are
//! small (there the king should come out, which the king's piece-square
//! table says). A shield pawn right in front of the king is worth most on
//! the files a castled king usually stands on (b/g, then f/c and a/h);
//! one that has advanced two or three ranks protects less. Enemy pawns
//! two or three ranks in front of the king are the dangerous storm (they
//! threaten to open a file with a lever); a blocked storm pawn opens
//! nothing. Open files beside the king invite rooks. Attackers add up
//! faster than linearly: one piece aiming at the zone is normal, three or
//! more are an attack, hence the growing `katt_n*` values. A safe check is
//! the sharpest warning.
//!
//! This file uses nothing from the crate, so that tests can include it on
//! its own.

/// Shield bonus by file class (a/h, b/g, c/f, d/e) and distance 1 … 3.
const SHIELD: [[(f64, f64); 3]; 4] = [
    [(18.0, 2.0), (10.0, 1.0), (4.0, 0.0)],
    [(25.0, 3.0), (15.0, 2.0), (5.0, 0.0)],
    [(20.0, 2.0), (10.0, 1.0), (3.0, 0.0)],
    [(10.0, 1.0), (5.0, 0.0), (2.0, 0.0)],
];

/// Storm penalty by file class and distance 1 … 4, then blocked.
const STORM: [[(f64, f64); 5]; 4] = [
    [(-8.0, 0.0), (-22.0, -2.0), (-15.0, -1.0), (-8.0, 0.0), (-4.0, 0.0)],
    [(-10.0, 0.0), (-28.0, -2.0), (-18.0, -1.0), (-9.0, 0.0), (-5.0, 0.0)],
    [(-8.0, 0.0), (-22.0, -2.0), (-15.0, -1.0), (-8.0, 0.0), (-4.0, 0.0)],
    [(-5.0, 0.0), (-15.0, -1.0), (-10.0, 0.0), (-5.0, 0.0), (-3.0, 0.0)],
];

/// The terms after the storm block, in term order.
const REST: [(f64, f64); 16] = [
    (-25.0, -2.0),   // kfile_open
    (-20.0, -2.0),   // kfile_no_own
    (-8.0, 0.0),     // kfile_no_enemy
    (-12.0, -2.0),   // katt_N
    (-10.0, -2.0),   // katt_B
    (-12.0, -3.0),   // katt_R
    (-18.0, -5.0),   // katt_Q
    (-15.0, 0.0),    // katt_n2
    (-45.0, -5.0),   // katt_n3
    (-90.0, -10.0),  // katt_n4
    (-140.0, -15.0), // katt_n5
    (-8.0, -1.0),    // kzone_weak
    (-40.0, -10.0),  // kcheck_N
    (-30.0, -8.0),   // kcheck_B
    (-45.0, -10.0),  // kcheck_R
    (-35.0, -10.0),  // kcheck_Q
];

/// One (middlegame, endgame) pair per `king_safety` term, in term order.
pub fn starting_values() -> Vec<(f64, f64)> {
    let shield = SHIELD.iter().flatten();
    let storm = STORM.iter().flatten();
    shield.chain(storm).chain(REST.iter()).copied().collect()
}
