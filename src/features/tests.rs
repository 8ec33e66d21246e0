//! Tests of the layout machinery and of properties every set must have.

use super::*;
use shakmaty::{CastlingMode, EnPassantMode, FromSetup, Position, fen::Fen};

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
}

/// The non-zero terms of `set` in the position `fen`, by name, in term order.
pub(crate) fn named_terms(set: FeatureSet, fen: &str) -> Vec<(&'static str, i16)> {
    let layout = FeatureLayout::new(&[set]);
    let mut out = Vec::new();
    layout.terms_of(&pos(fen), &mut TermScratch::default(), &mut out);
    out.iter().map(|t| (set.terms()[usize::from(t.term)].as_str(), t.value)).collect()
}

/// The position with colours swapped and the board flipped vertically.
pub(crate) fn mirrored(p: &Chess) -> Chess {
    let setup = p.to_setup(EnPassantMode::Legal).into_mirrored();
    Chess::from_setup(setup, CastlingMode::Standard).unwrap()
}

const FENS: [&str; 8] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R b KQ - 1 8",
    "4k3/8/8/3q4/8/8/PP6/1K6 b - - 0 40",
    "6k1/5ppp/8/8/8/8/1Q3PPP/6K1 w - - 0 1",
    "2kr3r/ppp2ppp/2n5/2b1p3/4P1b1/2NP1N2/PPP2PPP/R1B1KB1R w KQ - 2 9",
    "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
];

#[test]
fn dense_write_agrees_with_material_counts() {
    let layout = FeatureLayout::default();
    let p = pos("4k3/8/8/8/8/8/PPP5/RN2K2Q w - - 0 1");
    let mut x = vec![0.0; layout.len()];
    layout.write(&p, &mut x);
    assert_eq!(x, [3.0, 1.0, 0.0, 1.0, 1.0]);
}

#[test]
fn parse_rejects_unknown_sets_dedups_and_knows_full() {
    let err = FeatureLayout::parse("material,nonsense").unwrap_err();
    assert_eq!(err.name, "nonsense");
    assert!(err.to_string().contains("or full"), "{err}");
    let l = FeatureLayout::parse("material, material").unwrap();
    assert_eq!(l.len(), 5);
    assert_eq!(l.spec(), "material");
    assert_eq!(FeatureLayout::parse("full").unwrap(), FeatureLayout::full());
    assert_eq!(FeatureLayout::parse("full,pst").unwrap(), FeatureLayout::full());
}

#[test]
fn pst_follows_material_in_a_combined_layout() {
    let layout = FeatureLayout::parse("material,pst").unwrap();
    assert_eq!(layout.len(), 5 + 768);
    assert_eq!(layout.term_count(), 5 + 384);
    assert!(!layout.depends_only_on_material());
    let columns = layout.columns();
    assert_eq!(columns[5], "mg_P_a1");
    assert_eq!(columns[5 + 768 - 1], "eg_K_h8");
    assert_eq!(FeatureLayout::from_columns(&columns), Some(layout.clone()));
    // A white knight on e4 against a bare king: phase 1.
    let p = pos("4k3/8/8/8/4N3/8/8/4K3 w - - 0 1");
    let mut x = vec![0.0; layout.len()];
    layout.write(&p, &mut x);
    assert_eq!(x[1], 1.0);
    let col = |name: &str| columns.iter().position(|c| c == name).unwrap();
    assert_eq!(x[col("mg_N_e4")], 1.0 / 24.0);
    assert_eq!(x[col("eg_N_e4")], 23.0 / 24.0);
    assert_eq!(
        layout.term_columns(5 + Pst::term(Role::Knight, shakmaty::Square::E4)),
        TermColumns::Tapered { mg: col("mg_N_e4"), eg: col("eg_N_e4") }
    );
    assert_eq!(layout.term_columns(1), TermColumns::Single(1));
}

#[test]
fn column_and_term_names_are_unique_in_the_widest_layout() {
    let layout = FeatureLayout::new(FeatureSet::ALL);
    let columns = layout.columns();
    let mut sorted = columns.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), columns.len(), "duplicate column names");
    let terms = layout.term_names();
    assert_eq!(terms.len(), layout.term_count());
    for set in FeatureSet::ALL {
        assert_eq!(set.name().parse::<FeatureSet>().unwrap(), *set);
        assert!(!set.meaning().is_empty());
    }
}

#[test]
fn sparse_terms_expand_to_the_dense_row() {
    let layout = FeatureLayout::new(FeatureSet::ALL);
    let mut scratch = TermScratch::default();
    let mut terms = Vec::new();
    for fen in FENS {
        let p = pos(fen);
        let phase = layout.terms_of(&p, &mut scratch, &mut terms);
        assert!(terms.windows(2).all(|w| w[0].term < w[1].term), "{fen}: sorted, merged");
        assert!(terms.iter().all(|t| t.value != 0));
        let mut from_terms = vec![0.0; layout.len()];
        layout.expand(&terms, phase, &mut from_terms);
        let mut dense = vec![0.0; layout.len()];
        layout.write(&p, &mut dense);
        for (a, b) in from_terms.iter().zip(&dense) {
            assert!((a - b).abs() < 1e-12, "{fen}");
        }
    }
}

#[test]
fn sparse_columns_are_the_dense_rows_non_zeros_in_column_order() {
    // Untapered sets between tapered ones, as a layout may mix them.
    let layout = FeatureLayout::parse("material,pst,imbalance,pawns,mobility,tempo,king_safety").unwrap();
    let (mut scratch, mut terms, mut pairs) = (TermScratch::default(), Vec::new(), Vec::new());
    let mut dense = vec![0.0; layout.len()];
    for fen in FENS {
        let p = pos(fen);
        layout.terms_of(&p, &mut scratch, &mut terms);
        // Every phase, the ends (no mg or no eg column) included.
        for phase in [0, 1, 12, 23, 24] {
            layout.expand(&terms, phase, &mut dense);
            let want: Vec<(usize, f64)> = dense.iter().enumerate().filter(|&(_, &v)| v != 0.0).map(|(c, &v)| (c, v)).collect();
            layout.sparse_columns(&terms, phase, &mut pairs);
            assert_eq!(pairs, want, "{fen} at phase {phase}");
            // Terms out of order (as a foreign reader might give) come out sorted all the same.
            let reversed: Vec<TermValue> = terms.iter().rev().copied().collect();
            layout.sparse_columns(&reversed, phase, &mut pairs);
            assert_eq!(pairs, want, "{fen} at phase {phase}, reversed");
        }
    }
}

#[test]
fn every_set_flips_sign_under_colour_swap() {
    let layout = FeatureLayout::new(FeatureSet::ALL);
    let mut scratch = TermScratch::default();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for fen in FENS {
        let p = pos(fen);
        let pa = layout.terms_of(&p, &mut scratch, &mut a);
        let pb = layout.terms_of(&mirrored(&p), &mut scratch, &mut b);
        assert_eq!(pa, pb);
        let negated: Vec<TermValue> = b.iter().map(|t| TermValue { term: t.term, value: -t.value }).collect();
        assert_eq!(a, negated, "{fen}");
    }
}

#[test]
fn small_sets_by_hand() {
    let layout = FeatureLayout::parse("material_tapered,bishop_pair,tempo").unwrap();
    assert_eq!(layout.columns()[..2], ["mg_P".to_string(), "mg_N".to_string()]);
    assert_eq!(layout.len(), 14);
    // White: two bishops; black: one bishop and a knight; black to move.
    let p = pos("4k3/8/2nb4/8/8/2BB4/8/4K3 b - - 0 1");
    let mut scratch = TermScratch::default();
    let mut t = Vec::new();
    let phase = layout.terms_of(&p, &mut scratch, &mut t);
    assert_eq!(phase, 4);
    assert_eq!(
        t,
        [TermValue { term: 1, value: -1 }, TermValue { term: 2, value: 1 }, TermValue { term: 5, value: 1 }, TermValue { term: 6, value: -1 },]
    );
}

#[test]
fn layouts_know_their_groups() {
    let layout = FeatureLayout::parse("material,pst").unwrap();
    let groups = layout.groups();
    assert_eq!(groups.len(), 6);
    assert_eq!(groups[0].terms, 5..69);
    assert_eq!(layout.set_of_term(4), Some((FeatureSet::Material, 4)));
    assert_eq!(layout.set_of_term(5), Some((FeatureSet::Pst, 0)));
    assert_eq!(layout.set_of_term(5 + 384), None);
}
