//! Games, matches and their statistics: scripted players through the game
//! runner, resuming after kill -9, verify, and the SPRT stopping point.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use pgntune::dataset::GameResult;
use pgntune::engine::Score;
use pgntune::play::{
    Adjudication, DrawRules, GameSetup, MoveLimits, MoveReply, MoveRequest, Opening, Player, PlayerError, Termination, TimeControl, play_game,
};
use shakmaty::ByColor;
use shakmaty::uci::UciMove;

use crate::common::*;

/// Plays moves from a script (UCI), or misbehaves as told.
struct Scripted {
    name: String,
    moves: Vec<String>,
    next: usize,
    think: Duration,
    score: Option<Score>,
}

impl Scripted {
    fn new(name: &str, moves: &[&str]) -> Scripted {
        Scripted { name: name.into(), moves: moves.iter().map(|m| m.to_string()).collect(), next: 0, think: Duration::ZERO, score: None }
    }
}

impl Player for Scripted {
    fn name(&self) -> &str {
        &self.name
    }
    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.next = 0;
        Ok(())
    }
    fn go(&mut self, request: &MoveRequest<'_>) -> Result<MoveReply, PlayerError> {
        let text = self.moves.get(self.next).cloned().ok_or_else(|| PlayerError::Protocol("script ended".into()))?;
        self.next += 1;
        // Read as the UCI client reads an engine's reply: a legal move or an error.
        let best = text
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(request.position).ok())
            .ok_or(PlayerError::IllegalMove { text, after: self.think })?;
        Ok(MoveReply { best, score: self.score, depth: Some(3), nodes: 1, engine_time: self.think })
    }
}

fn play(white: &mut Scripted, black: &mut Scripted, opening: Opening, limits: MoveLimits, adjudication: Adjudication) -> pgntune::play::PlayedGame {
    let cancel = AtomicBool::new(false);
    let setup = GameSetup {
        opening: &opening,
        limits: ByColor { white: &limits, black: &limits },
        adjudication: &adjudication,
        draw_rules: DrawRules::Claim,
        time_margin_ms: 0,
        cancel: &cancel,
        adjourned: None,
    };
    play_game(white, black, &setup, &mut |_| {}).unwrap()
}

fn fen(f: &str) -> Opening {
    Opening::new(Some(f.parse().unwrap()), vec![]).unwrap()
}

#[test]
fn the_runner_ends_games_by_the_rules() {
    let none = MoveLimits { nodes: Some(1), ..MoveLimits::default() };
    // Fool's mate.
    let g = play(
        &mut Scripted::new("w", &["f2f3", "g2g4"]),
        &mut Scripted::new("b", &["e7e5", "d8h4"]),
        Opening::default(),
        none.clone(),
        Adjudication::default(),
    );
    assert_eq!((g.result(), g.end.termination.clone()), (GameResult::BlackWins, Termination::Checkmate));
    let pgn = pgntune::play::to_pgn(
        &g,
        &pgntune::play::PgnHeader { event: "t".into(), date: "2026.11.30".into(), round: "1".into(), time_control: ByColor::default(), times: true },
    );
    let movetext = pgn.split("\n\n").nth(1).unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(movetext, "1. f3 {?/3 0.000s} 1... e5 {?/3 0.000s} 2. g4 {?/3 0.000s} 2... Qh4# {?/3 0.000s} {Black mates} 0-1", "{pgn}");
    assert!(pgn.contains("[TimeControl \"-\"]\n[Termination \"normal\"]\n[PlyCount \"4\"]\n[GameDuration \"00:00:00\"]\n"), "{pgn}");
    // Stalemate from a real ending: Kh6/Qg6... after Qg6 black (Kh8) has no move.
    let g = play(
        &mut Scripted::new("w", &["f5g6"]),
        &mut Scripted::new("b", &[]),
        fen("7k/8/7K/5Q2/8/8/8/8 w - - 0 1"),
        none.clone(),
        Adjudication::default(),
    );
    assert_eq!((g.result(), g.end.termination.clone()), (GameResult::Draw, Termination::Stalemate));
    // Dead position: the last pawn taken, K+N v K.
    let g = play(
        &mut Scripted::new("w", &["f3e5"]),
        &mut Scripted::new("b", &[]),
        fen("4k3/8/8/4p3/8/5N2/8/4K3 w - - 0 1"),
        none.clone(),
        Adjudication::default(),
    );
    assert_eq!(g.end.termination, Termination::DeadPosition);
    // Threefold repetition by knight shuffles from the start position.
    let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"];
    let (w, b): (Vec<&str>, Vec<&str>) = (shuffle.iter().step_by(2).copied().collect(), shuffle.iter().skip(1).step_by(2).copied().collect());
    let g = play(&mut Scripted::new("w", &w), &mut Scripted::new("b", &b), Opening::default(), none.clone(), Adjudication::default());
    assert_eq!((g.end.termination.clone(), g.moves.len()), (Termination::Repetition(3), 8));
    // The 50-move rule: the 100th quiet ply.
    let g = play(
        &mut Scripted::new("w", &["a1a2"]),
        &mut Scripted::new("b", &[]),
        fen("4k3/8/8/8/8/8/8/R3K3 w - - 99 70"),
        none.clone(),
        Adjudication::default(),
    );
    assert_eq!(g.end.termination, Termination::FiftyMoves);
    // An illegal move loses; so does a crash.
    let g = play(&mut Scripted::new("w", &["e2e5"]), &mut Scripted::new("b", &[]), Opening::default(), none.clone(), Adjudication::default());
    assert_eq!((g.result(), g.end.termination.clone()), (GameResult::BlackWins, Termination::IllegalMove("e2e5".into())));
    let g = play(&mut Scripted::new("w", &["e2e4"]), &mut Scripted::new("b", &[]), Opening::default(), none, Adjudication::default());
    assert_eq!(g.result(), GameResult::WhiteWins);
    assert!(matches!(g.end.termination, Termination::EngineFailure(_)));
}

#[test]
fn flag_fall_loses_unless_the_opponent_cannot_mate() {
    let clocks = MoveLimits { tc: Some(TimeControl { base_ms: 1000, increment_ms: 0 }), ..MoveLimits::default() };
    let mut slow = Scripted::new("slow", &["e1e2"]);
    slow.think = Duration::from_millis(1500);
    // Black has a rook: White's flag loses.
    let g = play(&mut slow, &mut Scripted::new("b", &[]), fen("4k3/8/8/8/8/8/r7/4K3 w - - 0 1"), clocks.clone(), Adjudication::default());
    assert_eq!((g.result(), g.end.termination.clone()), (GameResult::BlackWins, Termination::TimeForfeit));
    // Black has a lone king (White a queen, so the position is not dead): a draw.
    let mut slow = Scripted::new("slow", &["e1e2"]);
    slow.think = Duration::from_millis(1500);
    let g = play(&mut slow, &mut Scripted::new("b", &[]), fen("4k3/8/8/8/8/8/Q7/4K3 w - - 0 1"), clocks, Adjudication::default());
    assert_eq!((g.result(), g.end.termination.clone()), (GameResult::Draw, Termination::TimeForfeitDraw));
}

#[test]
fn adjudication_through_the_runner() {
    let none = MoveLimits { nodes: Some(1), ..MoveLimits::default() };
    let moves = ["g1f3", "g8f6", "b1c3", "b8c6", "e2e4", "e7e5"];
    let (w, b): (Vec<&str>, Vec<&str>) = (moves.iter().step_by(2).copied().collect(), moves.iter().skip(1).step_by(2).copied().collect());
    let (mut white, mut black) = (Scripted::new("w", &w), Scripted::new("b", &b));
    white.score = Some(Score::Cp(900));
    black.score = Some(Score::Cp(-900));
    let resign = Adjudication { resign: Some("movecount=2 score=600".parse().unwrap()), ..Adjudication::default() };
    let g = play(&mut white, &mut black, Opening::default(), none.clone(), resign);
    assert_eq!((g.result(), g.end.termination.clone(), g.moves.len()), (GameResult::WhiteWins, Termination::ResignAdjudication, 4));
    let g = play(
        &mut Scripted::new("w", &w),
        &mut Scripted::new("b", &b),
        Opening::default(),
        none,
        Adjudication { maxmoves: Some(2), ..Adjudication::default() },
    );
    assert_eq!((g.end.termination.clone(), g.moves.len()), (Termination::MaxMoves, 4));
}

fn match_args(pgn: &std::path::Path, pairs: u32) -> Vec<String> {
    let mut args: Vec<String> =
        ["match", "--engine", "name=classical weights=classical", "--engine", "name=kaissa weights=kaissa", "--nodes", "2500", "-q", "--pgn-out"]
            .map(String::from)
            .to_vec();
    args.push(pgn.display().to_string());
    args.extend(["--pairs".to_string(), pairs.to_string()]);
    args
}

#[test]
fn a_match_killed_at_any_moment_resumes_to_the_same_games() {
    let dir = tempfile::tempdir().unwrap();
    let (full, cut) = (dir.path().join("full.pgn"), dir.path().join("cut.pgn"));
    let whole = pgntune().args(match_args(&full, 8)).args(["-j", "2"]).assert().success().get_output().stdout.clone();
    // The same match, killed (SIGKILL) twice part-way (once right after a
    // game was saved, once between saves), then resumed on one thread.
    let bin = assert_cmd::cargo::cargo_bin("pgntune");
    let state = format!("{}.state.json", cut.display());
    let committed = || -> u64 {
        std::fs::read_to_string(&state)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["committed"].as_u64())
            .unwrap_or(0)
    };
    for (round, extra_ms) in [(0, 0), (1, 150)] {
        let before = committed();
        let mut child = if round == 0 {
            std::process::Command::new(&bin).args(match_args(&cut, 8)).args(["-j", "2"]).stdout(std::process::Stdio::null()).spawn().unwrap()
        } else {
            std::process::Command::new(&bin).args(["match", "-q", "--resume", &state]).stdout(std::process::Stdio::null()).spawn().unwrap()
        };
        let started = std::time::Instant::now();
        while committed() < before + 3 && started.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(extra_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(committed() < 16, "the match finished before it could be interrupted");
        // Whatever is on disk holds only whole games.
        let text = std::fs::read_to_string(&cut).unwrap_or_default();
        assert!(text.is_empty() || text.ends_with("\n\n"), "a half-written game: {:?}", &text[text.len().saturating_sub(80)..]);
    }
    let resumed = pgntune().args(["match", "-q", "-j", "1", "--resume", &state]).assert().success().get_output().stdout.clone();
    // Node limits: the PGN leaves out times, so the files are the same bytes.
    let read = |p: &std::path::Path| std::fs::read_to_string(p).unwrap();
    assert_eq!(read(&full), read(&cut), "the resumed PGN differs");
    assert_eq!(String::from_utf8_lossy(&whole), String::from_utf8_lossy(&resumed), "the resumed statistics differ");
    assert_eq!(std::fs::read_to_string(&full).unwrap().matches("[Event ").count(), 16);
}

/// A timed match depends on how many games share the machine: resumed
/// without `-j` it goes on as it was played (and says so); with a `-j` of
/// its own it goes on as asked, with a warning. (A resume once took the
/// default of one game per core, which halved a two-thread engine's
/// machine in the middle of an SMP test.)
#[test]
fn a_timed_match_resumes_at_the_concurrency_it_was_played_with() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("timed.pgn");
    let state = format!("{}.state.json", pgn.display());
    let bin = assert_cmd::cargo::cargo_bin("pgntune");
    let saved = || std::fs::read_to_string(&state).ok().and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    let committed = || saved().and_then(|v| v["committed"].as_u64()).unwrap_or(0);
    let mut child = std::process::Command::new(&bin)
        .args(["match", "-q", "-j", "1", "--pairs", "50", "--movetime", "5", "--maxmoves", "8", "--pgn-out"])
        .arg(&pgn)
        .args(["--engine", "name=classical weights=classical", "--engine", "name=kaissa weights=kaissa"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while committed() < 2 && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(committed() >= 2 && committed() < 100, "{}", committed());
    assert_eq!(saved().unwrap()["concurrency"], 1);
    // Resumed with no -j on this machine's cores: one game at a time, as before.
    let mut resumed = std::process::Command::new(&bin)
        .args(["match", "-q", "--resume", &state])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let before = committed();
    while committed() < before + 2 && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    resumed.kill().unwrap();
    let out = resumed.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("warning: this timed match goes on 1 game at a time, as it was played (-j changes it)"), "{stderr}");
    assert_eq!(saved().unwrap()["concurrency"], 1);
    // A -j of its own is honoured, and the change is named.
    let out = pgntune().args(["match", "-q", "-j", "2", "--resume", &state]).assert().success().get_output().stderr.clone();
    let stderr = String::from_utf8_lossy(&out);
    assert!(stderr.contains("warning: this timed match was played 1 game at a time and now goes on with 2 games at a time"), "{stderr}");
}

/// A match of a hundred billion games starts playing at once in little
/// memory, and an interrupt saves its state: the games left are claimed
/// from a counter, not listed up front (a list took 8 bytes a game and
/// ran out of memory before the first move).
#[test]
fn an_absurdly_long_match_plays_at_once_in_little_memory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("long.pgn");
    let state = format!("{}.state.json", out.display());
    let bin = assert_cmd::cargo::cargo_bin("pgntune");
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v 3000000; exec '{}' selfplay -q --games 100000000000 --nodes 300 -j 1 --out '{}'", bin.display(), out.display()))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let saved = || std::fs::read_to_string(&state).ok().and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    while saved().and_then(|v| v["committed"].as_u64()).unwrap_or(0) < 2 && started.elapsed() < Duration::from_secs(60) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SIGINT, as Ctrl-C: the run saves its state and stops.
    let _ = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked") && !stderr.contains("memory allocation"), "{stderr}");
    let committed = saved().and_then(|v| v["committed"].as_u64()).unwrap_or(0);
    assert!(committed >= 2, "no games saved within a minute: {stderr}");
}

#[test]
fn match_results_do_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = (dir.path().join("one.pgn"), dir.path().join("two.pgn"));
    let a = pgntune().args(match_args(&one, 4)).args(["-j", "1"]).assert().success().get_output().stdout.clone();
    let b = pgntune().args(match_args(&two, 4)).args(["-j", "2"]).assert().success().get_output().stdout.clone();
    let read = |p: &std::path::Path| std::fs::read_to_string(p).unwrap();
    assert_eq!(read(&one), read(&two));
    assert_eq!(a, b);
    // Starting the same match again would overwrite its games: refused
    // without --force, with a pointer to --resume.
    let before = std::fs::read(&one).unwrap();
    let games = read(&one);
    let refused = pgntune().args(match_args(&one, 4)).assert().code(2).get_output().stderr.clone();
    let refused = String::from_utf8_lossy(&refused);
    assert!(refused.contains("--resume") && refused.contains("--force") && refused.lines().count() == 1, "{refused}");
    assert_eq!(std::fs::read(&one).unwrap(), before, "a refused run changed the games");
    pgntune().args(match_args(&one, 4)).args(["-j", "2", "--force"]).assert().success();
    assert_eq!(read(&one), games);
}

#[test]
fn verify_classical_against_flat_accepts_h1_and_a_preset_against_itself_is_level() {
    let out = pgntune().args(["verify", "classical", "--baseline", "flat", "--nodes", "1500", "-q"]).assert().success().get_output().stdout.clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("accepted H1") && out.contains("classical is stronger than flat"), "{out}");
    let games: u64 = out.split("After ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(games <= 300, "H1 should be accepted quickly, took {games} games");

    // Undecided after the pair budget: exit code 3.
    let out = pgntune()
        .args(["verify", "kaissa", "--baseline", "kaissa", "--nodes", "1000", "--max-pairs", "20", "-q"])
        .assert()
        .code(3)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    // "Elo +0.0 ± 92.2": the interval contains 0.
    let elo: f64 = out.split("Elo ").last().unwrap().split(' ').next().unwrap().parse().unwrap();
    let ci: f64 = out.split("± ").last().unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(elo - ci < 0.0 && 0.0 < elo + ci, "{out}");
}

#[test]
fn stats_from_counts_match_the_published_numbers() {
    let out = pgntune().args(["stats", "--wdl", "136", "111", "96"]).assert().success().get_output().stdout.clone();
    assert!(String::from_utf8_lossy(&out).contains("Elo 40.70 ± 30.43 (95%), nElo 49.77 ± 36.77, LOS 99.60%"));
    let out = pgntune().args(["stats", "--penta", "34", "54", "63", "64", "75"]).assert().success().get_output().stdout.clone();
    assert!(String::from_utf8_lossy(&out).contains("Elo 55.58 ± 27.65 (95%), nElo 57.94 ± 28.28"));
    let out = pgntune()
        .args(["stats", "--penta", "379", "10170", "21828", "10640", "343", "--sprt", "elo0=0 elo1=2 alpha=0.05 beta=0.05 model=normalized"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8_lossy(&out);
    assert!(out.contains("H1 accepted") && out.contains("LLR 2.945 (generalised SPRT") && out.contains("2.946 by fishtest"), "{out}");
    let out = pgntune().args(["stats", "--wdl", "5", "0", "0"]).assert().success().get_output().stdout.clone();
    let out = String::from_utf8_lossy(&out);
    assert!(!out.contains("inf") && !out.contains("NaN") && out.contains("no losses"), "{out}");
}

/// A UCI engine that dies during a game loses that game, the match goes
/// on (as in cutechess and fastchess), and the user hears of it on
/// standard error at once, under -q too: it was said only in the PGN.
#[test]
fn an_engine_that_dies_mid_game_loses_it_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let engine = dir.path().join("dying.sh");
    std::fs::write(
        &engine,
        "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo 'id name dying'; echo uciok;;\n    isready) echo readyok;;\n    go*) exit 3;;\n  esac\ndone\n",
    )
    .unwrap();
    std::fs::set_permissions(&engine, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let a = pgntune()
        .args(["match", "-q", "--engine", "name=a weights=classical", "--engine"])
        .arg(format!("name=d cmd={}", engine.display()))
        .args(["--games", "2", "--nodes", "300"])
        .assert()
        .success();
    let (stdout, stderr) = (String::from_utf8_lossy(&a.get_output().stdout), String::from_utf8_lossy(&a.get_output().stderr));
    assert!(stdout.contains("Games 2: W 2, D 0, L 0"), "{stdout}");
    assert!(stderr.contains("warning: game 1 (round 1.1): Black's engine failed: the engine crashed"), "{stderr}");
    assert!(stderr.contains("warning: game 2 (round 1.2): White's engine failed"), "{stderr}");
}
