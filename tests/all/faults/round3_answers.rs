//! Issue 33: silent wrong answers (S2, S8, S9 and the smaller ones), one
//! test per finding, named after its id.

use std::path::Path;

use super::*;

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
