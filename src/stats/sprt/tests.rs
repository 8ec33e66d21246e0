//! SPRT tests against published values, plus parsing and edge cases.

use super::*;

fn normalized(elo0: f64, elo1: f64) -> SprtConfig {
    SprtConfig::new(elo0, elo1, 0.05, 0.05, EloModel::Normalized).unwrap()
}

fn logistic(elo0: f64, elo1: f64) -> SprtConfig {
    SprtConfig::new(elo0, elo1, 0.05, 0.05, EloModel::Logistic).unwrap()
}

fn two(x: f64) -> String {
    format!("{x:.2}")
}

/// The brief's reference: [379, 10170, 21828, 10640, 343], nElo [0, 2],
/// α = β = 0.05 → "LLR 2.946, H1 accepted".
///
/// The exact GSPRT (fishtest's `LLR_normalized`, fastchess's
/// `getLLR_normalized`) gives 2.945495…, which prints as 2.95 but as 2.945
/// at three decimals; 2.946 is what Van den Bergh's closed-form
/// approximation (fishtest's `LLR_normalized_alt`) gives, 2.946105…. Both
/// cross the upper bound ln 19 = 2.944439.
#[test]
fn normalized_pentanomial_reference() {
    let sprt = normalized(0.0, 2.0);
    let pairs = Penta([379, 10170, 21828, 10640, 343]);
    let llr = sprt.llr(&pairs);
    assert!((llr - 2.945_495_430_907).abs() < 1e-9, "{llr}");
    assert_eq!(two(llr), "2.95");
    assert!((llr - 2.946).abs() < 1e-3);
    assert_eq!(format!("{:.3}", sprt.llr_approx(&pairs)), "2.946");
    assert_eq!(sprt.decide(&pairs), SprtDecision::AcceptH1);
    assert_eq!(sprt.status(&pairs).to_string(), "LLR 2.95 (-2.94, 2.94) [0.00, 2.00] H1 accepted");
}

/// fastchess `sprt_test.cpp`, normalised pentanomial cases. fastchess's
/// `Stats(ll, ld, wl, dd, wd, ww)` merges wl and dd into our middle bucket.
#[test]
fn fastchess_normalized_pentanomial() {
    let llr = normalized(0.0, 2.0).llr(&Penta([365, 16618, 36029 + 200, 16974, 390]));
    assert_eq!(two(llr), "2.25");
    let llr = normalized(-1.75, 0.25).llr(&Penta([127, 4883, 10311 + 401, 5150, 104]));
    assert_eq!(two(llr), "3.01");
}

/// fastchess `sprt_test.cpp`, logistic pentanomial cases.
#[test]
fn fastchess_logistic_pentanomial() {
    let llr = logistic(0.5, 2.5).llr(&Penta([223, 9863, 20279 + 1000, 10037, 246]));
    assert_eq!(two(llr), "-3.07");
    let llr = logistic(0.0, 2.0).llr(&Penta([871, 26175, 55003 + 980, 26678, 821]));
    assert_eq!(two(llr), "-4.98");
}

/// fastchess `sprt_test.cpp`, trinomial cases (`Stats(wins, losses, draws)`).
#[test]
fn fastchess_trinomial() {
    assert_eq!(two(normalized(0.0, 2.0).llr_trinomial(&Wdl::new(36433, 68692, 36027))), "0.92");
    assert_eq!(two(normalized(-1.75, 0.25).llr_trinomial(&Wdl::new(10871, 20431, 10650))), "2.30");
    assert_eq!(two(logistic(0.5, 2.5).llr_trinomial(&Wdl::new(21404, 40708, 21184))), "-1.57");
    assert_eq!(two(logistic(0.0, 2.0).llr_trinomial(&Wdl::new(57433, 106593, 57030))), "-2.59");
}

#[test]
fn approximation_stays_close_to_the_exact_llr() {
    let samples = [Penta([379, 10170, 21828, 10640, 343]), Penta([365, 16618, 36229, 16974, 390]), Penta([871, 26175, 55983, 26678, 821])];
    for sprt in [normalized(0.0, 2.0), logistic(0.0, 2.0)] {
        for pairs in &samples {
            let (exact, approx) = (sprt.llr(pairs), sprt.llr_approx(pairs));
            assert!((exact - approx).abs() < 0.01 * exact.abs().max(1.0), "{exact} vs {approx}");
        }
    }
}

#[test]
fn bounds_are_wald_s() {
    let sprt = SprtConfig::default();
    assert!((sprt.lower_bound() + 19f64.ln()).abs() < 1e-15);
    assert!((sprt.upper_bound() - 19f64.ln()).abs() < 1e-15);
    let sprt = SprtConfig::new(0.0, 5.0, 0.01, 0.1, EloModel::Logistic).unwrap();
    assert!((sprt.lower_bound() - (0.1f64 / 0.99).ln()).abs() < 1e-15);
    assert!((sprt.upper_bound() - 90f64.ln()).abs() < 1e-15);
}

#[test]
fn decisions_at_and_between_the_bounds() {
    let sprt = SprtConfig::default();
    assert_eq!(sprt.decision(sprt.upper_bound()), SprtDecision::AcceptH1);
    assert_eq!(sprt.decision(sprt.lower_bound()), SprtDecision::AcceptH0);
    assert_eq!(sprt.decision(0.0), SprtDecision::Continue);
    assert!(!SprtDecision::Continue.is_final());
    assert!(SprtDecision::AcceptH0.is_final());
}

#[test]
fn no_pairs_is_no_evidence() {
    for sprt in [SprtConfig::default(), logistic(-3.0, 1.0)] {
        assert_eq!(sprt.llr(&Penta::default()), 0.0);
        assert_eq!(sprt.llr_trinomial(&Wdl::default()), 0.0);
        assert_eq!(sprt.llr_approx(&Penta::default()), 0.0);
        assert_eq!(sprt.decide(&Penta::default()), SprtDecision::Continue);
    }
}

#[test]
fn degenerate_samples_give_finite_llrs_of_the_right_sign() {
    for sprt in [normalized(0.0, 5.0), logistic(0.0, 5.0)] {
        for n in [1, 10, 1000] {
            let all_won = sprt.llr(&Penta([0, 0, 0, 0, n]));
            let all_lost = sprt.llr(&Penta([n, 0, 0, 0, 0]));
            assert!(all_won.is_finite() && all_won > 0.0, "{sprt}: {all_won}");
            assert!(all_lost.is_finite() && all_lost < 0.0, "{sprt}: {all_lost}");
            for bucket in 1..4 {
                let mut counts = [0; 5];
                counts[bucket] = n;
                assert!(sprt.llr(&Penta(counts)).is_finite());
            }
            // All pairs even: a score of exactly ½ speaks for elo0 = 0.
            assert!(sprt.llr(&Penta([0, 0, n, 0, 0])) < 0.0);
        }
        assert!(sprt.llr(&Penta([u64::MAX; 5])).is_finite());
        assert!(sprt.llr_trinomial(&Wdl::new(0, u64::MAX, 0)).is_finite());
    }
    // Many wins end the test with H1, many losses with H0.
    let sprt = SprtConfig::default();
    assert_eq!(sprt.decide(&Penta([0, 0, 0, 0, 1000])), SprtDecision::AcceptH1);
    assert_eq!(sprt.decide(&Penta([1000, 0, 0, 0, 0])), SprtDecision::AcceptH0);
}

#[test]
fn parses_keys_in_any_order_with_defaults() {
    let sprt: SprtConfig = "elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized".parse().unwrap();
    assert_eq!(sprt, SprtConfig::default());
    let sprt: SprtConfig = "model=logistic,elo1=1, elo0=-3 ,beta=0.1".parse().unwrap();
    assert_eq!(sprt, SprtConfig::new(-3.0, 1.0, 0.05, 0.1, EloModel::Logistic).unwrap());
    let sprt: SprtConfig = "  ".parse().unwrap();
    assert_eq!(sprt, SprtConfig::default());
    let sprt: SprtConfig = "MODEL=Normalised ELO1=2".parse().unwrap();
    assert_eq!(sprt, normalized(0.0, 2.0));
}

#[test]
fn display_parses_back() {
    for sprt in [SprtConfig::default(), logistic(-3.0, 1.0), normalized(0.5, 2.25)] {
        assert_eq!(sprt.to_string().parse::<SprtConfig>(), Ok(sprt));
    }
    assert_eq!(SprtConfig::default().to_string(), "elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized");
}

#[test]
fn rejects_bad_settings_with_a_reason() {
    let error = |text: &str| text.parse::<SprtConfig>().unwrap_err();
    assert_eq!(error("elo0"), SprtConfigError::NotKeyValue("elo0".into()));
    assert_eq!(error("elo2=1"), SprtConfigError::UnknownKey("elo2".into()));
    assert_eq!(error("elo1=1 elo1=2"), SprtConfigError::DuplicateKey("elo1".into()));
    assert_eq!(error("alpha=five"), SprtConfigError::NotANumber { key: "alpha".into(), value: "five".into() });
    assert_eq!(error("model=bayesian"), SprtConfigError::UnknownModel("bayesian".into()));
    assert_eq!(error("elo0=5 elo1=5"), SprtConfigError::BoundsNotIncreasing { elo0: 5.0, elo1: 5.0 });
    assert!(matches!(error("elo1=nan"), SprtConfigError::BoundOutOfRange { .. }));
    assert!(matches!(error("elo1=inf"), SprtConfigError::BoundOutOfRange { .. }));
    assert!(matches!(error("elo1=500"), SprtConfigError::BoundOutOfRange { limit: 100.0, .. }));
    assert!(error("elo1=1500 model=logistic").to_string().contains("logistic"));
    assert_eq!(error("alpha=0"), SprtConfigError::ErrorRateOutOfRange { name: "alpha", value: 0.0 });
    assert!(matches!(error("beta=1"), SprtConfigError::ErrorRateOutOfRange { name: "beta", .. }));
    assert!(matches!(error("beta=nan"), SprtConfigError::ErrorRateOutOfRange { .. }));
    assert_eq!(error("alpha=0.5 beta=0.5"), SprtConfigError::ErrorRatesTooLarge { alpha: 0.5, beta: 0.5 });
    assert_eq!(error("elo0=3 elo1=1").to_string(), "elo0 (3) must be less than elo1 (1)");
}
