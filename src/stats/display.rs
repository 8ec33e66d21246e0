//! Number formatting shared by the reports.

use std::fmt;

/// A number printed with two decimals, as fastchess and fishtest print Elo,
/// LLR and percentages, but never as `-0.00`: a value that rounds to zero
/// prints as `0.00` whatever its sign.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fixed2(pub f64);

impl fmt::Display for Fixed2 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = if self.0.abs() < 0.005 { 0.0 } else { self.0 };
        write!(f, "{value:.2}")
    }
}

/// A number as given, but with an exponent when it is very large or very
/// small (`1e300`, not 301 digits), the rule of the dataset writers'
/// number text.
#[derive(Clone, Copy, Debug)]
pub(super) struct Short(pub f64);

impl fmt::Display for Short {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0.0 || (1e-5..1e15).contains(&self.0.abs()) || !self.0.is_finite() { write!(f, "{}", self.0) } else { write!(f, "{:e}", self.0) }
    }
}

/// A number printed with one decimal and its sign (`+12.3`, `-4.0`), as a
/// match's status line prints Elo, but a value that rounds to zero prints as
/// `0.0`: `-0.0` read as a loss where there was none.
#[derive(Clone, Copy, Debug)]
pub struct Signed1(pub f64);

impl fmt::Display for Signed1 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.abs() < 0.05 { f.write_str("0.0") } else { write!(f, "{:+.1}", self.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::{Fixed2, Signed1};

    #[test]
    fn signed_one_decimal_without_negative_zero() {
        assert_eq!(Signed1(12.34).to_string(), "+12.3");
        assert_eq!(Signed1(-4.0).to_string(), "-4.0");
        assert_eq!(Signed1(-0.04).to_string(), "0.0");
        assert_eq!(Signed1(0.0).to_string(), "0.0");
        assert_eq!(Signed1(-0.06).to_string(), "-0.1");
    }

    #[test]
    fn two_decimals_without_negative_zero() {
        assert_eq!(Fixed2(40.702).to_string(), "40.70");
        assert_eq!(Fixed2(-2.944_439).to_string(), "-2.94");
        assert_eq!(Fixed2(-0.004).to_string(), "0.00");
        assert_eq!(Fixed2(-0.0).to_string(), "0.00");
        assert_eq!(Fixed2(-0.006).to_string(), "-0.01");
    }
}
