//! pgntune's chess engine: a conventional single-threaded alpha-beta search
//! over shakmaty positions, evaluating with a weights file.
//!
//! The evaluation ([`Evaluator`]) is `scale × Σ weight · x` over the very
//! feature code that extraction uses; the search (iterative deepening,
//! aspiration windows, PVS, quiescence, transposition table, null-move
//! pruning, late-move reductions, killer and history ordering) only decides
//! which positions to evaluate. Move generation and making are shakmaty's.
//!
//! * [`eval`]: the evaluator (with the built-in piece-square tables of
//!   [`crate::presets::pst`] when a weights file brings none);
//! * [`search`]: the search itself; [`ordering`]: move ordering; [`see`]:
//!   static exchange evaluation; [`tt`]: transposition table; [`pv`]:
//!   principal variations; [`position`]: position plus hash, the one
//!   make-move path;
//! * [`clock`]: limits and time management; [`params`]: every tunable
//!   constant;
//! * [`perft`](mod@perft) and [`bench`](mod@bench): correctness and speed checks.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use pgntune::engine::{Engine, Evaluator, Limits};
//! use pgntune::weights::Weights;
//! use shakmaty::Chess;
//!
//! let evaluator = Evaluator::new(&Weights::preset("classical").unwrap()).unwrap();
//! let mut engine = Engine::new(evaluator, 1);
//! let stop = AtomicBool::new(false);
//! let result = engine.search(&Chess::default(), &[], &Limits::depth(4), &stop, &mut |_| {});
//! assert!(result.best.is_some());
//! assert_eq!(result.depth, 4);
//! ```

pub mod bench;
pub mod clock;
pub mod eval;
pub mod eval_cache;
pub mod ordering;
pub mod params;
pub mod perft;
pub mod phase_sums;
pub mod position;
pub mod pv;
pub mod search;
pub mod see;
pub mod tt;

use std::fmt;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use shakmaty::{Chess, Move};

pub use crate::presets::pst_preset;
pub use clock::{Clock, GameClock, Limits};
pub use eval::{Evaluator, EvaluatorError, Explanation, Term};
pub use position::{HashedPosition, position_hash};

use eval_cache::{EvalCache, PawnKingCache};
use ordering::{ContinuationHistory, History, Killers, MoveBuffers};
use params::{MATE, MATE_BOUND, MAX_DEPTH};
use pv::PvTable;
use search::{Reductions, Searcher};
use tt::{PackedMove, TranspositionTable};

/// A search score from the side to move's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves; negative when the side to move is being
    /// mated, 0 when it is checkmated already.
    Mate(i32),
}

impl Score {
    /// Converts an internal search score (mate scores near ±[`MATE`]).
    pub fn from_internal(score: i32) -> Score {
        if score >= MATE_BOUND {
            Score::Mate((MATE - score + 1) / 2)
        } else if score <= -MATE_BOUND {
            Score::Mate(-((MATE + score + 1) / 2))
        } else {
            Score::Cp(score)
        }
    }
}

/// As in UCI: `cp 34`, `mate 3`, `mate -2`.
impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

/// Progress after each completed iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    /// The iteration's depth.
    pub depth: u32,
    /// The deepest ply reached, quiescence included.
    pub seldepth: u32,
    /// The iteration's score.
    pub score: Score,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Nodes per second so far.
    pub nps: u64,
    /// Time since the search started.
    pub time: Duration,
    /// Permille of the transposition table used by this search.
    pub hashfull: u32,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play; `None` when the root has no legal move.
    pub best: Option<Move>,
    /// The expected reply, when the principal variation has one.
    pub ponder: Option<Move>,
    /// The score of the last completed iteration.
    pub score: Score,
    /// The depth of the last completed iteration (0 if none completed).
    pub depth: u32,
    /// The deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent.
    pub time: Duration,
    /// The principal variation, starting with `best`.
    pub pv: Vec<Move>,
}

/// The engine: evaluator, transposition table and move-ordering memory.
#[derive(Debug)]
pub struct Engine {
    evaluator: Evaluator,
    eval_cache: EvalCache,
    pawn_king_cache: PawnKingCache,
    tt: TranspositionTable,
    history: History,
    continuation: ContinuationHistory,
    killers: Killers,
    buffers: MoveBuffers,
    reductions: Reductions,
    pv: PvTable,
}

impl Engine {
    /// An engine evaluating with `evaluator`, with a `hash_mb` megabyte
    /// transposition table.
    pub fn new(evaluator: Evaluator, hash_mb: usize) -> Engine {
        Engine {
            evaluator,
            eval_cache: EvalCache::default(),
            pawn_king_cache: PawnKingCache::default(),
            tt: TranspositionTable::new(hash_mb),
            history: History::default(),
            continuation: ContinuationHistory::default(),
            killers: Killers::default(),
            buffers: MoveBuffers::default(),
            reductions: Reductions::default(),
            pv: PvTable::default(),
        }
    }

    /// As [`Engine::new`], or the allocation's error when the table's
    /// memory cannot be had.
    pub fn try_new(evaluator: Evaluator, hash_mb: usize) -> Result<Engine, std::collections::TryReserveError> {
        let tt = TranspositionTable::try_new(hash_mb)?;
        Ok(Engine { tt, ..Engine::new(evaluator, 0) })
    }

    /// Resizes the transposition table (its contents are lost).
    pub fn set_hash(&mut self, hash_mb: usize) {
        self.tt.resize(hash_mb);
    }

    /// Evaluates with `evaluator` from now on. Stored search results were
    /// made with the old evaluation, so the game memory is cleared too.
    pub fn set_evaluator(&mut self, evaluator: Evaluator) {
        self.evaluator = evaluator;
        self.new_game();
    }

    /// The evaluator.
    pub fn evaluator(&self) -> &Evaluator {
        &self.evaluator
    }

    /// Forgets everything learnt in earlier searches (transposition table,
    /// killers, history), so that the next search is reproducible.
    pub fn new_game(&mut self) {
        self.tt.clear();
        self.eval_cache.clear();
        self.pawn_king_cache.clear();
        self.history.clear();
        self.continuation.clear();
        self.killers.clear();
    }

    /// Searches `root` within `limits` until done or `stop` is raised, and
    /// returns the best move found. `history` holds the Zobrist hashes
    /// ([`position_hash`]) of the positions before `root` in the game,
    /// oldest first, for repetition detection. `on_info` hears about every
    /// completed iteration.
    ///
    /// With only depth and node limits the search is deterministic: the
    /// same root, history and engine state give the same result.
    ///
    /// The search recurses once per ply, up to [`params::MAX_PLY`] plies,
    /// with a few KB of stack per ply in release builds (far more in debug
    /// builds): threads that search should have a few MB of stack (the UCI
    /// front end gives its search thread 64 MB).
    pub fn search(
        &mut self,
        root: &Chess,
        history: &[u64],
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let clock = Clock::start(limits);
        self.tt.new_search();
        self.killers.clear();
        let root = HashedPosition::new(root.clone());
        let mut path = Vec::with_capacity(history.len() + params::MAX_PLY + 1);
        path.extend_from_slice(history);
        path.push(root.hash());
        let max_depth = if limits.infinite { MAX_DEPTH } else { limits.depth.unwrap_or(MAX_DEPTH) };
        let mut searcher = Searcher {
            evaluator: &self.evaluator,
            eval_cache: &mut self.eval_cache,
            pawn_king_cache: &mut self.pawn_king_cache,
            tt: &mut self.tt,
            history: &mut self.history,
            continuation: &mut self.continuation,
            killers: &mut self.killers,
            buffers: &mut self.buffers,
            reductions: &self.reductions,
            clock: &clock,
            stop,
            root_index: path.len() - 1,
            path,
            moved: [None; params::MAX_PLY + 1],
            static_evals: [params::INFINITY; params::MAX_PLY + 1],
            excluded: [PackedMove::NONE; params::MAX_PLY + 1],
            pv: &mut self.pv,
            nodes: 0,
            seldepth: 0,
            stopped: false,
            root_best: None,
            searchmoves: &limits.searchmoves,
        };
        searcher.iterate(&root, max_depth.max(1), on_info)
    }

    /// The end of the quiescence search's principal variation from `pos`:
    /// the quiet position the evaluation is really about, with the
    /// quiescence score (side to move's view) and the moves leading there.
    /// `None` when `pos` is in check or the score is a mate.
    ///
    /// The transposition table is cleared first, so the answer depends on
    /// `pos` alone (extraction's output must not depend on which positions
    /// a worker thread happened to search before).
    pub fn quiescence_leaf(&mut self, pos: &Chess) -> Option<(Chess, i32, Vec<Move>)> {
        use shakmaty::Position;
        if pos.is_check() {
            return None;
        }
        self.tt.clear();
        let clock = Clock::start(&Limits::default());
        let stop = AtomicBool::new(false);
        let root = HashedPosition::new(pos.clone());
        let mut searcher = Searcher {
            evaluator: &self.evaluator,
            eval_cache: &mut self.eval_cache,
            pawn_king_cache: &mut self.pawn_king_cache,
            tt: &mut self.tt,
            history: &mut self.history,
            continuation: &mut self.continuation,
            killers: &mut self.killers,
            buffers: &mut self.buffers,
            reductions: &self.reductions,
            clock: &clock,
            stop: &stop,
            root_index: 0,
            path: vec![root.hash()],
            moved: [None; params::MAX_PLY + 1],
            static_evals: [params::INFINITY; params::MAX_PLY + 1],
            excluded: [PackedMove::NONE; params::MAX_PLY + 1],
            pv: &mut self.pv,
            nodes: 0,
            seldepth: 0,
            stopped: false,
            root_best: None,
            searchmoves: &[],
        };
        let (score, line) = searcher.quiescence_root(&root);
        if score.abs() >= params::MATE_BOUND {
            return None;
        }
        let mut leaf = pos.clone();
        for &m in &line {
            leaf.play_unchecked(m);
        }
        Some((leaf, score, line))
    }
}

#[cfg(test)]
mod tests;
