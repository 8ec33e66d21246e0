//! Tests of the tuner on planted problems.

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::*;
use crate::features::{FeatureLayout, TermValue};
use crate::fit::model::sigmoid;

/// Positions of `material_tapered,bishop_pair,tempo` whose results follow
/// planted centipawn weights at K = 1, eight positions per game.
fn planted(n: usize, seed: u64) -> (Arc<Positions>, Vec<f64>) {
    let layout = FeatureLayout::parse("material_tapered,bishop_pair,tempo").unwrap();
    let truth = vec![80.0, 300.0, 320.0, 450.0, 900.0, 110.0, 280.0, 300.0, 520.0, 950.0, 30.0, 50.0, 20.0, 5.0];
    assert_eq!(truth.len(), layout.len());
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut positions = Positions::new(layout.clone()).unwrap();
    let c = scale::c_of_k(1.0);
    let mut x = vec![0.0; layout.len()];
    for i in 0..n {
        let terms: Vec<TermValue> = (0..7u16).map(|t| TermValue { term: t, value: rng.random_range(-2i16..=2) }).filter(|t| t.value != 0).collect();
        let phase = rng.random_range(0..=24u8);
        layout.expand(&terms, phase, &mut x);
        let q: f64 = x.iter().zip(&truth).map(|(a, b)| a * b).sum();
        let score = if rng.random::<f64>() < sigmoid(c * q) { 1.0 } else { 0.0 };
        positions.push(&terms, phase, score, f32::NAN, i as u64 / 8);
    }
    (Arc::new(positions), truth)
}

fn quiet() -> Arc<dyn Fn(&TuneProgress) + Send + Sync> {
    Arc::new(|_| {})
}

fn exact(columns: usize) -> TuneConfig {
    let mut config = TuneConfig::new(vec![0.0; columns]);
    config.k = ScaleK::Fixed(1.0);
    config.lambda = 0.0;
    config.tol = 1e-8;
    config.cost_tol = 0.0;
    config
}

#[test]
fn planted_weights_are_recovered_within_their_standard_errors() {
    let (positions, truth) = planted(40_000, 3);
    let report = tune(positions, &exact(truth.len()), quiet()).unwrap();
    assert_eq!(report.stopped, StopReason::Converged, "{report:?}");
    for (j, (&w, &t)) in report.weights.iter().zip(&truth).enumerate() {
        let se = report.stderr[j].expect("identified");
        assert!((w - t).abs() < 4.0 * se, "{}: {w} vs {t} (se {se})", report.columns[j]);
        assert!(se > 0.0 && se < 200.0, "{se}");
    }
    assert!(report.train_loss < report.start_loss);
}

/// The same tune with 1, 2 and 3 threads.
fn tuned_with_1_2_and_3_threads(positions: &Arc<Positions>, config: &mut TuneConfig) -> Vec<TuneReport> {
    [1, 2, 3]
        .into_iter()
        .map(|threads| {
            config.threads = threads;
            tune(positions.clone(), config, quiet()).unwrap()
        })
        .collect()
}

#[test]
fn the_same_weights_for_any_thread_count() {
    let (positions, truth) = planted(20_000, 4);
    let mut config = exact(truth.len());
    config.holdout = Some((0.2, 9));
    let reports = tuned_with_1_2_and_3_threads(&positions, &mut config);
    for r in &reports[1..] {
        assert_eq!(r.weights, reports[0].weights);
        assert_eq!(r.holdout_loss, reports[0].holdout_loss);
    }
    assert!(reports[0].holdout_positions > 3000 && reports[0].holdout_positions < 5000);
}

#[test]
fn adam_steps_are_the_same_bits_for_any_thread_count() {
    // A batch of several list chunks: each step's gradient is summed by
    // every thread, in chunk order.
    let (positions, truth) = planted(12_000, 7);
    let mut config = exact(truth.len());
    config.standard_errors = false;
    config.solver = TuneSolver::Adam { epochs: 3, batch: 5 * super::problem::LIST_CHUNK + 17, lr: 2.0 };
    let reports = tuned_with_1_2_and_3_threads(&positions, &mut config);
    for r in &reports[1..] {
        assert_eq!(r.weights, reports[0].weights);
        assert_eq!(r.trace, reports[0].trace);
    }
    assert_ne!(reports[0].weights, config.start);
}

#[test]
fn adam_reaches_the_lbfgs_optimum() {
    let (positions, truth) = planted(8_000, 5);
    let mut config = exact(truth.len());
    config.lambda = 1e-5;
    config.standard_errors = false;
    // Both start where tuners start: near the answer (here 80% of the truth).
    config.start = truth.iter().map(|t| 0.8 * t).collect();
    let lbfgs = tune(positions.clone(), &config, quiet()).unwrap();
    config.solver = TuneSolver::Adam { epochs: 200, batch: 500, lr: 4.0 };
    let adam = tune(positions, &config, quiet()).unwrap();
    assert_eq!(adam.iterations, 200);
    assert_eq!(adam.trace.len(), 201);
    for (j, (a, l)) in adam.weights.iter().zip(&lbfgs.weights).enumerate() {
        assert!((a - l).abs() < 0.005 * l.abs().max(50.0), "{}: adam {a} vs lbfgs {l}", adam.columns[j]);
    }
    assert!((adam.train_loss - lbfgs.train_loss).abs() < 1e-5, "{} vs {}", adam.train_loss, lbfgs.train_loss);
}

#[test]
fn frozen_and_unseen_columns_stay_at_their_start() {
    let (positions, truth) = planted(4_000, 6);
    let mut config = exact(truth.len());
    config.start = truth.clone();
    config.prior = truth.clone();
    config.frozen[1] = true;
    config.k = ScaleK::Auto;
    let report = tune(positions, &config, quiet()).unwrap();
    assert_eq!(report.weights[1], truth[1]);
    assert_eq!(report.status[1], ColumnStatus::Frozen);
    assert!(report.k_fitted && (report.k - 1.0).abs() < 0.2, "{}", report.k);
}

#[test]
fn an_empty_training_set_names_only_the_reasons_that_applied() {
    let message = |read, held_out, draws_left_out| TuneError::Empty { read, held_out, draws_left_out }.to_string();
    assert_eq!(message(0, 0, 0), "no training positions: the dataset holds none");
    assert_eq!(message(7, 7, 0), "no training positions left of the 7 read (7 held out)");
    assert_eq!(message(7, 3, 4), "no training positions left of the 7 read (3 held out, 4 from drawn games left out)");
}

/// Labels on another engine's scale: results follow σ(c·q) at K = 1 while
/// the labels are q / 2 (as if the teacher's centipawns were half the
/// model's). The labels' own K, 2, is fitted and reported whatever
/// `--label-k` says; `model` fits the evaluation to the labels as they are
/// (halving the weights), `auto` to the probabilities they imply.
#[test]
fn the_labels_own_k_is_fitted_apart_and_reported() {
    let layout = FeatureLayout::parse("material_tapered,bishop_pair,tempo").unwrap();
    let (plain, truth) = planted(40_000, 5);
    let mut positions = Positions::new(layout.clone()).unwrap();
    let mut x = vec![0.0; layout.len()];
    for i in 0..plain.len() {
        let terms: Vec<TermValue> = plain
            .entries(i)
            .iter()
            .map(|&e| crate::dataset::positions::unpack(e))
            .map(|(term, value)| TermValue { term: term as u16, value: value as i16 })
            .collect();
        layout.expand(&terms, plain.phase(i), &mut x);
        let q: f64 = x.iter().zip(&truth).map(|(a, b)| a * b).sum();
        positions.push(&terms, plain.phase(i), plain.score(i), (q / 2.0) as f32, plain.game(i));
    }
    let positions = Arc::new(positions);
    let mut config = exact(truth.len());
    config.eval_weight = 1.0;
    config.standard_errors = false;
    let model = tune(positions.clone(), &config, quiet()).unwrap();
    let own = model.label_k_own.expect("fitted");
    assert!((own - 2.0).abs() < 0.15, "{own}");
    assert_eq!(model.label_k, Some((1.0, false)));
    let agreement = model.label_agreement.clone().expect("labels");
    assert_eq!(agreement.positions, 40_000);
    assert!(agreement.log_loss < agreement.start_log_loss + 0.01, "{agreement:?}");
    // Fitted to the labels' centipawns: about half the planted queen.
    let queen = model.columns.iter().position(|c| c == "mg_Q").unwrap();
    assert!((model.weights[queen] - truth[queen] / 2.0).abs() < 0.1 * truth[queen], "{}", model.weights[queen]);
    config.label_k = LabelScale::Auto;
    let auto = tune(positions, &config, quiet()).unwrap();
    assert_eq!(auto.label_k, Some((own, true)));
    // Fitted to the implied probabilities: about the planted queen.
    assert!((auto.weights[queen] - truth[queen]).abs() < 0.1 * truth[queen], "{}", auto.weights[queen]);
}
