//! `pgntune features`, `evaluate`, `label` and `weights`: looking at feature
//! sets, weights and datasets, and labelling positions by search.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};

use super::values::{at_least, at_least_usize, check_threads};
use crate::atomic::{AtomicFile, OutputKind, OutputPlan};
use crate::dataset::fens::read_positions;
use crate::dataset::load::{LoadOptions, load_positions};
use crate::dataset::{Format, RowBatch, Schema, create_writer};
use crate::engine::Evaluator;
use crate::features::{FeatureLayout, FeatureSet, TermScratch};
use crate::fit::sparse::evaluate;
use crate::tables::{Language, emit, show};
use crate::weights::Weights;

/// Arguments of `pgntune features`.
#[derive(Debug, Args)]
pub struct FeaturesCommand {
    /// Also list every column of these feature sets (comma separated, or `full`).
    #[arg(long, value_name = "SETS")]
    pub columns: Option<String>,
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
    /// Datasets (any format `extract` writes, or EPD) whose positions to evaluate.
    #[arg(required = true, value_name = "DATASET")]
    pub datasets: Vec<PathBuf>,

    /// The weights: a file or a preset (classical, full, ...).
    #[arg(long, short = 'w', value_name = "WEIGHTS")]
    pub weights: String,

    /// Texel's K for the log-loss and the squared error, or auto: the best K for these weights on these positions [default: auto].
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = k_or_auto)]
    pub k: Option<KChoice>,

    /// The feature sets of positions read from EPD files.
    #[arg(long, default_value = "full", value_name = "SETS")]
    pub epd_features: String,

    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,

    /// Worker threads (default: one per core). The result does not depend on it.
    #[arg(long, short = 'j', default_value_t = 0, value_name = "N", hide_default_value = true, allow_negative_numbers = true, value_parser = at_least_usize(0))]
    pub threads: usize,
}

/// `--k` of `evaluate`: a number, or `auto` as `tune --k` takes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KChoice(Option<f64>);

fn k_or_auto(text: &str) -> Result<KChoice, String> {
    let (min, max) = (crate::fit::sparse::MIN_K, crate::fit::sparse::MAX_K);
    match text.trim() {
        "auto" => Ok(KChoice(None)),
        number => match number.parse::<f64>() {
            Ok(k) if (min..=max).contains(&k) => Ok(KChoice(Some(k))),
            _ => Err(format!("must be 'auto' or a number from {min} to {max}")),
        },
    }
}

pub(super) fn run_evaluate(args: EvaluateCommand) -> Result<()> {
    check_threads("--threads", args.threads, None)?;
    super::extract::refuse_repeated_inputs(args.datasets.iter().map(PathBuf::as_path), "rows")?;
    let k = args.k.and_then(|choice| choice.0);
    let weights = Weights::resolve(&args.weights).context("--weights")?;
    let options = LoadOptions { epd_layout: FeatureLayout::parse(&args.epd_features)?, strict: false };
    let (positions, report) = load_positions(&args.datasets, &options)?;
    if report.bad_lines > 0 {
        eprintln!("pgntune: warning: {} bad lines skipped", report.bad_lines);
    }
    let columns = positions.layout().columns();
    let weight_layout = weights.layout()?;
    if let Some(missing) = columns.iter().find(|c| !weight_layout.columns().contains(c)) {
        bail!(
            "the weights '{}' ({}) have no column {missing} of the dataset's sets '{}'",
            weights.name,
            weight_layout.spec(),
            positions.layout().spec()
        );
    }
    if let Some(warning) = crate::fit::sparse::columns::left_out_warning("--weights", positions.layout(), &weights)? {
        eprintln!("pgntune: warning: {warning}");
    }
    let w: Vec<f64> = columns.iter().map(|c| weights.centipawns(c)).collect();
    let result = evaluate(Arc::new(positions), &w, k, args.threads)?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&result)?)?;
    } else {
        outln!("{} on {} positions:", weights.name, result.positions)?;
        outln!("  log-loss  {:.6}", result.log_loss)?;
        outln!("  MSE       {:.6} (at K = {:.4})", result.mse, result.k)?;
        outln!("  accuracy  {:.2}% of positions from decisive games favour the winner", 100.0 * result.accuracy)?;
    }
    Ok(())
}

/// Arguments of `pgntune label`.
#[derive(Debug, Args)]
#[command(after_help = "The labels go into an `eval` column (centipawns, white's view), or `ce` in EPD; \
tune or fit with --eval-weight W to mix them into the targets.")]
pub struct LabelCommand {
    /// A dataset with positions: EPD, or CSV/TSV/Parquet written by `extract --fen`.
    #[arg(value_name = "DATASET")]
    pub dataset: PathBuf,

    /// Where the labelled rows go (any format `extract` writes, by extension).
    #[arg(short, long = "output", value_name = "OUTPUT")]
    pub output: PathBuf,

    /// Search depth per position.
    #[arg(long, default_value_t = 6, allow_negative_numbers = true, value_parser = at_least(1))]
    pub depth: u64,

    /// The engine's weights (a file or a preset).
    #[arg(long, short = 'w', default_value = "full", value_name = "WEIGHTS")]
    pub weights: String,

    /// The feature sets of the rows written.
    #[arg(long, default_value = "full", value_name = "SETS")]
    pub features: String,

    /// Hash table per search thread, in MB.
    #[arg(long, default_value_t = 16, allow_negative_numbers = true, value_parser = at_least(1))]
    pub hash: u64,

    /// Worker threads (default: one per core). The labels do not depend on it.
    #[arg(long, short = 'j', default_value_t = 0, value_name = "N", hide_default_value = true, allow_negative_numbers = true, value_parser = at_least_usize(0))]
    pub threads: usize,

    /// Replace an existing output that pgntune did not write.
    #[arg(long)]
    pub force: bool,

    /// No summary line.
    #[arg(long = "silent", short = 'q')]
    pub quiet: bool,
}

pub(super) fn run_label(args: LabelCommand) -> Result<()> {
    check_threads("--threads", args.threads, Some(args.force))?;
    if args.depth > 60 {
        bail!("--depth must be at most 60");
    }
    if args.hash > 4096 {
        bail!("--hash must be at most 4096 MB");
    }
    if crate::atomic::is_stdout(&args.output) {
        bail!("-o -: label writes a file (its format from the extension), not standard output");
    }
    let format = Format::resolve(&args.output, None)?;
    if !format.keeps_evals() {
        bail!(
            "{}: {} holds no evaluation labels, which label writes; write .csv, .tsv, .parquet, .ijv, .svm or .epd",
            args.output.display(),
            OutputKind::Dataset(format).describe()
        );
    }
    let mut plan = OutputPlan::new(args.force);
    plan.input(&args.dataset);
    plan.output(&args.output, OutputKind::Dataset(format))?;
    let layout = FeatureLayout::parse(&args.features)?;
    let evaluator = Evaluator::new(&Weights::resolve(&args.weights).context("--weights")?)?;
    let dataset = read_positions(&args.dataset)?;
    let rows = &dataset.rows;
    if rows.is_empty() {
        bail!("{}: no positions to label", args.dataset.display());
    }
    let started = std::time::Instant::now();
    let threads = crate::thread_count(args.threads);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    let positions: Vec<_> = rows.iter().map(|r| r.position.clone()).collect();
    let labels = crate::engine::label::label_positions(&positions, &evaluator, args.depth as u32, args.hash as usize, &pool);
    // The tags the dataset kept go on, so that a labelled set can still be
    // grouped or split by player, event or date.
    let tags = if format.keeps_tags() { dataset.tags.clone() } else { Vec::new() };
    if tags.len() < dataset.tags.len() {
        eprintln!(
            "pgntune: warning: {}: {} holds no tags: the tags of {} ({}) are not written",
            args.output.display(),
            OutputKind::Dataset(format).describe(),
            args.dataset.display(),
            dataset.tags.join(", ")
        );
    }
    let schema = Schema { eval: true, fen: true, tags, ..Schema::new(layout.clone()) };
    let mut writer = create_writer(&args.output, format, &schema, threads)?;
    let mut batch = RowBatch::new(&schema);
    let (mut scratch, mut terms) = (TermScratch::default(), Vec::new());
    for (row, &label) in rows.iter().zip(&labels) {
        let phase = layout.terms_of(&row.position, &mut scratch, &mut terms);
        batch.push_features(&terms, phase);
        batch.results.push(row.result);
        batch.games.push(row.game);
        batch.plies.push(row.ply);
        batch.evals.push(label);
        batch.fens.push(shakmaty::fen::Fen::from_position(&row.position, shakmaty::EnPassantMode::Legal).to_string());
        for (column, value) in batch.tags.iter_mut().zip(&row.tags) {
            column.push(value.clone());
        }
    }
    writer.write(&batch)?;
    writer.finish()?;
    if !args.quiet {
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "labelled {} at depth {} in {seconds:.1} s ({:.0} positions/s)",
            crate::plural::count(rows.len() as u64, "position", "positions"),
            args.depth,
            rows.len() as f64 / seconds.max(1e-9)
        );
    }
    Ok(())
}

/// Arguments of `pgntune weights`.
#[derive(Debug, Args)]
pub struct WeightsCommand {
    #[command(subcommand)]
    pub action: WeightsAction,
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
        /// The folder (it must exist).
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
