//! One full-batch gradient pass of the whole-evaluation tuner over the
//! positions of an EPD file (`benches/hce.sh`, against hce-tuner's epoch).
//!
//! The positions are read as `pgntune fit FILE --epd-features full` reads
//! them (`load_positions`); the pass is the one every L-BFGS evaluation of
//! `pgntune fit` makes (`TuneProblem::full`): loss and gradient sums over
//! the training positions (a mask, every position here), then the term
//! gradients scattered into the columns. Prints the positions, the terms
//! per position, the memory, the load time, each pass's time, and one
//! `passes:` line with their mean and best.
//!
//! Usage: gradient_epd FILE.epd [THREADS] [PASSES] [ce|mse]
//! (defaults 2, 5, ce; mse is the squared error Texel-style tuners use)

use std::sync::Arc;
use std::time::Instant;

use pgntune::dataset::load::{LoadOptions, load_positions};
use pgntune::features::FeatureLayout;
use pgntune::fit::sparse::problem::{Objective, Selection, SparseLoss};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: gradient_epd FILE.epd [THREADS] [PASSES] [ce|mse]");
        std::process::exit(2);
    };
    let threads: usize = args.next().map_or(2, |a| a.parse().expect("THREADS is a number"));
    let passes: usize = args.next().map_or(5, |a| a.parse().expect("PASSES is a number"));
    let loss = match args.next().as_deref() {
        None | Some("ce") => SparseLoss::CrossEntropy,
        Some("mse") => SparseLoss::Mse,
        Some(other) => panic!("unknown loss '{other}' (ce or mse)"),
    };

    let t = Instant::now();
    let options = LoadOptions { epd_layout: FeatureLayout::full(), strict: false };
    let (positions, report) = load_positions(&[&path], &options).expect("reading the EPD file");
    let load = t.elapsed().as_secs_f64();
    let n = positions.len();
    let entries: usize = (0..n).map(|i| positions.entries(i).len()).sum();
    let columns = positions.layout().len();
    let bytes = positions.memory_bytes();
    println!("positions: {n} ({} bad lines skipped)", report.bad_lines);
    println!(
        "terms: {:.1} per position (non-zero), {columns} columns; positions in memory {:.2} GB ({:.1} bytes per position)",
        entries as f64 / n as f64,
        bytes as f64 / 1e9,
        bytes as f64 / n as f64
    );
    println!("load: {load:.2} s");

    let positions = Arc::new(positions);
    let objective = Objective {
        targets: (0..n).map(|i| positions.score(i)).collect(),
        term_columns: Objective::columns_of(&positions),
        positions: positions.clone(),
        loss,
        c: 0.006,
        pool: Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool")),
    };
    let weights = pgntune::presets::full();
    let w: Vec<f64> = positions.layout().columns().iter().map(|c| weights.centipawns(c)).collect();
    let train = vec![true; n];
    let mut times = Vec::with_capacity(passes);
    let mut mean_loss = 0.0;
    let mut norm = 0.0;
    for pass in 1..=passes {
        let t = Instant::now();
        let sums = objective.sums(Selection::Mask(&train), &w, true);
        let g = objective.column_gradient(&sums, columns);
        let s = t.elapsed().as_secs_f64();
        mean_loss = sums.loss / sums.count;
        norm = g.iter().map(|x| x * x).sum::<f64>().sqrt() / sums.count;
        println!("pass {pass}: {s:.3} s");
        times.push(s);
    }
    let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
    let best = times.iter().copied().fold(f64::INFINITY, f64::min);
    println!("passes: {passes} on {threads} threads, mean {mean:.3} s, best {best:.3} s (mean loss {mean_loss:.6}, gradient norm {norm:.3e})");
}
