//! The UCI front end.
//!
//! Three threads: a reader that parses input lines into [`Command`]s (and
//! raises the stop flag itself, so that `stop` reaches a running search at
//! once; every `go` gets a flag of its own, so that stopping one search can
//! never stop the next), the session loop that owns the game and the options, and, while
//! a `go` runs, a search thread that owns the engine and writes `info` and
//! `bestmove` lines (with the `Threads` option above 1, that thread starts
//! the engine's lazy-SMP helpers for the search and joins them before its
//! `bestmove`). The session keeps answering (`isready` gets its
//! `readyok` during a search); commands that change the engine wait for the
//! search to finish.
//!
//! End of input ends the session after the running search, stopping it
//! first if it would otherwise never end (`go infinite`).
//!
//! `go perft N` counts the move tree of the current position instead of
//! searching, as engines offer it for checking a GUI's or a move
//! generator's counts: `move: count` per first move, then `Nodes searched: N`.

pub mod command;
pub mod session;

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::{self, Scope, ScopedJoinHandle};
use std::time::Duration;

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Move};

pub use command::{Command, CommandError, GoParams, StartPosition};
pub use session::{Game, OptionChange, Options, SessionError};

use crate::engine::perft::PerftConfig;
use crate::engine::{Engine, Evaluator, Limits, SEARCH_STACK_BYTES, SearchInfo, SearchResult};
use crate::weights::Weights;

/// What the reader passes to the session.
enum Message {
    /// A parsed command, or why a known command could not be parsed, with
    /// the stop flag of the latest `go` read (for a `go`, its own).
    Command(Result<Command, CommandError>, Arc<AtomicBool>),
    /// The input ended (or failed).
    EndOfInput,
}

/// Runs a UCI session on `input` and `output` until `quit` or the end of
/// input, evaluating with `weights` until `setoption name Weights` changes
/// them. Errors are only those of writing `output`, and invalid `weights`.
pub fn run<R, W>(input: R, output: W, weights: Weights) -> io::Result<()>
where
    R: BufRead + Send + 'static,
    W: Write + Send,
{
    let evaluator = Evaluator::new(&weights).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let (sender, receiver) = mpsc::channel();
    // The reader is not joined: on `quit` it may still be blocked reading a
    // terminal, and it ends with the process.
    thread::Builder::new().name("uci-reader".into()).spawn(move || read_commands(input, &sender))?;

    let output = Mutex::new(output);
    let mut session = Session {
        options: Options::new(&weights.name),
        game: Game::default(),
        engine: Some(Engine::new(evaluator, session::DEFAULT_HASH_MB)),
        output: &output,
    };
    thread::scope(|scope| session.serve(scope, &receiver))
}

/// Reads lines until `quit` or the end of input. `stop`, `ponderhit` and
/// `quit` raise the latest `go`'s stop flag here, without waiting for the
/// session, so that a `stop` right after a `go` is never lost. Each `go`
/// gets a fresh flag: with one flag for all, `go infinite`, `stop`, `go`
/// read in a row lowered it again for the second search before the first
/// had seen it, and the session, stopping the first, stopped the second.
fn read_commands<R: BufRead>(mut input: R, sender: &Sender<Message>) {
    let mut stop = Arc::new(AtomicBool::new(false));
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => {
                let _ = sender.send(Message::EndOfInput);
                return;
            }
            Ok(_) => {}
        }
        let parsed = Command::parse(&line);
        match &parsed {
            Err(CommandError::Empty | CommandError::Unknown(_)) => continue,
            Ok(Command::Go(_)) => stop = Arc::new(AtomicBool::new(false)),
            Ok(Command::Stop | Command::PonderHit | Command::Quit) => stop.store(true, Ordering::SeqCst),
            _ => {}
        }
        let quit = parsed == Ok(Command::Quit);
        if sender.send(Message::Command(parsed, Arc::clone(&stop))).is_err() || quit {
            return;
        }
    }
}

/// A running search: the thread hands the engine back when it ends.
struct RunningSearch<'scope> {
    handle: ScopedJoinHandle<'scope, (Engine, io::Result<()>)>,
    /// True when the search only ends on `stop`.
    endless: bool,
    /// Its own stop flag.
    stop: Arc<AtomicBool>,
}

struct Session<'a, W: Write + Send> {
    options: Options,
    game: Game,
    /// `None` while a search thread has it.
    engine: Option<Engine>,
    output: &'a Mutex<W>,
}

impl<'a, W: Write + Send> Session<'a, W> {
    fn serve<'scope>(&mut self, scope: &'scope Scope<'scope, '_>, receiver: &Receiver<Message>) -> io::Result<()>
    where
        'a: 'scope,
    {
        let mut running: Option<RunningSearch<'scope>> = None;
        let served = self.serve_commands(scope, receiver, &mut running);
        // After a write error a search may still run; the scope waits for
        // it, so it must end. (After a normal return none is running.)
        if let Some(search) = &running {
            search.stop.store(true, Ordering::SeqCst);
        }
        served
    }

    fn serve_commands<'scope>(
        &mut self,
        scope: &'scope Scope<'scope, '_>,
        receiver: &Receiver<Message>,
        running: &mut Option<RunningSearch<'scope>>,
    ) -> io::Result<()>
    where
        'a: 'scope,
    {
        loop {
            let message = receiver.recv().unwrap_or(Message::EndOfInput);
            let (command, stop) = match message {
                Message::EndOfInput => return self.finish(running.take()),
                Message::Command(Err(error), _) => {
                    // A `position` that cannot be read fails like one that
                    // names an illegal move: the GUI's position is not ours.
                    if matches!(error, CommandError::Malformed { command: "position", .. }) {
                        self.finish(running.take())?;
                        self.game.valid = false;
                    }
                    self.info_string(&error.to_string())?;
                    continue;
                }
                Message::Command(Ok(command), stop) => (command, stop),
            };
            match command {
                Command::Uci => {
                    let mut lines = vec![format!("id name pgntune {}", env!("CARGO_PKG_VERSION")), "id author the pgntune authors".into()];
                    lines.extend(self.options.describe());
                    lines.push("uciok".into());
                    self.write_lines(&lines)?;
                }
                Command::IsReady => self.write_lines(&["readyok".to_string()])?,
                Command::Stop | Command::PonderHit => {}
                Command::Quit => return self.finish(running.take()),
                Command::UciNewGame => {
                    self.finish(running.take())?;
                    self.engine_mut().new_game();
                }
                Command::SetOption { name, value } => {
                    self.finish(running.take())?;
                    if let Err(error) = self.set_option(&name, value.as_deref()) {
                        self.info_string(&error.to_string())?;
                    }
                }
                Command::Position { start, moves } => {
                    self.finish(running.take())?;
                    if let Err(error) = self.game.set(&start, &moves) {
                        self.info_string(&error.to_string())?;
                    }
                }
                Command::Go(GoParams { perft: Some(depth), .. }) => {
                    self.finish(running.take())?;
                    if depth > crate::engine::perft::MAX_PERFT_DEPTH {
                        // A count that would run for years, with no way to stop it (a
                        // perft, as in other engines, is not interrupted by `stop`).
                        self.info_string(&format!("perft depth {depth} is too deep: at most {}", crate::engine::perft::MAX_PERFT_DEPTH))?;
                    } else if self.game.valid {
                        // As engines answer it: per first move, then the total (no bestmove).
                        // Castling as the search writes it: king takes rook under UCI_Chess960.
                        let castling = self.options.castling_mode(&self.game.position);
                        let config = PerftConfig { castling, ..PerftConfig::new(self.game.position.clone(), depth, true) };
                        let report = crate::engine::perft::run(&config);
                        let lines: Vec<String> = report.to_string().lines().map(str::to_string).collect();
                        self.write_lines(&lines)?;
                    } else {
                        self.info_string("no valid position (the last 'position' command failed): no perft")?;
                    }
                }
                Command::Go(go) => {
                    self.finish(running.take())?;
                    if !go.unreadable.is_empty() {
                        let endless = self.game.limits(&go, self.options.move_overhead).infinite;
                        let until = if endless { "; with no other limit, the search runs until 'stop'" } else { "" };
                        self.info_string(&format!("go: ignored {} (not a number this engine reads){until}", go.unreadable.join(", ")))?;
                    }
                    let (legal, illegal) = self.game.searchmoves(&go);
                    if !illegal.is_empty() && self.game.valid {
                        let all = if legal.is_empty() { "; searching every move" } else { "" };
                        self.info_string(&format!("go searchmoves: ignored {} (not a legal move here){all}", illegal.join(", ")))?;
                    }
                    if self.game.valid {
                        *running = Some(self.start_search(scope, &go, stop)?);
                    } else {
                        // A move for a position the GUI does not have would be wrong; say so.
                        self.info_string("no valid position (the last 'position' command failed): no move")?;
                        self.write_lines(&["bestmove 0000".to_string()])?;
                    }
                }
            }
        }
    }

    fn engine_mut(&mut self) -> &mut Engine {
        self.engine.as_mut().expect("the engine is home when no search runs")
    }

    /// Waits for a running search and takes the engine back. A search
    /// that would only end on `stop` is stopped first: a GUI that sends
    /// another command instead of `stop` (or goes away) has given up on it.
    fn finish(&mut self, running: Option<RunningSearch<'_>>) -> io::Result<()> {
        let Some(running) = running else { return Ok(()) };
        if running.endless {
            running.stop.store(true, Ordering::SeqCst);
        }
        match running.handle.join() {
            Ok((engine, written)) => {
                self.engine = Some(engine);
                written
            }
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), SessionError> {
        let mut options = self.options.clone();
        match options.set(name, value)? {
            OptionChange::Hash => self.engine_mut().set_hash(options.hash_mb),
            OptionChange::Threads => self.engine_mut().set_threads(options.threads),
            OptionChange::Weights => {
                let weights = Weights::resolve(&options.weights)?;
                let evaluator = Evaluator::new(&weights)?;
                self.engine_mut().set_evaluator(evaluator);
            }
            OptionChange::Other => {}
        }
        self.options = options;
        Ok(())
    }

    fn start_search<'scope>(&mut self, scope: &'scope Scope<'scope, '_>, go: &GoParams, stop: Arc<AtomicBool>) -> io::Result<RunningSearch<'scope>>
    where
        'a: 'scope,
    {
        let limits = self.game.limits(go, self.options.move_overhead);
        let endless = limits.infinite;
        let mut engine = self.engine.take().expect("the engine is home when no search runs");
        let root = self.game.position.clone();
        let history = self.game.history.clone();
        let mode = self.options.castling_mode(&root);
        let output = self.output;
        let flag = Arc::clone(&stop);
        let handle = thread::Builder::new().name("search".into()).stack_size(SEARCH_STACK_BYTES).spawn_scoped(scope, move || {
            let written = search_and_report(&mut engine, &root, &history, &limits, &flag, output, mode);
            (engine, written)
        })?;
        Ok(RunningSearch { handle, endless, stop })
    }

    fn info_string(&self, text: &str) -> io::Result<()> {
        self.write_lines(&[format!("info string {text}")])
    }

    fn write_lines(&self, lines: &[String]) -> io::Result<()> {
        write_lines(self.output, lines)
    }
}

/// The body of the search thread: search, report every iteration, and
/// answer `bestmove` (for an endless search only once `stop` came).
fn search_and_report<W: Write>(
    engine: &mut Engine,
    root: &shakmaty::Chess,
    history: &[u64],
    limits: &Limits,
    stop: &AtomicBool,
    output: &Mutex<W>,
    mode: CastlingMode,
) -> io::Result<()> {
    let mut written = Ok(());
    let result = engine.search(root, history, limits, stop, &mut |info| {
        if written.is_ok() {
            written = write_lines(output, &[info_line(info, mode)]);
        }
    });
    written?;
    if limits.infinite {
        // UCI: no bestmove before `stop`, even when the search ran out of
        // depth on its own.
        while !stop.load(Ordering::SeqCst) {
            thread::sleep(Duration::from_millis(1));
        }
    }
    write_lines(output, &[bestmove_line(&result, mode)])
}

fn write_lines<W: Write>(output: &Mutex<W>, lines: &[String]) -> io::Result<()> {
    // A poisoned lock means a writer panicked mid-line; the output is
    // still usable for whole lines after it.
    let mut out = output.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    for line in lines {
        writeln!(out, "{line}")?;
    }
    out.flush()
}

fn uci_move(m: Move, mode: CastlingMode) -> String {
    UciMove::from_move(m, mode).to_string()
}

/// `info depth … score … pv …`, castling moves written in `mode`.
pub fn info_line(info: &SearchInfo, mode: CastlingMode) -> String {
    let mut line = format!(
        "info depth {} seldepth {} multipv 1 score {} nodes {} nps {} hashfull {} time {}",
        info.depth,
        info.seldepth,
        info.score,
        info.nodes,
        info.nps,
        info.hashfull,
        info.time.as_millis()
    );
    if !info.pv.is_empty() {
        line.push_str(" pv");
        for &m in &info.pv {
            line.push(' ');
            line.push_str(&uci_move(m, mode));
        }
    }
    line
}

/// `bestmove <move> [ponder <move>]`, or `bestmove 0000` without a legal move.
pub fn bestmove_line(result: &SearchResult, mode: CastlingMode) -> String {
    match (result.best, result.ponder) {
        (Some(best), Some(ponder)) => format!("bestmove {} ponder {}", uci_move(best, mode), uci_move(ponder, mode)),
        (Some(best), None) => format!("bestmove {}", uci_move(best, mode)),
        (None, _) => "bestmove 0000".to_string(),
    }
}

#[cfg(test)]
mod tests;
