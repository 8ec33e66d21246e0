//! Static exchange evaluation (SEE): what a capture wins once both sides
//! have recaptured on its target square with their least valuable pieces,
//! each side free to stop when going on would cost it. Pins and checks are
//! ignored, as usual: SEE is a cheap estimate for pruning, not a search.
//!
//! Attacks come from shakmaty's attack tables; sliders behind a piece that
//! has taken part join in (x-rays) because the attackers are recomputed
//! with that piece removed from the occupancy.

use shakmaty::{Bitboard, Board, Color, Move, Role, Square};

/// Roles from least to most valuable, for picking the next recapturer.
const CHEAPEST_FIRST: [Role; 6] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King];

/// True when `m`, played by `turn` on `board`, wins at least `threshold`
/// (in the units of `values`, indexed by `role as usize - 1`) in the
/// exchange on its target square. Quiet moves count as winning 0, and
/// castling always passes a threshold of 0 or less.
pub fn see_at_least(board: &Board, turn: Color, m: Move, threshold: i32, values: &[i32; 6]) -> bool {
    let value = |role: Role| values[role as usize - 1];
    let (to, captured, mut occupied) = match m {
        Move::Normal { from, to, capture, .. } => (to, capture.map_or(0, value), board.occupied().without(from)),
        Move::EnPassant { from, to } => {
            let victim = Square::from_coords(to.file(), from.rank());
            (to, value(Role::Pawn), board.occupied().without(from).without(victim))
        }
        Move::Castle { .. } | Move::Put { .. } => return threshold <= 0,
    };
    let promotion_gain = m.promotion().map_or(0, |p| value(p) - value(Role::Pawn));
    // `swap` is what the side that just moved stands to gain if the
    // exchange stops here, minus the threshold.
    let mut swap = captured + promotion_gain - threshold;
    if swap < 0 {
        return false;
    }
    swap = value(m.promotion().unwrap_or(m.role())) - swap;
    if swap <= 0 {
        return true;
    }

    let mut side = turn;
    let mut result = 1;
    loop {
        side = !side;
        let attackers = attackers_to(board, to, occupied);
        let ours = attackers & board.by_color(side);
        if ours.is_empty() {
            break;
        }
        result ^= 1;
        let Some((role, square)) = cheapest(board, ours) else { break };
        if role == Role::King {
            // The king may only recapture when nothing defends the square.
            return if (attackers & board.by_color(!side)).any() { result == 0 } else { result == 1 };
        }
        swap = value(role) - swap;
        if swap < result {
            break;
        }
        occupied = occupied.without(square);
    }
    result == 1
}

/// Pieces of both colours attacking `square` through `occupied` (pieces
/// outside `occupied` have already been exchanged and do not attack).
fn attackers_to(board: &Board, square: Square, occupied: Bitboard) -> Bitboard {
    (board.attacks_to(square, Color::White, occupied) | board.attacks_to(square, Color::Black, occupied)) & occupied
}

fn cheapest(board: &Board, candidates: Bitboard) -> Option<(Role, Square)> {
    CHEAPEST_FIRST.into_iter().find_map(|role| (board.by_role(role) & candidates).first().map(|sq| (role, sq)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Chess, Position, fen::Fen, uci::UciMove};

    const VALUES: [i32; 6] = {
        let c = crate::features::material::Material::CLASSICAL_VALUES;
        [c[0], c[1], c[2], c[3], c[4], 0]
    };

    fn see(fen: &str, uci: &str, threshold: i32) -> bool {
        let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        see_at_least(pos.board(), pos.turn(), m, threshold, &VALUES)
    }

    #[test]
    fn undefended_pieces_are_won() {
        let fen = "4k3/8/8/3r4/8/8/8/3RK3 w - - 0 1";
        assert!(see(fen, "d1d5", 500));
        assert!(!see(fen, "d1d5", 501));
    }

    #[test]
    fn defended_pieces_cost_the_difference() {
        // Rook takes a pawn defended by a pawn: +100 - 500.
        let fen = "4k3/8/2p5/3p4/8/8/8/3RK3 w - - 0 1";
        assert!(see(fen, "d1d5", -400));
        assert!(!see(fen, "d1d5", -399));
        assert!(!see(fen, "d1d5", 0));
        // Pawn takes a defended knight: wins 300 - 100 at least.
        assert!(see("4k3/8/2p5/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 200));
    }

    #[test]
    fn x_rays_join_the_exchange() {
        // Two white rooks against a pawn defended by one black rook on the
        // d-file: RxP RxR RxR wins the pawn and a rook for a rook.
        let fen = "3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1";
        assert!(see(fen, "d2d5", 100));
        assert!(!see(fen, "d2d5", 101));
    }

    #[test]
    fn the_king_cannot_recapture_into_a_defended_square() {
        // Qxf7+ is defended only by the king, but a bishop backs the
        // queen up: the king cannot take, so the queen wins a pawn.
        let fen = "4k3/5p2/8/7Q/2B5/8/8/4K3 w - - 0 1";
        assert!(see(fen, "h5f7", 100));
        // Without the bishop the king takes the queen.
        assert!(!see("4k3/5p2/8/7Q/8/8/8/4K3 w - - 0 1", "h5f7", 0));
    }

    #[test]
    fn quiet_moves_and_promotions() {
        assert!(see("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a7", 0));
        // A pawn pushed where a knight takes it loses it.
        assert!(!see("4k3/1n6/8/8/2P5/8/8/4K3 w - - 0 1", "c4c5", 0));
        // Promotion to a queen on an undefended square gains 800.
        assert!(see("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q", 800));
        // En passant takes a pawn.
        assert!(see("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100));
    }
}
