//! The terms that depend on nothing but the pawns and the kings, apart from
//! the rest: what an engine's pawn hash table keeps.
//!
//! The pawn structure and the kings' shelters change on few moves, so a
//! search sees the same pawns and kings at most of its nodes. The engine
//! therefore adds these terms up once per [`PawnKingKey`] and keeps the sums
//! (`engine::eval_cache`). The terms themselves are the sets' own: the
//! pawn-structure part of `pawns` and the shield, storm and file part of
//! `king_safety` (the same functions their `visit` calls), so the split
//! changes no feature, only when it is computed.
//!
//! [`FeatureLayout::visit_pawn_king_terms`] and
//! [`FeatureLayout::visit_other_terms`] together report exactly the terms
//! of [`FeatureLayout::visit_terms`] (in another order); the tests check
//! that, and that the first depends only on the key.

use shakmaty::{Bitboard, Board, Color};

use super::pawns::{PassedPawns, Pawns};
use super::{Context, FeatureLayout, FeatureSet, KingSafety};

/// The pawns and kings of a position: everything that
/// [`FeatureLayout::visit_pawn_king_terms`] reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PawnKingKey {
    /// White's pawns.
    pub white_pawns: Bitboard,
    /// Black's pawns.
    pub black_pawns: Bitboard,
    /// White's king square in the low byte, black's in the high one (64: no king).
    pub kings: u16,
}

impl PawnKingKey {
    /// The key of `board`.
    #[inline]
    pub fn of(board: &Board) -> PawnKingKey {
        let king = |color| board.king_of(color).map_or(64, |sq| sq as u16);
        PawnKingKey {
            white_pawns: board.pawns() & board.white(),
            black_pawns: board.pawns() & board.black(),
            kings: king(Color::White) | (king(Color::Black) << 8),
        }
    }

    /// A 64-bit mix of the key, for addressing a table.
    #[inline]
    pub fn hash(&self) -> u64 {
        let mixed = self.white_pawns.0 ^ self.black_pawns.0.rotate_left(29) ^ u64::from(self.kings).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        // A multiply and a shift spread every input bit over the high bits.
        let h = mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^ (h >> 32)
    }
}

/// What the other terms need from the pawn-king pass: the passed pawns,
/// which the passer terms of `pawns` (king distances, clear paths) start
/// from.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PawnKingFacts {
    /// The passed pawns of each side (empty when the layout has no `pawns`).
    pub passed: PassedPawns,
}

impl FeatureLayout {
    /// Calls `emit(term, count)` for the layout's terms that depend only on
    /// the pawns and kings ([`PawnKingKey`]), and returns what
    /// [`Self::visit_other_terms`] needs of them.
    #[inline]
    pub fn visit_pawn_king_terms<F: FnMut(usize, i32)>(&self, ctx: &Context, mut emit: F) -> PawnKingFacts {
        let mut facts = PawnKingFacts::default();
        for placed in &self.sets {
            let offset = placed.term_offset;
            match placed.set {
                FeatureSet::Pawns => {
                    let (white, black) = (ctx.board.pawns() & ctx.board.white(), ctx.board.pawns() & ctx.board.black());
                    facts.passed = Pawns::visit_structure(white, black, &mut |t, v| emit(offset + t, v));
                }
                FeatureSet::KingSafety => KingSafety::visit_pawns_and_files(ctx, |t, v| emit(offset + t, v)),
                _ => {}
            }
        }
        facts
    }

    /// Calls `emit(term, count)` for every other term of the layout: with
    /// [`Self::visit_pawn_king_terms`], all the terms of
    /// [`Self::visit_terms`]. `facts` must be those of the same pawns and
    /// kings.
    #[inline]
    pub fn visit_other_terms<F: FnMut(usize, i32)>(&self, ctx: &Context, facts: &PawnKingFacts, mut emit: F) {
        for placed in &self.sets {
            let offset = placed.term_offset;
            match placed.set {
                FeatureSet::Pawns => Pawns::visit_passers(ctx, facts.passed, &mut |t, v| emit(offset + t, v)),
                FeatureSet::KingSafety => KingSafety::visit_pieces_aiming(ctx, |t, v| emit(offset + t, v)),
                set => set.visit(ctx, |t, v| emit(offset + t, v)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, FromSetup, Position, Square};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    /// (term, count) pairs as a visit reports them.
    type Pairs = Vec<(usize, i32)>;

    /// The terms as a sorted list of (term, summed count), zeros dropped.
    fn summed(mut pairs: Pairs) -> Pairs {
        pairs.sort_unstable();
        let mut out: Pairs = Vec::new();
        for (t, v) in pairs {
            match out.last_mut() {
                Some((last, sum)) if *last == t => *sum += v,
                _ => out.push((t, v)),
            }
        }
        out.retain(|&(_, v)| v != 0);
        out
    }

    fn split(layout: &FeatureLayout, p: &Chess) -> (Pairs, Pairs) {
        let ctx = Context::new(p);
        let mut first = Vec::new();
        let facts = layout.visit_pawn_king_terms(&ctx, |t, v| first.push((t, v)));
        let mut rest = Vec::new();
        layout.visit_other_terms(&ctx, &facts, |t, v| rest.push((t, v)));
        (first, rest)
    }

    /// Every position of a short game tree from a few varied roots.
    fn positions() -> Vec<Chess> {
        let roots = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 1 8",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "6k1/5p1p/6p1/8/8/8/5PPP/6K1 w - - 0 1",
            "k7/pp6/8/8/6pp/7P/5P2/6K1 w - - 0 1",
        ];
        let mut out = Vec::new();
        for fen in roots {
            let root = pos(fen);
            out.push(root.clone());
            for m in root.legal_moves() {
                let mut child = root.clone();
                child.play_unchecked(m);
                for m2 in child.legal_moves() {
                    let mut grandchild = child.clone();
                    grandchild.play_unchecked(m2);
                    out.push(grandchild);
                }
                out.push(child);
            }
        }
        out
    }

    #[test]
    fn the_two_parts_are_exactly_the_whole() {
        for layout in [FeatureLayout::full(), FeatureLayout::parse("pawns").unwrap(), FeatureLayout::parse("material,king_safety,pst").unwrap()] {
            for p in positions() {
                let ctx = Context::new(&p);
                let mut whole = Vec::new();
                layout.visit_terms(&ctx, |t, v| whole.push((t, v)));
                let (first, rest) = split(&layout, &p);
                let both: Vec<_> = first.into_iter().chain(rest).collect();
                assert_eq!(summed(both), summed(whole), "{}: {}", layout.spec(), Fen::from_position(&p, shakmaty::EnPassantMode::Legal));
            }
        }
    }

    #[test]
    fn the_pawn_king_part_depends_only_on_pawns_and_kings() {
        // Remove every piece but pawns and kings: the key stays, and so
        // must the pawn-king terms and facts; the other terms change.
        let layout = FeatureLayout::full();
        let mut changed_rest = 0;
        for p in positions() {
            let board = p.board();
            let mut bare = board.clone();
            for square in board.occupied() & !board.pawns() & !board.kings() {
                bare.discard_piece_at(square);
            }
            let mut setup = shakmaty::Setup::empty();
            setup.board = bare;
            setup.turn = p.turn();
            let Ok(stripped) = Chess::from_setup(setup, CastlingMode::Standard) else { continue };
            assert_eq!(PawnKingKey::of(stripped.board()), PawnKingKey::of(board));
            let (ctx_a, ctx_b) = (Context::new(&p), Context::new(&stripped));
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let facts_a = layout.visit_pawn_king_terms(&ctx_a, |t, v| a.push((t, v)));
            let facts_b = layout.visit_pawn_king_terms(&ctx_b, |t, v| b.push((t, v)));
            assert_eq!(summed(a), summed(b));
            assert_eq!(facts_a, facts_b);
            changed_rest += usize::from(split(&layout, &p).1 != split(&layout, &stripped).1);
        }
        assert!(changed_rest > 100, "the test must strip positions whose other terms differ ({changed_rest})");
    }

    #[test]
    fn keys_tell_pawns_and_kings_apart() {
        let a = PawnKingKey::of(pos("6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1").board());
        let b = PawnKingKey::of(pos("6k1/5ppp/8/8/8/8/5PPP/7K w - - 0 1").board());
        let c = PawnKingKey::of(pos("6k1/5ppp/8/8/8/7P/5PP1/6K1 w - - 0 1").board());
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_ne!(a.hash(), b.hash());
        assert_ne!(a.hash(), c.hash());
        assert_eq!(a.kings, Square::G1 as u16 | ((Square::G8 as u16) << 8));
    }
}
