//! An engine's own terms: a layout of named terms that are no pgntune
//! feature set, read from a trace (see [`crate::dataset::trace`]).
//!
//! A [`FeatureLayout`] of custom terms has no sets: the tuner, its reports,
//! the weights writer and `--emit-code` need only the terms' names, which
//! are tapered and their current values. A tapered term `x` has the columns
//! `mg_x` and `eg_x` side by side; an untapered one the column `x`.
//! pgntune's engine cannot evaluate such terms, so it refuses their weights.

use std::sync::Arc;

use super::{FeatureLayout, TermColumns};

/// The specification of every custom layout, and the first entry of the
/// `features` list of weights tuned on a trace.
pub const TRACE_SPEC: &str = "trace";

/// The largest term index in-memory training positions pack (see
/// `dataset::positions`): custom terms beyond it are refused.
pub const MAX_PACKED_TERMS: usize = 1 << 12;

/// The mark of a tapered term (a middlegame and an endgame value).
pub const TAPERED: &str = "tapered";
/// The mark of an untapered term (one value).
pub const SINGLE: &str = "single";

/// The terms of an engine, in the engine's order.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomTerms {
    names: Vec<String>,
    tapered: Vec<bool>,
    columns: Vec<String>,
    /// The current value of every column, in centipawns: the start and the prior.
    start: Vec<f64>,
    /// Sums of columns the tuner holds at their start (a level the
    /// engine's other terms already carry): name and columns.
    held: Vec<(String, Vec<usize>)>,
}

// The values are finite (readers refuse others), so equality is one.
impl Eq for CustomTerms {}

/// One term as a trace's header or a weights file declares it.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomTerm {
    /// Its name.
    pub name: String,
    /// Whether it has a middlegame and an endgame value.
    pub tapered: bool,
    /// Its current values: `[mg, eg]` when tapered, `[value]` otherwise.
    pub values: Vec<f64>,
}

/// Why a list of terms cannot be a layout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CustomTermsError {
    /// No terms at all.
    #[error("no terms are declared")]
    Empty,
    /// A name with white space, a colon or nothing in it.
    #[error("term name '{0}' must be non-empty, without spaces, ':' or '#'")]
    BadName(String),
    /// The same name twice.
    #[error("term '{0}' is declared twice")]
    Duplicate(String),
    /// Two terms' columns share a name (an untapered `mg_x` beside a tapered `x`).
    #[error("column '{0}' would belong to two terms (a tapered term 'x' has the columns mg_x and eg_x)")]
    DuplicateColumn(String),
    /// More terms than training positions can index.
    #[error("{0} terms; at most {max} are supported", max = MAX_PACKED_TERMS)]
    TooMany(usize),
    /// A held sum names a column no term has.
    #[error("'{0}' is no column of the terms (a tapered term 'x' has the columns mg_x and eg_x)")]
    UnknownColumn(String),
    /// A column in two held sums, or twice in one.
    #[error("column '{0}' is held twice")]
    HeldTwice(String),
    /// A mark other than `tapered` or `single`.
    #[error("term '{name}': '{mark}' is not '{TAPERED}' or '{SINGLE}'")]
    BadMark {
        /// The term.
        name: String,
        /// The mark given.
        mark: String,
    },
}

impl CustomTerms {
    /// The terms, checked: names unique and plain, columns unique.
    pub fn new(terms: Vec<CustomTerm>) -> Result<CustomTerms, CustomTermsError> {
        if terms.is_empty() {
            return Err(CustomTermsError::Empty);
        }
        if terms.len() > MAX_PACKED_TERMS {
            return Err(CustomTermsError::TooMany(terms.len()));
        }
        let mut seen = std::collections::HashSet::new();
        let mut seen_columns = std::collections::HashSet::new();
        let (mut names, mut tapered, mut columns, mut start) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for term in terms {
            if !valid_name(&term.name) {
                return Err(CustomTermsError::BadName(term.name));
            }
            if !seen.insert(term.name.clone()) {
                return Err(CustomTermsError::Duplicate(term.name));
            }
            let own = if term.tapered { vec![format!("mg_{}", term.name), format!("eg_{}", term.name)] } else { vec![term.name.clone()] };
            for c in &own {
                if !seen_columns.insert(c.clone()) {
                    return Err(CustomTermsError::DuplicateColumn(c.clone()));
                }
            }
            columns.extend(own);
            start.extend(term.values.iter().copied().chain(std::iter::repeat(0.0)).take(if term.tapered { 2 } else { 1 }));
            names.push(term.name);
            tapered.push(term.tapered);
        }
        Ok(CustomTerms { names, tapered, columns, start, held: Vec::new() })
    }

    /// The terms parsed from declarations `name tapered` / `name single`
    /// (as a weights file's `features` lists them after [`TRACE_SPEC`]),
    /// with their values taken from `value_of(column)`.
    pub fn from_declarations(declarations: &[String], value_of: impl Fn(&str) -> f64) -> Result<CustomTerms, CustomTermsError> {
        let mut terms = Vec::new();
        for d in declarations {
            let mut words = d.split_whitespace();
            let name = words.next().unwrap_or_default().to_string();
            let mark = words.collect::<Vec<_>>().join(" ");
            let tapered = match mark.as_str() {
                TAPERED => true,
                SINGLE => false,
                _ => return Err(CustomTermsError::BadMark { name, mark }),
            };
            let values = if tapered { vec![value_of(&format!("mg_{name}")), value_of(&format!("eg_{name}"))] } else { vec![value_of(&name)] };
            terms.push(CustomTerm { name, tapered, values });
        }
        CustomTerms::new(terms)
    }

    /// Column names, in order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// Holds the sum of the columns `names` at its start, as `name`.
    pub fn hold(&mut self, name: &str, names: &[&str]) -> Result<(), CustomTermsError> {
        let mut columns = Vec::new();
        for n in names {
            let c = self.columns.iter().position(|c| c == n).ok_or_else(|| CustomTermsError::UnknownColumn(n.to_string()))?;
            if columns.contains(&c) || self.held.iter().any(|(_, h)| h.contains(&c)) {
                return Err(CustomTermsError::HeldTwice(n.to_string()));
            }
            columns.push(c);
        }
        self.held.push((name.to_string(), columns));
        Ok(())
    }

    /// The held sums: name and columns.
    pub fn held(&self) -> &[(String, Vec<usize>)] {
        &self.held
    }

    /// Term names, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether term `t` is tapered.
    pub fn tapered(&self, t: usize) -> bool {
        self.tapered[t]
    }

    /// The declarations `name tapered` / `name single`, in order.
    pub fn declarations(&self) -> Vec<String> {
        self.names.iter().zip(&self.tapered).map(|(n, &t)| format!("{n} {}", if t { TAPERED } else { SINGLE })).collect()
    }
}

/// A plain name: something a header line and a weights file can hold and
/// a column name can be made of.
fn valid_name(name: &str) -> bool {
    !name.is_empty() && !name.chars().any(|c| c.is_whitespace() || c == ':' || c == '#' || c == '"' || c.is_control())
}

impl FeatureLayout {
    /// The layout of an engine's own terms.
    pub fn custom(terms: CustomTerms) -> FeatureLayout {
        let mut term_columns = Vec::with_capacity(terms.names.len());
        let mut c = 0;
        for &t in &terms.tapered {
            term_columns.push(if t { TermColumns::Tapered { mg: c, eg: c + 1 } } else { TermColumns::Single(c) });
            c += if t { 2 } else { 1 };
        }
        FeatureLayout { sets: Vec::new(), terms: terms.names.len(), columns: c, term_columns, custom: Some(Arc::new(terms)) }
    }

    /// The engine's own terms, when this is a layout of them.
    pub fn custom_terms(&self) -> Option<&CustomTerms> {
        self.custom.as_deref()
    }

    /// True for a layout of an engine's own terms (no pgntune feature set).
    pub fn is_custom(&self) -> bool {
        self.custom.is_some()
    }

    /// The engine's current values per column (the trace's header), for a
    /// layout of its own terms.
    pub fn custom_start(&self) -> Option<&[f64]> {
        self.custom.as_deref().map(|c| c.start.as_slice())
    }

    /// The `features` list of weights for this layout: the sets' names, or
    /// [`TRACE_SPEC`] and the term declarations.
    pub fn feature_names(&self) -> Vec<String> {
        match &self.custom {
            Some(c) => std::iter::once(TRACE_SPEC.to_string()).chain(c.declarations()).collect(),
            None => self.sets().map(|s| s.name().to_string()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(name: &str, tapered: bool) -> CustomTerm {
        CustomTerm { name: name.into(), tapered, values: if tapered { vec![1.0, 2.0] } else { vec![3.0] } }
    }

    #[test]
    fn columns_sit_side_by_side_and_bad_lists_are_refused() {
        let layout = FeatureLayout::custom(CustomTerms::new(vec![term("pawn", true), term("tempo", false), term("rook", true)]).unwrap());
        assert_eq!(layout.columns(), ["mg_pawn", "eg_pawn", "tempo", "mg_rook", "eg_rook"]);
        assert_eq!(layout.term_names(), ["pawn", "tempo", "rook"]);
        assert_eq!(layout.custom_start().unwrap(), [1.0, 2.0, 3.0, 1.0, 2.0]);
        assert_eq!((layout.len(), layout.term_count(), layout.is_tapered(), layout.spec()), (5, 3, true, TRACE_SPEC.to_string()));
        assert_eq!(layout.term_columns(2), TermColumns::Tapered { mg: 3, eg: 4 });
        assert_eq!(layout.feature_names(), ["trace", "pawn tapered", "tempo single", "rook tapered"]);
        let back = CustomTerms::from_declarations(&layout.feature_names()[1..], |c| {
            layout.custom_start().unwrap()[layout.columns().iter().position(|x| x == c).unwrap()]
        })
        .unwrap();
        assert_eq!(FeatureLayout::custom(back), layout);
        assert_eq!(CustomTerms::new(vec![term("a", false), term("a", true)]), Err(CustomTermsError::Duplicate("a".into())));
        assert_eq!(CustomTerms::new(vec![term("mg_a", false), term("a", true)]), Err(CustomTermsError::DuplicateColumn("mg_a".into())));
        assert_eq!(CustomTerms::new(vec![term("a b", false)]), Err(CustomTermsError::BadName("a b".into())));
        assert_eq!(CustomTerms::new(vec![]), Err(CustomTermsError::Empty));
        assert!(matches!(CustomTerms::from_declarations(&["a taper".into()], |_| 0.0), Err(CustomTermsError::BadMark { .. })));
    }
}
