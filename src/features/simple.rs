//! The small feature sets: tapered material, the bishop pair and the tempo.
//!
//! Each is a handful of terms, tapered (a middlegame and an endgame value)
//! like every set of the whole evaluation.

use shakmaty::{Color, Position};

use super::context::{Context, sign};
use super::material::Material;

/// `material_tapered`: the piece counts P N B R Q (white minus black), with
/// a middlegame and an endgame value each, as engines keep them. The
/// article's untapered `material` stays for its numbers.
#[derive(Copy, Clone, Debug, Default)]
pub struct MaterialTapered;

impl MaterialTapered {
    /// One line for `pgntune features`.
    pub const MEANING: &'static str = "piece counts P N B R Q, white minus black, with middlegame and endgame values";

    /// Term names: P N B R Q (the columns are `mg_P` … `eg_Q`).
    pub fn terms() -> Vec<String> {
        Material::COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    /// Calls `emit(role, white count − black count)` for each role.
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(ctx: &Context, emit: F) {
        Material::visit(ctx.pos, emit);
    }
}

/// `bishop_pair`: `+1` when white has two or more bishops, `-1` when black
/// has (both: 0). Two bishops cover both square colours, which one bishop
/// and a knight cannot; the bonus is the classical half pawn.
#[derive(Copy, Clone, Debug, Default)]
pub struct BishopPair;

impl BishopPair {
    /// One line for `pgntune features`.
    pub const MEANING: &'static str = "owning two or more bishops, white minus black";

    /// The one term.
    pub fn terms() -> Vec<String> {
        vec!["bishop_pair".to_string()]
    }

    /// Calls `emit(0, pair(white) − pair(black))`.
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(ctx: &Context, mut emit: F) {
        let bishops = ctx.board.bishops();
        let pair = |color: Color| i32::from((bishops & ctx.board.by_color(color)).more_than_one());
        let value = pair(Color::White) - pair(Color::Black);
        if value != 0 {
            emit(0, value);
        }
    }
}

/// `tempo`: `+1` with white to move, `-1` with black to move. The side to
/// move is worth something (it moves first out of any tension); without
/// this term a static evaluation cannot say so.
#[derive(Copy, Clone, Debug, Default)]
pub struct Tempo;

impl Tempo {
    /// One line for `pgntune features`.
    pub const MEANING: &'static str = "the side to move: +1 white, -1 black";

    /// The one term.
    pub fn terms() -> Vec<String> {
        vec!["tempo".to_string()]
    }

    /// Calls `emit(0, ±1)`.
    #[inline]
    pub fn visit<F: FnMut(usize, i32)>(ctx: &Context, mut emit: F) {
        emit(0, sign(ctx.pos.turn()));
    }
}
