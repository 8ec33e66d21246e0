//! `pgntune label`: the arguments, turned into a [`LabelConfig`], and the
//! run's progress and report on standard error.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::values::{at_least, at_least_usize, check_threads};
use crate::dataset::{Format, SparseShape};
use crate::features::FeatureLayout;
use crate::label::{LabelConfig, LabelProgress, LabelReport, Teacher, run};
use crate::play::limits::MoveLimits;
use crate::play::spec::{EngineKind, EngineSpec};
use crate::weights::Weights;

/// Arguments of `pgntune label`.
#[derive(Debug, Args)]
#[command(after_help = "The labels go into an `eval` column (centipawns, white's view), or `ce` in EPD; \
tune or fit with --eval-weight W to mix them into the targets.\n\n\
Examples:\n  pgntune label pos.epd --depth 6 -o labelled.epd\n  \
pgntune label pos.epd --uci stockfish --depth 9 -j 2 -o labelled.epd\n  \
pgntune label pos.epd --uci 'cmd=./myengine hash=32' --nodes 20000 --wdl -o out.parquet\n\n\
A killed run resumes when started again with the same arguments: every position done is kept in a \
journal beside the output (.NAME.label-journal), and the output appears only when all are done.")]
pub struct LabelCommand {
    /// A dataset with positions: EPD, or CSV/TSV/Parquet written by `extract --fen`; - reads it from standard input.
    #[arg(value_name = "DATASET")]
    pub dataset: PathBuf,

    /// Where the labelled rows go (any format `extract` writes that holds labels, by extension).
    #[arg(short, long = "output", value_name = "OUTPUT")]
    pub output: PathBuf,

    /// Search depth per position [default: 6 unless --nodes].
    #[arg(long, allow_negative_numbers = true, value_parser = at_least(1))]
    pub depth: Option<u64>,

    /// Nodes per position (with --depth, whichever comes first).
    #[arg(long, allow_negative_numbers = true, value_parser = at_least(1))]
    pub nodes: Option<u64>,

    /// The bundled engine's weights (a file or a preset) [default: full].
    #[arg(long, short = 'w', value_name = "WEIGHTS", conflicts_with = "uci")]
    pub weights: Option<String>,

    /// Label with a UCI engine instead: a program (`stockfish`), or an engine spec as `match` takes it
    /// (`cmd=PROGRAM [arg=ARG …] [option.NAME=VALUE …] [hash=MB] [name=NAME]`).
    #[arg(long, value_name = "ENGINE")]
    pub uci: Option<String>,

    /// Label with the engine's win/draw/loss estimate where it reports one (UCI_ShowWDL), on the Elo scale.
    #[arg(long)]
    pub wdl: bool,

    /// Replace each position by the last position of the search's principal variation (mates and
    /// positions in check are skipped).
    #[arg(long)]
    pub resolve_pv: bool,

    /// The feature sets of the rows written.
    #[arg(long, default_value = "full", value_name = "SETS")]
    pub features: String,

    /// The Parquet shape of a layout wider than 64 columns: compact (terms, counts and the phase) or expanded (`idx`,
    /// `val`), as `extract --sparse-shape` [default: compact].
    #[arg(long, value_enum, value_name = "SHAPE")]
    pub sparse_shape: Option<SparseShape>,

    /// Hash table per engine, in MB [default: 16; for a UCI engine, its own unless given].
    #[arg(long, allow_negative_numbers = true, value_parser = at_least(1))]
    pub hash: Option<u64>,

    /// Seconds one search may take before the engine counts as hung (restarted, the position retried once).
    #[arg(long, default_value_t = 60, allow_negative_numbers = true, value_parser = at_least(1))]
    pub timeout: u64,

    /// Engines searching at once (default: one per core). The labels do not depend on it.
    #[arg(long, short = 'j', default_value_t = 0, value_name = "N", hide_default_value = true, allow_negative_numbers = true, value_parser = at_least_usize(0))]
    pub threads: usize,

    /// Replace an existing output that pgntune did not write, and start afresh over another run's journal.
    #[arg(long)]
    pub force: bool,

    /// No progress and no summary.
    #[arg(long = "quiet", short = 'q', alias = "silent")]
    pub quiet: bool,
}

/// The hash table the bundled engine gets when none is given, in MB.
const DEFAULT_HASH_MB: u64 = 16;
/// The largest table per engine: `-j` of them are allocated at once.
const MAX_HASH_MB: u64 = 4096;

/// The engine named by `--uci`: a bare program, or an engine spec.
fn uci_teacher(text: &str, hash: Option<u64>) -> Result<Teacher> {
    let spec_text = if text.contains('=') { text.to_string() } else { format!("cmd={text}") };
    let spec: EngineSpec = spec_text.parse().with_context(|| format!("--uci '{text}'"))?;
    if !spec.limits.is_empty() {
        bail!("--uci '{text}': give the search limit with --depth or --nodes, not in the engine");
    }
    match spec.kind {
        EngineKind::Uci(mut program) => {
            if let Some(mb) = hash {
                if program.hash_mb.is_some() {
                    bail!("--uci '{text}' sets hash= and --hash {mb} is given too: give one");
                }
                program.hash_mb = Some(mb as usize);
            }
            Ok(Teacher::Uci { name: spec.name, program })
        }
        EngineKind::Bundled { .. } => bail!("--uci '{text}': names no program (cmd=PROGRAM); the bundled engine is --weights"),
    }
}

/// The arguments as a configuration.
fn config(args: &LabelCommand) -> Result<LabelConfig> {
    check_threads("--threads", args.threads, Some(args.force))?;
    if args.depth.is_some_and(|d| d > 60) {
        bail!("--depth must be at most 60");
    }
    if args.hash.is_some_and(|mb| mb > MAX_HASH_MB) {
        bail!("--hash must be at most {MAX_HASH_MB} MB");
    }
    let teacher = match &args.uci {
        Some(text) => uci_teacher(text, args.hash)?,
        None => {
            let source = args.weights.clone().unwrap_or_else(|| "full".to_string());
            let weights = Weights::resolve(&source).context("--weights")?;
            Teacher::Bundled { source, weights, hash_mb: args.hash.unwrap_or(DEFAULT_HASH_MB) as usize }
        }
    };
    if args.wdl && matches!(teacher, Teacher::Bundled { .. }) {
        bail!("--wdl: the bundled engine reports no win/draw/loss estimate; it is for UCI engines (--uci)");
    }
    let depth = args.depth.or(if args.nodes.is_none() { Some(6) } else { None });
    let limits = MoveLimits { depth: depth.map(|d| d as u32), nodes: args.nodes, ..MoveLimits::default() };
    let layout = FeatureLayout::parse(&args.features)?;
    let formats: Vec<Format> = Format::resolve(&args.output, None).ok().into_iter().collect();
    let sparse_shape = super::extract::sparse_shape(args.sparse_shape, &layout, &formats)?;
    Ok(LabelConfig {
        dataset: args.dataset.clone(),
        output: args.output.clone(),
        layout,
        sparse_shape,
        teacher,
        limits,
        threads: args.threads,
        wdl: args.wdl,
        resolve_pv: args.resolve_pv,
        timeout: Duration::from_secs(args.timeout),
        force: args.force,
    })
}

/// Progress on standard error: a bar on a terminal, else a plain line
/// every half minute.
struct Progress {
    bar: Option<ProgressBar>,
    quiet: bool,
    started: Instant,
    last_line: Mutex<Instant>,
}

impl Progress {
    fn new(quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr_with_hz(4)).with_style(
                ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} positions {per_sec} ETA {eta} {msg}")
                    .expect("valid template")
                    .progress_chars("=> "),
            )
        });
        Progress { bar, quiet, started: Instant::now(), last_line: Mutex::new(Instant::now()) }
    }
}

impl LabelProgress for Progress {
    fn update(&self, done: usize, total: usize, resumed: usize) {
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
            if done == resumed {
                bar.set_position(done as u64);
                bar.reset_eta();
            } else {
                bar.set_position(done as u64);
            }
            return;
        }
        if self.quiet || done == total {
            return;
        }
        let mut last = self.last_line.lock().expect("not poisoned");
        if last.elapsed() < Duration::from_secs(30) {
            return;
        }
        *last = Instant::now();
        let seconds = self.started.elapsed().as_secs_f64();
        let rate = (done - resumed) as f64 / seconds.max(1e-9);
        let eta = if rate > 0.0 { format!(", about {:.0} s to go", (total - done) as f64 / rate) } else { String::new() };
        eprintln!("label: {done} of {total} positions ({:.1}%), {rate:.1} positions/s{eta}", 100.0 * done as f64 / total as f64);
    }
}

pub(super) fn run_label(args: LabelCommand) -> Result<()> {
    let config = config(&args)?;
    let progress = Progress::new(args.quiet);
    let report = run(&config, &progress);
    if let Some(bar) = &progress.bar {
        bar.finish_and_clear();
    }
    let report = report.map_err(|e| resume_hint(e.into(), &config.output))?;
    for warning in &report.warnings {
        eprintln!("pgntune: warning: {warning}");
    }
    for failure in &report.failures {
        eprintln!("pgntune: warning: skipped {failure}");
    }
    if !args.quiet {
        print_summary(&report);
    }
    Ok(())
}

/// Errors after the work began keep the journal: say how to go on.
fn resume_hint(error: anyhow::Error, output: &Path) -> anyhow::Error {
    let journal = crate::label::journal::path_for(output);
    if journal.exists() && error.downcast_ref::<crate::label::LabelError>().is_some_and(|e| matches!(e, crate::label::LabelError::Start { .. })) {
        return anyhow::anyhow!("{error:#} (the positions done so far are kept in {}: run the same command again to resume)", journal.display());
    }
    error
}

fn print_summary(report: &LabelReport) {
    let rate = (report.positions - report.resumed) as f64 / report.seconds.max(1e-9);
    let engine = report.engine_id.as_ref().map_or(String::new(), |id| format!(" ({id})"));
    eprintln!(
        "labelled {} of {} by {}{engine} at {} in {:.1} s ({rate:.1} positions/s on {})",
        report.labelled,
        crate::plural::count(report.positions as u64, "position", "positions"),
        report.teacher,
        report.limit,
        report.seconds,
        crate::plural::count(report.threads as u64, "engine", "engines"),
    );
    if report.resumed > 0 {
        eprintln!("  resumed: {} done by an earlier run", crate::plural::count(report.resumed as u64, "position was", "positions were"));
    }
    if report.wdl_labels > 0 {
        eprintln!("  {} from the engine's win/draw/loss estimate", crate::plural::count(report.wdl_labels as u64, "label", "labels"));
    }
    for (why, n) in &report.skipped {
        eprintln!("  skipped ({why}): {n}");
    }
    if report.restarts > 0 {
        eprintln!("  engine restarts: {}", report.restarts);
    }
    if report.search_seconds > 0.0 && report.engine_seconds > 0.0 {
        let outside = (report.search_seconds - report.engine_seconds).max(0.0);
        eprintln!(
            "  searches {:.1} s, {:.1} s of them the engines' own: {:.1}% outside them (protocol, pipes)",
            report.search_seconds,
            report.engine_seconds,
            100.0 * outside / report.engine_seconds
        );
    }
    if report.reset_seconds > 0.0 && report.search_seconds > 0.0 {
        eprintln!(
            "  clearing the engines between positions (ucinewgame): {:.1} s, {:.1}% of the search time",
            report.reset_seconds,
            100.0 * report.reset_seconds / report.search_seconds
        );
    }
}
