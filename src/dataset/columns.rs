//! From design-matrix values back to terms: how a dataset written by
//! `extract` (dense CSV/TSV/Parquet/Octave columns, sparse triplets or list
//! columns) becomes training positions again.
//!
//! An untapered column holds a term's count; a tapered term's two columns
//! hold `count · p / 24` and `count · (24 − p) / 24`, which add up to the
//! count and whose ratio gives the phase `p`. A row whose values do not fit
//! this pattern (not whole counts, or tapered terms that disagree about the
//! phase) was not written by pgntune for this layout and is refused.

use crate::features::{FeatureLayout, TermColumns, TermValue};

/// Why a row's values are not terms of the layout (or not a row pgntune
/// would read): the readers add the file and the line or row.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RowError {
    /// A column past the layout's.
    #[error("column index {index} is past the layout's {columns} columns")]
    ColumnPastLayout {
        /// The column, from 1.
        index: usize,
        /// The layout's columns.
        columns: usize,
    },
    /// A count that is not a whole number (or does not fit 16 bits).
    #[error("value {0} is not a whole count of a term")]
    NotWholeCount(f64),
    /// A tapered term whose halves cancel out although neither is zero.
    #[error("a tapered term's two halves cancel without being zero")]
    HalvesCancel,
    /// Two tapered terms imply different phases.
    #[error("tapered values imply phases {0:.3} and {1:.3}")]
    PhasesDisagree(f64, f64),
    /// The phase the tapered terms imply is not a whole number from 0 to 24.
    #[error("tapered values imply a phase of {0:.3}, not a whole number from 0 to 24")]
    PhaseNotWhole(f64),
    /// A stored phase that the tapered values contradict.
    #[error("the phase column says {stored} but the tapered values imply {implied}")]
    PhaseColumnDisagrees {
        /// The file's phase column.
        stored: u8,
        /// The phase of the tapered values.
        implied: u8,
    },
}

/// Turns rows of column values into terms and a phase.
#[derive(Clone, Debug)]
pub struct ColumnDecoder {
    /// Per column: its term and whether it is a tapered term's endgame half.
    column_terms: Vec<(usize, Half)>,
    tapered: Vec<bool>,
    mg: Vec<f64>,
    eg: Vec<f64>,
    seen: Vec<bool>,
    touched: Vec<usize>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Half {
    Single,
    Mg,
    Eg,
}

/// Tolerance for "a whole number" in values read back from text.
const WHOLE: f64 = 1e-6;

impl ColumnDecoder {
    /// A decoder for `layout`'s columns.
    pub fn new(layout: &FeatureLayout) -> ColumnDecoder {
        let terms = layout.term_count();
        let mut column_terms = vec![(0, Half::Single); layout.len()];
        let mut tapered = vec![false; terms];
        for (t, columns) in layout.all_term_columns().into_iter().enumerate() {
            match columns {
                TermColumns::Single(c) => column_terms[c] = (t, Half::Single),
                TermColumns::Tapered { mg, eg } => {
                    column_terms[mg] = (t, Half::Mg);
                    column_terms[eg] = (t, Half::Eg);
                    tapered[t] = true;
                }
            }
        }
        ColumnDecoder { column_terms, tapered, mg: vec![0.0; terms], eg: vec![0.0; terms], seen: vec![false; terms], touched: Vec::new() }
    }

    /// Decodes one row given as `(column, value)` pairs (zeros may be
    /// left out). Returns the phase the tapered values imply, or `None` when
    /// no tapered term is non-zero (then the phase does not matter).
    pub fn decode(&mut self, values: impl IntoIterator<Item = (usize, f64)>, out: &mut Vec<TermValue>) -> Result<Option<u8>, RowError> {
        out.clear();
        for (c, v) in values {
            if v == 0.0 {
                continue;
            }
            let Some(&(t, half)) = self.column_terms.get(c) else {
                return Err(RowError::ColumnPastLayout { index: c + 1, columns: self.column_terms.len() });
            };
            if !self.seen[t] {
                self.seen[t] = true;
                self.touched.push(t);
            }
            match half {
                Half::Eg => self.eg[t] += v,
                Half::Single | Half::Mg => self.mg[t] += v,
            }
        }
        self.touched.sort_unstable();
        let mut phase: Option<f64> = None;
        let mut result = Ok(());
        for &t in &self.touched {
            let (mg, eg) = (std::mem::take(&mut self.mg[t]), std::mem::take(&mut self.eg[t]));
            self.seen[t] = false;
            if result.is_err() {
                continue;
            }
            let tapered = self.tapered[t];
            let count = if tapered { mg + eg } else { mg };
            let rounded = count.round();
            if (count - rounded).abs() > WHOLE || rounded.abs() > f64::from(i16::MAX) {
                result = Err(RowError::NotWholeCount(count));
                continue;
            }
            if rounded == 0.0 {
                if mg.abs() > WHOLE {
                    result = Err(RowError::HalvesCancel);
                }
                continue;
            }
            if tapered {
                let p = 24.0 * mg / rounded;
                match phase {
                    Some(q) if (q - p).abs() > 1e-4 => result = Err(RowError::PhasesDisagree(q, p)),
                    _ => phase = Some(p),
                }
            }
            out.push(TermValue { term: t as u16, value: rounded as i16 });
        }
        self.touched.clear();
        result?;
        match phase {
            None => Ok(None),
            Some(p) if (p - p.round()).abs() <= 1e-4 && (0.0..=24.0).contains(&p.round()) => Ok(Some(p.round() as u8)),
            Some(p) => Err(RowError::PhaseNotWhole(p)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::TermScratch;
    use shakmaty::{CastlingMode, Chess, fen::Fen};

    #[test]
    fn dense_rows_decode_to_the_terms_they_came_from() {
        let layout = FeatureLayout::parse("material,pst,bishop_pair,tempo").unwrap();
        let mut decoder = ColumnDecoder::new(&layout);
        let mut scratch = TermScratch::default();
        let (mut terms, mut decoded) = (Vec::new(), Vec::new());
        for fen in ["r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R b KQ - 1 8", "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50"] {
            let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            let phase = layout.terms_of(&pos, &mut scratch, &mut terms);
            let mut x = vec![0.0; layout.len()];
            layout.expand(&terms, phase, &mut x);
            // Through text, as CSV would carry them.
            let text: Vec<f64> = x.iter().map(|v| v.to_string().parse().unwrap()).collect();
            let got = decoder.decode(text.into_iter().enumerate(), &mut decoded).unwrap();
            assert_eq!(decoded, terms, "{fen}");
            assert_eq!(got, Some(phase), "{fen}");
        }
    }

    #[test]
    fn foreign_values_are_refused() {
        let layout = FeatureLayout::parse("material,material_tapered").unwrap();
        let mut d = ColumnDecoder::new(&layout);
        let mut out = Vec::new();
        assert_eq!(d.decode([(0, 0.5)], &mut out).unwrap_err(), RowError::NotWholeCount(0.5));
        assert_eq!(RowError::NotWholeCount(0.5).to_string(), "value 0.5 is not a whole count of a term");
        // mg_P = 1 × 12/24 and mg_N = 1 × 6/24 with eg halves: phases 12 and 6.
        let err = d.decode([(5, 0.5), (10, 0.5), (6, 0.25), (11, 0.75)], &mut out).unwrap_err();
        assert_eq!(err.to_string(), "tapered values imply phases 12.000 and 6.000");
        assert_eq!(d.decode([(5, 0.5), (10, 0.5), (1, 2.0)], &mut out).unwrap(), Some(12));
        assert_eq!(out, [TermValue { term: 1, value: 2 }, TermValue { term: 5, value: 1 }]);
        assert_eq!(d.decode([(99, 1.0)], &mut out).unwrap_err(), RowError::ColumnPastLayout { index: 100, columns: 15 });
    }
}
