//! The fixed-point sums an evaluation folds its terms into, one per phase
//! block. Their own file because both the evaluator and the pawn-king
//! cache (which stores partial sums) use them, and neither should depend
//! on the other for it.

/// Fixed-point sums of `count × weight` over some terms, per phase block.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PhaseSums {
    /// Σ count × middlegame weight.
    pub mg: i64,
    /// Σ count × endgame weight.
    pub eg: i64,
}

impl PhaseSums {
    /// Adds `count` of a term with (middlegame, endgame) weights `weights`.
    #[inline]
    pub(super) fn add(&mut self, [mg, eg]: [i32; 2], count: i32) {
        self.mg += i64::from(mg) * i64::from(count);
        self.eg += i64::from(eg) * i64::from(count);
    }
}
