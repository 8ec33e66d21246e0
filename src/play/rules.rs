//! When a game is over, by the FIDE Laws of Chess: checkmate (5.1.1),
//! stalemate (5.2.1), dead position (5.2.2), threefold and fivefold
//! repetition (9.2, 9.6.1), the 50- and 75-move rules (9.3, 9.6.2), and
//! flag-fall with the exception of 6.9 (the opponent cannot checkmate).

use std::fmt;

use rustc_hash::FxHashMap;
use shakmaty::{Chess, Color, Position};

use crate::dataset::GameResult;

/// How repetitions and long quiet stretches end a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DrawRules {
    /// Threefold repetition and the 50-move rule, claimed at once (9.2, 9.3).
    #[default]
    Claim,
    /// Only the rules that end a game without a claim: fivefold repetition
    /// and the 75-move rule (9.6).
    Automatic,
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum Termination {
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can checkmate by any series of legal moves.
    DeadPosition,
    /// The same position for the third (claim) or fifth (automatic) time.
    Repetition(u32),
    /// 50 moves by each side without a capture or pawn move (claimed).
    FiftyMoves,
    /// 75 moves by each side without a capture or pawn move.
    SeventyFiveMoves,
    /// A player's flag fell.
    TimeForfeit,
    /// A flag fell, but the opponent could not have checkmated.
    TimeForfeitDraw,
    /// A player made an illegal or unreadable move.
    IllegalMove(String),
    /// An engine crashed, hung or broke the protocol.
    EngineFailure(String),
    /// Both engines agreed the game was lost (`--resign`).
    ResignAdjudication,
    /// Both engines agreed the game was drawn (`--draw`).
    DrawAdjudication,
    /// The game reached `--maxmoves`.
    MaxMoves,
}

impl Termination {
    /// The PGN `[Termination]` tag value (PGN standard 9.8.1).
    pub fn tag(&self) -> &'static str {
        match self {
            Termination::TimeForfeit | Termination::TimeForfeitDraw => "time forfeit",
            Termination::IllegalMove(_) => "rules infraction",
            Termination::EngineFailure(_) => "abandoned",
            Termination::ResignAdjudication | Termination::DrawAdjudication | Termination::MaxMoves => "adjudication",
            _ => "normal",
        }
    }

    /// A sentence for the PGN comment after the last move, naming the side
    /// whose turn it was when the game ended (`loser` for decisive endings).
    pub fn describe(&self, side: Color) -> String {
        let side = if side == Color::White { "White" } else { "Black" };
        let other = if side == "White" { "Black" } else { "White" };
        match self {
            Termination::Checkmate => format!("{other} mates"),
            Termination::Stalemate => "Draw by stalemate".into(),
            Termination::DeadPosition => "Draw by dead position (insufficient material)".into(),
            Termination::Repetition(n) => format!("Draw by {} repetition", if *n >= 5 { "fivefold" } else { "threefold" }),
            Termination::FiftyMoves => "Draw by the 50-move rule".into(),
            Termination::SeventyFiveMoves => "Draw by the 75-move rule".into(),
            Termination::TimeForfeit => format!("{side} loses on time"),
            Termination::TimeForfeitDraw => format!("{side}'s flag fell, but {other} cannot checkmate: draw"),
            Termination::IllegalMove(m) => format!("{side} makes an illegal move: {m}"),
            Termination::EngineFailure(why) => format!("{side}'s engine failed: {why}"),
            Termination::ResignAdjudication => format!("{side} resigns (adjudication)"),
            Termination::DrawAdjudication => "Draw by adjudication".into(),
            Termination::MaxMoves => "Draw: maximum number of moves reached".into(),
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

/// The end of a game: its result, why, and whose turn it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// The result.
    pub result: GameResult,
    /// Why.
    pub termination: Termination,
    /// The side to move when it ended (for flag-fall and failures: the side that failed).
    pub side: Color,
}

impl GameEnd {
    /// `side` lost.
    pub fn loss(side: Color, termination: Termination) -> GameEnd {
        let result = if side == Color::White { GameResult::BlackWins } else { GameResult::WhiteWins };
        GameEnd { result, termination, side }
    }

    /// A draw.
    pub fn draw(side: Color, termination: Termination) -> GameEnd {
        GameEnd { result: GameResult::Draw, termination, side }
    }
}

/// Counts positions for repetition, move by move.
#[derive(Clone, Debug)]
pub struct Arbiter {
    rules: DrawRules,
    seen: FxHashMap<u64, u32>,
}

impl Arbiter {
    /// An arbiter for a game starting at `start` (with hash `hash`).
    pub fn new(rules: DrawRules, hash: u64) -> Arbiter {
        let mut seen = FxHashMap::default();
        seen.insert(hash, 1);
        Arbiter { rules, seen }
    }

    /// Records the position after a move and says whether the game is over.
    /// Checkmate is tested first: a mating move ends the game even if it is
    /// also the 75th move or a repetition (9.6).
    pub fn after_move(&mut self, pos: &Chess, hash: u64) -> Option<GameEnd> {
        let count = {
            let c = self.seen.entry(hash).or_insert(0);
            *c += 1;
            *c
        };
        self.judge(pos, count)
    }

    /// Whether the game is over in its start position (already counted
    /// once by [`Arbiter::new`]), before any move.
    pub fn at_start(&self, pos: &Chess) -> Option<GameEnd> {
        self.judge(pos, 1)
    }

    /// Whether the game is over in `pos`, seen for the `count`th time.
    fn judge(&self, pos: &Chess, count: u32) -> Option<GameEnd> {
        let side = pos.turn();
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return Some(if pos.is_check() { GameEnd::loss(side, Termination::Checkmate) } else { GameEnd::draw(side, Termination::Stalemate) });
        }
        if pos.is_insufficient_material() {
            return Some(GameEnd::draw(side, Termination::DeadPosition));
        }
        let (repetitions, quiet_plies, quiet) = match self.rules {
            DrawRules::Claim => (3, 100, Termination::FiftyMoves),
            DrawRules::Automatic => (5, 150, Termination::SeventyFiveMoves),
        };
        if count >= repetitions {
            return Some(GameEnd::draw(side, Termination::Repetition(count)));
        }
        if pos.halfmoves() >= quiet_plies {
            return Some(GameEnd::draw(side, quiet));
        }
        None
    }
}

/// Flag-fall for the side to move in `pos` (FIDE 6.9): a loss, unless the
/// opponent cannot checkmate by any series of legal moves, then a draw.
pub fn flag_fall(pos: &Chess) -> GameEnd {
    let side = pos.turn();
    if pos.has_insufficient_material(!side) {
        GameEnd::draw(side, Termination::TimeForfeitDraw)
    } else {
        GameEnd::loss(side, Termination::TimeForfeit)
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;
    use shakmaty::san::San;
    use shakmaty::{CastlingMode, EnPassantMode};

    use super::*;
    use crate::engine::position_hash;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    /// Plays `moves` (SAN) from `fen`, returning how the game ended, if it did.
    fn play(fen: &str, moves: &str, rules: DrawRules) -> Option<GameEnd> {
        let mut p = pos(fen);
        let mut arbiter = Arbiter::new(rules, position_hash(&p));
        for san in moves.split_whitespace() {
            let m = san.parse::<San>().unwrap().to_move(&p).unwrap();
            p.play_unchecked(m);
            if let Some(end) = arbiter.after_move(&p, position_hash(&p)) {
                return Some(end);
            }
        }
        None
    }

    #[test]
    fn checkmate_and_stalemate() {
        let end = play("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "f3 e5 g4 Qh4", DrawRules::Claim).unwrap();
        assert_eq!((end.result, end.termination), (GameResult::BlackWins, Termination::Checkmate));
        // Sam Loyd's ten-move stalemate.
        let end = play(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "e3 a5 Qh5 Ra6 Qxa5 h5 h4 Rah6 Qxc7 f6 Qxd7+ Kf7 Qxb7 Qd3 Qxb8 Qh7 Qxc8 Kg6 Qe6",
            DrawRules::Claim,
        )
        .unwrap();
        assert_eq!((end.result, end.termination), (GameResult::Draw, Termination::Stalemate));
    }

    #[test]
    fn dead_positions() {
        // K+B v K after the last pawn is taken; same-coloured bishops; not K+N v K+N.
        let end = play("8/8/4k3/3p4/8/3B4/8/4K3 w - - 0 1", "Bc4 Kd6 Bxd5 Kxd5", DrawRules::Claim).unwrap();
        assert_eq!(end.termination, Termination::DeadPosition);
        let end = play("8/2b5/4k3/8/8/3B4/8/4K2N w - - 0 1", "Bc4 Kd6 Ng3", DrawRules::Claim);
        assert_eq!(end, None, "K+B+N v K+B can still mate");
        assert!(pos("8/2b5/4k3/8/8/8/8/2B1K3 w - - 0 1").is_insufficient_material(), "bishops on dark squares only");
        assert!(!pos("7k/2b5/8/8/8/1B6/8/4K3 w - - 0 1").is_insufficient_material(), "opposite-coloured bishops can mate");
        assert!(!pos("8/2n5/4k3/8/8/3N4/8/4K3 w - - 0 1").is_insufficient_material(), "K+N v K+N is not dead");
    }

    #[test]
    fn threefold_claimed_fivefold_automatic() {
        let start = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
        let shuffle = "Ra2 Kd8 Ra1 Ke8 Ra2 Kd8 Ra1 Ke8 Ra2 Kd8 Ra1 Ke8 Ra2 Kd8 Ra1 Ke8";
        // The start position recurs after plies 4 and 8: third occurrence at ply 8.
        let end = play(start, shuffle, DrawRules::Claim).unwrap();
        assert_eq!(end.termination, Termination::Repetition(3));
        let end = play(start, shuffle, DrawRules::Automatic).unwrap();
        assert_eq!(end.termination, Termination::Repetition(5));
    }

    #[test]
    fn en_passant_rights_make_positions_differ() {
        // After 1...d5 (with e5 pawn) the position with an en passant capture
        // available is not the same as the one without.
        let p1 = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
        let p2 = pos("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2");
        assert_ne!(position_hash(&p1), position_hash(&p2));
        assert!(p1.ep_square(EnPassantMode::Legal).is_some());
    }

    #[test]
    fn fifty_and_seventy_five_moves() {
        let p = "4k3/8/8/8/8/8/8/R3K3 w - - 99 80";
        assert_eq!(play(p, "Ra2", DrawRules::Claim).unwrap().termination, Termination::FiftyMoves);
        assert_eq!(play(p, "Ra2", DrawRules::Automatic), None);
        let p = "4k3/8/8/8/8/8/8/R3K3 w - - 149 100";
        assert_eq!(play(p, "Ra2", DrawRules::Automatic).unwrap().termination, Termination::SeventyFiveMoves);
        // Mate on the 100th quiet ply is still mate.
        let end = play("7k/8/6K1/8/8/8/8/R7 w - - 99 80", "Ra8", DrawRules::Claim).unwrap();
        assert_eq!(end.termination, Termination::Checkmate);
    }

    #[test]
    fn a_start_position_that_is_already_over() {
        let at_start = |fen: &str, rules| {
            let p = pos(fen);
            Arbiter::new(rules, position_hash(&p)).at_start(&p).map(|end| end.termination)
        };
        assert_eq!(at_start("8/8/4k3/8/8/3K4/8/8 w - - 0 1", DrawRules::Claim), Some(Termination::DeadPosition));
        assert_eq!(at_start("6k1/5ppp/8/8/8/8/8/R5K1 w - - 100 80", DrawRules::Claim), Some(Termination::FiftyMoves));
        assert_eq!(at_start("6k1/5ppp/8/8/8/8/8/R5K1 w - - 100 80", DrawRules::Automatic), None);
        assert_eq!(at_start("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", DrawRules::Claim), Some(Termination::Checkmate));
        assert_eq!(at_start("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", DrawRules::Claim), None);
    }

    #[test]
    fn flag_fall_with_and_without_mating_material() {
        // White (to move) flags; Black has a rook: loss.
        let end = flag_fall(&pos("4k3/8/8/8/8/8/r7/4K3 w - - 0 1"));
        assert_eq!((end.result, end.termination), (GameResult::BlackWins, Termination::TimeForfeit));
        // Black has only a knight and White has no pieces it could block with: draw.
        let end = flag_fall(&pos("4k3/8/8/8/8/8/n7/4K3 w - - 0 1"));
        assert_eq!((end.result, end.termination), (GameResult::Draw, Termination::TimeForfeitDraw));
        // A lone knight can mate if White has a pawn to self-block: loss.
        let end = flag_fall(&pos("4k3/8/8/8/8/8/n6P/4K3 w - - 0 1"));
        assert_eq!(end.termination, Termination::TimeForfeit);
    }
}
