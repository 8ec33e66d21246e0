//! `pgntune fit` and `pgntune tune`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::Args;

use super::extract::{ReadArgs, check_inputs, refuse_repeated_inputs};
use super::progress::ReadProgress;
use super::tune::{SolverArg, TunerArgs};
use super::values::{at_least, at_least_usize, bounded, check_threads, non_negative, open_fraction, positive, whole};
use crate::atomic::{OutputKind, OutputPlan, is_stdout};
use crate::dataset::load::{LoadOptions, LoadReport};
use crate::dataset::stdin::{SpooledInput, spool_stdin};
use crate::features::FeatureLayout;
use crate::fit::sparse::plausible::Implausible;
use crate::fit::sparse::{TuneProgress, TuneReport};
use crate::fit::{DrawMode, FitConfig, FitReport, Loss};
use crate::pgn::InputSource;
use crate::pgn::extract::ExtractStats;
use crate::play::run::VerifyReport;
use crate::play::tournament::MatchProgress;
use crate::tune::{FitOptions, Fitted, Solver, TuneInput, TuneJob, TuneObserver, TuneOutputs, weights_name};

/// The sample `pgntune tune` fits when given no input (from pgntune's own self-play).
pub const BUNDLED_SAMPLE: &str = "data/selfplay.pgn.zst";

/// How to fit; shared by `fit` and `tune`.
#[derive(Debug, Clone, Args)]
pub struct FitArgs {
    /// How draws count: exclude (decisive games only, the 2015 article), half (targets 0.5, Texel style), ordinal (win/draw/loss with a fitted draw band).
    #[arg(long, value_enum, default_value_t = DrawMode::Half)]
    pub draws: DrawMode,

    /// Loss: ce (cross-entropy, maximum likelihood) or mse (squared error, for comparison with Texel-style tuners).
    #[arg(long, value_enum, default_value_t = Loss::CrossEntropy)]
    pub loss: Loss,

    /// L2 penalty λ·Σθ² added to the mean loss (the article's value by default; never on the intercept; at most 10^6).
    // Bounded: far above 1 every θ is shrunk to nothing, and a value such
    // as 1e300 left all of them 0 and the centipawns of 0/0 printed as values.
    #[arg(long, default_value_t = 1e-6, value_name = "λ", allow_negative_numbers = true, value_parser = bounded(0.0, 1e6))]
    pub lambda: f64,

    /// Fit an intercept (white's first-move edge). Without it, equal material means an even game.
    #[arg(long)]
    pub intercept: bool,

    /// Optimiser: auto is newton for the article's small models and lbfgs for the whole-evaluation tuner; lbfgs, newton and gd stop on --tol (or at --iters); gd is the article's gradient descent with the fixed step size --alpha from θ = 0; adam runs --epochs over mini-batches (whole-evaluation tuner).
    #[arg(long, value_enum, default_value_t = SolverArg::Auto)]
    pub solver: SolverArg,

    /// Gradient-norm tolerance for convergence, on the logistic scale [default: 1e-9; 1e-7 for the whole-evaluation tuner].
    #[arg(long, allow_negative_numbers = true, value_parser = positive)]
    pub tol: Option<f64>,

    /// Whole-evaluation tuner: stop L-BFGS when an iteration lowers the loss by less than this [default: 1e-7]; 0 stops on --tol
    /// alone, as a cross-check against another solver needs (scale/spark).
    #[arg(long, value_name = "TOL", allow_negative_numbers = true, value_parser = non_negative)]
    pub cost_tol: Option<f64>,

    /// Iteration limit (for gd: at most this many steps, fewer when the gradient norm falls below --tol) [default: lbfgs 1000 (500 for the whole-evaluation tuner), newton 100, gd 10000].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least(1))]
    pub iters: Option<u64>,

    /// Step size of gd.
    #[arg(long, default_value_t = 1.0, value_name = "α", allow_negative_numbers = true, value_parser = positive)]
    pub alpha: f64,

    /// Bootstrap: refit on N resamples of whole games and report 95% percentile intervals (N from 2 to 100000).
    // Bounded: each resample is a whole refit, and a count near usize::MAX
    // overflowed the allocation of the results (a panic, or an abort).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<usize>(2, 100_000))]
    pub bootstrap: Option<usize>,

    /// Hold out this fraction of games: fit on the rest (every value shown and written is that fit) and report log-loss and accuracy on both parts.
    #[arg(long, value_name = "F", allow_negative_numbers = true, value_parser = open_fraction)]
    pub holdout: Option<f64>,

    /// Seed for --bootstrap and --holdout.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = at_least(0))]
    pub seed: u64,

    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,

    /// Write the weights in the format the bundled engine reads (.toml, or .json).
    #[arg(long, value_name = "FILE")]
    pub weights_out: Option<PathBuf>,

    /// Write a CSV row per iteration: iteration, normalised values, loss (like pgnlearn's iterations.txt).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,

    /// With gd, print the trajectory every N iterations, as pgnlearn did [default: a tenth of the steps].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least(1))]
    pub print_every: Option<u64>,

    /// Replace existing --weights-out and --trace files that pgntune did not write (and, reading PGN, allow -j far above the core count).
    #[arg(long)]
    pub force: bool,
}

impl FitArgs {
    /// The options these arguments give, with the whole-evaluation
    /// tuner's (`tuner`; their ranges are checked as they are parsed).
    pub fn options(&self, tuner: &TunerArgs, threads: usize) -> Result<FitOptions> {
        let base = self.base_options();
        Ok(FitOptions {
            solver: match base.solver {
                Solver::Adam { .. } => Solver::Adam { epochs: tuner.epochs, batch: tuner.batch, lr: tuner.lr },
                solver => solver,
            },
            k: tuner.k,
            label_k: tuner.label_k,
            prior: tuner.prior.as_deref().map(crate::weights::Weights::resolve).transpose().context("--prior")?,
            freeze: tuner.freeze.clone(),
            eval_weight: tuner.eval_weight,
            standard_errors: !tuner.no_stderr,
            threads,
            ..base
        })
    }

    /// The options of these arguments alone (the tuner's at their defaults).
    fn base_options(&self) -> FitOptions {
        FitOptions {
            draws: self.draws,
            loss: self.loss,
            lambda: self.lambda,
            intercept: self.intercept,
            solver: match self.solver {
                SolverArg::Auto => Solver::Auto,
                SolverArg::Lbfgs => Solver::Lbfgs,
                SolverArg::Newton => Solver::Newton,
                SolverArg::Gd => Solver::Gd,
                SolverArg::Adam => Solver::Adam { epochs: 50, batch: 16_384, lr: 1.0 },
            },
            tol: self.tol,
            cost_tol: self.cost_tol,
            iters: self.iters,
            alpha: self.alpha,
            bootstrap: self.bootstrap,
            holdout: self.holdout,
            seed: self.seed,
            trace: self.trace.is_some(),
            ..FitOptions::new()
        }
    }

    /// The article's fit these arguments describe (`analyze`).
    pub fn fit_config(&self) -> Result<FitConfig> {
        Ok(self.base_options().article_config()?)
    }

    /// Checks the output files (none may be an input or the other output)
    /// and adds them to `plan`.
    pub fn plan_outputs(&self, plan: &mut OutputPlan) -> Result<()> {
        if let Some(path) = &self.weights_out {
            plan.output(path, crate::weights::WeightsOutput)?;
        }
        if let Some(path) = &self.trace {
            plan.output(path, OutputKind::Trace)?;
        }
        Ok(())
    }

    /// The feature sets of a dataset's `columns`, for the weights file.
    pub fn feature_sets(&self, columns: &[String]) -> Result<Vec<String>> {
        Ok(crate::tune::article_features(columns, self.weights_out.is_some())?)
    }

    /// The files to write, the weights called `name`.
    pub fn outputs(&self, tuner: &TunerArgs, name: String) -> TuneOutputs {
        TuneOutputs {
            weights_out: self.weights_out.clone(),
            trace: self.trace.clone(),
            emit: tuner.emit_code.zip(tuner.emit_out.clone()),
            plot: tuner.plot.clone(),
            name,
        }
    }

    /// Writes an article fit's files (`analyze`).
    pub fn write_files(&self, report: &FitReport, features: &[String], name: &str) -> Result<()> {
        let outputs =
            TuneOutputs { weights_out: self.weights_out.clone(), trace: self.trace.clone(), emit: None, plot: None, name: name.to_string() };
        Ok(crate::tune::write_article_files(report, features, &outputs)?)
    }

    /// The report as text: gd's trajectory (every `--print-every`), the
    /// table, and the values on one line.
    pub fn text(&self, report: &FitReport) -> String {
        let mut text = String::new();
        if self.solver == SolverArg::Gd {
            let every = self.print_every.unwrap_or_else(|| (report.iterations / 10).max(1));
            text.push_str(&report.trajectory(every));
            text.push('\n');
        }
        text.push_str(&report.to_text());
        if let Some(values) = &report.values {
            let values: Vec<String> = report.columns.iter().zip(values).map(|(c, v)| format!("{c} {}", crate::fit::report::format_g6(*v))).collect();
            text.push_str(&format!("\nvalues: {}\n", values.join("  ")));
        }
        text
    }

    /// True when one of the files goes to standard output (`-`): the
    /// report then goes to standard error.
    pub(super) fn stdout_taken(&self, tuner: &TunerArgs) -> bool {
        [&self.weights_out, &self.trace, &tuner.emit_out].into_iter().flatten().any(|p| is_stdout(p))
    }
}

/// Arguments of `pgntune fit`.
#[derive(Debug, Args)]
pub struct FitCommand {
    /// Datasets written by `pgntune extract` (.mat, .csv, .tsv, .parquet, .ijv, .svm, .epd, Octave text), pgnlearn's own .mat files, EPD files of other tuners, or traces of your own engine's terms (docs/src/tuning-your-own-engine.md); - reads one from standard input (its format told from its first bytes).
    #[arg(required = true, value_name = "DATASET")]
    pub datasets: Vec<PathBuf>,

    #[command(flatten)]
    pub fit: FitArgs,

    #[command(flatten)]
    pub tuner: TunerArgs,

    /// The feature sets of positions read from EPD files.
    #[arg(long, default_value = "full", value_name = "SETS")]
    pub epd_features: String,

    /// Stop at the first bad EPD line instead of reporting and skipping it.
    #[arg(long)]
    pub strict: bool,

    /// Worker threads (default: one per core; more than 4 per core needs --force). The result does not depend on it.
    #[arg(long, short = 'j', default_value_t = 0, value_name = "N", hide_default_value = true, allow_negative_numbers = true, value_parser = at_least_usize(0))]
    pub threads: usize,

    /// Quiet: no progress bar and no notes; warnings and errors are still shown.
    #[arg(long = "quiet", short = 'q', alias = "silent")]
    pub quiet: bool,
}

/// Warns of the EPD lines a load skipped: the first ones with their file,
/// line and why, then how many more.
pub(super) fn warn_bad_lines(report: &LoadReport) {
    for (file, problem) in &report.problems {
        let file = crate::dataset::stdin::unspool(file);
        eprintln!("pgntune: warning: {file}: line {}: {}; skipped", problem.line, problem.message);
    }
    if report.bad_lines > report.problems.len() as u64 {
        eprintln!("pgntune: warning: {} more bad lines skipped", report.bad_lines - report.problems.len() as u64);
    }
}

/// The datasets as given, with `-` (standard input, at most once) replaced
/// by its copy in a temporary file (see [`crate::dataset::stdin`]), which
/// lives as long as the returned guard.
pub(super) fn spool_datasets(paths: &[PathBuf]) -> Result<(Vec<PathBuf>, Option<SpooledInput>)> {
    let dashes = paths.iter().filter(|p| is_stdout(p)).count();
    if dashes > 1 {
        bail!("-: standard input is named {dashes} times, and it can be read only once");
    }
    if dashes == 0 {
        return Ok((paths.to_vec(), None));
    }
    let spooled = spool_stdin()?;
    let paths = paths.iter().map(|p| if is_stdout(p) { spooled.path().to_path_buf() } else { p.clone() }).collect();
    Ok((paths, Some(spooled)))
}

pub(super) fn run_fit(args: FitCommand) -> Result<()> {
    let mut plan = OutputPlan::new(args.fit.force).allow_stdout();
    for path in &args.datasets {
        if path.is_dir() {
            bail!("{}: is a directory, not a dataset", path.display());
        }
        plan.input(path);
    }
    refuse_repeated_inputs(args.datasets.iter().map(PathBuf::as_path), "rows")?;
    args.tuner.plan_inputs(&mut plan);
    args.fit.plan_outputs(&mut plan)?;
    args.tuner.plan_outputs(&mut plan)?;
    check_threads("--threads", args.threads, Some(args.fit.force))?;
    let name = weights_name(args.fit.weights_out.as_deref(), &args.datasets[0]);
    let options = args.fit.options(&args.tuner, args.threads)?;
    let epd_layout = FeatureLayout::parse(&args.epd_features).context("--epd-features")?;
    // Read only once the outputs are known to be fine: a pipe cannot be read twice.
    let (datasets, _stdin) = spool_datasets(&args.datasets)?;
    let job = TuneJob {
        input: TuneInput::Datasets { paths: datasets, load: LoadOptions { epd_layout, strict: args.strict } },
        options,
        outputs: args.fit.outputs(&args.tuner, name),
        verify: args.tuner.verify_after(),
    };
    let observer = CliObserver::new(&args.fit, &args.tuner, None, args.quiet);
    let outcome = crate::tune::run(&job, &observer)?;
    observer.verdict(outcome.verdict.as_ref());
    Ok(())
}

/// Arguments of `pgntune tune`.
#[derive(Debug, Args)]
pub struct TuneCommand {
    /// PGN files (plain or compressed) or - for standard input [default: the bundled sample, data/selfplay.pgn.zst].
    #[arg(value_name = "PGN")]
    pub inputs: Vec<String>,

    #[command(flatten)]
    pub read: ReadArgs,

    #[command(flatten)]
    pub fit: FitArgs,

    #[command(flatten)]
    pub tuner: TunerArgs,
}

/// The bundled sample: in the current directory (a checkout), else beside the sources this binary was built from.
fn bundled_sample() -> Result<String> {
    let local = PathBuf::from(BUNDLED_SAMPLE);
    if local.is_file() {
        return Ok(BUNDLED_SAMPLE.to_string());
    }
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(BUNDLED_SAMPLE);
    if built.is_file() {
        return Ok(built.display().to_string());
    }
    bail!("no input given, and the bundled sample {BUNDLED_SAMPLE} is not here (run from the repository root, or name PGN files)")
}

pub(super) fn run_tune(args: TuneCommand) -> Result<()> {
    let extract = args.read.config(args.fit.seed)?;
    let inputs: Vec<String> = if args.inputs.is_empty() { vec![bundled_sample()?] } else { args.inputs.clone() };
    let sources: Vec<InputSource> = inputs.iter().map(|a| InputSource::from_arg(a)).collect();
    check_inputs(&sources)?;
    check_threads("--threads", args.read.threads, Some(args.fit.force))?;
    let mut plan = OutputPlan::new(args.fit.force).allow_stdout();
    for input in &inputs {
        plan.input(Path::new(input));
    }
    args.read.plan_inputs(&mut plan);
    args.tuner.plan_inputs(&mut plan);
    args.fit.plan_outputs(&mut plan)?;
    args.tuner.plan_outputs(&mut plan)?;
    let name = weights_name(args.fit.weights_out.as_deref(), Path::new(&inputs[0]));
    let total = sources.iter().map(InputSource::size_hint).sum::<Option<u64>>();
    let job = TuneJob {
        input: TuneInput::Games { sources, extract },
        options: args.fit.options(&args.tuner, args.read.threads)?,
        outputs: args.fit.outputs(&args.tuner, name),
        verify: args.tuner.verify_after(),
    };
    let observer = CliObserver::new(&args.fit, &args.tuner, Some(total), args.read.quiet);
    let outcome = crate::tune::run(&job, &observer)?;
    observer.verdict(outcome.verdict.as_ref());
    Ok(())
}

/// What `fit` and `tune` show while the library runs: progress, notes
/// and warnings on standard error, the report on standard output (or on
/// standard error when a file goes to standard output).
pub(super) struct CliObserver<'a> {
    fit: &'a FitArgs,
    /// Where the weights go (for the last line of the report).
    weights_out: Option<&'a PathBuf>,
    read: Option<ReadProgress>,
    quiet: bool,
    to_stderr: bool,
}

impl<'a> CliObserver<'a> {
    /// An observer of a run with these arguments; `read_total`: the run
    /// reads games, this many bytes if known.
    pub(super) fn new(fit: &'a FitArgs, tuner: &'a TunerArgs, read_total: Option<Option<u64>>, quiet: bool) -> CliObserver<'a> {
        CliObserver {
            fit,
            weights_out: fit.weights_out.as_ref(),
            read: read_total.map(|total| ReadProgress::new(total, quiet)),
            quiet,
            to_stderr: fit.stdout_taken(tuner),
        }
    }

    /// The verdict of `--verify`, on standard error (standard output keeps the report).
    pub(super) fn verdict(&self, verdict: Option<&VerifyReport>) {
        let Some(verdict) = verdict else { return };
        eprintln!("pgntune: verify: {verdict}");
        if verdict.outcome != crate::play::run::VerifyOutcome::AcceptedH1 {
            eprintln!("pgntune: warning: the tuned weights are not proven stronger than their start: do not use them as they are");
        }
    }
}

/// The match progress of `--verify`, its bar cleared when the match ends.
struct ProvingProgress(super::matches::Progress);

impl MatchProgress for ProvingProgress {
    fn update(&self, state: &crate::play::state::MatchState) {
        self.0.update(state);
    }
}

impl Drop for ProvingProgress {
    fn drop(&mut self) {
        self.0.finish();
    }
}

impl TuneObserver for CliObserver<'_> {
    fn reading(&self) -> &dyn crate::pgn::extract::Progress {
        match &self.read {
            Some(read) => read,
            None => &crate::pgn::extract::NoProgress,
        }
    }

    fn read_finished(&self) {
        if let Some(read) = &self.read {
            read.finish();
        }
    }

    fn extracted(&self, stats: &ExtractStats) {
        super::extract::report(stats, self.quiet);
    }

    fn loaded(&self, report: &LoadReport) {
        warn_bad_lines(report);
    }

    fn warning(&self, text: &str) {
        eprintln!("pgntune: warning: {text}");
    }

    fn tuning(&self, limit: u64) -> Arc<dyn Fn(&TuneProgress) + Send + Sync> {
        super::tune::progress_reporter(self.quiet, limit)
    }

    fn checked(&self, report: &TuneReport, implausible: &[Implausible]) {
        super::tune::warn_implausible(report, implausible);
        if report.layout.is_custom() && !self.quiet {
            eprintln!(
                "pgntune: note: of the plausibility checks, an engine's own terms get only the distance of each tuned term from its prior (the piece-value checks need pgntune's names P N B R Q)"
            );
        }
    }

    fn wrote(&self, path: &Path) {
        if !self.quiet {
            eprintln!("pgntune: wrote {}", path.display());
        }
    }

    fn fitted(&self, fitted: &Fitted) -> std::io::Result<()> {
        let json = self.fit.json;
        let text = match fitted {
            Fitted::Article { report, .. } if json => format!("{}\n", serde_json::to_string_pretty(&report.to_json())?),
            Fitted::Article { report, .. } => self.fit.text(report),
            Fitted::WholeEvaluation { report, .. } if json => format!("{}\n", serde_json::to_string_pretty(&report.to_json())?),
            Fitted::WholeEvaluation { report, .. } => {
                let mut text = report.to_text();
                if let Some(path) = self.weights_out.filter(|p| !is_stdout(p)) {
                    text.push_str(&format!("\nEvery value: pgntune weights show {}\n", path.display()));
                }
                text
            }
        };
        super::print_report(&text, self.to_stderr)
    }

    fn proving(&self, pairs: u64, nodes: u64) -> Box<dyn MatchProgress + '_> {
        if !self.quiet {
            eprintln!(
                "pgntune: --verify: the tuned weights against their start, up to {} at {nodes} nodes per move",
                crate::plural::count(pairs, "pair", "pairs")
            );
        }
        Box::new(ProvingProgress(super::matches::Progress::new(2 * pairs, self.quiet, "10,60s".parse().expect("a valid report interval"))))
    }
}
