//! The engine plays the model that was fitted: its integer evaluation equals
//! the feature code's θ·x on real positions for every preset and for tuned
//! weights, it is colour-symmetric, and each preset's search is pinned by
//! its bench signature.

use std::ops::ControlFlow;

use pgn_reader::{Reader, SanPlus, Visitor};
use pgntune::engine::Evaluator;
use pgntune::engine::bench::run_bench;
use pgntune::features::FeatureLayout;
use pgntune::pgn::input::{ByteCounters, InputSource, open};
use pgntune::weights::Weights;
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Position};

use crate::common::*;

/// Every position after every move of the bundled sample (always present),
/// up to `limit`.
fn sample_positions(limit: usize) -> Vec<Chess> {
    struct Collect {
        out: Vec<Chess>,
        limit: usize,
    }
    impl Visitor for Collect {
        type Tags = ();
        type Movetext = Chess;
        type Output = ();
        fn begin_tags(&mut self) -> ControlFlow<(), ()> {
            ControlFlow::Continue(())
        }
        fn begin_movetext(&mut self, _: ()) -> ControlFlow<(), Chess> {
            ControlFlow::Continue(Chess::default())
        }
        fn san(&mut self, pos: &mut Chess, san: SanPlus) -> ControlFlow<()> {
            match san.san.to_move(pos) {
                Ok(m) if self.out.len() < self.limit => {
                    pos.play_unchecked(m);
                    self.out.push(pos.clone());
                    ControlFlow::Continue(())
                }
                _ => ControlFlow::Break(()),
            }
        }
        fn end_game(&mut self, _: Chess) {}
    }
    let stream = open(&InputSource::File(bundled_sample()), &ByteCounters::default()).unwrap();
    let mut collect = Collect { out: Vec::new(), limit };
    let mut reader = Reader::new(stream.reader);
    while collect.out.len() < limit && reader.read_game(&mut collect).unwrap().is_some() {}
    collect.out
}

fn mirrored(p: &Chess) -> Chess {
    let setup = p.to_setup(EnPassantMode::Legal).into_mirrored();
    Chess::from_setup(setup, CastlingMode::Standard).unwrap()
}

/// `Σ cp(column) · x(column)` in floating point from the dense row, and
/// `Σ |x|`, which bounds the error of weights kept in 1/96 cp.
fn reference(layout: &FeatureLayout, cp: &[f64], x: &mut [f64], p: &Chess) -> (f64, f64) {
    layout.write(p, x);
    (x.iter().zip(cp).map(|(v, w)| v * w).sum(), x.iter().map(|v| v.abs()).sum())
}

/// A tuned weights file: the full preset with every weight moved by a
/// pseudo-random amount (what a tuner writes: fractional centipawns).
fn tuned() -> Weights {
    let mut w = pgntune::presets::full();
    for (i, v) in w.weights.values_mut().enumerate() {
        *v += ((i * 7919) % 201) as f64 / 10.0 - 10.0 + 0.37;
    }
    w.name = "tuned".into();
    w
}

#[test]
fn the_engine_evaluates_the_features_dot_the_weights_on_real_positions() {
    let positions = sample_positions(100_000);
    assert_eq!(positions.len(), 100_000);
    let pst = pgntune::engine::pst_preset();
    let mut cases: Vec<(Weights, bool)> = ["full", "classical", "kaissa", "pgnlearn2015", "flat"].iter().map(|p| (Weights::resolve(p).unwrap(), false)).collect();
    cases.push((tuned(), false));
    // Material-only presets are played with the PST preset added.
    for (w, _) in &mut cases {
        let appended = !w.layout().unwrap().contains(pgntune::features::FeatureSet::Pst);
        let evaluator = Evaluator::new(w).unwrap();
        let sources: Vec<&Weights> = if appended { vec![w, &pst] } else { vec![w] };
        let layout = evaluator.layout();
        let cp: Vec<f64> = layout.columns().iter().map(|c| sources.iter().map(|w| w.centipawns(c)).sum()).collect();
        let mut x = vec![0.0; layout.len()];
        let mut worst: f64 = 0.0;
        for p in &positions {
            let (want, size) = reference(layout, &cp, &mut x, p);
            let got = f64::from(evaluator.evaluate_white(p));
            worst = worst.max((got - want).abs());
            // One rounding to whole centipawns, plus each weight's rounding
            // to 1/96 cp (at most 1/192 cp per unit of feature).
            assert!((got - want).abs() <= 0.5 + size / 192.0 + 1e-9, "{}: {got} vs {want}", w.name);
            assert_eq!(evaluator.evaluate_white(&mirrored(p)), -evaluator.evaluate_white(p), "{}: not colour-symmetric", w.name);
        }
        eprintln!("{}: largest difference {worst:.4} cp over {} positions", w.name, positions.len());
    }
}

/// Each preset's bench node count at depth 8, as engines pin their
/// signature: a change in the search or the evaluation shows here first.
/// (`pgntune bench` searches depth 12: full 5,533,675 and classical
/// 5,931,860 nodes; depth 8 keeps this test quick, flat's weak evaluation
/// makes its trees large.)
#[test]
fn bench_signatures_are_pinned() {
    let pins = [("full", 500_125u64), ("classical", 589_276), ("kaissa", 583_041), ("pgnlearn2015", 607_532), ("flat", 15_313_479)];
    for (preset, nodes) in pins {
        let evaluator = Evaluator::new(&Weights::resolve(preset).unwrap()).unwrap();
        let report = run_bench(&evaluator, 8);
        assert_eq!(report.nodes, nodes, "{preset}: bench signature changed");
    }
}
