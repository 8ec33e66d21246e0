//! The search's view of a position: a shakmaty [`Chess`] together with its
//! Zobrist hash, and the one make-move path that search and perft share.
//!
//! Move generation and move making are shakmaty's; this type only keeps the
//! hash up to date (incrementally where shakmaty can, from scratch after
//! double pawn pushes, castling-right changes and en passant) so that the
//! transposition table and repetition detection see the same key that
//! [`position_hash`] gives callers for their game history.

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, FromSetup, Move, MoveList, Position};

/// The key the engine uses for `pos` in its transposition table and for
/// repetition detection: shakmaty's 64-bit Zobrist hash, counting an en
/// passant square only when an en passant capture is legal (as the rules of
/// repetition do).
pub fn position_hash(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// A position with its hash.
#[derive(Clone, Debug)]
pub struct HashedPosition {
    pos: Chess,
    hash: u64,
}

impl HashedPosition {
    /// Wraps `pos`, computing its hash.
    pub fn new(pos: Chess) -> HashedPosition {
        let hash = position_hash(&pos);
        HashedPosition { pos, hash }
    }

    /// The position.
    #[inline]
    pub fn chess(&self) -> &Chess {
        &self.pos
    }

    /// Its hash (see [`position_hash`]).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// All legal moves.
    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        self.pos.legal_moves()
    }

    /// The position after the legal move `m`.
    #[inline]
    pub fn play(&self, m: Move) -> HashedPosition {
        let mut pos = self.pos.clone();
        pos.play_unchecked(m);
        let hash = match self.pos.update_zobrist_hash(Zobrist64(self.hash), m, EnPassantMode::Legal) {
            Some(Zobrist64(hash)) => hash,
            None => position_hash(&pos),
        };
        HashedPosition { pos, hash }
    }

    /// The position with the other side to move and no en passant square
    /// (a "null move"), or `None` when that is not a legal position (the
    /// side to move is in check). The halfmove clock restarts at 0 so that
    /// repetition detection never looks back across the null move.
    pub fn play_null(&self) -> Option<HashedPosition> {
        let mode = self.pos.castles().mode();
        let mut setup = self.pos.to_setup(EnPassantMode::Always);
        setup.swap_turn();
        setup.halfmoves = 0;
        let pos = Chess::from_setup(setup, mode).ok()?;
        Some(HashedPosition::new(pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn walk(p: &HashedPosition, depth: u32) {
        assert_eq!(p.hash(), position_hash(p.chess()), "{:?}", p.chess());
        if depth == 0 {
            return;
        }
        for m in p.legal_moves() {
            walk(&p.play(m), depth - 1);
        }
    }

    #[test]
    fn incremental_hash_matches_a_fresh_one() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            walk(&HashedPosition::new(pos), 3);
        }
    }

    #[test]
    fn null_move_swaps_the_side_and_drops_en_passant() {
        let pos: Chess =
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3".parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        let p = HashedPosition::new(pos);
        let null = p.play_null().unwrap();
        assert_ne!(null.chess().turn(), p.chess().turn());
        assert_eq!(null.chess().maybe_ep_square(), None);
        assert_eq!(null.hash(), position_hash(null.chess()));
        // In check there is no null move.
        let check: Chess = "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1".parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        assert!(HashedPosition::new(check).play_null().is_none());
    }
}
