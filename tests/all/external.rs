//! The exports read in real R and Octave, with the fit redone there:
//! R's glm on the TSV, Newton iterations in Octave on the text matrix.
//! Coefficients and standard errors must equal pgntune's to 1e-6.

use std::process::Command;

use crate::common::*;

/// A program on the PATH, or a failure that says how to install it.
pub(crate) fn tool(name: &str, package: &str) -> String {
    let found = Command::new("sh").arg("-c").arg(format!("command -v {name}")).output().ok().filter(|o| o.status.success());
    needs(found.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()), name, &format!("apt-get install {package}"))
}

/// The `key v1 v2 …` lines the scripts print.
pub(crate) fn values(output: &[u8], key: &str) -> Vec<f64> {
    let text = String::from_utf8_lossy(output);
    let line = text.lines().find(|l| l.split_whitespace().next() == Some(key)).unwrap_or_else(|| panic!("no '{key}' line in:\n{text}"));
    line.split_whitespace().skip(1).map(|v| v.parse().unwrap()).collect()
}

fn close(got: &[f64], want: &[f64], what: &str) {
    for (g, w) in got.iter().zip(want) {
        assert!(((g - w) / w).abs() < 1e-6, "{what}: {g} vs {w}");
    }
}

fn pgntune_fit(rows: &std::path::Path) -> (Vec<f64>, Vec<f64>) {
    let out = pgntune()
        .arg("fit")
        .arg(rows)
        .args(["--draws", "exclude", "--lambda", "0", "--solver", "newton", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let get = |k: &str| ["P", "N", "B", "R", "Q"].iter().map(|c| json[k][c].as_f64().unwrap()).collect();
    (get("theta"), get("stderr"))
}

pub(crate) fn repo(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

#[test]
#[ignore = "needs ../shared/data and R"]
fn r_reads_the_tsv_and_its_glm_agrees() {
    let (pgn, rscript) = (shared("pgnlearn/OpenRating.pgn"), tool("Rscript", "r-base-core"));
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("rows.tsv");
    pgntune().arg("extract").arg(&pgn).args(["-q", "--tags", "White,Black,Event,Date", "--fen", "-o"]).arg(&tsv).assert().success();
    let out = Command::new(rscript).arg(repo("tests/external/fit.R")).arg(&tsv).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(values(&out.stdout, "rows"), [20175.0, 17957.0, 2218.0]);
    let (theta, se) = pgntune_fit(&tsv);
    close(&values(&out.stdout, "coef"), &theta, "R glm coefficients");
    close(&values(&out.stdout, "se"), &se, "R standard errors");
}

#[test]
#[ignore = "needs ../shared/data and Octave"]
fn octave_loads_the_matrix_and_newton_agrees() {
    let (pgn, octave) = (shared("pgnlearn/OpenRating.pgn"), tool("octave-cli", "octave"));
    let dir = tempfile::tempdir().unwrap();
    let (txt, tsv) = (dir.path().join("rows.txt"), dir.path().join("rows.tsv"));
    pgntune().arg("extract").arg(&pgn).args(["-q", "--format", "octave", "-o"]).arg(&txt).assert().success();
    pgntune().arg("extract").arg(&pgn).args(["-q", "-o"]).arg(&tsv).assert().success();
    let out = Command::new(octave).args(["--no-gui", "--norc"]).arg(repo("tests/external/fit.m")).arg(&txt).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (theta, se) = pgntune_fit(&tsv);
    close(&values(&out.stdout, "coef"), &theta, "Octave coefficients");
    close(&values(&out.stdout, "se"), &se, "Octave standard errors");
}

/// A tapered layout (mg/eg material, bishop pair, tempo: 14 columns) fitted
/// by pgntune's sparse tuner at λ = 0 and by R's glm on the `.ijv`
/// triplets loaded with `Matrix::sparseMatrix`: the same θ and standard
/// errors to 1e-6. The tuner runs at K = 400/ln 10, where its centipawn
/// weights are the logistic θ.
#[test]
#[ignore = "needs ../shared/data and R (with Matrix)"]
fn r_loads_the_sparse_triplets_and_its_glm_agrees_with_the_tuner() {
    use pgntune::dataset::load::{LoadOptions, load_positions};
    use pgntune::features::FeatureLayout;
    use pgntune::fit::sparse::{ScaleK, StopReason, TuneConfig, tune};
    let (pgn, rscript) = (shared("pgnlearn/OpenRating.pgn"), tool("Rscript", "r-base-core"));
    let dir = tempfile::tempdir().unwrap();
    let ijv = dir.path().join("rows.ijv");
    pgntune().arg("extract").arg(&pgn).args(["--silent", "--features", "material_tapered,bishop_pair,tempo", "-o"]).arg(&ijv).assert().success();
    let out = Command::new(rscript).arg(repo("tests/external/sparse_glm.R")).arg(&ijv).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = values(&out.stdout, "rows");
    assert_eq!(rows[1], 14.0);
    assert!(rows[0] > 100_000.0, "{rows:?}");

    let options = LoadOptions { epd_layout: FeatureLayout::default(), strict: true };
    let (positions, _) = load_positions(&[&ijv], &options).unwrap();
    let mut config = TuneConfig::new(vec![0.0; 14]);
    config.k = ScaleK::Fixed(400.0 / std::f64::consts::LN_10);
    config.lambda = 0.0;
    config.exclude_draws = true;
    config.tol = 1e-11;
    config.cost_tol = 0.0;
    config.max_iters = 5000;
    let fitted = tune(std::sync::Arc::new(positions), &config, std::sync::Arc::new(|_| {})).unwrap();
    assert_ne!(fitted.stopped, StopReason::IterationLimit);
    assert_eq!(fitted.train_positions as f64, rows[0]);
    close(&values(&out.stdout, "coef"), &fitted.weights, "R glm coefficients of the tapered layout");
    let se: Vec<f64> = fitted.stderr.iter().map(|s| s.expect("every column is identified")).collect();
    close(&values(&out.stdout, "se"), &se, "R standard errors of the tapered layout");
}
