//! `threats`: enemy pieces attacked by something cheaper, or not defended.
//!
//! Every term is counted from the attacker's side: a count of *black*
//! pieces that white threatens adds `+n`, the same count of white pieces
//! that black threatens `-n`. A weight is therefore the value of making
//! the threat (positive when threats are good for the side that makes
//! them). "Attacked" and "defended" read the shared attack maps
//! ([`Context::attacks`]): pseudo-legal attacks, sliders stopping at the
//! first piece in their way, pins ignored; a piece is *defended* when any
//! piece or pawn of its own side (the king included) attacks its square.
//!
//! ## Terms (14), in order
//!
//! | term | counts, for each side, the enemy … |
//! |---|---|
//! | `threat_pawn_N`, `_B`, `_R`, `_Q` | knights, bishops, rooks, queens attacked by a pawn |
//! | `threat_minor_R`, `threat_minor_Q` | rooks, queens attacked by a knight or a bishop |
//! | `threat_rook_Q` | queens attacked by a rook |
//! | `hanging_P`, `_N`, `_B`, `_R`, `_Q` | pawns … queens attacked by anything and not defended |
//! | `hanging_mover` | pieces of any kind (not the king) attacked and not defended, counted only for the side to move |
//! | `threat_push` | knights, bishops, rooks, queens not yet attacked by a pawn that a safe pawn push would attack |
//!
//! A *safe pawn push* is a pawn's step forward to an empty square (or its
//! double step from the second rank over an empty square) where no enemy
//! pawn attacks it and the enemy does not attack it or the pushing side
//! defends it (attack maps of the position before the push). A piece
//! attacked by two pushes counts once.
//!
//! ## Why, and the choices made
//!
//! * A piece attacked by a cheaper one must move or be lost for less than
//!   it is worth, whatever defends it: that is the classical threat, most
//!   forceful from a pawn, then from a minor piece against the majors,
//!   then from a rook against the queen. Threats by equal or dearer pieces
//!   only matter when the target is undefended, which `hanging_*` counts.
//!   The sets overlap on purpose (an undefended knight attacked by a pawn
//!   counts in both): the fit gives the extra value of each.
//! * The side to move can take a hanging piece at once; the other side can
//!   only hope its opponent overlooks the threat. A linear term cannot
//!   multiply "hanging" by "whose move", so `hanging_mover` adds the
//!   difference for the side to move (mirroring the position swaps the side
//!   to move too, so the set keeps its colour symmetry).
//! * `threat_push` sees one move ahead: the fork or gain of tempo a pawn
//!   push threatens, which the static attack maps miss; requiring the push
//!   square to be safe keeps out pushes that just lose the pawn.
//! * Kings are never targets (an attacked king is a check, for the search),
//!   but they do attack and defend.
//!
//! No term adds up to a piece count, so the set has no [`super::TermGroup`].

use shakmaty::{Bitboard, Color, Position, Rank};

use super::context::{Context, pawn_attacks, sign};

/// The threats feature set.
#[derive(Copy, Clone, Debug, Default)]
pub struct Threats;

/// The term names, in term order.
const NAMES: [&str; 14] = [
    "threat_pawn_N",
    "threat_pawn_B",
    "threat_pawn_R",
    "threat_pawn_Q",
    "threat_minor_R",
    "threat_minor_Q",
    "threat_rook_Q",
    "hanging_P",
    "hanging_N",
    "hanging_B",
    "hanging_R",
    "hanging_Q",
    "hanging_mover",
    "threat_push",
];

/// Index of `threat_pawn_N`; the pawn threats follow in N B R Q order.
const PAWN_ON: usize = 0;
/// Index of `threat_minor_R` (then `threat_minor_Q`).
const MINOR_ON: usize = 4;
/// Index of `threat_rook_Q`.
const ROOK_ON_QUEEN: usize = 6;
/// Index of `hanging_P`; the hanging terms follow in P N B R Q order.
const HANGING: usize = 7;
/// Index of `hanging_mover`.
const HANGING_MOVER: usize = 12;
/// Index of `threat_push`.
const PUSH: usize = 13;

impl Threats {
    /// One line for `pgntune features`.
    pub const MEANING: &'static str =
        "enemy pieces attacked by pawns, minors on majors, rooks on queens, hanging (undefended) pieces, safe pawn-push threats";

    /// Number of terms.
    pub const TERMS: usize = NAMES.len();

    /// Term names, in term order.
    pub fn terms() -> Vec<String> {
        NAMES.iter().map(|n| n.to_string()).collect()
    }

    /// Calls `emit(term, count)` for each side's threats (white's `+`, black's `-`).
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(ctx: &Context, mut emit: F) {
        let maps = ctx.attacks();
        let board = ctx.board;
        let occupied = board.occupied();
        for color in [Color::White, Color::Black] {
            let s = sign(color);
            let mut put = |term: usize, targets: Bitboard| {
                if targets.any() {
                    emit(term, s * targets.count() as i32);
                }
            };
            let enemy = !color;
            let theirs = board.by_color(enemy);
            let by_role = maps.by_role.get(color);
            let (pawn_hits, minor_hits, rook_hits) = (by_role[0], by_role[1] | by_role[2], by_role[3]);
            let knights = board.knights() & theirs;
            let bishops = board.bishops() & theirs;
            let rooks = board.rooks() & theirs;
            let queens = board.queens() & theirs;

            put(PAWN_ON, pawn_hits & knights);
            put(PAWN_ON + 1, pawn_hits & bishops);
            put(PAWN_ON + 2, pawn_hits & rooks);
            put(PAWN_ON + 3, pawn_hits & queens);
            put(MINOR_ON, minor_hits & rooks);
            put(MINOR_ON + 1, minor_hits & queens);
            put(ROOK_ON_QUEEN, rook_hits & queens);

            let ours_all = *maps.all.get(color);
            let theirs_all = *maps.all.get(enemy);
            let hanging = ours_all & !theirs_all & theirs & !board.kings();
            put(HANGING, hanging & board.pawns());
            put(HANGING + 1, hanging & knights);
            put(HANGING + 2, hanging & bishops);
            put(HANGING + 3, hanging & rooks);
            put(HANGING + 4, hanging & queens);
            if color == ctx.pos.turn() {
                put(HANGING_MOVER, hanging);
            }

            let pawns = board.pawns() & board.by_color(color);
            let (forward, third) = match color {
                Color::White => (8, Rank::Third),
                Color::Black => (-8, Rank::Sixth),
            };
            let single = pawns.shift(forward) & !occupied;
            let double = (single & Bitboard::from_rank(third)).shift(forward) & !occupied;
            let safe = (single | double) & !maps.by_role.get(enemy)[0] & (ours_all | !theirs_all);
            let pieces = knights | bishops | rooks | queens;
            put(PUSH, pawn_attacks(color, safe) & pieces & !pawn_hits);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::FeatureSet;
    use crate::features::tests::named_terms;

    fn terms(fen: &str) -> Vec<(&'static str, i16)> {
        named_terms(FeatureSet::Threats, fen)
    }

    #[test]
    fn term_indices_match_the_names() {
        assert_eq!(NAMES[PAWN_ON + 3], "threat_pawn_Q");
        assert_eq!(NAMES[MINOR_ON + 1], "threat_minor_Q");
        assert_eq!(NAMES[ROOK_ON_QUEEN], "threat_rook_Q");
        assert_eq!(NAMES[HANGING + 4], "hanging_Q");
        assert_eq!(NAMES[HANGING_MOVER], "hanging_mover");
        assert_eq!(NAMES[PUSH], "threat_push");
        assert_eq!(Threats::terms().len(), Threats::TERMS);
    }

    #[test]
    fn pawn_forks_count_whatever_defends_the_targets() {
        // The white pawn d5 forks the black knight c6 and rook e6. The
        // knight is defended by the pawn b7, the rook by the king f7, so
        // neither hangs; the push d5-d6 is not safe (the rook attacks d6,
        // nothing of white's defends it). Black threatens nothing.
        let t = terms("8/1p3k2/2n1r3/3P4/8/8/8/6K1 b - - 0 1");
        assert_eq!(t, [("threat_pawn_N", 1), ("threat_pawn_R", 1)]);
    }

    #[test]
    fn minor_and_rook_threats_on_majors() {
        // The white knight f5 attacks the black queen d6 and rook e7; the
        // white rook d1 attacks the queen down the d-file. The queen is
        // defended by the king c7, the rook by the queen. Black's queen
        // attacks the rook d1, defended by the king c1: not a threat term.
        let t = terms("8/2k1r3/3q4/5N2/8/8/8/2KR4 w - - 0 1");
        assert_eq!(t, [("threat_minor_R", 1), ("threat_minor_Q", 1), ("threat_rook_Q", 1)]);
    }

    #[test]
    fn hanging_pieces_and_the_side_to_move() {
        // White: the knight c4 attacks the bishop b6, the rook g1 the pawn
        // g5; nothing of black's defends them: hanging_B +1, hanging_P +1,
        // and white is to move: hanging_mover +2. Black: the bishop b6
        // attacks the rook g1 (b6-c5-d4-e3-f2-g1), which nothing defends:
        // threat_minor_R −1 and hanging_R −1 (black is not to move).
        let fen = "4k3/8/1b6/6p1/2N5/8/8/4K1R1 w - - 0 1";
        let t = terms(fen);
        let expected = [("threat_minor_R", -1), ("hanging_P", 1), ("hanging_B", 1), ("hanging_R", -1), ("hanging_mover", 2)];
        assert_eq!(t, expected);
        // With black to move only hanging_mover changes: black's one
        // hanging target (the rook) counts for black now.
        let t = terms(&fen.replace(" w ", " b "));
        assert_eq!(t[..4], expected[..4]);
        assert_eq!(t[4], ("hanging_mover", -1));
    }

    #[test]
    fn safe_pawn_pushes_threaten() {
        // d4-d5 would attack the knight c6 and the bishop e6; d5 is
        // attacked by the bishop but defended by the pawn c4, so the push
        // is safe: 2 pieces. (c4-c5 and e3-e4 are safe but attack nothing;
        // the knight's attack on d4 is met by the pawn e3, the bishop's on
        // c4 by the king b3.)
        assert_eq!(terms("7k/8/2n1b3/8/2PP4/1K2P3/8/8 w - - 0 1"), [("threat_push", 2)]);
        // Without the pawn c4, d5 is attacked and not defended: no threat.
        assert_eq!(terms("7k/8/2n1b3/8/3P4/4P3/8/K7 w - - 0 1"), []);
        // A double step: b2-b4 would attack the rook c5.
        assert_eq!(terms("7k/8/8/2r5/8/8/1P6/K7 w - - 0 1"), [("threat_push", 1)]);
        // A double step over an occupied square is no push.
        assert_eq!(terms("7k/8/8/2r5/8/1B6/1P6/K7 w - - 0 1"), []);
    }
}
