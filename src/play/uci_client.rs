//! An external UCI engine as a [`Player`]: a subprocess driven through its
//! standard input and output. A reader thread turns the engine's output
//! into a channel, so every read has a deadline: an engine that stops
//! answering loses the game (and is restarted for the next one) instead of
//! hanging the match.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use shakmaty::{Color, Position};

use super::player::{MoveReply, MoveRequest, Player, PlayerError};
use crate::engine::Score;

/// How long the handshake and `isready` may take.
const HANDSHAKE: Duration = Duration::from_secs(20);
/// Extra time an engine gets past its own clock before it is declared lost
/// (the flag itself is decided by the game runner from the measured time).
const GRACE: Duration = Duration::from_millis(1000);
/// Deadline for searches without a time limit (fixed nodes or depth).
const UNTIMED: Duration = Duration::from_secs(300);

/// A running UCI engine.
pub struct UciPlayer {
    name: String,
    child: Child,
    stdin: BufWriter<ChildStdin>,
    lines: Receiver<String>,
    /// Whether the engine has a `UCI_Chess960` option, and its setting now.
    offers_chess960: bool,
    chess960: bool,
}

/// Fails when `value` is outside the range the engine gave for its spin
/// option `name` in its `uci` reply (a `Hash` of a million MB would make
/// it abort trying to allocate it).
fn check_spin(offered: &[String], name: &str, value: &str) -> Result<(), PlayerError> {
    for line in offered {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let (Some(n), Some(t)) = (tokens.iter().position(|&w| w == "name"), tokens.iter().position(|&w| w == "type")) else { continue };
        if tokens.first() != Some(&"option") || n >= t || !tokens[n + 1..t].join(" ").eq_ignore_ascii_case(name) || tokens.get(t + 1) != Some(&"spin") {
            continue;
        }
        let bound = |key: &str| tokens.iter().position(|&w| w == key).and_then(|i| tokens.get(i + 1)).and_then(|v| v.parse::<i64>().ok());
        let (min, max) = (bound("min"), bound("max"));
        let Ok(v) = value.trim().parse::<i64>() else {
            return Err(PlayerError::Start(format!("option {name}={value}: the engine takes a number here")));
        };
        if min.is_some_and(|m| v < m) || max.is_some_and(|m| v > m) {
            return Err(PlayerError::Start(format!("option {name}={value} is outside the engine's range {}..{}", min.map_or("".into(), |m| m.to_string()), max.map_or("".into(), |m| m.to_string()))));
        }
    }
    Ok(())
}

impl UciPlayer {
    /// Starts `command args…`, runs the handshake and sets `options`.
    pub fn start(name: &str, command: &str, args: &[String], options: &[(String, String)]) -> Result<UciPlayer, PlayerError> {
        let mut child = Command::new(command)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| PlayerError::Start(format!("{command}: {e}")))?;
        let stdin = BufWriter::new(child.stdin.take().expect("piped stdin"));
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut player = UciPlayer { name: name.to_string(), child, stdin, lines, offers_chess960: false, chess960: false };
        player.send("uci")?;
        let offered = player.wait_for("uciok", Instant::now() + HANDSHAKE)?;
        player.offers_chess960 = offered.iter().any(|l| l.split_whitespace().any(|w| w == "UCI_Chess960"));
        for (option, value) in options {
            check_spin(&offered, option, value)?;
        }
        for (option, value) in options {
            player.send(&format!("setoption name {option} value {value}"))?;
        }
        player.ready()?;
        Ok(player)
    }

    fn send(&mut self, line: &str) -> Result<(), PlayerError> {
        writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush()).map_err(|e| PlayerError::Crashed(format!("cannot write to the engine: {e}")))
    }

    /// Reads lines until one starts with `token`; returns the lines read.
    fn wait_for(&mut self, token: &str, deadline: Instant) -> Result<Vec<String>, PlayerError> {
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let first = line.split_whitespace().next() == Some(token);
                    seen.push(line);
                    if first {
                        return Ok(seen);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(PlayerError::Timeout),
                Err(RecvTimeoutError::Disconnected) => return Err(PlayerError::Crashed("the engine closed its output".into())),
            }
        }
    }

    fn ready(&mut self) -> Result<(), PlayerError> {
        self.send("isready")?;
        self.wait_for("readyok", Instant::now() + HANDSHAKE).map(|_| ())
    }
}

/// The last `score cp N` / `score mate N` of `info` lines.
fn last_score(lines: &[String]) -> Option<Score> {
    lines.iter().rev().find_map(|line| {
        let mut words = line.split_whitespace();
        if words.next() != Some("info") {
            return None;
        }
        let words: Vec<&str> = words.collect();
        let at = words.iter().position(|w| *w == "score")?;
        let value: i32 = words.get(at + 2)?.parse().ok()?;
        match *words.get(at + 1)? {
            "cp" => Some(Score::Cp(value)),
            "mate" => Some(Score::Mate(value)),
            _ => None,
        }
    })
}

/// The `nodes N` of the last `info` line that has one.
fn last_nodes(lines: &[String]) -> u64 {
    lines
        .iter()
        .rev()
        .find_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "nodes")?;
            words.get(at + 1)?.parse().ok()
        })
        .unwrap_or(0)
}

impl Player for UciPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.send("ucinewgame")?;
        self.ready()
    }

    fn go(&mut self, request: &MoveRequest<'_>) -> Result<MoveReply, PlayerError> {
        // Chess960 castling is written king-takes-rook; the engine must know.
        let chess960 = request.position.castles().mode() == shakmaty::CastlingMode::Chess960;
        if chess960 != self.chess960 {
            if chess960 && !self.offers_chess960 {
                return Err(PlayerError::Protocol("the engine has no UCI_Chess960 option, so it cannot play a Chess960 position".into()));
            }
            self.send(&format!("setoption name UCI_Chess960 value {chess960}"))?;
            self.chess960 = chess960;
        }
        let mut position = match request.start_fen {
            Some(fen) => format!("position fen {fen}"),
            None => "position startpos".to_string(),
        };
        if !request.moves.is_empty() {
            position.push_str(" moves ");
            position.push_str(&request.moves.join(" "));
        }
        self.send(&position)?;
        let limits = request.limits;
        let mut go = String::from("go");
        let mut budget = UNTIMED;
        if let Some(c) = limits.clocks {
            go.push_str(&format!(" wtime {} btime {} winc {} binc {}", c.white_ms, c.black_ms, c.increment_ms, c.increment_ms));
            let own = if request.position.turn() == Color::White { c.white_ms } else { c.black_ms };
            budget = Duration::from_millis(own + request.time_margin_ms) + GRACE;
        }
        if let Some(ms) = limits.movetime_ms {
            go.push_str(&format!(" movetime {ms}"));
            budget = budget.min(Duration::from_millis(ms + request.time_margin_ms) + GRACE);
        }
        if let Some(n) = limits.nodes {
            go.push_str(&format!(" nodes {n}"));
        }
        if let Some(d) = limits.depth {
            go.push_str(&format!(" depth {d}"));
        }
        let started = Instant::now();
        self.send(&go)?;
        let lines = match self.wait_for("bestmove", started + budget) {
            Ok(lines) => lines,
            Err(PlayerError::Timeout) => {
                // Ask for the move anyway so that the engine is ready for the next game.
                let _ = self.send("stop");
                let _ = self.wait_for("bestmove", Instant::now() + GRACE);
                return Err(PlayerError::Timeout);
            }
            Err(e) => return Err(e),
        };
        let engine_time = started.elapsed();
        let last = lines.last().expect("wait_for returns the bestmove line");
        let uci = last.split_whitespace().nth(1).ok_or_else(|| PlayerError::Protocol(format!("'{last}' names no move")))?.to_string();
        Ok(MoveReply { uci, score: last_score(&lines), nodes: last_nodes(&lines), engine_time })
    }
}

impl Drop for UciPlayer {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spin_options_are_checked_against_the_engines_range() {
        let offered: Vec<String> = ["id name X", "option name Hash type spin default 16 min 1 max 33554432", "option name Move Overhead type spin default 10 min 0 max 5000", "uciok"]
            .map(String::from)
            .to_vec();
        assert!(check_spin(&offered, "Hash", "64").is_ok());
        assert!(check_spin(&offered, "hash", "999999999").unwrap_err().to_string().contains("outside the engine's range 1..33554432"));
        assert!(check_spin(&offered, "Move Overhead", "-1").is_err());
        assert!(check_spin(&offered, "Hash", "lots").is_err());
        assert!(check_spin(&offered, "Threads", "99999").is_ok(), "options the engine does not list are its business");
    }

    #[test]
    fn reads_scores_and_nodes_from_info_lines() {
        let lines: Vec<String> = [
            "info depth 1 seldepth 1 score cp 20 nodes 20 pv e2e4",
            "info depth 5 score mate -3 nodes 4000 nps 100 pv e7e5",
            "info string hello",
            "bestmove e7e5",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(last_score(&lines), Some(Score::Mate(-3)));
        assert_eq!(last_nodes(&lines), 4000);
    }

    #[test]
    fn a_missing_program_is_a_start_error() {
        let err = UciPlayer::start("x", "/nonexistent/engine", &[], &[]).err().unwrap();
        assert!(matches!(err, PlayerError::Start(_)), "{err:?}");
    }
}
