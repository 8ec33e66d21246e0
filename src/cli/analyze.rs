//! `pgntune analyze`: score curves, per-group values, comparisons, plots.
//! The analysis is [`crate::analysis::run`]; this file builds its
//! configuration and prints the report.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;

use super::extract::{ReadArgs, check_inputs, report};
use super::fit::FitArgs;
use super::progress::ReadProgress;
use super::tune::SolverArg;
use super::values::{at_least, check_threads};
use crate::analysis::imbalance::{self, FitOptions, ImbalanceConfig, LAYOUT};
use crate::analysis::run::FIGURES;
use crate::analysis::{AnalyzeConfig, GroupKey, GroupTable, Grouping, ReadObserver, Scale, ScoreCurve, run};
use crate::atomic::{OutputKind, OutputPlan};
use crate::features::FeatureLayout;
use crate::fit::{DrawMode, Loss};
use crate::pgn::InputSource;
use crate::pgn::extract::Progress;

/// Arguments of `pgntune analyze`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  pgntune analyze ../shared/data/pgnlearn/OpenRating.pgn --plot out/\n  pgntune analyze ../shared/data/human/*.pgn --group-by player\n  pgntune analyze ../shared/data/human/*.pgn --group-by decade --plot out/\n  pgntune analyze human.parquet engine.parquet --compare\n\n\
--json prints one object: score_curve {scale, points [{balance, rows, points, mean, ci95}], alpha, alpha_ci95, alpha_decisive}, \
fit (the fit of all games, as fit --json prints it) and groups ({title, groups [{name, games, decisive_games, rows, fit, note, z}]} \
or null); --weights-out and --trace are those of the fit of all games. \
Datasets without a game column (pgnlearn's .mat) have no game counts: their groups show '?' and are fitted whatever --min-decisive says."
)]
pub struct AnalyzeCommand {
    /// PGN files (plain or compressed) or datasets written by `extract` (.mat, .csv, .tsv, .parquet).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,

    /// The scale of material balances: 1-3-3-5-9 style values of P N B R Q in pawns, or a weights file or preset.
    #[arg(long, default_value = "1-3-3-5-9")]
    pub scale: String,

    /// Fit piece values separately per group: player (each input file, or --player), event, year, decade, elo, timecontrol, or any tag name.
    #[arg(long, value_name = "KEY")]
    pub group_by: Option<GroupKey>,

    /// Only games where White or Black contains NAME (case-insensitive); with --group-by player, one group named NAME.
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,

    /// Compare the inputs: each input is a group, and each value's difference from the first input's gets a z-score.
    #[arg(long, conflicts_with = "group_by")]
    pub compare: bool,

    /// Groups with fewer decisive games are reported but not fitted (a few hundred are needed for stable values).
    #[arg(long, default_value_t = 250, value_name = "N", allow_negative_numbers = true, value_parser = at_least(0))]
    pub min_decisive: u64,

    /// Write the figures (score curve, convergence, group comparison; with --imbalance the knight and rook by own pawns) as PNG and SVG into this directory (created if missing).
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,

    /// Material imbalance: fit material_tapered + bishop_pair + imbalance without a penalty and test Kaufman's findings (knight and rook by own pawns, rook pair, queen and rook, bishop pair) against material alone; inputs may be folders of PGN files; --draws exclude or half.
    #[arg(long, conflicts_with_all = ["group_by", "player"])]
    pub imbalance: bool,

    #[command(flatten)]
    pub read: ReadArgs,

    #[command(flatten)]
    pub fit: FitArgs,
}

/// Reading progress: a bar per PGN input on a terminal.
struct Observer {
    quiet: bool,
}

impl ReadObserver for Observer {
    fn progress(&self, _input: &str, size: Option<u64>) -> Box<dyn Progress + '_> {
        Box::new(ReadProgress::new(size, self.quiet))
    }
}

fn print_curve(curve: &ScoreCurve) -> std::io::Result<()> {
    outln!("Score curve (material balance on the {} scale, white minus black):", curve.scale)?;
    outln!("{:>9} {:>9} {:>8} {:>17}", "pawns", "rows", "score", "95% CI")?;
    for p in &curve.points {
        outln!("{:>+9.1} {:>9} {:>8.3} {:>17}", p.balance, p.rows, p.mean, format!("[{:.3}, {:.3}]", p.ci95.0, p.ci95.1))?;
    }
    outln!(
        "logistic fit E(ΔM) = 1/(1+e^(−αΔM)): α = {:.4}, 95% CI [{:.4}, {:.4}] (all rows, draws as half points)",
        curve.alpha,
        curve.alpha_ci95.0,
        curve.alpha_ci95.1
    )?;
    if let Some((a, (lo, hi))) = curve.alpha_decisive {
        outln!("                                  decisive rows only: α = {a:.4}, 95% CI [{lo:.4}, {hi:.4}] (the 2015 article drew α ≈ 0.7 by eye)")?;
    }
    Ok(())
}

fn print_groups(table: &GroupTable) -> std::io::Result<()> {
    let groups = table.fits.as_slice();
    let Some(columns) = groups.iter().find_map(|g| g.fit.as_ref().map(|f| f.columns.clone())) else {
        for g in groups {
            outln!("{}: {}", g.name, g.note.as_deref().unwrap_or("not fitted"))?;
        }
        return Ok(());
    };
    let width = groups.iter().map(|g| g.name.chars().count()).max().unwrap_or(5).clamp(5, 28);
    let shown: Vec<usize> = (0..columns.len()).filter(|&j| columns[j] != crate::fit::REFERENCE).collect();
    out!("{:<width$} {:>7} {:>8}", "group", "games", "decisive")?;
    for &j in &shown {
        out!(" {:>19}", format!("{} (P=100)", columns[j]))?;
    }
    outln!()?;
    let diffs = table.differences();
    for (g, diff) in groups.iter().zip(diffs) {
        let name: String = g.name.chars().take(width).collect();
        let count = |n: Option<u64>| n.map_or_else(|| "?".to_string(), |n| n.to_string());
        out!("{name:<width$} {:>7} {:>8}", count(g.games), count(g.decisive_games))?;
        match (g.fit.as_ref().and_then(|f| f.values.as_ref()), g.fit.as_ref().and_then(|f| f.values_ci95.as_ref())) {
            (Some(values), Some(ci)) => {
                for &j in &shown {
                    let cell = match ci[j] {
                        Some((lo, hi)) => format!("{:.0} [{:.0}, {:.0}]", values[j], lo, hi),
                        None => format!("{:.0}", values[j]),
                    };
                    out!(" {cell:>19}")?;
                }
                outln!()?;
                if let Some(diff) = diff.filter(|_| !std::ptr::eq(g, groups.iter().find(|g| g.fit.is_some()).unwrap_or(g))) {
                    out!("{:<width$} {:>7} {:>8}", "", "", "z")?;
                    for &j in &shown {
                        out!(" {:>19}", diff[j].map_or_else(|| "n/a".to_string(), |d| format!("{:+.2}", d.z)))?;
                    }
                    outln!()?;
                }
            }
            _ => outln!("  {}", g.note.as_deref().unwrap_or("not fitted"))?,
        }
    }
    Ok(())
}

impl AnalyzeCommand {
    /// The library's configuration.
    fn config(&self) -> Result<AnalyzeConfig> {
        let scale = Scale::parse(&self.scale).context("--scale")?;
        let grouping = match (&self.group_by, self.compare) {
            (Some(key), _) => Grouping::By(key.clone()),
            (None, true) => Grouping::CompareInputs,
            (None, false) => Grouping::None,
        };
        Ok(AnalyzeConfig {
            inputs: self.inputs.clone(),
            read: self.read.config(1)?,
            scale,
            grouping,
            player: self.player.clone(),
            min_decisive: self.min_decisive,
            fit: self.fit.fit_config()?,
            draw_models: self.plot.is_some(),
        })
    }
}

pub(super) fn run_analyze(args: AnalyzeCommand) -> Result<()> {
    if args.imbalance {
        return run_imbalance(args);
    }
    let config = args.config()?;
    check_threads("--threads", args.read.threads, Some(args.fit.force))?;
    let mut plan = OutputPlan::new(args.fit.force);
    for input in &args.inputs {
        plan.input(Path::new(input));
    }
    args.read.plan_inputs(&mut plan);
    if let Some(scale) = Scale::file(&args.scale) {
        plan.input(scale);
    }
    check_inputs(&args.inputs.iter().map(|i| InputSource::from_arg(i)).collect::<Vec<_>>())?;
    args.fit.plan_outputs(&mut plan)?;
    if let Some(dir) = &args.plot {
        plan.folder(dir)?;
        // A folder still to be made holds nothing to replace.
        if dir.is_dir() {
            for figure in FIGURES {
                for ext in ["png", "svg"] {
                    plan.output(&dir.join(format!("{figure}.{ext}")), OutputKind::Figure)?;
                }
            }
        }
    }
    let analysis = run(&config, &Observer { quiet: args.read.quiet })?;
    for input in &analysis.inputs {
        if let Some(stats) = &input.stats {
            report(stats, true);
            if !args.read.quiet {
                eprintln!("{}: {}", input.input, stats.summary_line());
            }
        }
    }
    let features = args.fit.feature_sets(&analysis.columns)?;
    if args.fit.json {
        outln!("{}", serde_json::to_string_pretty(&analysis.to_json())?)?;
    } else {
        print_curve(&analysis.curve)?;
        outln!()?;
        outln!("Piece values, all games:")?;
        out!("{}", args.fit.text(&analysis.fit))?;
        if let Some(table) = &analysis.groups {
            let z = if table.compared { "; z: difference from the first group over its standard error" } else { "" };
            outln!("\n{} (values with 95% intervals{z}):", table.title)?;
            print_groups(table)?;
        }
    }
    args.fit.write_files(&analysis.fit, &features, &analysis.name)?;
    if let Some(dir) = &args.plot {
        std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
        analysis.write_figures(dir)?;
        if !args.read.quiet {
            eprintln!("figures written to {}", dir.display());
        }
    }
    Ok(())
}

/// The options of the ordinary analysis that `--imbalance` cannot honour.
fn check_imbalance_options(args: &AnalyzeCommand) -> Result<()> {
    if args.read.features != "material" && FeatureLayout::parse(&args.read.features).ok() != Some(imbalance::layout()) {
        bail!("--imbalance fits its own features ({LAYOUT}); leave out --features");
    }
    let fit = &args.fit;
    // The default of --lambda: any other value was asked for.
    if fit.lambda != 1e-6 {
        bail!("--imbalance fits without a penalty (a likelihood-ratio test needs the likelihood itself); leave out --lambda");
    }
    let unsupported = [
        (fit.intercept, "--intercept"),
        (fit.bootstrap.is_some(), "--bootstrap"),
        (fit.holdout.is_some(), "--holdout"),
        (fit.weights_out.is_some(), "--weights-out"),
        (fit.trace.is_some(), "--trace"),
        (fit.solver != SolverArg::Auto, "--solver"),
        (fit.loss != Loss::CrossEntropy, "--loss mse"),
        (fit.draws == DrawMode::Ordinal, "--draws ordinal"),
    ];
    if let Some((_, option)) = unsupported.iter().find(|(given, _)| *given) {
        bail!("--imbalance does not take {option} (it fits the logistic likelihood by Newton's method; --draws exclude or half)");
    }
    Ok(())
}

/// `analyze --imbalance`: the library's imbalance analysis, printed.
fn run_imbalance(args: AnalyzeCommand) -> Result<()> {
    check_imbalance_options(&args)?;
    check_threads("--threads", args.read.threads, Some(args.fit.force))?;
    let fit = FitOptions {
        draws: args.fit.draws,
        k: None,
        tol: args.fit.tol.unwrap_or(FitOptions::default().tol),
        max_iters: args.fit.iters.unwrap_or(FitOptions::default().max_iters),
        threads: args.read.threads,
    };
    let config = ImbalanceConfig { inputs: args.inputs.clone(), read: args.read.config(args.fit.seed)?, compare: args.compare, fit };
    let mut plan = OutputPlan::new(args.fit.force);
    // A folder stands for the PGN files under it (as the guide's command
    // gives them): those are the inputs checked and kept from being written.
    let mut sources = Vec::new();
    for input in &args.inputs {
        let path = Path::new(input);
        if input != "-" && path.is_dir() {
            sources.extend(imbalance::pgn_files(path).with_context(|| input.clone())?.into_iter().map(InputSource::File));
        } else {
            sources.push(InputSource::from_arg(input));
        }
    }
    for source in &sources {
        if let InputSource::File(path) = source {
            plan.input(path);
        } else {
            plan.input(Path::new("-"));
        }
    }
    args.read.plan_inputs(&mut plan);
    if let Some(scale) = Scale::file(&args.scale) {
        plan.input(scale);
    }
    check_inputs(&sources)?;
    if let Some(dir) = &args.plot {
        plan.folder(dir)?;
        if dir.is_dir() {
            for ext in ["png", "svg"] {
                plan.output(&dir.join(format!("{}.{ext}", imbalance::FIGURE)), OutputKind::Figure)?;
            }
        }
    }
    let quiet = args.read.quiet;
    let stage = |message: &str| {
        if !quiet {
            eprintln!("{message}");
        }
    };
    let analysis = imbalance::run(&config, &Observer { quiet }, &stage)?;
    for (input, stats) in analysis.reads.iter().flatten() {
        report(stats, true);
        if !quiet {
            eprintln!("{input}: {}", stats.summary_line());
        }
    }
    if args.fit.json {
        outln!("{}", serde_json::to_string_pretty(&analysis.to_json())?)?;
    } else {
        out!("{}", analysis.to_text())?;
    }
    if let Some(dir) = &args.plot {
        std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
        analysis.write_figure(dir)?;
        if !quiet {
            eprintln!("figure written to {}", dir.display());
        }
    }
    Ok(())
}
