//! The whole-evaluation tuner from the outside: it agrees with the dense
//! fitter on material, is deterministic, reads its own exports and other
//! tuners' EPD, and refuses bad input with one line and exit code 2.

use std::sync::Arc;

use crate::common::*;
use crate::faults::{fails_untouched, pgntune_in, write};
use pgntune::dataset::load::{LoadOptions, load, load_positions};
use pgntune::features::FeatureLayout;
use pgntune::fit::sparse::{ScaleK, StopReason, TuneConfig, tune};
use pgntune::fit::{DrawMode, FitConfig, SolverKind, fit};

/// The article's setting (decisive games, λ = 0) fitted twice: by the dense
/// Newton fitter and by the sparse tuner at K = 400/ln 10 (so that its
/// centipawn weights are the logistic θ). They agree to 1e-9.
#[test]
#[ignore = "needs ../shared/data"]
fn the_sparse_fit_equals_the_dense_fit_on_material() {
    let pgn = shared("pgnlearn/OpenRating.pgn");
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rows.csv");
    pgntune().arg("extract").arg(&pgn).args(["-q", "-o"]).arg(&csv).assert().success();

    let rows = load(&[&csv], false).unwrap();
    let dense =
        fit(&rows, &FitConfig { draws: DrawMode::Exclude, lambda: 0.0, solver: SolverKind::Newton, tol: 1e-12, ..FitConfig::default() }).unwrap();

    let options = LoadOptions { epd_layout: FeatureLayout::default(), strict: true };
    let (positions, _) = load_positions(&[&csv], &options).unwrap();
    let mut config = TuneConfig::new(vec![0.0; 5]);
    config.k = ScaleK::Fixed(400.0 / std::f64::consts::LN_10);
    config.lambda = 0.0;
    config.exclude_draws = true;
    config.tol = 1e-11;
    config.cost_tol = 0.0;
    config.max_iters = 2000;
    let sparse = tune(Arc::new(positions), &config, Arc::new(|_| {})).unwrap();
    eprintln!("stopped {:?} after {} iterations", sparse.stopped, sparse.iterations);
    assert_ne!(sparse.stopped, StopReason::IterationLimit, "{:?}", sparse.stopped);
    for (j, (&s, &d)) in sparse.weights.iter().zip(&dense.theta).enumerate() {
        assert!(((s - d) / d).abs() < 1e-9, "column {j}: sparse {s} vs dense {d}");
        let (se_s, se_d) = (sparse.stderr[j].unwrap(), dense.stderr[j].unwrap());
        assert!(((se_s - se_d) / se_d).abs() < 1e-6, "standard error {j}: sparse {se_s} vs dense {se_d}");
    }
}

/// The bundled sample tuned with the whole evaluation: the same weights
/// file, byte for byte, for one thread and two.
#[test]
fn tuning_the_whole_evaluation_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for threads in ["1", "2"] {
        // One folder per run: the weights are named after their file.
        std::fs::create_dir(d.join(threads)).unwrap();
        pgntune_in(d)
            .arg("tune")
            .arg(bundled_sample())
            .args(["-q", "--features", "full", "--positions", "plies", "--sample", "20", "--iters", "30", "--holdout", "0.2"])
            .args(["-j", threads, "--weights-out"])
            .arg(format!("{threads}/tuned.toml"))
            .args(["--trace"])
            .arg(format!("{threads}/t.csv"))
            .assert()
            .success();
    }
    let read = |n: &str| std::fs::read(d.join(n)).unwrap();
    assert_eq!(read("1/tuned.toml"), read("2/tuned.toml"));
    assert_eq!(read("1/t.csv"), read("2/t.csv"));
    // Named as the user named the file, not after the sample it came from.
    assert!(String::from_utf8(read("1/tuned.toml")).unwrap().contains("name = \"tuned\"\n"));
    let trace = String::from_utf8(read("1/t.csv")).unwrap();
    assert!(trace.starts_with("iteration,train_loss,holdout_loss\n0,"));
    // The held-out loss is recorded every iteration.
    assert!(trace.lines().nth(5).unwrap().split(',').nth(2).unwrap().parse::<f64>().is_ok(), "{trace}");
    let shown = stdout_of(pgntune_in(d).args(["weights", "show", "1/tuned.toml"]));
    assert!(shown.contains("N middlegame") && shown.contains("passed_r6"), "{shown}");
    // A --plot folder that does not exist yet is made (its parent must exist).
    pgntune_in(d).args(["weights", "plot", "1/tuned.toml", "1/figures"]).assert().success();
    pgntune_in(d)
        .arg("tune")
        .arg(bundled_sample())
        .args(["-q", "--features", "full", "--positions", "plies", "--sample", "5", "--iters", "2", "--plot", "2/figures"])
        .assert()
        .success();
    for folder in ["1/figures", "2/figures"] {
        for figure in ["pst_mg.png", "pst_mg.svg", "pst_eg.png", "pst_eg.svg"] {
            assert!(d.join(folder).join(figure).is_file(), "{folder}/{figure}");
        }
    }
    pgntune_in(d).args(["weights", "plot", "1/tuned.toml", "no/such/figures"]).assert().code(2);
}

/// EPD from pgntune, and EPD in the styles other tuners write, are read as
/// training positions; bad lines are reported with their number and
/// skipped, or stop the run with --strict.
#[test]
fn epd_in_and_out() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    pgntune_in(d).arg("extract").arg(bundled_sample()).args(["-q", "--features", "material", "-o", "rows.epd", "-o", "rows.csv"]).assert().success();
    let epd = std::fs::read_to_string(d.join("rows.epd")).unwrap();
    assert!(epd.lines().next().unwrap().contains(" c9 \""), "{}", &epd[..200]);
    // Read back: the same material rows as the CSV.
    let options = LoadOptions { epd_layout: FeatureLayout::default(), strict: true };
    let (from_epd, _) = load_positions(&[d.join("rows.epd")], &options).unwrap();
    let (from_csv, _) = load_positions(&[d.join("rows.csv")], &options).unwrap();
    assert_eq!(from_epd.len(), from_csv.len());
    for i in (0..from_csv.len()).step_by(97) {
        assert_eq!(from_epd.terms(i), from_csv.terms(i), "row {i}");
        assert_eq!(from_epd.score(i), from_csv.score(i), "row {i}");
    }

    let other = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 [0.5]\n\
                 r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 | 30 | 1.0\n\
                 not a fen at all [1.0]\n\
                 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"start\";\n\
                 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - zz 1; c9 \"1-0\";\n\
                 4k3/8/8/8/8/8/8/4K2R w K - c9 \"1-0\";\n";
    write(d, "other.epd", other);
    let out = pgntune_in(d).args(["fit", "other.epd", "--epd-features", "material_tapered,tempo", "--iters", "5", "--no-stderr"]).assert().success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("line 3: a FEN has 4 or 6 fields"), "{stderr}");
    assert!(stderr.contains("line 4: no result label"), "{stderr}");
    assert!(stderr.contains("line 5: unknown EPD opcode 'zz'"), "{stderr}");
    assert!(
        stdout_of(pgntune_in(d).args(["fit", "other.epd", "--epd-features", "material_tapered,tempo", "--iters", "5", "--no-stderr"]))
            .contains("on 3 positions")
    );
    fails_untouched(d, pgntune_in(d).args(["fit", "other.epd", "--strict", "--epd-features", "material_tapered"]), "line 3: a FEN has 4 or 6 fields");
}

/// Bad options and inputs of the tuner: one line, exit code 2, nothing written.
#[test]
fn the_tuners_bad_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tune = |extra: &[&str]| {
        let mut cmd = pgntune_in(d);
        cmd.arg("tune").arg(bundled_sample()).args(["-q", "--weights-out", "w.toml"]).args(extra);
        cmd
    };
    fails_untouched(d, &mut tune(&["--features", "material,psqt"]), "unknown feature set 'psqt'");
    fails_untouched(d, &mut tune(&["--features", "full", "--freeze", "mg_X_z9"]), "--freeze: 'mg_X_z9' is neither a feature set of");
    write(d, "classical.toml", "format = 2\nfeatures = [\"material\"]\nscale = 1.0\n[weights]\nP = 100\nN = 300\nB = 300\nR = 500\nQ = 900\n");
    fails_untouched(
        d,
        &mut tune(&["--features", "full", "--prior", "classical.toml"]),
        "--prior: the weights 'classical' are for the sets 'material' and have no column",
    );
    fails_untouched(d, &mut tune(&["--features", "full", "--k", "-1"]), "for '--k <auto|K>': must be 'auto' or a number from 0.0001 to 10000");
    fails_untouched(d, &mut tune(&["--features", "full", "--eval-weight", "2"]), "must be a number in [0, 1]");
    fails_untouched(d, &mut tune(&["--features", "full", "--solver", "newton"]), "--solver newton and gd are for the article's small models");
    fails_untouched(d, &mut tune(&["--features", "full", "--draws", "ordinal"]), "--draws ordinal, --bootstrap and --intercept belong to");
    fails_untouched(d, &mut tune(&["--features", "material", "--solver", "adam", "--lr", "0"]), "--lr");
}

/// `features` lists every set; the whole evaluation has at least 400 columns.
#[test]
fn the_feature_sets_are_listed() {
    let text = stdout_of(pgntune().arg("features"));
    for set in pgntune::features::FeatureSet::ALL {
        assert!(text.lines().any(|l| l.starts_with(set.name())), "{} missing:\n{text}", set.name());
    }
    let full = text.lines().find(|l| l.starts_with("full ")).unwrap();
    let columns: usize = full.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(columns >= 400, "{full}");
}

/// `label` searches every position of a dataset and writes it back with
/// its score, keeping the dataset's other columns, its kept tags included
/// (they were dropped); a format without room for tags says so.
#[test]
fn label_scores_positions_and_keeps_their_tags() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    pgntune_in(d)
        .arg("extract")
        .arg(bundled_sample())
        .args(["-q", "--fen", "--tags", "White,Round", "--sample", "3", "-o", "rows.csv"])
        .assert()
        .success();
    pgntune_in(d).args(["label", "rows.csv", "-o", "labelled.csv", "--depth", "2", "--features", "material", "-q"]).assert().success();
    let read = |n: &str| std::fs::read_to_string(d.join(n)).unwrap();
    let (rows, labelled) = (read("rows.csv"), read("labelled.csv"));
    assert_eq!(labelled.lines().next().unwrap(), "P,N,B,R,Q,result,game,ply,White,Round,eval,fen");
    assert_eq!(rows.lines().count(), labelled.lines().count());
    for (row, out) in rows.lines().zip(labelled.lines()).skip(1) {
        let (row, out): (Vec<&str>, Vec<&str>) = (row.split(',').collect(), out.split(',').collect());
        assert_eq!(row[..10], out[..10], "the row's columns and tags go on");
        assert!(out[10].parse::<f64>().is_ok(), "a score: {out:?}");
        assert_eq!(row[10], out[11], "the FEN");
    }
    let a = pgntune_in(d).args(["label", "rows.csv", "-o", "labelled.epd", "--depth", "1", "-q"]).assert().success();
    let stderr = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(stderr.contains("an EPD dataset holds no tags: the tags of rows.csv (White, Round) are not written"), "{stderr}");
}

/// `tune --verify` plays the tuned weights against their start and prints
/// the verdict (issue 30: a collection made the engine weaker in silence).
#[test]
fn tune_verify_plays_the_tuned_weights_against_their_start() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = pgntune_in(d)
        .arg("tune")
        .arg(bundled_sample())
        .args(["--features", "material_tapered,tempo", "--lambda", "1e-2", "--verify", "2", "--verify-nodes", "300", "-j", "2"])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&run.get_output().stderr).to_string();
    assert!(stderr.contains("--verify: the tuned weights against their start, up to 2 pairs at 300 nodes per move"), "{stderr}");
    assert!(stderr.contains("verify: After 4 games (2 pairs), tuned scored"), "{stderr}");
    assert!(stderr.contains("against start"), "{stderr}");
    // Two pairs cannot decide an SPRT: the weights are not called proven.
    assert!(stderr.contains("not proven stronger than their start"), "{stderr}");
}

/// The summary's first line counts the columns that moved, as the
/// "Columns:" line does: with a frozen pawn, 4 of material's 5. (It said
/// "Tuned 5 columns" above "4 tuned, 1 frozen".) And λ = 0 reads as 0.
#[test]
fn the_summary_counts_agree() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = stdout_of(pgntune_in(d).arg("tune").arg(bundled_sample()).args(["-q", "--freeze", "P"]));
    assert!(text.starts_with("Tuned 4 of the 5 columns of 'material' on "), "{text}");
    assert!(text.contains("Columns: 4 tuned, 1 frozen, 0 never seen"), "{text}");
    let text = stdout_of(pgntune_in(d).arg("tune").arg(bundled_sample()).args(["-q", "--lambda", "0", "--draws", "exclude"]));
    assert!(text.contains("; L2 λ = 0\n"), "{text}");
}
