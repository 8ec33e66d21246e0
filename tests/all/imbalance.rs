//! The imbalance analysis (issue 15): planted weights recovered within their
//! standard errors, its covariance equal to the tuner's errors, the
//! likelihood-ratio statistic equal to R's `anova(..., test = "LRT")` on the
//! same rows, and the command line with its figure.
//!
//! The colour-flip symmetry and the hand-computed values of the set itself
//! are tested in `features_imbalance.rs` and in `src/features/imbalance.rs`.

use std::process::Command;
use std::sync::Arc;

use pgntune::analysis::imbalance::reference::{Pieces, position};
use pgntune::analysis::imbalance::{CollectionFit, FitOptions, PAWNS, compare, fit_collection, layout};
use pgntune::dataset::positions::Positions;
use pgntune::features::TermScratch;
use pgntune::fit::DrawMode;
use pgntune::fit::model::sigmoid;
use pgntune::fit::sparse::{ScaleK, TuneConfig, scale, tune};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::common::*;
use crate::external::tool;

/// Planted weights in centipawns at K = 1, by column name; the imbalance
/// products not named get small values drawn from the seed.
const PLANTED: [(&str, f64); 16] = [
    ("mg_P", 80.0),
    ("mg_N", 300.0),
    ("mg_B", 320.0),
    ("mg_R", 450.0),
    ("mg_Q", 900.0),
    ("eg_P", 110.0),
    ("eg_N", 280.0),
    ("eg_B", 300.0),
    ("eg_R", 520.0),
    ("eg_Q", 950.0),
    ("mg_bishop_pair", 30.0),
    ("eg_bishop_pair", 50.0),
    ("kaufman_N_pawns", 6.25),
    ("kaufman_R_pawns", -12.5),
    ("imb_R_R", -25.0),
    ("imb_Q_R", -25.0),
];

/// Both sides' pieces at random, each count drawn on its own: a collection
/// whose rows span every product (no count is tied to another).
fn sides(rng: &mut impl Rng) -> (Pieces, Pieces) {
    let mut side = || Pieces {
        pawns: rng.random_range(0..=8),
        knights: rng.random_range(0..=2),
        bishops: rng.random_range(0..=2),
        rooks: rng.random_range(0..=2),
        queens: rng.random_range(0..=1),
    };
    (side(), side())
}

/// Positions of the analysis' layout with results drawn from `truth` (per
/// column, centipawns at K = 1); with `draws`, a third of the games are drawn
/// whatever the evaluation (a fractional target), the rest decided by it.
/// Each position is a game of its own.
fn planted(n: usize, truth: &[f64], draws: bool, seed: u64) -> Arc<Positions> {
    let layout = layout();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut positions = Positions::new(layout.clone()).unwrap();
    let (mut scratch, mut terms, mut x) = (TermScratch::default(), Vec::new(), vec![0.0; layout.len()]);
    let c = scale::c_of_k(1.0);
    for game in 0..n {
        let (white, black) = sides(&mut rng);
        let (white, black) = if rng.random_bool(0.5) { (white, black) } else { (black, white) };
        let phase = layout.terms_of(&position(white, black), &mut scratch, &mut terms);
        layout.expand(&terms, phase, &mut x);
        let q: f64 = x.iter().zip(truth).map(|(a, b)| a * b).sum();
        let score = if draws && rng.random_bool(1.0 / 3.0) {
            0.5
        } else if rng.random::<f64>() < sigmoid(c * q) {
            1.0
        } else {
            0.0
        };
        positions.push(&terms, phase, score, f32::NAN, game as u64);
    }
    Arc::new(positions)
}

/// The planted weights: [`PLANTED`], the other products uniform in ±10.
fn truth(imbalance: bool, seed: u64) -> Vec<f64> {
    let layout = layout();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    layout
        .columns()
        .iter()
        .map(|c| {
            let product = c.starts_with("imb_") || c.starts_with("kaufman_");
            let drawn: f64 = rng.random_range(-10.0..10.0);
            if product && !imbalance { 0.0 } else { PLANTED.iter().find(|(n, _)| n == c).map_or(drawn, |&(_, v)| v) }
        })
        .collect()
}

fn at_k1(draws: DrawMode) -> FitOptions {
    FitOptions { draws, k: Some(1.0), ..FitOptions::default() }
}

fn test_of<'a>(fit: &'a CollectionFit, key: &str) -> &'a pgntune::analysis::imbalance::LikelihoodRatio {
    fit.tests.iter().find(|t| t.key == key).unwrap_or_else(|| panic!("no test {key}"))
}

#[test]
fn planted_imbalance_weights_are_recovered_within_their_standard_errors() {
    let truth = truth(true, 11);
    let fit = fit_collection("planted", planted(60_000, &truth, false, 12), &at_k1(DrawMode::Exclude)).unwrap();
    assert!(fit.notes.is_empty(), "{:?}", fit.notes);
    let model = &fit.imbalance;
    let mut worst: f64 = 0.0;
    for (j, column) in model.columns.iter().enumerate() {
        let se = model.se[j].expect("every column fitted");
        let z = (model.weights[j] - truth[j]) / se;
        assert!(z.abs() < 4.0, "{column}: {} vs planted {} (se {se})", model.weights[j], truth[j]);
        // One game per position: the clustered error is the sandwich, close to the model's.
        let ratio = model.se_clustered[j].unwrap() / se;
        assert!((0.85..1.15).contains(&ratio), "{column}: clustered/model se {ratio}");
        worst = worst.max(z.abs());
    }
    // The errors are small enough for the recovery to mean something.
    let kaufman_n = model.columns.iter().position(|c| c == "kaufman_N_pawns").unwrap();
    assert!(model.se[kaufman_n].unwrap() < 3.0, "se {:?}", model.se[kaufman_n]);
    assert!(worst > 0.5, "z-scores all tiny ({worst}): the errors are too wide");
    // Planted products are found, and the effects read them back.
    assert!(test_of(&fit, "imbalance").p_value < 1e-10);
    assert!(test_of(&fit, "kaufman_R_pawns").p_value < 1e-3);
    let rook = fit.effects.iter().find(|e| e.key == "rook_per_pawn").unwrap();
    assert_eq!(rook.estimate.value, model.weights[model.columns.iter().position(|c| c == "kaufman_R_pawns").unwrap()]);
}

#[test]
fn without_planted_products_the_imbalance_is_not_significant() {
    let truth = truth(false, 21);
    let fit = fit_collection("null", planted(30_000, &truth, false, 22), &at_k1(DrawMode::Exclude)).unwrap();
    let all = test_of(&fit, "imbalance");
    assert_eq!(all.df, 26);
    // Under the null, ΔD ~ χ²(26): mean 26, and p far from 0 for this seed.
    assert!(all.deviance_difference > 0.0 && all.deviance_difference < 60.0, "{}", all.deviance_difference);
    assert!(all.p_value > 0.01, "{}", all.p_value);
    assert_eq!(all.dispersion, 1.0, "win/loss targets: no dispersion");
}

#[test]
fn the_model_errors_equal_the_tuners_and_the_values_follow_the_weights() {
    let truth = truth(true, 31);
    let positions = planted(20_000, &truth, true, 32);
    let fit = fit_collection("half", positions.clone(), &FitOptions { draws: DrawMode::Half, ..FitOptions::default() }).unwrap();
    assert!(fit.pawn_is_100 && fit.k > 0.0);
    assert!(fit.imbalance.dispersion < 1.0, "a third drawn at random: under-dispersed, {}", fit.imbalance.dispersion);
    // The tuner's own standard errors at the same K and weights' optimum.
    // It starts away from the analysis' optimum (at 90% of it) and must come back to it.
    let mut config = TuneConfig::new(vec![0.0; fit.imbalance.columns.len()]);
    config.start = fit.imbalance.weights.iter().map(|w| 0.9 * w).collect();
    config.k = ScaleK::Fixed(fit.k);
    config.lambda = 0.0;
    config.tol = 1e-9;
    config.cost_tol = 0.0;
    config.max_iters = 2000;
    let tuned = tune(positions, &config, Arc::new(|_| {})).unwrap();
    assert!(tuned.not_identified.is_empty() && tuned.held.is_empty(), "the tuner: not identified {:?}, held {:?}", tuned.not_identified, tuned.held);
    for (j, column) in fit.imbalance.columns.iter().enumerate() {
        let (ours, theirs) = (fit.imbalance.se[j].unwrap(), tuned.stderr[j].unwrap());
        assert!(
            ((ours - theirs) / theirs).abs() < 1e-4,
            "{column}: se {ours} vs the tuner's {theirs}; weight {} vs {}; dispersion {} vs {:?}; loss {} vs {}",
            fit.imbalance.weights[j],
            tuned.weights[j],
            fit.imbalance.dispersion,
            tuned.dispersion,
            fit.imbalance.mean_loss,
            tuned.train_loss
        );
        assert!((fit.imbalance.weights[j] - tuned.weights[j]).abs() < 1e-3 * (1.0 + tuned.weights[j].abs()), "{column}");
    }
    // Equal up to the two optima's difference (both stop at a gradient tolerance).
    let dispersion = tuned.dispersion.unwrap();
    assert!(((fit.imbalance.dispersion - dispersion) / dispersion).abs() < 1e-4, "dispersion {} vs {dispersion}", fit.imbalance.dispersion);
    // The knight by own pawns moves by the Kaufman weight per pawn, at both references.
    let slope = fit.imbalance.weights[fit.imbalance.columns.iter().position(|c| c == "kaufman_N_pawns").unwrap()];
    for curve in fit.by_pawns.iter().filter(|c| c.piece == "knight") {
        assert_eq!(curve.values.len(), PAWNS.count());
        for w in curve.values.windows(2) {
            assert!((w[1].value - w[0].value - slope).abs() < 1e-9, "{} {}", curve.reference, w[1].value - w[0].value);
        }
    }
    // A collection compared with itself differs nowhere.
    let same = compare(&fit, &fit);
    assert!(same.effects.iter().chain(&same.by_pawns).all(|d| d.z == 0.0 && d.z_clustered == 0.0));
}

/// `key v1 v2 …` lines of the R script.
fn r_values(output: &str, key: &str) -> Vec<f64> {
    let line = output.lines().find(|l| l.split_whitespace().next() == Some(key)).unwrap_or_else(|| panic!("no '{key}' line in:\n{output}"));
    line.split_whitespace().skip(1).map(|v| v.parse().unwrap()).collect()
}

fn close(got: f64, want: f64, what: &str) {
    assert!(((got - want) / want).abs() < 1e-6, "{what}: pgntune {got} vs R {want}");
}

#[test]
#[ignore = "needs R"]
fn likelihood_ratios_equal_r_anova_on_the_same_rows() {
    let rscript = tool("Rscript", "r-base-core");
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("rows.tsv");
    pgntune()
        .arg("extract")
        .arg(bundled_sample())
        .args(["-q", "--features", "material_tapered,bishop_pair,imbalance", "-o"])
        .arg(&tsv)
        .assert()
        .success();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/external/imbalance_lrt.R");
    let out = Command::new(rscript).arg(script).arg(&tsv).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = String::from_utf8(out.stdout).unwrap();
    assert!(r.lines().any(|l| l == "ok"), "{r}");
    for (draws, prefix) in [("exclude", "lrt"), ("half", "qlrt")] {
        let json = stdout_of(pgntune().args(["analyze", "--imbalance", "-q", "--json", "--draws", draws]).arg(&tsv));
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        let fit = &json["collections"][0];
        assert_eq!(fit["rows"].as_f64().unwrap(), r_values(&r, &format!("{prefix}_rows"))[0], "{draws}: rows");
        for test in fit["tests"].as_array().unwrap() {
            let key = test["key"].as_str().unwrap();
            // R: deviance difference, df, dispersion, p-value.
            let want = r_values(&r, &format!("{prefix}_{key}"));
            close(test["deviance_difference"].as_f64().unwrap(), want[0], &format!("{draws} {key}: ΔD"));
            assert_eq!(test["df"].as_f64().unwrap(), want[1], "{draws} {key}: df");
            close(test["dispersion"].as_f64().unwrap(), want[2], &format!("{draws} {key}: dispersion"));
            let (p, rp) = (test["p_value"].as_f64().unwrap(), want[3]);
            assert!((p - rp).abs() < 1e-6 * rp.max(1e-3), "{draws} {key}: p {p} vs R {rp}");
        }
    }
}

#[test]
fn the_command_prints_the_tables_and_draws_the_figure() {
    let dir = tempfile::tempdir().unwrap();
    let plots = dir.path().join("figures");
    let text = stdout_of(pgntune().args(["analyze", "--imbalance", "-q", "--plot"]).arg(&plots).arg(bundled_sample()));
    for needle in ["Likelihood-ratio tests", "all 26 imbalance products", "Kaufman's findings", "knight (middlegame)", "rook (endgame)"] {
        assert!(text.contains(needle), "no '{needle}' in:\n{text}");
    }
    for ext in ["png", "svg"] {
        let file = plots.join(format!("imbalance_by_pawns.{ext}"));
        assert!(std::fs::metadata(&file).map(|m| m.len() > 10_000).unwrap_or(false), "{}", file.display());
    }
    let svg = std::fs::read_to_string(plots.join("imbalance_by_pawns.svg")).unwrap();
    assert!(svg.contains("own pawns") && svg.contains("Kaufman"), "axis and legend in the SVG");
}

#[test]
fn options_the_analysis_cannot_honour_are_refused() {
    for extra in [&["--lambda", "0.01"][..], &["--draws", "ordinal"], &["--features", "material,pst"], &["--bootstrap", "10"]] {
        let out = pgntune().args(["analyze", "--imbalance", "-q"]).args(extra).arg(bundled_sample()).assert().code(2).get_output().stderr.clone();
        let err = String::from_utf8_lossy(&out);
        assert_eq!(err.trim().lines().count(), 1, "{extra:?}: one line: {err}");
        assert!(err.contains("--imbalance"), "{extra:?}: {err}");
    }
    let out = pgntune().args(["analyze", "--imbalance", "--compare", "-q"]).arg(bundled_sample()).assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&out).contains("two inputs"));
}
