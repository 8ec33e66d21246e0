//! The score curve: white's mean score against the material balance, and
//! the one-parameter logistic `E(ΔM) = 1 / (1 + e^(−αΔM))` fitted to it by
//! maximum likelihood (the 2015 article drew α ≈ 0.7 by eye).

use std::collections::BTreeMap;

use super::AnalysisError;
use crate::dataset::merged::{MergedRows, RowMerger};
use crate::fit::{DrawMode, FitConfig, fit};
use crate::weights::{Weights, WeightsError};

/// Piece values in pawns by column: the scale balances are measured on.
#[derive(Clone, Debug, PartialEq)]
pub struct Scale {
    /// A name for reports, e.g. `1-3-3-5-9`.
    pub name: String,
    /// Pawns per unit of each column.
    pub values: Vec<(String, f64)>,
}

/// Why a scale was refused.
#[derive(Debug, thiserror::Error)]
pub enum ScaleError {
    /// Five values, not all positive.
    #[error("{0}: each of the five values (P N B R Q in pawns) must be positive")]
    NotPositive(String),
    /// Neither five values nor usable weights.
    #[error("{0} (or give values like 1-3-3-5-9)")]
    Weights(#[source] WeightsError),
}

impl Scale {
    /// The classical 1-3-3-5-9.
    pub fn classical() -> Scale {
        Scale::parse("1-3-3-5-9").expect("the classical scale parses")
    }

    /// The five values of a `1-3-3-5-9` style spec, if it is one.
    fn values(spec: &str) -> Option<Vec<f64>> {
        let numbers: Option<Vec<f64>> = spec.split('-').map(|v| v.trim().parse::<f64>().ok().filter(|x| x.is_finite())).collect();
        numbers.filter(|n| n.len() == 5)
    }

    /// The weights file a spec names, if it names one: an input that no
    /// output may replace.
    pub fn file(spec: &str) -> Option<&std::path::Path> {
        if Scale::values(spec).is_some() { None } else { Weights::file(spec) }
    }

    /// `1-3-3-5-9` style (values of P N B R Q in pawns), or a weights file or preset (centipawns / 100).
    pub fn parse(spec: &str) -> Result<Scale, ScaleError> {
        if let Some(numbers) = Scale::values(spec) {
            // A zero value makes every balance on it zero: the curve has one point and no slope.
            if numbers.iter().any(|&v| v <= 0.0) {
                return Err(ScaleError::NotPositive(spec.to_string()));
            }
            let values = crate::features::material::Material::COLUMNS.iter().map(|c| c.to_string()).zip(numbers).collect();
            return Ok(Scale { name: spec.to_string(), values });
        }
        let weights = Weights::resolve(spec).map_err(ScaleError::Weights)?;
        let values = weights.weights.keys().map(|c| (c.clone(), weights.centipawns(c) / 100.0)).collect();
        Ok(Scale { name: weights.name.clone(), values })
    }

    /// The balance of a feature vector with these `columns`, in pawns.
    fn balance(&self, columns: &[String], x: &[f64]) -> f64 {
        columns.iter().zip(x).map(|(c, v)| v * self.values.iter().find(|(name, _)| name == c).map_or(0.0, |(_, p)| *p)).sum()
    }
}

/// One point of the curve.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct CurvePoint {
    /// Material balance in pawns (white minus black).
    pub balance: f64,
    /// Rows with this balance.
    pub rows: u64,
    /// White's points on them.
    pub points: f64,
    /// White's mean score.
    pub mean: f64,
    /// 95% Wilson interval of the mean score.
    pub ci95: (f64, f64),
}

/// The score curve and its logistic fit.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ScoreCurve {
    /// The scale's name.
    pub scale: String,
    /// Points by increasing balance.
    pub points: Vec<CurvePoint>,
    /// α of the logistic fit on all rows (draws as half points).
    pub alpha: f64,
    /// Its 95% interval (quasi-binomial standard error).
    pub alpha_ci95: (f64, f64),
    /// α on decisive rows only, with its interval.
    pub alpha_decisive: Option<(f64, (f64, f64))>,
}

/// The Wilson score interval for a proportion `p` of `n`.
pub fn wilson(p: f64, n: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let z = crate::stats::Z_95;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The curve of `rows` on `scale`.
pub fn score_curve(rows: &MergedRows, scale: &Scale) -> Result<ScoreCurve, AnalysisError> {
    if !rows.columns.iter().any(|c| scale.values.iter().any(|(name, _)| name == c)) {
        return Err(AnalysisError::Invalid(format!("the scale {} has none of the columns {}", scale.name, rows.columns.join(" "))));
    }
    // Balances in half pawns: exact for the usual scales, binned for fitted ones.
    let key = |b: f64| (b * 2.0).round() as i64;
    let mut cells: BTreeMap<i64, [f64; 3]> = BTreeMap::new();
    let mut by_balance = RowMerger::new(vec!["ΔM".to_string()], false);
    for i in 0..rows.len() {
        let b = scale.balance(&rows.columns, rows.row(i));
        let cell = cells.entry(key(b)).or_insert([0.0; 3]);
        let c = rows.counts[i];
        for slot in 0..3 {
            cell[slot] += c[slot];
        }
        by_balance.add_counts(&[b], c);
    }
    let points = cells
        .into_iter()
        .map(|(k, [l, d, w])| {
            let n = l + d + w;
            let mean = (w + 0.5 * d) / n;
            CurvePoint { balance: k as f64 / 2.0, rows: n as u64, points: w + 0.5 * d, mean, ci95: wilson(mean, n) }
        })
        .collect();
    let merged = by_balance.finish();
    let fit_alpha = |draws| -> Result<(f64, (f64, f64)), AnalysisError> {
        let r = fit(&merged, &FitConfig { draws, lambda: 0.0, ..FitConfig::default() }).map_err(AnalysisError::CurveFit)?;
        let se = r.stderr[0].unwrap_or(f64::NAN);
        let z = crate::stats::Z_95;
        Ok((r.theta[0], (r.theta[0] - z * se, r.theta[0] + z * se)))
    };
    let (alpha, alpha_ci95) = fit_alpha(DrawMode::Half)?;
    let alpha_decisive = fit_alpha(DrawMode::Exclude).ok();
    Ok(ScoreCurve { scale: scale.name.clone(), points, alpha, alpha_ci95, alpha_decisive })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_known_values() {
        let (lo, hi) = wilson(0.5, 100.0);
        assert!((lo - 0.4038).abs() < 1e-4 && (hi - 0.5962).abs() < 1e-4, "{lo} {hi}");
        let (lo, hi) = wilson(1.0, 10.0);
        assert!((hi - 1.0).abs() < 1e-9 && (lo - 0.7225).abs() < 1e-4, "{lo} {hi}");
    }

    #[test]
    fn scales_parse() {
        assert_eq!(Scale::classical().values[4], ("Q".to_string(), 9.0));
        let kaissa = Scale::parse("kaissa").unwrap();
        assert!(kaissa.values.iter().any(|(c, v)| c == "N" && *v == 3.5));
        assert!(Scale::parse("1-3-3").is_err());
    }
}
