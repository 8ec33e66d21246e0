//! `pst`: piece-square tables as features.
//!
//! One term per role and square (`N_e4`, `K_g1`), the square seen from the
//! piece's own side: a white knight on e4 counts `+1` for `N_e4`, a black
//! knight on e5 (e4 mirrored) `-1`, so the vector stays "white minus black"
//! and flips sign under colour swap. The set is tapered, so every term has
//! a middlegame and an endgame column (`mg_N_e4`, `eg_N_e4`).
//!
//! Terms are laid out as `role × square`: index `role * 64 + square`, roles
//! in the order P N B R Q K, squares a1 = 0 … h8 = 63; the columns are the
//! 384 `mg_` columns, then the 384 `eg_` columns.
//!
//! A role's 64 terms add up to that role's piece count (the king's to zero),
//! so beside a material set their level is not identified: each role's table
//! is one [`TermGroup`], and the fitter keeps its level fixed.

use shakmaty::{Bitboard, Chess, Role, Square};

use super::context::Context;
use super::{GroupSum, TermGroup};

/// The piece-square feature set.
#[derive(Copy, Clone, Debug, Default)]
pub struct Pst;

impl Pst {
    /// Number of terms: 6 roles × 64 squares.
    pub const TERMS: usize = 6 * 64;

    /// Number of columns: a middlegame and an endgame column per term.
    pub const LEN: usize = 2 * Self::TERMS;

    /// The roles in term order; kings included, unlike `material`.
    pub const ROLES: [Role; 6] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King];

    /// The term of `role` on `square` (from its owner's point of view, white's squares as they are).
    pub fn term(role: Role, square: Square) -> usize {
        Self::role_index(role) * 64 + square as usize
    }

    /// The column of `role` on `square` in phase block `phase_block`
    /// (0 = middlegame, 1 = endgame), within the set's columns.
    pub fn column(phase_block: usize, role: Role, square: Square) -> usize {
        phase_block * Self::TERMS + Self::term(role, square)
    }

    /// Term names, such as `N_e4`, in term order.
    pub fn terms() -> Vec<String> {
        Self::ROLES.iter().flat_map(|role| (0..64u32).map(move |sq| format!("{}_{}", role.upper_char(), Square::new(sq)))).collect()
    }

    /// All column names, in vector order.
    pub fn columns() -> Vec<String> {
        super::FeatureSet::Pst.columns()
    }

    /// One group per role: its squares add up to the role's piece count
    /// (the king's to zero).
    pub fn groups() -> Vec<TermGroup> {
        Self::ROLES
            .iter()
            .enumerate()
            .map(|(r, &role)| TermGroup {
                name: format!("pst {}", role.upper_char()),
                terms: r * 64..(r + 1) * 64,
                sum: if role == Role::King { GroupSum::Zero } else { GroupSum::Count(role) },
            })
            .collect()
    }

    /// Calls `emit(term, ±1)` for every piece on the board, except that a
    /// white and a black piece on mirrored squares (which cancel) are left
    /// out (see [`Pst::visit_roles`]).
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(ctx: &Context, mut emit: F) {
        Self::visit_roles(ctx, |r, plus, minus| {
            for square in Bitboard(plus) {
                emit(r * 64 + square as usize, 1);
            }
            for square in Bitboard(minus) {
                emit(r * 64 + square as usize, -1);
            }
        });
    }

    /// The table one role at a time, as bits: calls `emit_role(r, plus,
    /// minus)` for role index `r` (the order of [`Pst::ROLES`]) with the
    /// squares, from each piece's own side, whose term counts `+1` (a white
    /// piece and no black one on the mirrored square) and `-1` (the
    /// reverse). These are the table's values; [`Pst::visit`] reports them
    /// square by square, extraction copies them out whole (a role's terms
    /// are its 64 squares in order, so the bits are already sorted).
    #[inline]
    pub fn visit_roles<F: FnMut(usize, u64, u64)>(ctx: &Context, mut emit_role: F) {
        let board = ctx.board;
        for (r, &role) in Self::ROLES.iter().enumerate() {
            let pieces = board.by_role(role);
            // A black piece's square mirrored is the square of its term.
            let (white, black) = ((pieces & board.white()).0, (pieces & board.black()).flip_vertical().0);
            emit_role(r, white & !black, black & !white);
        }
    }

    /// The phase of a position (see [`super::phase`]).
    pub fn phase(pos: &Chess) -> i32 {
        super::phase(shakmaty::Position::board(pos))
    }

    fn role_index(role: Role) -> usize {
        role as usize - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{FeatureLayout, FeatureSet};
    use shakmaty::{CastlingMode, fen::Fen};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    /// The set's dense design row, scaled by 24 so that values are whole numbers.
    fn dense24(p: &Chess) -> Vec<i64> {
        let layout = FeatureLayout::new(&[FeatureSet::Pst]);
        let mut x = vec![0.0; layout.len()];
        layout.write(p, &mut x);
        x.iter().map(|v| (v * 24.0).round() as i64).collect()
    }

    #[test]
    fn column_names_follow_the_layout() {
        let columns = Pst::columns();
        assert_eq!(columns.len(), 768);
        assert_eq!(columns[0], "mg_P_a1");
        assert_eq!(columns[Pst::column(0, Role::Knight, Square::E4)], "mg_N_e4");
        assert_eq!(columns[Pst::column(1, Role::King, Square::G1)], "eg_K_g1");
        assert_eq!(columns[767], "eg_K_h8");
        assert_eq!(Pst::terms()[Pst::term(Role::Queen, Square::D1)], "Q_d1");
    }

    #[test]
    fn start_position_cancels_out() {
        assert!(dense24(&Chess::default()).iter().all(|&v| v == 0));
    }

    #[test]
    fn black_pieces_count_on_mirrored_squares() {
        // White knight e4, black rook d8 (= d1 mirrored); phase 1 + 2 = 3.
        let x = dense24(&pos("3rk3/8/8/8/4N3/8/8/4K3 w - - 0 1"));
        assert_eq!(x[Pst::column(0, Role::Knight, Square::E4)], 3);
        assert_eq!(x[Pst::column(1, Role::Knight, Square::E4)], 21);
        assert_eq!(x[Pst::column(0, Role::Rook, Square::D1)], -3);
        assert_eq!(x[Pst::column(1, Role::Rook, Square::D1)], -21);
        // The kings on e1 and e8 (= e1 mirrored) cancel.
        assert_eq!(x[Pst::column(0, Role::King, Square::E1)], 0);
        assert_eq!(x.iter().filter(|&&v| v != 0).count(), 4);
    }

    #[test]
    fn pawn_endings_have_no_middlegame_features() {
        let x = dense24(&pos("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"));
        assert_eq!(x[..384].iter().filter(|&&v| v != 0).count(), 0);
        assert_eq!(x[Pst::column(1, Role::Pawn, Square::E2)], 24);
        assert_eq!(x[Pst::column(1, Role::King, Square::E1)], 0);
    }

    #[test]
    fn each_role_is_one_group_summing_to_its_count() {
        let groups = Pst::groups();
        assert_eq!(groups.len(), 6);
        assert_eq!(groups[1].terms, 64..128);
        assert_eq!(groups[1].sum, GroupSum::Count(Role::Knight));
        assert_eq!(groups[5].sum, GroupSum::Zero);
    }
}
