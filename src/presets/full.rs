//! The `full` preset: hand-set starting values for every term of the whole
//! evaluation, as (middlegame, endgame) centipawns per term.
//!
//! Written from ordinary chess knowledge, not tuned and not taken from any
//! engine: a tuning run starts here, and `verify` measures tuned weights
//! against it.

pub mod imbalance;
pub mod king_safety;
pub mod mobility;
pub mod pawns;
pub mod rooks;
pub mod threats;

use crate::features::{FeatureLayout, FeatureSet, Pst};
use crate::weights::{FORMAT, Weights};

/// The (middlegame, endgame) starting values of `set`'s terms, in term order.
pub fn starting_values(set: FeatureSet) -> Vec<(f64, f64)> {
    match set {
        // Untapered: the same value in both phases (the classical scale).
        FeatureSet::Material => crate::features::material::Material::CLASSICAL_VALUES.iter().map(|&v| (f64::from(v), f64::from(v))).collect(),
        // Pawns and minor pieces gain in the endgame, where a passed pawn
        // can run and a piece more decides; the rook gains on open boards.
        FeatureSet::MaterialTapered => vec![(90.0, 110.0), (310.0, 290.0), (320.0, 310.0), (470.0, 530.0), (920.0, 950.0)],
        FeatureSet::Pst => {
            let pst = super::pst::pst_preset();
            let terms = Pst::terms();
            terms.iter().map(|t| (pst.centipawns(&format!("mg_{t}")), pst.centipawns(&format!("eg_{t}")))).collect()
        }
        // Two bishops cover both colours; worth more as the board opens.
        FeatureSet::BishopPair => vec![(30.0, 50.0)],
        // Moving first is worth a little, more with pieces on the board.
        FeatureSet::Tempo => vec![(15.0, 5.0)],
        FeatureSet::Imbalance => imbalance::starting_values(),
        FeatureSet::Pawns => pawns::starting_values(),
        FeatureSet::Rooks => rooks::starting_values(),
        FeatureSet::Mobility => mobility::starting_values(),
        FeatureSet::Threats => threats::starting_values(),
        FeatureSet::KingSafety => king_safety::starting_values(),
    }
}

/// The `full` preset as a weights file.
pub fn full() -> Weights {
    let layout = FeatureLayout::full();
    let mut weights = std::collections::BTreeMap::new();
    for set in layout.sets() {
        weights.extend(set.columns().into_iter().zip(super::column_values(set)));
    }
    Weights {
        format: FORMAT,
        name: super::FULL.to_string(),
        features: layout.sets().map(|s| s.name().to_string()).collect(),
        scale: 1.0,
        intercept: None,
        default: None,
        weights,
    }
}
