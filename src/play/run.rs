//! `match` and `verify` as library calls: a typed configuration in, a
//! report out. This layer checks and locks the run's files before any game
//! is played, runs the match ([`super::tournament`]), and says what the
//! result means; the command line only builds the configuration, shows
//! progress and prints the report.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use super::config::{RunKind, today};
use super::lock::{LockError, StateLock};
use super::state::MatchState;
use super::tournament::{MatchConfig, MatchError, MatchProgress, StopReason, Timing, play_match};
use crate::atomic::{Destination, OutputKind, OutputPlan, PlanError};
use crate::stats::{EloEstimate, Penta, Report, Signed1, SprtConfig, SprtDecision, Wdl};

mod json;
pub use json::{MatchReportJson, OpponentJson, TimingJson, VerdictJson, VerifyReportJson};

/// Where a new run keeps its games and state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunFiles {
    /// The games (PGN): a file, or a pipe, a device or `-` (standard
    /// output) to stream to (such a run cannot be resumed).
    pub pgn_out: Option<PathBuf>,
    /// The state, for resuming [default: the PGN file + `.state.json`].
    pub state: Option<PathBuf>,
    /// Replace the games and state of an earlier run.
    pub force: bool,
}

impl RunFiles {
    /// The state file: the one given, else beside the PGN file.
    pub fn state_path(&self) -> Option<PathBuf> {
        self.state.clone().or_else(|| self.pgn_out.as_ref().map(|p| PathBuf::from(format!("{}.state.json", p.display()))))
    }
}

/// How a run starts.
#[derive(Clone, Debug)]
pub enum MatchStart {
    /// A new run.
    New {
        /// The configuration (its `pgn_out` is set from `files`).
        config: Box<MatchConfig>,
        /// Its files.
        files: RunFiles,
    },
    /// An interrupted run, from its state file.
    Resume {
        /// The state.
        state: PathBuf,
        /// The command continuing it (a state is continued by the kind of
        /// run that started it).
        kind: RunKind,
    },
}

/// Why a run could not be made or finished.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The match failed.
    #[error(transparent)]
    Match(#[from] MatchError),
    /// An output cannot be written, or would destroy a file.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The state is in use.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// An output could not be written.
    #[error(transparent)]
    Output(#[from] crate::atomic::OutputError),
    /// A new run would overwrite an earlier run's state.
    #[error("{}: holds an earlier {kind} run", state.display())]
    EarlierRun {
        /// The state.
        state: PathBuf,
        /// Its kind.
        kind: RunKind,
    },
    /// A state for games that are streamed.
    #[error("games written to a pipe, a device or standard output cannot be resumed, so they take no state file")]
    StreamedState,
    /// A state continued by the wrong command.
    #[error("{}: a {found} state, not a {expected} one", path.display())]
    WrongKind {
        /// The state.
        path: PathBuf,
        /// What it is.
        found: RunKind,
        /// What was asked for.
        expected: RunKind,
    },
    /// Reading or writing a run's files failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A self-play run failed after some games; they are kept.
    #[error("{source}; the games so far are kept with the state {}", state.display())]
    Kept {
        /// The state to resume from.
        state: PathBuf,
        /// What failed.
        #[source]
        source: Box<RunError>,
    },
    /// The configuration is not one this command runs.
    #[error("{0}")]
    Unsuitable(&'static str),
}

/// The files of a run, checked, and the lock on its state.
pub(super) struct PreparedFiles {
    /// The state file, if the run keeps one.
    pub state: Option<PathBuf>,
    /// The games go to standard output.
    pub games_on_stdout: bool,
    _lock: Option<StateLock>,
}

impl PreparedFiles {
    /// Files for a run that keeps nothing.
    pub(super) fn none() -> PreparedFiles {
        PreparedFiles { state: None, games_on_stdout: false, _lock: None }
    }

    /// Locks `state` for a run that keeps one.
    pub(super) fn locked(state: PathBuf) -> Result<PreparedFiles, RunError> {
        let lock = StateLock::acquire(&state)?;
        Ok(PreparedFiles { state: Some(state), games_on_stdout: false, _lock: Some(lock) })
    }
}

/// Checks the games and state files of a new run before anything is
/// truncated or started (neither may be one of `inputs`, the files the run
/// reads), and locks the state.
pub(super) fn prepare_new(files: &RunFiles, kind: RunKind, inputs: &[PathBuf]) -> Result<PreparedFiles, RunError> {
    let mut plan = OutputPlan::new(files.force).allow_stdout();
    for path in inputs {
        plan.input(path);
    }
    let streamed = match &files.pgn_out {
        Some(path) if crate::atomic::is_stdout(path) => Some(Destination::Stdout),
        Some(path) => {
            let resolved = crate::atomic::resolve_links(path).map_err(|source| RunError::Io { path: path.clone(), source })?;
            std::fs::metadata(resolved).ok().filter(|m| !m.is_file() && !m.is_dir()).map(|_| Destination::Stream)
        }
        None => None,
    };
    let state = match streamed {
        Some(_) if files.state.is_some() => return Err(RunError::StreamedState),
        Some(_) => None,
        None => files.state_path(),
    };
    if let Some(state) = &state {
        plan.output(state, OutputKind::State)?;
    }
    // Only now, once the plan has refused a state path that is an input or
    // not a state at all: an existing one is an earlier run's.
    if let Some(state) = state.as_ref().filter(|s| s.exists() && !files.force) {
        return Err(RunError::EarlierRun { state: state.clone(), kind });
    }
    if let Some(path) = &files.pgn_out {
        plan.output(path, OutputKind::MatchGames)?;
    }
    let lock = state.as_deref().map(StateLock::acquire).transpose()?;
    Ok(PreparedFiles { state, games_on_stdout: streamed == Some(Destination::Stdout), _lock: lock })
}

/// Locks and reads the state of an interrupted run (checked against
/// itself), refusing one another kind of run started.
pub(super) fn prepare_resume(path: &Path, kind: RunKind) -> Result<(MatchState, PreparedFiles), RunError> {
    let files = PreparedFiles::locked(path.to_path_buf())?;
    let state = MatchState::load(path).map_err(MatchError::from)?;
    if state.config.kind != kind {
        return Err(RunError::WrongKind { path: path.to_path_buf(), found: state.config.kind, expected: kind });
    }
    Ok((state, files))
}

/// One engine's results against one opponent.
#[derive(Clone, Debug, PartialEq)]
pub struct OpponentResult {
    /// The first engine.
    pub engine: String,
    /// Its opponent.
    pub opponent: String,
    /// The first engine's wins, draws and losses.
    pub wdl: Wdl,
    /// Its game pairs.
    pub penta: Penta,
}

/// What a match did: per opponent the counts (and from them every
/// statistic), why it stopped, and where the games are.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchReport {
    /// The kind of run.
    pub kind: RunKind,
    /// The results, one per opponent that played.
    pub results: Vec<OpponentResult>,
    /// The SPRT, for a match of two engines.
    pub sprt: Option<SprtConfig>,
    /// Why it stopped.
    pub stopped: Option<StopReason>,
    /// Games played in all (earlier runs of a resumed match included).
    pub games: u64,
    /// Timing of the games played in this run.
    pub timing: Timing,
    /// The games' file.
    pub pgn_out: Option<PathBuf>,
    /// The state file.
    pub state: Option<PathBuf>,
    /// The games went to standard output (so the report should not).
    pub games_on_stdout: bool,
}

impl MatchReport {
    /// The report of a finished (or stopped) match.
    pub fn new(state: &MatchState, timing: Timing, state_file: Option<PathBuf>, games_on_stdout: bool) -> MatchReport {
        let config = &state.config;
        let results = state
            .totals
            .iter()
            .enumerate()
            .filter(|(_, t)| t.wdl.games() > 0 || state.totals.len() == 1)
            .map(|(i, t)| OpponentResult {
                engine: config.engines[0].name.clone(),
                opponent: config.engines[i + 1].name.clone(),
                wdl: t.wdl,
                penta: t.penta,
            })
            .collect();
        MatchReport {
            kind: config.kind,
            results,
            sprt: config.sprt.filter(|_| config.opponents() == 1),
            stopped: state.stopped,
            games: state.committed,
            timing,
            pgn_out: config.pgn_out.clone(),
            state: state_file,
            games_on_stdout,
        }
    }
}

/// Per opponent the statistics in fastchess's form, then why it stopped.
impl fmt::Display for MatchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in &self.results {
            writeln!(f, "{} vs {}", r.engine, r.opponent)?;
            writeln!(f, "{}", Report { wdl: r.wdl, penta: Some(r.penta), sprt: self.sprt })?;
        }
        if let Some(why) = &self.stopped {
            writeln!(f, "Stopped: {why}.")?;
        }
        Ok(())
    }
}

impl Timing {
    /// `N games in S s: … games/min; engine search …% of game time, … ms
    /// outside the search per game; … M nodes/s per game thread`.
    pub fn summary(&self) -> String {
        let minutes = self.wall.as_secs_f64() / 60.0;
        let engine_share = self.engine.as_secs_f64() / self.games_wall.as_secs_f64().max(1e-9);
        let overhead_ms = (self.games_wall.saturating_sub(self.engine)).as_secs_f64() * 1000.0 / self.games.max(1) as f64;
        format!(
            "{} games in {:.1} s: {:.1} games/min; engine search {:.1}% of game time, {:.2} ms outside the search per game; {:.2} M nodes/s per game thread",
            self.games,
            self.wall.as_secs_f64(),
            self.games as f64 / minutes.max(1e-9),
            100.0 * engine_share,
            overhead_ms,
            self.nodes as f64 / self.engine.as_secs_f64().max(1e-9) / 1e6
        )
    }
}

/// One status line of a match in progress: games, W/D/L, Elo and the SPRT.
pub fn status_line(state: &MatchState) -> String {
    let t: Wdl = state.totals.iter().map(|t| t.wdl).sum();
    let mut line = format!("{}/{} games: W {} D {} L {}", state.committed, state.cutoff, t.wins, t.draws, t.losses);
    if let Ok(e) = t.estimate() {
        line.push_str(&format!(", Elo {}", Signed1(e.elo)));
        if let Some(ci) = e.ci95 {
            line.push_str(&format!(" ± {ci:.1}"));
        }
    }
    if let (Some(sprt), Some(first)) = (state.config.sprt, state.totals.first()) {
        line.push_str(&format!(", LLR {:.2} ({:.2}, {:.2})", sprt.llr(&first.penta), sprt.lower_bound(), sprt.upper_bound()));
    }
    line
}

/// How a run is carried out: its threads and what hears its progress.
pub struct Execution<'a> {
    /// Games played at once.
    pub threads: usize,
    /// True when the user chose `threads`; false for the default (one game
    /// per core), which a resumed timed match replaces with the number it
    /// was played with.
    pub threads_chosen: bool,
    /// Hears every committed game and the run's notes.
    pub progress: &'a dyn MatchProgress,
}

/// The games played at once: as `execution` says, except that a timed
/// match resumed without a choice goes on as it was played (its games
/// depend on how many share the machine), and says so; a chosen number that
/// differs from the earlier one is kept, with a note that conditions change.
fn resumed_threads(state: &MatchState, fresh: bool, execution: &Execution<'_>) -> usize {
    let threads = execution.threads;
    let Some(before) = state.concurrency.filter(|&before| !fresh && before != threads && !state.config.is_deterministic()) else {
        return threads;
    };
    let games = |n: usize| crate::plural::count(n as u64, "game", "games");
    if execution.threads_chosen {
        execution.progress.note(&format!(
            "this timed match was played {} at a time and now goes on with {} at a time: its games' conditions change",
            games(before),
            games(threads)
        ));
        threads
    } else {
        execution.progress.note(&format!("this timed match goes on {} at a time, as it was played (-j changes it)", games(before)));
        before
    }
}

/// Plays a match (new or resumed) and reports it.
pub fn run_match(start: MatchStart, execution: &Execution<'_>) -> Result<MatchReport, RunError> {
    let (state, files, fresh) = match start {
        MatchStart::New { config, files } => {
            let config = MatchConfig { pgn_out: files.pgn_out.clone(), ..*config };
            config.check().map_err(MatchError::from)?;
            let prepared = prepare_new(&files, config.kind, &config.input_files())?;
            (MatchState::new(config), prepared, true)
        }
        MatchStart::Resume { state, kind } => {
            let (state, prepared) = prepare_resume(&state, kind)?;
            (state, prepared, false)
        }
    };
    let mut state = state;
    let threads = resumed_threads(&state, fresh, execution);
    state.concurrency = Some(threads);
    let games = state.config.pgn_out.clone();
    let (state, timing) = match play_match(state, files.state.as_deref(), fresh, threads, execution.progress) {
        Ok(done) => done,
        Err(e) => {
            // A new run that failed before its first game (an engine that
            // does not start) leaves no empty games file behind. Games it
            // did write stay, with the state that resumes them. (Not through a
            // link: the user's link stays, and so does the file it names.)
            if fresh && let Some(path) = games.filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file() && m.len() == 0)) {
                let _ = std::fs::remove_file(path);
            }
            return Err(e.into());
        }
    };
    Ok(MatchReport::new(&state, timing, files.state.clone(), files.games_on_stdout))
}

/// `pgntune verify`: a candidate against a baseline until the SPRT decides
/// or the pair budget runs out.
#[derive(Clone, Debug)]
pub struct VerifyConfig {
    /// The match: candidate first, baseline second, with an SPRT.
    pub config: MatchConfig,
    /// Its files.
    pub files: RunFiles,
}

/// The answer to "is the candidate better?".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VerifyOutcome {
    /// The SPRT accepted H1: the candidate is stronger.
    AcceptedH1,
    /// The SPRT accepted H0: it is not `elo1` stronger.
    AcceptedH0,
    /// The pair budget ran out before the SPRT decided.
    Undecided,
}

impl VerifyOutcome {
    /// The process exit code for a script: 0 H1, 1 H0, 3 undecided (2 is
    /// left for errors).
    pub fn exit_code(self) -> u8 {
        match self {
            VerifyOutcome::AcceptedH1 => 0,
            VerifyOutcome::AcceptedH0 => 1,
            VerifyOutcome::Undecided => 3,
        }
    }
}

/// The verdict of a verification, with the match behind it. `Display`
/// gives the one-paragraph answer.
#[derive(Clone, Debug, PartialEq)]
pub struct VerifyReport {
    /// The match.
    pub report: MatchReport,
    /// The verdict.
    pub outcome: VerifyOutcome,
}

/// The Elo estimate a verdict quotes: from game pairs (the right unit:
/// both games share an opening) unless every pair scored alike, then from
/// single games.
fn verdict_estimate(r: &OpponentResult) -> Result<(EloEstimate, &'static str), crate::stats::Degenerate> {
    match (r.penta.estimate(), r.wdl.estimate()) {
        (Ok(e), _) => Ok((e, "from game pairs")),
        (Err(_), Ok(e)) => Ok((e, "from single games: every pair scored the same")),
        (Err(why), Err(_)) => Err(why),
    }
}

impl VerifyReport {
    /// The report of a finished verification (`None` if it is not one:
    /// no SPRT or not two engines).
    pub fn new(report: MatchReport) -> Option<VerifyReport> {
        let sprt = report.sprt?;
        let r = report.results.first()?;
        let outcome = match sprt.decide(&r.penta) {
            SprtDecision::AcceptH1 => VerifyOutcome::AcceptedH1,
            SprtDecision::AcceptH0 => VerifyOutcome::AcceptedH0,
            SprtDecision::Continue => VerifyOutcome::Undecided,
        };
        Some(VerifyReport { report, outcome })
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.report.results[0];
        let (a, b) = (&r.engine, &r.opponent);
        let (w, d, l) = (r.wdl.wins, r.wdl.draws, r.wdl.losses);
        use crate::plural::count;
        write!(
            f,
            "After {} ({}), {a} scored {}, {} and {} against {b}",
            count(r.wdl.games(), "game", "games"),
            count(r.penta.pairs(), "pair", "pairs"),
            count(w, "win", "wins"),
            count(d, "draw", "draws"),
            count(l, "loss", "losses")
        )?;
        match verdict_estimate(r) {
            Ok((e, basis)) => {
                let ci = e.ci95.map_or_else(|| " (interval unbounded)".to_string(), |ci| format!(" ± {ci:.1}"));
                // No "-0.0": a rounding zero has no sign.
                let elo = if e.elo.abs() < 0.05 { 0.0 } else { e.elo };
                write!(f, ": Elo {elo:+.1}{ci} (95%, {basis}), LOS {:.1}%.", 100.0 * e.los)?;
            }
            Err(why) => write!(f, "; no Elo estimate: {why}.")?,
        }
        let sprt = self.report.sprt.expect("a verification has an SPRT");
        let llr = sprt.llr(&r.penta);
        let bounds = format!("[{}, {}] ({} Elo)", sprt.elo0(), sprt.elo1(), sprt.model());
        match self.outcome {
            VerifyOutcome::AcceptedH1 => {
                write!(f, " The SPRT {bounds} accepted H1 (LLR {llr:.2} ≥ {:.2}): {a} is stronger than {b}.", sprt.upper_bound())
            }
            VerifyOutcome::AcceptedH0 => {
                write!(
                    f,
                    " The SPRT {bounds} accepted H0 (LLR {llr:.2} ≤ {:.2}): {a} is not {} Elo stronger than {b}.",
                    sprt.lower_bound(),
                    sprt.elo1()
                )
            }
            VerifyOutcome::Undecided => {
                write!(
                    f,
                    " The SPRT {bounds} did not decide (LLR {llr:.2}, bounds {:.2} and {:.2}): play more games.",
                    sprt.lower_bound(),
                    sprt.upper_bound()
                )
            }
        }
    }
}

/// How a verification starts.
#[derive(Clone, Debug)]
pub enum VerifyStart {
    /// A new one.
    New(Box<VerifyConfig>),
    /// An interrupted one, from its state.
    Resume(PathBuf),
}

/// Runs a verification (new or resumed) to its verdict.
pub fn verify(start: VerifyStart, execution: &Execution<'_>) -> Result<VerifyReport, RunError> {
    let start = match start {
        VerifyStart::New(v) => {
            if v.config.sprt.is_none() || v.config.engines.len() != 2 {
                return Err(RunError::Unsuitable("a verification is a match of two engines with an SPRT"));
            }
            MatchStart::New { config: Box::new(MatchConfig { kind: RunKind::Verify, ..v.config }), files: v.files }
        }
        VerifyStart::Resume(state) => MatchStart::Resume { state, kind: RunKind::Verify },
    };
    let report = run_match(start, execution)?;
    VerifyReport::new(report).ok_or(RunError::Unsuitable("a verification is a match of two engines with an SPRT"))
}

#[cfg(test)]
mod tests;
