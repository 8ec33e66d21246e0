//! `bench`: fixed-depth searches of fixed positions. The total node count
//! is the search's fingerprint (any change to the search or the evaluation
//! changes it; a refactoring must not), and nodes per second its speed.
//!
//! Each position is searched from a cleared engine, so the count does not
//! depend on the order of the positions or on anything searched before.

use std::fmt;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess};

use super::search::nodes_per_second;
use super::{Engine, Evaluator, Limits, Score};

/// The depth `bench` searches to by default: a few seconds in all.
pub const DEFAULT_BENCH_DEPTH: u32 = 12;

/// The transposition table size of a bench run, in MB.
pub const BENCH_HASH_MB: usize = 16;

/// The bench positions: openings, middlegames, tactics, mates and endings
/// (standard chess, no Chess960 castling).
pub const BENCH_POSITIONS: [&str; 30] = [
    // Openings.
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
    "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",
    "rnbqkb1r/ppp1pppp/5n2/3p4/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - 1 3",
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 4 5",
    // Middlegames.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB2BPPP/2RQ1RK1 w - - 0 11",
    "r2q1rk1/ppp2ppp/2n1bn2/2b1p3/3pP3/3P1NPP/PPP1NPB1/R1BQ1RK1 b - - 0 9",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    // Tactics and mates.
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "7k/8/8/8/8/8/R7/1R5K w - - 0 1",
    "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
    "7k/6pp/8/RR6/Q7/3q2PP/8/7K b - - 0 1",
    "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1",
    // Endgames.
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
    "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
    "8/8/1p6/3k4/8/1P6/2K5/8 w - - 0 1",
    "8/8/8/8/4k3/8/8/R3K3 w - - 0 1",
    "8/5pk1/6p1/8/4Q3/6P1/5PK1/q7 b - - 0 1",
    "8/3k4/8/8/8/8/3K4/3Q4 w - - 0 1",
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
    "8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 0 47",
    "2K5/p7/7P/5pR1/8/5k2/r7/8 w - - 0 1",
];

/// The search of one bench position.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchLine {
    /// The position.
    pub fen: &'static str,
    /// The best move in UCI notation (`0000` for none).
    pub best: String,
    /// Its score.
    pub score: Score,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
}

/// The result of a bench run.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchReport {
    /// The depth searched.
    pub depth: u32,
    /// One line per position.
    pub lines: Vec<BenchLine>,
    /// Total nodes: the signature.
    pub nodes: u64,
    /// Total time.
    pub time: Duration,
    /// Nodes per second over the whole run.
    pub nps: u64,
}

/// Searches every bench position to `depth` with a fresh game each.
pub fn run_bench(evaluator: &Evaluator, depth: u32) -> BenchReport {
    let mut engine = Engine::new(evaluator.clone(), BENCH_HASH_MB);
    let stop = AtomicBool::new(false);
    let limits = Limits::depth(depth);
    let start = Instant::now();
    let mut lines = Vec::with_capacity(BENCH_POSITIONS.len());
    for fen in BENCH_POSITIONS {
        let Some(root) = parse(fen) else { continue };
        engine.new_game();
        let result = engine.search(&root, &[], &limits, &stop, &mut |_| {});
        let best = result.best.map_or_else(|| "0000".to_string(), |m| UciMove::from_move(m, CastlingMode::Standard).to_string());
        lines.push(BenchLine { fen, best, score: result.score, nodes: result.nodes, time: result.time });
    }
    let time = start.elapsed();
    let nodes = lines.iter().map(|l| l.nodes).sum();
    BenchReport { depth, lines, nodes, time, nps: nodes_per_second(nodes, time) }
}

fn parse(fen: &str) -> Option<Chess> {
    fen.parse::<Fen>().ok()?.into_position(CastlingMode::Standard).ok()
}

/// One line per position, then the totals; the node count comes last.
impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, line) in self.lines.iter().enumerate() {
            writeln!(
                f,
                "{:>2} {:<72} {:>6} {:>10} {:>10} nodes {:>6} ms",
                i + 1,
                line.fen,
                line.best,
                line.score.to_string(),
                line.nodes,
                line.time.as_millis()
            )?;
        }
        writeln!(f, "depth {}, {} positions", self.depth, self.lines.len())?;
        writeln!(f, "time: {} ms", self.time.as_millis())?;
        writeln!(f, "nodes/s: {}", self.nps)?;
        writeln!(f, "{} nodes", self.nodes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::weights::Weights;

    #[test]
    fn every_bench_position_is_legal() {
        for fen in BENCH_POSITIONS {
            assert!(parse(fen).is_some(), "{fen}");
        }
    }

    #[test]
    fn a_shallow_bench_is_reproducible() {
        let evaluator = Evaluator::new(&Weights::preset("classical").unwrap()).unwrap();
        let a = run_bench(&evaluator, 4);
        let b = run_bench(&evaluator, 4);
        assert_eq!(a.lines.len(), BENCH_POSITIONS.len());
        assert_eq!(a.nodes, b.nodes);
        assert_eq!(a.lines.iter().map(|l| (&l.best, l.score)).collect::<Vec<_>>(), b.lines.iter().map(|l| (&l.best, l.score)).collect::<Vec<_>>());
        assert!(a.to_string().ends_with(&format!("{} nodes\n", a.nodes)));
    }
}
