//! How long each feature set takes per position, on real positions: the
//! micro-benchmark behind the "whole evaluation at >= 1 M nodes/s" target.
//!
//! Replays games (every position after every move) until it has N
//! positions, then times (chunk by chunk, best of three passes): building
//! the shared [`Context`] alone, the attack maps, each set's visit (alone,
//! and given attack maps already computed by another set), and the whole
//! `full` layout, also gathered into a sorted sparse row as extraction
//! does. Prints ns per position.
//!
//! Usage: cargo run --profile quick --example eval_sets_speed -- [N] [PGN...]
//! (default: 1,000,000 positions from ../shared/data/human/*.pgn)

use std::fs::File;
use std::hint::black_box;
use std::io::BufReader;
use std::path::PathBuf;
use std::time::Instant;

use pgn_reader::Reader;
use pgntune::features::{Context, FeatureLayout, FeatureSet, Pawns, TermScratch};
use pgntune::pgn::record::RecordVisitor;
use pgntune::pgn::replay::{replay, start_position};
use shakmaty::Chess;

fn positions(paths: &[PathBuf], limit: usize) -> std::io::Result<Vec<Chess>> {
    let mut out = Vec::with_capacity(limit);
    for path in paths {
        let mut reader = Reader::new(BufReader::new(File::open(path)?));
        let mut visitor = RecordVisitor::new(0, &[]);
        while let Some(games) = reader.read_game(&mut visitor)? {
            for game in games {
                let Ok(mut p) = start_position(&game) else { continue };
                replay(&mut p, &game.moves, None, |after, _, _| out.push(after.clone()));
                if out.len() >= limit {
                    out.truncate(limit);
                    return Ok(out);
                }
            }
        }
    }
    Ok(out)
}

/// Positions are timed in chunks small enough to stay in the cache, as
/// the engine's current position does; each chunk counts its best of
/// three passes, which filters out the noise of a shared machine.
const CHUNK: usize = 4096;

/// The best of three passes of `run` over `items`, in seconds.
fn best_of_three<T>(items: &[T], mut run: impl FnMut(&T) -> i64) -> f64 {
    (0..3)
        .map(|_| {
            let started = Instant::now();
            let sum = items.iter().fold(0i64, |sum, item| sum.wrapping_add(run(item)));
            black_box(sum);
            started.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// The time of `f` per position, in ns (see [`CHUNK`]).
fn time(positions: &[Chess], mut f: impl FnMut(&Chess) -> i64) -> f64 {
    let total: f64 = positions.chunks(CHUNK).map(|chunk| best_of_three(chunk, &mut f)).sum();
    total * 1e9 / positions.len() as f64
}

/// The time of `f` per position on contexts whose attack maps are already
/// computed (untimed), in ns.
fn time_given_attacks(positions: &[Chess], mut f: impl FnMut(&Context) -> i64) -> f64 {
    let mut total = 0.0;
    for chunk in positions.chunks(CHUNK) {
        let contexts: Vec<Context> = chunk
            .iter()
            .map(|p| {
                let ctx = Context::new(p);
                ctx.attacks();
                ctx
            })
            .collect();
        total += best_of_three(&contexts, &mut f);
    }
    total * 1e9 / positions.len() as f64
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let limit: usize = match args.next() {
        Some(n) => n.parse().unwrap_or_else(|_| {
            eprintln!("usage: eval_sets_speed [N] [PGN...]");
            std::process::exit(2);
        }),
        None => 1_000_000,
    };
    let mut paths: Vec<PathBuf> = args.map(PathBuf::from).collect();
    if paths.is_empty() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/human");
        paths = std::fs::read_dir(&dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
        paths.retain(|p| p.extension().is_some_and(|e| e == "pgn"));
        paths.sort();
    }
    let started = Instant::now();
    let positions = positions(&paths, limit)?;
    eprintln!("{} positions replayed in {:.1} s", positions.len(), started.elapsed().as_secs_f64());
    if positions.is_empty() {
        eprintln!("no positions");
        std::process::exit(2);
    }

    let context = time(&positions, |p| i64::from(Context::new(p).phase));
    let attacks = time(&positions, |p| Context::new(p).attacks().all.white.count() as i64);
    println!("{:<24} {:>8.1} ns/position", "context (phase)", context);
    println!("{:<24} {:>8.1} ns/position (context + attack maps)", "attack maps", attacks);
    // Per set: alone (its own context; a set that asks for the attack maps
    // pays for them), beyond the bare context, and given attack maps that
    // another set already computed (the case in the whole evaluation).
    println!("{:<24} {:>8} {:>14} {:>14}", "set", "ns/pos", "beyond context", "given attacks");
    for &set in FeatureSet::ALL {
        let visit = |ctx: &Context| {
            let mut sum = 0i64;
            set.visit(ctx, |t, v| sum += (t as i64 + 1) * i64::from(v));
            sum
        };
        let alone = time(&positions, |p| visit(&Context::new(p)));
        let given = time_given_attacks(&positions, visit);
        println!("{:<24} {:>8.1} {:>14.1} {:>14.1}", set.name(), alone, alone - context, given);
    }
    // The pawns set's pure pawn-structure half, which a pawn hash table
    // would save on a hit.
    let structure = time(&positions, |p| {
        let board = shakmaty::Position::board(p);
        let mut sum = 0i64;
        let pawns = board.pawns();
        Pawns::visit_structure(pawns & board.white(), pawns & board.black(), &mut |t, v| sum += (t as i64 + 1) * i64::from(v));
        sum
    });
    println!("{:<24} {:>8.1} (pure pawn structure only)", "pawns structure", structure);
    let full = FeatureLayout::full();
    let ns = time(&positions, |p| {
        let ctx = Context::new(p);
        let mut sum = 0i64;
        full.visit_terms(&ctx, |t, v| sum += (t as i64 + 1) * i64::from(v));
        sum
    });
    println!("{:<24} {:>8.1} ns/position ({})", "full layout", ns, full.spec());
    // What extraction does with the same terms: a sorted sparse row.
    let mut scratch = TermScratch::default();
    let mut row = Vec::new();
    let mut entries = 0usize;
    for p in &positions {
        full.terms_of(p, &mut scratch, &mut row);
        entries += row.len();
    }
    let ns = time(&positions, |p| {
        full.terms_of(p, &mut scratch, &mut row);
        row.len() as i64
    });
    println!("{:<24} {:>8.1} ns/position ({:.1} terms per row)", "full layout, sparse row", ns, entries as f64 / positions.len() as f64);
    Ok(())
}
