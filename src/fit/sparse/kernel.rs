//! The arithmetic of a pass, position by position: the evaluation from
//! weights by packed entry, the gradients by entry and their sum per term,
//! and the loss's logarithms taken in groups. [`super::problem`] runs them
//! over chunks of positions, in parallel.

use std::cell::RefCell;

use crate::dataset::positions::{ENTRY_SLOTS, unpack};

/// A chunk's loss: the sum of its positions' losses, with the logarithms
/// of the cross-entropy taken sixteen positions at a time.
///
/// Each position's cross-entropy needs `ln(1 + e)`, `e = e^(−|z|)` in
/// `(0, 1]`; `ln_1p` was a sixth of a gradient pass. The logarithm of a
/// product of sixteen such factors (at most 2^16) is the sum of their
/// logarithms, with one call instead of sixteen: the result differs from
/// the sum of `ln_1p`s by rounding only (a few units in the last place per
/// group; `1 + e` loses the digits of an `e` below 2^−53, a position whose
/// loss is then below 10^−16). The groups follow the positions' order in
/// the chunk, so the bits do not depend on the threads.
#[derive(Clone, Debug)]
pub(super) struct LossSum {
    /// Everything but the grouped logarithms.
    pub(super) linear: f64,
    /// The logarithms of the finished groups.
    logs: f64,
    /// The product of the current group's factors, and their number.
    product: f64,
    factors: u32,
}

impl Default for LossSum {
    fn default() -> Self {
        LossSum { linear: 0.0, logs: 0.0, product: 1.0, factors: 0 }
    }
}

impl LossSum {
    /// Factors per logarithm.
    const GROUP: u32 = 16;

    /// Adds `n · (linear + ln(1 + e))`.
    #[inline]
    pub(super) fn add_softplus(&mut self, linear: f64, e: f64, n: f64) {
        if n == 1.0 {
            self.linear += linear;
            self.product *= 1.0 + e;
            self.factors += 1;
            if self.factors == Self::GROUP {
                self.logs += self.product.ln();
                self.product = 1.0;
                self.factors = 0;
            }
        } else {
            // A merged position counts `n` times: `(1 + e)^n` could overflow.
            self.linear += n * (linear + e.ln_1p());
        }
    }

    pub(super) fn total(&self) -> f64 {
        self.linear + self.logs + self.product.ln()
    }
}

/// Each term's (mg, eg) weights in centipawns, side by side, times each
/// count an entry can hold, looked up by the packed entry itself.
///
/// The pass reads a weight per entry: with the products made once per pass
/// (a few thousand) instead of once per entry (about 35 a position), an
/// entry costs a load and an addition, with no unpacking, conversion or
/// multiplication. The products are the ones the pass made before (`v · w`
/// in `f64`), so the sums keep their bits. Entries of terms past the
/// layout's are zeros, as [`ENTRY_SLOTS`] of them are looked up without a
/// bounds check.
#[derive(Debug)]
pub struct EntryWeights {
    by_entry: Vec<[f64; 2]>,
    /// Entries past this are zeros.
    filled: usize,
}

thread_local! {
    /// A table of [`ENTRY_SLOTS`] weights kept for the thread's next pass,
    /// and how much of it is not zeros: a fresh one is a megabyte that the
    /// kernel hands out zeroed page by page, which Adam's thousands of small
    /// steps paid again and again.
    static SPARE_WEIGHTS: RefCell<Option<(Vec<[f64; 2]>, usize)>> = const { RefCell::new(None) };
    /// The thread's gradient table by entry, all zeros between chunks.
    static GRADIENT_TABLE: RefCell<Vec<[f64; 2]>> = const { RefCell::new(Vec::new()) };
}

impl EntryWeights {
    /// From each term's (mg, eg) weights, in term order.
    pub fn new(terms: impl IntoIterator<Item = [f64; 2]>) -> EntryWeights {
        let terms: Vec<[f64; 2]> = terms.into_iter().collect();
        let (mut by_entry, dirty) = SPARE_WEIGHTS.with_borrow_mut(Option::take).unwrap_or_else(|| (vec![[0.0; 2]; ENTRY_SLOTS], 0));
        let filled = (terms.len() << 4).min(ENTRY_SLOTS);
        for (e, slot) in by_entry.iter_mut().enumerate().take(filled) {
            let (t, v) = unpack(e as u16);
            let v = f64::from(v);
            *slot = [v * terms[t][0], v * terms[t][1]];
        }
        // What a larger layout left in a reused table.
        by_entry[filled..dirty.max(filled)].fill([0.0; 2]);
        EntryWeights { by_entry, filled }
    }

    /// Term `t`'s (mg, eg) weights (zeros past the layout's terms).
    pub fn term(&self, t: usize) -> [f64; 2] {
        // A count of one.
        self.by_entry.get((t << 4) | 1).copied().unwrap_or([0.0; 2])
    }
}

impl Drop for EntryWeights {
    fn drop(&mut self) {
        let table = (std::mem::take(&mut self.by_entry), self.filled);
        // Nothing to keep while the thread is ending.
        let _ = SPARE_WEIGHTS.try_with(|spare| *spare.borrow_mut() = Some(table));
    }
}

/// Runs `f` on this thread's gradient table by entry ([`ENTRY_SLOTS`]
/// slots, all zeros), which `f` must leave all zeros. The table is kept
/// for the thread's next chunk only when `f` returns.
pub(super) fn with_gradient_table<R>(f: impl FnOnce(&mut [[f64; 2]]) -> R) -> R {
    let mut table = GRADIENT_TABLE.with_borrow_mut(std::mem::take);
    if table.len() != ENTRY_SLOTS {
        table = vec![[0.0; 2]; ENTRY_SLOTS];
    }
    let result = f(&mut table);
    GRADIENT_TABLE.with_borrow_mut(|spare| *spare = table);
    result
}

/// Each term's (mg, eg) gradient from a chunk's gradients by entry: the
/// sum over the counts an entry can hold of the count times its slot, in
/// count order. Leaves the slots zeroed for the next chunk.
pub(super) fn collect_term_gradients(by_entry: &mut [[f64; 2]], terms: usize) -> (Vec<f64>, Vec<f64>) {
    let mut grad_mg = Vec::with_capacity(terms);
    let mut grad_eg = Vec::with_capacity(terms);
    for (t, slots) in by_entry.chunks_exact_mut(1 << 4).take(terms).enumerate() {
        let mut sum = [0.0f64; 2];
        for (low, slot) in slots.iter_mut().enumerate() {
            let (_, v) = unpack(((t << 4) | low) as u16);
            let v = f64::from(v);
            sum[0] += v * slot[0];
            sum[1] += v * slot[1];
            *slot = [0.0; 2];
        }
        grad_mg.push(sum[0]);
        grad_eg.push(sum[1]);
    }
    (grad_mg, grad_eg)
}

/// The evaluation of one position's `entries` from weights by entry:
/// four sums, of the entries at each place modulo four, kept apart (four
/// short chains of additions instead of one long one: an addition waits
/// for the one before it in its chain), then added and blended by `phase`.
#[inline]
pub(super) fn paired_eval(entries: &[u16], weights: &EntryWeights, phase: u8) -> f64 {
    let weights: &[[f64; 2]; ENTRY_SLOTS] = weights.by_entry.as_slice().try_into().expect("a weight per entry");
    let mut sums = [[0.0f64; 2]; 4];
    let mut quads = entries.chunks_exact(4);
    for quad in &mut quads {
        for (sum, &e) in sums.iter_mut().zip(quad) {
            let w = weights[usize::from(e)];
            sum[0] += w[0];
            sum[1] += w[1];
        }
    }
    for (sum, &e) in sums.iter_mut().zip(quads.remainder()) {
        let w = weights[usize::from(e)];
        sum[0] += w[0];
        sum[1] += w[1];
    }
    let add = |a: [f64; 2], b: [f64; 2]| [a[0] + b[0], a[1] + b[1]];
    blend(add(sums[0], sums[1]), add(sums[2], sums[3]), phase)
}

/// `1 / 24`: a phase's share of the middlegame per phase unit. The pass
/// multiplies by it where a division by 24 took a tenth of its time.
pub(super) const PHASE_SHARE: f64 = 1.0 / 24.0;

/// `(mg · p + eg · (24 − p)) / 24` of two partial sums.
#[inline]
fn blend(a: [f64; 2], b: [f64; 2], phase: u8) -> f64 {
    let (mg, eg) = (a[0] + b[0], a[1] + b[1]);
    let p = f64::from(phase);
    (mg * p + eg * (24.0 - p)) * PHASE_SHARE
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::model::exp_neg_abs_and_sigmoid;

    #[test]
    fn the_grouped_logarithms_are_the_sum_of_the_positions_losses() {
        // Logits of every size and sign, targets of every kind, and a few
        // merged positions (weight above one), in runs that end part-way
        // through a group.
        let mut state = 0x9E37_79B9_u64;
        let mut next = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for len in [0, 1, 15, 16, 17, 1_000, 4_099] {
            let (mut grouped, mut plain) = (LossSum::default(), 0.0);
            for i in 0..len {
                let z = (next() - 0.5) * if i % 7 == 0 { 80.0 } else { 6.0 };
                let target = [0.0, 0.5, 1.0, next()][i % 4];
                let n = if i % 101 == 3 { 3.0 } else { 1.0 };
                let (e, _) = exp_neg_abs_and_sigmoid(z);
                grouped.add_softplus(z.max(0.0) - target * z, e, n);
                plain += n * (crate::fit::model::softplus(z) - target * z);
            }
            let total = grouped.total();
            assert!((total - plain).abs() <= 1e-14 * (1.0 + plain.abs()), "{len} positions: {total} against {plain}");
        }
    }
}
