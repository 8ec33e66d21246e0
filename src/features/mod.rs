//! Feature sets: named, fixed-length integer vectors computed from a position.
//!
//! A feature vector is always "white minus black", so that the logistic model
//! `P(white scores) = σ(θ · x)` is symmetric under colour swap. The same code
//! feeds three consumers:
//!
//! * extraction writes dense rows with [`FeatureLayout::write`];
//! * fitting reads those rows back by column name;
//! * the engine evaluates `θ · x` with [`FeatureLayout::dot`], which walks the
//!   very same [`FeatureLayout::visit`] as extraction.
//!
//! Adding a feature set means one new module with a unit struct that has
//! `COLUMNS` and a `visit` function, plus one [`FeatureSet`] variant.
//!
//! ```
//! use pgntune::features::FeatureLayout;
//! use shakmaty::Chess;
//!
//! let layout = FeatureLayout::parse("material").unwrap();
//! assert_eq!(layout.columns(), ["P", "N", "B", "R", "Q"]);
//! let mut x = vec![0; layout.len()];
//! layout.write(&Chess::default(), &mut x);
//! assert_eq!(x, [0, 0, 0, 0, 0]);
//! ```

pub mod material;
pub mod pst;

use std::fmt;

use shakmaty::Chess;

pub use material::Material;
pub use pst::Pst;

/// One named block of features.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FeatureSet {
    /// Piece-count differences P, N, B, R, Q (white minus black).
    Material,
    /// Tapered piece-square tables: per piece a middlegame and an endgame
    /// column, weighted by the game phase (see [`pst`]).
    Pst,
}

impl FeatureSet {
    /// Every feature set the library knows, in the order `--help` lists them.
    pub const ALL: &'static [FeatureSet] = &[FeatureSet::Material, FeatureSet::Pst];

    /// The name used on the command line and in weight files.
    pub fn name(self) -> &'static str {
        match self {
            FeatureSet::Material => "material",
            FeatureSet::Pst => "pst",
        }
    }

    /// Column names of this set, in vector order.
    pub fn columns(self) -> Vec<String> {
        match self {
            FeatureSet::Material => Material::COLUMNS.iter().map(|c| c.to_string()).collect(),
            FeatureSet::Pst => Pst::columns(),
        }
    }

    /// Number of features in this set.
    pub fn len(self) -> usize {
        match self {
            FeatureSet::Material => Material::COLUMNS.len(),
            FeatureSet::Pst => Pst::LEN,
        }
    }

    /// True for a set without features (none so far; for clippy's
    /// `len_without_is_empty`).
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// True when the set's values depend only on how many pieces of each
    /// kind each side has, so they can change only on a capture or a
    /// promotion. Extraction uses this to skip recomputing unchanged vectors.
    pub fn depends_only_on_material(self) -> bool {
        match self {
            FeatureSet::Material => true,
            FeatureSet::Pst => false,
        }
    }

    /// Calls `emit(column, value)` for every non-zero feature of `pos`.
    /// A column may be reported more than once (`pst` reports a white and a
    /// black piece on mirrored squares separately): the values add up.
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(self, pos: &Chess, emit: F) {
        match self {
            FeatureSet::Material => Material::visit(pos, emit),
            FeatureSet::Pst => Pst::visit(pos, emit),
        }
    }
}

impl fmt::Display for FeatureSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A feature-set name that the library does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown feature set '{name}' (known: {known})")]
pub struct UnknownFeatureSet {
    /// The name as given.
    pub name: String,
    /// The known names, comma separated.
    pub known: String,
}

impl std::str::FromStr for FeatureSet {
    type Err = UnknownFeatureSet;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FeatureSet::ALL
            .iter()
            .copied()
            .find(|set| set.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownFeatureSet {
                name: s.to_string(),
                known: FeatureSet::ALL.iter().map(|s| s.name()).collect::<Vec<_>>().join(", "),
            })
    }
}

/// An ordered list of feature sets: the layout of one feature vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeatureLayout {
    sets: Vec<(FeatureSet, usize)>,
    len: usize,
}

impl FeatureLayout {
    /// A layout of the given sets, in order.
    pub fn new(sets: &[FeatureSet]) -> FeatureLayout {
        let mut offset = 0;
        let mut placed = Vec::with_capacity(sets.len());
        for &set in sets {
            if placed.iter().any(|&(s, _)| s == set) {
                continue;
            }
            placed.push((set, offset));
            offset += set.len();
        }
        FeatureLayout { sets: placed, len: offset }
    }

    /// Parses a comma-separated list such as `material`.
    pub fn parse(list: &str) -> Result<FeatureLayout, UnknownFeatureSet> {
        let sets = list
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(str::parse)
            .collect::<Result<Vec<FeatureSet>, _>>()?;
        Ok(FeatureLayout::new(&sets))
    }

    /// The layout whose columns are exactly `columns` (a dataset's header),
    /// if the columns are known feature sets one after another.
    pub fn from_columns(columns: &[String]) -> Option<FeatureLayout> {
        let mut sets = Vec::new();
        let mut rest = columns;
        while !rest.is_empty() {
            let set = FeatureSet::ALL.iter().copied().find(|set| {
                let names = set.columns();
                rest.len() >= names.len() && rest[..names.len()] == names[..]
            })?;
            rest = &rest[set.len()..];
            sets.push(set);
        }
        Some(FeatureLayout::new(&sets))
    }

    /// The feature sets in this layout.
    pub fn sets(&self) -> impl Iterator<Item = FeatureSet> + '_ {
        self.sets.iter().map(|&(set, _)| set)
    }

    /// The comma-separated names of the sets, as [`FeatureLayout::parse`] reads them.
    pub fn spec(&self) -> String {
        self.sets().map(FeatureSet::name).collect::<Vec<_>>().join(",")
    }

    /// Length of the feature vector.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a layout with no features.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when every set in the layout depends only on material (see
    /// [`FeatureSet::depends_only_on_material`]).
    pub fn depends_only_on_material(&self) -> bool {
        self.sets().all(FeatureSet::depends_only_on_material)
    }

    /// Column names, in vector order.
    pub fn columns(&self) -> Vec<String> {
        self.sets().flat_map(FeatureSet::columns).collect()
    }

    /// Calls `emit(index, value)` for every non-zero feature of `pos`.
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(&self, pos: &Chess, mut emit: F) {
        for &(set, offset) in &self.sets {
            set.visit(pos, |i, v| emit(offset + i, v));
        }
    }

    /// Writes the dense feature vector of `pos` into `out` (length [`Self::len`]).
    pub fn write(&self, pos: &Chess, out: &mut [i32]) {
        debug_assert_eq!(out.len(), self.len);
        out.fill(0);
        self.visit(pos, |i, v| out[i] += v);
    }

    /// `weights · features(pos)`: the engine's evaluation, from the same
    /// visit that extraction uses.
    #[inline]
    pub fn dot(&self, pos: &Chess, weights: &[i32]) -> i32 {
        debug_assert_eq!(weights.len(), self.len);
        let mut sum = 0;
        self.visit(pos, |i, v| sum += weights[i] * v);
        sum
    }
}

impl Default for FeatureLayout {
    fn default() -> Self {
        FeatureLayout::new(&[FeatureSet::Material])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn dot_agrees_with_dense_write() {
        let layout = FeatureLayout::default();
        let p = pos("4k3/8/8/8/8/8/PPP5/RN2K2Q w - - 0 1");
        let mut x = vec![0; layout.len()];
        layout.write(&p, &mut x);
        assert_eq!(x, [3, 1, 0, 1, 1]);
        let w = [100, 300, 310, 500, 900];
        assert_eq!(layout.dot(&p, &w), 300 + 300 + 500 + 900);
    }

    #[test]
    fn parse_rejects_unknown_sets_and_dedups() {
        assert!(FeatureLayout::parse("material,nonsense").is_err());
        let l = FeatureLayout::parse("material, material").unwrap();
        assert_eq!(l.len(), 5);
        assert_eq!(l.spec(), "material");
    }

    #[test]
    fn pst_follows_material_in_a_combined_layout() {
        let layout = FeatureLayout::parse("material,pst").unwrap();
        assert_eq!(layout.len(), 5 + 768);
        assert!(!layout.depends_only_on_material());
        let columns = layout.columns();
        assert_eq!(columns[5], "mg_P_a1");
        assert_eq!(columns[5 + 768 - 1], "eg_K_h8");
        assert_eq!(FeatureLayout::from_columns(&columns), Some(layout.clone()));
        // A white knight on e4 against a bare king: phase 1.
        let p = pos("4k3/8/8/8/4N3/8/8/4K3 w - - 0 1");
        let mut x = vec![0; layout.len()];
        layout.write(&p, &mut x);
        assert_eq!(x[1], 1);
        assert_eq!(x[5 + columns[5..].iter().position(|c| c == "mg_N_e4").unwrap()], 1);
        assert_eq!(x[5 + columns[5..].iter().position(|c| c == "eg_N_e4").unwrap()], 23);
    }
}
