//! Findings of issue 33 about datasets read back (S1, S3, S6, S7), each
//! test named after its finding.

use super::*;

/// The imbalance analysis of `inputs` as JSON, its first collection.
fn imbalance_json(inputs: &[&Path]) -> serde_json::Value {
    let text = stdout_of(pgntune().args(["analyze", "--imbalance", "-q", "--json", "--threads", "2"]).args(inputs));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["collections"][0].clone()
}

#[test]
fn s1_imbalance_of_a_dataset_equals_the_imbalance_of_its_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pgn = bundled_sample();
    let want = imbalance_json(&[&pgn]);
    for name in ["rows.csv", "rows.parquet"] {
        let out = d.join(name);
        pgntune().arg("extract").arg(&pgn).args(["-q", "--features", "material_tapered,bishop_pair,imbalance", "-o"]).arg(&out).assert().success();
        let got = imbalance_json(&[&out]);
        for key in ["rows", "mean_phase", "k"] {
            let (a, b) = (got[key].as_f64().unwrap(), want[key].as_f64().unwrap());
            assert!((a - b).abs() <= 1e-6 * b.abs(), "{name}: {key} {a} against the PGN's {b}");
        }
        let pair = |j: &serde_json::Value| {
            j["effects"].as_array().unwrap().iter().find(|e| e["key"] == "bishop_pair_endgame").unwrap()["estimate"]["value"].as_f64().unwrap()
        };
        assert!((pair(&got) - pair(&want)).abs() < 1e-3 * pair(&want).abs().max(1.0), "{name}: bishop pair {} against {}", pair(&got), pair(&want));
    }
    // A file that does not store the phase is refused, saying what to extract.
    let csv = std::fs::read_to_string(d.join("rows.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let phase = header.iter().position(|&h| h == "phase").expect("a phase column");
    let stripped: String = csv
        .lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split(',').collect();
            f.remove(phase);
            f.join(",") + "\n"
        })
        .collect();
    write(d, "old.csv", stripped);
    fails(pgntune_in(d).args(["analyze", "--imbalance", "-q", "old.csv"]), "extract it again");
}

#[test]
fn s3_holdout_without_game_ids_warns_and_bad_game_ids_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pgn = write(d, "g.pgn", GAMES.repeat(20));
    for name in ["rows.csv", "rows.epd"] {
        pgntune_in(d).args(["extract", "g.pgn", "-q", "--features", "material_tapered,pst", "-o", name]).assert().success();
    }
    let fit = |name: &str| stdout_of(pgntune_in(d).args(["fit", name, "-q", "--holdout", "0.3", "--json"]));
    let json: serde_json::Value = serde_json::from_str(&fit("rows.csv")).unwrap();
    assert_eq!(json["warnings"], serde_json::json!([]), "{json}");
    let json: serde_json::Value = serde_json::from_str(&fit("rows.epd")).unwrap();
    assert!(json["warnings"][0].as_str().unwrap().contains("split positions, not games"), "{json}");
    let text = stdout_of(pgntune_in(d).args(["fit", "rows.epd", "-q", "--holdout", "0.3"]));
    assert!(text.contains("warning: the input has no game ids"), "{text}");
    // A negative or fractional game id is refused with its line.
    let csv = std::fs::read_to_string(d.join("rows.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let game = header.iter().position(|&h| h == "game").unwrap();
    for (bad, name) in [("-1", "neg.csv"), ("2.5", "frac.csv")] {
        let edited: String = csv
            .lines()
            .enumerate()
            .map(|(n, l)| {
                let mut f: Vec<&str> = l.split(',').collect();
                if n == 3 {
                    f[game] = bad;
                }
                f.join(",") + "\n"
            })
            .collect();
        write(d, name, edited);
        fails_untouched(
            d,
            pgntune_in(d).args(["fit", name, "-q", "--holdout", "0.3"]),
            &format!("{name}: line 4: game id {bad} is not a whole number"),
        );
    }
    drop(pgn);
}

#[test]
fn s4_weight_sets_the_dataset_lacks_are_named_in_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "g.pgn", GAMES.repeat(20));
    pgntune_in(d).args(["extract", "g.pgn", "-q", "-o", "rows.csv"]).assert().success();
    let weights = |default: u32| {
        format!(
            "format = 2\nname = \"w\"\nfeatures = [\"material\", \"imbalance\"]\nscale = 1\ndefault = {default}\n\n[weights]\nP = 100\nN = 300\nB = 300\nR = 500\nQ = 900\n"
        )
    };
    write(d, "with.toml", weights(50));
    write(d, "without.toml", weights(0));
    // The tuner's own warnings about implausible weights (a tiny fit) are not this finding's.
    let stderr = |args: &[&str]| {
        let text = String::from_utf8(pgntune_in(d).args(args).assert().success().get_output().stderr.clone()).unwrap();
        text.lines().filter(|l| !l.contains("may play badly") && !l.starts_with("pgntune: warning:   ")).map(|l| format!("{l}\n")).collect::<String>()
    };
    for (option, command) in [("--weights", &["evaluate", "rows.csv", "--weights"][..]), ("--prior", &["fit", "rows.csv", "-q", "--prior"])] {
        let warned = stderr(&[command, &["with.toml"]].concat());
        assert_eq!(warned.lines().count(), 1, "{warned}");
        assert!(warned.starts_with(&format!("pgntune: warning: {option}: ")) && warned.contains("'imbalance'"), "{warned}");
        assert_eq!(stderr(&[command, &["without.toml"]].concat()), "", "{option}: all-zero sets are no loss");
    }
}

#[test]
fn s5_format_1_weights_follow_one_rule_and_the_limit_is_on_the_played_value() {
    use pgntune::weights::Weights;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let load = |body: &str| {
        let path = write(d, "w.toml", format!("format = 1\nfeatures = [\"material\", \"tempo\"]\nscale = 1\n{body}"));
        Weights::load(&path).map_err(|e| e.to_string())
    };
    let w = load("default = 10\n[weights]\nP = 100\nN = 300\nB = 300\nR = 500\nQ = 900\nmg_tempo = 10\n").unwrap();
    // A tapered column counts 24 times whether listed or the default; material as it is.
    assert_eq!((w.centipawns("mg_tempo"), w.centipawns("eg_tempo"), w.centipawns("N")), (240.0, 240.0, 300.0));
    let err = load("[weights]\nP = 100\nN = 300\nB = 300\nR = 500\nQ = 900\nmg_tempo = 9000\neg_tempo = 0\n").unwrap_err();
    assert!(err.contains("'mg_tempo'") && err.contains("at most ±10000") && err.contains("format 1"), "{err}");
    // The guide's example is read as it says.
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/fit-and-tune.md")).unwrap();
    let example = readme.split("```toml\n").nth(1).unwrap().split("```").next().unwrap();
    let w = Weights::load(&write(d, "readme.toml", example)).unwrap();
    assert_eq!(w.format, 2);
    assert_eq!(w.centipawn_vector(&pgntune::features::FeatureLayout::default()), [100.0, 300.0, 300.0, 500.0, 900.0]);
}

#[test]
fn s6_csv_columns_that_are_no_features_and_duplicate_headers_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows = "1,0,0,0,0,0,1\n-1,0,0,0,0,0,0\n0,1,0,0,0,0,1\n0,-1,0,0,0,0,0\n";
    for (header, name, needle) in [
        ("P,N,B,R,Q,foo,result", "foo.csv", "column 'foo' before 'result' is not a column of any feature set"),
        ("P,N,B,R,Q,Q,result", "dup.csv", "the header names column 'Q' twice"),
        ("P,N,B,R,Q,wins,result", "wins.csv", "'wins' is before 'result'"),
    ] {
        write(d, name, format!("{header}\n{rows}"));
        fails_untouched(d, pgntune_in(d).args(["fit", name, "-q"]), &format!("{name}: {needle}"));
    }
    write(d, "counts.csv", "P,N,B,R,Q,wins,draws,losses,result\n1,0,0,0,0,3,1,1,1\n");
    fails_untouched(d, pgntune_in(d).args(["fit", "counts.csv", "-q"]), "'wins' is before 'result'");
    // Another program's feature names are still the classic fitter's.
    write(d, "other.csv", "a,b,result\n1,0,1\n-1,0,0\n0,1,1\n0,-1,0\n1,1,1\n-1,-1,0\n1,0,0\n0,1,0\n");
    pgntune_in(d).args(["fit", "other.csv", "-q"]).assert().success();
}

#[test]
fn s7_svm_columns_line_is_checked_against_the_layout() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "g.pgn", GAMES.repeat(20));
    pgntune_in(d).args(["extract", "g.pgn", "-q", "-o", "rows.svm"]).assert().success();
    let text = std::fs::read_to_string(d.join("rows.svm")).unwrap();
    assert!(text.contains("# layout: material\n# columns: P N B R Q\n"), "{text}");
    pgntune_in(d).args(["evaluate", "rows.svm", "--weights", "classical"]).assert().success();
    for (edited, name, needle) in [
        (
            text.replace("# layout: material", "# layout: material_tapered"),
            "layout.svm",
            "the '# columns:' line names 5 columns, the layout 'material_tapered' has 10",
        ),
        (text.replace("# columns: P N B R Q", "# columns: N P B R Q"), "order.svm", "column 1 is 'N' on the '# columns:' line, but 'P'"),
        (text.replace("# columns: P N B R Q", "# columns: P N B R Q K"), "extra.svm", "the '# columns:' line names 6 columns"),
    ] {
        write(d, name, edited);
        fails_untouched(d, pgntune_in(d).args(["evaluate", name, "--weights", "classical"]), &format!("{name}: line 3: {needle}"));
    }
}
