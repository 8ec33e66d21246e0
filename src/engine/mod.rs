//! pgntune's chess engine: a conventional alpha-beta search over shakmaty
//! positions, evaluating with a weights file; one thread by default, more
//! with lazy SMP ([`Engine::set_threads`]).
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
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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

impl SearchResult {
    /// The result with the helper threads' nodes counted in.
    fn with_helper_nodes(mut self, nodes: u64) -> SearchResult {
        self.nodes += nodes;
        self
    }
}

/// The engine: evaluator, transposition table and move-ordering memory.
#[derive(Debug)]
pub struct Engine {
    evaluator: Evaluator,
    tt: TranspositionTable,
    reductions: Reductions,
    /// The memory of the thread that reports and decides the move.
    main: ThreadMemory,
    /// One per helper thread of a lazy-SMP search (`Threads` − 1); empty by
    /// default, and then the search is the deterministic one-thread search.
    helpers: Vec<ThreadMemory>,
}

/// What each search thread keeps to itself from one search to the next;
/// only the transposition table is shared.
#[derive(Debug, Default)]
struct ThreadMemory {
    eval_cache: EvalCache,
    pawn_king_cache: PawnKingCache,
    history: History,
    continuation: ContinuationHistory,
    killers: Killers,
    buffers: MoveBuffers,
    pv: PvTable,
}

impl ThreadMemory {
    fn clear(&mut self) {
        self.eval_cache.clear();
        self.pawn_king_cache.clear();
        self.history.clear();
        self.continuation.clear();
        self.killers.clear();
    }
}

/// The most search threads [`Engine::set_threads`] accepts.
pub const MAX_THREADS: usize = 64;

/// The stack a searching thread needs (the UCI front end's search thread
/// and every helper): the search recurses once per ply (see
/// [`Engine::search`]); the memory is only reserved, not touched.
pub const SEARCH_STACK_BYTES: usize = 64 << 20;

/// Raises the helpers' stop flag when dropped: at the end of the main
/// thread's search, and also when it unwinds from a panic, which would
/// otherwise leave the scope waiting for helpers that never stop.
struct StopHelpers<'a>(&'a AtomicBool);

impl Drop for StopHelpers<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The borrowed state one thread's [`Searcher`] works with.
struct Shared<'a> {
    evaluator: &'a Evaluator,
    tt: &'a TranspositionTable,
    reductions: &'a Reductions,
}

impl<'a> Shared<'a> {
    fn searcher(
        &self,
        memory: &'a mut ThreadMemory,
        clock: &'a Clock,
        stop: &'a AtomicBool,
        path: Vec<u64>,
        searchmoves: &'a [Move],
    ) -> Searcher<'a> {
        Searcher {
            evaluator: self.evaluator,
            eval_cache: &mut memory.eval_cache,
            pawn_king_cache: &mut memory.pawn_king_cache,
            tt: self.tt,
            history: &mut memory.history,
            continuation: &mut memory.continuation,
            killers: &mut memory.killers,
            buffers: &mut memory.buffers,
            reductions: self.reductions,
            clock,
            stop,
            root_index: path.len() - 1,
            path,
            moved: [None; params::MAX_PLY + 1],
            static_evals: [params::INFINITY; params::MAX_PLY + 1],
            excluded: [PackedMove::NONE; params::MAX_PLY + 1],
            pv: &mut memory.pv,
            nodes: 0,
            publish_nodes: None,
            helper_nodes: None,
            seldepth: 0,
            stopped: false,
            root_best: None,
            searchmoves,
        }
    }
}

impl Engine {
    /// An engine evaluating with `evaluator`, with a `hash_mb` megabyte
    /// transposition table, searching on one thread.
    pub fn new(evaluator: Evaluator, hash_mb: usize) -> Engine {
        Engine {
            evaluator,
            tt: TranspositionTable::new(hash_mb),
            reductions: Reductions::default(),
            main: ThreadMemory::default(),
            helpers: Vec::new(),
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

    /// Searches with `threads` threads (clamped to 1..=[`MAX_THREADS`])
    /// from now on: lazy SMP, every thread searching the same root and
    /// sharing the transposition table, the first one deciding. More than
    /// one thread makes searches depend on the threads' timing, so matches
    /// and extraction keep to one.
    pub fn set_threads(&mut self, threads: usize) {
        self.helpers.resize_with(threads.clamp(1, MAX_THREADS) - 1, ThreadMemory::default);
    }

    /// The number of search threads.
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
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
        self.main.clear();
        self.helpers.iter_mut().for_each(ThreadMemory::clear);
    }

    /// Searches `root` within `limits` until done or `stop` is raised, and
    /// returns the best move found. `history` holds the Zobrist hashes
    /// ([`position_hash`]) of the positions before `root` in the game,
    /// oldest first, for repetition detection. `on_info` hears about every
    /// completed iteration.
    ///
    /// With only depth and node limits and one thread the search is
    /// deterministic: the same root, history and engine state give the
    /// same result. With more threads ([`Engine::set_threads`]) the
    /// helpers search until the first thread finishes; the limits, the
    /// reports and the move are the first thread's, the node counts all
    /// threads'.
    ///
    /// The search recurses once per ply, up to [`params::MAX_PLY`] plies,
    /// with a few KB of stack per ply in release builds (far more in debug
    /// builds): threads that search should have a few MB of stack (the UCI
    /// front end gives its search thread 64 MB; helpers get as much).
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
        self.main.killers.clear();
        let root = HashedPosition::new(root.clone());
        let mut path = Vec::with_capacity(history.len() + params::MAX_PLY + 1);
        path.extend_from_slice(history);
        path.push(root.hash());
        let max_depth = if limits.infinite { MAX_DEPTH } else { limits.depth.unwrap_or(MAX_DEPTH) }.max(1);
        let shared = Shared { evaluator: &self.evaluator, tt: &self.tt, reductions: &self.reductions };
        if self.helpers.is_empty() {
            return shared.searcher(&mut self.main, &clock, stop, path, &limits.searchmoves).iterate(&root, max_depth, on_info);
        }

        // Lazy SMP: the helpers search the same root with no limit of
        // their own until the first thread is done; what they find reaches
        // it through the table.
        let helpers_stop = AtomicBool::new(false);
        let helper_nodes = AtomicU64::new(0);
        let unlimited = Clock::start(&Limits::default());
        std::thread::scope(|scope| {
            let _stop_helpers = StopHelpers(&helpers_stop);
            for memory in &mut self.helpers {
                memory.killers.clear();
                let (shared, root, path) = (&shared, &root, path.clone());
                let (unlimited, helpers_stop, helper_nodes) = (&unlimited, &helpers_stop, &helper_nodes);
                let helper = move || {
                    let mut searcher = shared.searcher(memory, unlimited, helpers_stop, path, &limits.searchmoves);
                    searcher.publish_nodes = Some(helper_nodes);
                    searcher.iterate(root, MAX_DEPTH, &mut |_| {});
                    helper_nodes.fetch_add(searcher.nodes % params::CHECK_INTERVAL, Ordering::Relaxed);
                };
                // A thread the system refuses is a helper fewer, not an error.
                if std::thread::Builder::new().stack_size(SEARCH_STACK_BYTES).spawn_scoped(scope, helper).is_err() {
                    break;
                }
            }
            let mut searcher = shared.searcher(&mut self.main, &clock, stop, path, &limits.searchmoves);
            searcher.helper_nodes = Some(&helper_nodes);
            searcher.iterate(&root, max_depth, on_info)
        })
        .with_helper_nodes(helper_nodes.into_inner())
    }

    /// The end of the quiescence search's principal variation from `pos`:
    /// the quiet position the evaluation is really about, with the
    /// quiescence score (side to move's view) and the moves leading there.
    /// `None` when `pos` is in check or the score is a mate.
    ///
    /// The transposition table is cleared first, so the answer depends on
    /// `pos` alone (extraction's output must not depend on which positions
    /// a worker thread happened to search before). One thread, whatever
    /// [`Engine::set_threads`] says.
    pub fn quiescence_leaf(&mut self, pos: &Chess) -> Option<(Chess, i32, Vec<Move>)> {
        use shakmaty::Position;
        if pos.is_check() {
            return None;
        }
        self.tt.clear();
        let clock = Clock::start(&Limits::default());
        let stop = AtomicBool::new(false);
        let root = HashedPosition::new(pos.clone());
        let shared = Shared { evaluator: &self.evaluator, tt: &self.tt, reductions: &self.reductions };
        let mut searcher = shared.searcher(&mut self.main, &clock, &stop, vec![root.hash()], &[]);
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
