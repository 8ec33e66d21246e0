//! `rooks`: rooks (and the queen) on open files and on the seventh rank.
//!
//! Every term counts pieces of one side (white `+1` each, black `-1`), with
//! ranks seen from the piece's own side (black's bitboards are flipped
//! vertically first, as in [`super::pawns`]). A rook needs open lines: on a
//! file blocked by its own pawn it does little until the pawn goes.
//!
//! * `rook_open_file`: a rook on a file with no pawn of either colour. It
//!   controls the whole file and can enter the enemy camp.
//! * `rook_semi_open_file`: a rook on a file with no own pawn but an enemy
//!   pawn. It presses on that pawn and the file may open; worth less than an
//!   open file.
//! * `rook_seventh`: a rook on its 7th rank while the enemy king stands on
//!   its own back rank or the enemy still has pawns on its 2nd rank (our
//!   7th). Choice: the classical condition, either of the two. A rook on
//!   the 7th is strong because it attacks the pawns still at home or cuts
//!   the king off on its back rank; with neither (the king has come out and
//!   the pawns have advanced) it attacks nothing and the bonus would be
//!   noise.
//! * `queen_open_file`: a queen on a file with no pawn of either colour.
//! * `rooks_connected`: two own rooks that see each other along a rank or
//!   file with nothing between them (each defends the other); counted once
//!   per pair.
//! * `rooks_doubled`: each own rook beyond the first on one file that has no
//!   own pawn (open or semi-open): doubled rooks on such a file are the
//!   classic way to win it or break through. On a file closed by an own pawn
//!   doubling does little, so it does not count.
//!
//! Open and semi-open files come from file fills of the pawn bitboards, so
//! the set costs a handful of bitboard operations and popcounts per side
//! (one rook attack lookup per rook when a side has two rooks).

use shakmaty::{Color, attacks};

use super::context::{Context, sign};
use super::pawns::{RANK_1, file_fill, oriented};

/// The seventh rank (in the side's own frame).
const RANK_7: u64 = RANK_1 << 48;
/// The eighth rank (in the side's own frame).
const RANK_8: u64 = RANK_1 << 56;

/// The rook feature set.
#[derive(Copy, Clone, Debug, Default)]
pub struct Rooks;

impl Rooks {
    /// One line for `pgntune features`.
    pub const MEANING: &'static str = "rooks on open and semi-open files and the 7th rank, queen on an open file, connected and doubled rooks";

    /// Term of `rook_open_file`.
    pub const OPEN: usize = 0;
    /// Term of `rook_semi_open_file`.
    pub const SEMI_OPEN: usize = 1;
    /// Term of `rook_seventh`.
    pub const SEVENTH: usize = 2;
    /// Term of `queen_open_file`.
    pub const QUEEN_OPEN: usize = 3;
    /// Term of `rooks_connected`.
    pub const CONNECTED: usize = 4;
    /// Term of `rooks_doubled`.
    pub const DOUBLED: usize = 5;

    /// Term names, in term order.
    pub fn terms() -> Vec<String> {
        ["rook_open_file", "rook_semi_open_file", "rook_seventh", "queen_open_file", "rooks_connected", "rooks_doubled"].map(String::from).to_vec()
    }

    /// Calls `emit(term, count)` for the set's terms in `ctx`'s position.
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(ctx: &Context, mut emit: F) {
        let board = ctx.board;
        for color in [Color::White, Color::Black] {
            let rooks_here = board.rooks() & board.by_color(color);
            let queens_here = board.queens() & board.by_color(color);
            if rooks_here.is_empty() && queens_here.is_empty() {
                continue;
            }
            let s = sign(color);
            let mut put = |term: usize, count: u32| {
                if count != 0 {
                    emit(term, s * count as i32);
                }
            };
            let rooks = oriented(color, rooks_here);
            let own_pawn_files = file_fill(oriented(color, board.pawns() & board.by_color(color)));
            let their_pawns = oriented(color, board.pawns() & board.by_color(!color));
            let their_pawn_files = file_fill(their_pawns);
            let open = !own_pawn_files & !their_pawn_files;
            let semi_open = !own_pawn_files & their_pawn_files;
            put(Self::OPEN, (rooks & open).count_ones());
            put(Self::SEMI_OPEN, (rooks & semi_open).count_ones());
            put(Self::QUEEN_OPEN, (oriented(color, queens_here) & open).count_ones());
            if rooks & RANK_7 != 0 {
                let their_king = oriented(color, board.kings() & board.by_color(!color));
                if their_king & RANK_8 != 0 || their_pawns & RANK_7 != 0 {
                    put(Self::SEVENTH, (rooks & RANK_7).count_ones());
                }
            }
            if rooks_here.more_than_one() {
                let occupied = board.occupied();
                let seen: u32 = rooks_here.into_iter().map(|square| (attacks::rook_attacks(square, occupied) & rooks_here).count() as u32).sum();
                put(Self::CONNECTED, seen / 2);
                let unblocked = rooks & !own_pawn_files;
                let files = (file_fill(unblocked) & RANK_1).count_ones();
                put(Self::DOUBLED, unblocked.count_ones() - files);
            }
        }
    }
}
