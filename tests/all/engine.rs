//! The bundled engine against real programs: Stockfish from Debian over
//! UCI, played through `pgntune uci` (a subprocess) and in-process in a
//! gauntlet; every game's result checked by replaying it.

use std::collections::HashMap;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use pgntune::engine::position_hash;
use predicates::prelude::*;
use shakmaty::{Chess, Color, Position};

use crate::common::*;

const STOCKFISH: &str = "/usr/games/stockfish";

/// Stockfish; the tests that play it are `#[ignore = "needs Stockfish"]`,
/// and fail when run without it.
fn stockfish() -> &'static str {
    needs(std::path::Path::new(STOCKFISH).exists().then_some(STOCKFISH), STOCKFISH, "apt-get install stockfish")
}

/// One game of a PGN file, replayed.
#[derive(Debug)]
struct Checked {
    white: String,
    black: String,
    result: String,
    termination: String,
    /// Why the result is right, or what is wrong with it.
    verdict: Result<&'static str, String>,
}

struct Replayer;

struct GameState {
    tags: HashMap<String, String>,
    pos: Chess,
    seen: HashMap<u64, u32>,
    error: Option<String>,
}

impl Visitor for Replayer {
    type Tags = HashMap<String, String>;
    type Movetext = GameState;
    type Output = Checked;

    fn begin_tags(&mut self) -> std::ops::ControlFlow<Checked, Self::Tags> {
        std::ops::ControlFlow::Continue(HashMap::new())
    }
    fn tag(&mut self, tags: &mut Self::Tags, name: &[u8], value: RawTag<'_>) -> std::ops::ControlFlow<Checked> {
        tags.insert(String::from_utf8_lossy(name).into_owned(), value.decode_utf8_lossy().into_owned());
        std::ops::ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, tags: Self::Tags) -> std::ops::ControlFlow<Checked, GameState> {
        let pos = Chess::default();
        let mut seen = HashMap::new();
        seen.insert(position_hash(&pos), 1);
        std::ops::ControlFlow::Continue(GameState { tags, pos, seen, error: None })
    }
    fn san(&mut self, g: &mut GameState, san: SanPlus) -> std::ops::ControlFlow<Checked> {
        if g.error.is_none() {
            match san.san.to_move(&g.pos) {
                Ok(m) => {
                    g.pos.play_unchecked(m);
                    *g.seen.entry(position_hash(&g.pos)).or_insert(0) += 1;
                }
                Err(e) => g.error = Some(format!("illegal move {san}: {e}")),
            }
        }
        std::ops::ControlFlow::Continue(())
    }
    fn end_game(&mut self, g: GameState) -> Checked {
        let tag = |k: &str| g.tags.get(k).cloned().unwrap_or_default();
        let (result, termination) = (tag("Result"), tag("Termination"));
        let mover_lost = if g.pos.turn() == Color::White { "0-1" } else { "1-0" };
        let verdict = if let Some(e) = g.error {
            Err(e)
        } else if g.pos.is_checkmate() {
            if result == mover_lost { Ok("checkmate") } else { Err(format!("checkmate but {result}")) }
        } else if g.pos.is_stalemate() || g.pos.is_insufficient_material() {
            if result == "1/2-1/2" { Ok("stalemate or dead position") } else { Err(format!("dead or stalemate but {result}")) }
        } else if g.seen.get(&position_hash(&g.pos)).copied().unwrap_or(0) >= 3 || g.pos.halfmoves() >= 100 {
            if result == "1/2-1/2" { Ok("repetition or 50 moves") } else { Err(format!("draw by rule but {result}")) }
        } else if termination == "adjudication" {
            Ok("adjudicated")
        } else {
            Err(format!("{termination}: the game is not over ({result})"))
        };
        Checked { white: tag("White"), black: tag("Black"), result, termination, verdict }
    }
}

fn replay_all(path: &std::path::Path) -> Vec<Checked> {
    let mut reader = Reader::new(std::fs::File::open(path).unwrap());
    let mut out = Vec::new();
    while let Some(g) = reader.read_game(&mut Replayer).unwrap() {
        out.push(g);
    }
    out
}

#[test]
#[ignore = "needs Stockfish"]
fn the_uci_engine_plays_complete_games_against_stockfish() {
    let sf = stockfish();
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("sf.pgn");
    let us = assert_cmd::cargo::cargo_bin("pgntune");
    pgntune()
        .args(["match", "-q", "-j", "2", "--pairs", "5", "--tc", "1+0.01", "--engine"])
        .arg(format!("name=pgntune cmd={} arg=uci arg=--weights arg=classical", us.display()))
        .arg("--engine")
        .arg(format!("name=stockfish cmd={sf} option.UCI_LimitStrength=true option.UCI_Elo=1500 option.Threads=1"))
        .arg("--pgn-out")
        .arg(&pgn)
        .assert()
        .success();
    let games = replay_all(&pgn);
    assert_eq!(games.len(), 10);
    for g in &games {
        assert!(g.verdict.is_ok(), "{} - {} {}: {:?}", g.white, g.black, g.result, g.verdict);
        assert_eq!(g.termination, "normal", "{} - {}: no time losses, crashes or illegal moves", g.white, g.black);
    }
}

/// A UCI engine that answers the protocol but thinks far too long.
const SLOW_ENGINE: &str = r#"import sys, time
for line in sys.stdin:
    cmd = line.split()
    if not cmd: continue
    if cmd[0] == "uci": print("id name slowpoke\nuciok", flush=True)
    elif cmd[0] == "isready": print("readyok", flush=True)
    elif cmd[0] == "go": time.sleep(1.6); print("bestmove e7e5", flush=True)
    elif cmd[0] == "quit": break
"#;

#[test]
#[ignore = "needs Stockfish"]
fn a_gauntlet_against_stockfish_and_a_slow_engine() {
    let sf = stockfish();
    let dir = tempfile::tempdir().unwrap();
    let slow = dir.path().join("slow.py");
    std::fs::write(&slow, SLOW_ENGINE).unwrap();
    let pgn = dir.path().join("gauntlet.pgn");
    let out = stdout_of(
        pgntune()
            .args(["match", "-q", "-j", "2", "--pairs", "2", "--tc", "1+0.01", "--engine", "name=bundled weights=classical"])
            .arg("--engine")
            .arg(format!("name=sf1500 cmd={sf} option.UCI_LimitStrength=true option.UCI_Elo=1500 option.Threads=1"))
            .arg("--engine")
            .arg(format!("name=slow cmd=python3 arg={}", slow.display()))
            .arg("--pgn-out")
            .arg(&pgn),
    );
    assert!(out.contains("bundled vs sf1500") && out.contains("bundled vs slow"), "{out}");
    let games = replay_all(&pgn);
    assert_eq!(games.len(), 8);
    for g in &games {
        if g.white == "slow" || g.black == "slow" {
            // The slow engine flags on its first move; the bundled engine has mating material.
            assert_eq!(g.termination, "time forfeit");
            assert_eq!(g.result, if g.white == "slow" { "0-1" } else { "1-0" });
        } else {
            assert!(g.verdict.is_ok(), "{} - {} {}: {:?}", g.white, g.black, g.result, g.verdict);
            assert_eq!(g.termination, "normal");
        }
    }
}

#[test]
fn bench_signature_is_deterministic_and_eval_explains() {
    let run = || String::from_utf8(pgntune().args(["bench", "--depth", "7"]).assert().success().get_output().stdout.clone()).unwrap();
    let (a, b) = (run(), run());
    let last = |s: &str| s.lines().last().unwrap().to_string();
    assert!(last(&a).ends_with(" nodes"), "{a}");
    assert_eq!(last(&a), last(&b));
    let out =
        pgntune().args(["eval", "4k3/8/8/8/8/8/PPP5/RN2K2Q w - - 0 1", "--weights", "classical"]).assert().success().get_output().stdout.clone();
    let out = String::from_utf8(out).unwrap();
    for needle in ["P ", "N ", "R ", "Q ", "total:"] {
        assert!(out.contains(needle), "{out}");
    }
    // `startpos` as perft and UCI take it.
    let eval = |fen: &str| pgntune().args(["eval", fen]).assert().success().get_output().stdout.clone();
    assert_eq!(eval("startpos"), eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));
    // And the moves after it, as a UCI `position` command gives them.
    let after = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";
    assert_eq!(eval("startpos moves e2e4 e7e5 g1f3"), eval(after));
    assert_eq!(eval(&format!("fen {after} moves")), eval(after));
    assert_ne!(eval("startpos moves e2e4"), eval("startpos"));
    let perft = pgntune().args(["perft", "startpos moves e2e4", "2"]).assert().success().get_output().stdout.clone();
    assert_eq!(String::from_utf8(perft).unwrap(), "Nodes searched: 600\n");
    for (position, needle) in
        [("startpos moves e2e4 e2e4", "move 'e2e4' (move 2 after the position) cannot be played"), ("startpos moves e9e4", "move 'e9e4' (move 1")]
    {
        let err = pgntune().args(["eval", position]).assert().code(2).get_output().stderr.clone();
        let err = String::from_utf8(err).unwrap();
        assert!(err.contains(needle) && err.lines().count() == 1, "{err}");
    }
}

/// A UCI engine that answers the handshake and then exits at `ucinewgame`.
const CRASHING_ENGINE: &str = "while read line; do
  case \"$line\" in
    uci) echo 'id name crashing'; echo uciok;;
    isready) echo readyok;;
    ucinewgame) exit 1;;
    quit) exit 0;;
  esac
done
";

#[test]
fn an_engine_that_cannot_start_a_game_loses_it_and_the_match_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("crashing.sh");
    std::fs::write(&script, CRASHING_ENGINE).unwrap();
    let pgn = dir.path().join("games.pgn");
    let out = stdout_of(
        pgntune()
            .args(["match", "-q", "-j", "1", "--pairs", "2", "--nodes", "1000", "--engine", "name=bundled weights=classical", "--engine"])
            .arg(format!("name=crashing cmd=sh arg={}", script.display()))
            .arg("--pgn-out")
            .arg(&pgn),
    );
    assert!(out.contains("W 4, D 0, L 0"), "{out}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Termination \"abandoned\"]").count(), 4, "{text}");
    assert_eq!(text.matches("cannot start a new game").count(), 4, "{text}");
}

/// An engine that closes its input at once: the first command sent to it
/// breaks the pipe. That is the engine's crash, reported with exit 2, and
/// not the quiet stop of a run whose own output went to a closed pipe
/// (which it was taken for, and the match exited 0 with no report).
#[test]
fn an_engine_whose_input_is_closed_is_a_crash_not_a_closed_output() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("deaf.sh");
    // It answers `uci` even if it closed its input before reading it: the
    // next command breaks the pipe either way.
    std::fs::write(&script, "exec 0<&-\necho 'id name deaf'\necho uciok\nsleep 2\n").unwrap();
    for _ in 0..2 {
        pgntune()
            .args(["match", "-q", "--games", "2", "--depth", "1", "--engine"])
            .arg(format!("name=deaf cmd=sh arg={}", script.display()))
            .args(["--engine", "name=bundled weights=classical"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("engine 'deaf'").and(predicate::str::contains("cannot write to it")));
    }
    // With a games file: the run that failed before its first game leaves
    // neither an empty games file nor a state behind.
    let games = dir.path().join("games.pgn");
    pgntune()
        .args(["match", "-q", "--games", "2", "--depth", "1", "--engine"])
        .arg(format!("name=deaf cmd=sh arg={}", script.display()))
        .args(["--engine", "name=bundled weights=classical", "--pgn-out"])
        .arg(&games)
        .assert()
        .code(2);
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, [std::ffi::OsString::from("deaf.sh")]);
}
