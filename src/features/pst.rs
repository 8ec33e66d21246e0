//! `pst`: tapered piece-square tables as features.
//!
//! For every piece on the board there are two features, one for the
//! middlegame and one for the endgame, both named after the piece's role and
//! its square from its own side's point of view (`mg_N_e4`, `eg_K_g1`). A
//! white piece adds `+phase` to its middlegame column and `+(24 - phase)` to
//! its endgame column; a black piece subtracts the same amounts from the
//! columns of its vertically mirrored square (a black knight on e5 counts
//! against `mg_N_e4`), so the vector stays "white minus black" and flips sign
//! under colour swap.
//!
//! `phase` is the usual game phase in `0..=24` from the non-pawn material of
//! both sides (knight and bishop 1, rook 2, queen 4, capped at 24): 24 with
//! all pieces on the board, 0 with only kings and pawns. A weight vector `w`
//! over these columns therefore evaluates to
//! `Σ_pieces (w_mg · phase + w_eg · (24 - phase))`, i.e. 24 times the usual
//! linear blend of a middlegame and an endgame table; a weights file with
//! `scale = 1/24` and per-column weights in centipawns gives centipawns.
//!
//! Columns are laid out as `phase block × role × square`: index
//! `block * 384 + role * 64 + square` with block 0 = `mg`, 1 = `eg`, roles in
//! the order P N B R Q K and squares a1 = 0 … h8 = 63.

use shakmaty::{Bitboard, Board, Chess, Color, Position, Role, Square};

/// The piece-square feature set.
#[derive(Copy, Clone, Debug, Default)]
pub struct Pst;

/// The phase value of a board with (at least) the full set of pieces.
pub const MAX_PHASE: i32 = 24;

impl Pst {
    /// Number of columns: 2 phases × 6 roles × 64 squares.
    pub const LEN: usize = 2 * 6 * 64;

    /// The roles in column order; kings included, unlike `material`.
    pub const ROLES: [Role; 6] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King];

    /// Column-name prefixes of the two phase blocks, in column order.
    pub const PHASES: [&'static str; 2] = ["mg", "eg"];

    /// The column index of `role` on `square` (from its owner's point of
    /// view, white's squares as they are) in phase block `phase_block`
    /// (0 = middlegame, 1 = endgame).
    pub fn column(phase_block: usize, role: Role, square: Square) -> usize {
        phase_block * 384 + Self::role_index(role) * 64 + square as usize
    }

    /// The name of column `index`, such as `mg_N_e4`; `None` past the end.
    pub fn column_name(index: usize) -> Option<String> {
        if index >= Self::LEN {
            return None;
        }
        let phase = Self::PHASES[index / 384];
        let role = Self::ROLES[(index % 384) / 64];
        let square = Square::new((index % 64) as u32);
        Some(format!("{phase}_{}_{square}", role.upper_char()))
    }

    /// All column names, in vector order.
    pub fn columns() -> Vec<String> {
        (0..Self::LEN).filter_map(Self::column_name).collect()
    }

    /// The game phase of `board` in `0..=24` (24 = opening, 0 = pawn ending).
    #[inline]
    pub fn phase(board: &Board) -> i32 {
        let minors = (board.knights() | board.bishops()).count() as i32;
        let rooks = board.rooks().count() as i32;
        let queens = board.queens().count() as i32;
        (minors + 2 * rooks + 4 * queens).min(MAX_PHASE)
    }

    /// Calls `emit(i, value)` for every piece's middlegame and endgame
    /// column, skipping values that are zero because the phase is 0 or 24.
    /// A column can be emitted more than once (a white and a black piece on
    /// mirrored squares); consumers add the values up.
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(pos: &Chess, mut emit: F) {
        let board = pos.board();
        let mg = Self::phase(board);
        let eg = MAX_PHASE - mg;
        for color in [Color::White, Color::Black] {
            let (sign, ours) = match color {
                Color::White => (1, board.white()),
                Color::Black => (-1, board.black()),
            };
            for (r, &role) in Self::ROLES.iter().enumerate() {
                let pieces: Bitboard = board.by_role(role) & ours;
                for square in pieces {
                    let square = match color {
                        Color::White => square,
                        Color::Black => square.flip_vertical(),
                    };
                    let index = r * 64 + square as usize;
                    if mg != 0 {
                        emit(index, sign * mg);
                    }
                    if eg != 0 {
                        emit(384 + index, sign * eg);
                    }
                }
            }
        }
    }

    fn role_index(role: Role) -> usize {
        role as usize - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    fn dense(p: &Chess) -> Vec<i32> {
        let mut x = vec![0; Pst::LEN];
        Pst::visit(p, |i, v| x[i] += v);
        x
    }

    #[test]
    fn column_names_follow_the_layout() {
        let columns = Pst::columns();
        assert_eq!(columns.len(), 768);
        assert_eq!(columns[0], "mg_P_a1");
        assert_eq!(columns[Pst::column(0, Role::Knight, Square::E4)], "mg_N_e4");
        assert_eq!(columns[Pst::column(1, Role::King, Square::G1)], "eg_K_g1");
        assert_eq!(columns[767], "eg_K_h8");
        assert_eq!(Pst::column_name(768), None);
    }

    #[test]
    fn phase_counts_non_pawn_material() {
        assert_eq!(Pst::phase(Chess::default().board()), 24);
        assert_eq!(Pst::phase(pos("4k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1").board()), 0);
        assert_eq!(Pst::phase(pos("r3k3/8/8/8/8/8/8/1N2K2Q w - - 0 1").board()), 7);
        // Promoted queens do not push the phase past 24.
        assert_eq!(Pst::phase(pos("4k3/8/8/8/8/8/QQQQ4/RNBQKBNR w - - 0 1").board()), 24);
    }

    #[test]
    fn start_position_cancels_out() {
        assert!(dense(&Chess::default()).iter().all(|&v| v == 0));
    }

    #[test]
    fn black_pieces_count_on_mirrored_squares() {
        // White knight e4, black rook d8 (= d1 mirrored); phase 1 + 2 = 3.
        let x = dense(&pos("3rk3/8/8/8/4N3/8/8/4K3 w - - 0 1"));
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
        let x = dense(&pos("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"));
        assert_eq!(x[..384].iter().filter(|&&v| v != 0).count(), 0);
        assert_eq!(x[Pst::column(1, Role::Pawn, Square::E2)], 24);
        assert_eq!(x[Pst::column(1, Role::King, Square::E1)], 0);
    }
}
