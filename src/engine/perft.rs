//! Perft: counting the leaves of the legal move tree, through the same
//! move generation (shakmaty's) and make-move path ([`HashedPosition`]) as
//! the search. Known counts catch any error in that path, hashing
//! included. `pgntune perft` and the UCI `go perft N` call [`run`].

use std::fmt;
use std::time::{Duration, Instant};

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

use super::position::HashedPosition;

/// The deepest count `perft` and `go perft` accept. Depth 10 of the start
/// position is 69 trillion nodes, days of counting here; a few plies more
/// take years, and the counts of busy positions then pass 2^64.
pub const MAX_PERFT_DEPTH: u32 = 10;

/// A perft to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftConfig {
    /// The root position.
    pub position: Chess,
    /// Plies to count.
    pub depth: u32,
    /// Also count per first move.
    pub divide: bool,
    /// How the per-move lines write castling: king two squares
    /// (`e1g1`), or king takes rook (`e1h1`) as a GUI with `UCI_Chess960`
    /// expects, whatever the position's own castling rights look like.
    pub castling: CastlingMode,
}

impl PerftConfig {
    /// A count of `position` to `depth`, castling written as the position's
    /// own rights suggest (Chess960 notation only where they need it).
    pub fn new(position: Chess, depth: u32, divide: bool) -> PerftConfig {
        let castling = position.castles().mode();
        PerftConfig { position, depth, divide, castling }
    }
}

/// A perft's counts. `Display` writes them as engines do: with `divide`,
/// `move: count` per first move, then `Nodes searched: N`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftReport {
    /// The depth counted.
    pub depth: u32,
    /// Per first move (UCI notation), in generation order, with `divide`.
    pub divide: Vec<(String, u64)>,
    /// Leaves of the tree.
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
}

/// Counts the tree of `config`.
pub fn run(config: &PerftConfig) -> PerftReport {
    let started = Instant::now();
    let mode = config.castling;
    let root = HashedPosition::new(config.position.clone());
    let (divide, nodes) = if config.divide {
        let split: Vec<(String, u64)> = divide(&root, config.depth).into_iter().map(|(m, n)| (UciMove::from_move(m, mode).to_string(), n)).collect();
        let nodes = if config.depth == 0 { 1 } else { split.iter().map(|(_, n)| n).sum() };
        (split, nodes)
    } else {
        (Vec::new(), perft(&root, config.depth))
    };
    PerftReport { depth: config.depth, divide, nodes, time: started.elapsed() }
}

impl fmt::Display for PerftReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (m, n) in &self.divide {
            writeln!(f, "{m}: {n}")?;
        }
        if !self.divide.is_empty() {
            writeln!(f)?;
        }
        writeln!(f, "Nodes searched: {}", self.nodes)
    }
}

/// The number of legal move sequences of length `depth` from `pos`.
pub fn perft(pos: &HashedPosition, depth: u32) -> u64 {
    match depth {
        0 => 1,
        // Bulk counting: the moves of the last ply need not be made.
        1 => pos.legal_moves().len() as u64,
        _ => pos.legal_moves().into_iter().map(|m| perft(&pos.play(m), depth - 1)).sum(),
    }
}

/// [`perft`] split by first move, in generation order (for finding where
/// two move generators disagree).
pub fn divide(pos: &HashedPosition, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves().into_iter().map(|m| (m, perft(&pos.play(m), depth - 1))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Chess, fen::Fen};
    use std::time::Instant;

    fn check(fen: &str, depth: u32, expected: u64) {
        let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        let start = Instant::now();
        let nodes = perft(&HashedPosition::new(pos), depth);
        let elapsed = start.elapsed();
        println!("perft {depth} {fen}: {nodes} in {:.3} s ({:.1} Mnps)", elapsed.as_secs_f64(), nodes as f64 / elapsed.as_secs_f64() / 1e6);
        assert_eq!(nodes, expected, "{fen}");
    }

    #[test]
    fn start_position() {
        check("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5, 4_865_609);
    }

    #[test]
    fn kiwipete() {
        check("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4, 4_085_603);
    }

    #[test]
    fn rook_endgame_with_en_passant_pins() {
        check("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674_624);
    }

    #[test]
    fn promotions_and_castling_rights() {
        check("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4, 422_333);
    }

    #[test]
    fn middlegame_with_checks() {
        check("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 4, 2_103_487);
    }

    #[test]
    fn position_6() {
        check("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 4, 3_894_594);
    }

    #[test]
    fn the_report_divides_like_engines_do() {
        let report = run(&PerftConfig::new(Chess::default(), 2, true));
        assert_eq!((report.nodes, report.divide.len()), (400, 20));
        assert_eq!(report.divide[0].1, 20);
        let text = report.to_string();
        assert!(text.ends_with("\nNodes searched: 400\n") && text.lines().filter(|l| l.ends_with(": 20")).count() == 20, "{text}");
        assert_eq!(run(&PerftConfig::new(Chess::default(), 0, true)).nodes, 1);
    }

    #[test]
    fn divide_adds_up() {
        let pos = HashedPosition::new(Chess::default());
        let split = divide(&pos, 3);
        assert_eq!(split.len(), 20);
        assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), 8_902);
    }
}
