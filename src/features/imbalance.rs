//! `imbalance`: the material imbalance, a quadratic form in the piece counts.
//!
//! A piece's value depends on what else is on the board: Kaufman ("The
//! Evaluation of Material Imbalances", Chess Life 1999) found from master
//! games that a knight gains about 1/16 pawn and a rook loses about 1/8
//! pawn for each own pawn above five, and that two rooks, or a rook and a
//! queen, are partly redundant. Stockfish's classical evaluation turned the
//! idea into a table of products of piece counts. This set gives every such
//! product its own weight, so that a fit can say which of them a game
//! collection supports (issue 15).
//!
//! ## The formula
//!
//! Each side has six counts `c = (Bpair, P, N, B, R, Q)`: the bishop pair as
//! a pseudo-piece (1 with two or more bishops, else 0), then the pieces. The
//! quadratic form behind the set gives a side the bonus
//!
//! ```text
//! bonus(own, their) = Σ_i Σ_{j ≤ i} own_i · (w_ij · own_j + v_ij · their_j)
//! ```
//!
//! and the evaluation gets `bonus(white, black) − bonus(black, white)`. Each
//! product is one term, white's minus black's; the fitted weights are the
//! `w` and `v`. Four kinds of term are left after the reductions below:
//!
//! | kind | a side's value | name |
//! |------|----------------|------|
//! | own × own, `i ≠ j` | `own_i · own_j` | `imb_Q_R` (queens × rooks) |
//! | pairs of one kind | `own_i · (own_i − 1) / 2` | `imb_R_R` (the rook pair) |
//! | Kaufman's pawn adjustment | `own_i · (own_P − 5)` | `kaufman_N_pawns`, `kaufman_R_pawns` |
//! | own × their, `j < i` | `own_i · their_j` | `imb_R_vs_N` (own rooks × enemy knights) |
//!
//! So `imb_R_R` is `+1` when white has two rooks and black one, and its
//! weight is what the second rook is worth beyond the first;
//! `kaufman_N_pawns` is `2 · (7 − 5) − 1 · (4 − 5) = 5` with two knights and
//! seven pawns against one knight and four pawns. The 26 terms, in order:
//!
//! * `imb_P_Bpair`, `imb_P_P`;
//! * `imb_N_Bpair`, `kaufman_N_pawns`, `imb_N_N`;
//! * `imb_B_P`, `imb_B_N`;
//! * `imb_R_Bpair`, `kaufman_R_pawns`, `imb_R_N`, `imb_R_B`, `imb_R_R`;
//! * `imb_Q_Bpair`, `imb_Q_P`, `imb_Q_B`, `imb_Q_R`;
//! * `imb_P_vs_Bpair`; `imb_N_vs_Bpair`, `imb_N_vs_P`; `imb_B_vs_Bpair`,
//!   `imb_B_vs_P`, `imb_B_vs_N`; `imb_R_vs_Bpair`, `imb_R_vs_P`,
//!   `imb_R_vs_N`, `imb_R_vs_B`.
//!
//! ## What is left out, and why
//!
//! The full form has 21 own × own and 21 own × their products. A fit of
//! `material_tapered + bishop_pair + imbalance` (or of the untapered
//! `material` instead, whose columns are sums of the tapered ones) is only
//! identified when no term is a linear function of the others and of those
//! sets' columns. Write `W_i`, `B_i` for white's and black's counts,
//! `D_i = W_i − B_i` (the material columns), `S_i = W_i + B_i`, and
//! `p = S_N + S_B + 2·S_R + 4·S_Q` for the game phase (exact while it stays
//! at or below its cap of 24, that is without extra promoted pieces). Then:
//!
//! 1. **Own × their on the diagonal is zero**: `W_i·B_i − B_i·W_i = 0` for
//!    every `i`. Six terms dropped.
//! 2. **The bishop pair with itself** is `Bpair² = Bpair`: the `bishop_pair`
//!    set's term (its `mg + eg`). Dropped.
//! 3. **Bishops with the bishop pair**: with at most two bishops,
//!    `B · Bpair = 2 · Bpair`, and the bishop pairs `B·(B−1)/2 = Bpair`.
//!    Both duplicate `bishop_pair`; they differ from it only with a third,
//!    promoted bishop, too rare to fit a weight from. Dropped.
//! 4. **The queen pair** `Q·(Q−1)/2` is zero unless a side has promoted to a
//!    second queen: in 2,552 of the human collection's 5.4 million positions
//!    (a third bishop: none). Its weight would be fitted from those late
//!    endgames alone, where one side is usually winning outright (a
//!    one-sided sample makes the likelihood unbounded). Dropped.
//! 5. **Pairs instead of squares**: `own_i² = 2 · own_i·(own_i − 1)/2 + own_i`,
//!    and `own_i` is material, so counting pairs spans the same model as
//!    Stockfish's diagonal `own_i · own_i` while reading better (the weight is
//!    the worth of the second piece beyond the first) and being zero while
//!    neither side has two of the kind (sparser rows).
//! 6. **Kaufman's pawn adjustments are the own × own products with pawns**:
//!    `N·(P − 5) = N·P − 5·N` and `R·(P − 5) = R·P − 5·R`, so with material
//!    beside them `imb_N_P` and `imb_R_P` would be exact duplicates. The set
//!    keeps Kaufman's centred form instead: the knight's and rook's material
//!    weights then mean "with five own pawns", as Kaufman states them.
//! 7. **Tapered material is an imbalance**: a tapered column of piece `X`
//!    is `D_X · p / 24`, and `D_X · p = Σ_j φ_j · D_X·S_j` with `φ = (N 1,
//!    B 1, R 2, Q 4)`, while every `D_i·S_j` is a sum of two products above:
//!    `D_i·S_j = O_ij + T_ij` and `D_j·S_i = O_ij − T_ij`, where `O_ij` is
//!    own × own (`own_i·own_j`, white minus black) and `T_ij` own × their
//!    (`own_i·their_j`, white minus black; `T_ji = −T_ij`). So for each of
//!    `X = Bpair, P, N, B, R, Q` one combination of imbalance terms and
//!    material equals `24 · mg_X` (or `24 · mg_bishop_pair`): six more terms
//!    must go. The six combinations hold `T_QX` with weight 4 for every
//!    `X ≠ Q`, and the queen's `O_QN` besides; dropping the queen's own ×
//!    their products (`imb_Q_vs_Bpair`, `imb_Q_vs_P`, `imb_Q_vs_N`,
//!    `imb_Q_vs_B`, `imb_Q_vs_R`) and `imb_Q_N` breaks all six. For example:
//!
//!    ```text
//!    4·T_QR = O_RN + T_RN + O_RB + T_RB + 4·imb_R_R + 2·D_R + 4·O_QR − D_R·p
//!    ```
//!
//!    (all six are checked in `tests/all/features_imbalance.rs`). The queen
//!    is the natural piece to let the taper carry: it is a sixth of the
//!    phase by itself. Nothing is lost beside `material_tapered` and
//!    `bishop_pair`: the six identities solve for the six dropped products,
//!    so the three sets together still represent every imbalance of this
//!    quadratic form exactly (while the phase is below its cap and bishops
//!    and queens are not promoted). Beside the untapered `material` the six
//!    dropped directions are missing, which is why an analysis of this set
//!    should use `material_tapered`.
//!
//! The tests check each reduction on real games, and that the design of
//! `material_tapered + bishop_pair + imbalance` over the material
//! configurations of the human collection has full column rank.
//!
//! ## Untapered
//!
//! The set has one column per term, like the article's `material`: an
//! imbalance is material, which engines apply without taper, and it already
//! depends on how many pieces are left, and so on the phase (item 7 shows
//! that a phase taper *is* a quadratic in the counts). Tapering it would
//! make the terms cubic in the counts, double the columns and tie them to
//! material even more closely.

use shakmaty::{Board, Color, Role};

use super::context::Context;

/// The counts of one side, indexed by the constants below.
type Counts = [i32; 6];

/// The bishop pair pseudo-piece: 1 with two or more bishops.
const BPAIR: usize = 0;
const P: usize = 1;
const N: usize = 2;
const B: usize = 3;
const R: usize = 4;
const Q: usize = 5;

/// Kaufman's pawn adjustments are counted from this many own pawns.
pub const KAUFMAN_PAWN_CENTRE: i32 = 5;

/// How one term's value for a side is computed from the counts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Product {
    /// `own_i · own_j`, `i ≠ j`.
    Own(usize, usize),
    /// `own_i · (own_i − 1) / 2`: the pairs of one kind of piece.
    Pairs(usize),
    /// `own_i · (own_P − 5)`: Kaufman's pawn adjustment.
    Kaufman(usize),
    /// `own_i · their_j`.
    Versus(usize, usize),
}

impl Product {
    /// The value for the side with counts `own` against `their`.
    #[inline]
    fn of(self, own: &Counts, their: &Counts) -> i32 {
        match self {
            Product::Own(i, j) => own[i] * own[j],
            Product::Pairs(i) => own[i] * (own[i] - 1) / 2,
            Product::Kaufman(i) => own[i] * (own[P] - KAUFMAN_PAWN_CENTRE),
            Product::Versus(i, j) => own[i] * their[j],
        }
    }
}

/// The terms in order: the quadratic form's rows (pawn, knight, bishop,
/// rook, queen), own products before own × their ones.
const TERMS: [(&str, Product); 26] = [
    ("imb_P_Bpair", Product::Own(P, BPAIR)),
    ("imb_P_P", Product::Pairs(P)),
    ("imb_N_Bpair", Product::Own(N, BPAIR)),
    ("kaufman_N_pawns", Product::Kaufman(N)),
    ("imb_N_N", Product::Pairs(N)),
    ("imb_B_P", Product::Own(B, P)),
    ("imb_B_N", Product::Own(B, N)),
    ("imb_R_Bpair", Product::Own(R, BPAIR)),
    ("kaufman_R_pawns", Product::Kaufman(R)),
    ("imb_R_N", Product::Own(R, N)),
    ("imb_R_B", Product::Own(R, B)),
    ("imb_R_R", Product::Pairs(R)),
    ("imb_Q_Bpair", Product::Own(Q, BPAIR)),
    ("imb_Q_P", Product::Own(Q, P)),
    ("imb_Q_B", Product::Own(Q, B)),
    ("imb_Q_R", Product::Own(Q, R)),
    ("imb_P_vs_Bpair", Product::Versus(P, BPAIR)),
    ("imb_N_vs_Bpair", Product::Versus(N, BPAIR)),
    ("imb_N_vs_P", Product::Versus(N, P)),
    ("imb_B_vs_Bpair", Product::Versus(B, BPAIR)),
    ("imb_B_vs_P", Product::Versus(B, P)),
    ("imb_B_vs_N", Product::Versus(B, N)),
    ("imb_R_vs_Bpair", Product::Versus(R, BPAIR)),
    ("imb_R_vs_P", Product::Versus(R, P)),
    ("imb_R_vs_N", Product::Versus(R, N)),
    ("imb_R_vs_B", Product::Versus(R, B)),
];

/// The material imbalance feature set (see the module documentation).
#[derive(Copy, Clone, Debug, Default)]
pub struct Imbalance;

impl Imbalance {
    /// One line for `pgntune features`.
    pub const MEANING: &'static str = "material imbalance: products of piece counts (rook pair, queen and rook, \
         knight and rook by own pawns, ...), white minus black";

    /// Number of terms.
    pub const TERMS: usize = TERMS.len();

    /// Term names, in term order.
    pub fn terms() -> Vec<String> {
        TERMS.iter().map(|(name, _)| name.to_string()).collect()
    }

    /// The counts `(Bpair, P, N, B, R, Q)` of `color` on `board`.
    #[inline]
    fn counts(board: &Board, color: Color) -> Counts {
        let ours = board.by_color(color);
        let count = |role: Role| (board.by_role(role) & ours).count() as i32;
        let bishops = count(Role::Bishop);
        [i32::from(bishops >= 2), count(Role::Pawn), count(Role::Knight), bishops, count(Role::Rook), count(Role::Queen)]
    }

    /// Calls `emit(term, white's product − black's product)` for each term
    /// that does not cancel out.
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(ctx: &Context, mut emit: F) {
        let white = Self::counts(ctx.board, Color::White);
        let black = Self::counts(ctx.board, Color::Black);
        for (t, (_, product)) in TERMS.iter().enumerate() {
            let value = product.of(&white, &black) - product.of(&black, &white);
            if value != 0 {
                emit(t, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::tests::mirrored;
    use shakmaty::{CastlingMode, Chess, Position, fen::Fen};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    /// The set's value of every term (zeros included) in `p`.
    fn values(p: &Chess) -> Vec<i32> {
        let mut out = vec![0; Imbalance::TERMS];
        Imbalance::visit(&Context::new(p), |t, v| out[t] += v);
        out
    }

    fn value(p: &Chess, name: &str) -> i32 {
        let t = Imbalance::terms().iter().position(|n| n == name).unwrap_or_else(|| panic!("no term {name}"));
        values(p)[t]
    }

    #[test]
    fn names_are_unique_and_in_documented_order() {
        let terms = Imbalance::terms();
        assert_eq!(terms.len(), 26);
        let mut sorted = terms.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 26);
        assert_eq!(terms[3], "kaufman_N_pawns");
        assert_eq!(terms[8], "kaufman_R_pawns");
        assert_eq!(terms[11], "imb_R_R");
        assert_eq!(terms[15], "imb_Q_R");
        assert_eq!(terms[25], "imb_R_vs_B");
        // No queen-vs term, no queen pair, no knight-queen product, no bishop pairs: see the module doc.
        for dropped in ["imb_Q_vs_R", "imb_Q_vs_N", "imb_Q_Q", "imb_Q_N", "imb_B_B", "imb_B_Bpair", "imb_N_P", "imb_R_P"] {
            assert!(!terms.iter().any(|t| t == dropped), "{dropped}");
        }
    }

    #[test]
    fn symmetric_material_cancels() {
        assert!(values(&Chess::default()).iter().all(|&v| v == 0));
        // Equal counts on different squares cancel too.
        assert!(values(&pos("r1b1k2r/pp3ppp/2n5/8/8/5N2/PP3PPP/R1B1K2R w KQkq - 0 1")).iter().all(|&v| v == 0));
    }

    #[test]
    fn middlegame_imbalance_by_hand() {
        // White: Q, R R, N N, 7 pawns, no bishop  -> (Bpair, P, N, B, R, Q) = (0, 7, 2, 0, 2, 1)
        // Black: Q, R, B B, N, 4 pawns            -> (1, 4, 1, 2, 1, 1)
        let p = pos("1nbq1rk1/p3bppp/8/8/4P3/2N2N2/PPP2PPP/R2Q1RK1 w - - 0 1");
        let expected = [
            ("imb_P_Bpair", -4),    // 7·0 − 4·1
            ("imb_P_P", 15),        // C(7,2) − C(4,2) = 21 − 6
            ("imb_N_Bpair", -1),    // 2·0 − 1·1
            ("kaufman_N_pawns", 5), // 2·(7−5) − 1·(4−5) = 4 + 1
            ("imb_N_N", 1),         // C(2,2) − C(1,2) = 1 − 0
            ("imb_B_P", -8),        // 0·7 − 2·4
            ("imb_B_N", -2),        // 0·2 − 2·1
            ("imb_R_Bpair", -1),    // 2·0 − 1·1
            ("kaufman_R_pawns", 5), // 2·(7−5) − 1·(4−5)
            ("imb_R_N", 3),         // 2·2 − 1·1
            ("imb_R_B", -2),        // 2·0 − 1·2
            ("imb_R_R", 1),         // C(2,2) − C(1,2)
            ("imb_Q_Bpair", -1),    // 1·0 − 1·1
            ("imb_Q_P", 3),         // 1·7 − 1·4
            ("imb_Q_B", -2),        // 1·0 − 1·2
            ("imb_Q_R", 1),         // 1·2 − 1·1
            ("imb_P_vs_Bpair", 7),  // 7·1 − 4·0
            ("imb_N_vs_Bpair", 2),  // 2·1 − 1·0
            ("imb_N_vs_P", 1),      // 2·4 − 1·7
            ("imb_B_vs_Bpair", 0),  // 0·1 − 2·0
            ("imb_B_vs_P", -14),    // 0·4 − 2·7
            ("imb_B_vs_N", -4),     // 0·1 − 2·2
            ("imb_R_vs_Bpair", 2),  // 2·1 − 1·0
            ("imb_R_vs_P", 1),      // 2·4 − 1·7
            ("imb_R_vs_N", 0),      // 2·1 − 1·2
            ("imb_R_vs_B", 4),      // 2·2 − 1·0
        ];
        let names = Imbalance::terms();
        assert_eq!(expected.map(|(n, _)| n), names.iter().map(String::as_str).collect::<Vec<_>>()[..]);
        assert_eq!(values(&p), expected.map(|(_, v)| v));
    }

    #[test]
    fn endgame_imbalance_by_hand() {
        // White: R, B B, 2 pawns -> (1, 2, 0, 2, 1, 0); black: N N, 3 pawns -> (0, 3, 2, 0, 0, 0).
        let p = pos("6k1/5ppp/2n2n2/8/2B5/4B3/6PP/3R2K1 w - - 0 1");
        let mut expected = [0; 26];
        let set = |e: &mut [i32; 26], name: &str, v: i32| e[Imbalance::terms().iter().position(|n| n == name).unwrap()] = v;
        set(&mut expected, "imb_P_Bpair", 2); // 2·1 − 3·0
        set(&mut expected, "imb_P_P", -2); // C(2,2) − C(3,2) = 1 − 3
        set(&mut expected, "kaufman_N_pawns", 4); // 0 − 2·(3−5)
        set(&mut expected, "imb_N_N", -1); // 0 − C(2,2)
        set(&mut expected, "imb_B_P", 4); // 2·2 − 0
        set(&mut expected, "imb_R_Bpair", 1); // 1·1 − 0
        set(&mut expected, "kaufman_R_pawns", -3); // 1·(2−5) − 0
        set(&mut expected, "imb_R_B", 2); // 1·2 − 0
        set(&mut expected, "imb_P_vs_Bpair", -3); // 2·0 − 3·1
        set(&mut expected, "imb_N_vs_Bpair", -2); // 0·0 − 2·1
        set(&mut expected, "imb_N_vs_P", -4); // 0·3 − 2·2
        set(&mut expected, "imb_B_vs_P", 6); // 2·3 − 0·2
        set(&mut expected, "imb_B_vs_N", 4); // 2·2 − 0·0
        set(&mut expected, "imb_R_vs_P", 3); // 1·3 − 0·2
        set(&mut expected, "imb_R_vs_N", 2); // 1·2 − 0
        assert_eq!(values(&p), expected);
        // The colour-mirrored position has the negated values.
        assert_eq!(values(&mirrored(&p)), expected.map(|v| -v));
    }

    #[test]
    fn kaufman_terms_change_sign_at_five_pawns() {
        // One knight and one rook each; white has 5 pawns, black 3: only black's adjustments count.
        let p = pos("r3k3/ppp5/2n5/8/8/2N5/PPPPP3/R3K3 w - - 0 1");
        assert_eq!(value(&p, "kaufman_N_pawns"), 2); // 1·0 − 1·(3−5)
        assert_eq!(value(&p, "kaufman_R_pawns"), 2);
        // A lone extra rook against bare pawns: 1·(8−5) = 3 for the rook, no knight term.
        let p = pos("4k3/pppppppp/8/8/8/8/PPPPPPPP/R3K3 w - - 0 1");
        assert_eq!(value(&p, "kaufman_R_pawns"), 3);
        assert_eq!(value(&p, "kaufman_N_pawns"), 0);
        assert_eq!(value(&p, "imb_R_vs_P"), 8);
    }

    #[test]
    fn a_third_bishop_is_one_bishop_pair() {
        // Three bishops after an underpromotion: the pseudo-piece stays 1.
        let p = pos("4k3/8/8/8/8/8/8/1BBBK3 w - - 0 1");
        assert_eq!(Imbalance::counts(p.board(), Color::White), [1, 0, 0, 3, 0, 0]);
        assert!(values(&p).iter().all(|&v| v == 0), "no pawns, rooks, knights or queens: every product is zero");
    }
}
