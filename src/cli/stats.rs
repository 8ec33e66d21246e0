//! `pgntune stats`: Elo, LOS and SPRT from counts alone.

use anyhow::Result;
use clap::Args;

use super::values::whole;
use crate::stats::{Penta, SprtConfig, StatsConfig, Wdl, summarise};

/// Arguments of `pgntune stats`.
/// The largest count `--wdl` and `--penta` take: far beyond any match, and
/// small enough that their sums and scores are exact.
const MAX_COUNT: i128 = 1_000_000_000_000;

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  pgntune stats --wdl 136 111 96\n  pgntune stats --penta 379 10170 21828 10640 343 --sprt 'elo0=0 elo1=2 alpha=0.05 beta=0.05 model=normalized'\n\n\
--json prints one object: games {wins, draws, losses} and pairs {LL, LD, DD+WL, WD, WW} (null when not given); trinomial and \
pentanomial estimates {samples, score, score_ci95, elo, elo_ci95, elo_interval, nelo, nelo_ci95, los} or {degenerate: sentence}; \
sprt {elo0, elo1, alpha, beta, model, llr, llr_approx, lower_bound, upper_bound, decision: H1|H0|continue} or null."
)]
pub struct StatsCommand {
    /// Wins, draws and losses of the first engine (each at most 10^12).
    // Bounded so that sums and scores stay exact: counts near u64::MAX
    // wrapped when added up (a score of 150%).
    #[arg(long, num_args = 3, value_names = ["W", "D", "L"], allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_COUNT), required_unless_present = "penta")]
    pub wdl: Option<Vec<u64>>,

    /// Game-pair counts: LL, LD, DD+WL, WD, WW (pair scores 0, ½, 1, 1½, 2; each at most 10^12).
    #[arg(long, num_args = 5, value_names = ["LL", "LD", "DD+WL", "WD", "WW"], allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_COUNT))]
    pub penta: Option<Vec<u64>>,

    /// SPRT bounds, e.g. 'elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized'.
    #[arg(long)]
    pub sprt: Option<SprtConfig>,

    /// Print the statistics as one JSON object (keys below).
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub quiet: super::values::Quiet,
}

impl StatsCommand {
    /// The library's configuration.
    fn config(&self) -> StatsConfig {
        StatsConfig {
            wdl: self.wdl.as_ref().map(|w| Wdl::new(w[0], w[1], w[2])),
            penta: self.penta.as_ref().map(|p| Penta([p[0], p[1], p[2], p[3], p[4]])),
            sprt: self.sprt,
        }
    }
}

pub(super) fn run_stats(args: StatsCommand) -> Result<()> {
    let report = summarise(args.config())?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report.to_json())?)?;
    } else {
        outln!("{report}")?;
    }
    Ok(())
}
