//! Every tunable constant of the search and the time manager, in one place.
//!
//! Scores are centipawns, depths plies. The values are conventional starting
//! points for an engine of this kind (a material + PST evaluation, no SEE),
//! not the result of a tuning run.

use std::time::Duration;

/// The deepest ply the search reaches (arrays per ply have this length).
pub const MAX_PLY: usize = 128;

/// The deepest iteration iterative deepening starts.
pub const MAX_DEPTH: u32 = 100;
/// The most nodes a search may be given (`--nodes`, `nodes=`): hours per
/// move at the engine's speed. More is a typo, and would search on for
/// days or, near `u64::MAX`, without end.
pub const MAX_NODES: u64 = 10_000_000_000;

// ---- Scores -------------------------------------------------------------

/// Larger than any score.
pub const INFINITY: i32 = 32_000;
/// The score of delivering mate now; mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 31_000;
/// Scores beyond ±this are mate scores.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// The score of a draw (repetition, 50 moves, stalemate, dead position).
pub const DRAW: i32 = 0;

// ---- Aspiration windows -------------------------------------------------

/// The first iteration searched with an aspiration window.
pub const ASPIRATION_MIN_DEPTH: u32 = 5;
/// Half-width of the first window around the previous score.
pub const ASPIRATION_WINDOW: i32 = 25;
/// Beyond this half-width the window is opened fully.
pub const ASPIRATION_MAX_WINDOW: i32 = 700;

// ---- Pruning and reductions ---------------------------------------------

/// Reverse futility pruning applies up to this depth...
pub const RFP_MAX_DEPTH: i32 = 7;
/// ...when the static evaluation beats beta by this margin per ply.
pub const RFP_MARGIN: i32 = 75;

/// Null-move pruning needs at least this depth.
pub const NMP_MIN_DEPTH: i32 = 3;
/// Base reduction of the null-move search.
pub const NMP_BASE_REDUCTION: i32 = 3;
/// One more ply of reduction per this many plies of depth.
pub const NMP_DEPTH_DIVISOR: i32 = 4;
/// One more ply of reduction per this many centipawns the static
/// evaluation exceeds beta by (at most [`NMP_MAX_EVAL_REDUCTION`]).
pub const NMP_EVAL_DIVISOR: i32 = 200;
/// Cap of the evaluation-based extra reduction.
pub const NMP_MAX_EVAL_REDUCTION: i32 = 3;

/// Late-move reductions start at this depth...
pub const LMR_MIN_DEPTH: i32 = 3;
/// ...after this many moves have been searched at the node.
pub const LMR_MIN_MOVES: usize = 3;
/// `reduction = LMR_BASE + ln(depth) · ln(moves) / LMR_DIVISOR`.
pub const LMR_BASE: f64 = 0.75;
/// See [`LMR_BASE`].
pub const LMR_DIVISOR: f64 = 2.25;

/// One ply less of reduction per this much history score (a quiet move's
/// own history and its two continuation histories together, each within
/// ±[`HISTORY_MAX`]), one more per this much below zero.
pub const LMR_HISTORY_DIVISOR: i32 = 3 * HISTORY_MAX / 4;

/// Late-move pruning: at depth `d` (up to this), quiet moves after the
/// first `LMP_BASE + d²` are skipped at non-PV nodes.
pub const LMP_MAX_DEPTH: i32 = 4;
/// See [`LMP_MAX_DEPTH`].
pub const LMP_BASE: usize = 3;

/// Futility pruning of quiet moves up to this depth...
pub const FUTILITY_MAX_DEPTH: i32 = 6;
/// ...when the static evaluation plus `FUTILITY_BASE + FUTILITY_MARGIN · d`
/// cannot reach alpha.
pub const FUTILITY_BASE: i32 = 100;
/// See [`FUTILITY_BASE`].
pub const FUTILITY_MARGIN: i32 = 80;

/// SEE pruning in the main search applies up to this depth: a quiet move
/// that loses more than `SEE_QUIET_MARGIN · d` in the exchange on its
/// square, or a capture that loses more than `SEE_NOISY_MARGIN · d²`, is
/// skipped.
pub const SEE_PRUNING_MAX_DEPTH: i32 = 8;
/// See [`SEE_PRUNING_MAX_DEPTH`].
pub const SEE_QUIET_MARGIN: i32 = 60;
/// See [`SEE_PRUNING_MAX_DEPTH`].
pub const SEE_NOISY_MARGIN: i32 = 20;

/// Singular extensions need at least this depth...
pub const SINGULAR_MIN_DEPTH: i32 = 6;
/// ...and a table entry searched at most this many plies shallower.
pub const SINGULAR_TT_DEPTH_MARGIN: i32 = 3;
/// The table move is singular when every other move fails low against
/// its score less this many centipawns per ply of depth.
pub const SINGULAR_MARGIN: i32 = 2;

/// Quiescence delta pruning: a capture is skipped when even winning the
/// captured piece plus this margin cannot lift the score to alpha.
pub const DELTA_MARGIN: i32 = 200;

// ---- Move ordering ------------------------------------------------------

/// History scores stay within ±this (bonuses decay towards it).
pub const HISTORY_MAX: i32 = 16_384;
/// The history bonus at depth `d` is `min(HISTORY_BONUS_SCALE · d², HISTORY_BONUS_MAX)`.
pub const HISTORY_BONUS_SCALE: i32 = 16;
/// See [`HISTORY_BONUS_SCALE`].
pub const HISTORY_BONUS_MAX: i32 = 1_600;

// ---- Time management ----------------------------------------------------

/// Time kept back from every move for process and protocol latency.
pub const MOVE_OVERHEAD: Duration = Duration::from_millis(30);
/// Moves to plan for when the time control gives no `movestogo`.
pub const DEFAULT_MOVES_TO_GO: u32 = 30;
/// The share of the increment planned into every move, in percent.
pub const INCREMENT_PERCENT: u32 = 75;
/// The hard limit is this many times the planned time per move...
pub const HARD_LIMIT_FACTOR: u32 = 4;
/// ...but never more than this percentage of the time left.
pub const HARD_LIMIT_MAX_PERCENT: u32 = 40;
/// No new iteration starts after this percentage of the planned time
/// (a new iteration usually takes longer than all earlier ones together).
pub const SOFT_LIMIT_PERCENT: u32 = 60;
/// The time and the stop flag are checked every this many nodes.
pub const CHECK_INTERVAL: u64 = 1024;
