//! An external UCI engine as a [`Player`]: a subprocess driven through its
//! standard input and output. A reader thread turns the engine's output
//! into a channel, so every read has a deadline: an engine that stops
//! answering loses the game (and is restarted for the next one) instead of
//! hanging the match.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position};

use super::limits::MoveLimits;
use super::player::{MoveReply, MoveRequest, Player, PlayerError};
use crate::engine::Score;

/// How long the handshake and `isready` may take.
const HANDSHAKE: Duration = Duration::from_secs(20);
/// Extra time an engine gets past its own clock before it is declared lost
/// (the flag itself is decided by the game runner from the measured time).
const GRACE: Duration = Duration::from_millis(1000);
/// Deadline for searches without a time limit (fixed nodes or depth).
const UNTIMED: Duration = Duration::from_secs(300);

/// A UCI program and how to run it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UciProgram {
    /// The program.
    pub command: PathBuf,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// UCI options set after the handshake, in order.
    #[serde(default)]
    pub options: Vec<(String, String)>,
    /// The `Hash` option in MB, when given (else the engine's default).
    #[serde(default)]
    pub hash_mb: Option<usize>,
    /// The working folder it runs in (absolute), when given.
    #[serde(default)]
    pub dir: Option<PathBuf>,
}

impl UciProgram {
    /// The options to set: the given ones, and `Hash` unless among them.
    fn all_options(&self) -> Vec<(String, String)> {
        let mut all = self.options.clone();
        if let Some(mb) = self.hash_mb.filter(|_| !all.iter().any(|(k, _)| k.eq_ignore_ascii_case("Hash"))) {
            all.push(("Hash".into(), mb.to_string()));
        }
        all
    }
}

/// A running UCI engine.
pub struct UciPlayer {
    name: String,
    child: Child,
    stdin: BufWriter<ChildStdin>,
    lines: Receiver<String>,
    /// Whether the engine has a `UCI_Chess960` option, and its setting now.
    offers_chess960: bool,
    chess960: bool,
    /// Whether the engine lists `UCI_ShowWDL` (set on when analysing for WDL).
    offers_wdl: bool,
    /// The engine's `id name`, when it gave one.
    id_name: Option<String>,
}

/// What an engine says of one position searched to a limit: the last
/// `info` before `bestmove` (see [`UciPlayer::analyse`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The score from the side to move's point of view.
    pub score: Score,
    /// The engine's win/draw/loss per mille for the side to move, when it
    /// reports them (`UCI_ShowWDL`).
    pub wdl: Option<[u32; 3]>,
    /// The principal variation, as far as its moves are legal.
    pub pv: Vec<Move>,
    /// The depth of the last iteration, when the engine says.
    pub depth: Option<u32>,
    /// Nodes searched, when the engine says.
    pub nodes: Option<u64>,
    /// The search time the engine reports (`time`, ms), when it does.
    pub engine_ms: Option<u64>,
    /// How long `ucinewgame` took to be answered (`isready`), before the search.
    pub reset: Duration,
    /// From sending `go` to reading `bestmove`.
    pub search: Duration,
}

/// Fails when `value` is outside the range the engine gave for its spin
/// option `name` in its `uci` reply (a `Hash` of a million MB would make
/// it abort trying to allocate it).
fn check_spin(offered: &[String], name: &str, value: &str) -> Result<(), PlayerError> {
    for line in offered {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if option_name(&tokens).is_none_or(|n| !n.eq_ignore_ascii_case(name)) {
            continue;
        }
        let t = tokens.iter().position(|&w| w == "type").expect("option_name found it");
        if tokens.get(t + 1) != Some(&"spin") {
            continue;
        }
        let bound = |key: &str| tokens.iter().position(|&w| w == key).and_then(|i| tokens.get(i + 1)).and_then(|v| v.parse::<i64>().ok());
        let (min, max) = (bound("min"), bound("max"));
        let Ok(v) = value.trim().parse::<i64>() else {
            return Err(PlayerError::Option { name: name.to_string(), value: value.to_string(), reason: "the engine takes a number here".into() });
        };
        if min.is_some_and(|m| v < m) || max.is_some_and(|m| v > m) {
            let range =
                format!("outside the engine's range {}..{}", min.map_or("".into(), |m| m.to_string()), max.map_or("".into(), |m| m.to_string()));
            return Err(PlayerError::Option { name: name.to_string(), value: value.to_string(), reason: range });
        }
    }
    Ok(())
}

/// The name in an `option name NAME type …` line, if it is one.
fn option_name(tokens: &[&str]) -> Option<String> {
    let n = tokens.iter().position(|&w| w == "name")?;
    let t = tokens.iter().position(|&w| w == "type")?;
    (tokens.first() == Some(&"option") && n < t).then(|| tokens[n + 1..t].join(" "))
}

/// The options in `wanted` that the engine's `uci` reply does not list.
fn unadvertised<'a>(offered: &[String], wanted: &'a [(String, String)]) -> Vec<&'a str> {
    let listed: Vec<String> = offered.iter().filter_map(|l| option_name(&l.split_whitespace().collect::<Vec<_>>())).collect();
    wanted.iter().map(|(k, _)| k.as_str()).filter(|k| !listed.iter().any(|l| l.eq_ignore_ascii_case(k))).collect()
}

impl UciPlayer {
    /// Tells the engine whether castling is Chess960's (written
    /// king-takes-rook) when that changes, refusing an engine without it.
    fn castling_mode(&mut self, position: &Chess) -> Result<(), PlayerError> {
        let chess960 = position.castles().mode() == CastlingMode::Chess960;
        if chess960 != self.chess960 {
            if chess960 && !self.offers_chess960 {
                return Err(PlayerError::NoChess960);
            }
            self.send(&format!("setoption name UCI_Chess960 value {chess960}"))?;
            self.chess960 = chess960;
        }
        Ok(())
    }

    /// Starts the program, runs the handshake and sets its options. An
    /// option the engine does not list is still set (engines may take
    /// hidden ones), and `warn` is told.
    pub fn start(name: &str, program: &UciProgram, warn: &mut dyn FnMut(String)) -> Result<UciPlayer, PlayerError> {
        let mut command = Command::new(&program.command);
        command.args(&program.args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        if let Some(dir) = &program.dir {
            command.current_dir(dir);
        }
        let mut child = command.spawn().map_err(|source| PlayerError::Spawn { program: program.command.display().to_string(), source })?;
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
        let mut player =
            UciPlayer { name: name.to_string(), child, stdin, lines, offers_chess960: false, chess960: false, offers_wdl: false, id_name: None };
        player.send("uci")?;
        let offered = player.wait_for("uciok", Instant::now() + HANDSHAKE)?;
        player.offers_chess960 = offered.iter().any(|l| l.split_whitespace().any(|w| w == "UCI_Chess960"));
        player.offers_wdl = offered.iter().any(|l| l.split_whitespace().any(|w| w == "UCI_ShowWDL"));
        player.id_name = offered.iter().find_map(|l| l.strip_prefix("id name ").map(|n| n.trim().to_string()));
        let options = program.all_options();
        for (option, value) in &options {
            check_spin(&offered, option, value)?;
        }
        for option in unadvertised(&offered, &program.options) {
            warn(format!("engine '{name}' does not list the option '{option}' in its uci reply; it is set anyway"));
        }
        for (option, value) in &options {
            player.send(&format!("setoption name {option} value {value}"))?;
        }
        player.ready()?;
        Ok(player)
    }

    /// The name the engine gave itself (`id name`), if any.
    pub fn id_name(&self) -> Option<&str> {
        self.id_name.as_deref()
    }

    /// Whether the engine lists `UCI_ShowWDL`.
    pub fn offers_wdl(&self) -> bool {
        self.offers_wdl
    }

    /// Turns the engine's win/draw/loss reports on (`UCI_ShowWDL`); false
    /// when the engine does not list the option.
    pub fn show_wdl(&mut self) -> Result<bool, PlayerError> {
        if !self.offers_wdl {
            return Ok(false);
        }
        self.send("setoption name UCI_ShowWDL value true")?;
        self.ready()?;
        Ok(true)
    }

    /// Searches `position` afresh (`ucinewgame` first, so that the answer
    /// depends on the position and the limit alone) and returns what the
    /// last `info` line said of it. An engine that gives no score, or a
    /// best move that is not legal, broke the protocol; one that takes
    /// longer than `deadline` is out of time (and told to stop).
    pub fn analyse(&mut self, position: &Chess, limits: &MoveLimits, deadline: Duration) -> Result<Analysis, PlayerError> {
        self.castling_mode(position)?;
        let reset = Instant::now();
        self.send("ucinewgame")?;
        self.ready()?;
        let reset = reset.elapsed();
        let fen = Fen::from_position(position, EnPassantMode::Legal);
        self.send(&format!("position fen {fen}"))?;
        let mut go = String::from("go");
        push_limits(&mut go, limits);
        let started = Instant::now();
        let (lines, text) = self.search(&go, started + deadline)?;
        let last = lines.last().expect("search returns the bestmove line");
        UciMove::from_ascii(text.as_bytes())
            .ok()
            .and_then(|u| u.to_move(position).ok())
            .ok_or_else(|| PlayerError::IllegalMove { text: text.to_string(), after: started.elapsed() })?;
        let score = last_score(&lines).ok_or_else(|| PlayerError::Protocol(format!("no 'info ... score' line before '{last}'")))?;
        Ok(Analysis {
            score,
            wdl: last_wdl(&lines),
            pv: last_pv(&lines, position),
            depth: last_number(&lines, "depth"),
            nodes: last_number(&lines, "nodes"),
            engine_ms: last_number(&lines, "time"),
            reset,
            search: started.elapsed(),
        })
    }

    /// Sends `go` and reads up to `bestmove` by `deadline`: the lines read
    /// and the move's text. Past the deadline the engine is told to stop
    /// and its move is read anyway, so that it is ready for what comes next.
    fn search(&mut self, go: &str, deadline: Instant) -> Result<(Vec<String>, String), PlayerError> {
        self.send(go)?;
        let lines = match self.wait_for("bestmove", deadline) {
            Ok(lines) => lines,
            Err(PlayerError::Timeout) => {
                let _ = self.send("stop");
                let _ = self.wait_for("bestmove", Instant::now() + GRACE);
                return Err(PlayerError::Timeout);
            }
            Err(e) => return Err(e),
        };
        let last = lines.last().expect("wait_for returns the bestmove line");
        let text = last.split_whitespace().nth(1).ok_or_else(|| PlayerError::Protocol(format!("'{last}' names no move")))?.to_string();
        Ok((lines, text))
    }

    fn send(&mut self, line: &str) -> Result<(), PlayerError> {
        writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush()).map_err(PlayerError::Write)
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
                Err(RecvTimeoutError::Disconnected) => return Err(PlayerError::Closed),
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

/// Appends a search's own limits to a `go` command: ` nodes N`,
/// ` depth D`, ` movetime MS`, those that are set.
fn push_limits(go: &mut String, limits: &MoveLimits) {
    if let Some(n) = limits.nodes {
        go.push_str(&format!(" nodes {n}"));
    }
    if let Some(d) = limits.depth {
        go.push_str(&format!(" depth {d}"));
    }
    if let Some(ms) = limits.movetime_ms {
        go.push_str(&format!(" movetime {ms}"));
    }
}

/// The `wdl W D L` of the last `info` line with a score.
fn last_wdl(lines: &[String]) -> Option<[u32; 3]> {
    let line = lines.iter().rev().find(|l| l.starts_with("info") && l.split_whitespace().any(|w| w == "score"))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "wdl")?;
    let mut wdl = [0u32; 3];
    for (i, slot) in wdl.iter_mut().enumerate() {
        *slot = words.get(at + 1 + i)?.parse().ok()?;
    }
    Some(wdl)
}

/// The legal prefix of the `pv` of the last `info` line with a score,
/// played from `root`.
fn last_pv(lines: &[String], root: &Chess) -> Vec<Move> {
    let Some(line) = lines.iter().rev().find(|l| l.starts_with("info") && l.split_whitespace().any(|w| w == "score")) else {
        return Vec::new();
    };
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(at) = words.iter().position(|w| *w == "pv") else { return Vec::new() };
    let mut position = root.clone();
    let mut pv = Vec::new();
    for word in &words[at + 1..] {
        let Some(m) = UciMove::from_ascii(word.as_bytes()).ok().and_then(|u| u.to_move(&position).ok()) else { break };
        position.play_unchecked(m);
        pv.push(m);
    }
    pv
}

/// The number after `key` (`nodes`, `depth`) on the last `info` line that has one.
fn last_number<T: std::str::FromStr>(lines: &[String], key: &str) -> Option<T> {
    lines.iter().rev().find_map(|line| {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() != Some(&"info") {
            return None;
        }
        let at = words.iter().position(|w| *w == key)?;
        words.get(at + 1)?.parse().ok()
    })
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
        self.castling_mode(request.position)?;
        let mode = request.position.castles().mode();
        let mut position = match request.start_fen {
            Some(fen) => format!("position fen {fen}"),
            None => "position startpos".to_string(),
        };
        if !request.moves.is_empty() {
            position.push_str(" moves");
            for &m in request.moves {
                position.push(' ');
                position.push_str(&UciMove::from_move(m, mode).to_string());
            }
        }
        self.send(&position)?;
        let limits = request.limits;
        let mut go = String::from("go");
        let mut budget = UNTIMED;
        for (color, key, inc) in [(Color::White, "wtime", "winc"), (Color::Black, "btime", "binc")] {
            if let Some(clock) = request.clocks.of(color) {
                go.push_str(&format!(" {key} {} {inc} {}", clock.left_ms, clock.increment_ms));
            }
        }
        if let Some(own) = request.clocks.of(request.position.turn()) {
            budget = Duration::from_millis(own.left_ms + request.time_margin_ms) + GRACE;
        }
        if let Some(ms) = limits.movetime_ms {
            budget = budget.min(Duration::from_millis(ms + request.time_margin_ms) + GRACE);
        }
        push_limits(&mut go, limits);
        let started = Instant::now();
        let (lines, text) = self.search(&go, started + budget)?;
        let engine_time = started.elapsed();
        // The move is read here, once: what the game runner gets is a legal move.
        let best = UciMove::from_ascii(text.as_bytes())
            .ok()
            .and_then(|u| u.to_move(request.position).ok())
            .ok_or_else(|| PlayerError::IllegalMove { text: text.to_string(), after: engine_time })?;
        Ok(MoveReply {
            best,
            score: last_score(&lines),
            depth: last_number(&lines, "depth"),
            nodes: last_number(&lines, "nodes").unwrap_or(0),
            engine_time,
        })
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
        let offered: Vec<String> = [
            "id name X",
            "option name Hash type spin default 16 min 1 max 33554432",
            "option name Move Overhead type spin default 10 min 0 max 5000",
            "uciok",
        ]
        .map(String::from)
        .to_vec();
        assert!(check_spin(&offered, "Hash", "64").is_ok());
        assert!(check_spin(&offered, "hash", "999999999").unwrap_err().to_string().contains("outside the engine's range 1..33554432"));
        assert!(check_spin(&offered, "Move Overhead", "-1").is_err());
        assert!(check_spin(&offered, "Hash", "lots").is_err());
        assert!(check_spin(&offered, "Threads", "99999").is_ok(), "options the engine does not list are its business");
        let wanted =
            [("hash".to_string(), "1".to_string()), ("Threads".to_string(), "2".to_string()), ("Move Overhead".to_string(), "5".to_string())];
        assert_eq!(unadvertised(&offered, &wanted), ["Threads"]);
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
        assert_eq!(last_number::<u64>(&lines, "nodes"), Some(4000));
        assert_eq!(last_number::<u32>(&lines, "depth"), Some(5));
    }

    #[test]
    fn a_missing_program_is_a_start_error() {
        let program = UciProgram { command: "/nonexistent/engine".into(), ..UciProgram::default() };
        let err = UciPlayer::start("x", &program, &mut |_| {}).err().unwrap();
        assert!(matches!(err, PlayerError::Spawn { .. }), "{err:?}");
    }
}
