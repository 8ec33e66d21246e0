//! Positions from FEN, as every input reads them: a FEN file or EPD line, a
//! PGN game's `[FEN]` tag, an opening suite, a UCI `position fen` command.
//! Below every reader, so that [`crate::dataset`] and [`crate::pgn`] share
//! it without one reaching into the other.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, PositionError};

/// A standard-chess position from a FEN. An en-passant square that is
/// impossible in the position (common in the wild) is dropped rather than
/// rejected; files with odd castling notation (X-FEN, Shredder-FEN) still
/// hold standard chess, which Chess960 parsing reads.
#[allow(clippy::result_large_err)] // shakmaty's error type, returned as is
pub fn position_from_fen(fen: Fen) -> Result<Chess, PositionError<Chess>> {
    fen.clone()
        .into_position::<Chess>(CastlingMode::Standard)
        .or_else(PositionError::ignore_invalid_ep_square)
        .or_else(|_| fen.into_position::<Chess>(CastlingMode::Chess960).or_else(PositionError::ignore_invalid_ep_square))
}
