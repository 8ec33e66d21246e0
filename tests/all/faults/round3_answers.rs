//! Issue 33: silent wrong answers (S2, S8, S9 and the smaller ones), one
//! test per finding, named after its id.

use std::path::Path;

use super::*;

const IJV_HEAD: &str =
    "% pgntune sparse rows: i j v, 1-based; columns 1..5 features, 6 result, 7 game, 8 ply, 9 eval\n% layout: material\n% columns: P N B R Q\n";

/// `fit --json` of `file` in `d`.
fn fit_json(d: &Path, file: &str, args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&stdout_of(pgntune_in(d).args(["fit", file, "--json", "-q"]).args(args))).unwrap()
}

#[test]
fn s2_ijv_labels_of_zero_are_labels() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Row 1 labelled 0, row 2 labelled 35, row 3 labelled 0 on the line
    // just before the size line (which reads the same: `3 9 0`).
    write(d, "l.ijv", format!("{IJV_HEAD}1 1 1\n1 6 1\n1 9 0\n2 1 -1\n2 7 1\n2 9 35\n3 2 1\n3 6 0.5\n3 7 2\n3 9 0\n3 9 0\n"));
    assert_eq!(fit_json(d, "l.ijv", &["--eval-weight", "0.5"])["labelled_positions"], 3);
    // As extract writes them: every label read back, zeros too.
    write(d, "t.pgn", GAMES);
    pgntune_in(d).args(["extract", "t.pgn", "-q", "--fen", "--emit", "all", "-o", "r.csv"]).assert().success();
    let rows = fit_json(d, "r.csv", &["--k", "1"])["train_positions"].as_u64().unwrap();
    for format in ["csv", "ijv"] {
        let labelled = format!("label.{format}");
        // Flat weights and material only: most labels are 0.
        pgntune_in(d)
            .args(["label", "r.csv", "-o", &labelled, "--depth", "1", "--weights", "flat", "--features", "material", "-q"])
            .assert()
            .success();
        assert_eq!(fit_json(d, &labelled, &["--eval-weight", "0.5"])["labelled_positions"].as_u64(), Some(rows), "{format}");
    }
}

#[test]
fn s8_game_ids_past_2_53_are_read_as_integers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Six games from 2^53 − 2 on: as floats, 2^53 + 1 and 2^53 + 3 fall on their neighbours.
    write(d, "six.pgn", GAMES.repeat(3));
    for format in ["csv", "tsv", "parquet", "ijv", "svm"] {
        let out = format!("gb.{format}");
        pgntune_in(d).args(["extract", "six.pgn", "-q", "--game-base", "9007199254740990", "-o", &out]).assert().success();
        // --k: the tuner, which counts games (the classic fit of material
        // rows could not normalise these few games' values).
        assert_eq!(fit_json(d, &out, &["--k", "1"])["train_games"], 6, "{format}");
    }
}

#[test]
fn s9_k_auto_searches_the_whole_range_k_takes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let evaluate = |file: &str, k: Option<&str>| -> serde_json::Value {
        let mut cmd = pgntune_in(d);
        cmd.args(["evaluate", file, "--weights", "classical", "--json"]);
        if let Some(k) = k {
            cmd.args(["--k", k]);
        }
        serde_json::from_str(&stdout_of(&mut cmd)).unwrap()
    };
    // Material that says nothing of the result: the best K is the smallest.
    write(d, "noise.csv", "P,N,B,R,Q,result\n1,0,0,0,0,1\n1,0,0,0,0,0\n-1,0,0,0,0,1\n-1,0,0,0,0,0\n1,0,0,0,0,0.5\n");
    let auto = evaluate("noise.csv", None);
    let smallest = evaluate("noise.csv", Some("0.0001"));
    assert!(auto["k"].as_f64().unwrap() < 0.001, "{auto}");
    assert!(auto["log_loss"].as_f64().unwrap() <= smallest["log_loss"].as_f64().unwrap() + 1e-12, "{auto} {smallest}");
    // Material that tells the result every time: the best K is past 10.
    write(d, "sure.csv", "P,N,B,R,Q,result\n1,0,0,0,0,1\n-1,0,0,0,0,0\n2,0,0,0,0,1\n");
    let auto = evaluate("sure.csv", None);
    assert!(auto["k"].as_f64().unwrap() > 10.0, "{auto}");
    assert!(auto["log_loss"].as_f64().unwrap() < evaluate("sure.csv", Some("10"))["log_loss"].as_f64().unwrap(), "{auto}");
}

#[test]
fn small_ijv_columns_past_the_size_line_and_fractional_games_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let head = "% pgntune sparse rows: i j v, 1-based; columns 1..5 features, 6 result, 7 game, 8 ply\n% layout: material\n% columns: P N B R Q\n";
    write(d, "wide.ijv", format!("{head}1 1 1\n1 6 1\n1 9 35\n2 1 -1\n2 8 0\n"));
    fails_untouched(d, pgntune_in(d).args(["fit", "wide.ijv"]), "line 6: column 9 is past the 8 columns the size line at the end declares");
    write(d, "half.ijv", format!("{head}1 1 1\n1 6 1\n1 7 1.5\n2 1 -1\n2 8 0\n"));
    fails_untouched(d, pgntune_in(d).args(["fit", "half.ijv"]), "line 6: game id '1.5' is not a whole number");
    write(d, "half.csv", "P,N,B,R,Q,result,game\n1,0,0,0,0,1,0\n-1,0,0,0,0,0,0.5\n");
    fails_untouched(d, pgntune_in(d).args(["fit", "half.csv"]), "line 3: game id 0.5 is not a whole number");
}

#[test]
fn small_epd_with_two_results_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "two.epd", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 \"1-0\"; c9 \"0-1\";\n");
    fails_untouched(d, pgntune_in(d).args(["fit", "two.epd", "--strict"]), "line 1: two 'c9' opcodes");
}

#[test]
fn small_a_file_named_like_a_preset_is_ambiguous() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "flat",
        "format = 2\nname = \"mine\"\nfeatures = [\"material\"]\nscale = 1.0\n\n[weights]\nP = 100\nN = 320\nB = 330\nR = 500\nQ = 950\n",
    );
    let message = fails_untouched(d, pgntune_in(d).args(["weights", "show", "flat"]), "'flat' is both a preset and a file");
    assert!(message.contains("./flat"), "{message}");
    assert!(stdout_of(pgntune_in(d).args(["weights", "show", "./flat"])).contains("950"));
    // Elsewhere the preset is the preset.
    assert!(stdout_of(pgntune().args(["weights", "show", "flat"])).contains("100"));
}
