//! Hand-set weights: the presets the engine plays with before any tuning,
//! and the starting point (and default prior) of the tuner.
//!
//! * `full`: every term of the whole evaluation ([`FeatureSet::FULL`]),
//!   set by hand from ordinary chess knowledge, set by set ([`full`]). These
//!   are starting values, not tuned ones: what a tuning run starts from and
//!   what tuned weights are measured against.
//! * The material presets (`classical`, `kaissa`, ...) of [`crate::weights`].
//! * The piece-square tables ([`crate::engine::pst_preset`]).

pub mod full;

pub use full::{full, starting_values};

use crate::features::{FeatureLayout, FeatureSet};
use crate::weights::{FORMAT, Weights};

/// The name of the whole-evaluation preset.
pub const FULL: &str = "full";

/// The weights the engine plays with when none are named: the hand-set
/// whole evaluation.
pub const DEFAULT_ENGINE: &str = FULL;

/// The engine's default weights for every column of `layout`, in
/// centipawns: the `full` preset's values, and for the untapered `material`
/// set the classical 1-3-3-5-9 scale.
pub fn defaults_for(layout: &FeatureLayout) -> Weights {
    let mut weights = std::collections::BTreeMap::new();
    for set in layout.sets() {
        let columns = set.columns();
        weights.extend(columns.into_iter().zip(column_values(set)));
    }
    Weights {
        format: FORMAT,
        name: "defaults".to_string(),
        features: layout.sets().map(|s| s.name().to_string()).collect(),
        scale: 1.0,
        intercept: None,
        default: None,
        weights,
    }
}

/// The starting values of `set` in column order: middlegame values then
/// endgame values for a tapered set, one value per term otherwise.
pub fn column_values(set: FeatureSet) -> Vec<f64> {
    let pairs = starting_values(set);
    if set.tapered() { pairs.iter().map(|p| p.0).chain(pairs.iter().map(|p| p.1)).collect() } else { pairs.iter().map(|p| p.0).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_cover_every_column() {
        let layout = FeatureLayout::new(FeatureSet::ALL);
        let w = defaults_for(&layout);
        assert_eq!(w.weights.len(), layout.len());
        assert_eq!(w.centipawns("N"), 300.0);
        let full = full();
        assert_eq!(full.layout().unwrap(), FeatureLayout::full());
        assert_eq!(full.weights.len(), FeatureLayout::full().len());
    }
}
