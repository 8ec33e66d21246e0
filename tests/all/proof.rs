//! The proof machinery from tuning to verdict: weights tuned on the bundled
//! sample beat a deliberately broken copy (knights worth nothing) by SPRT,
//! and tune → verify at fixed nodes gives the same weights, the same games
//! and the same numbers for any thread count.

use crate::common::*;
use crate::faults::pgntune_in;

/// The verify report without its clock readings.
fn without_timing(json: &[u8]) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(json).unwrap();
    v.as_object_mut().unwrap().remove("timing");
    v
}

#[test]
fn tuned_weights_beat_broken_ones_and_tune_then_verify_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut reports = Vec::new();
    for threads in ["1", "2"] {
        // One folder per run: the weights are named after their file, and
        // the names are in the PGNs compared below.
        std::fs::create_dir(d.join(threads)).unwrap();
        let tuned = format!("{threads}/tuned.toml");
        pgntune_in(d)
            .arg("tune")
            .arg(bundled_sample())
            .args(["-q", "--features", "full", "--quiet", "plies", "--sample", "20", "--iters", "20", "-j", threads, "--weights-out", &tuned])
            .assert()
            .success();
        if threads == "1" {
            let text = std::fs::read_to_string(d.join(&tuned)).unwrap();
            let mut zeroed = 0;
            let broken: String = text
                .lines()
                .map(|l| match l.split(" = ").next() {
                    Some("mg_N" | "eg_N") => {
                        zeroed += 1;
                        format!("{} = 0.0\n", l.split(" = ").next().unwrap())
                    }
                    Some("name") => "name = \"broken\"\n".to_string(),
                    _ => format!("{l}\n"),
                })
                .collect();
            assert_eq!(zeroed, 2, "the knight's two values");
            std::fs::write(d.join("broken.toml"), broken).unwrap();
        }
        let pgn = format!("verify{threads}.pgn");
        let out = pgntune_in(d)
            .args(["verify", &tuned, "--baseline", "broken.toml", "--nodes", "300", "--json", "-q", "-j", threads, "--pgn-out", &pgn])
            .assert()
            .code(0)
            .get_output()
            .stdout
            .clone();
        let report = without_timing(&out);
        assert_eq!(report["verdict"]["outcome"], "accepted_h1", "{report}");
        assert!(report["verdict"]["estimate"]["elo"].as_f64().unwrap() > 100.0, "{report}");
        reports.push((std::fs::read(d.join(&tuned)).unwrap(), std::fs::read(d.join(&pgn)).unwrap(), report));
    }
    assert_eq!(reports[0].0, reports[1].0, "tuned weights differ between -j 1 and -j 2");
    assert_eq!(reports[0].1, reports[1].1, "verify PGNs differ between -j 1 and -j 2");
    let strip_paths = |mut v: serde_json::Value| {
        for key in ["pgn_out", "state"] {
            v.as_object_mut().unwrap().remove(key);
        }
        v
    };
    assert_eq!(strip_paths(reports[0].2.clone()), strip_paths(reports[1].2.clone()));
}
