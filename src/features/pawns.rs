//! `pawns`: pawn structure and passed pawns.
//!
//! Every term counts pawns of one side (white `+1` each, black `-1`), with
//! ranks and directions seen from the pawn's own side: "rank 6" is white's
//! 6th rank or black's 3rd, "in front" is up the board for white and down
//! for black. The code works in that own-side frame throughout: black's
//! bitboards are flipped vertically first ([`oriented`]), so one set of
//! shifts serves both colours and colour symmetry holds by construction.
//!
//! ## Pure pawn structure (depends only on where the pawns stand)
//!
//! These terms are a function of the two pawn bitboards alone, so an engine
//! may cache them in a pawn hash table keyed by the pawns
//! ([`Pawns::visit_structure`] takes nothing else):
//!
//! * `passed_r2` … `passed_r7` (6 terms): a *passed* pawn on that rank. A
//!   pawn is passed when no enemy pawn stands in front of it on its own or
//!   an adjacent file (no enemy pawn can block or capture it on its way)
//!   and no own pawn stands in front of it on its file. The last condition
//!   gives a doubled passer one bonus, to its front pawn: the rear pawn
//!   cannot advance past its twin, and `pawn_doubled` already prices it.
//!   The bonus grows steeply with the rank because an advanced passer ties
//!   enemy pieces down and is close to becoming a queen.
//! * `pawn_doubled`: a pawn with another own pawn in front of it on its
//!   file (a file with `n` pawns counts `n − 1`). Doubled pawns cannot
//!   defend each other and the rear one is blocked by its twin.
//! * `pawn_isolated`: a pawn with no own pawn on either adjacent file
//!   (every pawn of a doubled isolated pair counts). No pawn can ever
//!   defend it, so pieces must.
//! * `pawn_backward`: a pawn that is not isolated, has no own pawn on an
//!   adjacent file on its rank or behind it (so no own pawn can come to
//!   defend the square in front of it), and whose square in front (its
//!   *stop* square) is attacked or occupied by an enemy pawn: it cannot
//!   advance to join its neighbours, and the stop square is a hole an enemy
//!   piece can use. An isolated pawn is never also backward (it is already
//!   priced), and a passed pawn never is (no enemy pawn can reach its stop
//!   square).
//! * `connected_r2` … `connected_r7` (6 terms): a pawn on that rank that is
//!   *supported* (defended by an own pawn) or in a *phalanx* (an own pawn
//!   beside it on the same rank, adjacent file). Connected pawns defend
//!   each other and advance together; they are worth more further up.
//! * `pawn_support`: the number of own pawns defending each pawn, summed (a
//!   pawn defended by two pawns counts 2); with `connected_r*` this lets
//!   the fit value a second defender and a phalanx differently.
//!
//! ## Passed pawns among the pieces (needs the kings and the occupancy)
//!
//! These terms look at each passed pawn (as defined above) on the 4th to
//! 7th rank, where a passer's fate depends on the kings and on what stands
//! in its way. They matter most in endgames; the set is tapered, so the fit
//! gives them their own endgame values. [`Pawns::visit_passers`] computes
//! them from the passed pawns and the rest of the position:
//!
//! * `passed_own_king_r4` … `_r7` (4 terms): the king distance (king steps,
//!   capped at 5) from the pawn's own king to its stop square. Linear in the
//!   distance, per rank: a king near its passer escorts it, a far one does
//!   not; beyond five steps the king is out of play either way, hence the
//!   cap (a linear term would otherwise keep extrapolating).
//! * `passed_enemy_king_r4` … `_r7` (4 terms): the same for the enemy king,
//!   which blockades or captures the pawn when it is near.
//! * `passed_clear_r4` … `_r7` (4 terms): every square in front of the pawn,
//!   up to and including its promotion square, is empty (of either colour's
//!   pieces: an own piece in front blocks it too).
//! * `passed_safe_r4` … `_r7` (4 terms): the path is clear *and* no enemy
//!   piece, pawn or king attacks any square of it. A safe path is also
//!   clear, so the two bonuses add up: "clear" pays for no blockader,
//!   "safe" for no control of the way either.
//! * `passed_unstoppable`: the enemy has only its king and pawns, the
//!   pawn's path is clear, and the enemy king is outside the pawn's
//!   *square*: with `m` pawn moves to promote (`8 − rank`, but 5 from the
//!   2nd rank thanks to the double step) and `d` the enemy king's distance
//!   to the promotion square, less one when the enemy is to move,
//!   `d > m`. Such a pawn queens by force unless the enemy queens first or
//!   gives check on the way, which the linear model leaves to the other
//!   terms (both sides' unstoppable pawns cancel out).
//!
//! Terms are laid out as listed: 16 pure structure terms, then 17 passer
//! terms, 33 in all (66 columns).

use shakmaty::{Bitboard, Color, Position, Rank, Square};

use super::context::{Context, pawn_attacks, sign};

/// Squares of the a-file.
pub(crate) const FILE_A: u64 = 0x0101_0101_0101_0101;
/// Squares of the h-file.
pub(crate) const FILE_H: u64 = FILE_A << 7;
/// Squares of the first rank.
pub(crate) const RANK_1: u64 = 0xff;

/// `bits` with every square extended up its file to the 8th rank.
#[inline]
pub(crate) fn north_fill(bits: u64) -> u64 {
    let bits = bits | (bits << 8);
    let bits = bits | (bits << 16);
    bits | (bits << 32)
}

/// `bits` with every square extended down its file to the 1st rank.
#[inline]
pub(crate) fn south_fill(bits: u64) -> u64 {
    let bits = bits | (bits >> 8);
    let bits = bits | (bits >> 16);
    bits | (bits >> 32)
}

/// Every square of every file that holds a square of `bits`.
#[inline]
pub(crate) fn file_fill(bits: u64) -> u64 {
    north_fill(south_fill(bits))
}

/// The squares beside `bits` on the adjacent files (same rank).
#[inline]
pub(crate) fn sideways(bits: u64) -> u64 {
    ((bits & !FILE_A) >> 1) | ((bits & !FILE_H) << 1)
}

/// `bits` seen from `color`'s side: as they are for white, flipped
/// vertically for black, so that `color` always plays up the board.
#[inline]
pub(crate) fn oriented(color: Color, bits: Bitboard) -> u64 {
    match color {
        Color::White => bits.0,
        Color::Black => bits.flip_vertical().0,
    }
}

/// The pawns' passed pawns, per colour, each in its own side's frame (see
/// [`oriented`]): what [`Pawns::visit_structure`] hands to
/// [`Pawns::visit_passers`], and what a pawn hash table would keep.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PassedPawns {
    /// White's passed pawns, as they stand.
    pub white: u64,
    /// Black's passed pawns, flipped vertically.
    pub black: u64,
}

/// The pawn-structure feature set.
#[derive(Copy, Clone, Debug, Default)]
pub struct Pawns;

impl Pawns {
    /// One line for `pgntune features`.
    pub const MEANING: &'static str = "pawn structure (passed, doubled, isolated, backward, connected by rank) \
         and passed pawns' king distances, free path and square rule";

    /// Term of `passed_r2` (then r3 … r7).
    pub const PASSED: usize = 0;
    /// Term of `pawn_doubled`.
    pub const DOUBLED: usize = 6;
    /// Term of `pawn_isolated`.
    pub const ISOLATED: usize = 7;
    /// Term of `pawn_backward`.
    pub const BACKWARD: usize = 8;
    /// Term of `connected_r2` (then r3 … r7).
    pub const CONNECTED: usize = 9;
    /// Term of `pawn_support`.
    pub const SUPPORT: usize = 15;
    /// Number of pure pawn-structure terms (they come first).
    pub const STRUCTURE_TERMS: usize = 16;
    /// Term of `passed_own_king_r4` (then r5 … r7).
    pub const OWN_KING: usize = 16;
    /// Term of `passed_enemy_king_r4` (then r5 … r7).
    pub const ENEMY_KING: usize = 20;
    /// Term of `passed_clear_r4` (then r5 … r7).
    pub const CLEAR: usize = 24;
    /// Term of `passed_safe_r4` (then r5 … r7).
    pub const SAFE: usize = 28;
    /// Term of `passed_unstoppable`.
    pub const UNSTOPPABLE: usize = 32;
    /// Number of terms.
    pub const TERMS: usize = 33;

    /// The king distances of the passer terms are capped at this many steps.
    pub const KING_DISTANCE_CAP: u32 = 5;

    /// Term names, in term order.
    pub fn terms() -> Vec<String> {
        let by_rank = |name: &str, ranks: std::ops::RangeInclusive<u32>| ranks.map(move |r| format!("{name}_r{r}")).collect::<Vec<_>>();
        let mut terms = by_rank("passed", 2..=7);
        terms.extend(["pawn_doubled", "pawn_isolated", "pawn_backward"].map(String::from));
        terms.extend(by_rank("connected", 2..=7));
        terms.push("pawn_support".to_string());
        for name in ["passed_own_king", "passed_enemy_king", "passed_clear", "passed_safe"] {
            terms.extend(by_rank(name, 4..=7));
        }
        terms.push("passed_unstoppable".to_string());
        debug_assert_eq!(terms.len(), Self::TERMS);
        terms
    }

    /// Calls `emit(term, count)` for the set's terms in `ctx`'s position.
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(ctx: &Context, mut emit: F) {
        let pawns = ctx.board.pawns();
        let white = pawns & ctx.board.white();
        let black = pawns & ctx.board.black();
        let passed = Self::visit_structure(white, black, &mut emit);
        Self::visit_passers(ctx, passed, &mut emit);
    }

    /// Reports the pure pawn-structure terms (the first
    /// [`Self::STRUCTURE_TERMS`]) of the white and black pawns, and returns
    /// the passed pawns. Depends on nothing but the two bitboards.
    #[inline]
    pub fn visit_structure<F: FnMut(usize, i32)>(white: Bitboard, black: Bitboard, emit: &mut F) -> PassedPawns {
        let (w, b) = (Color::White, Color::Black);
        let white_passed = Self::side_structure(oriented(w, white), oriented(w, black), sign(w), emit);
        let black_passed = Self::side_structure(oriented(b, black), oriented(b, white), sign(b), emit);
        PassedPawns { white: white_passed, black: black_passed }
    }

    /// The structure terms of `ours` against `theirs`, both in our own
    /// frame (we play up the board), reported with sign `s`. Returns our
    /// passed pawns.
    #[inline]
    fn side_structure<F: FnMut(usize, i32)>(ours: u64, theirs: u64, s: i32, emit: &mut F) -> u64 {
        if ours == 0 {
            return 0;
        }
        // Squares below an enemy pawn on its file: a pawn there has the
        // enemy pawn in front of it; beside them, an enemy pawn in front on
        // an adjacent file.
        let below_theirs = south_fill(theirs >> 8);
        let stopped = below_theirs | sideways(below_theirs);
        // Squares below an own pawn on its file.
        let below_ours = south_fill(ours >> 8);
        let passed = ours & !stopped & !below_ours;
        let doubled = ours & below_ours;
        let isolated = ours & !sideways(file_fill(ours));
        let our_attacks = pawn_attacks(Color::White, Bitboard(ours)).0;
        let connected = ours & (our_attacks | sideways(ours));
        // Pawn defenders of each pawn: from the left and from the right.
        let support = (ours & ((ours & !FILE_A) << 7)).count_ones() + (ours & ((ours & !FILE_H) << 9)).count_ones();
        // A stop square is coverable when an own pawn on an adjacent file
        // attacks it now or can advance to attack it: it lies on or above
        // one of our pawn attacks.
        let coverable = north_fill(our_attacks);
        let contested = pawn_attacks(Color::Black, Bitboard(theirs)).0 | theirs;
        let backward = (((ours << 8) & !coverable & contested) >> 8) & !isolated;

        emit_by_rank(passed, Self::PASSED, s, emit);
        emit_count(Self::DOUBLED, doubled.count_ones(), s, emit);
        emit_count(Self::ISOLATED, isolated.count_ones(), s, emit);
        emit_count(Self::BACKWARD, backward.count_ones(), s, emit);
        emit_by_rank(connected, Self::CONNECTED, s, emit);
        emit_count(Self::SUPPORT, support, s, emit);
        passed
    }

    /// Reports the passer terms (king distances, clear and safe path, the
    /// square rule) of `passed` (from [`Self::visit_structure`]) in `ctx`'s
    /// position. The attack maps are computed only when a passer on the
    /// 4th rank or beyond has a clear path.
    #[inline]
    pub fn visit_passers<F: FnMut(usize, i32)>(ctx: &Context, passed: PassedPawns, emit: &mut F) {
        for (color, ours) in [(Color::White, passed.white), (Color::Black, passed.black)] {
            if ours != 0 {
                Self::side_passers(ctx, color, ours, emit);
            }
        }
    }

    /// The passer terms of `color`'s passed pawns `ours` (in its own frame).
    fn side_passers<F: FnMut(usize, i32)>(ctx: &Context, color: Color, ours: u64, emit: &mut F) {
        let board = ctx.board;
        let s = sign(color);
        let frame = |square: Square| match color {
            Color::White => square,
            Color::Black => square.flip_vertical(),
        };
        let own_king = ctx.king(color).map(frame);
        let enemy_king = ctx.king(!color).map(frame);
        let occupied = oriented(color, board.occupied());
        let enemy = board.by_color(!color);
        let enemy_has_pieces = (enemy & !board.pawns() & !board.kings()).any();
        let enemy_to_move = ctx.pos.turn() != color;
        for square in Bitboard(ours) {
            let rank = square.rank() as u32; // 0-based, own frame
            let path = Bitboard::from_file(square.file()).0 & (!0u64 << (square as u32 + 8));
            let clear = path & occupied == 0;
            if rank >= 3 {
                let r = (rank - 3) as usize;
                let stop = Square::new(square as u32 + 8);
                if let Some(king) = own_king {
                    let d = king.distance(stop).min(Self::KING_DISTANCE_CAP);
                    emit_count(Self::OWN_KING + r, d, s, emit);
                }
                if let Some(king) = enemy_king {
                    let d = king.distance(stop).min(Self::KING_DISTANCE_CAP);
                    emit_count(Self::ENEMY_KING + r, d, s, emit);
                }
                if clear {
                    emit(Self::CLEAR + r, s);
                    let attacked = oriented(color, *ctx.attacks().all.get(!color));
                    if path & attacked == 0 {
                        emit(Self::SAFE + r, s);
                    }
                }
            }
            if clear
                && !enemy_has_pieces
                && let Some(king) = enemy_king
            {
                let moves = (7 - rank).min(5);
                let promotion = Square::from_coords(square.file(), Rank::Eighth);
                let reach = king.distance(promotion).saturating_sub(u32::from(enemy_to_move));
                if reach > moves {
                    emit(Self::UNSTOPPABLE, s);
                }
            }
        }
    }
}

/// Reports each pawn of `bits` as `+s` to the term of its rank: term
/// `first` for rank 2 … `first + 5` for rank 7, one call per pawn (as
/// fast as six per-rank popcounts in `examples/eval_sets_speed.rs`, and
/// simpler).
#[inline]
fn emit_by_rank<F: FnMut(usize, i32)>(bits: u64, first: usize, s: i32, emit: &mut F) {
    let mut rest = bits;
    while rest != 0 {
        let rank = (rest.trailing_zeros() / 8) as usize;
        emit(first + rank - 1, s);
        rest &= rest - 1;
    }
}

/// Reports `count` (if non-zero) with sign `s`.
#[inline]
fn emit_count<F: FnMut(usize, i32)>(term: usize, count: u32, s: i32, emit: &mut F) {
    if count != 0 {
        emit(term, s * count as i32);
    }
}
