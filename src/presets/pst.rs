//! The built-in piece-square tables: what the engine knows about squares
//! when a weights file does not bring its own `pst` weights.
//!
//! The values are centipawn bonuses on top of material (so they combine with
//! any material weights), written for this project from ordinary chess
//! principles: knights and queens want the centre, bishops the long
//! diagonals and fianchetto squares, rooks the seventh rank and the central
//! files, the king shelter behind its pawns while pieces are on the board and
//! the centre once they are gone; pawns are worth more the further they have
//! advanced, most of all in the endgame, where an advanced pawn is usually a
//! passed one.
//!
//! As a weights file, the preset has `features = ["pst"]`, `scale = 1` and
//! one weight per column in centipawns: a tapered column's value is the
//! piece's share of the phase (see [`crate::features`]), so
//! `cp = Σ (mg · phase + eg · (24 - phase)) / 24`, the usual tapered blend.

use std::collections::BTreeMap;

use shakmaty::{Role, Square};

use crate::features::{FeatureSet, Pst};
use crate::weights::{FORMAT, Weights};

/// The preset's name in reports and weight files.
pub const PST_PRESET_NAME: &str = "pst";

/// One table per role, written as a board diagram from white's side: the
/// first row is rank 8, the last rank 1, files a to h from left to right.
type Diagram = [i32; 64];

#[rustfmt::skip]
const PAWN_MG: Diagram = [
      0,   0,   0,   0,   0,   0,   0,   0,
     30,  35,  35,  40,  40,  35,  35,  30,
     10,  12,  18,  25,  25,  18,  12,  10,
      4,   6,  10,  20,  20,  10,   6,   4,
      0,   0,   8,  18,  18,   5,   0,   0,
      2,   2,   4,   6,   6,  -4,   0,   2,
      4,   6,   4, -15, -15,   6,   8,   4,
      0,   0,   0,   0,   0,   0,   0,   0,
];

#[rustfmt::skip]
const PAWN_EG: Diagram = [
      0,   0,   0,   0,   0,   0,   0,   0,
     75,  75,  75,  75,  75,  75,  75,  75,
     45,  45,  45,  45,  45,  45,  45,  45,
     25,  25,  25,  25,  25,  25,  25,  25,
     12,  12,  12,  12,  12,  12,  12,  12,
      4,   4,   4,   4,   4,   4,   4,   4,
      0,   0,   0,   0,   0,   0,   0,   0,
      0,   0,   0,   0,   0,   0,   0,   0,
];

#[rustfmt::skip]
const KNIGHT_MG: Diagram = [
    -50, -35, -25, -20, -20, -25, -35, -50,
    -35, -15,   0,   5,   5,   0, -15, -35,
    -25,   5,  15,  20,  20,  15,   5, -25,
    -20,  10,  20,  25,  25,  20,  10, -20,
    -20,   5,  15,  22,  22,  15,   5, -20,
    -25,   0,  12,  12,  12,  12,   0, -25,
    -35, -15,   0,   5,   5,   0, -15, -35,
    -50, -30, -25, -20, -20, -25, -30, -50,
];

#[rustfmt::skip]
const KNIGHT_EG: Diagram = [
    -40, -25, -20, -15, -15, -20, -25, -40,
    -25, -10,   0,   5,   5,   0, -10, -25,
    -20,   0,  10,  15,  15,  10,   0, -20,
    -15,   5,  15,  20,  20,  15,   5, -15,
    -15,   5,  15,  20,  20,  15,   5, -15,
    -20,   0,  10,  15,  15,  10,   0, -20,
    -25, -10,   0,   5,   5,   0, -10, -25,
    -40, -25, -20, -15, -15, -20, -25, -40,
];

#[rustfmt::skip]
const BISHOP_MG: Diagram = [
    -20, -10, -10, -10, -10, -10, -10, -20,
    -10,   0,   0,   0,   0,   0,   0, -10,
    -10,   0,   5,  10,  10,   5,   0, -10,
    -10,   5,   5,  10,  10,   5,   5, -10,
    -10,   0,  12,  10,  10,  12,   0, -10,
    -10,  10,  10,   8,   8,  10,  10, -10,
    -10,  15,   5,   5,   5,   5,  15, -10,
    -20, -10, -12, -10, -10, -12, -10, -20,
];

#[rustfmt::skip]
const BISHOP_EG: Diagram = [
    -15, -10,  -8,  -5,  -5,  -8, -10, -15,
    -10,  -3,   0,   0,   0,   0,  -3, -10,
     -8,   0,   5,   5,   5,   5,   0,  -8,
     -5,   0,   5,  10,  10,   5,   0,  -5,
     -5,   0,   5,  10,  10,   5,   0,  -5,
     -8,   0,   5,   5,   5,   5,   0,  -8,
    -10,  -3,   0,   0,   0,   0,  -3, -10,
    -15, -10,  -8,  -5,  -5,  -8, -10, -15,
];

#[rustfmt::skip]
const ROOK_MG: Diagram = [
      5,   5,   8,  10,  10,   8,   5,   5,
     20,  25,  25,  25,  25,  25,  25,  20,
     -5,   0,   0,   0,   0,   0,   0,  -5,
     -5,   0,   0,   0,   0,   0,   0,  -5,
     -5,   0,   0,   0,   0,   0,   0,  -5,
     -5,   0,   0,   0,   0,   0,   0,  -5,
    -10,  -5,   0,   0,   0,   0,  -5, -10,
     -5,   0,   3,   8,   8,   5,   0,  -5,
];

#[rustfmt::skip]
const ROOK_EG: Diagram = [
      5,   5,   5,   5,   5,   5,   5,   5,
     15,  15,  15,  15,  15,  15,  15,  15,
      0,   0,   0,   0,   0,   0,   0,   0,
      0,   0,   0,   0,   0,   0,   0,   0,
      0,   0,   0,   0,   0,   0,   0,   0,
      0,   0,   0,   0,   0,   0,   0,   0,
      0,   0,   0,   0,   0,   0,   0,   0,
     -5,   0,   0,   0,   0,   0,   0,  -5,
];

#[rustfmt::skip]
const QUEEN_MG: Diagram = [
    -20, -10, -10,  -5,  -5, -10, -10, -20,
    -10,   0,   0,   0,   0,   0,   0, -10,
    -10,   0,   5,   5,   5,   5,   0, -10,
     -5,   0,   5,   5,   5,   5,   0,  -5,
     -5,   0,   5,   5,   5,   5,   0,  -5,
    -10,   0,   5,   5,   5,   5,   0, -10,
    -10,   0,   2,   0,   0,   0,   0, -10,
    -20, -10, -10,   0,  -5, -10, -10, -20,
];

#[rustfmt::skip]
const QUEEN_EG: Diagram = [
    -20, -10, -10,  -5,  -5, -10, -10, -20,
    -10,   0,   5,   5,   5,   5,   0, -10,
    -10,   5,  10,  10,  10,  10,   5, -10,
     -5,   5,  10,  15,  15,  10,   5,  -5,
     -5,   5,  10,  15,  15,  10,   5,  -5,
    -10,   5,  10,  10,  10,  10,   5, -10,
    -10,   0,   5,   5,   5,   5,   0, -10,
    -20, -10, -10,  -5,  -5, -10, -10, -20,
];

#[rustfmt::skip]
const KING_MG: Diagram = [
    -60, -70, -70, -80, -80, -70, -70, -60,
    -60, -70, -70, -80, -80, -70, -70, -60,
    -50, -60, -60, -70, -70, -60, -60, -50,
    -40, -50, -50, -60, -60, -50, -50, -40,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -20, -30, -30, -40, -40, -30, -30, -20,
     10,  10,  -5, -20, -20,  -5,  10,  10,
     20,  30,  15, -10,   0, -10,  30,  20,
];

#[rustfmt::skip]
const KING_EG: Diagram = [
    -50, -35, -25, -20, -20, -25, -35, -50,
    -30, -15,  -5,   0,   0,  -5, -15, -30,
    -25,  -5,  15,  25,  25,  15,  -5, -25,
    -25,  -5,  25,  35,  35,  25,  -5, -25,
    -25,  -5,  25,  35,  35,  25,  -5, -25,
    -25,  -5,  15,  25,  25,  15,  -5, -25,
    -30, -20,  -5,   0,   0,  -5, -20, -30,
    -50, -35, -30, -25, -25, -30, -35, -50,
];

/// The (middlegame, endgame) diagrams of `role`.
fn diagrams(role: Role) -> (&'static Diagram, &'static Diagram) {
    match role {
        Role::Pawn => (&PAWN_MG, &PAWN_EG),
        Role::Knight => (&KNIGHT_MG, &KNIGHT_EG),
        Role::Bishop => (&BISHOP_MG, &BISHOP_EG),
        Role::Rook => (&ROOK_MG, &ROOK_EG),
        Role::Queen => (&QUEEN_MG, &QUEEN_EG),
        Role::King => (&KING_MG, &KING_EG),
    }
}

/// The preset's centipawn bonus for a white `role` on `square` in the
/// middlegame (`phase_block` 0) or the endgame (1).
pub fn pst_value(phase_block: usize, role: Role, square: Square) -> i32 {
    let (mg, eg) = diagrams(role);
    // Diagrams list rank 8 first; flipping the rank bits of the square index
    // (a1 = 0) gives the diagram index.
    let index = square as usize ^ 56;
    if phase_block == 0 { mg[index] } else { eg[index] }
}

/// The built-in PST preset as a weights file: `features = ["pst"]`,
/// `scale = 1`, one weight per non-zero column in centipawns (the others
/// take `default = 0`), so that the
/// evaluation is `Σ (mg · phase + eg · (24 - phase)) / 24` centipawns.
pub fn pst_preset() -> Weights {
    let mut weights = BTreeMap::new();
    for phase_block in 0..2 {
        for role in Pst::ROLES {
            for square in Square::ALL {
                let value = pst_value(phase_block, role, square);
                if value != 0 {
                    let column = format!("{}_{}", ["mg", "eg"][phase_block], Pst::terms()[Pst::term(role, square)]);
                    weights.insert(column, f64::from(value));
                }
            }
        }
    }
    Weights {
        format: FORMAT,
        name: PST_PRESET_NAME.to_string(),
        features: vec![FeatureSet::Pst.name().to_string()],
        scale: 1.0,
        intercept: None,
        default: Some(0.0),
        weights,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagrams_read_from_whites_side() {
        assert_eq!(pst_value(0, Role::King, Square::G1), 30);
        assert_eq!(pst_value(0, Role::Pawn, Square::E2), -15);
        assert_eq!(pst_value(1, Role::Pawn, Square::A7), 75);
        assert_eq!(pst_value(0, Role::Rook, Square::D7), 25);
        assert_eq!(pst_value(1, Role::King, Square::E4), 35);
    }

    #[test]
    fn preset_is_a_valid_weights_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pst.toml");
        let preset = pst_preset();
        preset.save(&path).unwrap();
        let loaded = Weights::load(&path).unwrap();
        assert_eq!(loaded, preset);
        assert_eq!(loaded.centipawns("mg_N_e4"), 22.0);
    }
}
