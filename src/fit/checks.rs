//! The 2015 article's "Capablanca rules" for material values: do the fitted
//! values agree with the classical rules of thumb?

use serde::Serialize;

/// Relative error below which an "≈" rule counts as holding.
pub const APPROX_TOLERANCE: f64 = 0.05;

/// One rule and how the fitted values fare.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Check {
    /// The rule, e.g. `B > N` or `B + N ≈ R + 1.5P`.
    pub rule: String,
    /// Left side in centipawns (pawn = 100).
    pub left: f64,
    /// Right side in centipawns.
    pub right: f64,
    /// Whether the rule holds (for ≈: relative error below [`APPROX_TOLERANCE`]).
    pub holds: bool,
    /// For ≈ rules: |left − right| / right.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relative_error: Option<f64>,
}

/// The rules, given normalised values (pawn = 100) by column name. Empty
/// when the columns P, N, B, R, Q are not all present.
pub fn capablanca(value: impl Fn(&str) -> Option<f64>) -> Vec<Check> {
    let (Some(p), Some(n), Some(b), Some(r), Some(q)) = (value("P"), value("N"), value("B"), value("R"), value("Q")) else {
        return Vec::new();
    };
    let greater = |rule: &str, left: f64, right: f64| Check { rule: rule.into(), left, right, holds: left > right, relative_error: None };
    let approx = |rule: &str, left: f64, right: f64| {
        let err = ((left - right) / right).abs();
        Check { rule: rule.into(), left, right, holds: err < APPROX_TOLERANCE, relative_error: Some(err) }
    };
    vec![
        greater("B > N", b, n),
        greater("B > 3P", b, 3.0 * p),
        greater("N > 3P", n, 3.0 * p),
        approx("B + N ≈ R + 1.5P", b + n, r + 1.5 * p),
        approx("Q + P ≈ 2R", q + p, 2.0 * r),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn article_values() {
        let values = [("P", 100.0), ("N", 288.0), ("B", 345.0), ("R", 480.0), ("Q", 1077.0)];
        let checks = capablanca(|c| values.iter().find(|v| v.0 == c).map(|v| v.1));
        let holds: Vec<bool> = checks.iter().map(|c| c.holds).collect();
        // N = 288 < 300 = 3P; Q + P = 1177 is 22.6% above 2R = 960.
        assert_eq!(holds, [true, true, false, true, false]);
        assert_eq!(checks[3].left, 633.0);
        assert_eq!(checks[3].right, 630.0);
        assert!((checks[4].relative_error.unwrap() - (1177.0 - 960.0) / 960.0).abs() < 1e-12);
        assert!(capablanca(|_| None).is_empty());
    }
}
