//! A hint to the processor to start loading a value's cache line before it
//! is read, for reads whose address is known well ahead: the engine's
//! transposition table, the positions of a shuffled batch.

/// Starts loading the cache line that holds `item`. Only a hint: nothing
/// is read, and targets without a prefetch instruction do nothing.
#[inline]
pub fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let address: *const T = item;
        // SAFETY: a prefetch never faults, whatever the address (this one is
        // a live reference anyway), and SSE is part of the x86-64 baseline.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}
