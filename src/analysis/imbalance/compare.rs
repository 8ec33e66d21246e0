//! `--compare`: each later collection's estimates against the first's, by
//! z-tests (each collection in its own pawn units).

use serde::Serialize;

use super::{CollectionFit, Estimate, PAWNS, two_sided};

/// A difference between two collections' estimates.
#[derive(Clone, Debug, Serialize)]
pub struct Difference {
    /// What is compared (an effect's key, or `knight middlegame 6 pawns`).
    pub key: String,
    /// The first collection's value.
    pub first: Estimate,
    /// The other collection's value.
    pub other: Estimate,
    /// `(other − first) / √(se_first² + se_other²)` with the model's errors.
    pub z: f64,
    /// The same with the errors clustered by game.
    pub z_clustered: f64,
    /// The two-sided p-value of `z_clustered`.
    pub p_clustered: f64,
}

impl Difference {
    fn new(key: String, first: Estimate, other: Estimate) -> Difference {
        let d = other.value - first.value;
        let z = d / first.se.hypot(other.se);
        let z_clustered = d / first.se_clustered.hypot(other.se_clustered);
        Difference { key, first, other, z, z_clustered, p_clustered: two_sided(z_clustered) }
    }
}

/// The z-tests between two collections: Kaufman's effects, then the knight
/// and rook values by own pawns.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// The first collection.
    pub first: String,
    /// The collection compared with it.
    pub other: String,
    /// One per effect, in the effects' order.
    pub effects: Vec<Difference>,
    /// One per value of the by-pawns tables.
    pub by_pawns: Vec<Difference>,
}

/// Compares `other` with `first`, estimate by estimate (each in its own
/// collection's pawn units).
pub fn compare(first: &CollectionFit, other: &CollectionFit) -> Comparison {
    let effects = first.effects.iter().zip(&other.effects).map(|(a, b)| Difference::new(a.key.to_string(), a.estimate, b.estimate)).collect();
    let mut by_pawns = Vec::new();
    for (a, b) in first.by_pawns.iter().zip(&other.by_pawns) {
        for (pawns, (x, y)) in PAWNS.zip(a.values.iter().zip(&b.values)) {
            by_pawns.push(Difference::new(format!("{} {} {pawns} pawns", a.piece, a.reference), *x, *y));
        }
    }
    Comparison { first: first.name.clone(), other: other.name.clone(), effects, by_pawns }
}
