//! A match summary in the form fastchess prints: counts, the trinomial and
//! pentanomial estimates, and the SPRT line.

use std::fmt;

use super::counts::{Penta, Wdl};
use super::display::Fixed2;
use super::sprt::SprtConfig;

/// Everything known about a match between two engines, ready to print.
///
/// ```text
/// Games 343: W 136, D 111, L 96 (55.83%)
/// Trinomial:   Elo 40.70 ± 30.43 (95%), nElo 49.77 ± 36.77, LOS 99.60%
/// Pairs 290: LL 34, LD 54, DD+WL 63, WD 64, WW 75
/// Pentanomial: Elo 55.58 ± 27.65 (95%), nElo 57.94 ± 28.28, LOS 100.00%
/// LLR 2.95 (-2.94, 2.94) [0.00, 2.00] H1 accepted
/// ```
///
/// The pair lines appear only with pair counts; the SPRT line only with a
/// configuration, computed on the pairs if there are any and on single
/// games otherwise. Degenerate samples print a sentence in place of the
/// estimate, such as `Trinomial:   no games played`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Report {
    /// Single-game counts.
    pub wdl: Wdl,
    /// Game-pair counts, if games were played in pairs.
    pub penta: Option<Penta>,
    /// The SPRT being run, if any.
    pub sprt: Option<SprtConfig>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let wdl = &self.wdl;
        write!(f, "Games {}: W {}, D {}, L {}", wdl.games(), wdl.wins, wdl.draws, wdl.losses)?;
        if let Some(score) = wdl.score() {
            write!(f, " ({}%)", Fixed2(score * 100.0))?;
        }
        match wdl.estimate() {
            Ok(estimate) => write!(f, "\nTrinomial:   {estimate}")?,
            Err(degenerate) => write!(f, "\nTrinomial:   {degenerate}")?,
        }
        if let Some(penta) = &self.penta {
            let [ll, ld, dd_wl, wd, ww] = penta.0;
            write!(f, "\nPairs {}: LL {ll}, LD {ld}, DD+WL {dd_wl}, WD {wd}, WW {ww}", penta.pairs())?;
            match penta.estimate() {
                Ok(estimate) => write!(f, "\nPentanomial: {estimate}")?,
                Err(degenerate) => write!(f, "\nPentanomial: {degenerate}")?,
            }
        }
        if let Some(sprt) = &self.sprt {
            let status = match &self.penta {
                Some(penta) => sprt.status(penta),
                None => sprt.status_trinomial(wdl),
            };
            write!(f, "\n{status}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::sprt::EloModel;
    use super::*;

    #[test]
    fn full_report_matches_the_published_numbers() {
        let report = Report {
            wdl: Wdl::new(136, 111, 96),
            penta: Some(Penta([34, 54, 63, 64, 75])),
            sprt: Some(SprtConfig::new(0.0, 2.0, 0.05, 0.05, EloModel::Normalized).unwrap()),
        };
        let text = report.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Games 343: W 136, D 111, L 96 (55.83%)");
        assert_eq!(lines[1], "Trinomial:   Elo 40.70 ± 30.43 (95%), nElo 49.77 ± 36.77, LOS 99.60%");
        assert_eq!(lines[2], "Pairs 290: LL 34, LD 54, DD+WL 63, WD 64, WW 75");
        assert_eq!(lines[3], "Pentanomial: Elo 55.58 ± 27.65 (95%), nElo 57.94 ± 28.28, LOS 100.00%");
        assert_eq!(lines[4], "LLR 0.53 (-2.94, 2.94) [0.00, 2.00] continue");
        assert_eq!(lines.len(), 5);
    }

    #[test]
    fn empty_report_says_so() {
        let report = Report { wdl: Wdl::default(), penta: Some(Penta::default()), sprt: Some(SprtConfig::default()) };
        assert_eq!(
            report.to_string(),
            "Games 0: W 0, D 0, L 0\n\
             Trinomial:   no games played\n\
             Pairs 0: LL 0, LD 0, DD+WL 0, WD 0, WW 0\n\
             Pentanomial: no games played\n\
             LLR 0.00 (-2.94, 2.94) [0.00, 5.00] continue"
        );
    }

    #[test]
    fn degenerate_reports_never_print_inf_or_nan() {
        let samples = [
            (Wdl::new(6, 0, 0), Penta([0, 0, 0, 0, 3])),
            (Wdl::new(0, 0, 6), Penta([3, 0, 0, 0, 0])),
            (Wdl::new(0, 6, 0), Penta([0, 0, 3, 0, 0])),
            (Wdl::new(3, 3, 0), Penta([0, 0, 0, 3, 0])),
            (Wdl::new(2, 1, 0), Penta([0, 0, 0, 1, 1])),
        ];
        for (wdl, penta) in samples {
            for model in [EloModel::Normalized, EloModel::Logistic] {
                let sprt = SprtConfig::new(0.0, 5.0, 0.05, 0.05, model).unwrap();
                let text = Report { wdl, penta: Some(penta), sprt: Some(sprt) }.to_string();
                let lower = text.to_lowercase();
                assert!(!lower.contains("nan") && !lower.contains("inf "), "{text}");
            }
        }
        let text = Report { wdl: Wdl::new(6, 0, 0), ..Report::default() }.to_string();
        assert_eq!(text, "Games 6: W 6, D 0, L 0 (100.00%)\nTrinomial:   no losses or draws (every game won): Elo is +∞, no interval");
    }

    #[test]
    fn sprt_without_pairs_uses_single_games() {
        let report = Report {
            wdl: Wdl::new(21_404, 40_708, 21_184),
            penta: None,
            sprt: Some(SprtConfig::new(0.5, 2.5, 0.05, 0.05, EloModel::Logistic).unwrap()),
        };
        assert!(report.to_string().ends_with("LLR -1.57 (-2.94, 2.94) [0.50, 2.50] continue"));
    }
}
