//! `pgntune fit` and `pgntune tune`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;

use super::extract::{ReadArgs, check_inputs, no_game_found, refuse_repeated_inputs, report};
use super::progress::ReadProgress;
use super::tune::{SolverArg, TunerArgs, TunerOutputs, TunerSettings, run_tuner};
use super::values::{at_least, at_least_usize, bounded, check_threads, non_negative, open_fraction, positive, whole};
use crate::atomic::{AtomicFile, OutputKind, OutputPlan, is_stdout};
use crate::dataset::load::{LoadOptions, load, load_positions};
use crate::dataset::positions::Positions;
use crate::dataset::stdin::{SpooledInput, spool_stdin};
use crate::features::FeatureLayout;
use crate::fit::{DrawMode, FitConfig, FitReport, Loss, RowMerger, SolverKind, fit};
use crate::pgn::{InputSource, extract};

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

    /// Optimiser: lbfgs, newton and gd stop on --tol (or at --iters); gd is the article's gradient descent with the fixed step size --alpha from θ = 0; adam runs --epochs over mini-batches (whole-evaluation tuner).
    #[arg(long, value_enum, default_value_t = SolverArg::Lbfgs)]
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
    /// The fit configuration these arguments describe (their ranges are
    /// checked as they are parsed).
    pub fn fit_config(&self) -> Result<FitConfig> {
        let solver = match self.solver {
            SolverArg::Lbfgs => SolverKind::Lbfgs,
            SolverArg::Newton => SolverKind::Newton,
            SolverArg::Gd => SolverKind::Gd,
            SolverArg::Adam => {
                bail!("--solver adam is for the whole-evaluation tuner (tapered feature sets, or --prior, --freeze, --k, --eval-weight)")
            }
        };
        Ok(FitConfig {
            draws: self.draws,
            loss: self.loss,
            lambda: self.lambda,
            intercept: self.intercept,
            solver,
            tol: self.tol.unwrap_or(1e-9),
            max_iters: self.iters,
            alpha: self.alpha,
            // gd prints its trajectory, so it always records it.
            trace: self.trace.is_some() || solver == SolverKind::Gd,
            bootstrap: self.bootstrap.map(|n| (n, self.seed)),
            holdout: self.holdout.map(|f| (f, self.seed)),
        })
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

    fn needs_games(&self) -> bool {
        self.bootstrap.is_some() || self.holdout.is_some()
    }

    /// The feature sets of a dataset's `columns`, for the weights file
    /// (which `--weights-out` needs: the engine reads sets, not columns).
    pub fn feature_sets(&self, columns: &[String]) -> Result<Vec<String>> {
        Ok(match FeatureLayout::from_columns(columns) {
            Some(layout) => layout.sets().map(|s| s.name().to_string()).collect(),
            None if self.weights_out.is_some() => {
                bail!("--weights-out: the columns {} are not pgntune feature sets, so the engine could not use the weights", columns.join(" "))
            }
            None => Vec::new(),
        })
    }

    /// Writes the requested files (`--weights-out`, `--trace`); none when
    /// the weights are not ones the engine could play (a fit on too few
    /// games can give a piece a negative value).
    pub fn write_files(&self, report: &FitReport, features: &[String], name: &str) -> Result<()> {
        let weights = self.weights_out.as_ref().map(|_| report.weights(features, name));
        if let Some(Err(e)) = weights.as_ref().map(|w| w.validate()) {
            bail!("--weights-out: the fitted weights cannot be played, so nothing was written: {e}");
        }
        if let (Some(path), Some(weights)) = (&self.weights_out, &weights) {
            weights.save(path)?;
        }
        if let Some(path) = &self.trace {
            AtomicFile::write_all(path, report.trace_csv().as_bytes())?;
        }
        Ok(())
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

    /// The whole-evaluation settings these arguments give.
    fn tuner_settings(&self, threads: usize) -> Result<TunerSettings> {
        if self.draws == DrawMode::Ordinal || self.bootstrap.is_some() || self.intercept {
            bail!(
                "--draws ordinal, --bootstrap and --intercept belong to the article's material model; the whole-evaluation tuner does not offer them"
            );
        }
        Ok(TunerSettings {
            loss: match self.loss {
                Loss::CrossEntropy => crate::fit::sparse::problem::SparseLoss::CrossEntropy,
                Loss::Mse => crate::fit::sparse::problem::SparseLoss::Mse,
            },
            lambda: self.lambda,
            solver: self.solver,
            tol: self.tol,
            cost_tol: self.cost_tol,
            iters: self.iters,
            holdout: self.holdout.map(|f| (f, self.seed)),
            seed: self.seed,
            exclude_draws: self.draws == DrawMode::Exclude,
            threads,
        })
    }

    /// Whether the whole-evaluation tuner fits `layout` (the article's
    /// dense fitter keeps untapered layouts of up to 64 columns).
    fn wants_tuner(&self, layout: &FeatureLayout, tuner: &TunerArgs) -> bool {
        tuner.asks_for_tuner() || self.solver == SolverArg::Adam || layout.is_tapered() || layout.is_custom() || layout.len() > 64
    }

    fn outputs<'a>(&'a self, tuner: &TunerArgs, quiet: bool) -> TunerOutputs<'a> {
        TunerOutputs {
            json: self.json,
            weights_out: self.weights_out.as_ref(),
            trace: self.trace.as_ref(),
            quiet,
            report_to_stderr: self.stdout_taken(tuner),
        }
    }

    /// True when one of the files goes to standard output (`-`): the
    /// report then goes to standard error.
    fn stdout_taken(&self, tuner: &TunerArgs) -> bool {
        [&self.weights_out, &self.trace, &tuner.emit_out].into_iter().flatten().any(|p| is_stdout(p))
    }

    /// Prints the report and writes the requested files.
    fn finish(&self, report: &FitReport, features: &[String], name: &str, tuner: &TunerArgs) -> Result<()> {
        let text = if self.json { format!("{}\n", serde_json::to_string_pretty(&report.to_json())?) } else { self.text(report) };
        super::print_report(&text, self.stdout_taken(tuner))?;
        self.write_files(report, features, name)
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
pub(super) fn warn_bad_lines(report: &crate::dataset::load::LoadReport) {
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
    // Read only once the outputs are known to be fine: a pipe cannot be read twice.
    let (datasets, _stdin) = spool_datasets(&args.datasets)?;
    // pgnlearn's .mat files hold the article's material rows: the dense fitter's.
    let pgnlearn = datasets.iter().all(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("mat")));
    let epd_layout = FeatureLayout::parse(&args.epd_features).context("--epd-features")?;
    if !pgnlearn || args.tuner.asks_for_tuner() || args.fit.solver == SolverArg::Adam {
        let options = LoadOptions { epd_layout, strict: args.strict };
        match load_positions(&datasets, &options) {
            Ok((positions, load_report)) => {
                warn_bad_lines(&load_report);
                if args.fit.wants_tuner(positions.layout(), &args.tuner) {
                    let settings = args.fit.tuner_settings(args.threads)?;
                    run_tuner(positions, &args.tuner, &settings, &args.fit.outputs(&args.tuner, args.quiet), &name)?;
                    return Ok(());
                }
            }
            // Columns that are not pgntune feature sets: the dense fitter takes any.
            Err(crate::dataset::DatasetError::NotFeatureSets { .. }) if !args.tuner.asks_for_tuner() => {}
            Err(e) => return Err(e.into()),
        }
    }
    let config = args.fit.fit_config()?;
    let rows = load(&datasets, args.fit.needs_games())?;
    if rows.is_empty() {
        // Said with the files: the fit's own error cannot name them.
        let files: Vec<String> = args.datasets.iter().map(|p| p.display().to_string()).collect();
        bail!("{}: no rows to fit (the {} none)", files.join(", "), if files.len() == 1 { "file holds" } else { "files hold" });
    }
    let features = args.fit.feature_sets(&rows.columns)?;
    let report = fit(&rows, &config)?;
    args.fit.finish(&report, &features, &name, &args.tuner)?;
    emit_fitted(&report, &features, &name, &args.tuner)
}

/// `--emit-code` after a fit of the classic tuner: the weights
/// `--weights-out` writes, as source code. (It once switched the run to
/// the whole-evaluation tuner, which fits another model on another scale.)
fn emit_fitted(report: &FitReport, features: &[String], name: &str, tuner: &TunerArgs) -> Result<()> {
    let (Some(language), Some(path)) = (tuner.emit_code, &tuner.emit_out) else { return Ok(()) };
    let weights = report.weights(features, name);
    if let Err(e) = weights.validate() {
        bail!("--emit-out: the fitted weights cannot be played, so nothing was written: {e}");
    }
    AtomicFile::write_all(path, crate::tables::emit(&weights, language)?.as_bytes())?;
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

/// The name written into the weights: the stem of `--weights-out` (what
/// the user called them: `tuned.toml` plays as "tuned" in matches), else
/// the first input's (`OpenRating.pgn` gives "OpenRating").
fn weights_name(weights_out: Option<&Path>, first_input: &Path) -> String {
    let stem = |p: &Path| {
        p.file_name().and_then(|n| n.to_str()).and_then(|n| n.split('.').next()).filter(|s| !s.is_empty() && *s != "-").map(str::to_string)
    };
    weights_out.and_then(stem).or_else(|| stem(first_input)).unwrap_or_else(|| "weights".to_string())
}

pub(super) fn run_tune(args: TuneCommand) -> Result<()> {
    let mut extract_config = args.read.config(args.fit.seed)?;
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
    if args.fit.wants_tuner(&extract_config.layout, &args.tuner) {
        let settings = args.fit.tuner_settings(args.read.threads)?;
        // Checked now, as `run_tuner` will again: a bad --k, --prior or
        // --freeze must not cost a whole extraction first.
        args.tuner.config(&extract_config.layout, &settings)?;
        // Labels are read when they are used.
        extract_config.labels |= args.tuner.eval_weight > 0.0;
        let mut positions = Positions::new(extract_config.layout.clone())?;
        let total = sources.iter().map(InputSource::size_hint).sum::<Option<u64>>();
        let progress = ReadProgress::new(total, args.read.quiet);
        let stats = extract(&sources, &extract_config, &progress, |batch| {
            positions.push_batch(batch, 0);
            Ok(())
        });
        progress.finish();
        let stats = stats?;
        no_game_found(&stats, &inputs)?;
        report(&stats, args.read.quiet);
        positions.shrink_to_fit();
        run_tuner(positions, &args.tuner, &settings, &args.fit.outputs(&args.tuner, args.read.quiet), &name)?;
        return Ok(());
    }
    let fit_config = args.fit.fit_config()?;
    let mut merger = RowMerger::new(extract_config.layout.columns(), args.fit.needs_games());
    let total = sources.iter().map(InputSource::size_hint).sum::<Option<u64>>();
    let progress = ReadProgress::new(total, args.read.quiet);
    let stats = extract(&sources, &extract_config, &progress, |batch| {
        merger.add_batch(batch, &extract_config.layout);
        Ok(())
    });
    progress.finish();
    let stats = stats?;
    no_game_found(&stats, &inputs)?;
    report(&stats, args.read.quiet);
    let mut rows = merger.finish();
    // Games without quiet positions still count as games read and used.
    rows.game_count = Some(stats.games_used);
    let report = fit(&rows, &fit_config).context("fitting the extracted rows")?;
    let features: Vec<String> = extract_config.layout.sets().map(|s| s.name().to_string()).collect();
    args.fit.finish(&report, &features, &name, &args.tuner)?;
    emit_fitted(&report, &features, &name, &args.tuner)
}
