//! One full-batch gradient of the tuning objective over N million real
//! positions of the whole evaluation (`benches/gradient.sh`).
//!
//! Positions come from replaying the human collection (every position after
//! the opening plies, the `--emit all` rule), repeated until there are N
//! million; the layout is `full`. Prints the memory per position, the best
//! of five gradient passes per thread count, and the bytes the pass reads
//! per second (the sum is memory-bound: compare with the machine's memory
//! bandwidth).
//!
//! Usage: cargo run --release --example gradient_speed [MILLIONS] [PGN...]

use std::sync::Arc;
use std::time::Instant;

use pgntune::dataset::positions::Positions;
use pgntune::features::FeatureLayout;
use pgntune::fit::sparse::problem::{Objective, Selection, SparseLoss};
use pgntune::pgn::extract::NoProgress;
use pgntune::pgn::{EmitMode, ExtractConfig, FilterConfig, InputSource, extract};

fn main() {
    let mut args = std::env::args().skip(1);
    let millions: f64 = args.next().map_or(10.0, |a| a.parse().expect("MILLIONS is a number"));
    let mut inputs: Vec<String> = args.collect();
    if inputs.is_empty() {
        let dir = std::path::Path::new("../shared/data/human");
        let Ok(entries) = std::fs::read_dir(dir) else {
            println!("SKIPPED: {} is absent", dir.display());
            return;
        };
        inputs = entries.map(|e| e.unwrap().path().display().to_string()).filter(|p| p.ends_with(".pgn")).collect();
        inputs.sort();
    }
    let layout = FeatureLayout::full();
    let config = ExtractConfig {
        layout: layout.clone(),
        filter: FilterConfig { emit: EmitMode::All, skip_plies: 8, ..FilterConfig::default() },
        ..ExtractConfig::default()
    };
    let sources: Vec<InputSource> = inputs.iter().map(|p| InputSource::from_arg(p)).collect();
    let mut once = Positions::new(layout.clone()).unwrap();
    extract(&sources, &config, &NoProgress, |batch| {
        once.push_batch(batch, 0);
        Ok(())
    })
    .expect("extraction");
    let target = (millions * 1e6) as usize;
    let mut positions = Positions::new(layout).unwrap();
    let mut copy = 0;
    while positions.len() < target {
        let need = target - positions.len();
        let part = if need >= once.len() { once.clone() } else { once.filter(|i| i < need) };
        positions.append(&part, copy * 1_000_000);
        copy += 1;
    }
    positions.shrink_to_fit();
    let n = positions.len();
    let bytes = positions.memory_bytes();
    println!("{n} positions ({} distinct), {:.1} bytes per position, {:.2} GB", once.len(), bytes as f64 / n as f64, bytes as f64 / 1e9);
    let positions = Arc::new(positions);
    let weights = pgntune::presets::full();
    let w: Vec<f64> = positions.layout().columns().iter().map(|c| weights.centipawns(c)).collect();
    for threads in [1, 2] {
        let objective = Objective {
            targets: (0..n).map(|i| positions.score(i)).collect(),
            term_columns: Objective::columns_of(&positions),
            positions: positions.clone(),
            loss: SparseLoss::CrossEntropy,
            c: 0.006,
            pool: Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()),
        };
        let mut best = f64::INFINITY;
        let mut loss = 0.0;
        for _ in 0..5 {
            let t = Instant::now();
            let sums = objective.sums(Selection::All, &w, true);
            best = best.min(t.elapsed().as_secs_f64());
            loss = sums.loss / sums.count;
        }
        println!("threads {threads}: gradient in {best:.3} s ({:.2} GB/s of positions read; mean loss {loss:.6})", bytes as f64 / best / 1e9);
    }
}
