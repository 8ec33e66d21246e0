//! What the feature sets share about one position: the board, the game
//! phase and, computed once on first use, the attack maps.
//!
//! Mobility, king safety and threats all need to know which squares each
//! piece attacks. Computing that once per position and handing the same
//! [`Context`] to every set keeps the evaluation one pass over the pieces
//! however many sets ask, and keeps extraction and the engine on the very
//! same numbers.

use std::cell::{Ref, RefCell};

use shakmaty::{Bitboard, Board, ByColor, Chess, Color, Position, Role, Square, attacks};

/// The phase value of a board with (at least) the full set of pieces.
pub const MAX_PHASE: i32 = 24;

/// The game phase of `board` in `0..=24` (24 = opening, 0 = pawn ending):
/// knight and bishop 1, rook 2, queen 4, capped at 24.
#[inline]
pub fn phase(board: &Board) -> i32 {
    let minors = (board.knights() | board.bishops()).count() as i32;
    let rooks = board.rooks().count() as i32;
    let queens = board.queens().count() as i32;
    (minors + 2 * rooks + 4 * queens).min(MAX_PHASE)
}

/// The squares attacked by the pawns `pawns` of `color`.
#[inline]
pub fn pawn_attacks(color: Color, pawns: Bitboard) -> Bitboard {
    const NOT_A: u64 = !0x0101_0101_0101_0101;
    const NOT_H: u64 = !0x8080_8080_8080_8080;
    let p = u64::from(pawns);
    Bitboard(match color {
        Color::White => ((p & NOT_A) << 7) | ((p & NOT_H) << 9),
        Color::Black => ((p & NOT_A) >> 9) | ((p & NOT_H) >> 7),
    })
}

/// One piece (not a pawn) and the squares it attacks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PieceAttacks {
    /// What the piece is.
    pub role: Role,
    /// Where it stands.
    pub square: Square,
    /// The squares it attacks (sliders stop at the first piece in the way, of either colour).
    pub attacks: Bitboard,
}

/// The pieces (not pawns) of one side with their attacks, in fixed arrays:
/// the evaluation builds two of these at every node, and neither a heap
/// allocation nor copying a constant array may cost more than the attacks
/// themselves (an empty list is all zero bytes, cleared with a few stores).
#[derive(Copy, Clone)]
pub struct PieceList {
    len: usize,
    /// `Some` below `len`; `None` is zero, so that an empty list is all zeros.
    roles: [Option<Role>; PieceList::CAPACITY],
    squares: [Square; PieceList::CAPACITY],
    attacks: [Bitboard; PieceList::CAPACITY],
}

impl PieceList {
    /// A side has at most 16 men, so at most 16 pieces besides pawns (a
    /// king and 15 others). shakmaty refuses positions with more material
    /// than promotions can give.
    pub const CAPACITY: usize = 16;

    const EMPTY: PieceList = PieceList {
        len: 0,
        roles: [None; PieceList::CAPACITY],
        squares: [Square::A1; PieceList::CAPACITY],
        attacks: [Bitboard::EMPTY; PieceList::CAPACITY],
    };

    fn push(&mut self, piece: PieceAttacks) {
        // `len` stays below the capacity (see above): the mask only spares
        // the compiler three bounds checks per piece.
        debug_assert!(self.len < Self::CAPACITY);
        let i = self.len % Self::CAPACITY;
        self.roles[i] = Some(piece.role);
        self.squares[i] = piece.square;
        self.attacks[i] = piece.attacks;
        self.len += 1;
    }

    /// Number of pieces.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the side has no pieces (never, in a legal position: it has a king).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The pieces with their attacks, in order.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = PieceAttacks> + '_ {
        let n = self.len;
        (self.roles[..n].iter().zip(&self.squares[..n]).zip(&self.attacks[..n])).map(|((role, &square), &attacks)| PieceAttacks {
            role: role.unwrap_or(Role::King),
            square,
            attacks,
        })
    }
}

impl std::fmt::Debug for PieceList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Attack maps of both sides.
#[derive(Clone, Debug)]
pub struct Attacks {
    /// Every knight, bishop, rook, queen and king with its attacks, in
    /// square order per role (knights first, king last).
    pub pieces: ByColor<PieceList>,
    /// The union of the attacks of each role, indexed by `role as usize - 1`
    /// (pawns at 0, king at 5).
    pub by_role: ByColor<[Bitboard; 6]>,
    /// Every square the side attacks.
    pub all: ByColor<Bitboard>,
    /// Squares the side attacks at least twice (two pieces of any kind).
    pub twice: ByColor<Bitboard>,
}

impl Attacks {
    /// Maps with no attacks, all zero bytes (cleared with one `memset`).
    const EMPTY: Attacks = Attacks {
        pieces: ByColor { white: PieceList::EMPTY, black: PieceList::EMPTY },
        by_role: ByColor { white: [Bitboard::EMPTY; 6], black: [Bitboard::EMPTY; 6] },
        all: ByColor { white: Bitboard::EMPTY, black: Bitboard::EMPTY },
        twice: ByColor { white: Bitboard::EMPTY, black: Bitboard::EMPTY },
    };

    /// The attack maps of `board`.
    pub fn new(board: &Board) -> Attacks {
        let mut maps = Attacks::EMPTY;
        maps.fill(board);
        maps
    }

    /// Computes the maps of `board` into empty maps, in place: they are a
    /// few hundred bytes, and moving them around cost more than computing
    /// them.
    fn fill(&mut self, board: &Board) {
        for color in [Color::White, Color::Black] {
            self.add_side(board, color);
        }
    }

    fn add_side(&mut self, board: &Board, color: Color) {
        let occupied = board.occupied();
        let ours = board.by_color(color);
        let pieces = self.pieces.get_mut(color);
        let by_role = self.by_role.get_mut(color);
        let pawns = pawn_attacks(color, board.pawns() & ours);
        by_role[0] = pawns;
        let mut all = pawns;
        // Two pawns attacking the same square count twice too.
        let ours_pawns = u64::from(board.pawns() & ours);
        let (left, right) = match color {
            Color::White => ((ours_pawns & !0x0101_0101_0101_0101) << 7, (ours_pawns & !0x8080_8080_8080_8080) << 9),
            Color::Black => ((ours_pawns & !0x0101_0101_0101_0101) >> 9, (ours_pawns & !0x8080_8080_8080_8080) >> 7),
        };
        let mut twice = Bitboard(left & right);
        // One loop per role, each with its own attack lookup: a single
        // loop over the roles chose the lookup by a jump per piece.
        let mut add_role = |role: Role, lookup: &dyn Fn(Square) -> Bitboard| {
            let mut union = Bitboard::EMPTY;
            for square in board.by_role(role) & ours {
                let attacks = lookup(square);
                twice |= all & attacks;
                all |= attacks;
                union |= attacks;
                pieces.push(PieceAttacks { role, square, attacks });
            }
            by_role[role as usize - 1] = union;
        };
        add_role(Role::Knight, &attacks::knight_attacks);
        add_role(Role::Bishop, &|square| attacks::bishop_attacks(square, occupied));
        add_role(Role::Rook, &|square| attacks::rook_attacks(square, occupied));
        add_role(Role::Queen, &|square| attacks::queen_attacks(square, occupied));
        add_role(Role::King, &attacks::king_attacks);
        *self.all.get_mut(color) = all;
        *self.twice.get_mut(color) = twice;
    }
}

/// One position as the feature sets see it.
#[derive(Debug)]
pub struct Context<'a> {
    /// The position.
    pub pos: &'a Chess,
    /// Its board.
    pub board: &'a Board,
    /// Its game phase (see [`phase`]).
    pub phase: i32,
    /// Filled on first use, in place (see [`Attacks::fill`]).
    attacks: RefCell<Option<Attacks>>,
}

impl<'a> Context<'a> {
    /// The context of `pos`; attack maps are computed on first use.
    #[inline]
    pub fn new(pos: &'a Chess) -> Context<'a> {
        let board = pos.board();
        Context { pos, board, phase: phase(board), attacks: RefCell::new(None) }
    }

    /// The attack maps of both sides, computed on the first call and
    /// shared by every later one (the guard reads as `&Attacks`).
    #[inline]
    pub fn attacks(&self) -> Ref<'_, Attacks> {
        if self.attacks.borrow().is_none() {
            // No `Ref` to the maps exists yet, so this borrow cannot fail.
            self.attacks.borrow_mut().insert(Attacks::EMPTY).fill(self.board);
        }
        Ref::map(self.attacks.borrow(), |maps| maps.as_ref().expect("filled above"))
    }

    /// The pieces of `color`.
    #[inline]
    pub fn ours(&self, color: Color) -> Bitboard {
        self.board.by_color(color)
    }

    /// The pieces of `role` and `color`.
    #[inline]
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.board.by_role(role) & self.board.by_color(color)
    }

    /// The square of `color`'s king (positions from legal play always have one).
    #[inline]
    pub fn king(&self, color: Color) -> Option<Square> {
        self.board.king_of(color)
    }
}

/// `square` as seen from `color`'s side: itself for white, mirrored
/// vertically for black, so that "rank 7" means the 7th rank of that side.
#[inline]
pub fn relative_square(color: Color, square: Square) -> Square {
    match color {
        Color::White => square,
        Color::Black => square.flip_vertical(),
    }
}

/// `+1` for white, `-1` for black: how a side's count enters a
/// "white minus black" feature.
#[inline]
pub fn sign(color: Color) -> i32 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn phase_counts_non_pawn_material() {
        assert_eq!(phase(Chess::default().board()), 24);
        assert_eq!(phase(pos("4k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1").board()), 0);
        assert_eq!(phase(pos("r3k3/8/8/8/8/8/8/1N2K2Q w - - 0 1").board()), 7);
        // Promoted queens do not push the phase past 24.
        assert_eq!(phase(pos("4k3/8/8/8/8/8/QQQQ4/RNBQKBNR w - - 0 1").board()), 24);
    }

    #[test]
    fn pawn_attacks_match_shakmaty_square_by_square() {
        let p = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        let board = p.board();
        for color in [Color::White, Color::Black] {
            let pawns = board.pawns() & board.by_color(color);
            let expected = pawns.into_iter().fold(Bitboard::EMPTY, |acc, sq| acc | attacks::pawn_attacks(color, sq));
            assert_eq!(pawn_attacks(color, pawns), expected, "{color:?}");
        }
    }

    #[test]
    fn attack_maps_agree_with_attacks_from() {
        let p = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        let board = p.board();
        let maps = Attacks::new(board);
        for color in [Color::White, Color::Black] {
            let mut all = Bitboard::EMPTY;
            let mut count = [0u8; 64];
            for sq in board.by_color(color) {
                let a = board.attacks_from(sq);
                all |= a;
                for t in a {
                    count[t as usize] += 1;
                }
            }
            assert_eq!(*maps.all.get(color), all);
            let twice: Bitboard = (0..64u32).map(Square::new).filter(|&s| count[s as usize] >= 2).collect();
            assert_eq!(*maps.twice.get(color), twice, "{color:?}");
            assert_eq!(maps.pieces.get(color).len(), (board.by_color(color) & !board.pawns()).count());
        }
    }

    #[test]
    fn the_piece_list_holds_the_most_pieces_a_side_can_have() {
        // Eight promoted queens besides the full back rank: 16 pieces.
        let p = pos("4k3/pppppppp/8/8/8/8/QQQQQQQQ/RNBQKBNR w - - 0 1");
        let maps = Attacks::new(p.board());
        let white = maps.pieces.get(Color::White);
        assert_eq!(white.len(), PieceList::CAPACITY);
        assert_eq!(white.iter().filter(|piece| piece.role == Role::Queen).count(), 9);
        assert_eq!(white.iter().last().map(|piece| (piece.role, piece.square)), Some((Role::King, Square::E1)));
        assert_eq!(maps.pieces.get(Color::Black).len(), 1);
    }
}
