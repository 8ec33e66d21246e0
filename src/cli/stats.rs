//! `pgntune stats`: Elo, LOS and SPRT from counts alone.

use anyhow::{Result, bail};
use clap::Args;

use super::values::at_least;
use crate::stats::{Penta, Report, SprtConfig, Wdl};

/// Arguments of `pgntune stats`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  pgntune stats --wdl 136 111 96\n  pgntune stats --penta 379 10170 21828 10640 343 --sprt 'elo0=0 elo1=2 alpha=0.05 beta=0.05 model=normalized'")]
pub struct StatsCommand {
    /// Wins, draws and losses of the first engine.
    #[arg(long, num_args = 3, value_names = ["W", "D", "L"], allow_negative_numbers = true, value_parser = at_least(0))]
    pub wdl: Option<Vec<u64>>,

    /// Game-pair counts: LL, LD, DD+WL, WD, WW (pair scores 0, ½, 1, 1½, 2).
    #[arg(long, num_args = 5, value_names = ["LL", "LD", "DD+WL", "WD", "WW"], allow_negative_numbers = true, value_parser = at_least(0))]
    pub penta: Option<Vec<u64>>,

    /// SPRT bounds, e.g. 'elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized'.
    #[arg(long)]
    pub sprt: Option<SprtConfig>,
}

pub(super) fn run_stats(args: StatsCommand) -> Result<()> {
    let penta = args.penta.map(|p| Penta([p[0], p[1], p[2], p[3], p[4]]));
    let wdl = match (&args.wdl, &penta) {
        (Some(w), _) => Wdl::new(w[0], w[1], w[2]),
        // Pairs alone fix the points, not the split into wins and draws
        // (DD and WL look alike); report the pentanomial statistics only.
        (None, Some(_)) => Wdl::default(),
        (None, None) => bail!("give --wdl W D L or --penta LL LD DD+WL WD WW"),
    };
    if args.wdl.is_some() || penta.is_none() {
        let report = Report { wdl, penta, sprt: args.sprt };
        outln!("{report}")?;
    } else if let Some(p) = &penta {
        let report = Report { wdl: Wdl::default(), penta: Some(*p), sprt: args.sprt };
        // Skip the (empty) trinomial lines.
        for line in report.to_string().lines().filter(|l| !l.starts_with("Games 0") && !l.starts_with("Trinomial")) {
            outln!("{line}")?;
        }
    }
    if let (Some(sprt), Some(p)) = (&args.sprt, &penta) {
        outln!("LLR {:.3} (generalised SPRT, MLE multinomial); {:.3} by fishtest's closed-form approximation", sprt.llr(p), sprt.llr_approx(p))?;
    }
    Ok(())
}
