//! Numbers as the text formats write them (CSV, TSV, `.ijv`, LIBSVM,
//! Octave), fast.
//!
//! A design matrix holds few distinct values: a tapered term is a small
//! count times `phase / 24` or `(24 - phase) / 24`. Turning a float into
//! its shortest text was a third of writing a whole evaluation's triplets,
//! so the text of the values met lately is kept in a small table (a
//! direct-mapped cache keyed by the value's bits): the same bytes, found
//! instead of computed again.

/// Entries in the cache: far more than the distinct values of a layout's
/// design values, few enough to stay in the first-level cache.
const SLOTS: usize = 256;

/// The longest text a cached value can have: the shortest round-trip form
/// of any `f64` (17 digits, sign, point, exponent) is shorter.
const LONGEST: usize = 30;

/// One remembered value: its bits, the length of its text, the text.
#[derive(Copy, Clone)]
struct Slot {
    bits: u64,
    len: u8,
    text: [u8; LONGEST],
}

/// Writes numbers as text; reuse one for many rows.
pub(crate) struct NumberText {
    integers: itoa::Buffer,
    slots: Box<[Slot; SLOTS]>,
}

impl NumberText {
    pub(crate) fn new() -> NumberText {
        // `len == 0` marks an empty slot: no value's text is empty.
        NumberText { integers: itoa::Buffer::new(), slots: Box::new([Slot { bits: 0, len: 0, text: [0; LONGEST] }; SLOTS]) }
    }

    /// The decimal text of a whole number.
    #[inline]
    pub(crate) fn int<I: itoa::Integer>(&mut self, value: I) -> &str {
        self.integers.format(value)
    }

    /// Appends a value: whole numbers without a decimal point (as the
    /// integer matrices of material layouts always were), others in the
    /// shortest form that reads back to the same `f64`, with an exponent
    /// when it is very large or very small (`1e308`, not 309 digits).
    #[inline]
    pub(crate) fn push(&mut self, out: &mut Vec<u8>, value: f64) {
        if value.fract() == 0.0 && value.abs() < 1e15 {
            out.extend_from_slice(self.integers.format(value as i64).as_bytes());
            return;
        }
        let bits = value.to_bits();
        // Fibonacci hashing: the high bits of the product mix all of them.
        let slot = &mut self.slots[(bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize % SLOTS];
        if slot.len == 0 || slot.bits != bits {
            let mut text = &mut slot.text[..];
            if write_shortest(&mut text, value).is_err() {
                // Longer than any shortest form can be; written out, not cached.
                slot.len = 0;
                let _ = write_shortest(out, value);
                return;
            }
            let len = LONGEST - text.len();
            slot.bits = bits;
            slot.len = len as u8;
        }
        out.extend_from_slice(&slot.text[..usize::from(slot.len)]);
    }
}

/// `value` as messages show it: the text formats' form (`1e300`, not 301
/// digits).
pub(crate) fn shown(value: f64) -> String {
    let mut out = Vec::new();
    let _ = write_shortest(&mut out, value);
    String::from_utf8(out).unwrap_or_default()
}

/// The shortest text that reads back as `value`, with an exponent when the
/// plain form would be long (below 1e-5, or 1e15 and more).
fn write_shortest(out: &mut impl std::io::Write, value: f64) -> std::io::Result<()> {
    if (1e-5..1e15).contains(&value.abs()) { write!(out, "{value}") } else { write!(out, "{value:e}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(numbers: &mut NumberText, value: f64) -> String {
        let mut out = Vec::new();
        numbers.push(&mut out, value);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn values_read_back_the_same_cached_or_not() {
        let mut numbers = NumberText::new();
        let mut values = vec![0.0, -0.0, 1.0, -3.0, 0.5, 1e308, -1e308, 5e-324, 1e-5, 9.9e-6, 1e15, 123456789012345.6, f64::MAX, f64::MIN_POSITIVE];
        for count in -16..=16 {
            for phase in 0..=24 {
                values.push(f64::from(count) * f64::from(phase) / 24.0);
                values.push(f64::from(count) * f64::from(24 - phase) / 24.0);
            }
        }
        // Twice: the second pass reads the cache (and the first evicts).
        for _ in 0..2 {
            for &v in &values {
                let t = text(&mut numbers, v);
                assert_eq!(t.parse::<f64>().unwrap(), v, "{t}");
                assert!(t.len() <= 24, "{t}");
            }
        }
        assert_eq!(text(&mut numbers, 0.4583333333333333), "0.4583333333333333");
        assert_eq!(text(&mut numbers, 1e308), "1e308");
        assert_eq!(text(&mut numbers, -2.0), "-2");
        assert_eq!(text(&mut numbers, 2.5e-7), "2.5e-7");
        assert_eq!(numbers.int(42u64), "42");
        assert_eq!((shown(1e300), shown(-2.5), shown(0.25)), ("1e300".to_string(), "-2.5".to_string(), "0.25".to_string()));
    }

    #[test]
    fn two_values_in_one_slot_each_keep_their_text() {
        let mut numbers = NumberText::new();
        // Many distinct values: collisions are certain, answers still right.
        for i in 1..5000 {
            let v = f64::from(i) / 7.0;
            assert_eq!(text(&mut numbers, v).parse::<f64>().unwrap(), v);
        }
    }
}
