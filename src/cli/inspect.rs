//! `pgntune features`, `evaluate` and `weights`: looking at feature sets,
//! weights and datasets.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};

use super::values::{at_least_usize, check_threads};
use crate::atomic::{AtomicFile, OutputKind, OutputPlan};
use crate::dataset::load::LoadOptions;
use crate::features::{FeatureLayout, FeatureSet};
use crate::fit::sparse::ScaleK;
use crate::tables::{Language, emit, show};
use crate::tune::evaluate::EvaluateConfig;
use crate::weights::Weights;

/// Arguments of `pgntune features`.
#[derive(Debug, Args)]
pub struct FeaturesCommand {
    /// Also list every column of these feature sets (comma separated, or `full`).
    #[arg(long, value_name = "SETS")]
    pub columns: Option<String>,

    #[command(flatten)]
    pub quiet: super::values::Quiet,
}

pub(super) fn run_features(args: FeaturesCommand) -> Result<()> {
    // Parsed first: a bad --columns is an error, not the table and then one.
    let columns = args.columns.as_deref().map(FeatureLayout::parse).transpose()?;
    let full = FeatureLayout::full();
    outln!("{:<18} {:>7} {:>7} {:>8}  meaning", "set", "terms", "columns", "in full")?;
    for set in FeatureSet::ALL {
        // One parenthesis: "(the 2015 article; untapered)", not "(the 2015 article) (untapered)".
        let meaning = match (set.tapered(), set.meaning().strip_suffix(')')) {
            (true, _) => set.meaning().to_string(),
            (false, Some(open)) => format!("{open}; untapered)"),
            (false, None) => format!("{} (untapered)", set.meaning()),
        };
        outln!("{:<18} {:>7} {:>7} {:>8}  {meaning}", set.name(), set.term_count(), set.len(), if full.contains(*set) { "yes" } else { "" },)?;
    }
    outln!("{:<18} {:>7} {:>7} {:>8}  the whole evaluation: {}", "full", full.term_count(), full.len(), "", full.spec())?;
    if let Some(layout) = columns {
        outln!()?;
        for column in layout.columns() {
            outln!("{column}")?;
        }
    }
    Ok(())
}

/// Arguments of `pgntune evaluate`.
#[derive(Debug, Args)]
#[command(after_help = "Compare weight files on held-out data: the lower the log-loss, the better the weights predict the games.")]
pub struct EvaluateCommand {
    /// Datasets (any format `extract` writes, or EPD) whose positions to evaluate; - reads one from standard input.
    #[arg(required = true, value_name = "DATASET")]
    pub datasets: Vec<PathBuf>,

    /// The weights: a file or a preset (classical, full, ...).
    #[arg(long, short = 'w', value_name = "WEIGHTS")]
    pub weights: String,

    /// Texel's K for the log-loss and the squared error, or auto: the best K for these weights on these positions [default: auto].
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub k: Option<ScaleK>,

    /// The feature sets of positions read from EPD files.
    #[arg(long, default_value = "full", value_name = "SETS")]
    pub epd_features: String,

    /// Stop at the first bad EPD line instead of reporting and skipping it.
    #[arg(long)]
    pub strict: bool,

    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,

    /// Worker threads (default: one per core). The result does not depend on it.
    #[arg(long, short = 'j', default_value_t = 0, value_name = "N", hide_default_value = true, allow_negative_numbers = true, value_parser = at_least_usize(0))]
    pub threads: usize,

    #[command(flatten)]
    pub quiet: super::values::Quiet,
}

pub(super) fn run_evaluate(args: EvaluateCommand) -> Result<()> {
    check_threads("--threads", args.threads, None)?;
    super::extract::refuse_repeated_inputs(args.datasets.iter().map(PathBuf::as_path), "rows")?;
    let k = match args.k {
        Some(ScaleK::Fixed(k)) => Some(k),
        Some(ScaleK::Auto) | None => None,
    };
    let weights = Weights::resolve(&args.weights).context("--weights")?;
    let load = LoadOptions { epd_layout: FeatureLayout::parse(&args.epd_features)?, strict: args.strict };
    let (datasets, _stdin) = super::fit::spool_datasets(&args.datasets)?;
    let report = crate::tune::evaluate::run(&EvaluateConfig { datasets, weights, k, load, threads: args.threads })?;
    super::fit::warn_bad_lines(&report.load);
    for warning in &report.warnings {
        eprintln!("pgntune: warning: {warning}");
    }
    let result = &report.evaluation;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(result)?)?;
    } else {
        outln!("{} on {} positions:", report.name, result.positions)?;
        outln!("  log-loss  {:.6}", result.log_loss)?;
        outln!("  MSE       {:.6} (at K = {:.4})", result.mse, result.k)?;
        if result.accuracy.is_nan() {
            outln!("  accuracy  n/a (no decisive games)")?;
        } else {
            outln!("  accuracy  {:.2}% of positions from decisive games favour the winner", 100.0 * result.accuracy)?;
        }
    }
    Ok(())
}

/// Arguments of `pgntune weights`.
#[derive(Debug, Args)]
pub struct WeightsCommand {
    #[command(subcommand)]
    pub action: WeightsAction,

    #[command(flatten)]
    pub quiet: super::values::Quiet,
}

/// What to do with a weights file.
#[derive(Debug, Subcommand)]
pub enum WeightsAction {
    /// Print every value: piece-square tables as 8×8 boards, other terms as tables (centipawns).
    Show {
        /// A weights file or a preset.
        #[arg(value_name = "WEIGHTS")]
        weights: String,
    },
    /// Write the terms as source code an engine can paste: named arrays of (middlegame, endgame) pairs.
    Emit {
        /// A weights file or a preset.
        #[arg(value_name = "WEIGHTS")]
        weights: String,
        /// rust, c or json.
        #[arg(long, default_value = "rust", value_name = "LANG")]
        lang: Language,
        /// Where to write (default: standard output).
        #[arg(short, long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        /// Replace an existing file pgntune did not write.
        #[arg(long)]
        force: bool,
    },
    /// Draw the piece-square tables as heat maps (PNG and SVG) into a folder.
    Plot {
        /// A weights file or a preset.
        #[arg(value_name = "WEIGHTS")]
        weights: String,
        /// The folder (made if it does not exist; its parent must exist).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// Replace existing figures pgntune did not write.
        #[arg(long)]
        force: bool,
    },
}

pub(super) fn run_weights(args: WeightsCommand) -> Result<()> {
    match args.action {
        WeightsAction::Show { weights } => {
            let w = Weights::resolve(&weights)?;
            out!("{}", show(&w)?)?;
        }
        WeightsAction::Emit { weights, lang, output, force } => {
            let w = Weights::resolve(&weights)?;
            let text = emit(&w, lang)?;
            match output {
                Some(path) => {
                    let mut plan = OutputPlan::new(force);
                    plan.input(std::path::Path::new(&weights));
                    plan.output(&path, OutputKind::Source)?;
                    AtomicFile::write_all(&path, text.as_bytes())?;
                }
                None => out!("{text}")?,
            }
        }
        WeightsAction::Plot { weights, dir, force } => {
            let w = Weights::resolve(&weights)?;
            if !w.layout()?.contains(FeatureSet::Pst) {
                bail!("the weights '{}' have no piece-square tables (sets: {})", w.name, w.features.join(", "));
            }
            let mut plan = OutputPlan::new(force);
            plan.folder(&dir)?;
            // A folder still to be made holds nothing to replace.
            if dir.is_dir() {
                for file in crate::analysis::plots::pst_heatmap_files(&dir) {
                    plan.output(&file, OutputKind::Figure)?;
                }
            }
            for file in crate::analysis::plots::pst_heatmaps(&w, &dir)? {
                outln!("{}", file.display())?;
            }
        }
    }
    Ok(())
}
