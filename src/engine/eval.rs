//! The engine's evaluation: `scale × Σ weight · x` over the weights' feature
//! layout, folded from the very term visit that extraction uses
//! ([`FeatureLayout::visit_terms`]), so the engine plays exactly the model
//! that was fitted.
//!
//! Every term has a middlegame and an endgame weight (an untapered term the
//! same weight twice), converted once to integers in [`UNITS_PER_CP`] fixed
//! point. An evaluation sums `count × weight` per phase block and blends
//! the two sums by the game phase: `(mg · p + eg · (24 − p)) / 24`, one
//! rounding division at the end. Fitted weights keep a resolution of 1/96 cp.
//!
//! When a weights file has no `pst` columns, the built-in PST preset is
//! appended, so that material-only weights still give the search a sense of
//! where pieces belong.

use std::fmt;

use shakmaty::{Chess, Color, Position, Role};

use super::eval_cache::{PawnKingCache, PawnKingEntry};
use super::phase_sums::PhaseSums;
use crate::features::{Context, FeatureLayout, FeatureSet, MAX_PHASE, PawnKingKey, TermColumns, UnknownFeatureSet};
use crate::presets::pst_preset;
use crate::weights::Weights;

/// Fixed-point units per centipawn in the integer weights.
pub const UNITS_PER_CP: i32 = 96;

/// Evaluations are clamped to ±this many centipawns, well inside the mate
/// score range of the search.
pub const EVAL_LIMIT: i32 = 20_000;

/// Integer weights are clamped to ±this many units (about ±10,900 cp per
/// unit of feature); with 64-bit sums no legal position can overflow.
const MAX_WEIGHT_UNITS: f64 = (1 << 20) as f64;

/// Why an evaluator could not be built.
#[derive(Debug, thiserror::Error)]
pub enum EvaluatorError {
    /// The weights name a feature set this build does not know.
    #[error("weights '{name}': {source}")]
    Features {
        /// The weights' name.
        name: String,
        /// The unknown set.
        #[source]
        source: UnknownFeatureSet,
    },
    /// The weights are for another engine's terms (tuned on a trace).
    #[error(
        "weights '{name}' are for an engine's own terms (tuned on a trace); pgntune's engine cannot play them, so they cannot be verified or played here"
    )]
    CustomTerms {
        /// The weights' name.
        name: String,
    },
    /// The scale or a weight is NaN or infinite.
    #[error("weights '{name}': '{what}' is not a finite number")]
    NotFinite {
        /// The weights' name.
        name: String,
        /// The column, or `scale`.
        what: String,
    },
}

/// Evaluates positions with fixed weights.
#[derive(Clone, Debug)]
pub struct Evaluator {
    name: String,
    layout: FeatureLayout,
    /// Fixed-point (middlegame, endgame) weights per term of `layout`,
    /// [`UNITS_PER_CP`] per cp.
    term_weights: Vec<[i32; 2]>,
    /// Centipawns per unit of each column, for explanations.
    column_cp: Vec<f64>,
    /// Centipawn value per role (index `role as usize - 1`, king 0), for
    /// move ordering and pruning margins.
    piece_values: [i32; 6],
}

/// One non-zero feature of an explained evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    /// The column name, such as `N` or `mg_N_e4`.
    pub column: String,
    /// The design-matrix value (white minus black; a tapered column's count
    /// times its phase share).
    pub value: f64,
    /// Its contribution in centipawns from white's point of view.
    pub centipawns: f64,
}

/// An evaluation broken down by feature, for `pgntune eval`.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// The non-zero features in column order.
    pub terms: Vec<Term>,
    /// The game phase (0 to 24).
    pub phase: i32,
    /// The evaluation in centipawns from white's point of view, as the
    /// engine uses it (rounded and clamped).
    pub white: i32,
    /// The same from the side to move's point of view.
    pub side_to_move: i32,
}

impl Evaluator {
    /// An evaluator for `weights`, with the PST preset appended when the
    /// weights have no `pst` set.
    pub fn new(weights: &Weights) -> Result<Evaluator, EvaluatorError> {
        let name = weights.name.clone();
        if weights.is_custom() {
            return Err(EvaluatorError::CustomTerms { name });
        }
        let features = |source| EvaluatorError::Features { name: name.clone(), source };
        let mut layout = weights.layout().map_err(features)?;
        let not_finite = |what: &str| EvaluatorError::NotFinite { name: name.clone(), what: what.to_string() };
        if !weights.scale.is_finite() {
            return Err(not_finite("scale"));
        }
        if let Some((column, _)) = weights.weights.iter().find(|(_, w)| !w.is_finite()) {
            return Err(not_finite(column));
        }

        let own_columns = layout.len();
        let preset = pst_preset();
        let with_preset = !layout.contains(FeatureSet::Pst);
        if with_preset {
            let sets: Vec<FeatureSet> = layout.sets().chain([FeatureSet::Pst]).collect();
            layout = FeatureLayout::new(&sets);
        }
        let column_cp: Vec<f64> = layout
            .columns()
            .iter()
            .enumerate()
            .map(|(i, column)| if i < own_columns { weights.centipawns(column) } else { preset.centipawns(column) })
            .collect();
        let to_units = |cp: f64| (cp * f64::from(UNITS_PER_CP)).round().clamp(-MAX_WEIGHT_UNITS, MAX_WEIGHT_UNITS) as i32;
        let term_weights = layout
            .all_term_columns()
            .into_iter()
            .map(|columns| match columns {
                TermColumns::Single(c) => [to_units(column_cp[c]); 2],
                TermColumns::Tapered { mg, eg } => [to_units(column_cp[mg]), to_units(column_cp[eg])],
            })
            .collect();

        let piece_values = piece_values(weights, &layout);
        let name = if with_preset { format!("{name}+{}", preset.name) } else { name };
        Ok(Evaluator { name, layout, term_weights, column_cp, piece_values })
    }

    /// The weights' name, with `+pst` when the PST preset was appended.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The feature layout evaluated (the weights' sets, plus `pst`).
    pub fn layout(&self) -> &FeatureLayout {
        &self.layout
    }

    /// The approximate centipawn value of a piece of `role` (the material
    /// weight, or the classical value without material columns; 0 for the
    /// king), for move ordering and pruning margins.
    #[inline]
    pub fn piece_value(&self, role: Role) -> i32 {
        self.piece_values[role as usize - 1]
    }

    /// All piece values, indexed by `role as usize - 1` (see
    /// [`Evaluator::piece_value`]).
    #[inline]
    pub fn piece_values(&self) -> &[i32; 6] {
        &self.piece_values
    }

    /// The evaluation of `pos` in centipawns from white's point of view.
    #[inline]
    pub fn evaluate_white(&self, pos: &Chess) -> i32 {
        let ctx = Context::new(pos);
        let mut sums = PhaseSums::default();
        self.layout.visit_terms(&ctx, |t, v| sums.add(self.term_weights[t], v));
        blend(sums, ctx.phase)
    }

    /// [`Self::evaluate`], with the pawn-and-king terms' sums taken from
    /// `cache` when it has them (and stored there when not): the same
    /// number, sooner. The cache must only ever have been used with this
    /// evaluator.
    #[inline]
    pub fn evaluate_cached(&self, pos: &Chess, cache: &mut PawnKingCache) -> i32 {
        let ctx = Context::new(pos);
        let key = PawnKingKey::of(ctx.board);
        let PawnKingEntry { mut sums, facts, .. } = match cache.get(&key) {
            Some(entry) => *entry,
            None => {
                let mut sums = PhaseSums::default();
                let facts = self.layout.visit_pawn_king_terms(&ctx, |t, v| sums.add(self.term_weights[t], v));
                let entry = PawnKingEntry { key, sums, facts };
                cache.insert(entry);
                entry
            }
        };
        self.layout.visit_other_terms(&ctx, &facts, |t, v| sums.add(self.term_weights[t], v));
        side_to_move(pos, blend(sums, ctx.phase))
    }

    /// The evaluation of `pos` in centipawns from the side to move's point
    /// of view, as the search uses it.
    #[inline]
    pub fn evaluate(&self, pos: &Chess) -> i32 {
        side_to_move(pos, self.evaluate_white(pos))
    }

    /// The evaluation of `pos` broken down into its non-zero features.
    pub fn explain(&self, pos: &Chess) -> Explanation {
        let mut x = vec![0.0; self.layout.len()];
        self.layout.write(pos, &mut x);
        let terms = self
            .layout
            .columns()
            .into_iter()
            .zip(x.iter().zip(&self.column_cp))
            .filter(|(_, (value, _))| **value != 0.0)
            .map(|(column, (&value, &cp))| Term { column, value, centipawns: cp * value })
            .collect();
        let white = self.evaluate_white(pos);
        let side_to_move = if pos.turn() == Color::White { white } else { -white };
        Explanation { terms, phase: crate::features::phase(pos.board()), white, side_to_move }
    }
}

/// Piece values for move ordering: the material weights (tapered ones
/// blended at phase 12), else the classical values.
fn piece_values(weights: &Weights, layout: &FeatureLayout) -> [i32; 6] {
    let mut values = [0; 6];
    for (i, column) in crate::features::material::Material::COLUMNS.iter().enumerate() {
        let cp = if layout.contains(FeatureSet::Material) {
            weights.centipawns(column)
        } else if layout.contains(FeatureSet::MaterialTapered) {
            (weights.centipawns(&format!("mg_{column}")) + weights.centipawns(&format!("eg_{column}"))) / 2.0
        } else {
            f64::from(crate::features::material::Material::CLASSICAL_VALUES[i])
        };
        values[i] = (cp.round() as i32).clamp(0, EVAL_LIMIT / 4);
    }
    values
}

/// White's evaluation `white` from the side to move's point of view.
#[inline]
fn side_to_move(pos: &Chess, white: i32) -> i32 {
    match pos.turn() {
        Color::White => white,
        Color::Black => -white,
    }
}

/// The centipawns of `sums` at `phase`: one rounding division of the
/// blend, clamped.
#[inline]
fn blend(PhaseSums { mg, eg }: PhaseSums, phase: i32) -> i32 {
    let phase = i64::from(phase);
    let units = mg * phase + eg * (i64::from(MAX_PHASE) - phase);
    units_to_cp(units, i64::from(UNITS_PER_CP) * i64::from(MAX_PHASE)).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// Fixed-point units to centipawns (`units / per_cp`), rounding half away
/// from zero so that a position and its colour-mirrored twin evaluate to
/// exact negatives.
fn units_to_cp(units: i64, per_cp: i64) -> i32 {
    let half = per_cp / 2;
    let cp = if units >= 0 { (units + half) / per_cp } else { -((-units + half) / per_cp) };
    cp.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.terms.iter().map(|t| t.column.len()).max().unwrap_or(0).max(10);
        writeln!(f, "phase {} of 24 (24 = all pieces on the board)", self.phase)?;
        writeln!(f, "{:<width$} {:>8} {:>10}", "feature", "value", "cp (white)")?;
        for term in &self.terms {
            // Counts as whole numbers, a tapered column's phase share with its fraction.
            let value = if term.value.fract() == 0.0 { format!("{:.0}", term.value) } else { format!("{:.4}", term.value) };
            writeln!(f, "{:<width$} {:>8} {:>10.2}", term.column, value, term.centipawns)?;
        }
        writeln!(f, "total: {} cp for white, {} cp for the side to move", self.white, self.side_to_move)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::Pst;
    use crate::presets::pst::pst_value;
    use shakmaty::{CastlingMode, EnPassantMode, FromSetup, Square, fen::Fen};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    fn mirrored(p: &Chess) -> Chess {
        let setup = p.to_setup(EnPassantMode::Legal).into_mirrored();
        Chess::from_setup(setup, CastlingMode::Standard).unwrap()
    }

    const FENS: [&str; 6] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R b KQ - 1 8",
        "4k3/8/8/3q4/8/8/PP6/1K6 b - - 0 40",
        "6k1/5ppp/8/8/8/8/1Q3PPP/6K1 w - - 0 1",
    ];

    /// `scale × Σ weight · x` in floating point, from the dense vector.
    fn reference(weights: &[(&Weights, usize)], layout: &FeatureLayout, p: &Chess) -> f64 {
        let mut x = vec![0.0; layout.len()];
        layout.write(p, &mut x);
        let columns = layout.columns();
        let mut cp = 0.0;
        for (i, column) in columns.iter().enumerate() {
            let owner = weights.iter().find(|(_, end)| i < *end).expect("column owner").0;
            cp += owner.centipawns(column) * x[i];
        }
        cp
    }

    #[test]
    fn material_preset_plus_pst_equals_the_formula() {
        for preset in ["classical", "kaissa", "pgnlearn2015", "flat"] {
            let w = Weights::preset(preset).unwrap();
            let eval = Evaluator::new(&w).unwrap();
            assert_eq!(eval.layout().spec(), "material,pst");
            assert_eq!(eval.name(), format!("{preset}+pst"));
            let pst = pst_preset();
            for fen in FENS {
                let p = pos(fen);
                let expected = reference(&[(&w, 5), (&pst, 5 + Pst::LEN)], eval.layout(), &p);
                let got = eval.evaluate_white(&p);
                assert!((f64::from(got) - expected).abs() <= 0.5 + 1e-9, "{preset} {fen}: {got} vs {expected}");
            }
        }
    }

    #[test]
    fn a_hand_computed_position() {
        // White: Kg1, Qb2, pawns f2 g2 h2. Black: Kg8, pawns f7 g7 h7.
        // Phase = 4 (one queen). The pawn structures mirror each other and
        // cancel; so do the kings. Left: a queen (900) on b2.
        let p = pos("6k1/5ppp/8/8/8/8/1Q3PPP/6K1 w - - 0 1");
        let eval = Evaluator::new(&Weights::preset("classical").unwrap()).unwrap();
        let q = (pst_value(0, Role::Queen, Square::B2) * 4 + pst_value(1, Role::Queen, Square::B2) * 20) as f64 / 24.0;
        assert_eq!(eval.evaluate_white(&p), (900.0 + q).round() as i32);
        assert_eq!(eval.evaluate(&p), eval.evaluate_white(&p));
    }

    #[test]
    fn material_only_columns_without_pst_weights() {
        // A weights file that brings its own (all-zero) pst set: no preset.
        let mut w = Weights::preset("classical").unwrap();
        w.features.push("pst".to_string());
        let eval = Evaluator::new(&w).unwrap();
        assert_eq!(eval.name(), "classical");
        let p = pos(FENS[4]);
        // Black is a queen up against two pawns, black to move.
        assert_eq!(eval.evaluate(&p), 900 - 200);
        assert_eq!(eval.evaluate_white(&p), -700);
    }

    #[test]
    fn evaluation_is_colour_symmetric() {
        let eval = Evaluator::new(&Weights::preset("pgnlearn2015").unwrap()).unwrap();
        for fen in FENS {
            let p = pos(fen);
            let m = mirrored(&p);
            assert_ne!(p.turn(), m.turn());
            assert_eq!(eval.evaluate_white(&p), -eval.evaluate_white(&m), "{fen}");
            assert_eq!(eval.evaluate(&p), eval.evaluate(&m), "{fen}");
        }
    }

    #[test]
    fn explain_adds_up() {
        let eval = Evaluator::new(&Weights::preset("kaissa").unwrap()).unwrap();
        let p = pos(FENS[1]);
        let explanation = eval.explain(&p);
        assert!(explanation.terms.iter().all(|t| t.value != 0.0));
        let sum: f64 = explanation.terms.iter().map(|t| t.centipawns).sum();
        assert!((sum - f64::from(explanation.white)).abs() <= 0.5 + 1e-9);
        assert!(explanation.to_string().contains("total:"));
        let knight = explanation.terms.iter().find(|t| t.column == "mg_N_e5").unwrap();
        assert_eq!(knight.value, 1.0);
    }

    #[test]
    fn bad_weights_are_errors_not_panics() {
        let mut w = Weights::preset("classical").unwrap();
        w.features = vec!["nonsense".to_string()];
        assert!(matches!(Evaluator::new(&w), Err(EvaluatorError::Features { .. })));
        let mut w = Weights::preset("classical").unwrap();
        w.scale = f64::NAN;
        assert!(matches!(Evaluator::new(&w), Err(EvaluatorError::NotFinite { .. })));
        // Absurd but finite weights are clamped instead of overflowing.
        let mut w = Weights::preset("classical").unwrap();
        w.scale = 1e30;
        let eval = Evaluator::new(&w).unwrap();
        let cp = eval.evaluate_white(&pos(FENS[5]));
        assert!(cp > 10_000 && cp <= EVAL_LIMIT, "{cp}");
        assert_eq!(eval.evaluate_white(&pos(FENS[0])), 0);
    }
}
