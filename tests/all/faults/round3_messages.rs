//! Issue 33: messages (items 2 to 7), one test per item, named after it.

use super::*;

#[test]
fn m2_subcommand_man_pages_are_reachable_with_their_names() {
    let weights = stdout_of(pgntune().args(["man", "weights"]));
    assert!(weights.contains("pgntune\\-weights\\-show(1)") || weights.contains("pgntune-weights-show(1)"), "{weights}");
    let header = weights.lines().find(|l| l.starts_with(".TH")).unwrap().to_string();
    assert!(header.contains("\"pgntune-weights 0.") || header.contains("\"pgntune\\-weights 0."), "{header}");
    let show = stdout_of(pgntune().args(["man", "weights", "show"]));
    let header = show.lines().find(|l| l.starts_with(".TH")).unwrap().to_string();
    assert!(header.starts_with(".TH pgntune-weights-show ") || header.starts_with(".TH pgntune\\-weights\\-show "), "{header}");
    assert!(show.contains("WEIGHTS"), "{show}");
    fails(pgntune().args(["man", "weights", "nonsense"]), "'nonsense' is not a command of 'pgntune weights'");
    fails(pgntune().args(["man", "nonsense"]), "'nonsense' is not a pgntune command");
}

#[test]
fn m3_weights_plot_makes_its_folder_as_its_help_says() {
    let help = stdout_of(pgntune().args(["weights", "plot", "--help"]));
    assert!(!help.contains("(it must exist)") && help.contains("made if it does not exist"), "{help}");
    let dir = tempfile::tempdir().unwrap();
    pgntune_in(dir.path()).args(["weights", "plot", "full", "figs"]).assert().success();
    assert!(dir.path().join("figs").is_dir());
}

const EPD: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 \"1-0\";\n\
r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - c9 \"0-1\";\n";

#[test]
fn m4_evaluate_names_bad_lines_takes_strict_and_a_bom_is_no_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "bad.epd", format!("{EPD}not a position\n"));
    let out = pgntune_in(d).args(["evaluate", "bad.epd", "--weights", "classical", "--epd-features", "material"]).assert().success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("bad.epd: line 3:"), "{stderr}");
    fails_untouched(d, pgntune_in(d).args(["evaluate", "bad.epd", "--weights", "classical", "--epd-features", "material", "--strict"]), "line 3");
    // A byte order mark before the first line: both positions are read.
    write(d, "bom.epd", format!("\u{feff}{EPD}"));
    let json = stdout_of(pgntune_in(d).args(["evaluate", "bom.epd", "--weights", "classical", "--epd-features", "material", "--json", "--strict"]));
    assert_eq!(serde_json::from_str::<serde_json::Value>(&json).unwrap()["positions"], 2);
    write(d, "bom.csv", "\u{feff}P,N,B,R,Q,result\n1,0,0,0,0,1\n-1,0,0,0,0,0\n");
    let json = stdout_of(pgntune_in(d).args(["fit", "bom.csv", "--k", "1", "--json", "-q"]));
    assert_eq!(serde_json::from_str::<serde_json::Value>(&json).unwrap()["train_positions"], 2);
}

#[test]
fn m5_no_nan_for_an_empty_holdout_or_draws_only() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "t.pgn", GAMES);
    pgntune_in(d).args(["extract", "t.pgn", "-q", "-o", "r.csv"]).assert().success();
    let message = fails_untouched(d, pgntune_in(d).args(["fit", "r.csv", "--k", "1", "--holdout", "1e-9"]), "no game is held out");
    assert!(!message.contains("NaN"), "{message}");
    write(d, "draws.csv", "P,N,B,R,Q,result\n1,0,0,0,0,0.5\n-1,0,0,0,0,0.5\n");
    let out = stdout_of(pgntune_in(d).args(["evaluate", "draws.csv", "--weights", "classical", "--epd-features", "material"]));
    assert!(!out.contains("NaN") && out.contains("accuracy  n/a (no decisive games)"), "{out}");
}

#[test]
fn m6_uci_hash_takes_the_advertised_range() {
    let session = |script: &str| -> String {
        let out = pgntune().arg("uci").write_stdin(script.to_string()).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap() + &String::from_utf8(out.get_output().stderr.clone()).unwrap()
    };
    for value in ["0", "-5", "4097"] {
        let out = session(&format!("uci\nsetoption name Hash value {value}\nisready\nquit\n"));
        assert!(out.contains(&format!("'{value}' is not a whole number from 1 to 4096")), "{value}: {out}");
    }
    let out = session("uci\nsetoption name Hash value 1\nisready\nquit\n");
    assert!(!out.contains("is not") && out.contains("readyok"), "{out}");
}

#[test]
fn m7_analyze_names_the_dataset_kinds_it_does_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "t.pgn", GAMES);
    for (format, kind) in [("svm", "a LIBSVM (.svm) dataset"), ("ijv", "a sparse triplet (.ijv) dataset"), ("epd", "an EPD dataset")] {
        let out = format!("r.{format}");
        pgntune_in(d).args(["extract", "t.pgn", "-q", "-o", &out]).assert().success();
        let message = fails_untouched(d, pgntune_in(d).args(["analyze", &out]), kind);
        assert!(message.contains("PGN files and .mat, .csv, .tsv or .parquet") && !message.contains("no PGN game"), "{message}");
    }
}
