//! `mobility`: how many squares each knight, bishop, rook and queen can
//! go to, as "a value per count".
//!
//! ## The rule
//!
//! A piece's mobility is the number of squares it attacks (sliders stop at
//! the first piece in their way, of either colour; see
//! [`Context::attacks`]) that are
//!
//! * not occupied by a piece of its own side, and
//! * not attacked by an enemy pawn.
//!
//! The term `mob_<role>_<count>` counts the pieces of that role with that
//! mobility, white minus black: a white knight with 5 such squares adds
//! `+1` to `mob_N_5`, a black knight with 5 adds `-1`. Pins and checks are
//! ignored (a pinned knight still counts its squares): the set is a
//! static, pseudo-legal measure, like the attack maps it reads.
//!
//! Terms, 66 in all, in this order: `mob_N_0` … `mob_N_8` (9),
//! `mob_B_0` … `mob_B_13` (14), `mob_R_0` … `mob_R_14` (15),
//! `mob_Q_0` … `mob_Q_27` (28): every count the piece can reach on an
//! empty board is a term, so no position falls outside the table.
//!
//! ## Why, and the choices made
//!
//! A piece that can go to many squares does more (it attacks, defends,
//! switches wings), and one that cannot is a target: mobility is the most
//! valuable positional term after material and piece-square tables.
//!
//! * **A value per count**, not a linear term: the value of one more square
//!   is not constant. Going from 0 to 2 squares (a trapped piece that can
//!   escape) is worth far more than from 10 to 12; a linear term cannot say
//!   so. Engine tuners fit one value per count for this reason; the price
//!   is 66 terms instead of 4, and the high counts (a queen with 25 squares)
//!   are rare and stay near their starting values under the prior.
//! * **Own pieces excluded.** The count is then the number of squares the
//!   piece could move to (a pawn-safe pseudo-legal move count), which is
//!   what "mobility" means to a player; a bishop hemmed in by its own pawns
//!   ("bad bishop") gets a low count, as it should. Defending one's own
//!   pieces is worth something too, but that value belongs to the
//!   `threats` set (an undefended piece is hanging) rather than to a
//!   mobility count that would then grow with clutter.
//! * **Squares attacked by enemy pawns excluded.** A piece going there is
//!   lost for a pawn, so those squares are not real options; every engine's
//!   mobility area leaves them out. Squares attacked by enemy pieces are
//!   kept: whether such a move is safe depends on exchanges a static count
//!   cannot see.
//!
//! ## Identification
//!
//! A role's counts add up, per side, to the number of pieces of that role
//! (every knight has exactly one mobility), so each role's table is a
//! [`TermGroup`] with [`GroupSum::Count`]: beside material its level is not
//! identified, and the fitter keeps it where the starting values put it.

use shakmaty::{Color, Role};

use super::context::{Context, sign};
use super::{GroupSum, TermGroup};

/// The mobility feature set.
#[derive(Copy, Clone, Debug, Default)]
pub struct Mobility;

/// The roles with a mobility table, in term order, with the largest
/// mobility each can have (on an empty board, from the best square).
const TABLES: [(Role, usize); 4] = [(Role::Knight, 8), (Role::Bishop, 13), (Role::Rook, 14), (Role::Queen, 27)];

/// The index of each role's `count = 0` term, by `role as usize` (pawn and
/// king have no table).
const OFFSETS: [usize; 7] = {
    let mut offsets = [usize::MAX; 7];
    let mut next = 0;
    let mut i = 0;
    while i < TABLES.len() {
        offsets[TABLES[i].0 as usize] = next;
        next += TABLES[i].1 + 1;
        i += 1;
    }
    offsets
};

impl Mobility {
    /// One line for `pgntune features`.
    pub const MEANING: &'static str =
        "knight, bishop, rook and queen by their number of squares not held by own pieces nor attacked by enemy pawns (one term per count)";

    /// Number of terms: 9 + 14 + 15 + 28.
    pub const TERMS: usize = 66;

    /// The term of a piece of `role` (knight to queen) with `count` squares.
    pub fn term(role: Role, count: usize) -> usize {
        OFFSETS[role as usize] + count
    }

    /// Term names, such as `mob_N_3`, in term order.
    pub fn terms() -> Vec<String> {
        TABLES.iter().flat_map(|&(role, max)| (0..=max).map(move |count| format!("mob_{}_{count}", role.upper_char()))).collect()
    }

    /// One group per role: its counts add up to the role's piece count.
    pub fn groups() -> Vec<TermGroup> {
        TABLES
            .iter()
            .map(|&(role, max)| {
                let first = Self::term(role, 0);
                TermGroup { name: format!("mobility {}", role.upper_char()), terms: first..first + max + 1, sum: GroupSum::Count(role) }
            })
            .collect()
    }

    /// Calls `emit(term, ±1)` for every knight, bishop, rook and queen.
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(ctx: &Context, mut emit: F) {
        let attacks = ctx.attacks();
        for color in [Color::White, Color::Black] {
            let s = sign(color);
            let area = !(ctx.ours(color) | attacks.by_role.get(!color)[0]);
            for piece in attacks.pieces.get(color).iter() {
                if piece.role != Role::King {
                    emit(OFFSETS[piece.role as usize] + (piece.attacks & area).count(), s);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::FeatureSet;
    use crate::features::tests::named_terms;

    fn terms(fen: &str) -> Vec<(&'static str, i16)> {
        named_terms(FeatureSet::Mobility, fen)
    }

    #[test]
    fn names_offsets_and_groups() {
        let names = Mobility::terms();
        assert_eq!(names.len(), Mobility::TERMS);
        assert_eq!(names[Mobility::term(Role::Knight, 8)], "mob_N_8");
        assert_eq!(names[Mobility::term(Role::Bishop, 0)], "mob_B_0");
        assert_eq!(names[Mobility::term(Role::Rook, 14)], "mob_R_14");
        assert_eq!(names[Mobility::term(Role::Queen, 27)], "mob_Q_27");
        assert_eq!(names.last().unwrap(), "mob_Q_27");
        let groups = Mobility::groups();
        assert_eq!(groups.iter().map(|g| g.terms.clone()).collect::<Vec<_>>(), [0..9, 9..23, 23..38, 38..66]);
        assert_eq!(groups[2].sum, GroupSum::Count(Role::Rook));
    }

    #[test]
    fn start_position_cancels_and_counts_are_moves() {
        assert!(terms("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").is_empty());
        // Only white's pieces (black has a bare king on h8, far away):
        // knight b1: a3, c3 (d2 is its own pawn) = 2; bishop c1: 0 (b2, d2
        // own pawns); rook a1: 0; queen d1: e2, f3, g4, h5 (d2 own pawn,
        // c2 own pawn, e1 own king, c1 own bishop) = 4.
        let t = terms("7k/8/8/8/8/8/PPPP1PPP/RNBQK3 w Q - 0 1");
        assert_eq!(t, [("mob_N_2", 1), ("mob_B_0", 1), ("mob_R_0", 1), ("mob_Q_4", 1)]);
    }

    #[test]
    fn squares_attacked_by_enemy_pawns_do_not_count() {
        // White knight e4 attacks d2 f2 c3 g3 c5 g5 d6 f6 (8); the black
        // pawns e7 (d6, f6) and g7 (f6, h6) take d6 and f6 away: 6. The
        // black bishop a8 sees b7 c6 d5 and the knight on e4 (4); the white
        // pawn c4 attacks d5: 3.
        let t = terms("b6k/4p1p1/8/8/2P1N3/8/8/K7 w - - 0 1");
        assert_eq!(t, [("mob_N_6", 1), ("mob_B_3", -1)]);
    }

    #[test]
    fn sliders_stop_at_blockers_and_colours_cancel() {
        // White rook d4 on an open board with kings a1/h8 and a black
        // knight d7: files d5 d6 d7 (capture) and d3 d2 d1, rank a4 … h4
        // without d4: 3 + 3 + 7 = 13. Black knight d7: b8 b6 c5 e5 f6 f8
        // (6, none attacked by white pawns; no white pawns).
        let t = terms("7k/3n4/8/8/3R4/8/8/K7 w - - 0 1");
        assert_eq!(t, [("mob_N_6", -1), ("mob_R_13", 1)]);
        // Queens d1 and d8 see each other down the d-file; kings a1 and
        // h7. White: d2 … d8 (7) + b1 c1 e1 f1 g1 h1 (6, a1 is its own
        // king) + c2 b3 a4 and e2 f3 g4 h5 (7) = 20. Black: d7 … d1 (7) +
        // a8 b8 c8 e8 f8 g8 h8 (7) + c7 b6 a5 and e7 f6 g5 h4 (7) = 21.
        let t = terms("3q4/7k/8/8/8/8/8/K2Q4 w - - 0 1");
        assert_eq!(t, [("mob_Q_20", 1), ("mob_Q_21", -1)]);
    }
}
