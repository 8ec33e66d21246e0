//! What the tuner starts from and keeps fixed, column by column: the prior
//! weights resolved onto a layout, and the frozen columns named by set or
//! by column. The command line parses the names; this checks them against
//! the layout.

use crate::features::{FeatureLayout, FeatureSet};
use crate::weights::Weights;

/// Why a prior or a freeze list does not fit the layout.
#[derive(Debug, thiserror::Error)]
pub enum ColumnsError {
    /// The prior's sets lack columns of the layout.
    #[error("the weights '{name}' are for the sets '{sets}' and have no column {first}{more}", more = more_text(*.more))]
    PriorMissesColumns {
        /// The prior's name.
        name: String,
        /// The prior's feature sets.
        sets: String,
        /// The first column it lacks.
        first: String,
        /// How many more it lacks.
        more: usize,
    },
    /// A frozen name that is neither a set of the layout nor a column.
    #[error("'{name}' is neither a feature set of '{layout}' nor one of its columns")]
    UnknownFrozen {
        /// The name given.
        name: String,
        /// The layout's sets.
        layout: String,
    },
    /// Names to freeze were asked for, but every one is empty (`--freeze ''`).
    #[error("names no feature set or column")]
    NothingFrozen,
    /// The prior names a feature set this build does not know.
    #[error(transparent)]
    PriorSets(#[from] crate::features::UnknownFeatureSet),
}

fn more_text(more: usize) -> String {
    if more > 0 { format!(" (and {more} more)") } else { String::new() }
}

/// The prior in centipawns, one value per column of `layout`: `prior`'s
/// values (which must cover every column), or without one the engine's
/// starting values for the layout ([`crate::presets::defaults_for`]).
pub fn prior_for(layout: &FeatureLayout, prior: Option<&Weights>) -> Result<Vec<f64>, ColumnsError> {
    let columns = layout.columns();
    let Some(weights) = prior else {
        // An engine's own terms start from the values its trace declares.
        if let Some(start) = layout.custom_start() {
            return Ok(start.to_vec());
        }
        let defaults = crate::presets::defaults_for(layout);
        return Ok(columns.iter().map(|c| defaults.centipawns(c)).collect());
    };
    column_weights(layout, weights)
}

/// The centipawns `weights` give each column of `layout`, in column order:
/// the start and prior of a tuner, the weights `evaluate` scores. Weights
/// without some of the columns are refused, naming the first.
pub fn column_weights(layout: &FeatureLayout, weights: &Weights) -> Result<Vec<f64>, ColumnsError> {
    let columns = layout.columns();
    let own = weights.layout()?.columns();
    let missing: Vec<&String> = columns.iter().filter(|c| !own.contains(c)).collect();
    if let Some(first) = missing.first() {
        return Err(ColumnsError::PriorMissesColumns {
            name: weights.name.clone(),
            sets: weights.layout()?.spec(),
            first: (*first).clone(),
            more: missing.len() - 1,
        });
    }
    Ok(columns.iter().map(|c| weights.centipawns(c)).collect())
}

/// The feature sets of `weights` that `layout` lacks and that have a
/// non-zero value: a loss over positions with `layout`'s columns leaves
/// them out, though the engine playing `weights` counts them.
pub fn sets_left_out(layout: &FeatureLayout, weights: &Weights) -> Result<Vec<FeatureSet>, ColumnsError> {
    let own = weights.layout()?;
    let columns = own.columns();
    Ok(own
        .sets()
        .filter(|&set| !layout.contains(set))
        .filter(|&set| (0..columns.len()).any(|j| own.set_of_column(j) == Some(set) && weights.centipawns(&columns[j]) != 0.0))
        .collect())
}

/// One line saying which non-zero sets of the weights `what` names a
/// dataset of `layout` leaves out, or `None` when it leaves out none.
pub fn left_out_warning(what: &str, layout: &FeatureLayout, weights: &Weights) -> Result<Option<String>, ColumnsError> {
    let sets = sets_left_out(layout, weights)?;
    if sets.is_empty() {
        return Ok(None);
    }
    let names: Vec<&str> = sets.iter().map(|s| s.name()).collect();
    Ok(Some(format!(
        "{what}: the weights '{}' give non-zero values to {} '{}', which the dataset ('{}') has no columns for; they are left out here, though the engine counts them",
        weights.name,
        if names.len() == 1 { "the set" } else { "the sets" },
        names.join(","),
        layout.spec()
    )))
}

/// Which columns of `layout` stay fixed: every column of a named set, and
/// each named column.
pub fn frozen_columns(layout: &FeatureLayout, names: &[String]) -> Result<Vec<bool>, ColumnsError> {
    let columns = layout.columns();
    let mut frozen = vec![false; columns.len()];
    // An empty name among others (`pst,`) is a stray comma; only empty
    // names asked to freeze something and froze nothing.
    if !names.is_empty() && names.iter().all(|n| n.trim().is_empty()) {
        return Err(ColumnsError::NothingFrozen);
    }
    for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        if let Ok(set) = name.parse::<FeatureSet>()
            && layout.contains(set)
        {
            for (j, f) in frozen.iter_mut().enumerate() {
                if layout.set_of_column(j) == Some(set) {
                    *f = true;
                }
            }
            continue;
        }
        // A term of an engine's own: both its columns when tapered.
        if let Some(t) = layout.is_custom().then(|| layout.term_names().iter().position(|n| n == name)).flatten() {
            match layout.term_columns(t) {
                crate::features::TermColumns::Single(c) => frozen[c] = true,
                crate::features::TermColumns::Tapered { mg, eg } => {
                    frozen[mg] = true;
                    frozen[eg] = true;
                }
            }
            continue;
        }
        match columns.iter().position(|c| c == name) {
            Some(j) => frozen[j] = true,
            None => return Err(ColumnsError::UnknownFrozen { name: name.to_string(), layout: layout.spec() }),
        }
    }
    Ok(frozen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prior_must_cover_the_layout_and_defaults_do() {
        let full = FeatureLayout::full();
        let classical = Weights::resolve("classical").unwrap();
        let err = prior_for(&full, Some(&classical)).unwrap_err();
        assert_eq!(err.to_string(), "the weights 'classical' are for the sets 'material' and have no column mg_P (and 1115 more)");
        let defaults = prior_for(&full, None).unwrap();
        assert_eq!(defaults.len(), full.len());
        assert_eq!(defaults, prior_for(&full, Some(&crate::presets::full())).unwrap());
        let material = FeatureLayout::default();
        assert_eq!(prior_for(&material, Some(&classical)).unwrap(), [100.0, 300.0, 300.0, 500.0, 900.0]);
    }

    #[test]
    fn sets_and_columns_freeze_and_unknown_names_are_refused() {
        let layout = FeatureLayout::parse("material_tapered,tempo").unwrap();
        let frozen = frozen_columns(&layout, &["tempo".into(), " mg_Q ".into(), String::new()]).unwrap();
        let names = layout.columns();
        let fixed: Vec<&str> = names.iter().zip(&frozen).filter(|(_, f)| **f).map(|(n, _)| n.as_str()).collect();
        assert_eq!(fixed, ["mg_Q", "mg_tempo", "eg_tempo"]);
        let err = frozen_columns(&layout, &["pst".into()]).unwrap_err();
        assert!(matches!(&err, ColumnsError::UnknownFrozen { name, layout } if name == "pst" && layout == "material_tapered,tempo"), "{err}");
        assert!(matches!(frozen_columns(&layout, &[String::new(), " ".into()]), Err(ColumnsError::NothingFrozen)));
        assert_eq!(frozen_columns(&layout, &[]).unwrap(), vec![false; names.len()]);
    }
}
