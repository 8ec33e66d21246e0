//! Scripted UCI sessions through [`run`], with in-memory input and output.

use std::io::{BufReader, Cursor, Write};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};

use super::*;

/// An output buffer the test can read while the session writes to it.
#[derive(Clone, Default)]
struct SharedOutput(Arc<Mutex<Vec<u8>>>);

impl SharedOutput {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

impl Write for SharedOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn classical() -> Weights {
    Weights::preset("classical").unwrap()
}

/// Runs a whole script (input ends after it) and returns the output.
fn session(script: &str) -> String {
    let mut output = Vec::new();
    run(Cursor::new(script.to_string().into_bytes()), &mut output, classical()).unwrap();
    String::from_utf8(output).unwrap()
}

fn bestmove(output: &str) -> String {
    let line = output.lines().rev().find(|l| l.starts_with("bestmove")).unwrap_or_else(|| panic!("no bestmove in:\n{output}"));
    line.split_whitespace().nth(1).unwrap().to_string()
}

fn assert_legal(position: &Chess, uci: &str) {
    let m: UciMove = uci.parse().unwrap();
    assert!(m.to_move(position).is_ok(), "{uci} is not legal");
}

#[test]
fn handshake_and_fixed_depth_search() {
    let output = session("uci\nisready\nucinewgame\nposition startpos moves e2e4\ngo depth 5\n");
    let lines: Vec<&str> = output.lines().collect();
    assert!(lines[0].starts_with("id name pgntune"), "{output}");
    assert!(lines.contains(&"uciok"));
    assert!(lines.contains(&"readyok"));
    assert!(lines.iter().any(|l| l.starts_with("option name Hash type spin")));
    assert!(lines.iter().any(|l| l.starts_with("info depth 5 ") && l.contains(" score cp ") && l.contains(" pv ")), "{output}");
    let mut position = Chess::default();
    position.play_unchecked(UciMove::from_ascii(b"e2e4").unwrap().to_move(&position).unwrap());
    assert_legal(&position, &bestmove(&output));
    assert!(output.lines().last().unwrap().starts_with("bestmove"), "{output}");
}

#[test]
fn stop_ends_an_infinite_search_promptly() {
    let (reader, mut writer) = io::pipe().unwrap();
    let output = SharedOutput::default();
    let session_output = output.clone();
    let session = thread::spawn(move || run(BufReader::new(reader), session_output, classical()));
    writeln!(writer, "position startpos\ngo infinite").unwrap();
    thread::sleep(Duration::from_millis(300));
    assert!(!output.text().contains("bestmove"), "bestmove before stop:\n{}", output.text());
    writeln!(writer, "isready").unwrap();
    let asked = Instant::now();
    while !output.text().contains("readyok") {
        assert!(asked.elapsed() < Duration::from_secs(1), "no readyok during the search");
        thread::sleep(Duration::from_millis(1));
    }
    writeln!(writer, "stop").unwrap();
    let stopped = Instant::now();
    while !output.text().contains("bestmove") {
        assert!(stopped.elapsed() < Duration::from_millis(500), "no bestmove after stop");
        thread::sleep(Duration::from_millis(1));
    }
    assert_legal(&Chess::default(), &bestmove(&output.text()));
    writeln!(writer, "quit").unwrap();
    session.join().unwrap().unwrap();
}

#[test]
fn end_of_input_ends_an_infinite_search() {
    let started = Instant::now();
    let output = session("position startpos moves d2d4\ngo infinite\n");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(output.contains("bestmove"));
}

#[test]
fn malformed_input_is_reported_not_fatal() {
    let output = session(
        "hello\n\nposition fen not a fen\nposition\nposition startpos moves e2e4 e2e4\nsetoption name Hash value lots\nsetoption name Nonsense value 1\nsetoption name Weights value no-such-weights\ngo depth 2\n",
    );
    // Six bad commands, and the `go` after the failed `position`.
    let errors = output.lines().filter(|l| l.starts_with("info string")).count();
    assert_eq!(errors, 7, "{output}");
    // The last position command failed: no move for a position the GUI does not have.
    assert_eq!(bestmove(&output), "0000", "{output}");
    let output = session("position startpos moves e2e4\nposition fen not a fen\ngo depth 2\nposition startpos moves e2e4 e7e5\ngo depth 2\n");
    let answers: Vec<&str> = output.lines().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(answers[0], "bestmove 0000", "{output}");
    assert_ne!(answers[1], "bestmove 0000", "a valid position command restores the game: {output}");
    // So does one that cannot even be read: the previous position is not the GUI's.
    let output = session("position startpos moves e2e4\nposition\ngo depth 2\n");
    assert_eq!(bestmove(&output), "0000", "{output}");
}

#[test]
fn chess960_castling_in_king_takes_rook_notation() {
    let output = session(
        "uci\nsetoption name UCI_Chess960 value true\nposition fen rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1 moves b1h1\ngo depth 2\n",
    );
    assert!(output.contains("option name UCI_Chess960 type check default false"), "{output}");
    assert!(!output.contains("info string"), "a Shredder-FEN and castling as king takes rook are accepted: {output}");
    let castle = shakmaty::Move::Castle { king: shakmaty::Square::E1, rook: shakmaty::Square::H1 };
    let result = crate::engine::SearchResult {
        best: Some(castle),
        ponder: None,
        score: crate::engine::Score::Cp(0),
        depth: 1,
        seldepth: 1,
        nodes: 1,
        time: Duration::ZERO,
        pv: vec![castle],
    };
    assert_eq!(bestmove_line(&result, shakmaty::CastlingMode::Chess960), "bestmove e1h1");
    assert_eq!(bestmove_line(&result, shakmaty::CastlingMode::Standard), "bestmove e1g1");
}

#[test]
fn options_take_effect() {
    let output = session(
        "setoption name Hash value 1\nsetoption name Weights value kaissa\nsetoption name Move Overhead value 10\nposition fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\ngo depth 3\n",
    );
    assert!(!output.contains("info string"), "{output}");
    assert!(output.contains("score mate 1"), "{output}");
    assert_eq!(bestmove(&output), "a1a8");
}

#[test]
fn threads_search_together() {
    let output = session("uci\nsetoption name Threads value 2\nposition startpos moves e2e4\ngo depth 7\n");
    assert!(output.contains("option name Threads type spin default 1 min 1 max 64"), "{output}");
    assert!(!output.contains("info string"), "{output}");
    assert_eq!(output.lines().filter(|l| l.starts_with("bestmove")).count(), 1, "{output}");
    let mut position = Chess::default();
    position.play_unchecked(UciMove::from_ascii(b"e2e4").unwrap().to_move(&position).unwrap());
    assert_legal(&position, &bestmove(&output));
    // Out of range or not a number: reported, and the search goes on with
    // the threads it had.
    for bad in ["0", "65", "abc"] {
        let output = session(&format!("setoption name Threads value {bad}\n"));
        assert!(output.contains("info string"), "{bad}: {output}");
    }
}

#[test]
fn a_search_with_helpers_ends_once_on_stop_on_a_new_command_and_on_quit() {
    for script in ["go infinite\nstop\n", "go infinite\nposition startpos moves e2e4\ngo depth 2\n", "go infinite\nquit\n", "go infinite\n"] {
        let started = Instant::now();
        let output = session(&format!("setoption name Threads value 3\nposition startpos\n{script}"));
        assert!(started.elapsed() < Duration::from_secs(2), "{script}: {output}");
        let searches = script.matches("go ").count();
        assert_eq!(output.lines().filter(|l| l.starts_with("bestmove")).count(), searches, "{script}: {output}");
    }
}

#[test]
fn clock_moves_come_in_time() {
    let started = Instant::now();
    let output = session("position startpos moves e2e4 c7c5\ngo wtime 200 btime 200 winc 0 binc 0 movestogo 1\n");
    // The search's own clock: its last report is within the 200 ms it had
    // (wall time around the session also counts a busy machine's waits, so
    // it only gets a loose bound).
    let reported: u64 = output
        .lines()
        .filter(|l| l.starts_with("info") && l.contains(" time "))
        .filter_map(|l| l.split_whitespace().skip_while(|w| *w != "time").nth(1)?.parse().ok())
        .next_back()
        .unwrap_or_else(|| panic!("no info line with a time:\n{output}"));
    assert!(reported < 200, "the search reported {reported} ms of its 200:\n{output}");
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    let mut position = Chess::default();
    for m in ["e2e4", "c7c5"] {
        position.play_unchecked(UciMove::from_ascii(m.as_bytes()).unwrap().to_move(&position).unwrap());
    }
    assert_legal(&position, &bestmove(&output));
}

#[test]
fn no_legal_move_answers_0000() {
    let output = session("position fen R5k1/5ppp/8/8/8/8/8/6K1 b - - 1 1\ngo depth 3\n");
    assert!(output.contains("bestmove 0000"), "{output}");
}

#[test]
fn a_new_command_ends_an_infinite_search() {
    let started = Instant::now();
    let output = session("position startpos\ngo infinite\nposition startpos moves e2e4\ngo depth 2\nquit\n");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(output.lines().filter(|l| l.starts_with("bestmove")).count(), 2, "{output}");
}

#[test]
fn a_finished_search_and_a_new_one() {
    let output = session("position startpos\ngo nodes 2000\nposition startpos moves g1f3\ngo depth 3\nquit\n");
    assert_eq!(output.lines().filter(|l| l.starts_with("bestmove")).count(), 2, "{output}");
}

/// An output whose reader went away.
struct BrokenPipe;

impl Write for BrokenPipe {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::from(io::ErrorKind::BrokenPipe))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_broken_output_ends_the_session() {
    let (reader, mut writer) = io::pipe().unwrap();
    let session = thread::spawn(move || run(BufReader::new(reader), BrokenPipe, classical()));
    // The search cannot report, and `isready` cannot be answered: the
    // session must end with the error instead of waiting for `stop`.
    writeln!(writer, "go infinite\nisready").unwrap();
    let started = Instant::now();
    while !session.is_finished() {
        assert!(started.elapsed() < Duration::from_secs(2), "the session hangs");
        thread::sleep(Duration::from_millis(5));
    }
    let error = session.join().unwrap().unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
    drop(writer);
}

#[test]
fn go_perft_counts_the_current_position() {
    // Kiwipete to depth 3 (97,862 leaves), then the start position after 1. e4 to depth 2.
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let output = session(&format!("position fen {kiwipete}\ngo perft 3\nposition startpos moves e2e4\ngo perft 2\n"));
    let totals: Vec<&str> = output.lines().filter(|l| l.starts_with("Nodes searched")).collect();
    assert_eq!(totals, ["Nodes searched: 97862", "Nodes searched: 600"], "{output}");
    assert_eq!(output.lines().filter(|l| l.contains(": ") && !l.starts_with("Nodes")).count(), 48 + 20, "{output}");
    assert!(output.contains("e1g1: ") && !output.contains("bestmove"), "{output}");
}

#[test]
fn go_perft_beyond_the_limit_is_refused_and_the_session_goes_on() {
    // Depth 99 would count for ever, and a perft does not stop on `stop`.
    let output = session("position startpos\ngo perft 99\ngo perft 1\n");
    assert!(output.contains("info string perft depth 99 is too deep: at most 10"), "{output}");
    let totals: Vec<&str> = output.lines().filter(|l| l.starts_with("Nodes searched")).collect();
    assert_eq!(totals, ["Nodes searched: 20"], "{output}");
}

/// `stop` ends an endless search and only that one: the `go` after it
/// searches to its own depth. With one stop flag for every search, the
/// session stopping the first search stopped the second at once (depth 4
/// in 0 ms), which broke a GUI's analysis after every move.
#[test]
fn a_search_after_a_stopped_endless_one_runs_to_its_own_limit() {
    for _ in 0..5 {
        let output = session("position startpos\ngo infinite\nstop\nposition startpos moves e2e4\ngo depth 7\n");
        assert_eq!(output.lines().filter(|l| l.starts_with("bestmove")).count(), 2, "{output}");
        let second = &output[output.find("bestmove").unwrap()..];
        assert!(second.lines().any(|l| l.starts_with("info depth 7 ")), "the second search stopped early:\n{second}");
    }
}

/// A `go` limit the engine cannot read is named back in an `info string`
/// before the search, which then runs without it (here: until `stop`).
#[test]
fn an_unreadable_go_limit_is_named_back() {
    let output = session("position startpos\ngo depth -1\nstop\n");
    let note = output.lines().find(|l| l.starts_with("info string")).unwrap_or_else(|| panic!("no info string:\n{output}"));
    assert_eq!(note, "info string go: ignored depth '-1' (not a number this engine reads); with no other limit, the search runs until 'stop'");
    assert_eq!(output.lines().filter(|l| l.starts_with("bestmove")).count(), 1, "{output}");
    let output = session("position startpos\ngo depth 3 nodes x\n");
    assert!(output.contains("info string go: ignored nodes 'x' (not a number this engine reads)\n"), "{output}");
    assert!(output.lines().any(|l| l.starts_with("info depth 3 ")), "{output}");
}

/// Issue 33: under `UCI_Chess960`, `go perft` wrote castling as the king's
/// two squares (`e1g1`), unlike every other move this session writes.
#[test]
fn go_perft_under_uci_chess960_writes_castling_king_takes_rook() {
    let position = "position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\ngo perft 1\n";
    let chess960 = session(&format!("setoption name UCI_Chess960 value true\n{position}"));
    let lines: Vec<&str> = chess960.lines().collect();
    assert!(lines.contains(&"e1h1: 1") && lines.contains(&"e1a1: 1"), "{chess960}");
    assert!(!lines.contains(&"e1g1: 1") && !lines.contains(&"e1c1: 1"), "{chess960}");
    assert!(chess960.contains("Nodes searched: 26"), "{chess960}");
    // Without the option, the king's two squares, as before.
    let standard = session(position);
    assert!(standard.lines().any(|l| l == "e1g1: 1") && !standard.contains("e1h1"), "{standard}");
}

/// Issue 33: `go searchmoves` was read and then ignored: the search
/// considers only the root moves it names.
#[test]
fn go_searchmoves_limits_the_root_moves() {
    // White wins the hanging queen with Rxd8+; searchmoves allows only
    // king moves, so the best move is one of them.
    let fen = "position fen k2q4/8/8/8/8/8/8/3RK3 w - - 0 1\n";
    let free = session(&format!("{fen}go depth 4\n"));
    assert_eq!(bestmove(&free), "d1d8", "{free}");
    for allowed in ["e1e2", "e1f2 e1f1"] {
        let output = session(&format!("{fen}go depth 4 searchmoves {allowed}\n"));
        let best = bestmove(&output);
        assert!(allowed.split(' ').any(|m| m == best), "{best} is not among {allowed}: {output}");
        // Every reported line starts with an allowed move.
        for line in output.lines().filter(|l| l.starts_with("info depth")) {
            let first = line.split(" pv ").nth(1).and_then(|pv| pv.split(' ').next()).unwrap();
            assert!(allowed.split(' ').any(|m| m == first), "{line}");
        }
    }
    // A move that is not legal here is named and left out; with no legal
    // move named, every move is searched.
    let output = session(&format!("{fen}go depth 3 searchmoves e2e4\n"));
    assert!(output.contains("info string go searchmoves: ignored e2e4 (not a legal move here); searching every move"), "{output}");
    assert_eq!(bestmove(&output), "d1d8", "{output}");
}
