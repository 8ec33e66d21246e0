//! The attack-based feature sets (`mobility`, `threats`, `king_safety`) on
//! real games: colour symmetry, agreement with slow square-by-square
//! references written from the modules' documentation, the hand-set
//! starting values, and (ignored, run by hand) their speed.

use std::collections::BTreeMap;
use std::path::Path;

use pgntune::features::{FeatureLayout, FeatureSet, TermScratch, TermValue};
use pgntune::pgn::InputSource;
use pgntune::pgn::input::{ByteCounters, open};
use pgntune::pgn::record::{Joiner, RecordVisitor};
use pgntune::pgn::replay::{replay, start_position};
use shakmaty::{Bitboard, Chess, Color, EnPassantMode, FromSetup, Position, Rank, Role, Square, attacks};

use crate::common::shared;

use pgntune::presets::full::{king_safety as king_safety_preset, mobility as mobility_preset, threats as threats_preset};

const SETS: [FeatureSet; 3] = [FeatureSet::Mobility, FeatureSet::Threats, FeatureSet::KingSafety];

/// Every position after every move of the games in `relative` (a file under
/// `../shared/data`), at most `limit`.
fn positions(relative: &str, limit: usize) -> Vec<Chess> {
    positions_of(&shared(relative), limit)
}

fn positions_of(path: &Path, limit: usize) -> Vec<Chess> {
    let stream = open(&InputSource::File(path.to_path_buf()), &ByteCounters::default()).expect("readable PGN");
    let mut reader = pgn_reader::Reader::new(stream.reader);
    let (mut visitor, mut joiner) = (RecordVisitor::new(0, &[]), Joiner::default());
    let (mut records, mut out) = (Vec::new(), Vec::new());
    while out.len() < limit {
        match reader.read_game(&mut visitor).expect("readable PGN") {
            Some(games) => games.into_iter().for_each(|g| joiner.push(g, &mut records)),
            None => joiner.finish(&mut records),
        }
        let done = records.is_empty();
        for record in records.drain(..) {
            let Ok(mut pos) = start_position(&record) else { continue };
            replay(&mut pos, &record.moves, None, |p, _, _| out.push(p.clone()));
        }
        if done {
            break;
        }
    }
    out.truncate(limit);
    out
}

fn mirrored(pos: &Chess) -> Chess {
    let setup = pos.to_setup(EnPassantMode::Legal).into_mirrored();
    Chess::from_setup(setup, pos.castles().mode()).expect("the mirror of a legal position is legal")
}

/// The set's non-zero terms of `pos` by name.
fn by_name(set: FeatureSet, pos: &Chess) -> BTreeMap<String, i32> {
    let layout = FeatureLayout::new(&[set]);
    let mut out = Vec::new();
    layout.terms_of(pos, &mut TermScratch::default(), &mut out);
    out.iter().map(|t| (set.terms()[usize::from(t.term)].clone(), i32::from(t.value))).collect()
}

#[test]
#[ignore = "needs ../shared/data"]
fn colour_swap_negates_every_term_on_real_games() {
    let games = positions("human/Kasparov.pgn", 20_000);
    assert!(games.len() >= 20_000);
    let layout = FeatureLayout::new(&SETS);
    let mut scratch = TermScratch::default();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut nonzero = vec![0usize; layout.term_count()];
    for pos in &games {
        layout.terms_of(pos, &mut scratch, &mut a);
        layout.terms_of(&mirrored(pos), &mut scratch, &mut b);
        let negated: Vec<TermValue> = b.iter().map(|t| TermValue { term: t.term, value: -t.value }).collect();
        assert_eq!(a, negated, "{}", shakmaty::fen::Fen::from_position(pos, EnPassantMode::Legal));
        a.iter().for_each(|t| nonzero[usize::from(t.term)] += 1);
    }
    // The test can only fail if the terms occur: most of them do in 20,000
    // positions of master games.
    let seen = nonzero.iter().filter(|&&n| n > 0).count();
    assert!(seen * 10 >= layout.term_count() * 8, "only {seen} of {} terms occur", layout.term_count());
}

/// Squares attacked by the pawns of `color`, one pawn at a time.
fn pawn_attacks_slowly(pos: &Chess, color: Color) -> Bitboard {
    let board = pos.board();
    (board.pawns() & board.by_color(color)).into_iter().fold(Bitboard::EMPTY, |acc, sq| acc | attacks::pawn_attacks(color, sq))
}

fn attackers(pos: &Chess, square: Square, color: Color) -> Bitboard {
    pos.board().attacks_to(square, color, pos.board().occupied())
}

fn add(terms: &mut BTreeMap<String, i32>, name: String, color: Color, n: i32) {
    let s = if color == Color::White { 1 } else { -1 };
    *terms.entry(name).or_default() += s * n;
}

fn mobility_reference(pos: &Chess) -> BTreeMap<String, i32> {
    let board = pos.board();
    let mut terms = BTreeMap::new();
    for color in [Color::White, Color::Black] {
        let enemy_pawns = pawn_attacks_slowly(pos, !color);
        for square in board.by_color(color) {
            let role = board.role_at(square).unwrap();
            if matches!(role, Role::Knight | Role::Bishop | Role::Rook | Role::Queen) {
                let count =
                    board.attacks_from(square).into_iter().filter(|&t| !board.by_color(color).contains(t) && !enemy_pawns.contains(t)).count();
                add(&mut terms, format!("mob_{}_{count}", role.upper_char()), color, 1);
            }
        }
    }
    terms
}

fn threats_reference(pos: &Chess) -> BTreeMap<String, i32> {
    let board = pos.board();
    let mut terms = BTreeMap::new();
    for color in [Color::White, Color::Black] {
        let enemy = !color;
        let mut push_targets = Bitboard::EMPTY;
        for pawn in board.pawns() & board.by_color(color) {
            let step = if color == Color::White { 8 } else { -8 };
            let mut to = pawn;
            for _ in 0..if pawn.rank() == color.relative_rank(Rank::Second) { 2 } else { 1 } {
                let Some(next) = to.offset(step) else { break };
                if board.occupied().contains(next) {
                    break;
                }
                to = next;
                let pawn_attacked = (attackers(pos, to, enemy) & board.pawns()).any();
                let safe = !pawn_attacked && (attackers(pos, to, enemy).is_empty() || attackers(pos, to, color).any());
                if safe {
                    push_targets |= attacks::pawn_attacks(color, to);
                }
            }
        }
        let mut hanging_total = 0;
        for square in board.by_color(enemy) {
            let role = board.role_at(square).unwrap();
            if role == Role::King {
                continue;
            }
            let by = attackers(pos, square, color);
            let by_role = |r: Role| (by & board.by_role(r)).any();
            let name = role.upper_char();
            if role != Role::Pawn && by_role(Role::Pawn) {
                add(&mut terms, format!("threat_pawn_{name}"), color, 1);
            }
            if matches!(role, Role::Rook | Role::Queen) && (by_role(Role::Knight) || by_role(Role::Bishop)) {
                add(&mut terms, format!("threat_minor_{name}"), color, 1);
            }
            if role == Role::Queen && by_role(Role::Rook) {
                add(&mut terms, "threat_rook_Q".to_string(), color, 1);
            }
            if by.any() && attackers(pos, square, enemy).is_empty() {
                add(&mut terms, format!("hanging_{name}"), color, 1);
                hanging_total += 1;
            }
            if role != Role::Pawn && !by_role(Role::Pawn) && push_targets.contains(square) {
                add(&mut terms, "threat_push".to_string(), color, 1);
            }
        }
        if color == pos.turn() {
            add(&mut terms, "hanging_mover".to_string(), color, hanging_total);
        }
    }
    terms
}

fn king_safety_reference(pos: &Chess) -> BTreeMap<String, i32> {
    let board = pos.board();
    let mut terms = BTreeMap::new();
    for color in [Color::White, Color::Black] {
        let enemy = !color;
        let king = board.king_of(color).unwrap();
        // Ranks counted from this side: 0 = own back rank.
        let rel_rank = |sq: Square| color.relative_rank(sq.rank()) as i32;
        let k_rank = rel_rank(king);
        for file in shakmaty::File::ALL {
            if file.distance(king.file()) > 1 {
                continue;
            }
            let class = ["ah", "bg", "cf", "de"][(file as usize).min(7 - file as usize)];
            let on_file = |c: Color| (board.pawns() & board.by_color(c)).into_iter().filter(|sq| sq.file() == file).collect::<Vec<_>>();
            let (ours, theirs) = (on_file(color), on_file(enemy));
            match (ours.is_empty(), theirs.is_empty()) {
                (true, true) => add(&mut terms, "kfile_open".into(), color, 1),
                (true, false) => add(&mut terms, "kfile_no_own".into(), color, 1),
                (false, true) => add(&mut terms, "kfile_no_enemy".into(), color, 1),
                (false, false) => {}
            }
            if let Some(d) = ours.iter().map(|&p| rel_rank(p) - k_rank).filter(|&d| d > 0).min()
                && d <= 3
            {
                add(&mut terms, format!("shield_{class}_{d}"), color, 1);
            }
            let nearest = theirs.iter().copied().filter(|&p| rel_rank(p) > k_rank).min_by_key(|&p| rel_rank(p));
            if let Some(p) = nearest {
                let d = rel_rank(p) - k_rank;
                let below = Square::from_coords(file, Rank::new((p.rank() as i32 + if color == Color::White { -1 } else { 1 }) as u32));
                let blocked = ours.contains(&below);
                if d <= 4 {
                    add(&mut terms, if blocked { format!("storm_{class}_blocked") } else { format!("storm_{class}_{d}") }, color, 1);
                }
            }
        }
        // The zone: within one square of the king, or one rank beyond those towards the enemy.
        let zone: Vec<Square> = Square::ALL
            .into_iter()
            .filter(|&sq| {
                let (df, dr) = (sq.file().distance(king.file()), rel_rank(sq) - k_rank);
                df <= 1 && (-1..=2).contains(&dr)
            })
            .collect();
        let mut count = 0;
        for square in board.by_color(enemy) {
            let role = board.role_at(square).unwrap();
            if matches!(role, Role::Knight | Role::Bishop | Role::Rook | Role::Queen) && zone.iter().any(|&z| board.attacks_from(square).contains(z))
            {
                add(&mut terms, format!("katt_{}", role.upper_char()), color, 1);
                count += 1;
            }
        }
        if count >= 2 {
            add(&mut terms, format!("katt_n{}", count.min(5)), color, 1);
        }
        let defenders = |sq: Square| attackers(pos, sq, color).without(king);
        let weak = zone.iter().filter(|&&z| attackers(pos, z, enemy).any() && defenders(z).is_empty()).count() as i32;
        add(&mut terms, "kzone_weak".into(), color, weak);
        for (name, role) in [("N", Role::Knight), ("B", Role::Bishop), ("R", Role::Rook), ("Q", Role::Queen)] {
            let checker = shakmaty::Piece { color: enemy, role };
            let check = Square::ALL.into_iter().any(|sq| {
                let lands = !board.by_color(enemy).contains(sq) && (attackers(pos, sq, enemy) & board.by_role(role)).any();
                let checks = attacks::attacks(sq, checker, board.occupied()).contains(king);
                let safe = attackers(pos, sq, color).is_empty() || (defenders(sq).is_empty() && attackers(pos, sq, enemy).count() >= 2);
                lands && checks && safe
            });
            if check {
                add(&mut terms, format!("kcheck_{name}"), color, 1);
            }
        }
    }
    terms.retain(|_, v| *v != 0);
    terms
}

/// A slow implementation of a set from its documentation: term name to count.
type Reference = fn(&Chess) -> BTreeMap<String, i32>;

#[test]
#[ignore = "needs ../shared/data"]
fn the_sets_agree_with_square_by_square_references_on_real_games() {
    let games = positions("human/Tal.pgn", 6_000);
    let references: [(FeatureSet, Reference); 3] =
        [(FeatureSet::Mobility, mobility_reference), (FeatureSet::Threats, threats_reference), (FeatureSet::KingSafety, king_safety_reference)];
    for (set, reference) in references {
        let mut nonzero = 0;
        for pos in &games {
            let mut expected = reference(pos);
            expected.retain(|_, v| *v != 0);
            let got = by_name(set, pos);
            assert_eq!(got, expected, "{set} in {}", shakmaty::fen::Fen::from_position(pos, EnPassantMode::Legal));
            nonzero += got.len();
        }
        assert!(nonzero > games.len(), "{set}: too few terms to test anything");
    }
}

#[test]
fn starting_values_cover_every_term_with_sensible_signs() {
    let presets: [(FeatureSet, Vec<(f64, f64)>); 3] = [
        (FeatureSet::Mobility, mobility_preset::starting_values()),
        (FeatureSet::Threats, threats_preset::starting_values()),
        (FeatureSet::KingSafety, king_safety_preset::starting_values()),
    ];
    for (set, values) in &presets {
        assert_eq!(values.len(), set.term_count(), "{set}");
        assert!(values.iter().all(|(mg, eg)| mg.abs() <= 200.0 && eg.abs() <= 200.0), "{set}");
    }
    // Mobility rises with the count, for every piece and phase.
    let mobility = &presets[0].1;
    let terms = FeatureSet::Mobility.terms();
    for w in 0..mobility.len() - 1 {
        let same_piece = terms[w][..5] == terms[w + 1][..5];
        if same_piece {
            assert!(mobility[w + 1].0 >= mobility[w].0 && mobility[w + 1].1 >= mobility[w].1, "{}", terms[w + 1]);
        }
    }
    // Threats are good for the side making them; shields good, attacks bad for the king's side.
    assert!(presets[1].1.iter().all(|&(mg, eg)| mg > 0.0 && eg > 0.0));
    for (name, (mg, _)) in FeatureSet::KingSafety.terms().iter().zip(&presets[2].1) {
        assert_eq!(name.starts_with("shield"), *mg > 0.0, "{name}");
    }
}
