//! `material`: the piece-count balance P, N, B, R, Q, white minus black.
//!
//! Kings are omitted: both sides always have exactly one.

use shakmaty::{Bitboard, Chess, Position, Role};

/// The material feature set.
#[derive(Copy, Clone, Debug, Default)]
pub struct Material;

impl Material {
    /// Column names in vector order.
    pub const COLUMNS: [&'static str; 5] = ["P", "N", "B", "R", "Q"];

    /// The textbook 1-3-3-5-9 scale in centipawns, in [`Material::COLUMNS`]
    /// order: the `classical` preset, the engine's piece values when weights
    /// have no material, and the values of exchange evaluation.
    pub const CLASSICAL_VALUES: [i32; 5] = [100, 300, 300, 500, 900];

    /// The roles behind [`Material::COLUMNS`], in the same order.
    pub const ROLES: [Role; 5] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

    /// Calls `emit(i, white_count - black_count)` for each role with a non-zero difference.
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(pos: &Chess, mut emit: F) {
        let board = pos.board();
        let white = board.white();
        // white - black = 2 * white - all; written out per role so that it
        // compiles to a handful of POPCNTs (extraction calls this for every
        // quiet position, the engine for every evaluation).
        let balance = |pieces: Bitboard| 2 * (pieces & white).count() as i32 - pieces.count() as i32;
        let deltas = [balance(board.pawns()), balance(board.knights()), balance(board.bishops()), balance(board.rooks()), balance(board.queens())];
        for (i, delta) in deltas.into_iter().enumerate() {
            if delta != 0 {
                emit(i, delta);
            }
        }
    }
}
