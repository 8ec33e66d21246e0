//! `pgntune analyze`: the score curve and α, groups, comparisons, figures.

use crate::common::*;

fn run(args: &[&str]) -> String {
    String::from_utf8(pgntune().arg("analyze").args(args).arg("-q").assert().success().get_output().stdout.clone()).unwrap()
}

#[test]
#[ignore = "needs ../shared/data"]
fn openrating_curve_alpha_and_three_figures() {
    let pgn = shared("pgnlearn/OpenRating.pgn");
    let dir = tempfile::tempdir().unwrap();
    let out = run(&[pgn.to_str().unwrap(), "--plot", dir.path().to_str().unwrap()]);
    // The maximum-likelihood α on all rows and on decisive rows bracket the article's 0.7 drawn by eye.
    assert!(out.contains("α = 0.6614, 95% CI [0.6382, 0.6846]"), "{out}");
    assert!(out.contains("decisive rows only: α = 0.7507, 95% CI [0.7217, 0.7796]"), "{out}");
    // The curve's cell at +1 pawn: 2441 rows scoring 0.627.
    assert!(out.lines().any(|l| l.split_whitespace().take(3).collect::<Vec<_>>() == ["+1.0", "2441", "0.627"]), "{out}");
    for (name, title) in
        [("score_curve", "Expected score vs material balance"), ("convergence", "Convergence of the fit"), ("groups", "Piece values by draw model")]
    {
        let png = std::fs::read(dir.path().join(format!("{name}.png"))).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000, "{name}.png");
        let svg = std::fs::read_to_string(dir.path().join(format!("{name}.svg"))).unwrap();
        assert!(svg.contains(title), "{name}.svg has no title");
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn human_collections_grouped_by_player() {
    let dir = shared("human");
    let mut files: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path().display().to_string()).collect();
    files.sort();
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.extend(["--group-by", "player"]);
    let out = run(&args);
    let table: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("Piece values by player")).skip(2).collect();
    assert_eq!(table.len(), 25, "{out}");
    // Every player with enough decisive games has four values with intervals; Morphy (193) does not.
    for line in &table {
        if line.starts_with("Morphy") {
            assert!(line.contains("too few decisive games (193 < 250)"), "{line}");
        } else {
            assert_eq!(line.matches('[').count(), 4, "{line}");
        }
    }
    let karpov = table.iter().find(|l| l.starts_with("Karpov")).unwrap();
    assert!(karpov.contains("285 [259, 310]"), "{karpov}");
}

#[test]
#[ignore = "needs ../shared/data"]
fn comparing_engine_and_human_games_gives_z_scores() {
    let (engine, human) = (shared("pgnlearn/OpenRating.pgn"), shared("human/Kasparov.pgn"));
    let out = run(&[engine.to_str().unwrap(), human.to_str().unwrap(), "--compare"]);
    let lines: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("Piece values by input")).collect();
    assert!(lines[2].starts_with("OpenRating") && lines[3].starts_with("Kasparov"), "{out}");
    let z: Vec<f64> = lines[4].split_whitespace().skip(1).map(|v| v.parse().unwrap()).collect();
    assert_eq!(z.len(), 4);
    assert!(z.iter().all(|z| *z < -3.0), "Kasparov's games value pieces lower than engines': {z:?}");
}

#[test]
fn grouping_a_dataset_by_tags_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rows.csv");
    std::fs::write(&csv, "P,N,B,R,Q,result,game,ply\n1,0,0,0,0,1,0,12\n-1,0,0,0,0,0,1,14\n").unwrap();
    let out = pgntune().args(["analyze", csv.to_str().unwrap(), "--group-by", "decade", "-q"]).assert().code(2).get_output().stderr.clone();
    let out = String::from_utf8_lossy(&out);
    assert!(out.contains("datasets have none") && out.lines().count() == 1, "{out}");
}

#[test]
#[ignore = "needs ../shared/data"]
fn bootstrap_intervals_resample_whole_games() {
    let pgn = shared("pgnlearn/OpenRating.pgn");
    let out = run(&[pgn.to_str().unwrap(), "--bootstrap", "40", "--seed", "3"]);
    let again = run(&[pgn.to_str().unwrap(), "--bootstrap", "40", "--seed", "3"]);
    // Everything but the solver's elapsed time is the same for the same seed.
    let untimed = |text: &str| text.lines().filter(|l| !l.starts_with("solver:")).collect::<Vec<_>>().join("\n");
    assert_eq!(untimed(&out), untimed(&again), "the same seed gives the same intervals");
    assert!(out.contains("refits on resampled games (seed 3)") && !out.contains("no game ids"), "{out}");
}

#[test]
#[ignore = "needs ../shared/data"]
fn datasets_with_game_ids_bootstrap_by_game_too() {
    let pgn = shared("pgnlearn/OpenRating.pgn");
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("rows.tsv");
    pgntune().args(["extract", "-q", pgn.to_str().unwrap(), "-o", tsv.to_str().unwrap()]).assert().success();
    let from_rows = run(&[tsv.to_str().unwrap(), "--bootstrap", "20", "--seed", "5"]);
    assert!(from_rows.contains("refits on resampled games (seed 5)") && !from_rows.contains("no game ids"), "{from_rows}");
    // The dataset and the PGN it came from are the same games.
    let from_pgn = run(&[pgn.to_str().unwrap(), "--bootstrap", "20", "--seed", "5"]);
    let table = |text: &str| text.lines().skip_while(|l| !l.starts_with("bootstrap:")).take(6).collect::<Vec<_>>().join("\n");
    assert_eq!(table(&from_rows), table(&from_pgn));
}
