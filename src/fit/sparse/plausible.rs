//! Checks that tuned weights can be played: a fit can explain the results
//! well and still play badly (a negative queen, a pawn worth more than a
//! knight), when the data leave a term to chance or tie it to another.
//! These checks read the report; the command line prints what they find
//! as warnings, before anyone plays the weights.

use super::{ColumnStatus, TuneReport};

/// The pieces whose values must be positive and ordered, in order.
const PIECES: [&str; 5] = ["P", "N", "B", "R", "Q"];
/// Pairs (lower, higher) of piece values that any sound evaluation orders so.
const ORDER: [(&str, &str); 5] = [("P", "N"), ("P", "B"), ("N", "R"), ("B", "R"), ("R", "Q")];
/// A term counts as far from its prior when it moved at least this many
/// centipawns and this many standard errors.
pub const FAR_CP: f64 = 100.0;
/// See [`FAR_CP`].
pub const FAR_SE: f64 = 5.0;

/// One finding.
#[derive(Clone, Debug, PartialEq)]
pub enum Implausible {
    /// A piece worth nothing or less.
    NotPositive {
        /// The column (`mg_Q`).
        column: String,
        /// Its value.
        value: f64,
    },
    /// Two pieces in the wrong order.
    Disordered {
        /// The column that should be lower.
        lower: String,
        /// Its value.
        lower_value: f64,
        /// The column that should be higher.
        higher: String,
        /// Its value.
        higher_value: f64,
    },
    /// A term far from its prior.
    FarFromPrior {
        /// The column.
        column: String,
        /// Its tuned value.
        value: f64,
        /// Its prior.
        prior: f64,
        /// Its standard error.
        stderr: f64,
    },
}

impl std::fmt::Display for Implausible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Implausible::NotPositive { column, value } => write!(f, "{column} = {value:.0} cp is not positive"),
            Implausible::Disordered { lower, lower_value, higher, higher_value } => {
                write!(f, "{lower} = {lower_value:.0} cp is not below {higher} = {higher_value:.0} cp")
            }
            Implausible::FarFromPrior { column, value, prior, stderr } => write!(
                f,
                "{column} = {value:.0} cp is {:.0} cp ({:.0} standard errors) from its prior {prior:.0}",
                (value - prior).abs(),
                (value - prior).abs() / stderr
            ),
        }
    }
}

/// What is implausible about the tuned weights of `report`: piece values
/// (`mg_`/`eg_` of P N B R Q, or the untapered P..Q) that are not positive
/// or not in order at either phase, and tuned terms at least [`FAR_CP`]
/// and [`FAR_SE`] standard errors from their prior (the largest first).
pub fn check(report: &TuneReport) -> Vec<Implausible> {
    check_columns(&Tuned { columns: &report.columns, weights: &report.weights, prior: &report.prior, stderr: &report.stderr, status: &report.status })
}

/// Tuned weights as the checks read them: per column its name, value,
/// prior, standard error and status.
pub struct Tuned<'a> {
    /// Column names.
    pub columns: &'a [String],
    /// Tuned values, centipawns.
    pub weights: &'a [f64],
    /// Priors, centipawns.
    pub prior: &'a [f64],
    /// Standard errors, where identified.
    pub stderr: &'a [Option<f64>],
    /// Tuned, frozen or unseen.
    pub status: &'a [ColumnStatus],
}

/// [`check`] on the columns themselves.
pub fn check_columns(report: &Tuned<'_>) -> Vec<Implausible> {
    let value = |name: &str| report.columns.iter().position(|c| c == name).map(|j| report.weights[j]);
    let mut found = Vec::new();
    for prefix in ["mg_", "eg_", ""] {
        let named = |piece: &str| format!("{prefix}{piece}");
        if PIECES.iter().any(|p| value(&named(p)).is_none()) {
            continue;
        }
        for piece in PIECES {
            let v = value(&named(piece)).expect("checked above");
            if v <= 0.0 {
                found.push(Implausible::NotPositive { column: named(piece), value: v });
            }
        }
        for (low, high) in ORDER {
            let (lv, hv) = (value(&named(low)).expect("checked"), value(&named(high)).expect("checked"));
            if lv >= hv {
                found.push(Implausible::Disordered { lower: named(low), lower_value: lv, higher: named(high), higher_value: hv });
            }
        }
    }
    let mut far: Vec<Implausible> = (0..report.columns.len())
        .filter(|&j| report.status[j] == ColumnStatus::Tuned)
        .filter_map(|j| {
            let (value, prior, stderr) = (report.weights[j], report.prior[j], report.stderr[j]?);
            let moved = (value - prior).abs();
            (stderr > 0.0 && moved >= FAR_CP && moved >= FAR_SE * stderr).then(|| Implausible::FarFromPrior {
                column: report.columns[j].clone(),
                value,
                prior,
                stderr,
            })
        })
        .collect();
    far.sort_by(|a, b| {
        let moved = |x: &Implausible| match x {
            Implausible::FarFromPrior { value, prior, .. } => (value - prior).abs(),
            _ => 0.0,
        };
        moved(b).total_cmp(&moved(a))
    });
    found.extend(far);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(columns: &[(&str, f64, f64, Option<f64>)]) -> Vec<String> {
        let names: Vec<String> = columns.iter().map(|c| c.0.to_string()).collect();
        let weights: Vec<f64> = columns.iter().map(|c| c.1).collect();
        let prior: Vec<f64> = columns.iter().map(|c| c.2).collect();
        let stderr: Vec<Option<f64>> = columns.iter().map(|c| c.3).collect();
        let status = vec![ColumnStatus::Tuned; columns.len()];
        check_columns(&Tuned { columns: &names, weights: &weights, prior: &prior, stderr: &stderr, status: &status })
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_negative_queen_and_disordered_pieces_are_named() {
        let sound = [("mg_P", 80.0, 80.0, Some(1.0)), ("mg_N", 320.0, 320.0, None), ("mg_B", 330.0, 330.0, None), ("mg_R", 480.0, 480.0, None)];
        let mut columns: Vec<(&str, f64, f64, Option<f64>)> = sound.to_vec();
        columns.push(("mg_Q", 950.0, 950.0, None));
        columns.extend([("eg_P", 100.0, 100.0, None), ("eg_N", 300.0, 300.0, None), ("eg_B", 310.0, 310.0, None), ("eg_R", 520.0, 520.0, None)]);
        columns.push(("eg_Q", 1000.0, 1000.0, None));
        assert!(findings(&columns).is_empty(), "{:?}", findings(&columns));
        // The guide's first whole-evaluation example once gave a middlegame queen of -67 cp.
        columns[4].1 = -67.0;
        let found = findings(&columns);
        assert_eq!(found, ["mg_Q = -67 cp is not positive", "mg_R = 480 cp is not below mg_Q = -67 cp"]);
        // A term that moved far and by many standard errors.
        columns[4].1 = 950.0;
        columns[9].1 = 1882.0;
        columns[9].3 = Some(20.0);
        assert_eq!(findings(&columns), ["eg_Q = 1882 cp is 882 cp (44 standard errors) from its prior 1000"]);
        // Far in centipawns but within its errors: not reported.
        columns[9].3 = Some(400.0);
        assert!(findings(&columns).is_empty());
    }
}
