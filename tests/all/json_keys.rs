//! The keys of every `--json` report, in the order printed (issue 34).
//! Scripts read these reports by key, and the reports are structs whose
//! field order is the key order: renaming, dropping or moving a field
//! changes what scripts see, so each object's keys are pinned here as the
//! command line prints them.

use std::path::Path;

use serde_json::Value;

use crate::common::*;

/// The keys of `value`, which must be an object, in the order printed.
fn keys(value: &Value) -> Vec<&str> {
    value.as_object().unwrap_or_else(|| panic!("not an object: {value}")).keys().map(String::as_str).collect()
}

fn json_of(cmd: &mut assert_cmd::Command) -> Value {
    serde_json::from_str(&stdout_of(cmd)).expect("one JSON object")
}

fn pgntune_in(dir: &Path) -> assert_cmd::Command {
    let mut cmd = pgntune();
    cmd.current_dir(dir);
    cmd
}

const ESTIMATE: [&str; 9] = ["samples", "score", "score_ci95", "elo", "elo_ci95", "elo_interval", "nelo", "nelo_ci95", "los"];
const SPRT: [&str; 9] = ["elo0", "elo1", "alpha", "beta", "model", "llr", "lower_bound", "upper_bound", "decision"];
const WDL: [&str; 3] = ["wins", "draws", "losses"];
const PENTA: [&str; 5] = ["LL", "LD", "DD+WL", "WD", "WW"];

/// Without serde_json's `preserve_order` (which the library turns on) a
/// parsed object's keys come back sorted, and the order checks below
/// would test the parser instead of the reports.
#[test]
fn parsed_objects_keep_their_key_order() {
    let parsed: Value = serde_json::from_str(r#"{"b": 1, "a": 2}"#).unwrap();
    assert_eq!(keys(&parsed), ["b", "a"]);
}

#[test]
fn stats_json_keys() {
    let json = json_of(pgntune().args(["stats", "--wdl", "5", "2", "3", "--penta", "0", "0", "3", "2", "0", "--sprt", "elo0=0 elo1=5", "--json"]));
    assert_eq!(keys(&json), ["games", "pairs", "trinomial", "pentanomial", "sprt"]);
    assert_eq!(keys(&json["games"]), WDL);
    assert_eq!(keys(&json["pairs"]), PENTA);
    assert_eq!(keys(&json["trinomial"]), ESTIMATE);
    assert_eq!(keys(&json["pentanomial"]), ESTIMATE);
    assert_eq!(keys(&json["sprt"]), [&SPRT[..], &["llr_approx"]].concat());
    let all_won = json_of(pgntune().args(["stats", "--wdl", "5", "0", "0", "--json"]));
    assert_eq!(keys(&all_won["trinomial"]), ["degenerate"]);
    assert!(all_won["pairs"].is_null() && all_won["sprt"].is_null(), "{all_won}");
}

/// The keys a dense fit always prints, with `optional` in their places.
fn fit_keys(optional: &[&str]) -> Vec<String> {
    let all = [
        "games",
        "rows",
        "rows_used",
        "distinct_rows",
        "results",
        "draws",
        "loss_function",
        "lambda",
        "solver",
        "iterations",
        "converged",
        "gradient_norm",
        "loss",
        "theta",
        "stderr",
        "intercept",
        "reference",
        "values",
        "values_ci95",
        "draw_band",
        "dispersion",
        "separable",
        "checks",
        "bootstrap",
        "holdout",
        "warnings",
        "seconds",
    ];
    let optional_keys = ["intercept", "values", "values_ci95", "draw_band", "dispersion", "bootstrap", "holdout"];
    all.iter().filter(|k| !optional_keys.contains(k) || optional.contains(k)).map(|k| k.to_string()).collect()
}

#[test]
fn fit_json_keys() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    pgntune_in(d).arg("extract").arg(bundled_sample()).args(["-q", "-o", "rows.csv"]).assert().success();
    let half = json_of(pgntune_in(d).args(["fit", "rows.csv", "-q", "--bootstrap", "4", "--holdout", "0.2", "--seed", "1", "--json"]));
    assert_eq!(keys(&half), fit_keys(&["values", "values_ci95", "dispersion", "bootstrap", "holdout"]));
    assert_eq!(keys(&half["results"]), ["white_wins", "draws", "black_wins"]);
    for by_column in ["theta", "stderr", "values", "values_ci95"] {
        assert_eq!(keys(&half[by_column]), ["P", "N", "B", "R", "Q"], "{by_column}");
    }
    assert_eq!(keys(&half["checks"][0]), ["rule", "left", "right", "holds"]);
    assert_eq!(keys(&half["bootstrap"]), ["replicates", "requested", "seed", "by_game", "theta_ci95", "values_ci95"]);
    assert_eq!(keys(&half["holdout"]), ["fraction", "seed", "games", "loose_rows", "by_game", "train", "test", "converged"]);
    assert_eq!(keys(&half["holdout"]["test"]), ["rows", "log_loss", "accuracy"]);
    let ordinal = json_of(pgntune_in(d).args(["fit", "rows.csv", "-q", "--draws", "ordinal", "--intercept", "--json"]));
    assert_eq!(keys(&ordinal), fit_keys(&["intercept", "values", "values_ci95", "draw_band"]));
    assert_eq!(keys(&ordinal["intercept"]), ["value", "stderr"]);
    assert_eq!(keys(&ordinal["draw_band"]), ["half_width", "width", "width_stderr", "width_centipawns"]);
    // `tune` of material prints the same report.
    let tuned = json_of(pgntune().arg("tune").arg(bundled_sample()).args(["-q", "--draws", "exclude", "--json"]));
    assert_eq!(keys(&tuned), fit_keys(&["values", "values_ci95"]));
}

#[test]
fn whole_evaluation_tuner_json_keys() {
    let json = json_of(pgntune().arg("tune").arg(bundled_sample()).args([
        "-q",
        "--features",
        "material_tapered,tempo",
        "--iters",
        "5",
        "--holdout",
        "0.2",
        "-j",
        "2",
        "--json",
    ]));
    assert_eq!(
        keys(&json),
        [
            "features",
            "k",
            "k_fitted",
            "label_k",
            "label_k_fitted",
            "label_k_own",
            "label_agreement",
            "loss",
            "solver",
            "iterations",
            "passes",
            "stopped",
            "seconds",
            "train_positions",
            "holdout_positions",
            "train_games",
            "labelled_positions",
            "start_loss",
            "train_loss",
            "start_holdout_loss",
            "holdout_loss",
            "dispersion",
            "held",
            "not_identified",
            "memory_bytes",
            "warnings",
            "columns",
        ]
    );
    assert_eq!(keys(&json["columns"][0]), ["name", "value", "start", "prior", "stderr", "status"]);
}

#[test]
fn analyze_json_keys() {
    let json = json_of(pgntune().arg("analyze").arg(bundled_sample()).args(["-q", "--group-by", "event", "--min-decisive", "10", "--json"]));
    assert_eq!(keys(&json), ["score_curve", "fit", "groups"]);
    assert_eq!(keys(&json["score_curve"]), ["scale", "points", "alpha", "alpha_ci95", "alpha_decisive"]);
    assert_eq!(keys(&json["fit"]), fit_keys(&["values", "values_ci95", "dispersion"]));
    assert_eq!(keys(&json["groups"]), ["title", "groups"]);
    let group = &json["groups"]["groups"][0];
    assert_eq!(keys(group), ["name", "games", "decisive_games", "rows", "fit", "note", "z"]);
    assert_eq!(keys(&group["fit"]), fit_keys(&["values", "values_ci95", "dispersion"]));
}

/// The keys of a match report, before `verify`'s `verdict`.
const MATCH: [&str; 7] = ["kind", "games", "stopped", "results", "pgn_out", "state", "timing"];

#[test]
fn match_and_verify_json_keys() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let limits = ["-q", "-j", "1", "--nodes", "300", "--json"];
    let played = json_of(
        pgntune_in(d)
            .args(["match", "--pairs", "1", "--sprt", "elo0=0 elo1=5", "--engine", "name=a weights=classical", "--engine", "name=b weights=flat"])
            .args(["--pgn-out", "match.pgn"])
            .args(limits),
    );
    assert_eq!(keys(&played), MATCH);
    assert_eq!(keys(&played["stopped"]), ["kind"]);
    assert_eq!(keys(&played["timing"]), ["games", "wall_seconds", "engine_seconds", "nodes"]);
    let result = &played["results"][0];
    assert_eq!(keys(result), ["engine", "opponent", "games", "pairs", "trinomial", "pentanomial", "sprt"]);
    assert_eq!(keys(&result["games"]), WDL);
    assert_eq!(keys(&result["pairs"]), PENTA);
    assert_eq!(keys(&result["sprt"]), SPRT);
    for estimate in ["trinomial", "pentanomial"] {
        let estimate = &result[estimate];
        assert!(keys(estimate) == ESTIMATE || keys(estimate) == ["degenerate"], "{estimate}");
    }
    // One pair cannot decide the SPRT: exit code 3, undecided.
    let verify = pgntune_in(d)
        .args(["verify", "full", "--baseline", "classical", "--max-pairs", "1", "--pgn-out", "verify.pgn"])
        .args(limits)
        .assert()
        .code(3);
    let verified: Value = serde_json::from_slice(&verify.get_output().stdout).expect("one JSON object");
    assert_eq!(keys(&verified), [&MATCH[..], &["verdict"]].concat());
    assert_eq!(keys(&verified["verdict"]), ["outcome", "exit_code", "estimate", "basis", "text"]);
}

#[test]
fn weights_emit_json_keys() {
    let classical = json_of(pgntune().args(["weights", "emit", "--lang", "json", "classical"]));
    assert_eq!(keys(&classical), ["material", "comment"]);
    assert_eq!(keys(&classical["material"]), ["P", "N", "B", "R", "Q"]);
    // An engine's own terms, in the order its weights file declares them.
    let dir = tempfile::tempdir().unwrap();
    let own = "format = 2\nname = \"own\"\nfeatures = [\"trace\", \"tempo single\", \"pawn tapered\"]\nscale = 1.0\n\n\
               [weights]\neg_pawn = 90.0\nmg_pawn = 80.0\ntempo = 10.0\n";
    std::fs::write(dir.path().join("own.toml"), own).unwrap();
    let custom = json_of(pgntune_in(dir.path()).args(["weights", "emit", "--lang", "json", "own.toml"]));
    assert_eq!(keys(&custom), ["comment", "terms"]);
    assert_eq!(keys(&custom["terms"]), ["tempo", "pawn"]);
    assert_eq!(custom["terms"]["pawn"], serde_json::json!([80, 90]));
    assert_eq!(custom["terms"]["tempo"], 10);
}
