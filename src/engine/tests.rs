//! Behaviour tests of the whole search: mates, draws, limits, determinism.

use std::sync::atomic::AtomicBool;

use shakmaty::{CastlingMode, Chess, Move, Position, fen::Fen, uci::UciMove};

use super::*;
use crate::weights::Weights;

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
}

fn engine() -> Engine {
    Engine::new(Evaluator::new(&Weights::preset("classical").unwrap()).unwrap(), 4)
}

fn search(engine: &mut Engine, root: &Chess, history: &[u64], limits: Limits) -> SearchResult {
    let stop = AtomicBool::new(false);
    engine.search(root, history, &limits, &stop, &mut |_| {})
}

fn uci(m: Move) -> String {
    UciMove::from_move(m, CastlingMode::Standard).to_string()
}

fn after(root: &Chess, m: Move) -> Chess {
    let mut p = root.clone();
    p.play_unchecked(m);
    p
}

#[test]
fn mate_in_one_is_found_and_scored() {
    let root = pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    let result = search(&mut engine(), &root, &[], Limits::depth(4));
    assert_eq!(result.score, Score::Mate(1));
    assert_eq!(uci(result.best.unwrap()), "a1a8");
    assert!(after(&root, result.best.unwrap()).is_checkmate());
}

#[test]
fn mate_in_two_is_found() {
    // 1. Rb7 (or Ra7) Kg8 2. Ra8# (Rb8#): no mate in one.
    let root = pos("7k/8/8/8/8/8/R7/1R5K w - - 0 1");
    let result = search(&mut engine(), &root, &[], Limits::depth(6));
    assert_eq!(result.score, Score::Mate(2));
    assert_eq!(result.pv.len(), 3);
    let mut p = root.clone();
    for &m in &result.pv {
        p.play_unchecked(m);
    }
    assert!(p.is_checkmate());
}

#[test]
fn shorter_mate_is_preferred_at_any_depth() {
    // Rb8# mates at once; many longer mates exist too.
    let root = pos("7k/R7/8/8/8/8/8/1R5K w - - 0 1");
    let mut engine = engine();
    for depth in [2, 5, 9] {
        engine.new_game();
        let result = search(&mut engine, &root, &[], Limits::depth(depth));
        assert_eq!(result.score, Score::Mate(1), "depth {depth}");
        assert!(after(&root, result.best.unwrap()).is_checkmate(), "depth {depth}");
    }
}

#[test]
fn being_mated_is_a_negative_mate_score() {
    let root = pos("7k/R7/8/8/8/8/8/1R5K b - - 0 1");
    let result = search(&mut engine(), &root, &[], Limits::depth(5));
    assert_eq!(result.score, Score::Mate(-1));
}

#[test]
fn roots_without_moves() {
    let mated = pos("R5k1/5ppp/8/8/8/8/8/6K1 b - - 1 1");
    let result = search(&mut engine(), &mated, &[], Limits::depth(3));
    assert_eq!((result.best, result.score), (None, Score::Mate(0)));
    let stalemate = pos("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1");
    let result = search(&mut engine(), &stalemate, &[], Limits::depth(3));
    assert_eq!((result.best, result.score), (None, Score::Cp(0)));
}

#[test]
fn repetition_from_the_game_history_is_a_draw() {
    // White is lost (a queen and a rook against a rook) but Kf1 reaches a
    // position that occurred twice before: a threefold repetition.
    let root = pos("k7/8/8/8/8/8/qr6/4K2R w - - 10 40");
    let kf1 = root.legal_moves().into_iter().find(|m| uci(*m) == "e1f1").unwrap();
    let x = position_hash(&after(&root, kf1));
    let r = position_hash(&root);
    let history = [r, x, r, x];

    let lost = search(&mut engine(), &root, &[], Limits::depth(5));
    assert!(matches!(lost.score, Score::Cp(cp) if cp < -500) || matches!(lost.score, Score::Mate(n) if n < 0), "{lost:?}");

    let drawn = search(&mut engine(), &root, &history, Limits::depth(5));
    assert_eq!(drawn.score, Score::Cp(0));
    assert_eq!(uci(drawn.best.unwrap()), "e1f1");

    // Occurring only once before is not yet a draw.
    let once = search(&mut engine(), &root, &history[2..], Limits::depth(5));
    assert_ne!(once.score, Score::Cp(0));
}

#[test]
fn repetition_inside_the_search_is_a_draw() {
    // Black is a queen and two rooks against a queen down, but has a
    // perpetual check: Qf1+ Kh2 Qf2+ Kh1 Qf1+ ... (nothing can block on g1
    // or g2). Only repetition detection inside the tree sees the draw.
    let root = pos("7k/6pp/8/RR6/Q7/3q2PP/8/7K b - - 0 1");
    let result = search(&mut engine(), &root, &[], Limits::depth(8));
    assert_eq!(result.score, Score::Cp(0), "{result:?}");
    assert_eq!(uci(result.best.unwrap()), "d3f1");
}

#[test]
fn fifty_move_rule_is_a_draw_unless_mate() {
    // A queen up, but every move is the 100th half-move without a capture
    // or pawn move, and there is no mate in one.
    let root = pos("k7/8/2K5/8/8/8/8/6Q1 w - - 99 80");
    let drawn = search(&mut engine(), &root, &[], Limits::depth(5));
    assert_eq!(drawn.score, Score::Cp(0));
    let fresh = pos("k7/8/2K5/8/8/8/8/6Q1 w - - 0 80");
    let winning = search(&mut engine(), &fresh, &[], Limits::depth(5));
    assert!(matches!(winning.score, Score::Cp(cp) if cp > 500) || matches!(winning.score, Score::Mate(_)), "{winning:?}");
    // Mate on the 100th half-move still wins.
    let mate = pos("k7/8/1K6/8/8/8/8/6Q1 w - - 99 80");
    let result = search(&mut engine(), &mate, &[], Limits::depth(5));
    assert_eq!(result.score, Score::Mate(1));
}

#[test]
fn insufficient_material_is_a_draw() {
    // A rook down, white takes it with the knight: a bare knight against a
    // bare king is a dead draw, scored 0 (not a knight up), and far better
    // than every other move.
    let root = pos("k7/8/8/4r3/8/5N2/8/7K w - - 0 1");
    let result = search(&mut engine(), &root, &[], Limits::depth(6));
    assert_eq!((uci(result.best.unwrap()), result.score), ("f3e5".to_string(), Score::Cp(0)), "{result:?}");
    let bare = pos("8/8/4k3/8/8/3N4/8/3K4 w - - 0 1");
    let result = search(&mut engine(), &bare, &[], Limits::depth(4));
    assert_eq!(result.score, Score::Cp(0));
}

#[test]
fn fixed_node_searches_are_deterministic() {
    let root = pos("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 1 8");
    let history = [0x1234_5678_u64, 0x9abc_def0];
    let mut first_engine = engine();
    let first = search(&mut first_engine, &root, &history, Limits::nodes(60_000));
    assert_eq!(first.nodes, 60_000);
    let second = search(&mut engine(), &root, &history, Limits::nodes(60_000));
    // A used engine after new_game() behaves like a fresh one.
    first_engine.new_game();
    let third = search(&mut first_engine, &root, &history, Limits::nodes(60_000));
    for other in [&second, &third] {
        assert_eq!((first.best, first.score, first.nodes, first.depth, &first.pv), (other.best, other.score, other.nodes, other.depth, &other.pv));
    }
}

#[test]
fn helper_threads_search_too_and_count_their_nodes() {
    let root = pos("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 1 8");
    let mut engine = engine();
    engine.set_threads(3);
    assert_eq!(engine.threads(), 3);
    // The node limit is the main thread's, honoured exactly; the helpers'
    // nodes come on top of it (each searches at least until its first
    // look at the stop flag).
    let result = search(&mut engine, &root, &[], Limits::nodes(60_000));
    assert!(result.nodes > 60_000, "{}", result.nodes);
    assert!(root.is_legal(result.best.unwrap()));
    // One thread again: the deterministic search of a fresh engine.
    engine.set_threads(1);
    engine.new_game();
    let again = search(&mut engine, &root, &[], Limits::nodes(60_000));
    let fresh = search(&mut super::tests::engine(), &root, &[], Limits::nodes(60_000));
    assert_eq!((again.best, again.score, again.nodes, &again.pv), (fresh.best, fresh.score, fresh.nodes, &fresh.pv));
    assert_eq!(again.nodes, 60_000);
    assert_eq!(engine.threads(), 1);
    engine.set_threads(0);
    assert_eq!(engine.threads(), 1, "at least one thread");
    engine.set_threads(10_000);
    assert_eq!(engine.threads(), MAX_THREADS);
}

#[test]
fn threads_find_mates_and_end_on_stop() {
    let mut engine = engine();
    engine.set_threads(2);
    let root = pos("7k/8/8/8/8/8/R7/1R5K w - - 0 1");
    let result = search(&mut engine, &root, &[], Limits::depth(6));
    assert_eq!(result.score, Score::Mate(2));
    // An endless search with helpers ends when the flag is raised. On a
    // thread of its own that owns the engine, so that a search that never
    // ends fails the test instead of hanging it.
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let flag = std::sync::Arc::clone(&stop);
    let searching = std::thread::Builder::new()
        .stack_size(SEARCH_STACK_BYTES)
        .spawn(move || {
            let limits = Limits { infinite: true, ..Limits::default() };
            engine.search(&Chess::default(), &[], &limits, &flag, &mut |_| {})
        })
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let stopped = std::time::Instant::now();
    while !searching.is_finished() {
        assert!(stopped.elapsed() < std::time::Duration::from_secs(5), "the helpers did not stop");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let result = searching.join().unwrap();
    assert!(Chess::default().is_legal(result.best.unwrap()));
    assert!(result.depth >= 1);
}

#[test]
fn fixed_depth_searches_are_deterministic() {
    let root = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    let a = search(&mut engine(), &root, &[], Limits::depth(6));
    let b = search(&mut engine(), &root, &[], Limits::depth(6));
    assert_eq!((a.best, a.score, a.nodes, &a.pv), (b.best, b.score, b.nodes, &b.pv));
    assert_eq!(a.depth, 6);
}

#[test]
fn info_is_reported_per_iteration_with_a_legal_pv() {
    let root = Chess::default();
    let mut depths = Vec::new();
    let stop = AtomicBool::new(false);
    let result = engine().search(&root, &[], &Limits::depth(5), &stop, &mut |info| {
        depths.push(info.depth);
        let mut p = root.clone();
        for &m in &info.pv {
            assert!(p.is_legal(m), "{m:?}");
            p.play_unchecked(m);
        }
    });
    assert_eq!(depths, [1, 2, 3, 4, 5]);
    assert_eq!(result.pv.first().copied(), result.best);
    assert_eq!(result.pv.get(1).copied(), result.ponder);
}

#[test]
fn a_raised_stop_flag_still_gives_the_best_ordered_move() {
    // Stopped before depth 1: the move ordering's first move, which is the
    // capture of the undefended queen (the only capture), not just any
    // legal move.
    let root = pos("k7/8/8/3q4/8/8/3R4/K7 w - - 0 1");
    let stop = AtomicBool::new(true);
    let result = engine().search(&root, &[], &Limits::infinite(), &stop, &mut |_| {});
    assert_eq!(uci(result.best.unwrap()), "d2d5");
    assert!(result.nodes <= 2 * params::CHECK_INTERVAL);
}

#[test]
fn a_timed_search_respects_its_clock() {
    let clock = Limits {
        clock: Some(GameClock { time_left: Duration::from_millis(1_000), increment: Duration::from_millis(10), moves_to_go: None }),
        ..Limits::default()
    };
    let root = pos("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 1 8");
    let result = search(&mut engine(), &root, &[], clock.clone());
    assert!(root.is_legal(result.best.unwrap()));
    assert!(result.time < Duration::from_millis(400), "{:?}", result.time);
    // And what it plays in that time is found, not just any move: the
    // back-rank mate Qd8#.
    let mate = pos("6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1");
    let result = search(&mut engine(), &mate, &[], clock);
    assert_eq!((uci(result.best.unwrap()), result.score), ("d1d8".to_string(), Score::Mate(1)), "{result:?}");
}

#[test]
fn score_conversion() {
    assert_eq!(Score::from_internal(MATE - 1), Score::Mate(1));
    assert_eq!(Score::from_internal(MATE - 3), Score::Mate(2));
    assert_eq!(Score::from_internal(-MATE + 2), Score::Mate(-1));
    assert_eq!(Score::from_internal(-MATE), Score::Mate(0));
    assert_eq!(Score::from_internal(-35), Score::Cp(-35));
    assert_eq!(Score::Mate(-2).to_string(), "mate -2");
}
