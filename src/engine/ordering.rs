//! Move ordering: which move to try next.
//!
//! shakmaty generates all legal moves at once, so the stages of a
//! conventional staged generator become: the transposition table's move,
//! handed out before anything else is scored (it often refutes at once),
//! then score bands over the other moves, picked lazily, best first (a
//! selection sort that only pays for the moves actually tried before a
//! cutoff):
//!
//! 1. the transposition table's move;
//! 2. captures and queen promotions that do not lose material in the
//!    exchange (by SEE), most valuable victim first, least valuable
//!    attacker next (MVV-LVA);
//! 3. the two killer moves of the ply (quiet moves that caused a cutoff in
//!    a sibling node);
//! 4. the other quiet moves by their history scores: how often the move
//!    caused cutoffs anywhere in the tree (by side, from and to), and how
//!    often it did as the answer to the last move and as the follow-up to
//!    the move before that (by piece and square of both: continuation
//!    history), with decay;
//! 5. under-promotions, then captures that lose material.

use shakmaty::{Board, Color, Move, MoveList, Role};

use super::params::{HISTORY_BONUS_MAX, HISTORY_BONUS_SCALE, HISTORY_MAX, MAX_PLY};
use super::see::see_at_least;
use super::tt::PackedMove;

/// More than the legal moves of any chess position (at most 218).
pub const MAX_MOVES: usize = 256;

const NOISY_SCORE: i32 = 2_000_000;
const KILLER_SCORES: [i32; 2] = [1_000_001, 1_000_000];
const UNDER_PROMOTION_SCORE: i32 = -1_000_000;
const LOSING_CAPTURE_SCORE: i32 = -2_000_000;

/// True for moves that change material: captures (en passant included)
/// and promotions. Everything else is "quiet" to the search.
#[inline]
pub fn is_noisy(m: Move) -> bool {
    m.is_capture() || m.is_promotion()
}

/// The MVV-LVA score of a capture or promotion: victims by value first,
/// then the cheaper attacker; a queen promotion counts like winning a queen.
#[inline]
pub fn mvv_lva(m: Move) -> i32 {
    let victim = m.capture().map_or(0, |r| r as i32);
    let promotion = if m.promotion() == Some(Role::Queen) { Role::Queen as i32 } else { 0 };
    (victim + promotion) * 8 - m.role() as i32
}

/// Quiet-move history: a score per (side, from, to) that grows when the
/// move causes a beta cutoff and shrinks when it was tried without one.
#[derive(Clone, Debug)]
pub struct History {
    table: Box<[[[i32; 64]; 64]; 2]>,
}

impl Default for History {
    fn default() -> Self {
        History { table: Box::new([[[0; 64]; 64]; 2]) }
    }
}

impl History {
    /// Forgets everything.
    pub fn clear(&mut self) {
        *self.table = [[[0; 64]; 64]; 2];
    }

    /// The score of `m` for `side`.
    #[inline]
    pub fn score(&self, side: Color, m: PackedMove) -> i32 {
        let (from, to) = m.squares();
        self.table[side as usize][from][to]
    }

    /// Rewards `best`, which caused a cutoff at `depth`, and penalises the
    /// quiet moves tried before it. The update pulls scores towards
    /// ±[`HISTORY_MAX`] ("gravity"), so they stay bounded without resets.
    pub fn update(&mut self, side: Color, best: PackedMove, tried: impl IntoIterator<Item = PackedMove>, depth: i32) {
        let bonus = history_bonus(depth);
        self.add(side, best, bonus);
        for m in tried {
            self.add(side, m, -bonus);
        }
    }

    fn add(&mut self, side: Color, m: PackedMove, bonus: i32) {
        let (from, to) = m.squares();
        let entry = &mut self.table[side as usize][from][to];
        *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
    }
}

/// A moved piece and its destination, `piece × 64 + to` with the piece
/// numbered `color × 6 + role − 1`: the key of continuation histories.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PieceTo(u16);

impl PieceTo {
    /// The key of `m` played by `side`.
    #[inline]
    pub fn new(side: Color, m: Move) -> PieceTo {
        let piece = side as u16 * 6 + m.role() as u16 - 1;
        PieceTo(piece * 64 + m.to() as u16)
    }

    #[inline]
    fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// The scores of every (piece, to) as the answer to one earlier move.
pub type PieceToHistory = [i16; 12 * 64];

/// Continuation history: a score per (earlier piece and square, piece and
/// square) that grows when a quiet move causes a cutoff after that earlier
/// move and shrinks when it was tried without one. The search asks it for
/// the move one ply back (the opponent's last move: counter-move history)
/// and two plies back (our own last move: follow-up history).
#[derive(Clone, Debug)]
pub struct ContinuationHistory {
    table: Box<[PieceToHistory]>,
}

impl Default for ContinuationHistory {
    fn default() -> Self {
        ContinuationHistory { table: vec![[0; 12 * 64]; 12 * 64].into_boxed_slice() }
    }
}

impl ContinuationHistory {
    /// Forgets everything.
    pub fn clear(&mut self) {
        self.table.fill([0; 12 * 64]);
    }

    /// The scores of the answers to `earlier`.
    #[inline]
    pub fn after(&self, earlier: PieceTo) -> &PieceToHistory {
        &self.table[earlier.index()]
    }

    /// Rewards `best` and penalises `tried` as answers to `earlier`, with
    /// the same bonus and gravity as [`History::update`].
    pub fn update(&mut self, earlier: PieceTo, best: PieceTo, tried: impl IntoIterator<Item = PieceTo>, depth: i32) {
        let bonus = history_bonus(depth);
        let row = &mut self.table[earlier.index()];
        gravity(&mut row[best.index()], bonus);
        for m in tried {
            gravity(&mut row[m.index()], -bonus);
        }
    }
}

/// The history bonus of a cutoff at `depth`.
#[inline]
fn history_bonus(depth: i32) -> i32 {
    (HISTORY_BONUS_SCALE * depth * depth).min(HISTORY_BONUS_MAX)
}

/// Adds `bonus` to a bounded history score, pulling it towards
/// ±[`HISTORY_MAX`] so that it stays within them without resets.
#[inline]
fn gravity(entry: &mut i16, bonus: i32) {
    let old = i32::from(*entry);
    *entry = (old + bonus - old * bonus.abs() / HISTORY_MAX) as i16;
}

/// Two killer moves per ply.
#[derive(Clone, Debug)]
pub struct Killers {
    slots: Box<[[PackedMove; 2]; MAX_PLY]>,
}

impl Default for Killers {
    fn default() -> Self {
        Killers { slots: Box::new([[PackedMove::NONE; 2]; MAX_PLY]) }
    }
}

impl Killers {
    /// Forgets everything.
    pub fn clear(&mut self) {
        *self.slots = [[PackedMove::NONE; 2]; MAX_PLY];
    }

    /// Records the quiet move `m` that caused a cutoff at `ply`.
    #[inline]
    pub fn add(&mut self, ply: usize, m: PackedMove) {
        let slots = &mut self.slots[ply];
        if slots[0] != m {
            slots[1] = slots[0];
            slots[0] = m;
        }
    }

    /// The killer rank of `m` at `ply`: `Some(0)` or `Some(1)`, or `None`.
    #[inline]
    pub fn rank(&self, ply: usize, m: PackedMove) -> Option<usize> {
        self.slots[ply].iter().position(|&k| k == m && !k.is_none())
    }
}

/// Per-ply scratch space for ordered moves. The searcher owns one, so that
/// no node initialises, moves or copies a whole move array: a node copies
/// only the moves it will try, with their scores, into its ply's slot.
#[derive(Clone, Debug)]
pub struct MoveBuffers {
    moves: Box<[[Move; MAX_MOVES]]>,
    scores: Box<[[i32; MAX_MOVES]]>,
}

impl Default for MoveBuffers {
    fn default() -> Self {
        // Any move will do as filler: slots are written before they are read.
        let filler = Move::Put { role: Role::Pawn, to: shakmaty::Square::A1 };
        MoveBuffers { moves: vec![[filler; MAX_MOVES]; MAX_PLY + 1].into_boxed_slice(), scores: vec![[0; MAX_MOVES]; MAX_PLY + 1].into_boxed_slice() }
    }
}

/// What scoring reads besides the moves: the position and the search's
/// memory of good moves.
#[derive(Copy, Clone, Debug)]
pub struct ScoringContext<'a> {
    /// The board the moves are played on.
    pub board: &'a Board,
    /// The side to move.
    pub side: Color,
    /// Killer moves.
    pub killers: &'a Killers,
    /// Quiet-move history.
    pub history: &'a History,
    /// Piece values for SEE, indexed by `role as usize - 1`.
    pub piece_values: &'a [i32; 6],
    /// Continuation histories of the moves one and two plies back, where
    /// there are such moves.
    pub continuation: [Option<&'a PieceToHistory>; 2],
}

impl ScoringContext<'_> {
    /// The history score of the quiet move `m`: its own history and its
    /// continuation histories together.
    #[inline]
    pub fn quiet_score(&self, m: Move) -> i32 {
        let key = PieceTo::new(self.side, m).index();
        let continuation: i32 = self.continuation.iter().flatten().map(|table| i32::from(table[key])).sum();
        self.history.score(self.side, PackedMove::new(m)) + continuation
    }
}

/// Which moves a picker hands out, and how it scores them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// All moves of a full-width node.
    FullWidth,
    /// Captures and queen promotions of a quiescence node (every move
    /// when `evasions`, the side to move being in check).
    Quiescence { evasions: bool },
}

/// Where a picker is in its stages.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Stage {
    /// The transposition table's move comes first, before anything is
    /// scored: it often refutes at once, and then scoring would be wasted.
    TtMove,
    /// The rest is scored on the first request after the TT move.
    Score,
    /// Scored moves, best first.
    Rest,
}

/// Hands out the moves of one node best first, from its ply's slot of a
/// [`MoveBuffers`].
#[derive(Copy, Clone, Debug)]
pub struct MovePicker {
    ply: usize,
    len: usize,
    next: usize,
    kind: Kind,
    stage: Stage,
    tt_move: PackedMove,
    skip_quiets: bool,
}

impl MovePicker {
    /// Orders all `moves` of a full-width node at `ply`.
    #[inline]
    pub fn new(buffers: &mut MoveBuffers, ply: usize, moves: &MoveList, tt_move: PackedMove) -> MovePicker {
        MovePicker::fill(buffers, ply, moves, tt_move, Kind::FullWidth, |_| true)
    }

    /// Orders the moves a quiescence node at `ply` tries: captures and
    /// queen promotions by MVV-LVA, or, with `evasions`, every move (the
    /// side to move is in check), captures first.
    #[inline]
    pub fn quiescence(buffers: &mut MoveBuffers, ply: usize, moves: &MoveList, tt_move: PackedMove, evasions: bool) -> MovePicker {
        MovePicker::fill(buffers, ply, moves, tt_move, Kind::Quiescence { evasions }, |m| {
            evasions || m.is_capture() || m.promotion() == Some(Role::Queen)
        })
    }

    /// Copies the moves that `keep` accepts into the slot of `ply`.
    #[inline]
    fn fill(buffers: &mut MoveBuffers, ply: usize, moves: &MoveList, tt_move: PackedMove, kind: Kind, keep: impl Fn(Move) -> bool) -> MovePicker {
        let slot = &mut buffers.moves[ply];
        let mut len = 0;
        // Legal chess positions have at most 218 moves; the bound only
        // guards the fixed-size slot.
        for &m in moves.iter().take(MAX_MOVES) {
            if keep(m) {
                slot[len] = m;
                len += 1;
            }
        }
        let stage = if tt_move.is_none() { Stage::Score } else { Stage::TtMove };
        MovePicker { ply, len, next: 0, kind, stage, tt_move, skip_quiets: false }
    }

    /// The number of moves to hand out.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// From now on, hands out only captures and promotions (the search
    /// prunes the quiet moves that are left).
    pub fn skip_quiets(&mut self) {
        self.skip_quiets = true;
    }

    /// The best move not yet handed out (the first of equals, so the order
    /// is deterministic). `context` is read when the moves after the TT
    /// move are scored.
    #[inline]
    pub fn next(&mut self, buffers: &mut MoveBuffers, context: &ScoringContext<'_>) -> Option<Move> {
        if self.stage == Stage::TtMove {
            self.stage = Stage::Score;
            let moves = &mut buffers.moves[self.ply];
            if let Some(i) = moves[..self.len].iter().position(|&m| self.tt_move.matches(m)) {
                moves.swap(0, i);
                self.next = 1;
                return Some(moves[0]);
            }
        }
        if self.stage == Stage::Score {
            self.stage = Stage::Rest;
            self.score_rest(buffers, context);
        }
        if self.next >= self.len {
            return None;
        }
        let moves = &mut buffers.moves[self.ply];
        let scores = &mut buffers.scores[self.ply];
        let mut best = self.next;
        if self.skip_quiets {
            let noisy = (self.next..self.len).filter(|&i| is_noisy(moves[i]));
            best = noisy.reduce(|best, i| if scores[i] > scores[best] { i } else { best })?;
        } else {
            for i in self.next + 1..self.len {
                if scores[i] > scores[best] {
                    best = i;
                }
            }
        }
        moves.swap(self.next, best);
        scores.swap(self.next, best);
        self.next += 1;
        Some(moves[self.next - 1])
    }

    fn score_rest(&self, buffers: &mut MoveBuffers, context: &ScoringContext<'_>) {
        let moves = &buffers.moves[self.ply];
        let scores = &mut buffers.scores[self.ply];
        for i in self.next..self.len {
            let m = moves[i];
            scores[i] = match self.kind {
                Kind::FullWidth => {
                    if m.promotion().is_some_and(|r| r != Role::Queen) {
                        UNDER_PROMOTION_SCORE + mvv_lva(m)
                    } else if is_noisy(m) {
                        if see_at_least(context.board, context.side, m, 0, context.piece_values) {
                            NOISY_SCORE + mvv_lva(m)
                        } else {
                            LOSING_CAPTURE_SCORE + mvv_lva(m)
                        }
                    } else {
                        let packed = PackedMove::new(m);
                        match context.killers.rank(self.ply, packed) {
                            Some(rank) => KILLER_SCORES[rank],
                            None => context.quiet_score(m),
                        }
                    }
                }
                Kind::Quiescence { .. } => {
                    if is_noisy(m) {
                        NOISY_SCORE + mvv_lva(m)
                    } else {
                        0
                    }
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Chess, Position, Square, fen::Fen};

    const VALUES: [i32; 6] = {
        let c = crate::features::material::Material::CLASSICAL_VALUES;
        [c[0], c[1], c[2], c[3], c[4], 0]
    };

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn captures_come_by_victim_then_attacker() {
        // White can take the queen on d5 with the pawn or the knight, or the
        // pawn on a6 with the rook; quiet moves follow, and last Rxh5, which
        // loses the rook to gxh5.
        let p = pos("4k3/8/p5p1/3q3p/4P3/2N5/8/R3K2R w - - 0 1");
        let mut buffers = MoveBuffers::default();
        let (killers, history) = (Killers::default(), History::default());
        let context = ScoringContext {
            board: p.board(),
            side: Color::White,
            killers: &killers,
            history: &history,
            piece_values: &VALUES,
            continuation: [None; 2],
        };
        let mut picker = MovePicker::new(&mut buffers, 0, &p.legal_moves(), PackedMove::NONE);
        let order: Vec<Move> = std::iter::from_fn(|| picker.next(&mut buffers, &context)).collect();
        assert_eq!(order.len(), p.legal_moves().len());
        assert_eq!((order[0].role(), order[0].to()), (Role::Pawn, Square::D5));
        assert_eq!((order[1].role(), order[1].to()), (Role::Knight, Square::D5));
        assert_eq!((order[2].role(), order[2].to()), (Role::Rook, Square::A6));
        assert!(!is_noisy(order[3]));
        assert_eq!((order.last().unwrap().role(), order.last().unwrap().to()), (Role::Rook, Square::H5));
        // Quiescence keeps the captures only.
        let mut picker = MovePicker::quiescence(&mut buffers, 1, &p.legal_moves(), PackedMove::NONE, false);
        assert_eq!(picker.len(), 4);
        assert_eq!(picker.next(&mut buffers, &context), Some(order[0]));
    }

    #[test]
    fn tt_move_then_killers_then_history() {
        let p = Chess::default();
        let moves = p.legal_moves();
        let find = |uci: &str| *moves.iter().find(|m| m.to_uci(CastlingMode::Standard).to_string() == uci).unwrap();
        let (e4, d4, nf3, a3) = (find("e2e4"), find("d2d4"), find("g1f3"), find("a2a3"));
        let mut killers = Killers::default();
        killers.add(3, PackedMove::new(nf3));
        let mut history = History::default();
        history.update(Color::White, PackedMove::new(a3), [PackedMove::new(d4)], 4);
        let mut buffers = MoveBuffers::default();
        let context = ScoringContext {
            board: p.board(),
            side: Color::White,
            killers: &killers,
            history: &history,
            piece_values: &VALUES,
            continuation: [None; 2],
        };
        let mut picker = MovePicker::new(&mut buffers, 3, &moves, PackedMove::new(e4));
        let order: Vec<Move> = std::iter::from_fn(|| picker.next(&mut buffers, &context)).collect();
        assert_eq!(&order[..3], &[e4, nf3, a3]);
        assert_eq!(*order.last().unwrap(), d4);
        assert!(history.score(Color::White, PackedMove::new(a3)) > 0);
        assert!(history.score(Color::Black, PackedMove::new(a3)) == 0);
    }

    #[test]
    fn history_stays_bounded() {
        let mut history = History::default();
        let m = PackedMove::new(Chess::default().legal_moves()[0]);
        for _ in 0..10_000 {
            history.update(Color::White, m, [], 30);
        }
        let s = history.score(Color::White, m);
        assert!(s > 0 && s <= HISTORY_MAX, "{s}");
    }
}
