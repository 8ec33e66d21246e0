//! What a piece is worth in a given material configuration, as a linear
//! combination of the fitted weights, computed by the feature code itself.
//!
//! With the imbalance products in the evaluation a piece has no single
//! value: a knight's worth depends on the pawns, bishops and rooks beside
//! it. So values are reported at *reference configurations*: the
//! difference the evaluation makes when white has one more knight, with
//! everything else held. The evaluation is linear in the weights, so such a
//! difference is `a · w` for a vector `a`; `a` is obtained by building the
//! positions on a board and running the layout's own feature code on them
//! (never a second copy of the products), with the game phase held at the
//! reference's, so that the taper of `material_tapered` does not move with
//! the piece.
//!
//! * A piece's value: `x(white has it) − x(white lacks it)`.
//! * The bishop pair: every term is linear in the number of bishops except
//!   the pair itself, so the second difference `x(2 bishops) − 2·x(1) +
//!   x(0)` isolates the pair: what two bishops are worth beyond twice one.

#[cfg(test)]
use shakmaty::ByColor;
use shakmaty::{Board, ByRole, CastlingMode, Chess, Color, File, FromSetup, Piece, PositionError, Rank, Role, Setup, Square};

use crate::features::{FeatureLayout, TermScratch, TermValue};

/// The pieces of one side (besides its king), by count.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pieces {
    /// Pawns, 0 to 8.
    pub pawns: u8,
    /// Knights, 0 to 2.
    pub knights: u8,
    /// Bishops, 0 to 2.
    pub bishops: u8,
    /// Rooks, 0 to 2.
    pub rooks: u8,
    /// Queens, 0 or 1.
    pub queens: u8,
}

impl Pieces {
    /// The count of `role` (a king counts 0).
    fn count(self, role: Role) -> u8 {
        match role {
            Role::Pawn => self.pawns,
            Role::Knight => self.knights,
            Role::Bishop => self.bishops,
            Role::Rook => self.rooks,
            Role::Queen => self.queens,
            Role::King => 0,
        }
    }

    /// These pieces with `n` of `role`.
    fn with(self, role: Role, n: u8) -> Pieces {
        let mut p = self;
        match role {
            Role::Pawn => p.pawns = n,
            Role::Knight => p.knights = n,
            Role::Bishop => p.bishops = n,
            Role::Rook => p.rooks = n,
            Role::Queen => p.queens = n,
            Role::King => {}
        }
        p
    }
}

/// A configuration both sides share, apart from white's pawns and the piece valued.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// For reports: `middlegame`, `endgame`.
    pub name: &'static str,
    /// Each side's pieces; black's pawns are `pawns`, white's vary.
    pub pieces: Pieces,
}

/// Every piece on the board, each side with five pawns (Kaufman's centre):
/// phase 24, the middlegame.
pub const MIDDLEGAME: Reference = Reference { name: "middlegame", pieces: Pieces { pawns: 5, knights: 2, bishops: 2, rooks: 2, queens: 1 } };

/// A rook, a bishop and a knight each, five pawns each: phase 8, an endgame.
pub const ENDGAME: Reference = Reference { name: "endgame", pieces: Pieces { pawns: 5, knights: 1, bishops: 1, rooks: 1, queens: 0 } };

/// The standard squares of white's pieces, in the order they are filled;
/// black's are their mirror images.
const SQUARES: [(Role, Square); 7] = [
    (Role::Rook, Square::A1),
    (Role::Rook, Square::H1),
    (Role::Knight, Square::B1),
    (Role::Knight, Square::G1),
    (Role::Bishop, Square::C1),
    (Role::Bishop, Square::F1),
    (Role::Queen, Square::D1),
];

/// A position with these pieces: the starting squares, pawns from the
/// a-file on, white to move. No piece can give check from there.
///
/// # Panics
///
/// If a side has more than the starting pieces (8 pawns, 2 knights,
/// bishops or rooks, 1 queen): there is no starting square for them.
pub fn position(white: Pieces, black: Pieces) -> Chess {
    for p in [white, black] {
        assert!(p.pawns <= 8 && p.knights <= 2 && p.bishops <= 2 && p.rooks <= 2 && p.queens <= 1, "more than the starting pieces: {p:?}");
    }
    let mut board = Board::empty();
    for (color, pieces) in [(Color::White, white), (Color::Black, black)] {
        let relative = |sq: Square| if color == Color::White { sq } else { sq.flip_vertical() };
        board.set_piece_at(relative(Square::E1), Piece { color, role: Role::King });
        let mut left = ByRole { pawn: 0, knight: pieces.knights, bishop: pieces.bishops, rook: pieces.rooks, queen: pieces.queens, king: 0 };
        for (role, sq) in SQUARES {
            let n = left.get_mut(role);
            if *n > 0 {
                *n -= 1;
                board.set_piece_at(relative(sq), Piece { color, role });
            }
        }
        for file in 0..pieces.pawns {
            board.set_piece_at(relative(Square::from_coords(File::new(u32::from(file)), Rank::Second)), Piece { color, role: Role::Pawn });
        }
    }
    let setup = Setup { board, turn: Color::White, ..Setup::empty() };
    Chess::from_setup(setup, CastlingMode::Standard)
        .or_else(PositionError::ignore_impossible_check)
        .expect("reference positions have a king each, pawns on their second rank and at most the starting pieces")
}

/// The design row of `white` against `black` at `phase`.
fn design(layout: &FeatureLayout, white: Pieces, black: Pieces, phase: u8) -> Vec<f64> {
    let mut terms: Vec<TermValue> = Vec::new();
    layout.terms_of(&position(white, black), &mut TermScratch::default(), &mut terms);
    let mut x = vec![0.0; layout.len()];
    layout.expand(&terms, phase, &mut x);
    x
}

/// The game phase of a reference (both sides' pieces).
pub fn phase(reference: &Reference) -> u8 {
    let p = reference.pieces;
    let per_side = u32::from(p.knights) + u32::from(p.bishops) + 2 * u32::from(p.rooks) + 4 * u32::from(p.queens);
    (2 * per_side).min(crate::features::MAX_PHASE as u32) as u8
}

/// `a` with `a · w` the value of white's last `role` (knight or rook, ...)
/// in `reference` when white has `own_pawns` pawns.
pub fn piece_value(layout: &FeatureLayout, reference: &Reference, role: Role, own_pawns: u8) -> Vec<f64> {
    let black = reference.pieces;
    let white = black.with(Role::Pawn, own_pawns);
    let n = white.count(role);
    assert!(n > 0, "the reference has no {role:?} to value");
    let phase = phase(reference);
    let with = design(layout, white, black, phase);
    let without = design(layout, white.with(role, n - 1), black, phase);
    with.iter().zip(&without).map(|(a, b)| a - b).collect()
}

/// `a` with `a · w` the bishop pair's bonus in `reference` (which must
/// give each side two bishops) when white has `own_pawns` pawns.
pub fn bishop_pair(layout: &FeatureLayout, reference: &Reference, own_pawns: u8) -> Vec<f64> {
    let black = reference.pieces;
    let white = black.with(Role::Pawn, own_pawns);
    let phase = phase(reference);
    let x = |bishops: u8| design(layout, white.with(Role::Bishop, bishops), black, phase);
    let (two, one, none) = (x(2), x(1), x(0));
    (0..two.len()).map(|j| two[j] - 2.0 * one[j] + none[j]).collect()
}

/// Each side's counts of P N B R Q, for tests.
#[cfg(test)]
fn counts(pos: &Chess) -> ByColor<[usize; 5]> {
    use shakmaty::Position;
    ByColor::new_with(|color| {
        let ours = pos.board().by_color(color);
        [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen].map(|r| (pos.board().by_role(r) & ours).count())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> FeatureLayout {
        FeatureLayout::parse("material_tapered,bishop_pair,imbalance").unwrap()
    }

    fn at(layout: &FeatureLayout, a: &[f64], column: &str) -> f64 {
        a[layout.columns().iter().position(|c| c == column).unwrap()]
    }

    #[test]
    fn reference_positions_hold_the_counts_asked_for() {
        let pos = position(MIDDLEGAME.pieces.with(Role::Pawn, 8), MIDDLEGAME.pieces);
        assert_eq!(counts(&pos).white, [8, 2, 2, 2, 1]);
        assert_eq!(counts(&pos).black, [5, 2, 2, 2, 1]);
        let pos = position(ENDGAME.pieces.with(Role::Pawn, 0), ENDGAME.pieces.with(Role::Rook, 0));
        assert_eq!(counts(&pos).white, [0, 1, 1, 1, 0]);
        assert_eq!(counts(&pos).black, [5, 1, 1, 0, 0]);
        assert_eq!(phase(&MIDDLEGAME), 24);
        assert_eq!(phase(&ENDGAME), 8);
    }

    #[test]
    fn a_knight_with_more_own_pawns_differs_by_the_kaufman_slope_only() {
        let layout = layout();
        let five = piece_value(&layout, &MIDDLEGAME, Role::Knight, 5);
        let seven = piece_value(&layout, &MIDDLEGAME, Role::Knight, 7);
        // The knight itself, at phase 24: its middlegame weight only.
        assert_eq!(at(&layout, &five, "mg_N"), 1.0);
        assert_eq!(at(&layout, &five, "eg_N"), 0.0);
        assert_eq!(at(&layout, &five, "kaufman_N_pawns"), 0.0, "five own pawns is Kaufman's centre");
        // The second knight: one pair of knights more; beside two bishops, two rooks, the bishop pair.
        assert_eq!(at(&layout, &five, "imb_N_N"), 1.0);
        assert_eq!(at(&layout, &five, "imb_B_N"), 2.0);
        assert_eq!(at(&layout, &five, "imb_R_N"), 2.0);
        assert_eq!(at(&layout, &five, "imb_N_Bpair"), 1.0);
        assert_eq!(at(&layout, &five, "imb_N_vs_P"), 5.0);
        // Black's rooks and bishops against one more white knight.
        assert_eq!(at(&layout, &five, "imb_R_vs_N"), -2.0);
        let diff: Vec<f64> = seven.iter().zip(&five).map(|(a, b)| a - b).collect();
        for (j, c) in layout.columns().iter().enumerate() {
            let want = if c == "kaufman_N_pawns" { 2.0 } else { 0.0 };
            assert_eq!(diff[j], want, "{c}");
        }
    }

    #[test]
    fn the_bishop_pair_second_difference_keeps_only_pair_terms() {
        let layout = layout();
        let a = bishop_pair(&layout, &ENDGAME_WITH_TWO_BISHOPS, 3);
        for (j, c) in layout.columns().iter().enumerate() {
            let want = match c.as_str() {
                // phase 2·(1 + 2 + 2) = 10 of 24.
                "mg_bishop_pair" => 10.0 / 24.0,
                "eg_bishop_pair" => 14.0 / 24.0,
                "imb_P_Bpair" => 3.0,
                "imb_N_Bpair" | "imb_R_Bpair" => 1.0,
                // Black's knight, rook and five pawns against white's pair.
                "imb_P_vs_Bpair" => -5.0,
                "imb_N_vs_Bpair" | "imb_R_vs_Bpair" => -1.0,
                // Black's two bishops against white's pair (B × their Bpair).
                "imb_B_vs_Bpair" => -2.0,
                _ => 0.0,
            };
            assert!((a[j] - want).abs() < 1e-12, "{c}: {} vs {want}", a[j]);
        }
    }

    const ENDGAME_WITH_TWO_BISHOPS: Reference = Reference { name: "test", pieces: Pieces { pawns: 5, knights: 1, bishops: 2, rooks: 1, queens: 0 } };
}
