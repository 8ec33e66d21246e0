//! `pgntune match`, `verify` and `selfplay`: runs of many games, with a
//! state that lets an interrupted run continue.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::play::{LimitArgs, OpeningArgs, RuleArgs, today};
use super::values::{at_least, at_least_usize, check_threads, fraction_below_one};
use crate::atomic::{AtomicFile, Destination, OutputKind, OutputPlan, Registration, register};
use crate::play::lock::StateLock;
use crate::play::state::MatchState;
use crate::play::tournament::{MatchProgress, Timing};
use crate::play::{EngineSpec, MatchConfig, run_match};
use crate::stats::{Report, SprtConfig, SprtDecision};

/// Options shared by `match` and `verify`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Games played at once (default: one per core; more than 4 per core needs --force). Results with --nodes or --depth do not depend on it.
    #[arg(long, short = 'j', value_name = "N", allow_negative_numbers = true, value_parser = at_least_usize(1))]
    pub concurrency: Option<usize>,
    /// Where to write the games (PGN). Complete games only; a resumed match continues the same file. An existing file is
    /// replaced only with --force (a new match never appends to games it did not write). A pipe, a device or '-' (standard
    /// output, the report then goes to standard error) is written as a stream, and such a match cannot be resumed.
    #[arg(long, value_name = "FILE")]
    pub pgn_out: Option<PathBuf>,
    /// Where to keep the match state for --resume [default: PGN file + .state.json].
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// Quiet: no progress bar, no timing line and no notes on standard error; the report and errors are still shown.
    #[arg(long = "silent", alias = "quiet", short = 'q')]
    pub quiet: bool,
    /// Start a new match even if the state or the PGN file of an earlier one exists (both are overwritten); allow -j far above the core count.
    #[arg(long)]
    pub force: bool,
}

/// The files of a run, checked before it starts, and the lock on its state.
struct RunFiles {
    state: Option<PathBuf>,
    /// The report goes to standard error when the games go to standard output.
    games_on_stdout: bool,
    _lock: Option<StateLock>,
}

impl RunArgs {
    fn threads(&self) -> Result<usize> {
        let threads = self.concurrency.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
        check_threads("--concurrency", threads, self.force)?;
        Ok(threads)
    }

    fn state_path(&self) -> Option<PathBuf> {
        self.state.clone().or_else(|| self.pgn_out.as_ref().map(|p| PathBuf::from(format!("{}.state.json", p.display()))))
    }

    /// Checks the games and state files of a new run before anything is
    /// truncated or started, and locks the state.
    fn prepare_fresh(&self) -> Result<RunFiles> {
        let mut plan = OutputPlan::new(self.force).allow_stdout();
        let streamed = match &self.pgn_out {
            Some(path) if crate::atomic::is_stdout(path) => Some(Destination::Stdout),
            Some(path) => std::fs::metadata(crate::atomic::resolve_links(path)?).ok().filter(|m| !m.is_file() && !m.is_dir()).map(|_| Destination::Stream),
            None => None,
        };
        let state = match streamed {
            Some(_) if self.state.is_some() => bail!("--state: games written to a pipe, a device or standard output cannot be resumed; drop --state"),
            Some(_) => None,
            None => self.state_path(),
        };
        if let Some(state) = state.as_ref().filter(|s| s.exists() && !self.force) {
            bail!("{} holds an earlier match: continue it with `pgntune match --resume {0}`, or pass --force to start afresh", state.display());
        }
        if let Some(path) = &self.pgn_out {
            plan.output(path, OutputKind::MatchGames)?;
        }
        if let Some(state) = &state {
            plan.output(state, OutputKind::State)?;
        }
        let lock = state.as_deref().map(StateLock::acquire).transpose()?;
        Ok(RunFiles { state, games_on_stdout: streamed == Some(Destination::Stdout), _lock: lock })
    }
}

/// Locks and reads the state of an interrupted run (checked against itself).
fn prepare_resume(path: &Path) -> Result<(MatchState, RunFiles)> {
    let lock = StateLock::acquire(path)?;
    let state = MatchState::load(path)?;
    Ok((state, RunFiles { state: Some(path.to_path_buf()), games_on_stdout: false, _lock: Some(lock) }))
}

/// Arguments of `pgntune match`.
#[derive(Debug, Args)]
#[command(after_help = "Engines: 'name=NAME weights=FILE|PRESET [hash=MB]' plays the bundled engine in-process (hash 1 to 4096 MB); \
'name=NAME cmd=PROGRAM [arg=ARG ...] [option.NAME=VALUE ...]' runs a UCI engine. The first engine plays all others; names must differ.\n\
Example: pgntune match --engine 'name=tuned weights=tuned.toml' --engine 'name=sf cmd=/usr/games/stockfish option.UCI_LimitStrength=true option.UCI_Elo=1500' --pairs 50 --tc 10+0.1 --pgn-out games.pgn\n\
The state refers to the PGN file relative to itself, so --resume works from any directory; it checks that the PGN still holds \
exactly the games it recorded, and only one run at a time may use a state.")]
pub struct MatchCommand {
    /// An engine (at least two; the first plays each of the others).
    #[arg(long = "engine", value_name = "SPEC", required_unless_present = "resume")]
    pub engines: Vec<String>,
    /// Number of games against each opponent (rounded up to whole pairs).
    #[arg(long, value_name = "N", conflicts_with = "pairs", allow_negative_numbers = true, value_parser = at_least(1))]
    pub games: Option<u64>,
    /// Number of game pairs (same opening, colours swapped) against each opponent.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least(1))]
    pub pairs: Option<u64>,
    /// Stop when the SPRT decides, e.g. 'elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized' (two engines only).
    #[arg(long, value_name = "BOUNDS")]
    pub sprt: Option<SprtConfig>,
    /// Continue an interrupted match from its state file (all other options come from the state).
    #[arg(long, value_name = "STATE", conflicts_with_all = ["engines", "games", "pairs", "sprt"])]
    pub resume: Option<PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub rules: RuleArgs,
    #[command(flatten)]
    pub openings: OpeningArgs,
    #[command(flatten)]
    pub run: RunArgs,
}

/// A progress bar for matches.
struct MatchBar {
    bar: ProgressBar,
}

impl MatchBar {
    fn new(total: u64, quiet: bool) -> MatchBar {
        let visible = !quiet && std::io::stderr().is_terminal();
        let target = if visible { ProgressDrawTarget::stderr_with_hz(4) } else { ProgressDrawTarget::hidden() };
        let bar = ProgressBar::with_draw_target(Some(total), target)
            .with_style(ProgressStyle::with_template("{bar:25.cyan/blue} {pos}/{len} games {elapsed_precise} ETA {eta} {msg}").expect("template"));
        MatchBar { bar }
    }
}

impl MatchProgress for MatchBar {
    fn update(&self, state: &MatchState) {
        if self.bar.is_hidden() {
            return;
        }
        self.bar.set_length(state.cutoff);
        self.bar.set_position(state.committed);
        let t = state.totals.iter().fold(crate::stats::Wdl::default(), |a, t| a + t.wdl);
        let mut msg = format!("W {} D {} L {}", t.wins, t.draws, t.losses);
        if let Ok(e) = t.estimate() {
            msg.push_str(&format!(" Elo {:+.1}", e.elo));
            if let Some(ci) = e.ci95 {
                msg.push_str(&format!(" ± {ci:.1}"));
            }
        }
        if let (Some(sprt), Some(first)) = (state.config.sprt_config(), state.totals.first()) {
            msg.push_str(&format!(" LLR {:.2} ({:.2}, {:.2})", sprt.llr(&first.penta), sprt.lower_bound(), sprt.upper_bound()));
        }
        self.bar.set_message(msg);
    }
}

/// The match report: per opponent, the statistics.
fn report_text(state: &MatchState) -> String {
    let config = &state.config;
    let mut text = String::new();
    for (i, totals) in state.totals.iter().enumerate() {
        if totals.wdl.games() == 0 && state.totals.len() > 1 {
            continue;
        }
        text.push_str(&format!("{} vs {}\n", config.engines[0].name, config.engines[i + 1].name));
        let report = Report { wdl: totals.wdl, penta: Some(totals.penta), sprt: if config.opponents() == 1 { config.sprt_config() } else { None } };
        text.push_str(&format!("{report}\n"));
    }
    if let Some(why) = &state.stopped {
        text.push_str(&format!("Stopped: {why}.\n"));
    }
    text
}

fn timing_line(timing: &Timing) -> String {
    let minutes = timing.wall.as_secs_f64() / 60.0;
    let engine_share = timing.engine.as_secs_f64() / timing.games_wall.as_secs_f64().max(1e-9);
    let overhead_ms = (timing.games_wall.saturating_sub(timing.engine)).as_secs_f64() * 1000.0 / timing.games as f64;
    format!(
        "{} games in {:.1} s: {:.1} games/min; engine search {:.1}% of game time, {:.2} ms outside the search per game; {:.2} M nodes/s per game thread",
        timing.games,
        timing.wall.as_secs_f64(),
        timing.games as f64 / minutes,
        100.0 * engine_share,
        overhead_ms,
        timing.nodes as f64 / timing.engine.as_secs_f64().max(1e-9) / 1e6
    )
}

/// Runs the match and prints its report (to standard error when the games
/// go to standard output); the timing line unless quiet.
fn run_and_report(state: MatchState, run: &RunArgs, files: &RunFiles, fresh: bool) -> Result<MatchState> {
    if files.state.is_none() && !run.quiet && !files.games_on_stdout {
        eprintln!("note: without --pgn-out or --state nothing is saved, and an interrupted run cannot be resumed");
    }
    let threads = run.threads()?;
    let bar = MatchBar::new(state.cutoff, run.quiet);
    let outcome = run_match(state, files.state.as_deref(), fresh, threads, &bar);
    bar.bar.finish_and_clear();
    let (state, timing) = outcome?;
    let text = report_text(&state);
    if files.games_on_stdout {
        eprint!("{text}");
    } else {
        out!("{text}")?;
    }
    if timing.games > 0 && !run.quiet {
        eprintln!("{}", timing_line(&timing));
    }
    Ok(state)
}

/// The configuration every kind of run builds from its options: limits
/// (with a default node count, if the command has one), rules, openings.
fn new_config(event: &str, engines: Vec<EngineSpec>, pairs: u64, (limits, default_nodes): (&LimitArgs, Option<u64>), rules: &RuleArgs, openings: &OpeningArgs) -> Result<MatchConfig> {
    let (move_limits, time_control) = limits.limits(default_nodes)?;
    Ok(MatchConfig {
        event: event.into(),
        date: today(),
        engines,
        pairs,
        limits: move_limits,
        openings: openings.plan()?,
        seed: openings.seed,
        adjudication: rules.adjudication(),
        draw_rules: rules.draw_rules,
        time_margin_ms: limits.timemargin,
        sprt: None,
        pgn_out: None,
        time_control,
        vary_weights: None,
        selfplay_out: None,
    })
}

/// Refuses to continue a self-play state with `match` and the reverse.
fn check_kind(state: &MatchState, path: &Path, selfplay: bool) -> Result<()> {
    match (state.config.selfplay_out.is_some(), selfplay) {
        (true, false) => bail!("{}: a selfplay state: continue it with `pgntune selfplay --resume {0}`", path.display()),
        (false, true) => bail!("{}: a match state, not a selfplay one: continue it with `pgntune match --resume {0}`", path.display()),
        _ => Ok(()),
    }
}

pub(super) fn run_match_command(args: MatchCommand) -> Result<()> {
    if let Some(path) = &args.resume {
        let (state, files) = prepare_resume(path)?;
        check_kind(&state, path, false)?;
        run_and_report(state, &args.run, &files, false)?;
        return Ok(());
    }
    if args.engines.len() < 2 {
        bail!("give at least two --engine specs");
    }
    let engines = args.engines.iter().map(|s| s.parse::<EngineSpec>().map_err(|e| anyhow::anyhow!("--engine '{s}': {e}"))).collect::<Result<Vec<_>>>()?;
    if args.sprt.is_some() && engines.len() != 2 {
        bail!("--sprt needs exactly two engines");
    }
    let pairs = match (args.pairs, args.games) {
        (Some(p), _) => p,
        (None, Some(g)) => g.div_ceil(2),
        (None, None) => bail!("give --games N or --pairs N"),
    };
    args.run.threads()?;
    let config = MatchConfig {
        sprt: args.sprt.map(|s| s.to_string()),
        pgn_out: args.run.pgn_out.clone(),
        ..new_config("pgntune match", engines, pairs, (&args.limits, None), &args.rules, &args.openings)?
    };
    config.check().map_err(anyhow::Error::msg)?;
    let files = args.run.prepare_fresh()?;
    run_and_report(MatchState::new(config), &args.run, &files, true)?;
    Ok(())
}

/// Arguments of `pgntune verify`.
#[derive(Debug, Args)]
pub struct VerifyCommand {
    /// The candidate weights (a weights file or preset).
    #[arg(value_name = "CANDIDATE")]
    pub candidate: String,
    /// The weights to beat.
    #[arg(long, default_value = "classical")]
    pub baseline: String,
    /// SPRT bounds; the match stops when they decide.
    #[arg(long, default_value = "elo0=0 elo1=10 alpha=0.05 beta=0.05 model=normalized", value_name = "BOUNDS")]
    pub sprt: SprtConfig,
    /// At most this many game pairs if the SPRT has not decided.
    #[arg(long, default_value_t = 2000, value_name = "N", allow_negative_numbers = true, value_parser = at_least(1))]
    pub max_pairs: u64,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub rules: RuleArgs,
    #[command(flatten)]
    pub openings: OpeningArgs,
    #[command(flatten)]
    pub run: RunArgs,
}

/// The one-paragraph answer to "is the candidate better?".
pub fn verdict(state: &MatchState) -> String {
    let config = &state.config;
    let (a, b) = (&config.engines[0].name, &config.engines[1].name);
    let totals = &state.totals[0];
    let (w, d, l) = (totals.wdl.wins, totals.wdl.draws, totals.wdl.losses);
    let mut text = format!("After {} games ({} pairs), {a} scored {w} wins, {d} draws and {l} losses against {b}", totals.wdl.games(), totals.penta.pairs());
    // Game pairs are the right unit (both games share an opening); when
    // every pair scored alike they carry no spread, and the single games
    // give the interval.
    let estimate = match (totals.penta.estimate(), totals.wdl.estimate()) {
        (Ok(e), _) => Ok((e, "from game pairs")),
        (Err(_), Ok(e)) => Ok((e, "from single games: every pair scored the same")),
        (Err(why), Err(_)) => Err(why),
    };
    match estimate {
        Ok((e, basis)) => {
            let ci = e.ci95.map_or_else(|| " (interval unbounded)".to_string(), |ci| format!(" ± {ci:.1}"));
            // No "-0.0": a rounding zero has no sign.
            let elo = if e.elo.abs() < 0.05 { 0.0 } else { e.elo };
            text.push_str(&format!(": Elo {elo:+.1}{ci} (95%, {basis}), LOS {:.1}%.", 100.0 * e.los));
        }
        Err(why) => text.push_str(&format!("; no Elo estimate: {why}.")),
    }
    if let Some(sprt) = config.sprt_config() {
        let llr = sprt.llr(&totals.penta);
        let bounds = format!("[{}, {}] ({} Elo)", sprt.elo0(), sprt.elo1(), sprt.model());
        text.push_str(&match sprt.decision(llr) {
            SprtDecision::AcceptH1 => format!(" The SPRT {bounds} accepted H1 (LLR {llr:.2} ≥ {:.2}): {a} is stronger than {b}.", sprt.upper_bound()),
            SprtDecision::AcceptH0 => format!(
                " The SPRT {bounds} accepted H0 (LLR {llr:.2} ≤ {:.2}): {a} is not {} Elo stronger than {b}.",
                sprt.lower_bound(),
                sprt.elo1()
            ),
            SprtDecision::Continue => format!(" The SPRT {bounds} did not decide (LLR {llr:.2}, bounds {:.2} and {:.2}): play more games.", sprt.lower_bound(), sprt.upper_bound()),
        });
    }
    text
}

pub(super) fn run_verify(args: VerifyCommand) -> Result<()> {
    let candidate = EngineSpec::bundled("candidate", &args.candidate).map_err(anyhow::Error::msg).context("CANDIDATE")?;
    let baseline = EngineSpec::bundled("baseline", &args.baseline).map_err(anyhow::Error::msg).context("--baseline")?;
    let name = |spec: EngineSpec, fallback: &str| EngineSpec { name: match &spec.kind { crate::play::player::EngineKind::Bundled { weights, .. } if !weights.name.is_empty() => weights.name.clone(), _ => fallback.into() }, ..spec };
    let (mut candidate, baseline) = (name(candidate, "candidate"), name(baseline, "baseline"));
    if candidate.name == baseline.name {
        candidate.name.push_str(" (candidate)");
    }
    args.run.threads()?;
    let config = MatchConfig {
        sprt: Some(args.sprt.to_string()),
        pgn_out: args.run.pgn_out.clone(),
        ..new_config("pgntune verify", vec![candidate, baseline], args.max_pairs, (&args.limits, Some(10_000)), &args.rules, &args.openings)?
    };
    config.check().map_err(anyhow::Error::msg)?;
    let files = args.run.prepare_fresh()?;
    let state = run_and_report(MatchState::new(config), &args.run, &files, true)?;
    let text = verdict(&state);
    if files.games_on_stdout {
        eprintln!("\n{text}");
    } else {
        outln!("\n{text}")?;
    }
    Ok(())
}

/// Arguments of `pgntune selfplay`.
#[derive(Debug, Args)]
#[command(after_help = "While it runs, the games so far are kept in OUT.games.pgn with a state in OUT.state.json; an interrupted run \
continues with `pgntune selfplay --resume OUT.state.json`, and both files are removed once OUT is written. An existing OUT is \
replaced only if it holds pgntune self-play games, or with --force. With --out - (standard output) the run cannot be resumed.")]
pub struct SelfplayCommand {
    /// Number of games.
    #[arg(long, default_value_t = 1000, allow_negative_numbers = true, value_parser = at_least(1))]
    pub games: u64,
    /// Output PGN; compressed when the name ends in .zst or .gz.
    #[arg(long, value_name = "FILE", required_unless_present = "resume")]
    pub out: Option<PathBuf>,
    /// Weights both sides start from (preset or file).
    #[arg(long, default_value = "classical")]
    pub weights: String,
    /// Each pair, each side's piece values (N, B, R, Q) are scaled by a random factor within 1 ± this (in [0, 1)).
    #[arg(long, default_value_t = 0.25, allow_negative_numbers = true, value_parser = fraction_below_one)]
    pub vary: f64,
    /// Continue an interrupted self-play run from its state (OUT.state.json); all other options come from the state.
    #[arg(long, value_name = "STATE", conflicts_with_all = ["out", "games"])]
    pub resume: Option<PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub rules: RuleArgs,
    #[command(flatten)]
    pub openings: OpeningArgs,
    /// Games played at once (default: one per core; more than 4 per core needs --force). The games do not depend on it with --nodes or --depth.
    #[arg(long, short = 'j', value_name = "N", allow_negative_numbers = true, value_parser = at_least_usize(1))]
    pub concurrency: Option<usize>,
    /// Quiet: no progress bar and no summary line (errors are still shown).
    #[arg(long = "silent", alias = "quiet", short = 'q')]
    pub quiet: bool,
    /// Start afresh over an earlier run's state and games, replace an OUT that is not self-play games, allow -j far above the core count.
    #[arg(long)]
    pub force: bool,
}

pub(super) fn run_selfplay(args: SelfplayCommand) -> Result<()> {
    let run = RunArgs { concurrency: args.concurrency, pgn_out: None, state: None, quiet: args.quiet, force: args.force };
    if let Some(path) = &args.resume {
        let (state, files) = prepare_resume(path)?;
        check_kind(&state, path, true)?;
        return play_selfplay(state, &run, files, None, false);
    }
    let out = args.out.clone().expect("clap requires --out without --resume");
    let white = EngineSpec::bundled("pgntune", &args.weights).map_err(anyhow::Error::msg)?;
    run.threads()?;
    let config = MatchConfig {
        vary_weights: Some(args.vary),
        ..new_config("pgntune selfplay", vec![white.clone(), white], args.games.div_ceil(2), (&args.limits, Some(3000)), &args.rules, &args.openings)?
    };
    config.check().map_err(anyhow::Error::msg)?;
    let mut plan = OutputPlan::new(args.force).allow_stdout();
    let destination = plan.output(&out, OutputKind::SelfplayGames)?;
    // Games go to a plain PGN beside the output (resumable, with a state),
    // or for a stream to a temporary file; they are compressed at the end.
    let (games, files, temporary) = if destination == Destination::File {
        let state = PathBuf::from(format!("{}.state.json", out.display()));
        if state.exists() && !args.force {
            bail!("{} holds an earlier selfplay run: continue it with `pgntune selfplay --resume {0}`, or pass --force to start afresh", state.display());
        }
        let games = PathBuf::from(format!("{}.games.pgn", out.display()));
        plan.output(&games, OutputKind::MatchGames)?;
        plan.output(&state, OutputKind::State)?;
        let lock = StateLock::acquire(&state)?;
        (games, RunFiles { state: Some(state), games_on_stdout: false, _lock: Some(lock) }, None)
    } else {
        let temp = tempfile::Builder::new().prefix(".pgntune-selfplay.").suffix(".pgn").tempfile().context("a temporary file for the games")?;
        let registration = register(temp.path());
        (temp.path().to_path_buf(), RunFiles { state: None, games_on_stdout: false, _lock: None }, Some((temp, registration)))
    };
    let config = MatchConfig { pgn_out: Some(games), selfplay_out: Some(out), ..config };
    play_selfplay(MatchState::new(config), &run, files, temporary, true)
}

/// Plays (or continues) a self-play run, then writes its games to the
/// output and removes the working files.
fn play_selfplay(state: MatchState, run: &RunArgs, files: RunFiles, _temporary: Option<(tempfile::NamedTempFile, Registration)>, fresh: bool) -> Result<()> {
    let out = state.config.selfplay_out.clone().expect("a selfplay state has its output");
    let games = state.config.pgn_out.clone().expect("a selfplay state has its games file");
    let threads = run.threads()?;
    let bar = MatchBar::new(state.config.total_games(), run.quiet);
    let result = run_match(state, files.state.as_deref(), fresh, threads, &bar);
    bar.bar.finish_and_clear();
    let (state, timing) = match (result, &files.state) {
        (Ok(done), _) => done,
        (Err(e), Some(path)) => {
            return Err(anyhow::Error::new(e).context(format!("the games so far are kept: continue with `pgntune selfplay --resume {}`", path.display())));
        }
        (Err(e), None) => return Err(e.into()),
    };
    let text = std::fs::read(&games).with_context(|| games.display().to_string())?;
    write_compressed(&out, &text)?;
    let _ = std::fs::remove_file(&games);
    if let Some(path) = &files.state {
        let _ = std::fs::remove_file(path);
    }
    if !run.quiet {
        eprintln!(
            "{} games written to {} in {:.1} s ({:.0} games/min)",
            state.committed,
            out.display(),
            timing.wall.as_secs_f64(),
            timing.games as f64 / (timing.wall.as_secs_f64() / 60.0).max(1e-9)
        );
    }
    Ok(())
}

/// Writes `bytes` to `path`, zstd- or gzip-compressed by its extension.
fn write_compressed(path: &Path, bytes: &[u8]) -> Result<()> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let data = match ext {
        "zst" => zstd::encode_all(bytes, 19)?,
        "gz" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            e.write_all(bytes)?;
            e.finish()?
        }
        _ => bytes.to_vec(),
    };
    AtomicFile::write_all(path, &data)?;
    Ok(())
}
