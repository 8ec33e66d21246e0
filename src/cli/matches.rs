//! `pgntune match`, `verify` and `selfplay`: runs of many games, with a
//! state that lets an interrupted run continue. Arguments become the
//! library's configurations ([`crate::play::run`], [`crate::play::selfplay`]);
//! this file shows progress and prints the reports.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::play::{LimitArgs, OpeningArgs, RuleArgs};
use super::values::{at_least, at_least_usize, check_threads, fraction_below_one};
use crate::play::merge::{MergeConfig, merge_shards};
use crate::play::run::{RunFiles, RunKind, status_line, today};
use crate::play::shard::{ShardSpec, parse_pair_range};
use crate::play::{
    EngineSpec, Execution, MatchConfig, MatchProgress, MatchReport, MatchStart, MatchState, RunError, SelfplayConfig, SelfplayStart, VerifyConfig,
    VerifyStart, run_match, run_selfplay, verify,
};
use crate::stats::SprtConfig;

/// How often a run that is not on a terminal prints a status line: every
/// N games (`10`), every so many seconds (`30s`, `5m`), or whichever comes
/// first (`10,60s`). `0` never.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportEvery {
    /// Games between lines.
    pub games: Option<u64>,
    /// Time between lines (checked when a game ends).
    pub time: Option<Duration>,
}

impl FromStr for ReportEvery {
    type Err = String;

    fn from_str(text: &str) -> Result<ReportEvery, String> {
        let mut every = ReportEvery { games: None, time: None };
        for part in text.split(',').map(str::trim) {
            let bad = || format!("'{part}' is not a number of games (10) or of seconds or minutes (30s, 5m)");
            let (number, unit) = part.find(|c: char| !c.is_ascii_digit()).map_or((part, ""), |i| part.split_at(i));
            let n: u64 = number.parse().map_err(|_| bad())?;
            match unit {
                "" => every.games = (n > 0).then_some(n),
                "s" => every.time = (n > 0).then(|| Duration::from_secs(n)),
                "m" => every.time = (n > 0).then(|| Duration::from_secs(60 * n)),
                _ => return Err(bad()),
            }
        }
        Ok(every)
    }
}

/// Options shared by `match` and `verify`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Games played at once (default: one per core; more than 4 per core needs --force). Results with --nodes or --depth do not depend on it.
    #[arg(long, short = 'j', default_value_t = 0, value_name = "N", hide_default_value = true, allow_negative_numbers = true, value_parser = at_least_usize(0))]
    pub concurrency: usize,
    /// Where to write the games (PGN). Complete games only; a resumed match continues the same file. An existing file is
    /// replaced only with --force (a new match never appends to games it did not write). A pipe, a device or '-' (standard
    /// output, the report then goes to standard error) is written as a stream, and such a match cannot be resumed.
    #[arg(long, value_name = "FILE")]
    pub pgn_out: Option<PathBuf>,
    /// Where to keep the match state for --resume [default: PGN file + .state.json].
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// Quiet: no progress and no timing line on standard error; the report, warnings and errors are still shown.
    #[arg(long = "quiet", alias = "silent", short = 'q')]
    pub quiet: bool,
    /// When standard error is not a terminal: a status line every N games, every S seconds or M minutes (30s, 5m), or both (10,60s); 0: none.
    #[arg(long, value_name = "N|Ss|Mm", default_value = "10,60s")]
    pub report_every: ReportEvery,
    /// Print the report as one JSON object (keys below).
    #[arg(long)]
    pub json: bool,
    /// Start a new match even if the state or the PGN file of an earlier one exists (both are overwritten); allow -j far above the core count.
    #[arg(long)]
    pub force: bool,
}

impl RunArgs {
    fn threads(&self) -> Result<usize> {
        threads(self.concurrency, self.force)
    }

    /// True when `-j` was given (0, its default, means one game per core).
    fn threads_chosen(&self) -> bool {
        self.concurrency != 0
    }

    fn files(&self) -> RunFiles {
        RunFiles { pgn_out: self.pgn_out.clone(), state: self.state.clone(), force: self.force }
    }
}

/// Games played at once: as asked, one per core for 0 (the default, as
/// `-j` is in every command).
fn threads(concurrency: usize, force: bool) -> Result<usize> {
    let threads = crate::thread_count(concurrency);
    check_threads("--concurrency", threads, Some(force))?;
    Ok(threads)
}

/// Progress of a run: a bar on a terminal; elsewhere (a CI log) a status
/// line now and then, as fastchess prints its rating interval.
pub(super) struct Progress {
    bar: Option<ProgressBar>,
    every: Option<ReportEvery>,
    /// Games and time at the last status line.
    last: Mutex<(u64, Instant)>,
    /// A note for the first finished game: said before the engines start,
    /// it came first on the line above an engine's error, two lines for one.
    first_note: Mutex<Option<&'static str>>,
}

impl Progress {
    pub(super) fn new(total: u64, quiet: bool, every: ReportEvery) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = (!quiet && terminal).then(|| {
            ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(4))
                .with_style(ProgressStyle::with_template("{bar:25.cyan/blue} {elapsed_precise} ETA {eta} {msg}").expect("template"))
        });
        Progress { bar, every: (!quiet && !terminal).then_some(every), last: Mutex::new((0, Instant::now())), first_note: Mutex::new(None) }
    }

    /// Shows `text` once the first game is in (nothing if none ever is).
    fn note_at_first_game(&self, text: &'static str) {
        *self.first_note.lock().expect("note") = Some(text);
    }

    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl MatchProgress for Progress {
    fn update(&self, state: &MatchState) {
        if let Some(text) = self.first_note.lock().expect("note").take() {
            match &self.bar {
                Some(bar) => bar.println(format!("note: {text}")),
                None => eprintln!("note: {text}"),
            }
        }
        if let Some(bar) = &self.bar {
            bar.set_length(state.cutoff);
            bar.set_position(state.committed);
            bar.set_message(status_line(state));
        }
        if let Some(every) = &self.every {
            let mut last = self.last.lock().expect("progress");
            let games_due = every.games.is_some_and(|n| state.committed >= last.0 + n);
            let time_due = every.time.is_some_and(|t| last.1.elapsed() >= t);
            if games_due || time_due || (state.committed == state.cutoff && state.committed > last.0) {
                eprintln!("progress: {}", status_line(state));
                *last = (state.committed, Instant::now());
            }
        }
    }

    /// Warnings appear under `-q` too (as the guide says of `-q`).
    fn note(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(format!("warning: {text}")),
            None => eprintln!("warning: {text}"),
        }
    }
}

/// The library's error with what to type next, where there is something.
fn with_hint(err: RunError) -> anyhow::Error {
    let hint = match &err {
        RunError::EarlierRun { state, kind } => {
            format!("continue it with `pgntune {kind} --resume {}`, or pass --force to start afresh", state.display())
        }
        RunError::WrongKind { path, found, .. } => format!("continue it with `pgntune {found} --resume {}`", path.display()),
        RunError::Kept { state, .. } => format!("continue with `pgntune selfplay --resume {}`", state.display()),
        RunError::StreamedState => "drop --state".to_string(),
        _ => return err.into(),
    };
    anyhow::anyhow!("{err}: {hint}")
}

/// The configuration every kind of run builds from its options: limits
/// (with a default node count, if the command has one), rules, openings.
fn new_config(
    kind: RunKind,
    engines: Vec<EngineSpec>,
    pairs: u64,
    (limits, default_nodes): (&LimitArgs, Option<u64>),
    rules: &RuleArgs,
    openings: &OpeningArgs,
) -> Result<MatchConfig> {
    Ok(MatchConfig {
        openings: openings.plan()?,
        seed: openings.seed,
        adjudication: rules.adjudication(),
        draw_rules: rules.draw_rules.into(),
        time_margin_ms: limits.timemargin,
        date: today(),
        ..MatchConfig::new(kind, engines, pairs, limits.limits(default_nodes))
    })
}

/// Warns, unless quiet, that a new run that keeps no files cannot be
/// resumed: once its first game is in, so that a run that fails at the
/// start (an engine that does not run) says only why.
fn announce(files: Option<&RunFiles>, run: &RunArgs, progress: &Progress) {
    let saves = files.is_some_and(|f| f.pgn_out.is_some() || f.state.is_some());
    if files.is_some() && !saves && !run.quiet {
        progress.note_at_first_game("without --pgn-out or --state nothing is saved, and an interrupted run cannot be resumed");
    }
}

/// Arguments of `pgntune match`.
#[derive(Debug, Args)]
#[command(after_help = "Engines: 'name=NAME weights=FILE|PRESET [hash=MB]' plays the bundled engine in-process (hash 1 to 4096 MB); \
'name=NAME cmd=PROGRAM [arg=ARG ...] [dir=FOLDER] [hash=MB] [option.NAME=VALUE ...]' runs a UCI engine (an option the engine does not \
list is set anyway, with a warning). Either kind takes limits of its own in place of the match's: tc=BASE+INC, nodes=N, depth=N. \
The first engine plays all others; names must differ.\n\
Example: pgntune match --engine 'name=tuned weights=tuned.toml' --engine 'name=sf cmd=/usr/games/stockfish option.UCI_LimitStrength=true option.UCI_Elo=1500' --pairs 50 --tc 10+0.1 --pgn-out games.pgn\n\
The state refers to the PGN file relative to itself, so --resume works from any directory; it checks that the PGN still holds \
exactly the games it recorded, and only one run at a time may use a state.\n\
Sharded: `--shard K/N` (fixed nodes or depth) on N machines, then `match --merge STATE... --pgn-out all.pgn` gives the PGN and \
report of one run; an SPRT stops the merged match at the pair one run would have stopped at (play waves with --pair-range and \
merge between them).\n\n\
--json prints one object: kind, games, stopped ({kind: all_games_played | sprt_accepted_h1 | sprt_accepted_h0, pairs}), results \
(per opponent: engine, opponent, games {wins, draws, losses}, pairs {LL, LD, DD+WL, WD, WW}, trinomial and pentanomial estimates \
{samples, score, score_ci95, elo, elo_ci95, elo_interval, nelo, nelo_ci95, los} or {degenerate}, sprt {elo0, elo1, alpha, beta, model, \
llr, lower_bound, upper_bound, decision} or null), pgn_out, state, timing {games, wall_seconds, engine_seconds, nodes}.")]
pub struct MatchCommand {
    /// An engine (at least two; the first plays each of the others).
    #[arg(long = "engine", value_name = "SPEC", required_unless_present_any = ["resume", "merge"])]
    pub engines: Vec<EngineSpec>,
    /// Number of games against each opponent (rounded up to whole pairs).
    #[arg(long, value_name = "N", conflicts_with = "pairs", allow_negative_numbers = true, value_parser = at_least(1))]
    pub games: Option<u64>,
    /// Number of game pairs (same opening, colours swapped) against each opponent.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least(1))]
    pub pairs: Option<u64>,
    /// Stop when the SPRT decides, e.g. 'elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized' (two engines only).
    #[arg(long, value_name = "BOUNDS")]
    pub sprt: Option<SprtConfig>,
    /// Continue an interrupted match from its state file (all other options come from the state; a timed match keeps its
    /// number of games at a time unless -j is given).
    #[arg(long, value_name = "STATE", conflicts_with_all = ["engines", "games", "pairs", "sprt"])]
    pub resume: Option<PathBuf>,
    /// Play only shard K of N: the game pairs whose index (from 0) is K modulo N, as they are in the whole match (needs --nodes
    /// or --depth). The SPRT is not applied in a shard: `--merge` applies it to the merged games, in game order.
    #[arg(long, value_name = "K/N", allow_hyphen_values = true, conflicts_with_all = ["resume", "merge"])]
    pub shard: Option<ShardSpec>,
    /// With --shard: only pairs A to B-1 of the whole match (a wave of shards; A.. and ..B too).
    #[arg(long, value_name = "A..B", requires = "shard", value_parser = |s: &str| parse_pair_range(s).map_err(|e| e.to_string()))]
    pub pair_range: Option<(u64, Option<u64>)>,
    /// Merge the states of a sharded match's shards (its PGN beside each) into one match: the PGN and report of one run of it,
    /// the SPRT decided in game order; written to --pgn-out with its state.
    // Merging plays nothing: the options of playing would be ignored (`--nodes 500` was, silently).
    #[arg(long, value_name = "STATE", num_args = 1.., conflicts_with_all = [
        "engines", "games", "pairs", "sprt", "resume", "nodes", "depth", "movetime", "tc", "timemargin", "draw_rules", "resign", "draw",
        "maxmoves", "openings", "random_order", "opening_plies", "balanced", "seed", "concurrency", "report_every",
    ])]
    pub merge: Vec<PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub rules: RuleArgs,
    #[command(flatten)]
    pub openings: OpeningArgs,
    #[command(flatten)]
    pub run: RunArgs,
}

impl MatchCommand {
    /// How the library starts the run.
    fn start(&self) -> Result<MatchStart> {
        if let Some(state) = &self.resume {
            return Ok(MatchStart::Resume { state: state.clone(), kind: RunKind::Match });
        }
        if self.engines.len() < 2 {
            bail!("give at least two --engine specs");
        }
        if self.sprt.is_some() && self.engines.len() != 2 {
            bail!("--sprt needs exactly two engines");
        }
        let pairs = match (self.pairs, self.games) {
            (Some(p), _) => p,
            (None, Some(g)) => g.div_ceil(2),
            (None, None) => bail!("give --games N or --pairs N"),
        };
        let shard = self.shard.map(|shard| match self.pair_range {
            Some((first_pair, end_pair)) => ShardSpec { first_pair, end_pair, ..shard },
            None => shard,
        });
        let config = MatchConfig {
            sprt: self.sprt,
            shard,
            ..new_config(RunKind::Match, self.engines.clone(), pairs, (&self.limits, None), &self.rules, &self.openings)?
        };
        // Checked here too, so that a bad configuration is refused before any note.
        config.check()?;
        // A range past the match's end plays nothing: refused, not a run of 0 games that exits 0.
        if let Some((first, _)) = self.pair_range {
            let pairs = config.total_games() / 2;
            if first >= pairs {
                bail!("--pair-range {first}..: the match has {pairs} pairs (0 to {}), so the range holds none of them", pairs.saturating_sub(1));
            }
        }
        // A wave's shard can hold no pair (more shards than pairs): that is
        // no error, as the waves of a sharded run are cut evenly, but it is
        // said rather than exiting 0 after no game.
        if let Some(shard) = &config.shard {
            let pairs = config.total_games() / 2;
            if shard.games(pairs) == 0 {
                eprintln!("pgntune: warning: --shard {shard}: no pair of the match's {pairs} falls in it, so no game is played");
            }
        }
        Ok(MatchStart::New { config: Box::new(config), files: self.run.files() })
    }
}

pub(super) fn run_match_command(args: MatchCommand) -> Result<()> {
    if !args.merge.is_empty() {
        let merged = merge_shards(&MergeConfig { states: args.merge.clone(), files: args.run.files() }).map_err(with_hint)?;
        let text = if args.run.json { format!("{}\n", serde_json::to_string_pretty(&merged.report.to_json())?) } else { merged.report.to_string() };
        print_report(&text, &merged.report, args.run.quiet)?;
        if !args.run.quiet {
            eprintln!("{}", merged.summary());
        }
        return Ok(());
    }
    let start = args.start()?;
    let threads = args.run.threads()?;
    let progress = Progress::new(0, args.run.quiet, args.run.report_every);
    announce(matches!(&start, MatchStart::New { .. }).then(|| args.run.files()).as_ref(), &args.run, &progress);
    let outcome = run_match(start, &Execution { threads, threads_chosen: args.run.threads_chosen(), progress: &progress });
    progress.finish();
    let report = outcome.map_err(with_hint)?;
    let text = if args.run.json { format!("{}\n", serde_json::to_string_pretty(&report.to_json())?) } else { report.to_string() };
    print_report(&text, &report, args.run.quiet)
}

/// Prints a run's report (to standard error when the games went to
/// standard output) and, unless quiet, its timing line.
fn print_report(text: &str, report: &MatchReport, quiet: bool) -> Result<()> {
    if report.games_on_stdout {
        eprint!("{text}");
    } else {
        out!("{text}")?;
    }
    if report.timing.games > 0 && !quiet {
        eprintln!("{}", report.timing.summary());
    }
    Ok(())
}

/// verify's SPRT: the bounds of a gain worth keeping.
const VERIFY_SPRT: &str = "elo0=0 elo1=10 alpha=0.05 beta=0.05 model=normalized";

/// [`VERIFY_SPRT`], parsed: what `--sprt` settings left out default to
/// (they defaulted to the library's elo1 = 5).
fn verify_sprt() -> SprtConfig {
    VERIFY_SPRT.parse().expect("verify's default SPRT is valid")
}

/// Arguments of `pgntune verify`.
#[derive(Debug, Args)]
#[command(after_help = "Exit status: 0 when the SPRT accepts H1 (the candidate is stronger), 1 when it accepts H0 (it is not elo1 \
stronger), 3 when --max-pairs ends the match before the SPRT decides, 2 on any error.\n\n\
--json prints the match's object (see `pgntune match --help`) with verdict {outcome: accepted_h1 | accepted_h0 | undecided, \
exit_code, estimate, basis, text}.")]
pub struct VerifyCommand {
    /// The candidate weights (a weights file or preset; any file name).
    #[arg(value_name = "CANDIDATE", required_unless_present = "resume")]
    pub candidate: Option<String>,
    /// The weights to beat [default: full, the engine's hand-set whole evaluation].
    #[arg(long, default_value = crate::presets::DEFAULT_ENGINE)]
    pub baseline: String,
    /// SPRT bounds; the match stops when they decide. Settings left out keep these defaults.
    #[arg(long, default_value = VERIFY_SPRT, value_name = "BOUNDS", value_parser = |s: &str| SprtConfig::parse_over(s, verify_sprt()).map_err(|e| e.to_string()))]
    pub sprt: SprtConfig,
    /// At most this many game pairs if the SPRT has not decided.
    #[arg(long, default_value_t = 2000, value_name = "N", allow_negative_numbers = true, value_parser = at_least(1))]
    pub max_pairs: u64,
    /// Continue an interrupted verification from its state file (all other options come from the state).
    #[arg(long, value_name = "STATE", conflicts_with = "candidate")]
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

impl VerifyCommand {
    /// How the library starts the verification.
    fn start(&self) -> Result<VerifyStart> {
        if let Some(state) = &self.resume {
            return Ok(VerifyStart::Resume(state.clone()));
        }
        let candidate = self.candidate.as_deref().expect("clap requires CANDIDATE without --resume");
        let mut candidate = EngineSpec::bundled_named_by_weights(candidate).context("CANDIDATE")?;
        let baseline = EngineSpec::bundled_named_by_weights(&self.baseline).context("--baseline")?;
        if candidate.name == baseline.name {
            candidate.name.push_str(" (candidate)");
        }
        let config = MatchConfig {
            sprt: Some(self.sprt),
            ..new_config(RunKind::Verify, vec![candidate, baseline], self.max_pairs, (&self.limits, Some(10_000)), &self.rules, &self.openings)?
        };
        config.check()?;
        Ok(VerifyStart::New(Box::new(VerifyConfig { config, files: self.run.files() })))
    }
}

/// Runs the verification; its exit code says the verdict.
pub(super) fn run_verify(args: VerifyCommand) -> Result<u8> {
    let start = args.start()?;
    let threads = args.run.threads()?;
    let progress = Progress::new(0, args.run.quiet, args.run.report_every);
    announce(matches!(&start, VerifyStart::New(_)).then(|| args.run.files()).as_ref(), &args.run, &progress);
    let outcome = verify(start, &Execution { threads, threads_chosen: args.run.threads_chosen(), progress: &progress });
    progress.finish();
    let verdict = outcome.map_err(with_hint)?;
    let text =
        if args.run.json { format!("{}\n", serde_json::to_string_pretty(&verdict.to_json())?) } else { format!("{}\n{verdict}\n", verdict.report) };
    print_report(&text, &verdict.report, args.run.quiet)?;
    Ok(verdict.outcome.exit_code())
}

/// Arguments of `pgntune selfplay`.
#[derive(Debug, Args)]
#[command(after_help = "While it runs, the games so far are kept in OUT.games.pgn with a state in OUT.state.json; an interrupted run \
continues with `pgntune selfplay --resume OUT.state.json`, and both files are removed once OUT is written. An existing OUT is \
replaced only if it holds pgntune self-play games, or with --force. With --out - (standard output) the run cannot be resumed.")]
pub struct SelfplayCommand {
    /// Number of games: an even number, as games come in pairs (one opening, each side's weights with white once).
    #[arg(long, default_value_t = 1000, allow_negative_numbers = true, value_parser = at_least(1))]
    pub games: u64,
    /// Output PGN; compressed when the name ends in .zst, .gz or .bz2.
    #[arg(long, value_name = "FILE", required_unless_present = "resume")]
    pub out: Option<PathBuf>,
    /// Weights both sides start from (preset or file).
    #[arg(long, default_value = crate::presets::DEFAULT_ENGINE)]
    pub weights: String,
    /// Each pair, each side's piece values (N, B, R, Q) are scaled by a random factor within 1 ± this (in [0, 1)); with 0 both sides are the same engine, so each game gets an opening of its own (a pair would be one game twice).
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
    #[arg(long, short = 'j', default_value_t = 0, value_name = "N", hide_default_value = true, allow_negative_numbers = true, value_parser = at_least_usize(0))]
    pub concurrency: usize,
    /// Quiet: no progress and no summary line (errors are still shown).
    #[arg(long = "quiet", alias = "silent", short = 'q')]
    pub quiet: bool,
    /// When standard error is not a terminal: a status line every N games, every S seconds or M minutes, or both; 0: none.
    #[arg(long, value_name = "N|Ss|Mm", default_value = "100,60s")]
    pub report_every: ReportEvery,
    /// Start afresh over an earlier run's state and games, replace an OUT that is not self-play games, allow -j far above the core count.
    #[arg(long)]
    pub force: bool,
}

impl SelfplayCommand {
    /// How the library starts the run.
    fn start(&self) -> Result<SelfplayStart> {
        if let Some(path) = &self.resume {
            return Ok(SelfplayStart::Resume(path.clone()));
        }
        // `--games 1` played a pair without saying so.
        if self.games % 2 == 1 {
            bail!("--games {}: self-play plays games in pairs (one opening, colours swapped); give an even number", self.games);
        }
        let out = self.out.clone().expect("clap requires --out without --resume");
        let engine = EngineSpec::bundled("pgntune", &self.weights).context("--weights")?;
        let config = MatchConfig {
            vary_weights: Some(self.vary),
            ..new_config(
                RunKind::Selfplay,
                vec![engine.clone(), engine],
                self.games.div_ceil(2),
                (&self.limits, Some(3000)),
                &self.rules,
                &self.openings,
            )?
        };
        Ok(SelfplayStart::New(Box::new(SelfplayConfig { config, out, force: self.force })))
    }
}

pub(super) fn run_selfplay_command(args: SelfplayCommand) -> Result<()> {
    let start = args.start()?;
    let threads = threads(args.concurrency, args.force)?;
    let progress = Progress::new(0, args.quiet, args.report_every);
    let outcome = run_selfplay(start, &Execution { threads, threads_chosen: args.concurrency != 0, progress: &progress });
    progress.finish();
    let report = outcome.map_err(with_hint)?;
    if !args.quiet {
        let t = &report.timing;
        eprintln!(
            "{} games written to {} in {:.1} s ({:.0} games/min)",
            report.games,
            crate::atomic::shown(&report.out),
            t.wall.as_secs_f64(),
            t.games as f64 / (t.wall.as_secs_f64() / 60.0).max(1e-9)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_intervals_parse() {
        assert_eq!("10".parse::<ReportEvery>(), Ok(ReportEvery { games: Some(10), time: None }));
        assert_eq!("10,60s".parse::<ReportEvery>(), Ok(ReportEvery { games: Some(10), time: Some(Duration::from_secs(60)) }));
        assert_eq!("5m".parse::<ReportEvery>(), Ok(ReportEvery { games: None, time: Some(Duration::from_secs(300)) }));
        assert_eq!("0".parse::<ReportEvery>(), Ok(ReportEvery { games: None, time: None }));
        assert!("ten".parse::<ReportEvery>().is_err() && "10h".parse::<ReportEvery>().is_err());
    }
}
