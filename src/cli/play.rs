//! `pgntune play` and `pgntune openings`, and the options every command
//! that plays games shares (limits, rules, openings).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;

use super::values::{at_least, at_least_u32, at_least_usize, whole};
use crate::atomic::{AtomicFile, OutputKind, OutputPlan};
use crate::play::openings::{BalanceCheck, DEFAULT_PGN_PLIES, MAX_RANDOM_PLIES, load, suite_from_games};
use crate::play::{Adjudication, Clocks, DrawRule, DrawRules, EngineSpec, GameSetup, MoveLimits, Opening, OpeningPlan, PgnHeader, ResignRule, play_game, to_pgn};

/// How long each move may take.
#[derive(Debug, Clone, Args)]
pub struct LimitArgs {
    /// Nodes per move (deterministic: games do not depend on machine load).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least(1))]
    pub nodes: Option<u64>,
    /// Depth per move (1 to 100).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u32>(1, i128::from(crate::engine::params::MAX_DEPTH)))]
    pub depth: Option<u32>,
    /// Milliseconds per move.
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = at_least(1))]
    pub movetime: Option<u64>,
    /// Time control BASE+INC in seconds, e.g. 10+0.1.
    #[arg(long, value_name = "BASE+INC", allow_hyphen_values = true)]
    pub tc: Option<String>,
    /// Milliseconds an engine may exceed its clock before its flag falls.
    #[arg(long, default_value_t = 0, value_name = "MS", allow_negative_numbers = true, value_parser = at_least(0))]
    pub timemargin: u64,
}

impl LimitArgs {
    /// The limits, with `default_nodes` when none is given (or an error
    /// without one), and the PGN `[TimeControl]` value.
    pub fn limits(&self, default_nodes: Option<u64>) -> Result<(MoveLimits, String)> {
        let mut limits = MoveLimits { nodes: self.nodes, depth: self.depth, movetime_ms: self.movetime, clocks: None };
        let mut tag = "-".to_string();
        if let Some(tc) = &self.tc {
            let (base, inc) = tc.split_once('+').unwrap_or((tc, "0"));
            let seconds = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite());
            let (Some(base), Some(inc)) = (seconds(base), seconds(inc)) else { bail!("--tc '{tc}' is not BASE+INC in seconds, e.g. 10+0.1") };
            if base <= 0.0 || inc < 0.0 {
                bail!("--tc '{tc}': the base time must be positive and the increment not negative (seconds, e.g. 10+0.1)");
            }
            let (base_ms, inc_ms) = ((base * 1000.0).round() as u64, (inc * 1000.0).round() as u64);
            if base_ms == 0 {
                bail!("--tc '{tc}': the base time must be at least a millisecond");
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
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least_u32(1))]
    pub maxmoves: Option<u32>,
}

impl RuleArgs {
    /// The adjudication settings.
    pub fn adjudication(&self) -> Adjudication {
        Adjudication { resign: self.resign, draw: self.draw, maxmoves: self.maxmoves }
    }
}

/// Where games start.
#[derive(Debug, Clone, Args)]
pub struct OpeningArgs {
    /// Opening suite: EPD positions or PGN games (their main lines, at most --opening-plies plies). Each opening is played twice, colours swapped.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Take the suite's openings in a random order (by --seed) instead of sequentially.
    #[arg(long)]
    pub random_order: bool,
    /// Plies of each opening: without --openings, this many random plies (at most 40) [default: 8]; with a PGN suite, at most this many plies of each game [default: 16].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least_u32(0))]
    pub opening_plies: Option<u32>,
    /// Without --openings: keep only random openings the engine scores within ±CP (0: no check).
    #[arg(long, default_value_t = 100, value_name = "CP", allow_negative_numbers = true, value_parser = whole::<i32>(0, i128::from(i32::MAX)))]
    pub balanced: i32,
    /// Seed for random openings and random order.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = at_least(0))]
    pub seed: u64,
}

impl OpeningArgs {
    /// The openings: a suite read (and checked) now, or random ones.
    pub fn plan(&self) -> Result<OpeningPlan> {
        Ok(match &self.openings {
            Some(path) => {
                let plies = self.opening_plies.map_or(DEFAULT_PGN_PLIES, |p| p as usize);
                OpeningPlan::Suite { source: path.display().to_string(), openings: load(path, plies)?, shuffled: self.random_order }
            }
            None => {
                let plies = self.opening_plies.unwrap_or(8);
                if plies > MAX_RANDOM_PLIES {
                    bail!("--opening-plies {plies}: random openings have at most {MAX_RANDOM_PLIES} plies (random moves would end games before the engines play); use --openings for longer ones");
                }
                OpeningPlan::Random { plies, balance_cp: (self.balanced > 0).then_some(self.balanced) }
            }
        })
    }
}

/// Days since the epoch to a civil date (Howard Hinnant's algorithm), for `[Date]`.
pub(super) fn today() -> String {
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

/// Arguments of `pgntune play`.
#[derive(Debug, Args)]
pub struct PlayCommand {
    /// White: a weights file or preset.
    #[arg(long, default_value = "classical")]
    pub white: String,
    /// Black: a weights file or preset.
    #[arg(long, default_value = "classical")]
    pub black: String,
    /// Start from this FEN instead of the standard position (Chess960 castling rights are accepted).
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
#[command(after_help = "An existing --out is replaced only if it is an opening suite (EPD), or with --force; '-' writes standard output.")]
pub struct OpeningsCommand {
    /// PGN files to take openings from.
    #[arg(required = true, value_name = "PGN")]
    pub inputs: Vec<PathBuf>,
    /// The position after this many plies of each game.
    #[arg(long, default_value_t = 8, allow_negative_numbers = true, value_parser = at_least_usize(1))]
    pub plies: usize,
    /// Output EPD file.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Keep only positions the engine scores within ±CP (0: keep all).
    #[arg(long, default_value_t = 0, value_name = "CP", allow_negative_numbers = true, value_parser = whole::<i32>(0, i128::from(i32::MAX)))]
    pub balanced: i32,
    /// Nodes per balance check.
    #[arg(long, default_value_t = 5000, allow_negative_numbers = true, value_parser = at_least(1))]
    pub nodes: u64,
    /// Replace an existing --out that is not an opening suite.
    #[arg(long)]
    pub force: bool,
    /// Quiet: no summary line (errors are still shown).
    #[arg(long = "silent", alias = "quiet", short = 'q')]
    pub quiet: bool,
}

pub(super) fn run_openings(args: OpeningsCommand) -> Result<()> {
    let mut plan = OutputPlan::new(args.force).allow_stdout();
    for input in &args.inputs {
        plan.input(input);
    }
    plan.output(&args.out, OutputKind::Openings)?;
    let inputs: Vec<&Path> = args.inputs.iter().map(PathBuf::as_path).collect();
    let mut check = (args.balanced > 0).then(|| BalanceCheck::new(args.balanced, args.nodes));
    let lines = suite_from_games(&inputs, args.plies, check.as_mut())?;
    if lines.is_empty() {
        bail!("no game had {} plies to give an opening", args.plies);
    }
    let mut text = lines.join("\n");
    text.push('\n');
    AtomicFile::write_all(&args.out, text.as_bytes())?;
    if !args.quiet {
        eprintln!("{} distinct openings after {} plies written to {}", lines.len(), args.plies, args.out.display());
    }
    Ok(())
}
