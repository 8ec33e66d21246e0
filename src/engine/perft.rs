//! Perft: counting the leaves of the legal move tree, through the same
//! move generation and make-move path ([`HashedPosition`]) as the search.
//! Known counts catch any error in that path, hashing included.

use shakmaty::Move;

use super::position::HashedPosition;

/// The number of legal move sequences of length `depth` from `pos`.
pub fn perft(pos: &HashedPosition, depth: u32) -> u64 {
    match depth {
        0 => 1,
        // Bulk counting: the moves of the last ply need not be made.
        1 => pos.legal_moves().len() as u64,
        _ => pos.legal_moves().into_iter().map(|m| perft(&pos.play(m), depth - 1)).sum(),
    }
}

/// [`perft`] split by first move, in generation order (for finding where
/// two move generators disagree).
pub fn divide(pos: &HashedPosition, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves().into_iter().map(|m| (m, perft(&pos.play(m), depth - 1))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Chess, fen::Fen};
    use std::time::Instant;

    fn check(fen: &str, depth: u32, expected: u64) {
        let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        let start = Instant::now();
        let nodes = perft(&HashedPosition::new(pos), depth);
        let elapsed = start.elapsed();
        println!(
            "perft {depth} {fen}: {nodes} in {:.3} s ({:.1} Mnps)",
            elapsed.as_secs_f64(),
            nodes as f64 / elapsed.as_secs_f64() / 1e6
        );
        assert_eq!(nodes, expected, "{fen}");
    }

    #[test]
    fn start_position() {
        check("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5, 4_865_609);
    }

    #[test]
    fn kiwipete() {
        check("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4, 4_085_603);
    }

    #[test]
    fn rook_endgame_with_en_passant_pins() {
        check("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674_624);
    }

    #[test]
    fn promotions_and_castling_rights() {
        check("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4, 422_333);
    }

    #[test]
    fn middlegame_with_checks() {
        check("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 4, 2_103_487);
    }

    #[test]
    fn divide_adds_up() {
        let pos = HashedPosition::new(Chess::default());
        let split = divide(&pos, 3);
        assert_eq!(split.len(), 20);
        assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), 8_902);
    }
}
