//! `pgntune play` and `pgntune openings`, and the options every command
//! that plays games shares (limits, rules, openings).

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;

use super::values::{at_least, at_least_u32, at_least_usize, whole};
use crate::play::openings::{DEFAULT_PGN_PLIES, MAX_RANDOM_PLIES, SuiteConfig, build_suite, load};
use crate::play::run::today;
use crate::play::{Adjudication, DrawRule, DrawRules, EngineSpec, MoveLimits, Opening, OpeningPlan, PlayConfig, ResignRule, TimeControl, play_one};

/// How long each move may take.
#[derive(Debug, Clone, Args)]
pub struct LimitArgs {
    /// Nodes per move (deterministic: games do not depend on machine load).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u64>(1, i128::from(crate::engine::params::MAX_NODES)))]
    pub nodes: Option<u64>,
    /// Depth per move (1 to 100).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u32>(1, i128::from(crate::engine::params::MAX_DEPTH)))]
    pub depth: Option<u32>,
    /// Milliseconds per move (at most a day).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = whole::<u64>(1, i128::from(crate::play::limits::MAX_MOVE_MS)))]
    pub movetime: Option<u64>,
    /// Time control BASE+INC in seconds, e.g. 10+0.1.
    #[arg(long, value_name = "BASE+INC", allow_hyphen_values = true)]
    pub tc: Option<TimeControl>,
    /// Milliseconds an engine may exceed its clock before its flag falls (at most a day).
    #[arg(long, default_value_t = 0, value_name = "MS", allow_negative_numbers = true, value_parser = whole::<u64>(0, i128::from(crate::play::limits::MAX_MOVE_MS)))]
    pub timemargin: u64,
}

impl LimitArgs {
    /// The limits, with `default_nodes` when none is given; `None` when
    /// none is given and there is no default (the engines may bring their own).
    pub fn limits(&self, default_nodes: Option<u64>) -> MoveLimits {
        let mut limits = MoveLimits { nodes: self.nodes, depth: self.depth, movetime_ms: self.movetime, tc: self.tc };
        if limits.is_empty() {
            limits.nodes = default_nodes;
        }
        limits
    }
}

/// `--draw-rules` (the library's [`DrawRules`], named for the command line).
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum DrawRulesArg {
    /// Threefold repetition and the 50-move rule end a game at once.
    Claim,
    /// Only fivefold repetition and the 75-move rule do.
    Automatic,
}

impl From<DrawRulesArg> for DrawRules {
    fn from(arg: DrawRulesArg) -> DrawRules {
        match arg {
            DrawRulesArg::Claim => DrawRules::Claim,
            DrawRulesArg::Automatic => DrawRules::Automatic,
        }
    }
}

/// Game rules and adjudication.
#[derive(Debug, Clone, Args)]
pub struct RuleArgs {
    /// claim: threefold repetition and the 50-move rule end a game at once; automatic: only fivefold and 75 moves do.
    #[arg(long, value_enum, default_value_t = DrawRulesArg::Claim)]
    pub draw_rules: DrawRulesArg,
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
                let openings = load(path, plies).map_err(|e| match e {
                    crate::play::openings::OpeningError::Finished { .. } => anyhow::Error::new(e).context("--openings (use fewer --opening-plies)"),
                    e => anyhow::Error::new(e),
                })?;
                OpeningPlan::Suite { source: path.display().to_string(), openings, shuffled: self.random_order }
            }
            None => {
                let plies = self.opening_plies.unwrap_or(8);
                if plies > MAX_RANDOM_PLIES {
                    bail!(
                        "--opening-plies {plies}: random openings have at most {MAX_RANDOM_PLIES} plies (random moves would end games before the engines play); use --openings for longer ones"
                    );
                }
                OpeningPlan::Random { plies, balance_cp: (self.balanced > 0).then_some(self.balanced) }
            }
        })
    }
}

/// Arguments of `pgntune play`.
#[derive(Debug, Args)]
pub struct PlayCommand {
    /// White: a weights file or preset.
    #[arg(long, default_value = crate::presets::DEFAULT_ENGINE)]
    pub white: String,
    /// Black: a weights file or preset.
    #[arg(long, default_value = crate::presets::DEFAULT_ENGINE)]
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

    #[command(flatten)]
    pub quiet: super::values::Quiet,
}

impl PlayCommand {
    /// The library's configuration.
    fn config(&self) -> Result<PlayConfig> {
        let white = EngineSpec::bundled_named_by_weights(&self.white).context("--white")?;
        let black = EngineSpec::bundled_named_by_weights(&self.black).context("--black")?;
        let fen = self.fen.as_ref().map(|f| f.trim().parse::<Fen>().with_context(|| format!("--fen '{f}' is not a FEN"))).transpose()?;
        let moves = self
            .moves
            .split_whitespace()
            .map(|m| m.parse::<UciMove>().with_context(|| format!("--moves: '{m}' is not a move in UCI notation")))
            .collect::<Result<Vec<_>>>()?;
        let opening = Opening::new(fen, moves).context("opening")?;
        Ok(PlayConfig {
            white,
            black,
            opening,
            limits: self.limits.limits(Some(20_000)),
            adjudication: self.rules.adjudication(),
            draw_rules: self.rules.draw_rules.into(),
            time_margin_ms: self.limits.timemargin,
            event: "pgntune play".into(),
            date: today(),
        })
    }
}

pub(super) fn run_play(args: PlayCommand) -> Result<()> {
    let (_, pgn) = play_one(&args.config()?, &mut |w| eprintln!("warning: {w}"))?;
    out!("{pgn}")?;
    Ok(())
}

/// Arguments of `pgntune openings`.
#[derive(Debug, Args)]
#[command(
    after_help = "An existing --out is replaced only with --force (a suite is plain EPD, like any opening book, so an existing one may be yours); '-' writes standard output."
)]
pub struct OpeningsCommand {
    /// PGN files (plain or compressed) to take openings from; - reads standard input.
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
    #[arg(long, default_value_t = 5000, allow_negative_numbers = true, value_parser = whole::<u64>(1, i128::from(crate::engine::params::MAX_NODES)))]
    pub nodes: u64,
    /// Replace an existing --out.
    #[arg(long)]
    pub force: bool,
    /// Quiet: no summary line (errors are still shown).
    #[arg(long = "quiet", alias = "silent", short = 'q')]
    pub quiet: bool,
}

impl OpeningsCommand {
    /// The library's configuration.
    fn config(&self) -> SuiteConfig {
        SuiteConfig {
            inputs: self.inputs.clone(),
            plies: self.plies,
            balance: (self.balanced > 0).then_some((self.balanced, self.nodes)),
            out: self.out.clone(),
            force: self.force,
        }
    }
}

pub(super) fn run_openings(args: OpeningsCommand) -> Result<()> {
    let report = build_suite(&args.config())?;
    // Also with -q: a warning is not a note.
    let shown = report.problems.len().min(crate::pgn::extract::PROBLEMS_KEPT);
    super::extract::warn_problems(&report.problems[..shown], report.problems.len() as u64);
    if !args.quiet {
        eprintln!(
            "{} after {} written to {}",
            crate::plural::count(report.openings as u64, "distinct opening", "distinct openings"),
            crate::plural::count(args.plies as u64, "ply", "plies"),
            crate::atomic::shown(&args.out)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_fall_back_to_the_commands_default() {
        let args = LimitArgs { nodes: None, depth: None, movetime: None, tc: None, timemargin: 0 };
        assert_eq!(args.limits(Some(10_000)), MoveLimits::nodes(10_000));
        assert!(args.limits(None).is_empty());
        let args = LimitArgs { tc: Some("1+0.01".parse().unwrap()), ..args };
        assert_eq!(args.limits(Some(10_000)).nodes, None);
    }
}
