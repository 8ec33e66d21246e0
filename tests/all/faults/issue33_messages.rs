//! Findings of issue 33 about options and messages: what was refused, said
//! or ignored wrongly. Each test is named after its finding.

use super::*;

#[test]
fn messages_1_analyze_imbalance_reads_a_folder_of_pgn_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("games")).unwrap();
    std::fs::copy(bundled_sample(), d.join("games/selfplay.pgn.zst")).unwrap();
    write(d, "games/notes.txt", "not a game");
    let args = ["analyze", "--imbalance", "-q", "--json", "--threads", "2"];
    let folder: serde_json::Value = serde_json::from_str(&stdout_of(pgntune_in(d).args(args).arg("games"))).unwrap();
    let file: serde_json::Value = serde_json::from_str(&stdout_of(pgntune_in(d).args(args).arg("games/selfplay.pgn.zst"))).unwrap();
    assert_eq!(folder["collections"][0]["rows"], file["collections"][0]["rows"]);
    assert_eq!(folder["collections"][0]["name"], "games");
    std::fs::create_dir(d.join("empty")).unwrap();
    fails_untouched(d, pgntune_in(d).args(["analyze", "--imbalance", "-q", "empty"]), "no PGN files in this folder");
}

#[test]
fn messages_8_merge_options_pair_range_and_eval_labels_are_not_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Merging plays nothing: the options of playing are refused.
    for extra in [&["--nodes", "500"][..], &["--tc", "10+0.1"], &["--openings", "x.epd"], &["--maxmoves", "40"], &["-j", "2"]] {
        fails_untouched(d, pgntune_in(d).args(["match", "--merge", "a.json", "b.json"]).args(extra), "cannot be used with");
    }
    // A pair range past the match's last pair.
    let mut cmd = pgntune_in(d);
    cmd.args(match_args(4)).args(["--shard", "0/1", "--pair-range", "5..10", "--pgn-out", "g.pgn"]);
    fails_untouched(d, &mut cmd, "--pair-range 5..: the match has 4 pairs");
    // TCEC Season 3's ev= is white's view, as wv= is; no label at all is said.
    let tcec = "[Event \"TCEC Season 3\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"0-1\"]\n\n\
1.Nf3 { ev=0.10, d=20, mt=00:00:10, tl=01:30:00, s=2000 kN/s, pv=Nf3, tb=0, R50=49,  } \
d5 { ev=-0.25, d=21, mt=00:00:10, tl=01:30:00, s=2000 kN/s, pv=d5, tb=0, R50=50,  } 0-1\n";
    write(d, "s3.pgn", tcec);
    let out = pgntune_in(d)
        .args(["extract", "s3.pgn", "-q", "--eval-labels", "--emit", "all", "--quiet-plies", "0", "-o", "s3.csv"])
        .assert()
        .success()
        .get_output()
        .clone();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let csv = std::fs::read_to_string(d.join("s3.csv")).unwrap();
    let evals: Vec<&str> = csv.lines().skip(1).map(|l| l.rsplit(',').next().unwrap()).collect();
    assert!(evals.contains(&"10") && evals.contains(&"-25"), "{csv}");
    write(d, "plain.pgn", GAMES);
    let out = pgntune_in(d).args(["extract", "plain.pgn", "-q", "--eval-labels", "-o", "plain.csv"]).assert().success().get_output().clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("pgntune: warning: --eval-labels: no row got a label") && stderr.lines().count() == 1, "{stderr}");
}

#[test]
fn option_semantics_odd_selfplay_verify_defaults_json_duplicates_and_gd_help() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fails_untouched(
        d,
        pgntune_in(d).args(["selfplay", "--games", "1", "--nodes", "100", "--out", "s.pgn"]),
        "--games 1: self-play plays games in pairs",
    );
    // Settings left out of verify's --sprt keep verify's own defaults (elo1 = 10).
    fails_untouched(d, pgntune_in(d).args(["verify", "classical", "--sprt", "elo0=12"]), "elo0 (12) must be less than elo1 (10)");
    let json =
        r#"{"format": 2, "name": "j", "features": ["material"], "scale": 1, "weights": {"P": 100, "N": 300, "B": 300, "R": 500, "Q": 900, "P": 50}}"#;
    write(d, "w.json", json);
    fails_untouched(d, pgntune_in(d).args(["weights", "show", "w.json"]), "the weight of 'P' is given twice");
    let help = stdout_of(pgntune().args(["fit", "--help"]));
    assert!(help.contains("lbfgs, newton and gd stop on --tol") && !help.contains("the number of steps"), "{help}");
}

#[test]
fn contradictory_or_empty_read_options_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "g.pgn", GAMES);
    for (extra, needle) in [
        (&["--reset-on", "none,capture"][..], "'none' contradicts 'capture'"),
        (&["--tags", ""], "--tags names no tag"),
        (&["--skip-plies", "10", "--max-plies", "5"], "--max-plies 5 is not above --skip-plies 10"),
        (&["--positions", "plies", "--qsearch-weights", "classical"], "--qsearch-weights is for --positions qsearch"),
        (&["--features", "material,material"], "--features: 'material' is named twice"),
        (&["--features", "full,pst"], "--features: 'pst' is named twice"),
    ] {
        fails_untouched(d, pgntune_in(d).args(["extract", "g.pgn", "-q", "-o", "rows.csv"]).args(extra), needle);
    }
}

#[test]
fn messages_features_one_parenthesis_and_standard_output_named() {
    let text = stdout_of(pgntune().arg("features"));
    assert!(!text.contains(") (untapered)"), "{text}");
    assert!(text.contains("(the 2015 article; untapered)"), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = pgntune_in(d).args(["selfplay", "--games", "2", "--nodes", "200", "-j", "1", "--out", "-"]).assert().success().get_output().clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("2 games written to standard output"), "{stderr}");
}

#[test]
fn mismatched_counts_stats_wdl_and_penta_must_be_the_same_games() {
    // 4 pairs are 8 games, not 10.
    fails(pgntune().args(["stats", "--wdl", "5", "3", "2", "--penta", "0", "1", "2", "1", "0"]), "10 games against 8 in the pairs");
    // 8 games, but 4.5 points against the pairs' 4.
    fails(pgntune().args(["stats", "--wdl", "3", "3", "2", "--penta", "0", "1", "2", "1", "0"]), "a score of 4.5 against 4 in the pairs");
    // The same games: W 2 D 4 L 2 from LD, DD, DD, WD (scores ½, 1, 1, 1½).
    pgntune().args(["stats", "--wdl", "2", "4", "2", "--penta", "0", "1", "2", "1", "0"]).assert().success();
}

#[test]
fn mismatched_counts_fit_holdout_over_mixed_inputs_counts_games_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "g.pgn", GAMES.repeat(30));
    pgntune_in(d).args(["extract", "g.pgn", "-q", "-o", "rows.csv"]).assert().success();
    // pgnlearn's .mat: material rows and a result code, no game ids.
    let mat: String = (0..40).map(|i| format!("{} 0 0 0 0 {}\n", if i % 2 == 0 { 1 } else { -1 }, if i % 2 == 0 { 2 } else { 0 })).collect();
    write(d, "x.mat", mat);
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(pgntune_in(d).args(["fit", "rows.csv", "x.mat", "-q", "--holdout", "0.3", "--json"]))).unwrap();
    let games = json["games"].as_u64().unwrap();
    let h = &json["holdout"];
    assert_eq!(h["games"][0].as_u64().unwrap() + h["games"][1].as_u64().unwrap(), games, "{h}");
    assert_eq!(h["loose_rows"][0].as_u64().unwrap() + h["loose_rows"][1].as_u64().unwrap(), 40, "{h}");
    assert!(json["warnings"].to_string().contains("40 rows have no game id"), "{}", json["warnings"]);
}

#[test]
fn messages_huge_numbers_are_shown_with_an_exponent() {
    for (sprt, shown) in [("elo0=0 elo1=1e300", "Elo bound 1e300"), ("alpha=1e300", "alpha (1e300)"), ("elo0=1e-300 elo1=5e-301", "elo0 (1e-300)")] {
        let line = fails(pgntune().args(["stats", "--wdl", "5", "3", "2", "--sprt", sprt]), shown);
        assert!(line.len() < 200, "{line}");
    }
}
