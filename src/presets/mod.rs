//! Hand-set weights: the presets the engine plays with before any tuning,
//! and the starting point (and default prior) of the tuner.
//!
//! * `full`: every term of the whole evaluation ([`FeatureSet::FULL`]),
//!   set by hand from ordinary chess knowledge, set by set ([`full`]). These
//!   are starting values, not tuned ones: what a tuning run starts from and
//!   what tuned weights are measured against.
//! * The material presets (`classical`, `kaissa`, ...) of [`crate::weights`].
//! * The piece-square tables ([`pst`]): what the engine knows about squares
//!   when a weights file brings no `pst` weights.

pub mod full;
pub mod pst;

pub use full::{full, starting_values};
pub use pst::pst_preset;

use crate::features::{FeatureLayout, FeatureSet};
use std::path::Path;

use crate::weights::{FORMAT, Weights, WeightsError};

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

/// Weights by name: a preset (the material presets of
/// [`crate::weights::PRESETS`] or [`FULL`]) or a weights file. These live
/// here, above both [`crate::weights`] and the presets, so that the weights
/// file format does not depend on the presets built from it.
impl Weights {
    /// The file a weights spec names, or `None` for a preset: the file
    /// that [`Weights::resolve`] reads, which no output may replace.
    pub fn file(spec: &str) -> Option<&Path> {
        let preset = Weights::preset(spec).is_some() || spec.eq_ignore_ascii_case(FULL);
        (!preset).then_some(Path::new(spec)).filter(|path| spec.contains(['/', '.']) || path.exists())
    }

    /// A preset name or the path of a weights file.
    pub fn resolve(spec: &str) -> Result<Weights, WeightsError> {
        let preset = Weights::preset(spec).or_else(|| spec.eq_ignore_ascii_case(FULL).then(full));
        if let Some(w) = preset {
            // A file of a preset's name in the current folder: which one
            // was meant cannot be told, and a guess is a silent wrong answer.
            if Path::new(spec).exists() && !Path::new(spec).is_dir() {
                return Err(WeightsError::Ambiguous { spec: spec.to_string() });
            }
            return Ok(w);
        }
        let path = Path::new(spec);
        // Anything that looks like a file name is one: its I/O error says
        // what is wrong (missing, unreadable, a directory).
        let looks_like_a_file = spec.contains(['/', '.']) || spec == "-" || path.exists();
        if looks_like_a_file {
            return Weights::load(path);
        }
        Err(WeightsError::NotFound {
            spec: spec.to_string(),
            presets: crate::weights::PRESETS.iter().map(|p| p.0).chain([FULL]).collect::<Vec<_>>().join(", "),
        })
    }
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
