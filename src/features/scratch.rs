//! Gathering a position's terms into a sorted sparse row: what extraction
//! does for every quiet position, so its cost is most of extraction's.

use shakmaty::Bitboard;

use super::{Context, FeatureLayout, FeatureSet, Pst, TermValue};

/// Reusable scratch space for collecting a position's terms.
#[derive(Clone, Debug, Default)]
pub struct TermScratch {
    values: Vec<i32>,
    /// One bit per term touched in this position: scanning the few words
    /// of the set gives the terms in order without sorting them.
    touched: Vec<u64>,
}

impl TermScratch {
    /// Collects the non-zero terms of `ctx`'s position into `out`, sorted
    /// by term with repeats added up (terms that cancel out are left out).
    pub fn collect(&mut self, layout: &FeatureLayout, ctx: &Context, out: &mut Vec<TermValue>) {
        let terms = layout.term_count();
        let words = terms.div_ceil(64);
        if self.values.len() < terms {
            self.values.resize(terms, 0);
            self.touched.resize(words, 0);
        }
        // Slices rather than the vectors: the closure is inlined at every
        // emit of every set, and through slices the bounds stay in
        // registers instead of being reloaded after each store.
        let values = &mut self.values[..terms];
        let touched = &mut self.touched[..words];
        out.clear();
        // The sets in layout order, which is term order: each set's terms
        // come after those of the sets before it.
        for placed in &layout.sets {
            let offset = placed.term_offset;
            if placed.set == FeatureSet::Pst {
                // The table comes as sorted bits with values ±1 (see
                // `Pst::visit_roles`): the terms before it are drained, and
                // its own go straight out, a third of a row's terms that
                // then never pass through the bit set.
                drain(touched, values, out);
                Pst::visit_roles(ctx, |r, plus, minus| {
                    let first = offset + r * 64;
                    for square in Bitboard(plus | minus) {
                        let value = if plus & (1 << square as u32) != 0 { 1 } else { -1 };
                        out.push(TermValue { term: (first + square as usize) as u16, value });
                    }
                });
            } else {
                // No test of `v` here: a zero adds nothing and the drain drops it.
                placed.set.visit(ctx, |t, v| {
                    let t = offset + t;
                    touched[t / 64] |= 1 << (t % 64);
                    values[t] += v;
                });
            }
        }
        drain(touched, values, out);
    }
}

/// Appends the touched terms to `out` in term order, with their sums (the
/// non-zero ones), and clears them.
#[inline]
fn drain(touched: &mut [u64], values: &mut [i32], out: &mut Vec<TermValue>) {
    // Every touched term gets a slot and the length advances only past
    // non-zero sums, so a term that cancelled out (a white and a black pawn
    // on mirrored squares, equal mobilities) is overwritten by the next one.
    // Whether a sum is zero is a coin toss to the branch predictor; a
    // branch on it cost more than the rest of the drain.
    let slots: usize = touched.iter().map(|w| w.count_ones() as usize).sum();
    let mut len = out.len();
    out.resize(len + slots, TermValue { term: 0, value: 0 });
    for (w, (word, chunk)) in touched.iter_mut().zip(values.chunks_mut(64)).enumerate() {
        let mut bits = std::mem::take(word);
        while bits != 0 {
            let bit = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let v = std::mem::take(&mut chunk[bit]);
            out[len] = TermValue { term: (w * 64 + bit) as u16, value: v.clamp(i16::MIN.into(), i16::MAX.into()) as i16 };
            len += usize::from(v != 0);
        }
    }
    out.truncate(len);
}
