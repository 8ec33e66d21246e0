//! Replaying a [`GameRecord`] legally with shakmaty: start position, variant,
//! and the first move that cannot be played.

use std::fmt;

use pgn_reader::SanPlus;
use shakmaty::san::{San, SanError};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Piece, Position, PositionError, Role, Square, attacks, fen::Fen};

use super::record::GameRecord;

/// The rules a game is played under.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rules {
    /// Standard chess (possibly from a set-up position).
    Standard,
    /// Chess960 / Fischer random: Chess960 castling.
    Chess960,
}

impl Rules {
    /// Classifies a `[Variant]` tag. `None` for variants pgntune does not
    /// replay (crazyhouse, antichess, atomic, ...).
    pub fn from_variant_tag(tag: Option<&[u8]>) -> Option<Rules> {
        let Some(raw) = tag else { return Some(Rules::Standard) };
        let name: String = String::from_utf8_lossy(raw).chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect();
        match name.as_str() {
            "" | "standard" | "chess" | "normal" | "fromposition" => Some(Rules::Standard),
            "chess960" | "fischerandom" | "fischerrandom" | "frc" | "960" => Some(Rules::Chess960),
            _ => None,
        }
    }
}

/// Why a game has no usable start position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartError {
    /// A `[Variant]` pgntune does not replay.
    Variant(String),
    /// A `[FEN]` that does not parse or is not a legal position.
    Fen(String),
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::Variant(v) => write!(f, "unsupported variant '{v}'"),
            StartError::Fen(msg) => write!(f, "bad FEN: {msg}"),
        }
    }
}

/// The position a game starts from: its `[FEN]` if it has one (under the
/// rules of its `[Variant]`), else the standard start.
pub fn start_position(record: &GameRecord) -> Result<Chess, StartError> {
    let rules = Rules::from_variant_tag(record.variant.as_deref())
        .ok_or_else(|| StartError::Variant(String::from_utf8_lossy(record.variant.as_deref().unwrap_or(b"")).into_owned()))?;
    let Some(fen) = &record.fen else { return Ok(Chess::default()) };
    let fen = Fen::from_ascii(fen.trim_ascii()).map_err(|e| StartError::Fen(format!("{e}: '{}'", String::from_utf8_lossy(fen))))?;
    let pos = match rules {
        Rules::Standard => position_from_fen(fen),
        Rules::Chess960 => fen.into_position::<Chess>(CastlingMode::Chess960).or_else(PositionError::ignore_invalid_ep_square),
    };
    pos.map_err(|e| StartError::Fen(e.to_string()))
}

pub use crate::fen::position_from_fen;

/// Why a move of the main line could not be played.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BadMoveKind {
    /// No legal move matches.
    Illegal,
    /// Several legal moves match.
    Ambiguous,
    /// A null move (`--`, `Z0`), which is not a chess move.
    Null,
}

impl fmt::Display for BadMoveKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BadMoveKind::Illegal => "illegal move",
            BadMoveKind::Ambiguous => "ambiguous move",
            BadMoveKind::Null => "null move",
        })
    }
}

/// The first move of a game that could not be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadMove {
    /// 1-based ply of the bad move (the game stops after ply - 1).
    pub ply: u32,
    /// The move as written.
    pub text: String,
    /// What was wrong with it.
    pub kind: BadMoveKind,
}

/// Finds the legal move `san` stands for.
///
/// Two common departures from SAN are read as what they unambiguously mean:
///
/// * a wrong or missing capture marker (`Nf3` for a knight that takes on
///   f3), when exactly one legal move fits without it: the marker carries
///   no information needed to identify the move;
/// * a move in UCI notation (`g1f3`, `e7e8q`, `e1g1`), which reads as a
///   pawn move with both file and rank given; no real pawn move needs both,
///   so when that fails it is tried as the UCI move from that square.
pub fn resolve(pos: &Chess, san: San) -> Result<Move, BadMoveKind> {
    match san.to_move(pos) {
        Ok(m) => Ok(m),
        Err(SanError::AmbiguousSan) => Err(BadMoveKind::Ambiguous),
        Err(SanError::IllegalSan) => match san {
            San::Null => Err(BadMoveKind::Null),
            San::Normal { role: Role::Pawn, file: Some(file), rank: Some(rank), to, promotion, .. } => {
                UciMove::Normal { from: Square::from_coords(file, rank), to, promotion }.to_move(pos).map_err(|_| BadMoveKind::Illegal)
            }
            San::Normal { role, file, rank, capture, to, promotion } => {
                let flipped = San::Normal { role, file, rank, capture: !capture, to, promotion };
                flipped.to_move(pos).map_err(|_| BadMoveKind::Illegal)
            }
            _ => Err(BadMoveKind::Illegal),
        },
    }
}

/// Whether the side to move in `pos` is in check, given that `m` was the
/// move just played. Same answer as [`Position::is_check`], cheaper for
/// normal moves: only the moved piece can give a direct check, and a
/// discovered check needs the vacated square on a line with the king; the
/// full attack scan runs only then, and for castling and en passant.
#[inline]
pub fn in_check_after(pos: &Chess, m: Move) -> bool {
    let Move::Normal { role, from, to, promotion, .. } = m else {
        return pos.is_check();
    };
    let board = pos.board();
    let Some(king) = board.king_of(pos.turn()) else { return false };
    let mover = !pos.turn();
    let occupied = board.occupied();
    let role = promotion.unwrap_or(role);
    let direct = match role {
        Role::Pawn => attacks::pawn_attacks(mover, to).contains(king),
        Role::Knight => attacks::knight_attacks(to).contains(king),
        Role::King => false,
        // A slider can only attack the king along a line through both squares.
        _ => attacks::ray(to, king).any() && attacks::attacks(to, Piece { color: mover, role }, occupied).contains(king),
    };
    direct || (attacks::ray(king, from).any() && board.attacks_to(king, mover, occupied).any())
}

/// Plays `moves` from `pos`, calling `after_move(position, move, ply)` after
/// each one, until the moves run out, `max_plies` is reached, or a move
/// cannot be played, which is returned.
pub fn replay<F>(pos: &mut Chess, moves: &[SanPlus], max_plies: Option<u32>, mut after_move: F) -> Option<BadMove>
where
    F: FnMut(&Chess, Move, u32),
{
    let limit = max_plies.map_or(moves.len(), |m| moves.len().min(m as usize));
    for (i, san_plus) in moves[..limit].iter().enumerate() {
        let ply = i as u32 + 1;
        match resolve(pos, san_plus.san) {
            Ok(m) => {
                pos.play_unchecked(m);
                after_move(pos, m, ply);
            }
            Err(kind) => return Some(BadMove { ply, text: san_plus.to_string(), kind }),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sans(text: &str) -> Vec<SanPlus> {
        text.split_whitespace().map(|s| s.parse().unwrap()).collect()
    }

    #[test]
    fn variant_names() {
        assert_eq!(Rules::from_variant_tag(None), Some(Rules::Standard));
        assert_eq!(Rules::from_variant_tag(Some(b"fischerandom")), Some(Rules::Chess960));
        assert_eq!(Rules::from_variant_tag(Some(b"Chess960")), Some(Rules::Chess960));
        assert_eq!(Rules::from_variant_tag(Some(b"From Position")), Some(Rules::Standard));
        assert_eq!(Rules::from_variant_tag(Some(b"crazyhouse")), None);
    }

    #[test]
    fn stops_at_first_bad_move() {
        let mut pos = Chess::default();
        let mut plies = vec![];
        let bad = replay(&mut pos, &sans("e4 e5 Nf3 Nf3 Nc6"), None, |_, _, ply| plies.push(ply));
        assert_eq!(plies, [1, 2, 3]);
        assert_eq!(bad, Some(BadMove { ply: 4, text: "Nf3".into(), kind: BadMoveKind::Illegal }));
    }

    #[test]
    fn missing_capture_marker_is_tolerated() {
        let mut pos = Chess::default();
        let bad = replay(&mut pos, &sans("e4 d5 d5"), None, |_, _, _| {});
        assert_eq!(bad, None);
        assert_eq!(pos.board().pawns().count(), 15);
    }

    #[test]
    fn fast_check_test_agrees_with_shakmaty_on_tricky_moves() {
        use shakmaty::fen::Fen;
        // Direct, discovered, double, promotion, en passant and castling checks.
        let cases = [
            ("4k3/8/8/8/8/8/3R4/4K3 w - - 0 1", "Rd3"),      // no check
            ("4k3/8/8/8/8/8/3R4/4K3 w - - 0 1", "Re2+"),     // direct rook
            ("4k3/8/8/8/4N3/8/8/4R1K1 w - - 0 1", "Nc5+"),   // discovered
            ("4k3/8/8/8/4N3/8/8/4R1K1 w - - 0 1", "Nd6+"),   // double
            ("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b8=Q+"),    // promotion
            ("8/8/8/1k1pP2R/8/8/8/4K3 w - d6 0 2", "exd6+"), // en passant discovered
            ("5k2/8/8/8/8/8/8/4K2R w K - 0 1", "O-O+"),      // castling rook check
            ("r3k3/8/8/8/8/8/8/B3K3 w q - 0 1", "Bh8"),      // no check
        ];
        for (fen, san) in cases {
            let mut pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            let m = san.parse::<SanPlus>().unwrap().san.to_move(&pos).unwrap();
            pos.play_unchecked(m);
            assert_eq!(in_check_after(&pos, m), pos.is_check(), "{fen} {san}");
            assert_eq!(pos.is_check(), san.ends_with('+'), "{fen} {san}");
        }
    }

    #[test]
    fn uci_notation_is_read() {
        let mut pos = Chess::default();
        let bad = replay(&mut pos, &sans("g1f3 e7e5 e2e4 b8c6 f1c4 g8f6 e1g1"), None, |_, _, _| {});
        assert_eq!(bad, None);
        assert!(pos.board().king_of(shakmaty::Color::White) == Some(Square::G1));
    }

    #[test]
    fn max_plies_stops_early() {
        let mut pos = Chess::default();
        let mut n = 0;
        assert_eq!(replay(&mut pos, &sans("e4 e5 Nf3 Nc6"), Some(2), |_, _, _| n += 1), None);
        assert_eq!(n, 2);
    }
}
