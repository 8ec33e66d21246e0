//! The interfaces scripts, GUIs and match runners rely on (issue 13):
//! `--help` snapshots, JSON reports, `verify`'s exit codes, PGN as match
//! runners write it (re-read by python-chess and pgn-extract), engine specs
//! with limits of their own, perft, completions and the man page.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// Every command whose `--help` is kept here.
const COMMANDS: [&str; 21] = [
    "extract",
    "features",
    "fit",
    "tune",
    "evaluate",
    "label",
    "weights",
    "match",
    "verify",
    "selfplay",
    "openings",
    "play",
    "stats",
    "analyze",
    "split",
    "uci",
    "bench",
    "eval",
    "perft",
    "completions",
    "man",
];

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/all/help")
}

/// Subcommands with a snapshot of their own (`weights-plot.txt`).
const SUBCOMMANDS: &[&str] = &["weights show", "weights emit", "weights plot"];

/// `pgntune COMMAND [SUBCOMMAND] --help` as a 100-column terminal shows it.
fn long_help(command: &str) -> String {
    let mut cli = pgntune::cli::command().term_width(100);
    cli.build();
    let mut page = &mut cli;
    for name in command.split_whitespace() {
        page = page.find_subcommand_mut(name).unwrap_or_else(|| panic!("no command {command}"));
    }
    page.render_long_help().to_string()
}

/// Every command's `--help` equals its snapshot in tests/all/help/. After a
/// deliberate change, regenerate them with
/// `PGNTUNE_UPDATE_SNAPSHOTS=1 cargo test --profile quick --test all help_snapshots`
/// and review the diff.
#[test]
fn help_snapshots() {
    let update = required("PGNTUNE_UPDATE_SNAPSHOTS");
    let mut stale = Vec::new();
    for command in [""].into_iter().chain(COMMANDS.iter().copied()).chain(SUBCOMMANDS.iter().copied()) {
        let text = long_help(command);
        let path = snapshot_dir().join(format!("{}.txt", if command.is_empty() { "pgntune".to_string() } else { command.replace(' ', "-") }));
        if update {
            std::fs::create_dir_all(snapshot_dir()).unwrap();
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(stale.is_empty(), "--help differs from its snapshot (PGNTUNE_UPDATE_SNAPSHOTS=1 regenerates them): {stale:?}");
    // The binary prints what the snapshot holds.
    let printed = stdout_of(pgntune().args(["verify", "--help"]).env("COLUMNS", "100"));
    assert!(printed.contains("Exit status: 0 when the SPRT accepts H1"), "{printed}");
}

/// No command has two options of one name (clap checks this only in debug
/// builds; the tests run optimised).
#[test]
fn option_names_are_unique_in_every_command() {
    let mut cli = pgntune::cli::command();
    cli.build();
    for sub in cli.get_subcommands() {
        let mut longs: Vec<&str> = sub.get_arguments().filter_map(|a| a.get_long()).collect();
        let mut shorts: Vec<char> = sub.get_arguments().filter_map(|a| a.get_short()).collect();
        let (n, m) = (longs.len(), shorts.len());
        longs.sort_unstable();
        longs.dedup();
        shorts.sort_unstable();
        shorts.dedup();
        assert_eq!(longs.len(), n, "{}: a long option twice", sub.get_name());
        assert_eq!(shorts.len(), m, "{}: a short option twice", sub.get_name());
    }
}

#[test]
fn stats_json_is_one_object_with_the_documented_keys() {
    // Two calls: single-game and pair counts given together must be the
    // same games (issue 33), and these two samples are not.
    let stats = |args: &[&str]| -> serde_json::Value { serde_json::from_str(&stdout_of(pgntune().arg("stats").args(args).arg("--json"))).unwrap() };
    let json = stats(&["--wdl", "136", "111", "96"]);
    assert_eq!(json["games"]["wins"], 136);
    assert!((json["trinomial"]["elo"].as_f64().unwrap() - 40.70).abs() < 0.005);
    let json = stats(&["--penta", "34", "54", "63", "64", "75", "--sprt", "elo0=0 elo1=2"]);
    assert_eq!(json["pairs"]["WW"], 75);
    assert!((json["pentanomial"]["elo_ci95"].as_f64().unwrap() - 27.65).abs() < 0.005);
    assert_eq!(json["sprt"]["decision"], "continue");
    assert!((json["sprt"]["llr"].as_f64().unwrap() - 0.53).abs() < 0.005);
}

/// A short match between two presets, with its PGN.
fn short_match(dir: &Path, extra: &[&str]) -> (serde_json::Value, PathBuf, String) {
    let pgn = dir.join("games.pgn");
    let out = pgntune()
        .args([
            "match",
            "--engine",
            "name=classical weights=classical",
            "--engine",
            "name=kaissa weights=kaissa",
            "--pairs",
            "3",
            "--nodes",
            "800",
            "--json",
        ])
        .arg("--pgn-out")
        .arg(&pgn)
        .args(extra)
        .assert()
        .success()
        .get_output()
        .clone();
    let json = serde_json::from_slice(&out.stdout).unwrap();
    (json, pgn, String::from_utf8(out.stderr).unwrap())
}

#[test]
fn match_json_and_progress_lines_without_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let (json, pgn, stderr) = short_match(dir.path(), &["--report-every", "2", "-j", "1"]);
    assert_eq!(json["kind"], "match");
    assert_eq!(json["games"], 6);
    assert_eq!(json["stopped"]["kind"], "all_games_played");
    let result = &json["results"][0];
    assert_eq!((result["engine"].as_str(), result["opponent"].as_str()), (Some("classical"), Some("kaissa")));
    let wdl = &result["games"];
    assert_eq!(wdl["wins"].as_u64().unwrap() + wdl["draws"].as_u64().unwrap() + wdl["losses"].as_u64().unwrap(), 6);
    let pairs: u64 = ["LL", "LD", "DD+WL", "WD", "WW"].iter().map(|k| result["pairs"][k].as_u64().unwrap()).sum();
    assert_eq!(pairs, 3);
    assert!(result["sprt"].is_null());
    assert_eq!(json["pgn_out"], pgn.display().to_string());
    assert_eq!(json["timing"]["games"], 6);
    // Standard error is a pipe here: a status line every 2 games.
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("progress: ")).collect();
    assert_eq!(lines.len(), 3, "{stderr}");
    assert!(lines[0].starts_with("progress: 2/6 games: W ") && lines[2].starts_with("progress: 6/6 games"), "{stderr}");
    // The per-move comments: 8 random book plies, then score/depth time.
    let text = std::fs::read_to_string(&pgn).unwrap();
    let first = split_games(&text)[0];
    assert_eq!(first.matches("{book}").count(), 8, "{first}");
    // At fixed nodes the PGN leaves out times, so that it is reproducible.
    assert!(first.contains("[PlyCount \"") && first.contains("[TimeControl \"-\"]") && !first.contains("[GameDuration"), "{first}");
    assert!(!first.as_bytes().windows(3).any(|w| w[0].is_ascii_digit() && w[1] == b's' && w[2] == b'}'), "a move time: {first}");
}

fn split_games(text: &str) -> Vec<&str> {
    text.split("\n\n[Event ").collect()
}

#[test]
#[ignore = "needs python-chess and pgn-extract"]
fn match_pgn_is_read_by_python_chess_and_pgn_extract() {
    // At fixed nodes (no times in the PGN), and with a time per move as
    // well (times and GameDuration written).
    for (timed, extra) in [(false, &["-q", "--maxmoves", "60"][..]), (true, &["-q", "--maxmoves", "60", "--movetime", "2000"][..])] {
        let dir = tempfile::tempdir().unwrap();
        let (json, pgn, _) = short_match(dir.path(), extra);
        let games = json["games"].as_u64().unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let python = needs(python_with_chess(), "python-chess", "pip install -r notebooks/requirements.txt");
        let mut cmd = Command::new(python);
        cmd.arg(root.join("tests/external/read_match_pgn.py")).arg(&pgn);
        if timed {
            cmd.arg("--timed");
        }
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout.contains(&format!("games {games}\n")) && stdout.contains("book_plies 48\n") && stdout.ends_with("ok\n"), "{stdout}");
        let extract = needs(program("/usr/games/pgn-extract"), "pgn-extract", "apt-get install pgn-extract");
        let out = Command::new(extract).arg("-r").arg(&pgn).output().unwrap();
        let report = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && !report.contains("Line number"), "{report}");
        assert!(report.contains(&format!("{games} games matched out of {games}.")), "{report}");
    }
}

#[test]
#[ignore = "needs python-chess"]
fn python_chess_drives_the_engine_with_two_threads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = needs(python_with_chess(), "python-chess", "pip install -r notebooks/requirements.txt");
    let out = Command::new(python).arg(root.join("tests/external/uci_threads.py")).arg(assert_cmd::cargo::cargo_bin("pgntune")).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.ends_with("ok\n"), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("option spin 1 1 64\nmoves 8\nanalyse depth 8\nmate a1a8\n"), "{stdout}");
}

fn python_with_chess() -> Option<&'static str> {
    Command::new("python3").args(["-c", "import chess.pgn"]).output().is_ok_and(|o| o.status.success()).then_some("python3")
}

fn program(path: &str) -> Option<&str> {
    Path::new(path).exists().then_some(path)
}

#[test]
fn verify_exit_codes_say_h1_h0_or_undecided() {
    let dir = tempfile::tempdir().unwrap();
    // The candidate is a weights file whose name has a space (issue 13, item 2).
    let weights = dir.path().join("my weights.toml");
    write_preset(&weights, "flat");
    let h0 = pgntune()
        .arg("verify")
        .arg(&weights)
        .args(["--baseline", "classical", "--nodes", "800", "-q", "--json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let h0: serde_json::Value = serde_json::from_slice(&h0).unwrap();
    assert_eq!(h0["verdict"]["outcome"], "accepted_h0");
    assert_eq!(h0["verdict"]["exit_code"], 1);
    assert_eq!(h0["kind"], "verify");
    assert!(h0["verdict"]["text"].as_str().unwrap().contains("is not 10 Elo stronger than classical"), "{h0}");
    let h1 = pgntune()
        .args(["verify", "classical", "--baseline"])
        .arg(&weights)
        .args(["--nodes", "800", "-q"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&h1).contains("accepted H1"));
    let undecided = pgntune()
        .args(["verify", "kaissa", "--baseline", "classical", "--nodes", "500", "--max-pairs", "2", "-q"])
        .assert()
        .code(3)
        .get_output()
        .stdout
        .clone();
    let undecided = String::from_utf8_lossy(&undecided);
    assert!(undecided.contains("did not decide") && undecided.contains("Stopped: all games played."), "{undecided}");
}

/// Writes a preset's weights to `path` as a weights file.
fn write_preset(path: &Path, preset: &str) {
    pgntune::weights::Weights::preset(preset).unwrap().save(path).unwrap();
}

#[test]
fn verify_resumes_from_its_state() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = ["verify", "kaissa", "--baseline", "classical", "--nodes", "400", "--max-pairs", "3", "-q", "-j", "1", "--pgn-out", "v.pgn"];
    let whole = pgntune_in(d).args(args).assert().code(3).get_output().stdout.clone();
    let state = d.join("v.pgn.state.json");
    crate::faults::roll_back(&state, 2);
    let resumed = pgntune_in(d).args(["verify", "-q", "--resume", "v.pgn.state.json"]).assert().code(3).get_output().stdout.clone();
    assert_eq!(String::from_utf8_lossy(&whole), String::from_utf8_lossy(&resumed));
    // A verification's state is not a match's.
    let refused = pgntune_in(d).args(["match", "-q", "--resume", "v.pgn.state.json"]).assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&refused).contains("pgntune verify --resume"), "{}", String::from_utf8_lossy(&refused));
}

fn pgntune_in(dir: &Path) -> assert_cmd::Command {
    let mut cmd = pgntune();
    cmd.current_dir(dir);
    cmd
}

#[test]
fn engines_bring_their_own_limits_and_unlisted_options_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("g.pgn");
    let me = assert_cmd::cargo::cargo_bin("pgntune");
    let uci = format!(
        "name=external cmd={} arg=uci arg=-w arg=kaissa depth=3 option.Hash=8 option.NoSuchOption=1 dir={}",
        me.display(),
        dir.path().display()
    );
    let out = pgntune()
        .args([
            "match",
            "--engine",
            "name=bundled weights=classical depth=2",
            "--engine",
            &uci,
            "--pairs",
            "1",
            "-j",
            "1",
            "--maxmoves",
            "20",
            "--pgn-out",
        ])
        .arg(&pgn)
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("does not list the option 'NoSuchOption'").count(), 1, "{stderr}");
    assert!(!stderr.contains("'Hash'"), "{stderr}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    let first = text.split("\n\n[Event ").next().unwrap();
    // White (bundled) searches to depth 2, Black (the UCI engine) to 3.
    let engine_comments: Vec<&str> = first.split('{').skip(1).map(|c| c.split('}').next().unwrap()).filter(|c| c.contains('/')).collect();
    assert!(engine_comments.len() >= 4, "{first}");
    let depths: Vec<&str> = engine_comments.iter().map(|c| c.split('/').nth(1).unwrap().split_whitespace().next().unwrap()).collect();
    assert!(depths.iter().step_by(2).all(|d| *d == "2") && depths.iter().skip(1).step_by(2).all(|d| *d == "3"), "{depths:?}\n{first}");
}

#[test]
fn perft_counts_the_published_numbers() {
    let cases = [
        ("startpos", "4", "197281"),
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", "3", "97862"),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "4", "43238"),
        ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", "3", "9467"),
        ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", "3", "62379"),
        ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", "3", "89890"),
    ];
    for (fen, depth, nodes) in cases {
        let out = stdout_of(pgntune().args(["perft", fen, depth]));
        assert_eq!(out, format!("Nodes searched: {nodes}\n"), "{fen}");
    }
    let out = stdout_of(pgntune().args(["perft", cases[1].0, "2", "--divide"]));
    assert_eq!(out.lines().filter(|l| l.contains(": ") && !l.starts_with("Nodes")).count(), 48, "{out}");
    assert!(out.contains("e1g1: 43\n") && out.ends_with("\nNodes searched: 2039\n"), "{out}");
    let bad = pgntune().args(["perft", "not a fen", "2"]).assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&bad).contains("is not a FEN"));
}

#[test]
fn completions_and_man_page_come_from_the_definitions() {
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout_of(pgntune().args(["completions", shell]));
        assert!(script.contains("verify") && script.contains("report-every") && script.contains("perft"), "{shell}");
    }
    let man = stdout_of(pgntune().arg("man"));
    assert!(man.starts_with(".ie") || man.contains(".TH pgntune"), "{}", &man[..200.min(man.len())]);
    assert!(man.contains("verify") && man.contains("selfplay"));
    let page = stdout_of(pgntune().args(["man", "verify"]));
    assert!(page.contains(".TH pgntune-verify ") && page.contains("max\\-pairs"), "{}", &page[..400.min(page.len())]);
    pgntune().args(["man", "nonsense"]).assert().code(2);
}

#[test]
fn analyze_json_is_one_object_with_the_documented_keys() {
    let out = stdout_of(pgntune().arg("analyze").arg(bundled_sample()).args(["--group-by", "event", "--min-decisive", "10", "--json", "-q"]));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let curve = &json["score_curve"];
    assert_eq!(curve["scale"], "1-3-3-5-9");
    assert!(curve["alpha"].as_f64().unwrap() > 0.0 && curve["points"].as_array().unwrap().len() > 5);
    assert!(json["fit"].is_object());
    let groups = &json["groups"];
    assert_eq!(groups["title"], "Piece values by event");
    let only = &groups["groups"][0];
    assert_eq!(only["name"], "pgntune selfplay");
    assert_eq!(only["games"], 2000);
    assert!(only["fit"].is_object() && only["note"].is_null() && only["z"].is_null(), "{only}");
}

/// Issue 35: `-q/--quiet` means less output in every command, as in cargo,
/// git or ripgrep; the position filter is `--positions`, and its old
/// spelling `--quiet MODE` is refused with a message naming the new flag.
#[test]
fn quiet_means_less_output_in_every_command_and_positions_picks_positions() {
    use clap::CommandFactory;
    let mut leaves = Vec::new();
    let mut todo: Vec<(Vec<String>, clap::Command)> = vec![(Vec::new(), pgntune::cli::Cli::command())];
    while let Some((path, command)) = todo.pop() {
        let subcommands: Vec<clap::Command> = command.get_subcommands().filter(|c| c.get_name() != "help").cloned().collect();
        if subcommands.is_empty() {
            leaves.push(path);
        } else {
            todo.extend(subcommands.into_iter().map(|c| ([path.clone(), vec![c.get_name().to_string()]].concat(), c)));
        }
    }
    assert!(leaves.len() > 20, "{leaves:?}");
    for leaf in &leaves {
        let help = stdout_of(pgntune().args(leaf).arg("--help"));
        assert!(help.contains("-q, --quiet"), "pgntune {} has no -q/--quiet", leaf.join(" "));
    }
    // Silent in fact: extraction prints its summary, and nothing with -q,
    // --quiet or the old --silent.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |extra: &[&str]| {
        let output = pgntune().current_dir(d).arg("extract").arg(bundled_sample()).args(["-o", "rows.csv", "--force"]).args(extra).output().unwrap();
        assert!(output.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stderr).unwrap()
    };
    assert!(!run(&[]).is_empty(), "without -q extraction reports what it read");
    for quiet in ["-q", "--quiet", "--silent"] {
        assert_eq!(run(&[quiet]), "", "{quiet}");
    }
    assert!(run(&["-q", "--positions", "qsearch", "--features", "material_tapered"]).is_empty());
    // The old spelling: one line naming the new flag, exit 2.
    for old in [&["--quiet", "plies"][..], &["--quiet=qsearch"]] {
        let output = pgntune().current_dir(d).arg("extract").arg(bundled_sample()).args(["-o", "x.csv"]).args(old).output().unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(2), "{old:?}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("is now --positions"), "{stderr}");
        assert!(!d.join("x.csv").exists());
    }
}
