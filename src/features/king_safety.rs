//! `king_safety`: the pawns in front of each king, the files around it and
//! the enemy pieces aiming at it.
//!
//! Every term describes one side's *own* king and counts from that side:
//! white's king adds `+n`, black's king `-n`. A weight is therefore the
//! value of the feature for the king's owner: a pawn shield gets a positive
//! weight, an attacker on the king zone a negative one.
//!
//! ## Files around the king
//!
//! The king's *files* are its own file and the files on either side (two
//! at the board's edge). Each file is described by its *class*, its
//! distance to the nearer edge: `ah` (a and h files), `bg`, `cf`, `de`,
//! so that a king on g1 and one on b1 use the same terms, and the g-pawn in
//! front of a king on g1 is an `bg` shield pawn. "In front" means on a rank
//! strictly beyond the king's, seen from the king's side; the *distance* of
//! a pawn is the number of ranks between it and the king.
//!
//! For each of the king's files:
//!
//! * `shield_<class>_<d>` (d = 1, 2, 3): the nearest own pawn in front of
//!   the king on that file is d ranks ahead. No own pawn within three ranks
//!   ahead is the baseline (no term), so the shield terms are the value of a
//!   pawn relative to a missing one;
//! * `storm_<class>_<d>` (d = 1 … 4): the nearest enemy pawn in front of the
//!   king on that file is d ranks ahead and not blocked; `storm_<class>_blocked`:
//!   it is within four ranks and the square in front of it (towards the
//!   king) holds an own pawn, so it cannot advance and open the file.
//!   Farther or no enemy pawns: baseline;
//! * `kfile_open`: no pawn of either side on the file; `kfile_no_own`:
//!   only enemy pawns (the king's side lacks a pawn there); `kfile_no_enemy`:
//!   only own pawns (the enemy's rooks have a half-open file towards the
//!   king). The three count files, so a king on g1 behind an open g-file
//!   and a half-open h-file has `kfile_open = 1`, `kfile_no_own = 1`.
//!
//! ## Pieces aiming at the king
//!
//! The *king zone* is the king's square, the squares next to it and the
//! three squares on the rank beyond those, towards the enemy: f1-h3 for a
//! king on g1 (9 squares), a 3 × 4 block in the middle of the board.
//!
//! * `katt_N`, `katt_B`, `katt_R`, `katt_Q`: enemy knights, bishops, rooks,
//!   queens that attack at least one square of the zone (each counts once);
//! * `katt_n2`, `katt_n3`, `katt_n4`, `katt_n5`: the number of such enemy
//!   pieces (all four kinds) is 2, 3, 4, or 5 and more (one term at most per
//!   king). An attack grows much faster than the number of attackers; these
//!   one-hot terms let the fit find that curve, the per-kind terms the
//!   value of each attacker;
//! * `kzone_weak`: zone squares the enemy attacks that nothing of the
//!   king's side but the king defends;
//! * `kcheck_N`, `kcheck_B`, `kcheck_R`, `kcheck_Q`: `1` when an enemy
//!   piece of that kind can give a *safe check*: move to a square, not
//!   occupied by its own side, from which it would attack the king, where
//!   the king's side does not attack it, or where only the king defends it
//!   and the enemy attacks it twice. Queen checks use the bishop's and the
//!   rook's lines.
//!
//! Attacks are the shared maps ([`Context::attacks`]): pseudo-legal, pins
//! ignored, sliders stopping at the first piece in their way.
//!
//! ## Why, and the choices made
//!
//! * Pawn shield and storm decide how safe a castled king is for the whole
//!   middlegame. Files are grouped by their distance to the edge (as the
//!   shield squares of a king on b1 and g1 do the same job), and pawns by
//!   their distance from the king (a pawn on g2 before a king on g1 guards
//!   f3 and h3, one on g4 has left holes); three shield ranks and four storm
//!   ranks cover what matters, with a blocked storm pawn apart because it
//!   can no longer open a file. 32 terms for both.
//! * Open files next to the king are the highways of a rook attack; which
//!   side lacks the pawn matters, so there are three kinds.
//! * The attack terms are linear in the weights but not in the number of
//!   attackers (the one-hot `katt_n*`): engines use a quadratic or a table
//!   of "attack units" because one attacker is harmless and four are
//!   usually decisive. Safe checks are the best single sign of a king hunt.
//! * The set is tapered like the whole evaluation: the fit is free to let
//!   shelters matter in the middlegame and hardly at all in an ending.
//!
//! No term adds up to a piece count, so the set has no [`super::TermGroup`].

use shakmaty::{Bitboard, Color, File, Square, attacks};

use super::context::{Context, sign};

/// The king safety feature set.
#[derive(Copy, Clone, Debug, Default)]
pub struct KingSafety;

/// File classes by distance to the nearer edge, in term order.
const CLASSES: [&str; 4] = ["ah", "bg", "cf", "de"];
/// Shield distances with a term (1 ..= this).
const SHIELD_RANKS: u32 = 3;
/// Storm distances with a term (1 ..= this); a blocked pawn within them has its own term.
const STORM_RANKS: u32 = 4;

/// Index of `shield_ah_1`; then per class, distances 1..=3.
const SHIELD: usize = 0;
/// Index of `storm_ah_1`; then per class, distances 1..=4 and `blocked`.
const STORM: usize = SHIELD + CLASSES.len() * SHIELD_RANKS as usize;
/// Terms per class in the storm block.
const STORM_PER_CLASS: usize = STORM_RANKS as usize + 1;
/// Index of `kfile_open` (then `kfile_no_own`, `kfile_no_enemy`).
const KFILE: usize = STORM + CLASSES.len() * STORM_PER_CLASS;
/// Index of `katt_N` (then B, R, Q).
const ATTACKERS: usize = KFILE + 3;
/// Index of `katt_n2` (then n3, n4, n5).
const ATTACKER_COUNT: usize = ATTACKERS + 4;
/// Index of `kzone_weak`.
const WEAK: usize = ATTACKER_COUNT + 4;
/// Index of `kcheck_N` (then B, R, Q).
const CHECKS: usize = WEAK + 1;
/// Number of terms.
const TERMS: usize = CHECKS + 4;

impl KingSafety {
    /// One line for `pgntune features`.
    pub const MEANING: &'static str = "each king's pawn shield and storm by file and rank, open files beside it, attackers on its zone, safe checks";

    /// Number of terms.
    pub const TERMS: usize = TERMS;

    /// Term names, in term order.
    pub fn terms() -> Vec<String> {
        let mut names = Vec::with_capacity(TERMS);
        for class in CLASSES {
            names.extend((1..=SHIELD_RANKS).map(|d| format!("shield_{class}_{d}")));
        }
        for class in CLASSES {
            names.extend((1..=STORM_RANKS).map(|d| format!("storm_{class}_{d}")));
            names.push(format!("storm_{class}_blocked"));
        }
        names.extend(["kfile_open", "kfile_no_own", "kfile_no_enemy"].map(String::from));
        names.extend(["N", "B", "R", "Q"].map(|r| format!("katt_{r}")));
        names.extend((2..=5).map(|n| format!("katt_n{n}")));
        names.push("kzone_weak".to_string());
        names.extend(["N", "B", "R", "Q"].map(|r| format!("kcheck_{r}")));
        debug_assert_eq!(names.len(), TERMS);
        names
    }

    /// Calls `emit(term, count)` for each king (white's `+`, black's `-`).
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(ctx: &Context, mut emit: F) {
        Self::visit_pawns_and_files(ctx, &mut emit);
        Self::visit_pieces_aiming(ctx, emit);
    }

    /// The shield, storm and file terms of [`Self::visit`] alone: they
    /// depend on nothing but the pawns and the kings (see
    /// [`super::pawn_king`]).
    #[inline]
    pub fn visit_pawns_and_files<F: FnMut(usize, i32)>(ctx: &Context, mut emit: F) {
        for color in [Color::White, Color::Black] {
            if let Some(king) = ctx.king(color) {
                let s = sign(color);
                pawns_and_files(ctx, color, king, |t, n| emit(t, s * n));
            }
        }
    }

    /// The other terms of [`Self::visit`]: attackers, weak squares and checks.
    #[inline]
    pub fn visit_pieces_aiming<F: FnMut(usize, i32)>(ctx: &Context, mut emit: F) {
        for color in [Color::White, Color::Black] {
            if let Some(king) = ctx.king(color) {
                let s = sign(color);
                pieces_aiming(ctx, color, king, |t, n| emit(t, s * n));
            }
        }
    }
}

/// The king zone of `color`'s king on `king` (see the module documentation).
pub fn king_zone(color: Color, king: Square) -> Bitboard {
    let ring = attacks::king_attacks(king).with(king);
    ring | ring.shift(forward(color))
}

/// The square offset of one step forward for `color`.
fn forward(color: Color) -> i32 {
    match color {
        Color::White => 8,
        Color::Black => -8,
    }
}

/// The squares on the ranks strictly in front of `king`, from `color`'s side.
fn ahead_of(color: Color, king: Square) -> Bitboard {
    let rank = king.rank() as i32;
    match color {
        Color::White => Bitboard::FULL.shift(8 * (rank + 1)),
        Color::Black => Bitboard::FULL.shift(-8 * (8 - rank)),
    }
}

/// Shield, storm and file terms of `color`'s king, counted positively.
#[inline]
fn pawns_and_files(ctx: &Context, color: Color, king: Square, mut emit: impl FnMut(usize, i32)) {
    let board = ctx.board;
    let ours = board.pawns() & board.by_color(color);
    let theirs = board.pawns() & board.by_color(!color);
    let ahead = ahead_of(color, king);
    // The pawn nearest to the king among pawns in front of it on one file.
    let nearest = |pawns: Bitboard| match color {
        Color::White => pawns.first(),
        Color::Black => pawns.last(),
    };
    let distance = |pawn: Square| pawn.rank().distance(king.rank());
    let king_file = king.file() as u32;
    for f in king_file.saturating_sub(1)..=(king_file + 1).min(7) {
        let file = Bitboard::from_file(File::new(f));
        let class = f.min(7 - f) as usize;
        let (ours_here, theirs_here) = (ours & file, theirs & file);
        match (ours_here.any(), theirs_here.any()) {
            (false, false) => emit(KFILE, 1),
            (false, true) => emit(KFILE + 1, 1),
            (true, false) => emit(KFILE + 2, 1),
            (true, true) => {}
        }
        if let Some(pawn) = nearest(ours_here & ahead) {
            let d = distance(pawn);
            if d <= SHIELD_RANKS {
                emit(SHIELD + class * SHIELD_RANKS as usize + d as usize - 1, 1);
            }
        }
        if let Some(pawn) = nearest(theirs_here & ahead) {
            let d = distance(pawn);
            if d <= STORM_RANKS {
                let blocked = ours.contains(pawn.offset(-forward(color)).expect("a pawn in front of a king has a square behind it"));
                let kind = if blocked { STORM_RANKS } else { d - 1 };
                emit(STORM + class * STORM_PER_CLASS + kind as usize, 1);
            }
        }
    }
}

/// Attacker, weak-square and safe-check terms of `color`'s king, counted positively.
#[inline]
fn pieces_aiming(ctx: &Context, color: Color, king: Square, mut emit: impl FnMut(usize, i32)) {
    let maps = ctx.attacks();
    let enemy = !color;
    let zone = king_zone(color, king);
    // Indexed by `role as usize - 2`: knight to queen, then the king (not a term).
    let mut by_role = [0i32; 5];
    for piece in maps.pieces.get(enemy).iter() {
        // Counted without a branch: whether a piece hits the zone is a coin toss to the predictor.
        by_role[piece.role as usize - 2] += i32::from(piece.attacks.intersects(zone));
    }
    for (i, &n) in by_role[..4].iter().enumerate() {
        if n != 0 {
            emit(ATTACKERS + i, n);
        }
    }
    let attackers = by_role[..4].iter().sum::<i32>();
    if attackers >= 2 {
        emit(ATTACKER_COUNT + attackers.min(5) as usize - 2, 1);
    }

    let ours = maps.by_role.get(color);
    let defended_but_by_king = ours[0] | ours[1] | ours[2] | ours[3] | ours[4];
    let their_all = *maps.all.get(enemy);
    let weak = zone & their_all & !defended_but_by_king;
    if weak.any() {
        emit(WEAK, weak.count() as i32);
    }

    let safe = !ctx.ours(enemy) & (!*maps.all.get(color) | (*maps.twice.get(enemy) & !defended_but_by_king));
    let occupied = ctx.board.occupied();
    let theirs = maps.by_role.get(enemy);
    // The king's lines cost a slider lookup each: skip them when no enemy piece can use them.
    let lines = |sliders: Bitboard, lookup: fn(Square, Bitboard) -> Bitboard| {
        if sliders.any() { lookup(king, occupied) } else { Bitboard::EMPTY }
    };
    let diagonal = lines(theirs[2] | theirs[4], attacks::bishop_attacks);
    let straight = lines(theirs[3] | theirs[4], attacks::rook_attacks);
    let checks = [attacks::knight_attacks(king) & theirs[1], diagonal & theirs[2], straight & theirs[3], (diagonal | straight) & theirs[4]];
    for (i, squares) in checks.into_iter().enumerate() {
        if (squares & safe).any() {
            emit(CHECKS + i, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::FeatureSet;
    use crate::features::tests::named_terms;

    fn terms(fen: &str) -> Vec<(&'static str, i16)> {
        named_terms(FeatureSet::KingSafety, fen)
    }

    #[test]
    fn names_are_unique_and_indices_agree() {
        let names = KingSafety::terms();
        assert_eq!(names.len(), 48);
        assert_eq!(names[SHIELD + 3 + 1], "shield_bg_2");
        assert_eq!(names[STORM + 2 * STORM_PER_CLASS + 4], "storm_cf_blocked");
        assert_eq!(names[KFILE + 2], "kfile_no_enemy");
        assert_eq!(names[ATTACKERS + 3], "katt_Q");
        assert_eq!(names[ATTACKER_COUNT + 3], "katt_n5");
        assert_eq!(names[WEAK], "kzone_weak");
        assert_eq!(names[CHECKS], "kcheck_N");
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
    }

    #[test]
    fn zones_and_ranks_ahead() {
        let zone = king_zone(Color::White, Square::G1);
        assert_eq!(
            zone,
            Bitboard::from_iter([Square::F1, Square::G1, Square::H1, Square::F2, Square::G2, Square::H2, Square::F3, Square::G3, Square::H3])
        );
        assert_eq!(king_zone(Color::Black, Square::D5).count(), 12);
        assert!(king_zone(Color::Black, Square::D5).contains(Square::C3));
        assert_eq!(ahead_of(Color::White, Square::G1), Bitboard::FULL.shift(8));
        assert_eq!(ahead_of(Color::White, Square::A8), Bitboard::EMPTY);
        assert_eq!(ahead_of(Color::Black, Square::E8), Bitboard::FULL.shift(-8));
        assert_eq!(ahead_of(Color::Black, Square::E1), Bitboard::EMPTY);
    }

    #[test]
    fn a_castled_shield_against_a_broken_one() {
        // White king g1 behind f2 g2 h2 (classes cf, bg, ah; distance 1).
        // Black king g8 behind f7, h7 and g6 (distance 2 on the g-file).
        // Every one of those files holds pawns of both sides and no enemy
        // pawn is within four ranks: no file or storm terms. The shields
        // cancel but for the g-file.
        let t = terms("6k1/5p1p/6p1/8/8/8/5PPP/6K1 w - - 0 1");
        assert_eq!(t, [("shield_bg_1", 1), ("shield_bg_2", -1)]);
    }

    #[test]
    fn storms_open_files_and_blocked_pawns() {
        // White king g1, own pawns f2, h3; black pawns g4, h4.
        // f-file: f2 at distance 1 (shield_cf_1), no black pawn
        // (kfile_no_enemy). g-file: no own pawn (kfile_no_own); g4 three
        // ranks ahead, g3 empty (storm_bg_3). h-file: h3 at distance 2
        // (shield_ah_2); h4 is blocked by h3 (storm_ah_blocked).
        // The black pawns attack f3, h3 (g4) and g3 (h4) in white's zone;
        // f2 defends g3, nothing but the king defends f3 and h3: kzone_weak 2.
        // Black king a8 behind a7, b7 (shield_ah_1, shield_bg_1), no white
        // pawns on the a- and b-files (kfile_no_enemy 2, net 1 − 2 = −1).
        let t = terms("k7/pp6/8/8/6pp/7P/5P2/6K1 w - - 0 1");
        let expected = [
            ("shield_ah_1", -1),
            ("shield_ah_2", 1),
            ("shield_bg_1", -1),
            ("shield_cf_1", 1),
            ("storm_ah_blocked", 1),
            ("storm_bg_3", 1),
            ("kfile_no_own", 1),
            ("kfile_no_enemy", -1),
            ("kzone_weak", 2),
        ];
        assert_eq!(t, expected);
    }

    #[test]
    fn attackers_on_the_zone_weak_squares_and_safe_checks() {
        // White king g1 behind f2 g2 h2 (zone f1-h3, shield terms +1 each,
        // no black pawns on f-h: kfile_no_enemy 3); black king a8 behind
        // a7 b7 (shield −1 each, kfile_no_enemy −2): net shield_cf_1 +1 and
        // kfile_no_enemy +1.
        // Black's knight g4 (f2, h2), bishop c5 (c5-d4-e3-f2) and queen h4
        // (h3, h2; g3, f2) attack the zone: katt_N, katt_B, katt_Q, katt_n3.
        // Attacked zone squares: f2, h2, h3, g3; the pawns defend h3 (g2)
        // and g3 (f2, h2); f2 and h2 have only the king: kzone_weak 2.
        // Safe checks: f2 is on the king's diagonal, attacked by the
        // bishop, knight and queen (twice or more) and defended only by the
        // king: the bishop and the queen can check there (so can the queen
        // on h2). The knight's check squares e2, f3, h3 are out of its reach.
        let t = terms("k7/pp6/8/2b5/6nq/8/5PPP/6K1 w - - 0 1");
        let expected = [
            ("shield_cf_1", 1),
            ("kfile_no_enemy", 1),
            ("katt_N", 1),
            ("katt_B", 1),
            ("katt_Q", 1),
            ("katt_n3", 1),
            ("kzone_weak", 2),
            ("kcheck_B", 1),
            ("kcheck_Q", 1),
        ];
        assert_eq!(t, expected);
        // Give white a rook on f1 (defends f2) and a knight on f3 (defends
        // h2): no weak squares and no safe check are left; the three
        // attackers remain.
        let t = terms("k7/pp6/8/2b5/6nq/5N2/5PPP/5RK1 w - - 0 1");
        assert!(t.iter().all(|(name, _)| !name.starts_with("kcheck") && *name != "kzone_weak"), "{t:?}");
        assert!(t.contains(&("katt_n3", 1)), "{t:?}");
    }
}
