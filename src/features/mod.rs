//! Feature sets: the terms of a linear evaluation, computed from a position.
//!
//! Every feature is "white minus black", so that the logistic model
//! `P(white scores) = σ(θ · x)` is symmetric under colour swap. A feature set
//! is a list of *terms* (a piece count, a knight on e4, a passed pawn on the
//! 6th rank, ...); each set module has one `visit` that reports the non-zero
//! terms of a position as `(term, count)` pairs. The same visit feeds three
//! consumers:
//!
//! * extraction stores the pairs as a sparse row ([`FeatureLayout::terms_of`]);
//! * fitting reads those rows back (or dense columns for small layouts);
//! * the engine folds the pairs into `θ · x` (see `engine::eval`).
//!
//! ## Tapered terms
//!
//! Most sets are *tapered*: each term has a middlegame and an endgame
//! column (`mg_…`, `eg_…`), blended by the game phase `p` in `0..=24`
//! ([`phase`]). The design-matrix values of a term with count `c` are
//! `c · p / 24` in its `mg` column and `c · (24 − p) / 24` in its `eg`
//! column, so a weight is the term's value in a full middlegame (`mg`) or a
//! pawn ending (`eg`), and the evaluation stays linear in the weights. An
//! untapered term (the article's `material`) has one column with value `c`.
//! Rows are stored by term with the phase beside them, so a tapered term
//! costs one entry, not two.
//!
//! ## Identification
//!
//! Some groups of terms add up to a piece count (a piece's PST squares, a
//! piece's mobility counts) or to nothing at all (the king's squares). Then
//! adding a constant to the whole group changes no evaluation, or only
//! moves value between the group and the piece's material weight: the fit
//! cannot tell them apart. Each set declares such groups ([`TermGroup`]),
//! and the fitter keeps each group's sum where the starting weights put it
//! (see `fit::sparse`): a table is then "relative to its own mean".
//!
//! ```
//! use pgntune::features::FeatureLayout;
//! use shakmaty::Chess;
//!
//! let layout = FeatureLayout::parse("material").unwrap();
//! assert_eq!(layout.columns(), ["P", "N", "B", "R", "Q"]);
//! let mut x = vec![0.0; layout.len()];
//! layout.write(&Chess::default(), &mut x);
//! assert_eq!(x, [0.0; 5]);
//! ```

pub mod context;
pub mod custom;
pub mod imbalance;
pub mod king_safety;
pub mod material;
pub mod mobility;
pub mod pawn_king;
pub mod pawns;
pub mod pst;
pub mod rooks;
mod scratch;
pub mod simple;
pub mod threats;

use std::fmt;
use std::sync::OnceLock;

use shakmaty::{Chess, Role};

pub use context::{Context, MAX_PHASE, phase};
pub use imbalance::Imbalance;
pub use king_safety::KingSafety;
pub use material::Material;
pub use mobility::Mobility;
pub use pawn_king::{PawnKingFacts, PawnKingKey};
pub use pawns::Pawns;
pub use pst::Pst;
pub use rooks::Rooks;
pub use scratch::TermScratch;
pub use simple::{BishopPair, MaterialTapered, Tempo};
pub use threats::Threats;

/// One named block of evaluation terms.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FeatureSet {
    /// Piece-count differences P, N, B, R, Q (the 2015 article; untapered).
    Material,
    /// Piece counts with a middlegame and an endgame value each.
    MaterialTapered,
    /// Piece-square tables: one term per role and square (see [`pst`]).
    Pst,
    /// Owning two or more bishops.
    BishopPair,
    /// The side to move.
    Tempo,
    /// Material imbalance: products of piece counts (see [`imbalance`]; untapered).
    Imbalance,
    /// Pawn structure and passed pawns (see [`pawns`]).
    Pawns,
    /// Rooks and queens on open files and the 7th rank (see [`rooks`]).
    Rooks,
    /// Knights, bishops, rooks and queens by their number of safe squares.
    Mobility,
    /// Pieces attacked by cheaper ones, hanging pieces, pawn-push threats.
    Threats,
    /// Pawn shield and storm, open files, attackers and checks near each king.
    KingSafety,
}

/// A group of terms whose values add up to a piece count or to zero in
/// every position, so that its level is not identified beside material.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TermGroup {
    /// A short name for reports, such as `pst N`.
    pub name: String,
    /// The terms, as indices within the set.
    pub terms: std::ops::Range<usize>,
    /// What the group's values add up to, per side.
    pub sum: GroupSum,
}

/// What a [`TermGroup`]'s values add up to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GroupSum {
    /// Nothing: the group's level never changes an evaluation.
    Zero,
    /// The number of pieces of this role.
    Count(Role),
}

/// The static description of a set, from its module.
struct SetInfo {
    name: &'static str,
    meaning: &'static str,
    tapered: bool,
    material_only: bool,
    terms: fn() -> Vec<String>,
    groups: fn() -> Vec<TermGroup>,
}

impl FeatureSet {
    /// Every feature set the library knows, in the order `--help` lists them.
    pub const ALL: &'static [FeatureSet] = &[
        FeatureSet::Material,
        FeatureSet::MaterialTapered,
        FeatureSet::Pst,
        FeatureSet::BishopPair,
        FeatureSet::Tempo,
        FeatureSet::Pawns,
        FeatureSet::Rooks,
        FeatureSet::Mobility,
        FeatureSet::Threats,
        FeatureSet::KingSafety,
        FeatureSet::Imbalance,
    ];

    /// The sets of `--features full`: the whole evaluation, every set tapered.
    pub const FULL: &'static [FeatureSet] = &[
        FeatureSet::MaterialTapered,
        FeatureSet::Pst,
        FeatureSet::BishopPair,
        FeatureSet::Tempo,
        FeatureSet::Pawns,
        FeatureSet::Rooks,
        FeatureSet::Mobility,
        FeatureSet::Threats,
        FeatureSet::KingSafety,
    ];

    fn info(self) -> SetInfo {
        match self {
            FeatureSet::Material => SetInfo {
                name: "material",
                meaning: "piece counts P N B R Q, white minus black (the 2015 article)",
                tapered: false,
                material_only: true,
                terms: || Material::COLUMNS.iter().map(|c| c.to_string()).collect(),
                groups: Vec::new,
            },
            FeatureSet::MaterialTapered => SetInfo {
                name: "material_tapered",
                meaning: MaterialTapered::MEANING,
                tapered: true,
                material_only: true,
                terms: MaterialTapered::terms,
                groups: Vec::new,
            },
            FeatureSet::Pst => SetInfo {
                name: "pst",
                meaning: "piece-square tables: each piece by its square, from its own side (mirrored for black)",
                tapered: true,
                material_only: false,
                terms: Pst::terms,
                groups: Pst::groups,
            },
            FeatureSet::BishopPair => SetInfo {
                name: "bishop_pair",
                meaning: BishopPair::MEANING,
                tapered: true,
                material_only: true,
                terms: BishopPair::terms,
                groups: Vec::new,
            },
            FeatureSet::Tempo => {
                SetInfo { name: "tempo", meaning: Tempo::MEANING, tapered: true, material_only: false, terms: Tempo::terms, groups: Vec::new }
            }
            FeatureSet::Imbalance => SetInfo {
                name: "imbalance",
                meaning: Imbalance::MEANING,
                tapered: false,
                material_only: true,
                terms: Imbalance::terms,
                groups: Vec::new,
            },
            FeatureSet::Pawns => {
                SetInfo { name: "pawns", meaning: Pawns::MEANING, tapered: true, material_only: false, terms: Pawns::terms, groups: Vec::new }
            }
            FeatureSet::Rooks => {
                SetInfo { name: "rooks", meaning: Rooks::MEANING, tapered: true, material_only: false, terms: Rooks::terms, groups: Vec::new }
            }
            FeatureSet::Mobility => SetInfo {
                name: "mobility",
                meaning: Mobility::MEANING,
                tapered: true,
                material_only: false,
                terms: Mobility::terms,
                groups: Mobility::groups,
            },
            FeatureSet::Threats => {
                SetInfo { name: "threats", meaning: Threats::MEANING, tapered: true, material_only: false, terms: Threats::terms, groups: Vec::new }
            }
            FeatureSet::KingSafety => SetInfo {
                name: "king_safety",
                meaning: KingSafety::MEANING,
                tapered: true,
                material_only: false,
                terms: KingSafety::terms,
                groups: Vec::new,
            },
        }
    }

    /// The name used on the command line and in weight files.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// One line saying what the set measures, for `pgntune features`.
    pub fn meaning(self) -> &'static str {
        self.info().meaning
    }

    /// True when each term has a middlegame and an endgame column.
    pub fn tapered(self) -> bool {
        self.info().tapered
    }

    /// The names of the set's terms, in term order (cached).
    pub fn terms(self) -> &'static [String] {
        static CACHE: [OnceLock<Vec<String>>; FeatureSet::ALL.len()] = [const { OnceLock::new() }; FeatureSet::ALL.len()];
        let index = FeatureSet::ALL.iter().position(|&s| s == self).expect("every set is in ALL");
        CACHE[index].get_or_init(|| (self.info().terms)())
    }

    /// Number of terms.
    pub fn term_count(self) -> usize {
        self.terms().len()
    }

    /// Column names of this set, in vector order: the terms, or for a
    /// tapered set `mg_` + every term, then `eg_` + every term.
    pub fn columns(self) -> Vec<String> {
        if self.tapered() {
            let terms = self.terms();
            terms.iter().map(|t| format!("mg_{t}")).chain(terms.iter().map(|t| format!("eg_{t}"))).collect()
        } else {
            self.terms().to_vec()
        }
    }

    /// Number of columns (twice the terms for a tapered set).
    pub fn len(self) -> usize {
        self.term_count() * if self.tapered() { 2 } else { 1 }
    }

    /// True for a set without features (none; for clippy's `len_without_is_empty`).
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// True when the set's values depend only on how many pieces of each
    /// kind each side has (the phase included), so they can change only on
    /// a capture or a promotion. Extraction uses this to skip recomputing
    /// unchanged vectors.
    pub fn depends_only_on_material(self) -> bool {
        self.info().material_only
    }

    /// The set's groups of terms whose level is not identified (see the
    /// module documentation).
    pub fn groups(self) -> Vec<TermGroup> {
        (self.info().groups)()
    }

    /// Calls `emit(term, count)` for the set's terms in `ctx`'s position.
    /// A term may be reported more than once (a white and a black piece on
    /// mirrored squares); the counts add up. Zero counts may be reported.
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(self, ctx: &Context, emit: F) {
        match self {
            FeatureSet::Material => Material::visit(ctx.pos, emit),
            FeatureSet::MaterialTapered => MaterialTapered::visit(ctx, emit),
            FeatureSet::Pst => Pst::visit(ctx, emit),
            FeatureSet::BishopPair => BishopPair::visit(ctx, emit),
            FeatureSet::Tempo => Tempo::visit(ctx, emit),
            FeatureSet::Imbalance => Imbalance::visit(ctx, emit),
            FeatureSet::Pawns => Pawns::visit(ctx, emit),
            FeatureSet::Rooks => Rooks::visit(ctx, emit),
            FeatureSet::Mobility => Mobility::visit(ctx, emit),
            FeatureSet::Threats => Threats::visit(ctx, emit),
            FeatureSet::KingSafety => KingSafety::visit(ctx, emit),
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
#[error("unknown feature set '{name}' (known: {known}, or full)")]
pub struct UnknownFeatureSet {
    /// The name as given.
    pub name: String,
    /// The known names, comma separated.
    pub known: String,
}

impl std::str::FromStr for FeatureSet {
    type Err = UnknownFeatureSet;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FeatureSet::ALL.iter().copied().find(|set| set.name().eq_ignore_ascii_case(s.trim())).ok_or_else(|| UnknownFeatureSet {
            name: s.trim().to_string(),
            known: FeatureSet::ALL.iter().map(|s| s.name()).collect::<Vec<_>>().join(", "),
        })
    }
}

/// One set's place in a layout.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Placed {
    set: FeatureSet,
    /// Index of the set's first term in the layout's terms.
    term_offset: usize,
    /// Index of the set's first column in the layout's columns.
    column_offset: usize,
}

/// Where a term's values go in the dense vector.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TermColumns {
    /// An untapered term: one column, value = count.
    Single(usize),
    /// A tapered term: `mg` gets `count · p / 24`, `eg` gets `count · (24 − p) / 24`.
    Tapered {
        /// The middlegame column.
        mg: usize,
        /// The endgame column.
        eg: usize,
    },
}

/// One non-zero term of a position: its index in the layout and its count.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermValue {
    /// The term's index in the layout.
    pub term: u16,
    /// Its count (white minus black).
    pub value: i16,
}

/// An ordered list of feature sets: the layout of one feature vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeatureLayout {
    sets: Vec<Placed>,
    terms: usize,
    columns: usize,
    /// The columns of every term, computed once (writers and readers ask
    /// for them per term of every row).
    term_columns: Vec<TermColumns>,
    /// An engine's own terms, in place of sets (see [`custom`]).
    custom: Option<std::sync::Arc<custom::CustomTerms>>,
}

/// The largest number of terms a layout may have: term indices are stored in 16 bits.
pub const MAX_TERMS: usize = u16::MAX as usize;

impl FeatureLayout {
    /// A layout of the given sets, in order (a set named twice counts once).
    pub fn new(sets: &[FeatureSet]) -> FeatureLayout {
        let mut placed: Vec<Placed> = Vec::with_capacity(sets.len());
        let (mut terms, mut columns) = (0, 0);
        for &set in sets {
            if placed.iter().any(|p| p.set == set) {
                continue;
            }
            placed.push(Placed { set, term_offset: terms, column_offset: columns });
            terms += set.term_count();
            columns += set.len();
        }
        debug_assert!(terms <= MAX_TERMS);
        let mut term_columns = Vec::with_capacity(terms);
        for p in &placed {
            let n = p.set.term_count();
            for local in 0..n {
                let c = p.column_offset + local;
                term_columns.push(if p.set.tapered() { TermColumns::Tapered { mg: c, eg: c + n } } else { TermColumns::Single(c) });
            }
        }
        FeatureLayout { sets: placed, terms, columns, term_columns, custom: None }
    }

    /// The whole evaluation: every set of [`FeatureSet::FULL`].
    pub fn full() -> FeatureLayout {
        FeatureLayout::new(FeatureSet::FULL)
    }

    /// Parses a comma-separated list such as `material` or `material,pst`;
    /// `full` stands for [`FeatureSet::FULL`].
    pub fn parse(list: &str) -> Result<FeatureLayout, UnknownFeatureSet> {
        let mut sets = Vec::new();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if name.eq_ignore_ascii_case("full") {
                sets.extend_from_slice(FeatureSet::FULL);
            } else {
                sets.push(name.parse()?);
            }
        }
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
        self.sets.iter().map(|p| p.set)
    }

    /// True when the layout contains `set`.
    pub fn contains(&self, set: FeatureSet) -> bool {
        self.sets().any(|s| s == set)
    }

    /// The comma-separated names of the sets, as [`FeatureLayout::parse`] reads them.
    pub fn spec(&self) -> String {
        if self.custom.is_some() {
            return custom::TRACE_SPEC.to_string();
        }
        self.sets().map(FeatureSet::name).collect::<Vec<_>>().join(",")
    }

    /// Number of columns of the dense feature vector.
    pub fn len(&self) -> usize {
        self.columns
    }

    /// True for a layout with no features.
    pub fn is_empty(&self) -> bool {
        self.columns == 0
    }

    /// Number of terms (a tapered term has two columns).
    pub fn term_count(&self) -> usize {
        self.terms
    }

    /// True when any set is tapered, so that rows need the phase.
    pub fn is_tapered(&self) -> bool {
        if let Some(c) = &self.custom {
            return (0..self.terms).any(|t| c.tapered(t));
        }
        self.sets().any(FeatureSet::tapered)
    }

    /// True when every set in the layout depends only on material (see
    /// [`FeatureSet::depends_only_on_material`]).
    pub fn depends_only_on_material(&self) -> bool {
        self.custom.is_none() && self.sets().all(FeatureSet::depends_only_on_material)
    }

    /// Column names, in vector order.
    pub fn columns(&self) -> Vec<String> {
        if let Some(c) = &self.custom {
            return c.columns().to_vec();
        }
        self.sets().flat_map(FeatureSet::columns).collect()
    }

    /// Term names, in term order (unique across the layout's sets).
    pub fn term_names(&self) -> Vec<String> {
        if let Some(c) = &self.custom {
            return c.names().to_vec();
        }
        self.sets().flat_map(|s| s.terms().iter().cloned()).collect()
    }

    /// The set that term `term` belongs to, with the term's index within it.
    pub fn set_of_term(&self, term: usize) -> Option<(FeatureSet, usize)> {
        let placed = self.sets.iter().rev().find(|p| p.term_offset <= term)?;
        (term < placed.term_offset + placed.set.term_count()).then(|| (placed.set, term - placed.term_offset))
    }

    /// The set that column `column` belongs to.
    pub fn set_of_column(&self, column: usize) -> Option<FeatureSet> {
        let placed = self.sets.iter().rev().find(|p| p.column_offset <= column)?;
        (column < placed.column_offset + placed.set.len()).then_some(placed.set)
    }

    /// The columns of term `term`.
    pub fn term_columns(&self, term: usize) -> TermColumns {
        self.term_columns[term]
    }

    /// The columns of every term, in term order.
    pub fn all_term_columns(&self) -> Vec<TermColumns> {
        self.term_columns.clone()
    }

    /// Every identification group of the layout, with term indices of the
    /// layout (see [`TermGroup`]).
    pub fn groups(&self) -> Vec<TermGroup> {
        self.sets
            .iter()
            .flat_map(|p| {
                p.set.groups().into_iter().map(move |g| TermGroup {
                    name: g.name,
                    terms: g.terms.start + p.term_offset..g.terms.end + p.term_offset,
                    sum: g.sum,
                })
            })
            .collect()
    }

    /// Calls `emit(term, count)` for every term the sets report in `ctx`'s
    /// position (repeats add up; zeros may be reported).
    #[inline]
    pub fn visit_terms<F: FnMut(usize, i32)>(&self, ctx: &Context, mut emit: F) {
        for placed in &self.sets {
            let offset = placed.term_offset;
            placed.set.visit(ctx, |t, v| emit(offset + t, v));
        }
    }

    /// The non-zero terms of `pos`, sorted by term, repeats added up, into
    /// `out` (cleared first). Returns the position's phase.
    pub fn terms_of(&self, pos: &Chess, scratch: &mut TermScratch, out: &mut Vec<TermValue>) -> u8 {
        let ctx = Context::new(pos);
        scratch.collect(self, &ctx, out);
        ctx.phase as u8
    }

    /// Calls `emit(column, value)` with the design-matrix values of `pos`
    /// (tapered columns scaled by the phase; see the module documentation).
    pub fn visit_columns<F: FnMut(usize, f64)>(&self, pos: &Chess, mut emit: F) {
        let ctx = Context::new(pos);
        let p = f64::from(ctx.phase);
        for placed in &self.sets {
            let set = placed.set;
            let offset = placed.column_offset;
            if set.tapered() {
                let n = set.term_count();
                set.visit(&ctx, |t, v| {
                    let v = f64::from(v);
                    emit(offset + t, v * p / 24.0);
                    emit(offset + n + t, v * (24.0 - p) / 24.0);
                });
            } else {
                set.visit(&ctx, |t, v| emit(offset + t, f64::from(v)));
            }
        }
    }

    /// Writes the dense design-matrix row of `pos` into `out` (length [`Self::len`]).
    pub fn write(&self, pos: &Chess, out: &mut [f64]) {
        debug_assert_eq!(out.len(), self.columns);
        out.fill(0.0);
        self.visit_columns(pos, |i, v| out[i] += v);
    }

    /// The non-zero design-matrix values of terms `entries` at `phase`, as
    /// `(column, value)` pairs sorted by column, into `out` (cleared first):
    /// what sparse writers need, without a dense row of every column.
    ///
    /// `entries` sorted by term (as every row is) give the pairs in column
    /// order without a sort: a tapered set's columns are all its `mg`
    /// columns, then all its `eg` columns, so each run of one set's terms
    /// goes out twice, `mg` then `eg`. Sorting every row was a tenth of the
    /// time of writing a whole evaluation to Parquet.
    pub fn sparse_columns(&self, entries: &[TermValue], phase: u8, out: &mut Vec<(usize, f64)>) {
        out.clear();
        let p = f64::from(phase);
        let mut rest = entries;
        while let Some(first) = rest.first() {
            match self.term_columns(usize::from(first.term)) {
                TermColumns::Single(c) => {
                    out.push((c, f64::from(first.value)));
                    rest = &rest[1..];
                }
                TermColumns::Tapered { eg: first_eg, .. } => {
                    // The run of the same set: its `mg` columns all come before the
                    // `eg` column of its first term; a later set's come after.
                    let run = rest
                        .iter()
                        .take_while(|e| matches!(self.term_columns(usize::from(e.term)), TermColumns::Tapered { mg, .. } if mg < first_eg))
                        .count();
                    let (set, after) = rest.split_at(run);
                    let scaled = |mg_side: bool| {
                        // (The run holds tapered terms only.)
                        set.iter().filter_map(move |e| match self.term_columns(usize::from(e.term)) {
                            TermColumns::Tapered { mg, eg } => {
                                let v = f64::from(e.value);
                                Some(if mg_side { (mg, v * p / 24.0) } else { (eg, v * (24.0 - p) / 24.0) })
                            }
                            TermColumns::Single(_) => None,
                        })
                    };
                    if phase > 0 {
                        out.extend(scaled(true));
                    }
                    if phase < 24 {
                        out.extend(scaled(false));
                    }
                    rest = after;
                }
            }
        }
        // Rows from elsewhere (a reader) might not be sorted by term: then sort.
        if !out.is_sorted_by_key(|&(c, _)| c) {
            out.sort_unstable_by_key(|&(c, _)| c);
        }
    }

    /// The dense design-matrix row of terms `entries` at `phase`.
    pub fn expand(&self, entries: &[TermValue], phase: u8, out: &mut [f64]) {
        out.fill(0.0);
        let p = f64::from(phase);
        for e in entries {
            let v = f64::from(e.value);
            match self.term_columns(usize::from(e.term)) {
                TermColumns::Single(c) => out[c] += v,
                TermColumns::Tapered { mg, eg } => {
                    out[mg] += v * p / 24.0;
                    out[eg] += v * (24.0 - p) / 24.0;
                }
            }
        }
    }
}

impl Default for FeatureLayout {
    fn default() -> Self {
        FeatureLayout::new(&[FeatureSet::Material])
    }
}

#[cfg(test)]
mod tests;
