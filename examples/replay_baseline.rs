//! The bare loop that extraction's speed is measured against: parse every
//! game with pgn-reader and replay every main-line move legally with
//! shakmaty, nothing else. Prints MB/s, games/s and plies/s.
//!
//! Usage: cargo run --release --example replay_baseline -- FILE.pgn...

use std::fs::File;
use std::io::BufReader;
use std::ops::ControlFlow;
use std::time::Instant;

use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

#[derive(Default)]
struct Replayer {
    games: u64,
    plies: u64,
}

struct Game {
    pos: Chess,
    ok: bool,
}

impl Visitor for Replayer {
    type Tags = Option<Chess>;
    type Movetext = Game;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), Self::Tags> {
        ControlFlow::Continue(None)
    }

    fn tag(&mut self, tags: &mut Self::Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        if name == b"FEN" {
            *tags = Fen::from_ascii(value.as_bytes()).ok().and_then(|f| f.into_position(CastlingMode::Chess960).ok());
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<(), Game> {
        self.games += 1;
        ControlFlow::Continue(Game { pos: tags.unwrap_or_default(), ok: true })
    }

    fn san(&mut self, game: &mut Game, san_plus: SanPlus) -> ControlFlow<()> {
        if game.ok {
            match san_plus.san.to_move(&game.pos) {
                Ok(m) => {
                    game.pos.play_unchecked(m);
                    self.plies += 1;
                }
                Err(_) => game.ok = false,
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _: &mut Game) -> ControlFlow<(), Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn end_game(&mut self, _: Game) {}
}

fn main() -> std::io::Result<()> {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: replay_baseline FILE.pgn...");
        std::process::exit(2);
    }
    let started = Instant::now();
    let mut bytes = 0u64;
    let mut replayer = Replayer::default();
    for path in &paths {
        bytes += std::fs::metadata(path)?.len();
        let mut reader = Reader::new(BufReader::with_capacity(1 << 16, File::open(path)?));
        reader.visit_all_games(&mut replayer)?;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "baseline: {:.1} MB/s, {:.0} games/s, {:.0} plies/s ({} games, {} plies, {:.3} s)",
        bytes as f64 / 1e6 / secs,
        replayer.games as f64 / secs,
        replayer.plies as f64 / secs,
        replayer.games,
        replayer.plies,
        secs
    );
    Ok(())
}
