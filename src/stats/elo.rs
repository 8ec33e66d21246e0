//! Elo, normalised Elo and LOS estimated from counts, with 95% intervals.
//!
//! The definitions are fastchess's (`elo_wdl.cpp`, `elo_pentanomial.cpp`),
//! which agree with fishtest's `stat_util.get_elo` on samples without empty
//! buckets. A *sample* is one game (trinomial) or one game pair
//! (pentanomial); a pair's score is its points divided by 2, so both kinds
//! of sample score in [0, 1] and have the same mean `s`, the score per game.
//!
//! * Elo: `E(s) = −400·log₁₀(1/s − 1)`.
//! * Interval: the normal 95% interval of the mean score,
//!   `s ± z·σ/√n` with `σ²` the empirical variance of one sample's score and
//!   `n` the number of samples, mapped through `E`; the reported half-width is
//!   `(E(s + z·σ/√n) − E(s − z·σ/√n)) / 2`. The logistic stretches the upper
//!   side, so this is the average of two unequal half-widths.
//! * Normalised Elo: `nElo = (s − ½)/σ_game · 800/ln 10`, where `σ_game` is the
//!   standard deviation of one game's score: `σ` for W/D/L, and `√2·σ` for
//!   pairs (a pair's score is the mean of two games, so its variance is
//!   half a game's if the pair's games were independent; pairing removes the
//!   opening's share of that variance, which is the point of it).
//! * LOS: `Φ((s − ½)/(σ/√n))`, the probability that the true score is above ½.
//!
//! Unlike fishtest, empty buckets are not replaced by 1e-3 here: that prior
//! only matters for the degenerate samples, which are reported as
//! [`Degenerate`] instead of as numbers.

use std::f64::consts::LN_10;
use std::fmt;

use super::counts::{Penta, Wdl};
use super::display::Fixed2;
use super::normal::{Z_95, normal_cdf};

/// Normalised Elo per unit of t-value, `800 / ln 10` (≈ 347.4356): the slope
/// of the logistic Elo curve at s = ½ is `1600/ln 10` per unit of score, and a
/// game's score has standard deviation ½ when there are no draws.
pub const NELO_PER_T: f64 = 800.0 / LN_10;

/// Logistic Elo difference of a per-game score `s`:
/// `E = −400·log₁₀(1/s − 1)`.
///
/// Returns −∞ for `s ≤ 0`, +∞ for `s ≥ 1` and NaN for NaN; the estimators
/// never pass such scores, they report [`Degenerate`] samples instead.
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

/// Expected per-game score of a logistic Elo difference:
/// `s = 1 / (1 + 10^(−E/400))`, the inverse of [`elo_from_score`].
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Why a sample has no Elo estimate; `Display` gives a sentence fit for a
/// report (never `inf` or `NaN`).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum Degenerate {
    /// No game (or game pair) was played.
    #[error("no games played")]
    NoGames,
    /// Every game was won: the score is 1, its Elo +∞ and its variance 0.
    #[error("no losses or draws (every game won): Elo is +∞, no interval")]
    AllWins,
    /// Every game was lost: the score is 0, its Elo −∞ and its variance 0.
    #[error("no wins or draws (every game lost): Elo is −∞, no interval")]
    AllLosses,
    /// Every game (or every pair) scored the same, strictly between 0 and 1
    /// (all draws, say): the Elo is finite but with zero variance there is no
    /// interval, normalised Elo or LOS.
    #[error(
        "every result identical (score {}%): Elo {}, but with zero variance no interval, nElo or LOS",
        Fixed2(.score * 100.0),
        Fixed2(*.elo)
    )]
    NoVariance {
        /// The per-game score every sample had.
        score: f64,
        /// Its Elo.
        elo: f64,
    },
    /// More than 2⁵⁰ samples: past that, sums of scores stop being exact in
    /// double precision. No match gets there; the variant keeps the promise
    /// that an estimate's fields are finite.
    #[error("too many games to estimate in double precision")]
    TooManyGames,
}

/// The most samples an estimate accepts (see [`Degenerate::TooManyGames`]).
const MAX_SAMPLES: u64 = 1 << 50;

/// An Elo estimate with 95% intervals, from W/D/L or pentanomial counts.
///
/// Every field is finite. `Display` gives
/// `Elo 40.70 ± 30.43 (95%), nElo 49.77 ± 36.77, LOS 99.60%`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// Samples the estimate rests on: games (W/D/L) or game pairs (pentanomial).
    pub samples: u64,
    /// Mean score per game, in (0, 1).
    pub score: f64,
    /// Half-width of the 95% interval of the score, `z·σ/√n`.
    pub score_ci95: f64,
    /// Logistic Elo of the score.
    pub elo: f64,
    /// Half-width of the 95% Elo interval (see the module docs), or `None`
    /// when the score interval reaches 0 or 1, where the Elo interval is
    /// unbounded on that side (few games, nearly all won or all lost).
    pub ci95: Option<f64>,
    /// Standard deviation of one game's score (`σ_game` in the module docs).
    pub sigma_per_game: f64,
    /// Normalised Elo.
    pub nelo: f64,
    /// Half-width of the 95% normalised-Elo interval (symmetric: nElo is
    /// linear in the score).
    pub nelo_ci95: f64,
    /// Likelihood of superiority, the probability in [0, 1] that the first
    /// engine is the stronger.
    pub los: f64,
}

impl EloEstimate {
    /// The 95% Elo interval as (low, high), or `None` when it is unbounded.
    pub fn elo_interval(&self) -> Option<(f64, f64)> {
        let low = self.score - self.score_ci95;
        let high = self.score + self.score_ci95;
        (low > 0.0 && high < 1.0).then(|| (elo_from_score(low), elo_from_score(high)))
    }
}

impl fmt::Display for EloEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ci95 {
            Some(ci95) => write!(f, "Elo {} ± {} (95%)", Fixed2(self.elo), Fixed2(ci95))?,
            None => write!(
                f,
                "Elo {} (95% interval unbounded: score {}% ± {}% reaches {}%)",
                Fixed2(self.elo),
                Fixed2(self.score * 100.0),
                Fixed2(self.score_ci95 * 100.0),
                if self.score > 0.5 { 100 } else { 0 },
            )?,
        }
        write!(f, ", nElo {} ± {}, LOS {}%", Fixed2(self.nelo), Fixed2(self.nelo_ci95), Fixed2(self.los * 100.0))
    }
}

impl Wdl {
    /// Elo, nElo and LOS from single games, with the trinomial variance
    /// (each game an independent sample scoring 0, ½ or 1).
    ///
    /// # Errors
    ///
    /// A [`Degenerate`] sample: no games, all won, all lost, all drawn, or
    /// more than 2⁵⁰ games.
    pub fn estimate(&self) -> Result<EloEstimate, Degenerate> {
        estimate(&self.by_score(), 1.0)
    }
}

impl Penta {
    /// Elo, nElo and LOS from game pairs, with the pentanomial variance (each
    /// pair an independent sample scoring 0, ¼, ½, ¾ or 1 per game).
    ///
    /// # Errors
    ///
    /// A [`Degenerate`] sample: no pairs, every pair in the same bucket
    /// (all won, all lost, or all scoring the same in between), or more
    /// than 2⁵⁰ pairs.
    pub fn estimate(&self) -> Result<EloEstimate, Degenerate> {
        estimate(&self.0, 2.0)
    }
}

/// The estimate from bucket counts ordered by score (bucket `i` of `k` scores
/// `i/(k−1)` per game), where each sample is `games_per_sample` games.
fn estimate(counts: &[u64], games_per_sample: f64) -> Result<EloEstimate, Degenerate> {
    let last = counts.len() - 1;
    let bucket_score = |i: usize| i as f64 / last as f64;
    let samples = counts.iter().fold(0u64, |total, &count| total.saturating_add(count));
    if samples == 0 {
        return Err(Degenerate::NoGames);
    }
    if samples > MAX_SAMPLES {
        return Err(Degenerate::TooManyGames);
    }
    // Decided on the counts rather than on a computed variance being exactly
    // zero, so rounding cannot let a degenerate sample through.
    let mut occupied = counts.iter().enumerate().filter(|&(_, &count)| count > 0);
    if let (Some((only, _)), None) = (occupied.next(), occupied.next()) {
        return Err(match only {
            0 => Degenerate::AllLosses,
            i if i == last => Degenerate::AllWins,
            i => Degenerate::NoVariance { score: bucket_score(i), elo: elo_from_score(bucket_score(i)) },
        });
    }

    let n = samples as f64;
    let score = counts.iter().enumerate().map(|(i, &c)| c as f64 * bucket_score(i)).sum::<f64>() / n;
    let variance = counts.iter().enumerate().map(|(i, &c)| c as f64 * (bucket_score(i) - score).powi(2)).sum::<f64>() / n;
    let standard_error = (variance / n).sqrt();
    let score_ci95 = Z_95 * standard_error;
    let (low, high) = (score - score_ci95, score + score_ci95);
    let ci95 = (low > 0.0 && high < 1.0).then(|| (elo_from_score(high) - elo_from_score(low)) / 2.0);
    let sigma_per_game = (variance * games_per_sample).sqrt();

    Ok(EloEstimate {
        samples,
        score,
        score_ci95,
        elo: elo_from_score(score),
        ci95,
        sigma_per_game,
        nelo: (score - 0.5) / sigma_per_game * NELO_PER_T,
        nelo_ci95: score_ci95 / sigma_per_game * NELO_PER_T,
        los: normal_cdf((score - 0.5) / standard_error),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Formats like the published reference values.
    fn two(x: f64) -> String {
        format!("{x:.2}")
    }

    #[test]
    fn elo_and_score_are_inverse() {
        assert_eq!(elo_from_score(0.5), 0.0);
        for elo in [-800.0, -40.0, 0.0, 3.5, 400.0] {
            assert!((elo_from_score(score_from_elo(elo)) - elo).abs() < 1e-9);
        }
        assert!((score_from_elo(400.0) - 10.0 / 11.0).abs() < 1e-15);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    /// fastchess `elo_test.cpp` "EloWDL 2": W/L/D = 136/96/111.
    #[test]
    fn trinomial_reference_136_96_111() {
        let estimate = Wdl::new(136, 111, 96).estimate().unwrap();
        assert_eq!(two(estimate.elo), "40.70");
        assert_eq!(two(estimate.ci95.unwrap()), "30.43");
        assert_eq!(two(estimate.nelo), "49.77");
        assert_eq!(two(estimate.nelo_ci95), "36.77");
        assert_eq!(two(estimate.los * 100.0), "99.60");
        // More digits, computed independently in double precision.
        assert!((estimate.elo - 40.702_458_186_527).abs() < 1e-9);
        assert!((estimate.ci95.unwrap() - 30.427_217_943_601).abs() < 1e-9);
        assert!((estimate.nelo - 49.768_415_381_022).abs() < 1e-9);
        assert!((estimate.nelo_ci95 - 36.768_450_594_954).abs() < 1e-9);
        assert!((estimate.los - 0.996_010_235_733_497).abs() < 1e-12);
        assert_eq!(estimate.to_string(), "Elo 40.70 ± 30.43 (95%), nElo 49.77 ± 36.77, LOS 99.60%");
    }

    /// fastchess `elo_test.cpp` "EloPentanomial 1": LL 34, LD 54, WL 31,
    /// DD 32, WD 64, WW 75.
    #[test]
    fn pentanomial_reference_34_54_63_64_75() {
        let estimate = Penta([34, 54, 31 + 32, 64, 75]).estimate().unwrap();
        assert_eq!(two(estimate.elo), "55.58");
        assert_eq!(two(estimate.ci95.unwrap()), "27.65");
        assert_eq!(two(estimate.nelo), "57.94");
        assert_eq!(two(estimate.nelo_ci95), "28.28");
        assert_eq!(two(estimate.los * 100.0), "100.00");
        assert!((estimate.elo - 55.579_780_420_446).abs() < 1e-9);
        assert!((estimate.ci95.unwrap() - 27.653_429_506_394).abs() < 1e-9);
        assert!((estimate.nelo - 57.935_599_938_124).abs() < 1e-9);
        assert!((estimate.nelo_ci95 - 28.275_376_243_409).abs() < 1e-9);
        assert!((estimate.los - 0.999_970_393_008_431).abs() < 1e-12);
    }

    /// The other published fastchess cases, at their two printed decimals.
    #[test]
    fn further_fastchess_references() {
        // Stats(w, l, d) in fastchess; Wdl::new takes (w, d, l).
        let e = Wdl::new(76, 123, 89).estimate().unwrap();
        assert_eq!((two(e.nelo), two(e.nelo_ci95), two(e.los * 100.0)), ("-20.76".into(), "40.13".into(), "15.53".into()));
        let e = Wdl::new(34, 0, 356).estimate().unwrap();
        assert_eq!((two(e.nelo), two(e.nelo_ci95)), ("-508.44".into(), "34.48".into()));
        // Stats(ll, ld, wl, dd, wd, ww) in fastchess.
        let e = Penta([332, 433, 457 + 41, 333, 334]).estimate().unwrap();
        assert_eq!(
            (two(e.elo), two(e.ci95.unwrap()), two(e.nelo), two(e.nelo_ci95), two(e.los * 100.0)),
            ("-8.64".into(), "10.33".into(), "-9.17".into(), "10.96".into(), "5.05".into())
        );
        let e = Penta([7895, 8757, 5485 + 200, 568, 9999]).estimate().unwrap();
        assert_eq!(
            (two(e.elo), two(e.ci95.unwrap()), two(e.nelo), two(e.nelo_ci95)),
            ("-21.04".into(), "2.95".into(), "-19.01".into(), "2.65".into())
        );
    }

    #[test]
    fn degenerate_samples_are_named_not_computed() {
        assert_eq!(Wdl::default().estimate(), Err(Degenerate::NoGames));
        assert_eq!(Penta::default().estimate(), Err(Degenerate::NoGames));
        assert_eq!(Wdl::new(7, 0, 0).estimate(), Err(Degenerate::AllWins));
        assert_eq!(Penta([0, 0, 0, 0, 7]).estimate(), Err(Degenerate::AllWins));
        assert_eq!(Wdl::new(0, 0, 7).estimate(), Err(Degenerate::AllLosses));
        assert_eq!(Penta([7, 0, 0, 0, 0]).estimate(), Err(Degenerate::AllLosses));
        assert_eq!(Wdl::new(0, 7, 0).estimate(), Err(Degenerate::NoVariance { score: 0.5, elo: 0.0 }));
        let Err(Degenerate::NoVariance { score, elo }) = Penta([0, 0, 0, 7, 0]).estimate() else {
            panic!("all WD pairs have no variance");
        };
        assert_eq!(score, 0.75);
        assert!((elo - 190.848_501_887_865).abs() < 1e-9);
    }

    #[test]
    fn degenerate_messages_are_sentences_without_inf_or_nan() {
        let messages = [
            Degenerate::NoGames.to_string(),
            Degenerate::AllWins.to_string(),
            Degenerate::AllLosses.to_string(),
            Wdl::new(0, 3, 0).estimate().unwrap_err().to_string(),
            Penta([0, 3, 0, 0, 0]).estimate().unwrap_err().to_string(),
        ];
        assert_eq!(messages[0], "no games played");
        assert_eq!(messages[1], "no losses or draws (every game won): Elo is +∞, no interval");
        assert_eq!(messages[3], "every result identical (score 50.00%): Elo 0.00, but with zero variance no interval, nElo or LOS");
        assert_eq!(messages[4], "every result identical (score 25.00%): Elo -190.85, but with zero variance no interval, nElo or LOS");
        for message in messages {
            let lower = message.to_lowercase();
            assert!(!lower.contains("inf ") && !lower.contains("nan"), "{message}");
        }
    }

    #[test]
    fn no_losses_with_draws_has_an_estimate_but_maybe_no_bounded_interval() {
        // 4 wins, 1 draw: the score is 0.9 and finite, but the 95% score
        // interval reaches past 1, so the logistic interval is unbounded.
        let estimate = Wdl::new(4, 1, 0).estimate().unwrap();
        assert!((estimate.score - 0.9).abs() < 1e-15);
        assert_eq!(estimate.ci95, None);
        assert_eq!(estimate.elo_interval(), None);
        assert!(estimate.nelo.is_finite() && estimate.los.is_finite());
        let text = estimate.to_string();
        assert!(text.starts_with("Elo 381.70 (95% interval unbounded: score 90.00% ± 17.53% reaches 100%)"), "{text}");
        assert!(text.contains("reaches 100%"), "{text}");
        // With enough games the interval closes.
        let estimate = Wdl::new(1000, 500, 1).estimate().unwrap();
        let (low, high) = estimate.elo_interval().unwrap();
        assert!(low < estimate.elo && estimate.elo < high);
        assert!((estimate.ci95.unwrap() - (high - low) / 2.0).abs() < 1e-9);
    }

    #[test]
    fn huge_counts_do_not_panic() {
        assert_eq!(Wdl::new(u64::MAX, 0, 1).estimate(), Err(Degenerate::TooManyGames));
        assert_eq!(Penta([u64::MAX; 5]).estimate(), Err(Degenerate::TooManyGames));
        // Just below the limit, nearly all wins: the score stays below 1.
        let estimate = Penta([1, 0, 0, 0, MAX_SAMPLES - 1]).estimate().unwrap();
        assert!(estimate.score < 1.0);
        for value in [estimate.elo, estimate.nelo, estimate.nelo_ci95, estimate.los] {
            assert!(value.is_finite());
        }
    }
}
