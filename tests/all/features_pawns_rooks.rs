//! The `pawns` and `rooks` feature sets: hand-counted positions for every
//! kind of term, a square-by-square reference of the same rules compared
//! with the bitboard code on thousands of real positions, colour symmetry
//! on those positions, and the hand-set starting values of the preset.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;

use pgn_reader::Reader;
use pgntune::features::{FeatureLayout, FeatureSet, TermScratch};
use pgntune::pgn::record::RecordVisitor;
use pgntune::pgn::replay::{replay, start_position};
use shakmaty::fen::Fen;
use shakmaty::{Bitboard, CastlingMode, Chess, Color, EnPassantMode, File as BoardFile, FromSetup, Position, Rank, Square, attacks};

use crate::common::shared;

use pgntune::presets::full::{pawns as pawns_preset, rooks as rooks_preset};

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
}

/// The non-zero terms of `set` in `p`, by name.
fn terms(set: FeatureSet, p: &Chess) -> BTreeMap<String, i32> {
    let layout = FeatureLayout::new(&[set]);
    let names = layout.term_names();
    let mut out = Vec::new();
    layout.terms_of(p, &mut TermScratch::default(), &mut out);
    out.iter().map(|t| (names[usize::from(t.term)].clone(), i32::from(t.value))).collect()
}

fn expect(pairs: &[(&str, i32)]) -> BTreeMap<String, i32> {
    pairs.iter().map(|&(n, v)| (n.to_string(), v)).collect()
}

#[test]
fn pawns_passed_pawn_race_by_the_square_rule() {
    // White pawn b6 (passed, isolated), kings h1 and e6, nothing else.
    // Stop square b7; own king h1 → b7 is 6 steps, capped at 5; enemy king
    // e6 → b7 is 3. Path b7, b8 empty and not attacked by the king on e6.
    // Square rule: 2 pawn moves; the king is 3 steps from b8. White to
    // move: 3 > 2, unstoppable. Black to move: 3 − 1 = 2, caught.
    let common = [
        ("passed_r6", 1),
        ("pawn_isolated", 1),
        ("passed_own_king_r6", 5),
        ("passed_enemy_king_r6", 3),
        ("passed_clear_r6", 1),
        ("passed_safe_r6", 1),
    ];
    let white_to_move = terms(FeatureSet::Pawns, &pos("8/8/1P2k3/8/8/8/8/7K w - - 0 1"));
    let mut with_unstoppable = common.to_vec();
    with_unstoppable.push(("passed_unstoppable", 1));
    assert_eq!(white_to_move, expect(&with_unstoppable));
    let black_to_move = terms(FeatureSet::Pawns, &pos("8/8/1P2k3/8/8/8/8/7K b - - 0 1"));
    assert_eq!(black_to_move, expect(&common));
}

#[test]
fn pawns_backward_and_connected() {
    // White c4, d3, e4 against black c5, e5. d3 supports c4 and e4
    // (connected on rank 4, two pawn defences); d3 itself has no neighbour
    // on its rank or behind, and its stop square d4 is attacked by c5 and
    // e5: backward. The black pawns are both isolated (no black d-pawn).
    // Nothing is passed.
    let got = terms(FeatureSet::Pawns, &pos("4k3/8/8/2p1p3/2P1P3/3P4/8/6K1 w - - 0 1"));
    assert_eq!(got, expect(&[("pawn_backward", 1), ("connected_r4", 2), ("pawn_support", 2), ("pawn_isolated", -2)]));
}

#[test]
fn pawns_doubled_black_pawns_pass_only_at_the_front() {
    // Black h7 and h6: both isolated, h7 doubled behind h6; only h6 (black's
    // 3rd rank) is passed, too far back for the king terms. Square rule:
    // 5 moves to h1, white king e1 → h1 is 3 steps, less one to move: caught.
    let got = terms(FeatureSet::Pawns, &pos("4k3/7p/7p/8/8/8/8/4K3 w - - 0 1"));
    assert_eq!(got, expect(&[("passed_r3", -1), ("pawn_doubled", -1), ("pawn_isolated", -2)]));
}

#[test]
fn pawns_phalanx_of_passers_against_a_rook() {
    // White d5, e5: a phalanx (connected on rank 5), both passed. Stops d6
    // and e6: own king e1 is 5 steps from each (10), enemy king e8 is 2
    // from each (4). The d-path d6 d7 d8 is empty but d8 is attacked by the
    // rook a8: clear, not safe. The e-path ends on the king e8: not clear.
    // Black has a rook, so the square rule does not apply.
    let got = terms(FeatureSet::Pawns, &pos("r3k3/8/8/3PP3/8/8/8/4K3 w - - 0 1"));
    assert_eq!(
        got,
        expect(&[("passed_r5", 2), ("connected_r5", 2), ("passed_own_king_r5", 10), ("passed_enemy_king_r5", 4), ("passed_clear_r5", 1),])
    );
    assert_eq!(terms(FeatureSet::Rooks, &pos("r3k3/8/8/3PP3/8/8/8/4K3 w - - 0 1")), expect(&[("rook_open_file", -1)]));
}

#[test]
fn pawns_black_passer_on_its_seventh_rank() {
    // Black b2 (its 7th rank), passed and isolated. Stop b1: own king e8 is
    // 7 steps away (capped at 5), enemy king e1 3. b1 is empty and neither
    // the rook h1 (stopped by the king on e1) nor the king attacks it.
    let p = pos("4k3/8/8/8/8/8/1p6/4K2R b - - 0 1");
    assert_eq!(
        terms(FeatureSet::Pawns, &p),
        expect(&[
            ("passed_r7", -1),
            ("pawn_isolated", -1),
            ("passed_own_king_r7", -5),
            ("passed_enemy_king_r7", -3),
            ("passed_clear_r7", -1),
            ("passed_safe_r7", -1),
        ])
    );
    assert_eq!(terms(FeatureSet::Rooks, &p), expect(&[("rook_open_file", 1)]));
}

#[test]
fn rooks_open_file_and_connected_on_the_back_rank() {
    // Pawns on the a, b, f, g, h files for both sides: c, d, e are open.
    // White rook d1 is on an open file, a1 behind its own pawn; a1 and d1
    // see each other (b1, c1 empty). Black's a8 and h8 are cut apart by
    // the king on e8, both behind their own pawns.
    let got = terms(FeatureSet::Rooks, &pos("r3k2r/pp3ppp/8/8/8/8/PP3PPP/R2R2K1 w kq - 0 1"));
    assert_eq!(got, expect(&[("rook_open_file", 1), ("rooks_connected", 1)]));
}

#[test]
fn rooks_doubled_on_a_semi_open_file_queen_and_seventh() {
    // White rooks c1, c2 on the c-file with only black's c6: semi-open
    // twice, doubled once, connected once; queen e1 on the open e-file.
    // Black rook b2: open b-file, on black's 7th with the white king on
    // its back rank.
    let got = terms(FeatureSet::Rooks, &pos("6k1/p5pp/2p5/8/8/8/1rR3PP/2R1Q1K1 w - - 0 1"));
    assert_eq!(
        got,
        expect(&[
            ("rook_semi_open_file", 2),
            ("rooks_doubled", 1),
            ("rooks_connected", 1),
            ("queen_open_file", 1),
            ("rook_open_file", -1),
            ("rook_seventh", -1),
        ])
    );
}

#[test]
fn rooks_seventh_needs_the_king_on_the_eighth_or_pawns_on_the_seventh() {
    let rook = |fen| terms(FeatureSet::Rooks, &pos(fen));
    // King out on g6, the only black pawn on h5: the rook on d7 attacks nothing.
    assert_eq!(rook("8/3R4/6k1/7p/8/8/8/6K1 w - - 0 1"), expect(&[("rook_open_file", 1)]));
    // King on its back rank.
    assert_eq!(rook("6k1/3R4/8/7p/8/8/8/6K1 w - - 0 1"), expect(&[("rook_open_file", 1), ("rook_seventh", 1)]));
    // A pawn still at home.
    assert_eq!(rook("8/3R3p/6k1/8/8/8/8/6K1 w - - 0 1"), expect(&[("rook_open_file", 1), ("rook_seventh", 1)]));
}

#[test]
fn starting_values_name_every_term_in_order() {
    for (set, named) in [(FeatureSet::Pawns, &pawns_preset::NAMED_STARTING_VALUES[..]), (FeatureSet::Rooks, &rooks_preset::NAMED_STARTING_VALUES[..])]
    {
        let names: Vec<&str> = named.iter().map(|(n, _, _)| *n).collect();
        assert_eq!(names, set.terms(), "{set}");
    }
    assert_eq!(pawns_preset::starting_values().len(), FeatureSet::Pawns.term_count());
    assert_eq!(rooks_preset::starting_values()[2], (10.0, 25.0));
    let names: Vec<String> = FeatureLayout::new(FeatureSet::ALL).term_names();
    for set in [FeatureSet::Pawns, FeatureSet::Rooks] {
        for term in set.terms() {
            assert_eq!(names.iter().filter(|n| *n == term).count(), 1, "{term} is not unique");
        }
    }
}

/// Up to `limit` positions from replaying the games of `files` (in
/// `../shared/data/human`), every position after every move.
pub fn real_positions(files: &[&str], limit: usize) -> Vec<Chess> {
    let mut positions = Vec::with_capacity(limit);
    for name in files {
        let path = shared(&format!("human/{name}"));
        let mut reader = Reader::new(BufReader::new(File::open(path).unwrap()));
        let mut visitor = RecordVisitor::new(0, &[]);
        while let Some(games) = reader.read_game(&mut visitor).unwrap() {
            for game in games {
                let Ok(mut p) = start_position(&game) else { continue };
                replay(&mut p, &game.moves, None, |after, _, _| positions.push(after.clone()));
                if positions.len() >= limit {
                    positions.truncate(limit);
                    return positions;
                }
            }
        }
    }
    positions
}

const SAMPLE: [&str; 3] = ["Capablanca.pgn", "Fischer.pgn", "Euwe.pgn"];

#[test]
#[ignore = "needs ../shared/data"]
fn pawns_and_rooks_flip_sign_under_colour_swap_on_real_positions() {
    let positions = real_positions(&SAMPLE, 30_000);
    assert_eq!(positions.len(), 30_000);
    let layout = FeatureLayout::parse("pawns,rooks").unwrap();
    let mut scratch = TermScratch::default();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut seen = vec![0usize; layout.term_count()];
    for p in &positions {
        let flipped = Chess::from_setup(p.to_setup(EnPassantMode::Legal).into_mirrored(), CastlingMode::Standard).unwrap();
        layout.terms_of(p, &mut scratch, &mut a);
        layout.terms_of(&flipped, &mut scratch, &mut b);
        let negated: Vec<(u16, i16)> = b.iter().map(|t| (t.term, -t.value)).collect();
        let plain: Vec<(u16, i16)> = a.iter().map(|t| (t.term, t.value)).collect();
        assert_eq!(plain, negated, "{}", Fen::from_position(p, EnPassantMode::Legal));
        for t in &a {
            seen[usize::from(t.term)] += 1;
        }
    }
    // Every term occurs in real games, so none is dead code.
    let names = layout.term_names();
    for (name, count) in names.iter().zip(&seen) {
        assert!(*count > 0, "{name} never occurs in {} positions", positions.len());
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn bitboard_sets_agree_with_a_square_by_square_reading_of_the_rules() {
    let positions = real_positions(&SAMPLE, 20_000);
    for p in &positions {
        let fen = Fen::from_position(p, EnPassantMode::Legal);
        assert_eq!(terms(FeatureSet::Pawns, p), reference::pawns(p), "pawns of {fen}");
        assert_eq!(terms(FeatureSet::Rooks, p), reference::rooks(p), "rooks of {fen}");
    }
}

/// The rules of the module docs, read one square at a time: slow and
/// plain, an independent check of the bitboard arithmetic.
mod reference {
    use super::*;

    fn rank_of(color: Color, sq: Square) -> i32 {
        match color {
            Color::White => sq.rank() as i32 + 1,
            Color::Black => 8 - sq.rank() as i32,
        }
    }

    fn file_gap(a: Square, b: Square) -> i32 {
        (a.file() as i32 - b.file() as i32).abs()
    }

    struct Tally(BTreeMap<String, i32>);

    impl Tally {
        fn add(&mut self, name: String, value: i32) {
            *self.0.entry(name).or_default() += value;
        }
        fn done(mut self) -> BTreeMap<String, i32> {
            self.0.retain(|_, v| *v != 0);
            self.0
        }
    }

    pub fn pawns(p: &Chess) -> BTreeMap<String, i32> {
        let board = p.board();
        let mut tally = Tally(BTreeMap::new());
        for color in [Color::White, Color::Black] {
            let s = if color == Color::White { 1 } else { -1 };
            let ours: Vec<Square> = (board.pawns() & board.by_color(color)).into_iter().collect();
            let theirs: Vec<Square> = (board.pawns() & board.by_color(!color)).into_iter().collect();
            let ahead = |from: Square, to: Square| rank_of(color, to) > rank_of(color, from);
            let enemy_only_king_and_pawns = (board.by_color(!color) & !board.pawns() & !board.kings()).is_empty();
            for &sq in &ours {
                let r = rank_of(color, sq);
                let twin_ahead = ours.iter().any(|&o| o.file() == sq.file() && ahead(sq, o));
                let passed = !twin_ahead && !theirs.iter().any(|&e| file_gap(e, sq) <= 1 && ahead(sq, e));
                let isolated = !ours.iter().any(|&o| file_gap(o, sq) == 1);
                let defenders = ours.iter().filter(|&&o| attacks::pawn_attacks(color, o).contains(sq)).count() as i32;
                let phalanx = ours.iter().any(|&o| file_gap(o, sq) == 1 && o.rank() == sq.rank());
                let stop = Square::from_coords(sq.file(), Rank::new((sq.rank() as i32 + if color == Color::White { 1 } else { -1 }) as u32));
                let helper_behind = ours.iter().any(|&o| file_gap(o, sq) == 1 && !ahead(sq, o));
                let stop_contested = theirs.iter().any(|&e| e == stop || attacks::pawn_attacks(!color, e).contains(stop));
                if passed {
                    tally.add(format!("passed_r{r}"), s);
                }
                if twin_ahead {
                    tally.add("pawn_doubled".into(), s);
                }
                if isolated {
                    tally.add("pawn_isolated".into(), s);
                }
                if !isolated && !helper_behind && stop_contested {
                    tally.add("pawn_backward".into(), s);
                }
                if defenders > 0 || phalanx {
                    tally.add(format!("connected_r{r}"), s);
                }
                tally.add("pawn_support".into(), s * defenders);
                if !passed {
                    continue;
                }
                let path: Vec<Square> = (0..8u32).map(|rank| Square::from_coords(sq.file(), Rank::new(rank))).filter(|&t| ahead(sq, t)).collect();
                let clear = path.iter().all(|&t| board.piece_at(t).is_none());
                if r >= 4 {
                    for (name, king) in [("own", color), ("enemy", !color)] {
                        let d = board.king_of(king).unwrap().distance(stop).min(5) as i32;
                        tally.add(format!("passed_{name}_king_r{r}"), s * d);
                    }
                    let safe = path.iter().all(|&t| board.attacks_to(t, !color, board.occupied()).is_empty());
                    if clear {
                        tally.add(format!("passed_clear_r{r}"), s);
                        if safe {
                            tally.add(format!("passed_safe_r{r}"), s);
                        }
                    }
                }
                if clear && enemy_only_king_and_pawns {
                    let promotion = *path.last().unwrap();
                    let moves = (8 - r).min(5);
                    let to_move = i32::from(p.turn() != color);
                    if board.king_of(!color).unwrap().distance(promotion) as i32 - to_move > moves {
                        tally.add("passed_unstoppable".into(), s);
                    }
                }
            }
        }
        tally.done()
    }

    pub fn rooks(p: &Chess) -> BTreeMap<String, i32> {
        let board = p.board();
        let mut tally = Tally(BTreeMap::new());
        let pawns_on = |color: Color, file: BoardFile| (board.pawns() & board.by_color(color) & Bitboard::from_file(file)).count();
        for color in [Color::White, Color::Black] {
            let s = if color == Color::White { 1 } else { -1 };
            let rooks: Vec<Square> = (board.rooks() & board.by_color(color)).into_iter().collect();
            for &sq in &rooks {
                let (own, their) = (pawns_on(color, sq.file()), pawns_on(!color, sq.file()));
                if own == 0 && their == 0 {
                    tally.add("rook_open_file".into(), s);
                }
                if own == 0 && their > 0 {
                    tally.add("rook_semi_open_file".into(), s);
                }
                let king_home = rank_of(color, board.king_of(!color).unwrap()) == 8;
                let pawns_home = (board.pawns() & board.by_color(!color)).into_iter().any(|e| rank_of(color, e) == 7);
                if rank_of(color, sq) == 7 && (king_home || pawns_home) {
                    tally.add("rook_seventh".into(), s);
                }
            }
            for (i, &a) in rooks.iter().enumerate() {
                for &b in &rooks[i + 1..] {
                    let in_line = a.file() == b.file() || a.rank() == b.rank();
                    if in_line && (attacks::between(a, b) & board.occupied()).is_empty() {
                        tally.add("rooks_connected".into(), s);
                    }
                }
            }
            for file in (0..8).map(BoardFile::new) {
                let on_file = rooks.iter().filter(|sq| sq.file() == file).count() as i32;
                if pawns_on(color, file) == 0 && on_file > 1 {
                    tally.add("rooks_doubled".into(), s * (on_file - 1));
                }
            }
            for sq in board.queens() & board.by_color(color) {
                if pawns_on(Color::White, sq.file()) + pawns_on(Color::Black, sq.file()) == 0 {
                    tally.add("queen_open_file".into(), s);
                }
            }
        }
        tally.done()
    }
}
