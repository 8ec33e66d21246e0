//! `pgntune fit` and `pgntune tune`: the article's gradient descent, R's
//! estimates, solver agreement, recovery of known weights, bad input.

use pgntune::dataset::GameResult;
use pgntune::fit::{DrawMode, FitConfig, FitReport, MergedRows, RowMerger, SolverKind, fit};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::common::*;

/// Fits with L-BFGS and with Newton and checks that they agree to 1e-6
/// (relative, on every weight): "lbfgs and newton agree on every fit".
fn fit_both(rows: &MergedRows, config: &FitConfig) -> FitReport {
    let lbfgs = fit(rows, &FitConfig { solver: SolverKind::Lbfgs, ..config.clone() }).expect("lbfgs fit");
    let newton = fit(rows, &FitConfig { solver: SolverKind::Newton, ..config.clone() }).expect("newton fit");
    // Newton always reaches the tolerance; L-BFGS's line search may stop a
    // hair short of 1e-9 when cost differences fall below double precision,
    // which it then reports, but its weights still agree.
    assert!(newton.converged, "newton converges");
    assert_eq!(newton.solver, SolverKind::Newton, "newton's own fit, not the L-BFGS fallback: {:?}", newton.warnings);
    assert!(lbfgs.converged || lbfgs.grad_norm < 1e-7, "lbfgs: {} ({})", lbfgs.grad_norm, lbfgs.stopped);
    for (a, b) in lbfgs.theta.iter().zip(&newton.theta) {
        assert!(((a - b) / b).abs() < 1e-6, "lbfgs {a} vs newton {b}");
    }
    newton
}

fn close(got: &[f64], want: &[f64], rel: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!(((g - w) / w).abs() < rel, "{what}: {g} vs {w} (relative tolerance {rel})");
    }
}

fn openrating_rows() -> MergedRows {
    let path = shared("pgnlearn/OpenRating.pgn");
    let config = pgntune::pgn::ExtractConfig::default();
    let (_, batch) = extract_all(&[pgntune::pgn::InputSource::File(path)], &config);
    let mut merger = RowMerger::new(config.layout.columns(), true);
    merger.add_batch(&batch, &config.layout);
    merger.finish()
}

/// R's reference values on these rows (tests/external/fit.R, converged
/// tightly; the standard errors are glm's default-control print,
/// which lags one IRLS step and differs in the 7th digit).
const R_COEF: [f64; 5] = [0.7483074908, 2.165205796, 2.587104434, 3.597272224, 8.073284695];
const R_SE: [f64; 5] = [0.02004458671, 0.05939971289, 0.06046793919, 0.08521740675, 0.1969303282];
const R_L2_COEF: [f64; 5] = [0.747751463, 2.161964438, 2.583745682, 3.592076606, 8.059145628];
const R_QUASI_COEF: [f64; 5] = [0.6546908219, 1.863701435, 2.236579649, 3.156028571, 7.026344951];
const R_QUASI_SE: [f64; 5] = [0.01819820492, 0.05248830131, 0.05334868642, 0.0756983512, 0.1715779896];
const R_ORD_COEF: [f64; 5] = [0.6661333796, 1.874323877, 2.260849001, 3.215150444, 7.108794695];
const R_ORD_SE: [f64; 5] = [0.01618361117, 0.04632848427, 0.04714944159, 0.06710164352, 0.1503379914];

#[test]
#[ignore = "needs ../shared/data"]
fn decisive_games_reproduce_r_glm() {
    let rows = openrating_rows();
    let exact = FitConfig { draws: DrawMode::Exclude, lambda: 0.0, ..FitConfig::default() };
    let r = fit_both(&rows, &exact);
    close(&r.theta, &R_COEF, 1e-6, "θ");
    close(&r.stderr.iter().map(|s| s.unwrap()).collect::<Vec<_>>(), &R_SE, 1e-6, "standard errors");
    let values: Vec<f64> = r.values.clone().unwrap().iter().map(|v| (v * 10.0).round() / 10.0).collect();
    assert_eq!(values, [100.0, 289.3, 345.7, 480.7, 1078.9]);
    assert_eq!((r.rows, r.rows_used), (20175, 17957));
    // The article's λ = 1e-6 on the mean loss moves θ by up to 1.75e-3
    // relative (not 1e-4); it matches R's penalised fit of the same cost.
    let penalised = fit_both(&rows, &FitConfig { draws: DrawMode::Exclude, ..FitConfig::default() });
    close(&penalised.theta, &R_L2_COEF, 1e-6, "λ = 1e-6 θ");
}

#[test]
#[ignore = "needs ../shared/data"]
fn draws_as_half_points_reproduce_r_quasibinomial() {
    let rows = openrating_rows();
    let r = fit_both(&rows, &FitConfig { draws: DrawMode::Half, lambda: 0.0, ..FitConfig::default() });
    close(&r.theta, &R_QUASI_COEF, 1e-6, "θ");
    close(&r.stderr.iter().map(|s| s.unwrap()).collect::<Vec<_>>(), &R_QUASI_SE, 1e-6, "quasi-binomial standard errors");
    let values: Vec<f64> = r.values.unwrap().iter().map(|v| (v * 10.0).round() / 10.0).collect();
    assert_eq!(values, [100.0, 284.7, 341.6, 482.1, 1073.2]);
    assert!((r.dispersion.unwrap() / 1.065639061 - 1.0).abs() < 1e-6, "{:?}", r.dispersion);
}

#[test]
#[ignore = "needs ../shared/data"]
fn ordinal_model_reproduces_a_reference_ordered_logit() {
    let rows = openrating_rows();
    let r = fit_both(&rows, &FitConfig { draws: DrawMode::Ordinal, lambda: 0.0, ..FitConfig::default() });
    close(&r.theta, &R_ORD_COEF, 1e-6, "θ");
    close(&r.stderr.iter().map(|s| s.unwrap()).collect::<Vec<_>>(), &R_ORD_SE, 1e-5, "standard errors");
    let band = r.draw_band.unwrap();
    assert!((band.half_width - 0.3199732408).abs() < 1e-8, "{band:?}");
    assert!((band.width_stderr.unwrap() - 2.0 * 0.006398275729).abs() < 1e-8);
}

#[test]
#[ignore = "needs ../shared/data"]
fn gradient_descent_prints_the_original_programs_trajectory() {
    let (mat, stdout) = (shared("pgnlearn/OpenRating.pgnlearn.mat"), shared("pgnlearn/OpenRating.pgnlearn.stdout.txt"));
    let out = stdout_of(
        pgntune().arg("fit").args(["--solver", "gd", "--alpha", "1", "--iters", "10000", "--draws", "exclude", "--lambda", "1e-6"]).arg(&mat),
    );
    let original = std::fs::read_to_string(stdout).unwrap();
    let iterations = |text: &str| text.lines().filter(|l| l.starts_with("Iter ")).map(str::to_string).collect::<Vec<_>>();
    assert_eq!(iterations(&out).len(), 11);
    assert_eq!(iterations(&out), iterations(&original), "the trajectory differs");
    assert!(out.contains("Iter 1000: [ 0.703733 1.89849 2.31532 3.16993 6.9148 ] -> 0.470379"));
    assert!(out.contains("values: P 100  N 288.478  B 345.377  R 479.66  Q 1076.56"), "{out}");
}

#[test]
#[ignore = "needs ../shared/data"]
fn pgnlearn_mat_exact_optimum_matches_r() {
    let mat = shared("pgnlearn/OpenRating.pgnlearn.mat");
    let rows = pgntune::dataset::load::load(&[mat], false).unwrap();
    assert_eq!(rows.total_rows(), 20196.0);
    let r = fit_both(&rows, &FitConfig { draws: DrawMode::Exclude, lambda: 0.0, ..FitConfig::default() });
    let values: Vec<f64> = r.values.unwrap().iter().map(|v| (v * 10.0).round() / 10.0).collect();
    assert_eq!(values, [100.0, 288.7, 345.6, 480.0, 1077.6]);
}

/// Rows drawn from a known model: one position per game with a realistic
/// material imbalance (mostly pawns, rarely a piece), and the result drawn
/// from σ(θ·x).
fn synthetic(theta: &[f64; 5], games: usize, seed: u64) -> MergedRows {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut merger = RowMerger::new(["P", "N", "B", "R", "Q"].map(String::from).to_vec(), true);
    let spread = [3, 1, 1, 1, 1];
    let odds = [0.7, 0.25, 0.25, 0.2, 0.1];
    for g in 0..games {
        let mut x = [0.0f64; 5];
        for j in 0..5 {
            if rng.random::<f64>() < odds[j] {
                let m = rng.random_range(1..=spread[j]) as f64;
                x[j] = if rng.random::<bool>() { m } else { -m };
            }
        }
        let z: f64 = x.iter().zip(theta).map(|(a, b)| a * b).sum();
        let p = 1.0 / (1.0 + (-z).exp());
        let result = if rng.random::<f64>() < p { GameResult::WhiteWins } else { GameResult::BlackWins };
        merger.add(&x, result, Some(g as u64));
    }
    merger.finish()
}

#[test]
fn synthetic_weights_are_recovered_within_their_intervals() {
    let truth = [0.8, 2.4, 2.6, 3.9, 7.5];
    let config = FitConfig { draws: DrawMode::Exclude, lambda: 0.0, ..FitConfig::default() };
    // One large sample: every true weight inside its interval.
    let r = fit_both(&synthetic(&truth, 200_000, 42), &config);
    for (j, &true_weight) in truth.iter().enumerate() {
        let se = r.stderr[j].unwrap();
        // 99% intervals: five weights each inside its 95% interval would
        // fail a quarter of the seeds by chance alone.
        assert!((r.theta[j] - true_weight).abs() < 2.576 * se, "weight {j}: {} ± {se} vs {true_weight}", r.theta[j]);
    }
    // And the intervals have their nominal coverage: of 100 intervals from
    // 20 smaller samples, about 95 contain the truth.
    let mut covered = 0;
    for seed in 0..20 {
        let r = fit(&synthetic(&truth, 20_000, 1000 + seed), &config).unwrap();
        covered += (0..5).filter(|&j| (r.theta[j] - truth[j]).abs() < 1.96 * r.stderr[j].unwrap()).count();
    }
    assert!((88..=100).contains(&covered), "{covered} of 100 intervals cover the truth");
}

/// The default solver is Newton's method, and where it does not reach the
/// tolerance, L-BFGS takes over from the start and says so.
#[test]
fn newton_is_the_default_and_lbfgs_takes_over_when_it_does_not_converge() {
    let rows = synthetic(&[0.8, 2.4, 2.6, 3.9, 7.5], 20_000, 7);
    let default = fit(&rows, &FitConfig::default()).unwrap();
    assert_eq!(default.solver, SolverKind::Newton);
    assert!(default.converged && default.iterations < 20, "{} iterations", default.iterations);
    assert!(default.warnings.is_empty(), "{:?}", default.warnings);
    // Two Newton steps cannot reach 1e-15 from θ = 0: the fit is L-BFGS's.
    let capped = fit(&rows, &FitConfig { max_iters: Some(2), tol: 1e-15, ..FitConfig::default() }).unwrap();
    assert_eq!(capped.solver, SolverKind::Lbfgs);
    assert!(capped.warnings.iter().any(|w| w.starts_with("Newton's method did not converge")), "{:?}", capped.warnings);
    // Given room, the fallback reaches the same optimum as Newton.
    let lbfgs = fit(&rows, &FitConfig { solver: SolverKind::Lbfgs, ..FitConfig::default() }).unwrap();
    for (a, b) in lbfgs.theta.iter().zip(&default.theta) {
        assert!(((a - b) / b).abs() < 1e-6, "lbfgs {a} vs newton {b}");
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn bootstrap_is_deterministic_and_brackets_the_fit() {
    let rows = openrating_rows();
    let config = FitConfig { draws: DrawMode::Exclude, bootstrap: Some((200, 5)), holdout: Some((0.25, 5)), ..FitConfig::default() };
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| fit(&rows, &config).unwrap());
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap().install(|| fit(&rows, &config).unwrap());
    assert_eq!(one.bootstrap, two.bootstrap, "bootstrap intervals depend on the thread count");
    let b = one.bootstrap.unwrap();
    assert_eq!((b.replicates, b.by_game), (200, true));
    let values = one.values.unwrap();
    for (j, (lo, hi)) in b.values_ci95.unwrap().into_iter().enumerate().skip(1) {
        assert!(lo < values[j] && values[j] < hi, "column {j}: {lo} < {} < {hi}", values[j]);
    }
    let h = one.holdout.unwrap();
    assert!(h.games.1 > 500 && h.games.0 > 3 * h.games.1 / 2);
    assert!(h.test.log_loss > 0.3 && h.test.log_loss < 0.6 && h.test.accuracy > 0.6, "{h:?}");
}

/// With --holdout the weights are the fit on the training games only (as
/// the help says, and as the whole-evaluation tuner does): its loss is the
/// training part's, its rows are the training rows, and the values move
/// away from the fit on every row. They were once the fit on every row,
/// with the held-out games only refitted apart for their metrics.
#[test]
#[ignore = "needs ../shared/data"]
fn the_holdout_fit_is_the_fit_on_the_training_games() {
    let rows = openrating_rows();
    let all = fit(&rows, &FitConfig::default()).unwrap();
    let held = fit(&rows, &FitConfig { holdout: Some((0.3, 7)), ..FitConfig::default() }).unwrap();
    let h = held.holdout.clone().unwrap();
    assert_eq!((held.rows, held.games), (all.rows, all.games), "the report describes the whole input");
    assert_eq!(held.rows_used as f64, h.train.rows, "fitted on the training rows only");
    assert_eq!(h.train.rows + h.test.rows, all.rows as f64);
    // The minimum of the (barely penalised) training loss is the fit's.
    assert!((held.loss - h.train.log_loss).abs() < 1e-4, "{} against {}", held.loss, h.train.log_loss);
    assert!(held.theta.iter().zip(&all.theta).any(|(a, b)| (a - b).abs() > 1e-3), "{:?} {:?}", held.theta, all.theta);
}

#[test]
#[ignore = "needs ../shared/data"]
fn json_weights_and_trace_outputs() {
    let pgn = shared("pgnlearn/OpenRating.pgn");
    let dir = tempfile::tempdir().unwrap();
    let (weights, trace) = (dir.path().join("w.toml"), dir.path().join("trace.csv"));
    let out = pgntune()
        .arg("tune")
        .arg(&pgn)
        .args(["-q", "--draws", "exclude", "--json", "--weights-out"])
        .arg(&weights)
        .arg("--trace")
        .arg(&trace)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    for key in ["games", "rows", "draws", "solver", "iterations", "loss", "theta", "stderr", "values", "values_ci95", "converged"] {
        assert!(json.get(key).is_some(), "missing {key}");
    }
    assert_eq!((json["games"].as_u64(), json["rows"].as_u64(), json["draws"].as_str()), (Some(2976), Some(20175), Some("exclude")));
    assert_eq!(json["converged"], true);
    let n = json["values_ci95"]["N"].as_array().unwrap();
    assert!(n[0].as_f64().unwrap() < 289.1 && n[1].as_f64().unwrap() > 289.1);
    let w = pgntune::weights::Weights::load(&weights).unwrap();
    assert!((w.centipawns("P") - 100.0).abs() < 1e-9);
    assert!((w.centipawns("N") - json["values"]["N"].as_f64().unwrap()).abs() < 1e-9);
    let trace = std::fs::read_to_string(trace).unwrap();
    assert!(trace.starts_with("iteration,P,N,B,R,Q,loss\n0,"));
    assert_eq!(trace.lines().count() as u64, json["iterations"].as_u64().unwrap() + 2);
}

/// `tune` with no input fits the bundled sample (always present): the same
/// report for one and two threads, values near the classical scale it was
/// played with, and a weights file the engine reads back.
#[test]
fn tune_on_the_bundled_sample_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let run = |threads: &str, weights: &std::path::Path| -> serde_json::Value {
        let out =
            stdout_of(pgntune().current_dir(env!("CARGO_MANIFEST_DIR")).args(["tune", "-q", "--json", "-j", threads, "--weights-out"]).arg(weights));
        let mut json: serde_json::Value = serde_json::from_str(&out).unwrap();
        json.as_object_mut().unwrap().remove("seconds");
        json
    };
    // The same file name in two folders: the weights are named after their file.
    let (w1, w2) = (dir.path().join("one/w.toml"), dir.path().join("two/w.toml"));
    for w in [&w1, &w2] {
        std::fs::create_dir(w.parent().unwrap()).unwrap();
    }
    let one = run("1", &w1);
    assert_eq!(one, run("2", &w2), "the report depends on the thread count");
    assert_eq!(std::fs::read(&w1).unwrap(), std::fs::read(&w2).unwrap());
    assert_eq!((one["games"].as_u64(), one["rows"].as_u64(), one["converged"].as_bool()), (Some(2000), Some(14640), Some(true)));
    let value = |c: &str| one["values"][c].as_f64().unwrap();
    assert_eq!(value("P"), 100.0);
    assert!((250.0..330.0).contains(&value("N")) && (280.0..360.0).contains(&value("B")), "{one}");
    assert!((430.0..540.0).contains(&value("R")) && (900.0..1150.0).contains(&value("Q")), "{one}");
    let weights = pgntune::weights::Weights::load(&w1).unwrap();
    assert!((weights.centipawns("N") - value("N")).abs() < 1e-9);
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs `fit` expecting exit code 2 and a one-line message containing `needle`.
fn fit_fails(args: &[&str], file: &std::path::Path, needle: &str) {
    let a = pgntune().arg("fit").arg(file).args(args).assert().code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(needle), "{err:?} should contain {needle:?}");
    assert!(!err.contains("NaN") && !err.contains("inf"), "{err}");
}

#[test]
fn bad_datasets_get_clear_messages() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fit_fails(&[], &write(d, "ragged.mat", " 1  0  0  0  0  2\n 1  0  0  0  2\n"), "line 2: expected 6 numbers");
    fit_fails(&[], &write(d, "text.csv", "P,N,result\n1,0,1\none,0,0\n"), "line 3: 'one' in column 'P' is not a number");
    fit_fails(&[], &write(d, "long.csv", "P,N,result\n1,0,1\n1,0,1,0\n"), "line 3: 4 fields, the header has 3");
    fit_fails(&[], &write(d, "short.tsv", "P\tN\tresult\n1\t0\n"), "line 2: 2 fields, the header has 3");
    fit_fails(&[], &write(d, "long_counts.csv", "P,wins,draws,losses\n1,2,0,1,5\n"), "line 2: 5 fields, the header has 4");
    fit_fails(&[], &write(d, "draws.mat", " 1  0  0  0  0  1\n-1  0  0  0  0  1\n"), "no decisive games");
    fit_fails(&[], &write(d, "empty.csv", "P,N,result\n"), "no rows");
    fit_fails(&[], &write(d, "noresult.csv", "P,N\n1,2\n"), "no 'result' column");
    fit_fails(&[], &d.join("missing.mat"), "missing.mat");
    // A sparse .ijv cut short, and one whose row number runs past the size
    // its last line declares (rows without entries are implied by the
    // gaps, so such a number once made up billions of empty rows).
    let ijv_header =
        "% pgntune sparse rows: i j v, 1-based; columns 1..5 features, 6 result, 7 game, 8 ply\n% layout: material\n% columns: P N B R Q\n";
    let ijv = |rows: &str| format!("{ijv_header}{rows}");
    fit_fails(&[], &write(d, "cut.ijv", &ijv("1 1 1\n1 6 1\n2 1 -1\n")), "the last line is not the size line 'R C 0'");
    fit_fails(&[], &write(d, "far.ijv", &ijv("1 1 1\n1 6 1\n99999999999 1 1\n2 8 0\n")), "line 6: row 99999999999 is past the 2 rows the size line");
    fit_fails(
        &["--holdout", "1.5"],
        &write(d, "ok.mat", " 1  0  0  0  0  2\n-1  0  0  0  0  0\n"),
        "for '--holdout <F>': must be a fraction between 0 and 1",
    );
}

#[test]
fn separable_data_is_named_and_the_penalised_fit_reported() {
    let dir = tempfile::tempdir().unwrap();
    // White wins exactly when it is a pawn or more up: perfectly separable.
    let mut text = String::new();
    for (p, n, r) in [(1, 0, 2), (2, 0, 2), (1, 1, 2), (-1, 0, 0), (-2, 0, 0), (-1, -1, 0), (1, -1, 2), (-1, 1, 0)] {
        for _ in 0..5 {
            text.push_str(&format!("{p:2} {n:2}  0  0  0 {r:2}\n"));
        }
    }
    let file = write(dir.path(), "sep.mat", &text);
    let a = pgntune().arg("fit").arg(&file).args(["--draws", "exclude", "--json"]).assert().success();
    let json: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
    assert_eq!(json["separable"], true);
    assert!(json["warnings"][0].as_str().unwrap().contains("perfectly separable"));
    let p = json["theta"]["P"].as_f64().unwrap();
    assert!(p.is_finite() && p > 5.0, "the penalised fit is large but finite: {p}");
    let text =
        String::from_utf8(pgntune().arg("fit").arg(&file).args(["--draws", "exclude"]).assert().success().get_output().stdout.clone()).unwrap();
    assert!(text.contains("perfectly separable") && !text.contains("NaN"), "{text}");
}

#[test]
#[ignore = "needs ../shared/data"]
fn intercept_and_mse_options() {
    let rows = openrating_rows();
    let with = fit_both(&rows, &FitConfig { intercept: true, ..FitConfig::default() });
    let (b0, se) = with.intercept.unwrap();
    assert!(b0.abs() < 0.2 && se.unwrap() > 0.0, "white's edge {b0}");
    let mse = fit_both(&rows, &FitConfig { loss: pgntune::fit::Loss::Mse, ..FitConfig::default() });
    let values = mse.values.unwrap();
    assert!(values[1] > 250.0 && values[1] < 330.0 && values[4] > 900.0, "{values:?}");
    assert!(mse.stderr.iter().all(|s| s.is_some_and(|s| s > 0.0)));
}

/// `--emit-code` only adds a file: the classic fit runs as without it, and
/// the code holds the values `--weights-out` writes (pawn = 100). It once
/// switched the run to the whole-evaluation tuner, another model on
/// another scale.
#[test]
fn emitting_code_does_not_change_the_fit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pgntune_in = |d: &std::path::Path| {
        let mut cmd = pgntune();
        cmd.current_dir(d);
        cmd
    };
    let plain = stdout_of(pgntune_in(d).arg("tune").arg(bundled_sample()).args(["-q", "--weights-out", "a.toml"]));
    let emitting = stdout_of(pgntune_in(d).arg("tune").arg(bundled_sample()).args([
        "-q",
        "--weights-out",
        "b.toml",
        "--emit-code",
        "rust",
        "--emit-out",
        "b.rs",
    ]));
    let without_timing = |t: &str| t.lines().filter(|l| !l.starts_with("solver:")).collect::<Vec<_>>().join("\n");
    assert_eq!(without_timing(&plain), without_timing(&emitting));
    let read = |n: &str| std::fs::read_to_string(d.join(n)).unwrap();
    assert_eq!(read("a.toml").replace("name = \"a\"", "name = \"b\""), read("b.toml"));
    assert!(read("b.rs").contains("(100, 100), // P"), "{}", read("b.rs"));
}
