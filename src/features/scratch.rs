//! Gathering a position's terms into a sorted sparse row: what extraction
//! does for every quiet position, so its cost is most of extraction's.

use super::{Context, FeatureLayout, TermValue};

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
        // No test of `v` here: a zero adds nothing and the drain drops it.
        layout.visit_terms(ctx, |t, v| {
            touched[t / 64] |= 1 << (t % 64);
            values[t] += v;
        });
        // Every touched term gets a slot and the length advances only past
        // non-zero sums, so a term that cancelled out (a white and a black
        // pawn on mirrored squares, equal mobilities) is overwritten by the
        // next one. Whether a sum is zero is a coin toss to the branch
        // predictor; a branch on it cost more than the rest of the drain.
        let slots = touched.iter().map(|w| w.count_ones() as usize).sum();
        out.clear();
        out.resize(slots, TermValue { term: 0, value: 0 });
        let mut len = 0;
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
}
