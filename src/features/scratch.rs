//! Gathering a position's terms into a sorted sparse row: what extraction
//! does for every quiet position, so its cost is most of extraction's.

use shakmaty::Bitboard;

use super::{Context, FeatureLayout, FeatureSet, Pst, TermValue};

/// Reusable scratch space for collecting a position's terms.
#[derive(Clone, Debug, Default)]
pub struct TermScratch {
    /// Each term's sum so far, zero for every term between positions. A
    /// sum never leaves `i16`: a term counts pieces, squares or pawns, at
    /// most a few dozen per position.
    values: Vec<i16>,
}

impl TermScratch {
    /// Collects the non-zero terms of `ctx`'s position into `out`, sorted
    /// by term with repeats added up (terms that cancel out are left out).
    pub fn collect(&mut self, layout: &FeatureLayout, ctx: &Context, out: &mut Vec<TermValue>) {
        let terms = layout.term_count();
        // Whole blocks of 64 sums, for the drain.
        let padded = terms.div_ceil(64) * 64;
        if self.values.len() < padded {
            self.values.resize(padded, 0);
        }
        // A slice rather than the vector: the closure is inlined at every
        // emit of every set, and through a slice the bounds stay in
        // registers instead of being reloaded after each store.
        let values = &mut self.values[..padded];
        out.clear();
        // The first term not yet drained into `out`.
        let mut drained = 0;
        // The sets in layout order, which is term order: each set's terms
        // come after those of the sets before it.
        for placed in &layout.sets {
            let offset = placed.term_offset;
            if placed.set == FeatureSet::Pst {
                // The table comes as sorted bits with values ±1 (see
                // `Pst::visit_roles`): the terms before it are drained, and
                // its own go straight out, a third of a row's terms that
                // then never pass through `values`.
                drain(values, drained..offset, out);
                drained = offset + placed.set.term_count();
                Pst::visit_roles(ctx, |r, plus, minus| {
                    let first = offset + r * 64;
                    // `extend` from the squares, whose number is known,
                    // reserves once instead of checking the room per term.
                    out.extend(Bitboard(plus | minus).into_iter().map(|square| {
                        let value = if plus & (1 << square as u32) != 0 { 1 } else { -1 };
                        TermValue { term: (first + square as usize) as u16, value }
                    }));
                });
            } else {
                // No test of `v` here: a zero adds nothing and the drain skips it.
                placed.set.visit(ctx, |t, v| {
                    let t = offset + t;
                    values[t] = values[t].wrapping_add(v as i16);
                });
            }
        }
        drain(values, drained..terms, out);
    }
}

/// Appends the non-zero sums of `values[range]` to `out` in term order,
/// and zeroes them. Every sum outside the range is zero at this point.
///
/// The sets' terms are found by scanning their sums rather than by
/// remembering which were touched: a set bit per emitted term was a
/// read-modify-write on a few shared words, a chain of store-to-load
/// forwards through every set, and it cost more than this scan, whose
/// test for zero runs on sixteen sums at a time ([`non_zero`]).
#[inline]
fn drain(values: &mut [i16], range: std::ops::Range<usize>, out: &mut Vec<TermValue>) {
    // Whole blocks of 64, aligned: the sums around the range are zero.
    let first = range.start / 64 * 64;
    let last = range.end.div_ceil(64) * 64;
    for (c, block) in values[first..last].chunks_exact_mut(64).enumerate() {
        let mut bits = 0u64;
        for (k, sixteen) in block.chunks_exact(16).enumerate() {
            bits |= u64::from(non_zero(sixteen.try_into().expect("16 sums"))) << (16 * k);
        }
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            out.push(TermValue { term: (first + c * 64 + i) as u16, value: std::mem::take(&mut block[i]) });
        }
    }
}

/// Bit `i` set where `sums[i]` is not zero: two vector compares, a pack
/// and a move of the byte mask (the compiler does not find this for the
/// plain loop below).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
fn non_zero(sums: &[i16; 16]) -> u16 {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi16, _mm_loadu_si128, _mm_movemask_epi8, _mm_packs_epi16, _mm_setzero_si128};
    let at = sums.as_ptr().cast::<__m128i>();
    // SAFETY: SSE2 is enabled (the `cfg` above; every x86-64 has it), and
    // the two unaligned 16-byte loads read exactly the 32 bytes of `sums`.
    let equal = unsafe {
        let zero = _mm_setzero_si128();
        let (low, high) = (_mm_cmpeq_epi16(_mm_loadu_si128(at), zero), _mm_cmpeq_epi16(_mm_loadu_si128(at.add(1)), zero));
        _mm_movemask_epi8(_mm_packs_epi16(low, high))
    };
    !(equal as u16)
}

/// Bit `i` set where `sums[i]` is not zero.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline]
fn non_zero(sums: &[i16; 16]) -> u16 {
    non_zero_plain(sums)
}

/// [`non_zero`] as a plain loop: the version for other machines, and what
/// the vector version is tested against.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn non_zero_plain(sums: &[i16; 16]) -> u16 {
    let mut bits = 0u16;
    for (i, &v) in sums.iter().enumerate() {
        bits |= u16::from(v != 0) << i;
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vector_test_for_zero_agrees_with_the_plain_loop() {
        let mut sums = [0i16; 16];
        assert_eq!(non_zero(&sums), 0);
        // Every single non-zero place, with extreme values, then mixtures.
        for i in 0..16 {
            for v in [1, -1, i16::MAX, i16::MIN, 256] {
                sums = [0; 16];
                sums[i] = v;
                assert_eq!(non_zero(&sums), 1 << i, "{i} {v}");
            }
        }
        let mut state = 0x9E37_79B9_u32;
        for _ in 0..1000 {
            for s in &mut sums {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                *s = if state >> 31 == 0 { 0 } else { (state >> 8) as i16 };
            }
            assert_eq!(non_zero(&sums), non_zero_plain(&sums), "{sums:?}");
        }
    }
}
