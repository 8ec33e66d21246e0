//! Extraction throughput into training positions in memory (what `tune`
//! does before it fits), per layout and thread count (`benches/tune.sh`).
//!
//! Usage: cargo run --release --example extract_speed [SETS] [THREADS] [PGN...]
//! (defaults: full, 1, every file of ../shared/data/human). Prints MB of PGN
//! text per second, the best of three runs (`RUNS=1`: one cold run, which
//! takes all its memory fresh from the kernel). With `EXTRACT_SINK=rows` the
//! rows are counted and dropped instead of stored: extraction alone, without
//! the copy into the tuner's memory (which runs on one thread).

use std::time::Instant;

use pgntune::dataset::positions::Positions;
use pgntune::features::FeatureLayout;
use pgntune::pgn::extract::NoProgress;
use pgntune::pgn::{ExtractConfig, InputSource, extract};

/// The binary's allocator (see `src/main.rs`), so that the example measures
/// what `pgntune tune` and `extract` do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let sets = args.next().unwrap_or_else(|| "full".to_string());
    let threads: usize = args.next().map_or(1, |t| t.parse().expect("THREADS is a number"));
    let mut inputs: Vec<String> = args.collect();
    if inputs.is_empty() {
        let Ok(entries) = std::fs::read_dir("../shared/data/human") else {
            println!("SKIPPED: ../shared/data/human is absent");
            return;
        };
        inputs = entries.map(|e| e.unwrap().path().display().to_string()).filter(|p| p.ends_with(".pgn")).collect();
        inputs.sort();
    }
    let layout = FeatureLayout::parse(&sets).expect("known feature sets");
    let config = ExtractConfig { layout: layout.clone(), threads, ..ExtractConfig::default() };
    let sources: Vec<InputSource> = inputs.iter().map(|p| InputSource::from_arg(p)).collect();
    let store = std::env::var("EXTRACT_SINK").map_or(true, |sink| sink != "rows");
    let mut best = f64::INFINITY;
    let (mut rows, mut bytes) = (0, 0);
    let runs: usize = std::env::var("RUNS").map_or(3, |r| r.parse().expect("RUNS is a number"));
    for _ in 0..runs {
        let mut positions = Positions::new(layout.clone()).unwrap();
        let mut counted = 0;
        let started = Instant::now();
        let stats = extract(&sources, &config, &NoProgress, |batch| {
            if store {
                positions.push_batch(batch, 0);
            }
            counted += batch.len();
            Ok(())
        })
        .expect("extraction");
        best = best.min(started.elapsed().as_secs_f64());
        rows = counted;
        bytes = stats.text_bytes;
    }
    let into = if store { "in memory" } else { "rows only" };
    println!(
        "{sets}, {threads} thread(s), {into}: {rows} positions from {:.1} MB in {best:.2} s: {:.1} MB/s",
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / best
    );
}
