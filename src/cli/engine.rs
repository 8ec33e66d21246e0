//! `pgntune uci`, `bench`, `eval` and `perft`: the bundled engine.

use std::io;

use anyhow::{Context, Result, bail};
use clap::Args;
use shakmaty::Chess;
use shakmaty::fen::Fen;

use super::values::whole;
use crate::engine::Evaluator;
use crate::engine::bench::{DEFAULT_BENCH_DEPTH, run_bench};
use crate::engine::perft::PerftConfig;
use crate::uci::{Game, SessionError};
use crate::weights::Weights;

/// Which weights the engine plays with.
#[derive(Debug, Clone, Args)]
pub struct WeightsArg {
    /// A weights file written by `fit --weights-out` or `tune`, or a preset: full (the hand-set whole evaluation, the default), classical, kaissa, pgnlearn2015, flat.
    /// Material-only weights play with the built-in piece-square tables added.
    #[arg(long, short = 'w', default_value = crate::presets::DEFAULT_ENGINE, value_name = "FILE|PRESET")]
    pub weights: String,
}

impl WeightsArg {
    /// The weights.
    pub fn load(&self) -> Result<Weights> {
        // The error names the file, or lists the presets once.
        Weights::resolve(&self.weights).context("--weights")
    }

    /// The evaluator for the weights.
    pub fn evaluator(&self) -> Result<Evaluator> {
        Ok(Evaluator::new(&self.load()?)?)
    }
}

/// Arguments of `pgntune uci`.
#[derive(Debug, Args)]
pub struct UciCommand {
    #[command(flatten)]
    pub weights: WeightsArg,

    #[command(flatten)]
    pub quiet: super::values::Quiet,
}

pub(super) fn run_uci(args: UciCommand) -> Result<()> {
    let weights = args.weights.load()?;
    // Fail before the GUI starts talking if the weights cannot be used.
    Evaluator::new(&weights)?;
    crate::uci::run(io::BufReader::new(io::stdin()), io::stdout(), weights)?;
    Ok(())
}

/// Arguments of `pgntune bench`.
#[derive(Debug, Args)]
pub struct BenchCommand {
    /// Search depth for every position.
    #[arg(long, short, default_value_t = DEFAULT_BENCH_DEPTH, allow_negative_numbers = true, value_parser = whole::<u32>(1, i128::from(crate::engine::params::MAX_DEPTH)))]
    pub depth: u32,

    #[command(flatten)]
    pub weights: WeightsArg,

    #[command(flatten)]
    pub quiet: super::values::Quiet,
}

pub(super) fn run_bench_command(args: BenchCommand) -> Result<()> {
    let evaluator = args.weights.evaluator()?;
    out!("{}", run_bench(&evaluator, args.depth))?;
    Ok(())
}

/// Arguments of `pgntune eval`.
#[derive(Debug, Args)]
pub struct EvalCommand {
    /// The position, as a FEN (quote it: it contains spaces) or 'startpos', optionally followed by 'moves' and UCI moves ('startpos moves e2e4 e7e5'). Chess960 castling rights are accepted.
    #[arg(value_name = "FEN")]
    pub fen: String,

    #[command(flatten)]
    pub weights: WeightsArg,

    #[command(flatten)]
    pub quiet: super::values::Quiet,
}

pub(super) fn run_eval(args: EvalCommand) -> Result<()> {
    let evaluator = args.weights.evaluator()?;
    let pos = position(&args.fen)?;
    outln!("weights: {}", evaluator.name())?;
    out!("{}", evaluator.explain(&pos))?;
    Ok(())
}

/// Arguments of `pgntune perft`.
#[derive(Debug, Args)]
#[command(after_help = "Example: pgntune perft 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1' 4  (4085603 nodes)")]
pub struct PerftCommand {
    /// The position, as a FEN (quote it: it contains spaces) or 'startpos', optionally followed by 'moves' and UCI moves. Chess960 castling rights are accepted.
    #[arg(value_name = "FEN")]
    pub fen: String,
    /// Plies to count (at most 10: deeper counts take years).
    #[arg(value_name = "DEPTH", allow_negative_numbers = true, value_parser = whole::<u32>(0, i128::from(crate::engine::perft::MAX_PERFT_DEPTH)))]
    pub depth: u32,
    /// Also print the count below each legal move ('e2e4: 20'), as engines' `go perft` does.
    #[arg(long)]
    pub divide: bool,

    #[command(flatten)]
    pub quiet: super::values::Quiet,
}

impl PerftCommand {
    /// The library's configuration.
    fn config(&self) -> Result<PerftConfig> {
        let position = position(&self.fen)?;
        Ok(PerftConfig::new(position, self.depth, self.divide))
    }
}

/// The position given on the command line as a UCI `position` command
/// names it: a FEN (after UCI's `fen` keyword or without it) or
/// `startpos`, then optionally `moves` and the moves played since, in UCI
/// notation (`startpos moves e2e4 e7e5`).
fn position(text: &str) -> Result<Chess> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let moves_at = tokens.iter().position(|&t| t == "moves").unwrap_or(tokens.len());
    let head = &tokens[..moves_at];
    let head = head.strip_prefix(&["fen"][..]).unwrap_or(head);
    let position = if head == ["startpos"] {
        Chess::default()
    } else {
        let fen_text = head.join(" ");
        let fen: Fen = fen_text.parse().with_context(|| format!("'{fen_text}' is not a FEN"))?;
        crate::pgn::replay::position_from_fen(fen).with_context(|| format!("'{fen_text}' is not a legal position"))?
    };
    // The moves are played as the engine plays a GUI's `position` command.
    let moves: Vec<String> = tokens.get(moves_at + 1..).unwrap_or_default().iter().map(|m| m.to_string()).collect();
    let mut game = Game { position, ..Game::default() };
    match game.play(&moves) {
        Ok(()) => Ok(game.position),
        // The session's message speaks to a GUI; this one to the user.
        Err(SessionError::IllegalMove { text, number, reason }) => {
            bail!("move '{text}' (move {number} after the position) cannot be played: {reason}")
        }
        Err(e) => Err(e.into()),
    }
}

pub(super) fn run_perft(args: PerftCommand) -> Result<()> {
    let report = crate::engine::perft::run(&args.config()?);
    out!("{report}")?;
    Ok(())
}
