//! The imbalance analysis for people (tables), for programs (one JSON
//! object) and for the figure (its data; the drawing is in
//! [`crate::analysis::plots`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CollectionFit, Comparison, Estimate, FIGURE, ImbalanceReport, PAWNS};
use crate::analysis::plots::{self, ImbalancePlot, PawnCurve, PlotError};

/// `v` with a sign and `decimals` decimals.
fn signed(v: f64, decimals: usize) -> String {
    format!("{v:+.decimals$}")
}

/// `value [lo, hi]` with the clustered 95% interval.
fn with_interval(e: &Estimate, decimals: usize) -> String {
    let (lo, hi) = e.ci95();
    format!("{} [{}, {}]", signed(e.value, decimals), signed(lo, decimals), signed(hi, decimals))
}

/// A p-value in a few characters: `0.034`, `2e-11`, `<1e-300`.
pub fn p_text(p: f64) -> String {
    if p.is_nan() {
        "n/a".into()
    } else if p >= 0.001 {
        format!("{p:.3}")
    } else if p > 1e-300 {
        format!("{p:.0e}")
    } else {
        "<1e-300".into()
    }
}

impl CollectionFit {
    /// The collection's tables.
    pub fn to_text(&self) -> String {
        let mut t = String::new();
        let draws = if self.draws == "exclude" { "decisive games only" } else { "draws as half points" };
        let _ = writeln!(
            t,
            "Material imbalance in {}: {} positions of {} games ({} decisive); {draws}",
            self.name, self.rows, self.games, self.decisive_games
        );
        if self.pawn_is_100 {
            let _ = writeln!(
                t,
                "Units: centipawns of this collection's pawn (K = {:.4} makes the material fit's pawn 100 at the mean phase {:.1})",
                self.k, self.mean_phase
            );
        } else {
            let _ = writeln!(t, "Units: centipawns at K = {:.4}", self.k);
        }
        for note in &self.notes {
            let _ = writeln!(t, "Note: {note}");
        }

        let _ = writeln!(t, "\nLikelihood-ratio tests of the imbalance model ({} columns) against it without:", self.imbalance.parameters);
        let dispersion =
            if self.draws == "exclude" { String::new() } else { format!(", divided by the dispersion {:.4}", self.imbalance.dispersion) };
        let _ = writeln!(t, "  (ΔD = 2n·(mean loss without − with){dispersion}; Wald: clustered by game)");
        let _ = writeln!(t, "  {:<44} {:>3} {:>11} {:>9} {:>11} {:>9}", "columns left out", "df", "ΔD", "p", "Wald", "p");
        for test in &self.tests {
            let _ = writeln!(
                t,
                "  {:<44} {:>3} {:>11.2} {:>9} {:>11.2} {:>9}",
                test.label,
                test.df,
                test.deviance_difference,
                p_text(test.p_value),
                test.wald_clustered,
                p_text(test.p_clustered)
            );
        }

        let _ = writeln!(t, "\nKaufman's findings (95% intervals clustered by game; p: the test of the effect's columns):");
        let _ = writeln!(t, "  {:<70} {:>24} {:>8} {:>9} {:>9}", "effect", "value [95% interval]", "Kaufman", "p (LRT)", "p (Wald)");
        for e in &self.effects {
            let test = self.tests.iter().find(|x| x.key == e.test);
            let (p, pw) = test.map_or((f64::NAN, f64::NAN), |x| (x.p_value, x.p_clustered));
            let _ = writeln!(t, "  {:<70} {:>24} {:>8} {:>9} {:>9}", e.label, with_interval(&e.estimate, 1), e.kaufman_claim, p_text(p), p_text(pw));
            if let Some(m) = &e.material_only {
                let _ = writeln!(t, "  {:<70} {:>24}", "  the material model's bishop pair", with_interval(m, 1));
            }
        }

        let _ = writeln!(t, "\nKnight and rook by own pawns: the evaluation's change when white gets its last one, the other side");
        let _ = writeln!(t, "having the same pieces and 5 pawns (middlegame: Q R R B B N N each, phase 24; endgame: R B N each, phase 8):");
        let _ = write!(t, "  {:>5}", "pawns");
        for curve in &self.by_pawns {
            let _ = write!(t, " {:>24}", format!("{} ({})", curve.piece, curve.reference));
        }
        let _ = writeln!(t);
        for (i, pawns) in PAWNS.enumerate() {
            let _ = write!(t, "  {pawns:>5}");
            for curve in &self.by_pawns {
                let (lo, hi) = curve.values[i].ci95();
                let _ = write!(t, " {:>24}", format!("{:.0} [{:.0}, {:.0}]", curve.values[i].value, lo, hi));
            }
            let _ = writeln!(t);
        }
        let _ = write!(t, "  {:>5}", "mat.");
        for curve in &self.by_pawns {
            let (lo, hi) = curve.material_only.ci95();
            let _ = write!(t, " {:>24}", format!("{:.0} [{:.0}, {:.0}]", curve.material_only.value, lo, hi));
        }
        let _ = writeln!(t, "\n  (mat.: the material model, the same for any number of pawns)");
        t
    }
}

impl Comparison {
    /// The z-tests as a table.
    pub fn to_text(&self, effects: &CollectionFit) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{} against {}: z = ({} − {}) / √(se₁² + se₂²), each in its own collection's pawns",
            self.other, self.first, self.other, self.first
        );
        let _ = writeln!(t, "  {:<70} {:>10} {:>10} {:>7} {:>12} {:>9}", "effect", &self.first, &self.other, "z", "z (cluster)", "p");
        for (d, e) in self.effects.iter().zip(&effects.effects) {
            let _ = writeln!(
                t,
                "  {:<70} {:>10} {:>10} {:>7.2} {:>12.2} {:>9}",
                e.label,
                signed(d.first.value, 1),
                signed(d.other.value, 1),
                d.z,
                d.z_clustered,
                p_text(d.p_clustered)
            );
        }
        let curves = effects.by_pawns.iter().map(|c| format!("{} ({})", c.piece, c.reference)).collect::<Vec<_>>();
        let _ = writeln!(t, "\n  z (clustered) of the values by own pawns:");
        let _ = write!(t, "  {:>5}", "pawns");
        for c in &curves {
            let _ = write!(t, " {c:>20}");
        }
        let _ = writeln!(t);
        let per_curve = PAWNS.count();
        for (i, pawns) in PAWNS.enumerate() {
            let _ = write!(t, "  {pawns:>5}");
            for c in 0..curves.len() {
                let _ = write!(t, " {:>20.2}", self.by_pawns[c * per_curve + i].z_clustered);
            }
            let _ = writeln!(t);
        }
        t
    }
}

impl ImbalanceReport {
    /// Every collection's tables, then the comparisons.
    pub fn to_text(&self) -> String {
        let mut t = String::new();
        for fit in &self.collections {
            t.push_str(&fit.to_text());
            t.push('\n');
        }
        for c in &self.comparisons {
            t.push_str(&c.to_text(&self.collections[0]));
            t.push('\n');
        }
        t
    }

    /// One JSON object: `collections` (each with `material` and `imbalance`
    /// fits, `tests`, `effects`, `by_pawns`) and `comparisons`.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The figure's data: each collection's knight and rook curves.
    pub fn plot(&self) -> ImbalancePlot {
        let names: Vec<&str> = self.collections.iter().map(|c| c.name.as_str()).collect();
        let curves = self
            .collections
            .iter()
            .flat_map(|c| {
                c.by_pawns.iter().map(|v| PawnCurve {
                    collection: c.name.clone(),
                    piece: v.piece.to_string(),
                    reference: v.reference.to_string(),
                    pawns: PAWNS.map(f64::from).collect(),
                    values: v.values.iter().map(|e| e.value).collect(),
                    ci95: v.values.iter().map(Estimate::ci95).collect(),
                })
            })
            .collect();
        ImbalancePlot {
            title: format!("Knight and rook by own pawns ({})", names.join(" vs ")),
            unit: if self.collections.iter().all(|c| c.pawn_is_100) {
                "centipawns (each collection's mean pawn = 100)".into()
            } else {
                "centipawns".into()
            },
            curves,
            kaufman_slopes: vec![("knight".into(), 6.25), ("rook".into(), -12.5)],
        }
    }

    /// Writes the figure as PNG and SVG into `dir` (which must exist);
    /// returns the files written.
    pub fn write_figure(&self, dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
        let plot = self.plot();
        let mut written = Vec::new();
        for ext in ["png", "svg"] {
            let path = dir.join(format!("{FIGURE}.{ext}"));
            plots::imbalance_by_pawns(&plot, &path)?;
            written.push(path);
        }
        Ok(written)
    }
}
