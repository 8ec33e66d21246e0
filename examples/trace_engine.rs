//! A tiny engine's evaluation with a trace, for tuning by `pgntune fit`:
//! tapered material, a bishop pair and a tempo bonus. Each term adds its
//! coefficient (white's count minus black's) to the trace as well as its
//! value to the score, as Ethereal's TRACE build does; the trace format is
//! documented in `pgntune::dataset::trace` and the guide
//! (docs/src/tuning-your-own-engine.md).
//!
//! Reads EPD lines with a result (`FEN c9 "1-0";` as `pgntune extract -o
//! x.epd` writes them, or `FEN [1.0]`) and writes the trace to stdout:
//!
//! ```text
//! cargo run --example trace_engine -- positions.epd > positions.trace
//! pgntune fit positions.trace --weights-out tuned.toml --emit-code rust --emit-out tuned.rs
//! ```

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Position, Role};

/// The engine's terms: name, tapered, current values (centipawns).
const TERMS: &[(&str, bool, [i32; 2])] = &[
    ("pawn", true, [82, 94]),
    ("knight", true, [337, 281]),
    ("bishop", true, [365, 297]),
    ("rook", true, [477, 512]),
    ("queen", true, [1025, 936]),
    ("bishop_pair", true, [30, 50]),
    ("tempo", false, [20, 20]),
];

/// The evaluation's coefficients, white's view: (term index, count).
fn trace(pos: &Chess) -> Vec<(usize, i32)> {
    let board = pos.board();
    let count = |color: Color, role: Role| (board.by_color(color) & board.by_role(role)).count() as i32;
    let mut out = Vec::new();
    for (t, role) in [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen].into_iter().enumerate() {
        out.push((t, count(Color::White, role) - count(Color::Black, role)));
    }
    let pair = |c: Color| i32::from(count(c, Role::Bishop) >= 2);
    out.push((5, pair(Color::White) - pair(Color::Black)));
    out.push((6, if pos.turn() == Color::White { 1 } else { -1 }));
    out.retain(|&(_, v)| v != 0);
    out
}

/// The game phase, 24 with all pieces on the board, 0 with none.
fn phase(pos: &Chess) -> i32 {
    let board = pos.board();
    let minors = (board.knights() | board.bishops()).count() as i32;
    (minors + 2 * board.rooks().count() as i32 + 4 * board.queens().count() as i32).min(24)
}

/// The result of an EPD line: white's score.
fn result(line: &str) -> Option<&'static str> {
    [("\"1-0\"", "1"), ("\"0-1\"", "0"), ("\"1/2-1/2\"", "0.5"), ("[1.0]", "1"), ("[0.0]", "0"), ("[0.5]", "0.5")]
        .into_iter()
        .find(|(mark, _)| line.contains(mark))
        .map(|(_, score)| score)
}

/// Writes the trace of every EPD line with a result in `epd` (the header first).
pub fn write_trace(epd: &str, out: &mut impl std::io::Write) -> std::io::Result<()> {
    writeln!(out, "# pgntune trace: the example engine of examples/trace_engine.rs")?;
    for (name, tapered, [mg, eg]) in TERMS {
        if *tapered {
            writeln!(out, "# term {name} tapered {mg} {eg}")?;
        } else {
            writeln!(out, "# term {name} single {mg}")?;
        }
    }
    for line in epd.lines() {
        let fields: Vec<&str> = line.split_whitespace().take(4).collect();
        let (Some(score), Ok(fen)) = (result(line), fields.join(" ").parse::<Fen>()) else { continue };
        let Ok(pos) = fen.into_position::<Chess>(CastlingMode::Standard) else { continue };
        let terms: Vec<String> = trace(&pos).iter().map(|(t, v)| format!("{}:{v}", t + 1)).collect();
        writeln!(out, "{score} {} {}", phase(&pos), terms.join(" "))?;
    }
    Ok(())
}

#[allow(dead_code)] // (The integration tests include this file for `write_trace`.)
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: trace_engine POSITIONS.epd > OUT.trace")?;
    write_trace(&std::fs::read_to_string(path)?, &mut std::io::stdout().lock())?;
    Ok(())
}
