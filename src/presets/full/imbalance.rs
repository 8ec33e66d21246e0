//! Hand-set starting values of the `imbalance` set for the `full` preset, in
//! centipawns (middlegame, endgame), in term order.
//!
//! These are hand-set starting points, not tuned and not taken from any
//! engine. The set is untapered, so each pair holds the same value twice
//! (its one column takes either). Only three ideas have a published basis;
//! every other product starts at zero and is left to the fit:
//!
//! * Kaufman ("The Evaluation of Material Imbalances", 1999): a knight is
//!   worth 1/16 pawn more, a rook 1/8 pawn less, for each own pawn above
//!   five (and the other way round below five): `kaufman_N_pawns` +6.25,
//!   `kaufman_R_pawns` −12.5 per unit.
//! * His redundancy of major pieces: the exchange is worth about 1½ pawns
//!   with all major pieces on the board and about 2 once the queens and a
//!   pair of rooks are gone. In this set's terms the side up the exchange
//!   then has one more rook pair (`imb_R_R`) and one more queen-rook
//!   product (`imb_Q_R`), so the two weights add up to about −50; they are
//!   split evenly, for lack of a basis to split them otherwise.

/// Each term's name with its (middlegame, endgame) starting value in cp.
pub const NAMED_STARTING_VALUES: [(&str, f64, f64); 26] = [
    ("imb_P_Bpair", 0.0, 0.0),
    ("imb_P_P", 0.0, 0.0),
    ("imb_N_Bpair", 0.0, 0.0),
    ("kaufman_N_pawns", 6.25, 6.25),
    ("imb_N_N", 0.0, 0.0),
    ("imb_B_P", 0.0, 0.0),
    ("imb_B_N", 0.0, 0.0),
    ("imb_R_Bpair", 0.0, 0.0),
    ("kaufman_R_pawns", -12.5, -12.5),
    ("imb_R_N", 0.0, 0.0),
    ("imb_R_B", 0.0, 0.0),
    ("imb_R_R", -25.0, -25.0),
    ("imb_Q_Bpair", 0.0, 0.0),
    ("imb_Q_P", 0.0, 0.0),
    ("imb_Q_B", 0.0, 0.0),
    ("imb_Q_R", -25.0, -25.0),
    ("imb_P_vs_Bpair", 0.0, 0.0),
    ("imb_N_vs_Bpair", 0.0, 0.0),
    ("imb_N_vs_P", 0.0, 0.0),
    ("imb_B_vs_Bpair", 0.0, 0.0),
    ("imb_B_vs_P", 0.0, 0.0),
    ("imb_B_vs_N", 0.0, 0.0),
    ("imb_R_vs_Bpair", 0.0, 0.0),
    ("imb_R_vs_P", 0.0, 0.0),
    ("imb_R_vs_N", 0.0, 0.0),
    ("imb_R_vs_B", 0.0, 0.0),
];

/// The (middlegame, endgame) starting values in cp, one pair per term of
/// the `imbalance` set, in term order.
pub fn starting_values() -> Vec<(f64, f64)> {
    NAMED_STARTING_VALUES.iter().map(|&(_, mg, eg)| (mg, eg)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::Imbalance;

    #[test]
    fn one_untapered_value_per_term_in_term_order() {
        let names: Vec<&str> = NAMED_STARTING_VALUES.iter().map(|&(n, _, _)| n).collect();
        assert_eq!(names, Imbalance::terms());
        assert!(NAMED_STARTING_VALUES.iter().all(|&(_, mg, eg)| mg == eg));
        assert_eq!(starting_values()[3], (6.25, 6.25));
    }
}
