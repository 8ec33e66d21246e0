//! Items 8–16 of the fault audit: runs that answered wrongly with exit code 0.

use std::io::Write;
use std::path::Path;

use super::*;

/// Extracts the bundled sample into `dir/name`.
fn bundled_rows(dir: &Path, name: &str) -> std::path::PathBuf {
    let out = dir.join(name);
    pgntune().arg("extract").arg(bundled_sample()).arg("-q").arg("-o").arg(&out).assert().success();
    out
}

#[test]
fn fault_08_analyze_counts_the_games_of_datasets() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (csv, parquet) = (bundled_rows(d, "engine.csv"), bundled_rows(d, "human.parquet"));
    let fit: serde_json::Value = serde_json::from_str(&stdout_of(pgntune().arg("fit").arg(&csv).arg("--json"))).unwrap();
    let games = fit["games"].as_u64().unwrap();
    assert_eq!(games, 2000);
    for extra in [vec!["--compare"], vec!["--group-by", "player"]] {
        let out = stdout_of(pgntune().arg("analyze").arg(&parquet).arg(&csv).args(["-q", "--min-decisive", "100"]).args(&extra));
        for group in ["human", "engine"] {
            let line = out.lines().find(|l| l.starts_with(group)).unwrap_or_else(|| panic!("no {group} line:\n{out}"));
            let counts: Vec<&str> = line.split_whitespace().take(3).collect();
            assert_eq!(counts[1], games.to_string(), "{extra:?}: {line}");
            assert_ne!(counts[2], "0", "{extra:?}: {line}");
        }
        assert!(!out.contains("too few decisive games"), "{out}");
    }
}

#[test]
fn fault_09_analyze_json_weights_out_and_trace_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let csv = bundled_rows(d, "rows.csv");
    let (weights, trace) = (d.join("w.toml"), d.join("t.csv"));
    let out = stdout_of(pgntune().arg("analyze").arg(&csv).args(["-q", "--json", "--weights-out"]).arg(&weights).arg("--trace").arg(&trace));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(json["score_curve"]["points"].as_array().is_some_and(|p| p.len() > 5), "{json}");
    assert_eq!(json["fit"]["games"].as_u64(), Some(2000));
    let w = pgntune::weights::Weights::load(&weights).unwrap();
    for column in ["N", "B", "R", "Q"] {
        assert!((w.centipawns(column) - json["fit"]["values"][column].as_f64().unwrap()).abs() < 1e-9, "{column}");
    }
    let trace = std::fs::read_to_string(&trace).unwrap();
    assert!(trace.starts_with("iteration,P,N,B,R,Q,loss\n"), "{trace}");
    assert_eq!(trace.lines().count() as u64, json["fit"]["iterations"].as_u64().unwrap() + 2);
    // Every option analyze lists is used: the gd trajectory follows --print-every.
    let text = stdout_of(pgntune().arg("analyze").arg(&csv).args(["-q", "--solver", "gd", "--iters", "40", "--print-every", "20"]));
    let iterations: Vec<&str> = text.lines().filter(|l| l.starts_with("Iter ")).map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(iterations, ["Iter 0", "Iter 20", "Iter 40"], "{text}");
}

#[test]
fn fault_10_pgn_openings_are_limited_and_finished_games_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let long = "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 *\n\n";
    let path = write(d, "long.pgn", long);
    let suite = pgntune::play::openings::load(&path, 16).unwrap();
    assert_eq!(suite[0].moves.len(), 16, "a PGN suite plays at most --opening-plies plies");
    assert_eq!(pgntune::play::openings::load(&path, 6).unwrap()[0].moves.len(), 6);
    let mate = write(d, "mate.pgn", format!("{long}[Event \"y\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n"));
    let args = |suite: &str| {
        let mut cmd = pgntune_in(d);
        cmd.args(match_args(1)).args(["--openings", suite]);
        cmd
    };
    fails_untouched(d, &mut args("mate.pgn"), "game 2: the game is over after it (checkmate)");
    args("mate.pgn").args(["--opening-plies", "3"]).assert().success();
    write(d, "random.bin", noise(4000, 7));
    fails_untouched(d, &mut args("random.bin"), "random.bin: the file: no PGN game in it");
    write(d, "over.epd", "7k/6Q1/6K1/8/8/8/8/8 b - -\n");
    fails_untouched(d, &mut args("over.epd"), "position 1: the game is over after it (checkmate)");
    assert!(mate.exists());
}

#[test]
fn fault_11_partial_or_absurd_weights_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = |name: &str, body: &str| write(d, name, format!("format = 1\nfeatures = [\"material\"]\nscale = 1.0\n{body}"));
    file("p_only.toml", "[weights]\nP = 100\n");
    file("huge.toml", "[weights]\nP = 1e300\nN = 300\nB = 300\nR = 500\nQ = 900\n");
    file("negative.toml", "[weights]\nP = 100\nN = -300\nB = 300\nR = 500\nQ = 900\n");
    file("defaulted.toml", "default = 320\n[weights]\nP = 100\nQ = 950\n");
    let fen = "4k3/8/8/8/8/8/8/1N2K3 w - - 0 1";
    for (name, needle) in [("p_only.toml", "no weight for column 'N'"), ("huge.toml", "'P' = 1e300"), ("negative.toml", "'N' = -300")] {
        fails_untouched(d, pgntune_in(d).args(["eval", fen, "-w", name]), needle);
        let spec = format!("name=x weights={name}");
        fails_untouched(
            d,
            pgntune_in(d).args(["match", "--engine", &spec, "--engine", "name=y weights=classical", "--pairs", "1", "--nodes", "100"]),
            needle,
        );
        fails_untouched(d, pgntune_in(d).args(["uci", "-w", name]), needle);
    }
    let out = stdout_of(pgntune_in(d).args(["eval", fen, "-w", "defaulted.toml"]));
    assert!(out.lines().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["N", "1", "320.00"]), "the default weighs the knight:\n{out}");
}

#[test]
fn fault_12_edited_state_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    pgntune_in(d).args(match_args(2)).args(["--pgn-out", "m.pgn"]).assert().success();
    let state = d.join("m.pgn.state.json");
    roll_back(&state, 2);
    let original: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    // The one complete pair, moved to another score: the pairs no longer add up to the games.
    let bucket = original["totals"][0]["penta"].as_array().unwrap().iter().position(|n| n == 1).unwrap();
    let mut moved = serde_json::json!([0, 0, 0, 0, 0]);
    moved[(bucket + 1) % 5] = 1.into();
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let edits: Vec<(&str, Edit, &str)> = vec![
        ("wins", Box::new(|s| s["totals"][0]["wdl"]["wins"] = 99.into()), "games recorded against kaissa"),
        ("committed", Box::new(|s| s["committed"] = 4000.into()), "4000 games committed"),
        ("pairs", Box::new(|s| s["totals"][0]["penta"] = serde_json::json!([0, 0, 0, 0, 7])), "game pairs recorded against kaissa"),
        ("points", Box::new(move |s| s["totals"][0]["penta"] = moved.clone()), "do not add up"),
        ("finished", Box::new(|s| s["stopped"] = serde_json::json!({"kind": "all_games_played"})), "marked finished after 2 of 4"),
        ("engines", Box::new(|s| s["config"]["engines"] = serde_json::json!([])), "a match needs at least two"),
        ("totals", Box::new(|s| s["totals"] = serde_json::json!([])), "0 totals for 1 opponents"),
        (
            "suite",
            Box::new(|s| s["config"]["openings"] = serde_json::json!({"suite": {"source": "x.epd", "openings": [], "shuffled": false}})),
            "no openings found",
        ),
        ("weights", Box::new(|s| s["config"]["engines"][0]["kind"]["bundled"]["weights"]["weights"]["N"] = (-5.0).into()), "must be positive"),
        ("hash", Box::new(|s| s["config"]["engines"][0]["kind"]["bundled"]["hash_mb"] = 999_999_999u64.into()), "1 to 4096 MB"),
        ("sprt", Box::new(|s| s["config"]["sprt"] = "elo0=5 elo1=1".into()), "SPRT 'elo0=5 elo1=1'"),
        ("nodes", Box::new(|s| s["config"]["limits"]["nodes"] = 0.into()), "limit of 0"),
        ("format", Box::new(|s| s["format"] = 2.into()), "format 2 (this build reads 4)"),
        ("type", Box::new(|s| s["committed"] = "two".into()), "not a pgntune match state"),
    ];
    for (what, edit, needle) in edits {
        let mut edited = original.clone();
        edit(&mut edited);
        std::fs::write(&state, serde_json::to_string(&edited).unwrap()).unwrap();
        let message = fails_untouched(d, pgntune_in(d).args(["match", "-q", "--resume", "m.pgn.state.json"]), needle);
        assert!(message.contains("m.pgn.state.json"), "{what}: {message}");
    }
    std::fs::write(&state, serde_json::to_string(&original).unwrap()).unwrap();
    let out = stdout_of(pgntune_in(d).args(["match", "-q", "--resume", "m.pgn.state.json"]));
    assert!(out.contains("Games 4") && out.contains("Pairs 2"), "{out}");
}

fn play(fen: &str) -> String {
    stdout_of(pgntune().args(["play", "--nodes", "3000", "--fen", fen]))
}

#[test]
fn fault_13_a_start_position_already_over_plays_no_move() {
    let dead = play("8/8/4k3/8/8/3K4/8/8 w - - 0 1");
    assert!(dead.contains("[PlyCount \"0\"]") && dead.contains("{Draw by dead position (insufficient material)} 1/2-1/2"), "{dead}");
    let fifty = play("6k1/5ppp/8/8/8/8/8/R5K1 w - - 100 80");
    assert!(fifty.contains("[PlyCount \"0\"]") && fifty.contains("{Draw by the 50-move rule} 1/2-1/2"), "{fifty}");
    let automatic =
        stdout_of(pgntune().args(["play", "--nodes", "3000", "--draw-rules", "automatic", "--fen", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 100 80"]));
    assert!(automatic.contains("Ra8#") && automatic.contains("1-0"), "without claims the mate is played: {automatic}");
}

/// The `[FEN]` tags of a short match's games from suite `suite`.
fn fen_tags(dir: &Path, suite: &str) -> Vec<String> {
    let pgn = stdout_of(pgntune_in(dir).args(match_args(1)).args(["--openings", suite, "--pgn-out", "-"]));
    pgn.lines().filter(|l| l.starts_with("[FEN ") || l.starts_with("[Variant ")).map(String::from).collect()
}

#[test]
fn fault_14_epd_move_counters_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "full.epd", "r7/8/3k4/8/8/3K4/8/7R w - - 30 60\n");
    write(d, "ops.epd", "r7/8/3k4/8/8/3K4/8/7R w - - hmvc 30; fmvn 60; id \"rooks\";\n");
    for suite in ["full.epd", "ops.epd"] {
        assert_eq!(fen_tags(d, suite), ["[FEN \"r7/8/3k4/8/8/3K4/8/7R w - - 30 60\"]"; 2], "{suite}");
    }
}

#[test]
fn fault_15_chess960_openings_variant_tag_and_uci() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let shredder = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    write(d, "960.epd", format!("{shredder}\n"));
    let tags = fen_tags(d, "960.epd");
    assert_eq!(tags.iter().filter(|t| *t == "[Variant \"Chess960\"]").count(), 2, "{tags:?}");
    // The games replay in full as Chess960.
    pgntune_in(d).args(match_args(1)).args(["--openings", "960.epd", "--pgn-out", "g.pgn"]).assert().success();
    let stderr = pgntune_in(d).args(["extract", "g.pgn", "-o", "g.csv"]).assert().success().get_output().stderr.clone();
    let stderr = String::from_utf8(stderr).unwrap();
    assert!(stderr.contains("games read 2, used 2, skipped none") && !stderr.contains("warning"), "{stderr}");
    // The UCI engine takes the same FEN, and UCI_Chess960 castling (king takes rook).
    let out = uci_session(
        "uci\nsetoption name UCI_Chess960 value true\nposition fen rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1 moves b1h1\ngo depth 2\nposition fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\ngo depth 2\nquit\n",
    );
    assert!(out.contains("option name UCI_Chess960"), "{out}");
    assert!(!out.contains("info string"), "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("bestmove ") && !l.contains("0000")).count(), 2, "{out}");
}

/// The output of `pgntune uci` given `script` on standard input.
fn uci_session(script: &str) -> String {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pgntune"))
        .arg("uci")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
}

#[test]
fn fault_16_uci_answers_no_move_after_a_bad_position() {
    for bad in ["position fen 8/8/8/8/8/8/8/8 w - - 0 1", "position startpos moves e2e4 e2e4"] {
        let out = uci_session(&format!("position startpos moves d2d4\n{bad}\ngo depth 3\nquit\n"));
        assert!(out.lines().any(|l| l == "bestmove 0000"), "{bad}: {out}");
        assert!(out.contains("info string no valid position"), "{bad}: {out}");
    }
}
