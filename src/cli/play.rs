//! `pgntune play`, `match`, `verify`, `selfplay` and `openings`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::atomic::AtomicFile;
use crate::play::openings::{BalanceCheck, load, suite_from_games};
use crate::play::state::MatchState;
use crate::play::tournament::{MatchProgress, Timing};
use crate::play::{
    Adjudication, Clocks, DrawRule, DrawRules, EngineSpec, GameSetup, MatchConfig, MoveLimits, Opening, OpeningPlan, PgnHeader, ResignRule,
    play_game, run_match, to_pgn,
};
use crate::stats::{Report, SprtConfig, SprtDecision};

/// How long each move may take.
#[derive(Debug, Clone, Args)]
pub struct LimitArgs {
    /// Nodes per move (deterministic: games do not depend on machine load).
    #[arg(long, value_name = "N")]
    pub nodes: Option<u64>,
    /// Depth per move.
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,
    /// Milliseconds per move.
    #[arg(long, value_name = "MS")]
    pub movetime: Option<u64>,
    /// Time control BASE+INC in seconds, e.g. 10+0.1.
    #[arg(long, value_name = "BASE+INC")]
    pub tc: Option<String>,
    /// Milliseconds an engine may exceed its clock before its flag falls.
    #[arg(long, default_value_t = 0, value_name = "MS")]
    pub timemargin: u64,
}

impl LimitArgs {
    fn limits(&self, default_nodes: Option<u64>) -> Result<(MoveLimits, String)> {
        let mut limits = MoveLimits { nodes: self.nodes, depth: self.depth, movetime_ms: self.movetime, clocks: None };
        let mut tag = "-".to_string();
        if let Some(tc) = &self.tc {
            let (base, inc) = tc.split_once('+').unwrap_or((tc, "0"));
            let seconds = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
            let (Some(base), Some(inc)) = (seconds(base), seconds(inc)) else { bail!("--tc '{tc}' is not BASE+INC in seconds, e.g. 10+0.1") };
            let (base_ms, inc_ms) = ((base * 1000.0).round() as u64, (inc * 1000.0).round() as u64);
            if base_ms == 0 {
                bail!("--tc: the base time must be positive");
            }
            limits.clocks = Some(Clocks { white_ms: base_ms, black_ms: base_ms, increment_ms: inc_ms });
            tag = format!("{}+{}", trim_float(base), trim_float(inc));
        }
        if limits.nodes.is_none() && limits.depth.is_none() && limits.movetime_ms.is_none() && limits.clocks.is_none() {
            match default_nodes {
                Some(n) => limits.nodes = Some(n),
                None => bail!("give a limit per move: --nodes, --depth, --movetime or --tc"),
            }
        }
        Ok((limits, tag))
    }
}

fn trim_float(v: f64) -> String {
    let s = format!("{v}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// Game rules and adjudication.
#[derive(Debug, Clone, Args)]
pub struct RuleArgs {
    /// claim: threefold repetition and the 50-move rule end a game at once; automatic: only fivefold and 75 moves do.
    #[arg(long, value_enum, default_value_t = DrawRules::Claim)]
    pub draw_rules: DrawRules,
    /// Resign adjudication, e.g. 'movecount=3 score=600': a side whose engine scores its own position at -600 or worse for 3 moves loses; add twosided=true to require the opponent's +600 as well.
    #[arg(long, value_name = "SETTINGS")]
    pub resign: Option<ResignRule>,
    /// Draw adjudication, e.g. 'movenumber=40 movecount=8 score=10'.
    #[arg(long, value_name = "SETTINGS")]
    pub draw: Option<DrawRule>,
    /// Draw after this many moves by each side, counted from the start of the game (opening moves included).
    #[arg(long, value_name = "N")]
    pub maxmoves: Option<u32>,
}

impl RuleArgs {
    fn adjudication(&self) -> Adjudication {
        Adjudication { resign: self.resign, draw: self.draw, maxmoves: self.maxmoves }
    }
}

/// Where games start.
#[derive(Debug, Clone, Args)]
pub struct OpeningArgs {
    /// Opening suite: EPD positions or PGN games (their main lines). Each opening is played twice, colours swapped.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Take the suite's openings in a random order (by --seed) instead of sequentially.
    #[arg(long)]
    pub random_order: bool,
    /// Without --openings: this many random plies from the start position.
    #[arg(long, default_value_t = 8, value_name = "N")]
    pub opening_plies: u32,
    /// Without --openings: keep only random openings the engine scores within ±CP (0: no check).
    #[arg(long, default_value_t = 100, value_name = "CP")]
    pub balanced: i32,
    /// Seed for random openings and random order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl OpeningArgs {
    fn plan(&self) -> Result<OpeningPlan> {
        Ok(match &self.openings {
            Some(path) => OpeningPlan::Suite { source: path.display().to_string(), openings: load(path)?, shuffled: self.random_order },
            None => OpeningPlan::Random { plies: self.opening_plies, balance_cp: (self.balanced > 0).then_some(self.balanced) },
        })
    }
}

/// Options shared by `match`, `verify` and `selfplay`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Games played at once (default: one per core). Results with --nodes or --depth do not depend on it.
    #[arg(long, short = 'j', value_name = "N")]
    pub concurrency: Option<usize>,
    /// Where to write the games (PGN). Complete games only; a resumed match continues the same file.
    #[arg(long, value_name = "FILE")]
    pub pgn_out: Option<PathBuf>,
    /// Where to keep the match state for --resume [default: PGN file + .state.json].
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Start a new match even if the state file of an earlier one exists (its PGN is overwritten).
    #[arg(long)]
    pub force: bool,
}

impl RunArgs {
    /// Refuses to start a new match over an earlier one's state, which
    /// would overwrite its games, unless --force.
    fn check_fresh(&self) -> Result<()> {
        if let Some(state) = self.state_path().filter(|p| p.exists() && !self.force) {
            bail!("{} holds an earlier match: continue it with `pgntune match --resume {0}`, or pass --force to start afresh", state.display());
        }
        Ok(())
    }

    fn threads(&self) -> usize {
        self.concurrency.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
    }

    fn state_path(&self) -> Option<PathBuf> {
        self.state.clone().or_else(|| self.pgn_out.as_ref().map(|p| PathBuf::from(format!("{}.state.json", p.display()))))
    }
}

/// Arguments of `pgntune match`.
#[derive(Debug, Args)]
#[command(after_help = "Engines: 'name=NAME weights=FILE|PRESET [hash=MB]' plays the bundled engine in-process; \
'name=NAME cmd=PROGRAM [arg=ARG ...] [option.NAME=VALUE ...]' runs a UCI engine. The first engine plays all others.\n\
Example: pgntune match --engine 'name=tuned weights=tuned.toml' --engine 'name=sf cmd=/usr/games/stockfish option.UCI_LimitStrength=true option.UCI_Elo=1500' --pairs 50 --tc 10+0.1 --pgn-out games.pgn")]
pub struct MatchCommand {
    /// An engine (at least two; the first plays each of the others).
    #[arg(long = "engine", value_name = "SPEC", required_unless_present = "resume")]
    pub engines: Vec<String>,
    /// Number of games against each opponent (rounded up to whole pairs).
    #[arg(long, value_name = "N", conflicts_with = "pairs")]
    pub games: Option<u64>,
    /// Number of game pairs (same opening, colours swapped) against each opponent.
    #[arg(long, value_name = "N")]
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

fn today() -> String {
    // Days since the epoch to a civil date (Howard Hinnant's algorithm).
    let days = (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()) / 86_400) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
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

/// Prints the match report: per opponent, the statistics; then timing.
fn print_report(state: &MatchState, timing: &Timing) -> std::io::Result<()> {
    let config = &state.config;
    for (i, totals) in state.totals.iter().enumerate() {
        if totals.wdl.games() == 0 && state.totals.len() > 1 {
            continue;
        }
        outln!("{} vs {}", config.engines[0].name, config.engines[i + 1].name)?;
        let report = Report { wdl: totals.wdl, penta: Some(totals.penta), sprt: if config.opponents() == 1 { config.sprt_config() } else { None } };
        outln!("{report}")?;
    }
    if let Some(why) = &state.stopped {
        outln!("Stopped: {why}.")?;
    }
    if timing.games > 0 {
        let minutes = timing.wall.as_secs_f64() / 60.0;
        let engine_share = timing.engine.as_secs_f64() / timing.games_wall.as_secs_f64().max(1e-9);
        let overhead_ms = (timing.games_wall.saturating_sub(timing.engine)).as_secs_f64() * 1000.0 / timing.games as f64;
        eprintln!(
            "{} games in {:.1} s: {:.1} games/min; engine search {:.1}% of game time, {:.2} ms outside the search per game; {:.2} M nodes/s per game thread",
            timing.games,
            timing.wall.as_secs_f64(),
            timing.games as f64 / minutes,
            100.0 * engine_share,
            overhead_ms,
            timing.nodes as f64 / timing.engine.as_secs_f64().max(1e-9) / 1e6
        );
    }
    Ok(())
}

fn run_and_report(state: MatchState, run: &RunArgs) -> Result<MatchState> {
    let state_path = run.state_path();
    if state_path.is_none() && !run.quiet {
        eprintln!("note: without --pgn-out or --state nothing is saved, and an interrupted run cannot be resumed");
    }
    let bar = MatchBar::new(state.cutoff, run.quiet);
    let (state, timing) = run_match(state, state_path.as_deref(), run.threads(), &bar)?;
    bar.bar.finish_and_clear();
    print_report(&state, &timing)?;
    Ok(state)
}

pub(super) fn run_match_command(args: MatchCommand) -> Result<()> {
    if let Some(path) = &args.resume {
        let state = MatchState::load(path)?;
        let run = RunArgs { state: Some(path.clone()), pgn_out: state.config.pgn_out.clone(), ..args.run.clone() };
        run_and_report(state, &run)?;
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
    let (limits, time_control) = args.limits.limits(None)?;
    let config = MatchConfig {
        event: "pgntune match".into(),
        date: today(),
        engines,
        pairs,
        limits,
        openings: args.openings.plan()?,
        seed: args.openings.seed,
        adjudication: args.rules.adjudication(),
        draw_rules: args.rules.draw_rules,
        time_margin_ms: args.limits.timemargin,
        sprt: args.sprt.map(|s| s.to_string()),
        pgn_out: args.run.pgn_out.clone(),
        time_control,
        vary_weights: None,
    };
    args.run.check_fresh()?;
    run_and_report(MatchState::new(config), &args.run)?;
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
    #[arg(long, default_value_t = 2000, value_name = "N")]
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
    let (limits, time_control) = args.limits.limits(Some(10_000))?;
    let config = MatchConfig {
        event: "pgntune verify".into(),
        date: today(),
        engines: vec![candidate, baseline],
        pairs: args.max_pairs,
        limits,
        openings: args.openings.plan()?,
        seed: args.openings.seed,
        adjudication: args.rules.adjudication(),
        draw_rules: args.rules.draw_rules,
        time_margin_ms: args.limits.timemargin,
        sprt: Some(args.sprt.to_string()),
        pgn_out: args.run.pgn_out.clone(),
        time_control,
        vary_weights: None,
    };
    args.run.check_fresh()?;
    let state = run_and_report(MatchState::new(config), &args.run)?;
    outln!("\n{}", verdict(&state))?;
    Ok(())
}

/// Arguments of `pgntune selfplay`.
#[derive(Debug, Args)]
pub struct SelfplayCommand {
    /// Number of games.
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Output PGN; compressed when the name ends in .zst or .gz.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Weights both sides start from (preset or file).
    #[arg(long, default_value = "classical")]
    pub weights: String,
    /// Each pair, each side's piece values (N, B, R, Q) are scaled by a random factor within 1 ± this.
    #[arg(long, default_value_t = 0.25)]
    pub vary: f64,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub rules: RuleArgs,
    #[command(flatten)]
    pub openings: OpeningArgs,
    /// Games played at once (default: one per core). The games do not depend on it with --nodes or --depth.
    #[arg(long, short = 'j', value_name = "N")]
    pub concurrency: Option<usize>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

pub(super) fn run_selfplay(args: SelfplayCommand) -> Result<()> {
    if !(0.0..1.0).contains(&args.vary) {
        bail!("--vary must be in [0, 1)");
    }
    let white = EngineSpec::bundled("pgntune", &args.weights).map_err(anyhow::Error::msg)?;
    let black = EngineSpec { name: "pgntune".into(), ..white.clone() };
    let (limits, time_control) = args.limits.limits(Some(3000))?;
    // Fail now, not after the games, if the output cannot be written.
    drop(AtomicFile::create(&args.out)?);
    // Games go to a plain PGN beside the output, compressed at the end.
    let plain = args.out.with_file_name(format!(".{}.games.pgn", args.out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()));
    let config = MatchConfig {
        event: "pgntune selfplay".into(),
        date: today(),
        engines: vec![white, black],
        pairs: args.games.div_ceil(2),
        limits,
        openings: args.openings.plan()?,
        seed: args.openings.seed,
        adjudication: args.rules.adjudication(),
        draw_rules: args.rules.draw_rules,
        time_margin_ms: args.limits.timemargin,
        sprt: None,
        pgn_out: Some(plain.clone()),
        time_control,
        vary_weights: Some(args.vary),
    };
    let run = RunArgs { concurrency: args.concurrency, pgn_out: Some(plain.clone()), state: None, quiet: args.quiet, force: true };
    let threads = run.threads();
    let bar = MatchBar::new(config.total_games(), args.quiet);
    let result = run_match(MatchState::new(config), None, threads, &bar);
    bar.bar.finish_and_clear();
    let (state, timing) = match result {
        Ok(done) => done,
        Err(e) => {
            let _ = std::fs::remove_file(&plain);
            return Err(e.into());
        }
    };
    let text = std::fs::read(&plain).with_context(|| plain.display().to_string())?;
    write_compressed(&args.out, &text)?;
    let _ = std::fs::remove_file(&plain);
    eprintln!(
        "{} games written to {} in {:.1} s ({:.0} games/min)",
        state.committed,
        args.out.display(),
        timing.wall.as_secs_f64(),
        timing.games as f64 / (timing.wall.as_secs_f64() / 60.0).max(1e-9)
    );
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

/// Arguments of `pgntune play`.
#[derive(Debug, Args)]
pub struct PlayCommand {
    /// White: a weights file or preset.
    #[arg(long, default_value = "classical")]
    pub white: String,
    /// Black: a weights file or preset.
    #[arg(long, default_value = "classical")]
    pub black: String,
    /// Start from this FEN instead of the standard position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Opening moves in UCI notation, space separated (e.g. 'e2e4 e7e5').
    #[arg(long, default_value = "")]
    pub moves: String,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub rules: RuleArgs,
}

pub(super) fn run_play(args: PlayCommand) -> Result<()> {
    let white = EngineSpec::bundled("white", &args.white).map_err(anyhow::Error::msg).context("--white")?;
    let black = EngineSpec::bundled("black", &args.black).map_err(anyhow::Error::msg).context("--black")?;
    let name = |spec: &EngineSpec| match &spec.kind {
        crate::play::player::EngineKind::Bundled { weights, .. } => weights.name.clone(),
        _ => spec.name.clone(),
    };
    let (white, black) = (EngineSpec { name: name(&white), ..white.clone() }, EngineSpec { name: name(&black), ..black.clone() });
    let opening = Opening { fen: args.fen.clone(), moves: args.moves.split_whitespace().map(String::from).collect() };
    opening.start().map_err(anyhow::Error::msg).context("opening")?;
    let (limits, time_control) = args.limits.limits(Some(20_000))?;
    let mut w = white.start()?;
    let mut b = black.start()?;
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let adjudication = args.rules.adjudication();
    let setup = GameSetup { opening: &opening, limits: &limits, adjudication: &adjudication, draw_rules: args.rules.draw_rules, time_margin_ms: args.limits.timemargin, cancel: &cancel, adjourned: None };
    let game = play_game(w.as_mut(), b.as_mut(), &setup, &mut |_| {}).map_err(|e| anyhow::anyhow!("{e}"))?;
    let header = PgnHeader { event: "pgntune play".into(), date: today(), round: "1".into(), time_control };
    out!("{}", to_pgn(&game, &header))?;
    Ok(())
}

/// Arguments of `pgntune openings`.
#[derive(Debug, Args)]
pub struct OpeningsCommand {
    /// PGN files to take openings from.
    #[arg(required = true, value_name = "PGN")]
    pub inputs: Vec<PathBuf>,
    /// The position after this many plies of each game.
    #[arg(long, default_value_t = 8)]
    pub plies: usize,
    /// Output EPD file.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Keep only positions the engine scores within ±CP (0: keep all).
    #[arg(long, default_value_t = 0, value_name = "CP")]
    pub balanced: i32,
    /// Nodes per balance check.
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
}

pub(super) fn run_openings(args: OpeningsCommand) -> Result<()> {
    let inputs: Vec<&Path> = args.inputs.iter().map(PathBuf::as_path).collect();
    let mut check = (args.balanced > 0).then(|| BalanceCheck::new(args.balanced, args.nodes));
    let lines = suite_from_games(&inputs, args.plies, check.as_mut())?;
    if lines.is_empty() {
        bail!("no game had {} plies to give an opening", args.plies);
    }
    let mut text = lines.join("\n");
    text.push('\n');
    AtomicFile::write_all(&args.out, text.as_bytes())?;
    eprintln!("{} distinct openings after {} plies written to {}", lines.len(), args.plies, args.out.display());
    Ok(())
}
