//! The search: iterative deepening → aspiration windows → negamax with
//! principal variation search → quiescence.
//!
//! Single-threaded and deterministic: with depth or node limits the same
//! root, history and engine state give the same tree, move, score and node
//! count. Draws by repetition (against the game history and the search
//! path), by the 50-move rule and by insufficient material are scored
//! inside the tree; mate scores count plies from the root so that shorter
//! mates score higher.
//!
//! Selectivity: check and singular extensions (with multi-cut); reverse futility, null-move, futility and
//! late-move pruning and late-move reductions at non-PV nodes; in
//! quiescence, delta pruning and skipping captures that lose material by
//! SEE.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use shakmaty::{Move, MoveList, Position, Role};

use super::clock::Clock;
use super::eval::Evaluator;
use super::eval_cache::{EvalCache, PawnKingCache};
use super::ordering::{ContinuationHistory, History, Killers, MoveBuffers, MovePicker, PieceTo, ScoringContext, is_noisy};
use super::params::*;
use super::position::HashedPosition;
use super::pv::PvTable;
use super::see::see_at_least;
use super::tt::{Bound, PackedMove, TranspositionTable};
use super::{Score, SearchInfo, SearchResult};

/// Late-move reductions by depth and move number, precomputed.
#[derive(Clone, Debug)]
pub struct Reductions {
    table: Box<[[i32; 64]; 64]>,
}

impl Default for Reductions {
    fn default() -> Self {
        let mut table = Box::new([[0; 64]; 64]);
        for (depth, row) in table.iter_mut().enumerate().skip(1) {
            for (moves, r) in row.iter_mut().enumerate().skip(1) {
                *r = (LMR_BASE + (depth as f64).ln() * (moves as f64).ln() / LMR_DIVISOR) as i32;
            }
        }
        Reductions { table }
    }
}

impl Reductions {
    #[inline]
    fn get(&self, depth: i32, moves: usize) -> i32 {
        self.table[(depth as usize).min(63)][moves.min(63)]
    }
}

/// The engine state a search works on, borrowed for its duration.
pub(super) struct Searcher<'a> {
    pub evaluator: &'a Evaluator,
    pub eval_cache: &'a mut EvalCache,
    pub pawn_king_cache: &'a mut PawnKingCache,
    pub tt: &'a TranspositionTable,
    pub history: &'a mut History,
    pub continuation: &'a mut ContinuationHistory,
    pub killers: &'a mut Killers,
    pub buffers: &'a mut MoveBuffers,
    pub reductions: &'a Reductions,
    pub clock: &'a Clock,
    pub stop: &'a AtomicBool,
    /// Hashes of the game's positions, then of the search path; the last
    /// one is the current node's.
    pub path: Vec<u64>,
    /// The piece and destination of the move played at each ply of the
    /// current line (`None` for a null move), for continuation histories.
    pub moved: [Option<PieceTo>; MAX_PLY + 1],
    /// The static evaluation at each ply of the current line (`-INFINITY`
    /// in check), for the improving heuristic.
    pub static_evals: [i32; MAX_PLY + 1],
    /// The move a singular-extension search at each ply leaves out
    /// (`PackedMove::NONE` outside such searches).
    pub excluded: [PackedMove; MAX_PLY + 1],
    /// Index of the root's hash in `path`.
    pub root_index: usize,
    pub pv: &'a mut PvTable,
    pub nodes: u64,
    /// A helper thread of a lazy-SMP search adds its nodes here, a
    /// [`CHECK_INTERVAL`] at a time...
    pub publish_nodes: Option<&'a AtomicU64>,
    /// ...and the main thread counts them in its reports.
    pub helper_nodes: Option<&'a AtomicU64>,
    pub seldepth: usize,
    pub stopped: bool,
    /// The best root move of the current iteration, once one has been
    /// searched completely and raised alpha.
    pub root_best: Option<Move>,
    /// The only root moves to search (UCI `go searchmoves`); empty: all.
    pub searchmoves: &'a [Move],
}

/// A completed (or usefully interrupted) iteration.
struct Iteration {
    depth: u32,
    score: i32,
    pv: Vec<Move>,
}

impl Searcher<'_> {
    /// Iterative deepening from `root` until the clock or `max_depth` ends it.
    pub fn iterate(&mut self, root: &HashedPosition, max_depth: u32, on_info: &mut dyn FnMut(&SearchInfo)) -> SearchResult {
        let root_moves = self.root_moves(root);
        if root_moves.is_empty() {
            let score = if root.chess().is_check() { Score::Mate(0) } else { Score::Cp(DRAW) };
            return self.result(None, score, 0);
        }

        let mut best: Option<Iteration> = None;
        let mut stable_iterations = 0;
        for depth in 1..=max_depth.min(MAX_DEPTH) {
            if let Some(done) = &best {
                let stability = match stable_iterations {
                    0 => 150,
                    1 | 2 => 100,
                    _ => 70,
                };
                if !self.clock.may_start_iteration(stability) {
                    break;
                }
                // Under a time limit, a mate found with plenty of depth to
                // spare will not change: play it instead of using the time.
                if self.clock.is_time_limited() && done.score.abs() >= MATE_BOUND && depth > 2 * mate_plies(done.score) + 8 {
                    break;
                }
            }
            self.root_best = None;
            self.seldepth = 0;
            let previous = best.as_ref().map_or(0, |b| b.score);
            let score = self.aspiration(root, depth, previous);
            if self.stopped {
                // A root move that was searched completely and beat the
                // alternatives searched so far is better information than
                // the previous iteration's choice.
                if let (Some(m), Some(done)) = (self.root_best, best.as_mut())
                    && done.pv.first() != Some(&m)
                {
                    let line = self.pv.line(0);
                    done.pv = if line.first() == Some(&m) { line } else { vec![m] };
                }
                break;
            }
            let pv = self.pv.line(0);
            let changed = best.as_ref().is_none_or(|b| b.pv.first() != pv.first());
            stable_iterations = if changed { 0 } else { stable_iterations + 1 };
            best = Some(Iteration { depth, score, pv });
            if let Some(done) = &best {
                on_info(&self.info(done));
            }
            if self.clock.is_timed_game() && root_moves.len() == 1 {
                break;
            }
        }

        match best {
            Some(done) => {
                let score = Score::from_internal(done.score);
                let mut result = self.result(done.pv.first().copied(), score, done.depth);
                result.ponder = done.pv.get(1).copied();
                result.pv = done.pv;
                result
            }
            None => {
                // Stopped before depth 1 finished: play the move that
                // finished best, or else the best-ordered one.
                if let Some(m) = self.root_best {
                    return self.result(Some(m), Score::Cp(0), 0);
                }
                let tt_move = self.tt.probe(root.hash(), 0).map_or(PackedMove::NONE, |hit| hit.best);
                let context = ScoringContext {
                    board: root.chess().board(),
                    side: root.chess().turn(),
                    killers: self.killers,
                    history: self.history,
                    piece_values: self.evaluator.piece_values(),
                    continuation: [None; 2],
                };
                let first = MovePicker::new(self.buffers, 0, &root_moves, tt_move).next(self.buffers, &context);
                let mut result = self.result(first, Score::Cp(0), 0);
                result.pv = first.into_iter().collect();
                result
            }
        }
    }

    /// The legal moves at the root, less those `go searchmoves` leaves out.
    /// When it names no legal move at all, every move is searched (a move
    /// is better than none).
    fn root_moves(&self, root: &HashedPosition) -> MoveList {
        let mut moves = root.legal_moves();
        if moves.iter().any(|m| self.searchmoves.contains(m)) {
            moves.retain(|m| self.searchmoves.contains(m));
        }
        moves
    }

    fn result(&self, best: Option<Move>, score: Score, depth: u32) -> SearchResult {
        SearchResult {
            best,
            ponder: None,
            score,
            depth,
            seldepth: self.seldepth as u32,
            nodes: self.nodes,
            time: self.clock.elapsed(),
            pv: best.into_iter().collect(),
        }
    }

    /// This thread's nodes and, in the main thread of a lazy-SMP search,
    /// those the helpers have reported so far.
    fn all_nodes(&self) -> u64 {
        self.nodes + self.helper_nodes.map_or(0, |n| n.load(Ordering::Relaxed))
    }

    fn info(&self, done: &Iteration) -> SearchInfo {
        let time = self.clock.elapsed();
        let nodes = self.all_nodes();
        SearchInfo {
            depth: done.depth,
            seldepth: self.seldepth as u32,
            score: Score::from_internal(done.score),
            nodes,
            nps: nodes_per_second(nodes, time),
            time,
            hashfull: self.tt.hashfull(),
            pv: done.pv.clone(),
        }
    }

    /// One iteration, first with a narrow window around the previous score,
    /// widened on the failing side until the score falls inside.
    fn aspiration(&mut self, root: &HashedPosition, depth: u32, previous: i32) -> i32 {
        let depth = depth as i32;
        let mut delta = ASPIRATION_WINDOW;
        let (mut alpha, mut beta) = if depth >= ASPIRATION_MIN_DEPTH as i32 && previous.abs() < MATE_BOUND {
            ((previous - delta).max(-INFINITY), (previous + delta).min(INFINITY))
        } else {
            (-INFINITY, INFINITY)
        };
        loop {
            let score = self.negamax(root, depth, alpha, beta, 0, true);
            if self.stopped {
                return score;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
            } else {
                return score;
            }
            delta += delta;
            if delta > ASPIRATION_MAX_WINDOW {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    /// Counts a node and asks the clock whether to go on.
    #[inline]
    fn enter_node(&mut self, ply: usize) -> bool {
        if self.stopped {
            return false;
        }
        self.nodes += 1;
        if let Some(shared) = self.publish_nodes
            && self.nodes.is_multiple_of(CHECK_INTERVAL)
        {
            shared.fetch_add(CHECK_INTERVAL, Ordering::Relaxed);
        }
        self.seldepth = self.seldepth.max(ply);
        if self.clock.must_stop(self.nodes, self.stop) {
            self.stopped = true;
        }
        !self.stopped
    }

    /// Negamax alpha-beta with PVS, returning a fail-soft score for the
    /// side to move at `pos`, whose hash is the last entry of `path`.
    fn negamax(&mut self, pos: &HashedPosition, mut depth: i32, mut alpha: i32, beta: i32, ply: usize, allow_null: bool) -> i32 {
        self.pv.clear(ply);
        let chess = pos.chess();
        let in_check = chess.is_check();
        // Check extension: a check is searched one ply deeper, so that
        // forcing lines are not cut off in the middle.
        if in_check {
            depth += 1;
        }
        let root = ply == 0;
        // Draws first, so that a repetition at the horizon is not
        // evaluated as if the game went on.
        if !root && self.is_draw(pos, in_check) {
            return DRAW;
        }
        if depth <= 0 {
            return self.quiescence(pos, alpha, beta, ply);
        }
        if !self.enter_node(ply) {
            return 0;
        }
        let pv_node = beta - alpha > 1;

        if !root {
            // Mate distance pruning: no line from here can beat a mate
            // already found closer to the root.
            let mate_alpha = alpha.max(-MATE + ply as i32);
            let mate_beta = beta.min(MATE - ply as i32 - 1);
            if mate_alpha >= mate_beta {
                return mate_alpha;
            }
            if ply >= MAX_PLY - 1 {
                return self.evaluator.evaluate(chess);
            }
        }

        // A singular-extension search of this node without its table move:
        // the table's entry is about the whole node, so it neither cuts
        // this search off nor is overwritten by it.
        let excluded = self.excluded[ply];
        let hit = self.tt.probe(pos.hash(), ply);
        let tt_move = hit.map_or(PackedMove::NONE, |h| h.best);
        if let Some(hit) = hit
            && excluded.is_none()
            && !pv_node
            && hit.depth >= depth
            && match hit.bound {
                Bound::Exact => true,
                Bound::Lower => hit.score >= beta,
                Bound::Upper => hit.score <= alpha,
            }
        {
            return hit.score;
        }

        let static_eval = if in_check { -INFINITY } else { hit.map_or_else(|| self.evaluate(pos), |h| h.eval) };
        self.static_evals[ply] = static_eval;
        // Improving: the side to move stands better than at its previous
        // turn (two plies back; four when it was in check then). Pruning
        // and reductions are less aggressive where it is, more where not.
        let improving = !in_check && {
            let earlier = [2, 4].into_iter().filter_map(|back| ply.checked_sub(back)).map(|p| self.static_evals[p]).find(|&e| e != -INFINITY);
            earlier.is_none_or(|e| static_eval > e)
        };

        if !pv_node && !in_check && excluded.is_none() && beta.abs() < MATE_BOUND {
            // Reverse futility pruning: far enough above beta that a quiet
            // move will not bring the score back below it.
            if depth <= RFP_MAX_DEPTH && static_eval - RFP_MARGIN * (depth - i32::from(improving)) >= beta {
                return static_eval;
            }
            // Null-move pruning: if passing still beats beta, a real move
            // will too, except in zugzwang, which is why positions where
            // the side to move has only pawns are left out.
            if allow_null
                && depth >= NMP_MIN_DEPTH
                && static_eval >= beta
                && has_pieces(chess)
                && let Some(null) = pos.play_null()
            {
                let reduction =
                    NMP_BASE_REDUCTION + depth / NMP_DEPTH_DIVISOR + ((static_eval - beta) / NMP_EVAL_DIVISOR).min(NMP_MAX_EVAL_REDUCTION);
                self.path.push(null.hash());
                self.moved[ply] = None;
                let score = -self.negamax(&null, depth - 1 - reduction, -beta, -beta + 1, ply + 1, false);
                self.path.pop();
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    // An unproven mate is not reported from a null move.
                    return if score >= MATE_BOUND { beta } else { score };
                }
            }
        }

        let moves = if root { self.root_moves(pos) } else { pos.legal_moves() };
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { DRAW };
        }

        // Singular extension: when the table says the table move is good
        // (a lower bound from nearly this depth) and a reduced search
        // without it finds every other move clearly worse, the table move
        // is the only one that holds and is searched a ply deeper. When
        // even the alternatives beat beta, the node fails high without
        // searching the table move at all (multi-cut).
        let mut singular_extension = 0;
        if let Some(hit) = hit
            && !root
            && excluded.is_none()
            && depth >= SINGULAR_MIN_DEPTH
            && hit.depth >= depth - SINGULAR_TT_DEPTH_MARGIN
            && hit.bound != Bound::Upper
            && hit.score.abs() < MATE_BOUND
            && moves.iter().any(|&m| PackedMove::new(m) == tt_move)
        {
            let singular_beta = hit.score - SINGULAR_MARGIN * depth;
            self.excluded[ply] = tt_move;
            let score = self.negamax(pos, (depth - 1) / 2, singular_beta - 1, singular_beta, ply, false);
            self.excluded[ply] = PackedMove::NONE;
            if self.stopped {
                return 0;
            }
            if score < singular_beta {
                singular_extension = 1;
            } else if singular_beta >= beta {
                return singular_beta;
            }
        }

        let side = chess.turn();
        // The moves one and two plies back, whose continuation histories
        // score this node's quiet moves.
        let earlier = [ply.checked_sub(1).and_then(|p| self.moved[p]), ply.checked_sub(2).and_then(|p| self.moved[p])];
        let futile = !pv_node && !in_check && depth <= FUTILITY_MAX_DEPTH && static_eval + FUTILITY_BASE + FUTILITY_MARGIN * depth <= alpha;
        let lmp_limit = (LMP_BASE + (depth * depth) as usize) / if improving { 1 } else { 2 };
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        let mut searched = 0;
        let mut quiets_tried = [(PackedMove::NONE, PieceTo::default()); 64];
        let mut quiet_count = 0;

        let mut picker = MovePicker::new(self.buffers, ply, &moves, tt_move);
        loop {
            let context = ScoringContext {
                board: chess.board(),
                side,
                killers: self.killers,
                history: self.history,
                piece_values: self.evaluator.piece_values(),
                continuation: earlier.map(|e| e.map(|e| self.continuation.after(e))),
            };
            let Some(m) = picker.next(self.buffers, &context) else { break };
            let quiet = !is_noisy(m);
            let packed = PackedMove::new(m);
            if packed == excluded {
                continue;
            }
            let piece_to = PieceTo::new(side, m);
            let history_score = if quiet { context.quiet_score(m) } else { 0 };
            if !root && quiet && best_score > -MATE_BOUND {
                // Futility and late-move pruning of quiet moves at shallow
                // non-PV nodes. Once either applies, it applies to every
                // later quiet move too, so the picker drops them all.
                if futile || (!pv_node && !in_check && depth <= LMP_MAX_DEPTH && searched >= lmp_limit) {
                    picker.skip_quiets();
                    continue;
                }
            }
            // SEE pruning: at shallow depth, a move that loses more
            // material in the exchange on its square than the depth can
            // make up for is not searched (quiet moves by a margin per
            // ply, captures by a margin per ply squared).
            if !root && best_score > -MATE_BOUND && depth <= SEE_PRUNING_MAX_DEPTH && searched > 0 {
                let margin = if quiet { SEE_QUIET_MARGIN * depth } else { SEE_NOISY_MARGIN * depth * depth };
                if !see_at_least(chess.board(), side, m, -margin, self.evaluator.piece_values()) {
                    continue;
                }
            }

            let child = pos.play(m);
            self.tt.prefetch(child.hash());
            let gives_check = child.chess().is_check();
            self.path.push(child.hash());
            self.moved[ply] = Some(piece_to);
            searched += 1;
            let new_depth = depth - 1 + if packed == tt_move { singular_extension } else { 0 };
            let mut score;
            if searched == 1 {
                score = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, true);
            } else {
                let mut reduction = 0;
                if depth >= LMR_MIN_DEPTH && searched > LMR_MIN_MOVES && quiet && !in_check && !gives_check {
                    reduction = self.reductions.get(depth, searched) + i32::from(!improving);
                    if pv_node {
                        reduction -= 1;
                    }
                    if self.killers.rank(ply, packed).is_some() {
                        reduction -= 1;
                    }
                    reduction -= history_score / LMR_HISTORY_DIVISOR;
                    reduction = reduction.clamp(0, (new_depth - 1).max(0));
                }
                score = -self.negamax(&child, new_depth - reduction, -alpha - 1, -alpha, ply + 1, true);
                if score > alpha && reduction > 0 && !self.stopped {
                    score = -self.negamax(&child, new_depth, -alpha - 1, -alpha, ply + 1, true);
                }
                if score > alpha && score < beta && !self.stopped {
                    score = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, true);
                }
            }
            self.path.pop();
            if self.stopped {
                return 0;
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    self.pv.update(ply, m);
                    if root {
                        self.root_best = Some(m);
                    }
                    if score >= beta {
                        if quiet {
                            self.killers.add(ply, packed);
                            self.update_histories(side, earlier, (packed, piece_to), &quiets_tried[..quiet_count], depth);
                        }
                        break;
                    }
                }
            }
            if quiet && quiet_count < quiets_tried.len() {
                quiets_tried[quiet_count] = (packed, piece_to);
                quiet_count += 1;
            }
        }

        if !excluded.is_none() {
            // Only the table move was legal: the alternatives "fail low".
            return if best_score == -INFINITY { alpha } else { best_score };
        }
        let bound = Bound::of_search(best_score, original_alpha, alpha, beta);
        let best_packed = best_move.map_or(PackedMove::NONE, PackedMove::new);
        self.tt.store(pos.hash(), ply, best_packed, best_score, static_eval, depth, bound);
        best_score
    }

    /// Rewards the quiet move `best` that caused a cutoff at `depth` and
    /// penalises the quiet moves `tried` before it, in the side's history
    /// and in the continuation histories of the moves `earlier`.
    fn update_histories(
        &mut self,
        side: shakmaty::Color,
        earlier: [Option<PieceTo>; 2],
        best: (PackedMove, PieceTo),
        tried: &[(PackedMove, PieceTo)],
        depth: i32,
    ) {
        self.history.update(side, best.0, tried.iter().map(|t| t.0), depth);
        for e in earlier.into_iter().flatten() {
            self.continuation.update(e, best.1, tried.iter().map(|t| t.1), depth);
        }
    }

    /// The static evaluation of `pos` from the side to move's view, from
    /// the cache when it was evaluated before.
    #[inline]
    fn evaluate(&mut self, pos: &HashedPosition) -> i32 {
        if let Some(eval) = self.eval_cache.get(pos.hash()) {
            return eval;
        }
        let eval = self.evaluator.evaluate_cached(pos.chess(), self.pawn_king_cache);
        self.eval_cache.insert(pos.hash(), eval);
        eval
    }

    /// The quiescence search from `root` with a full window, and its
    /// principal variation (for choosing quiet training positions).
    pub fn quiescence_root(&mut self, root: &HashedPosition) -> (i32, Vec<Move>) {
        let score = self.quiescence(root, -INFINITY, INFINITY, 0);
        (score, self.pv.line(0))
    }

    /// Quiescence search: captures and queen promotions only (all evasions
    /// when in check), so that the evaluation is only trusted in quiet
    /// positions. The side to move may "stand pat" on the static
    /// evaluation instead of capturing.
    fn quiescence(&mut self, pos: &HashedPosition, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv.clear(ply);
        if !self.enter_node(ply) {
            return 0;
        }
        let chess = pos.chess();
        if chess.is_insufficient_material() {
            return DRAW;
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluator.evaluate(chess);
        }
        let pv_node = beta - alpha > 1;
        let in_check = chess.is_check();
        // The static evaluation comes before the table probe, although a
        // cutoff may make it unnecessary: evaluating while the slot that
        // the parent prefetched arrives hides the memory latency (a few
        // percent faster on the bench than reusing the stored evaluation).
        let static_eval = if in_check { -INFINITY } else { self.evaluate(pos) };
        let hit = self.tt.probe(pos.hash(), ply);
        if let Some(hit) = hit
            && !pv_node
            && match hit.bound {
                Bound::Exact => true,
                Bound::Lower => hit.score >= beta,
                Bound::Upper => hit.score <= alpha,
            }
        {
            return hit.score;
        }

        let stand_pat = static_eval;
        if !in_check {
            if stand_pat >= beta {
                return stand_pat;
            }
            // Delta pruning for the whole node: not even winning the
            // opponent's best piece (or promoting) would reach alpha.
            if stand_pat + self.best_possible_gain(chess) + DELTA_MARGIN <= alpha {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
        }

        let moves = pos.legal_moves();
        if in_check && moves.is_empty() {
            return -MATE + ply as i32;
        }
        let original_alpha = alpha;
        let mut best_score = stand_pat;
        let mut best_move = None;
        let tt_move = hit.map_or(PackedMove::NONE, |h| h.best);
        let mut picker = MovePicker::quiescence(self.buffers, ply, &moves, tt_move, in_check);
        loop {
            let context = ScoringContext {
                board: chess.board(),
                side: chess.turn(),
                killers: self.killers,
                history: self.history,
                piece_values: self.evaluator.piece_values(),
                continuation: [None; 2],
            };
            let Some(m) = picker.next(self.buffers, &context) else { break };
            // Delta pruning: even winning the captured piece (plus a margin
            // for positional gains) would not reach alpha.
            if !in_check && m.promotion().is_none() {
                let gain = m.capture().map_or(0, |r| self.evaluator.piece_value(r));
                if stand_pat + gain + DELTA_MARGIN <= alpha {
                    continue;
                }
            }
            // Captures that lose material in the exchange are not worth a
            // quiescence node.
            if !in_check && !see_at_least(chess.board(), chess.turn(), m, 0, self.evaluator.piece_values()) {
                continue;
            }
            let child = pos.play(m);
            self.tt.prefetch(child.hash());
            let score = -self.quiescence(&child, -beta, -alpha, ply + 1);
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }

        let bound = Bound::of_search(best_score, original_alpha, alpha, beta);
        let best_packed = best_move.map_or(PackedMove::NONE, PackedMove::new);
        let eval = if in_check { 0 } else { stand_pat };
        self.tt.store(pos.hash(), ply, best_packed, best_score, eval, 0, bound);
        best_score
    }

    /// The most a capture or promotion by the side to move can win: the
    /// opponent's most valuable piece, or a queen for a pawn when a pawn
    /// is about to promote.
    fn best_possible_gain(&self, chess: &shakmaty::Chess) -> i32 {
        let board = chess.board();
        let theirs = board.by_color(!chess.turn());
        let victim = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn]
            .into_iter()
            .find(|&role| (board.by_role(role) & theirs).any())
            .map_or(0, |role| self.evaluator.piece_value(role));
        let seventh = match chess.turn() {
            shakmaty::Color::White => shakmaty::Bitboard::from(shakmaty::Rank::Seventh),
            shakmaty::Color::Black => shakmaty::Bitboard::from(shakmaty::Rank::Second),
        };
        let promotion = if (board.by_role(Role::Pawn) & board.by_color(chess.turn()) & seventh).any() {
            self.evaluator.piece_value(Role::Queen) - self.evaluator.piece_value(Role::Pawn)
        } else {
            0
        };
        victim + promotion
    }

    /// Draw by the 50-move rule (unless this is mate), insufficient
    /// material, or repetition.
    fn is_draw(&self, pos: &HashedPosition, in_check: bool) -> bool {
        let chess = pos.chess();
        if chess.halfmoves() >= 100 {
            return !(in_check && pos.legal_moves().is_empty());
        }
        chess.is_insufficient_material() || self.is_repetition(pos.hash(), chess.halfmoves())
    }

    /// True when the current position (the last hash of `path`) repeats
    /// one after the root (the side that repeated could repeat again, so it
    /// is a draw), or occurred twice in the game before (threefold). Only
    /// positions since the last capture or pawn move can repeat.
    fn is_repetition(&self, hash: u64, halfmoves: u32) -> bool {
        let current = self.path.len() - 1;
        let earliest = current.saturating_sub(halfmoves as usize);
        let mut index = current;
        let mut earlier = 0;
        while index >= earliest + 2 {
            index -= 2;
            if self.path[index] == hash {
                if index > self.root_index {
                    return true;
                }
                earlier += 1;
                if earlier >= 2 {
                    return true;
                }
            }
        }
        false
    }
}

/// True when the side to move has a piece other than pawns and the king.
fn has_pieces(chess: &shakmaty::Chess) -> bool {
    let board = chess.board();
    let ours = board.by_color(chess.turn());
    (ours & !board.pawns() & !board.kings()).any()
}

/// Plies to the mate a mate score announces.
fn mate_plies(score: i32) -> u32 {
    (MATE - score.abs()).max(0) as u32
}

/// Nodes per second, 0 for no time.
pub(super) fn nodes_per_second(nodes: u64, time: Duration) -> u64 {
    let micros = time.as_micros();
    (u128::from(nodes) * 1_000_000).checked_div(micros).map_or(0, |nps| nps as u64)
}
