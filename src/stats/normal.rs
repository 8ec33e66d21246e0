//! The standard normal distribution, for intervals and LOS.
//!
//! `std` has no `erf` on stable Rust, and one function does not justify a
//! dependency, so the complementary error function is computed here: a
//! positive-term series below 1 and a continued fraction from 1 on, both
//! accurate to a few units in the 15th digit.

use std::f64::consts::{FRAC_2_SQRT_PI, SQRT_2};

/// Φ⁻¹(0.975): the half-width of a two-sided 95% interval in standard
/// deviations (the value fishtest's `Phi_inv(0.975)` and fastchess use).
pub const Z_95: f64 = 1.959_963_984_540_054;

/// Φ(z), the probability that a standard normal variable is below `z`.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / SQRT_2)
}

/// The complementary error function erfc(x) = 1 − erf(x).
fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else if x < 0.0 {
        2.0 - erfc(-x)
    } else if x > 27.5 {
        // erfc(27.5) < 1e-329, below the smallest subnormal; also catches +∞.
        0.0
    } else if x < 1.0 {
        // erfc(1) ≈ 0.16, so the subtraction costs less than one digit.
        1.0 - erf_series(x)
    } else {
        erfc_continued_fraction(x)
    }
}

/// erf(x) = 2/√π · e^(−x²) · Σₙ (2x²)ⁿ · x / (1·3·…·(2n+1)), for 0 ≤ x < 1.
///
/// Every term is positive, so unlike the alternating Taylor series nothing
/// cancels.
fn erf_series(x: f64) -> f64 {
    let two_x_squared = 2.0 * x * x;
    let mut term = x;
    let mut sum = x;
    for n in 1..200_u32 {
        term *= two_x_squared / f64::from(2 * n + 1);
        sum += term;
        if term <= sum * 1e-17 {
            break;
        }
    }
    FRAC_2_SQRT_PI * (-x * x).exp() * sum
}

/// erfc(x) = e^(−x²)/√π · 1/(x + ½/(x + 1/(x + (3/2)/(x + 2/(x + …))))),
/// for x ≥ 1, evaluated with the modified Lentz method (under 200 terms).
fn erfc_continued_fraction(x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut fraction = x;
    let mut c = x;
    let mut d = 0.0;
    for k in 1..500_u32 {
        let a = 0.5 * f64::from(k);
        d = x + a * d;
        if d.abs() < TINY {
            d = TINY;
        }
        d = 1.0 / d;
        c = x + a / c;
        if c.abs() < TINY {
            c = TINY;
        }
        let delta = c * d;
        fraction *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    0.5 * FRAC_2_SQRT_PI * (-x * x).exp() / fraction
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64, relative: f64) -> bool {
        (actual - expected).abs() <= relative * expected.abs()
    }

    #[test]
    fn erfc_matches_reference_values() {
        // Reference values of erfc (Python's math.erfc, i.e. the C library's).
        let cases = [
            (0.0, 1.0),
            (0.1, 0.887_537_083_981_715_2),
            (0.5, 0.479_500_122_186_953_5),
            (1.0, 0.157_299_207_050_285_13),
            (1.5, 0.033_894_853_524_689_274),
            (1.999, 0.004_698_443_348_629_488),
            (2.0, 0.004_677_734_981_047_265),
            (3.0, 2.209_049_699_858_543_8e-5),
            (5.0, 1.537_459_794_428_035_1e-12),
            (10.0, 2.088_487_583_762_545e-45),
            (-1.0, 1.842_700_792_949_715),
        ];
        for (x, expected) in cases {
            assert!(close(erfc(x), expected, 1e-14), "erfc({x}) = {} ≠ {expected}", erfc(x));
        }
    }

    #[test]
    fn normal_cdf_at_known_quantiles() {
        assert_eq!(normal_cdf(0.0), 0.5);
        assert!(close(normal_cdf(Z_95), 0.975, 1e-15));
        assert!(close(normal_cdf(-Z_95), 0.025, 1e-13));
        assert!(close(normal_cdf(1.0), 0.841_344_746_068_542_9, 1e-15));
        assert_eq!(normal_cdf(f64::INFINITY), 1.0);
        assert_eq!(normal_cdf(f64::NEG_INFINITY), 0.0);
        assert!(normal_cdf(f64::NAN).is_nan());
    }
}
