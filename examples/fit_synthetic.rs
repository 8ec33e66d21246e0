//! Speed of merging and fitting many rows: generates synthetic material rows
//! (realistic imbalances drifting within games, results drawn from a known
//! logistic model), then times the merge of identical rows and the fit.
//!
//! Usage: cargo run --release --example fit_synthetic -- [ROWS] [SOLVER]

use std::time::Instant;

use pgntune::dataset::{GameResult, RowBatch};
use pgntune::features::{FeatureLayout, TermValue};
use pgntune::fit::{DrawMode, FitConfig, RowMerger, SolverKind, fit};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn main() {
    let mut args = std::env::args().skip(1);
    let rows: usize = args.next().map_or(10_000_000, |a| a.parse().expect("ROWS is a number"));
    let solver = match args.next().as_deref() {
        None | Some("lbfgs") => SolverKind::Lbfgs,
        Some("newton") => SolverKind::Newton,
        Some(other) => panic!("unknown solver {other}"),
    };
    let truth = [0.75, 2.15, 2.6, 3.6, 8.0];

    // Generate the rows as extraction would hand them over: batches of a few
    // thousand rows with integer features, game index and result.
    let started = Instant::now();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2015);
    let mut batches = Vec::new();
    let mut batch = RowBatch::default();
    let mut game = 0u64;
    let mut made = 0;
    while made < rows {
        let plies = rng.random_range(1..14).min(rows - made);
        let mut x = [0i32; 5];
        let mut positions = Vec::with_capacity(plies);
        for _ in 0..plies {
            let j = [0, 0, 0, 1, 2, 3, 4][rng.random_range(0..7)];
            x[j] = (x[j] + if rng.random::<bool>() { 1 } else { -1 }).clamp(-8, 8);
            positions.push(x);
        }
        let z: f64 = x.iter().zip(truth).map(|(&a, b)| a as f64 * b).sum();
        let p = 1.0 / (1.0 + (-z).exp());
        let u: f64 = rng.random();
        let result = if u < 0.3 {
            GameResult::Draw
        } else if rng.random::<f64>() < p {
            GameResult::WhiteWins
        } else {
            GameResult::BlackWins
        };
        for x in positions {
            let terms: Vec<TermValue> =
                x.iter().enumerate().filter(|&(_, &v)| v != 0).map(|(t, &v)| TermValue { term: t as u16, value: v as i16 }).collect();
            batch.push_features(&terms, 0);
            batch.results.push(result);
            batch.games.push(game);
            batch.plies.push(0);
        }
        made += plies;
        game += 1;
        if batch.len() >= 4096 {
            batches.push(std::mem::take(&mut batch));
        }
    }
    batches.push(batch);
    let generated = started.elapsed().as_secs_f64();

    let started = Instant::now();
    let mut merger = RowMerger::new(["P", "N", "B", "R", "Q"].map(String::from).to_vec(), false);
    for b in &batches {
        merger.add_batch(b, &FeatureLayout::default());
    }
    let merged = merger.finish();
    let merge_s = started.elapsed().as_secs_f64();

    let config = FitConfig { draws: DrawMode::Half, solver, ..FitConfig::default() };
    let started = Instant::now();
    let report = fit(&merged, &config).expect("fit");
    let fit_s = started.elapsed().as_secs_f64();

    println!("rows {rows}, games {game}, distinct rows {} (generated in {generated:.2} s)", merged.len());
    println!("merge {merge_s:.3} s, fit {fit_s:.4} s ({:?}, {} iterations, converged {})", solver, report.iterations, report.converged);
    println!("merge + fit: {:.3} s (target < 2 s)", merge_s + fit_s);
    let values: Vec<String> = report.values.unwrap().iter().map(|v| format!("{v:.1}")).collect();
    println!("values: {}", values.join(" / "));
}
