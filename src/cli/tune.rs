//! The whole-evaluation side of `pgntune fit` and `pgntune tune`: options
//! of the sparse tuner, turning them into a [`TuneConfig`], and printing
//! its report.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::values::{at_least, at_least_usize, positive, unit_interval};
use crate::atomic::{AtomicFile, is_stdout};
use crate::dataset::positions::Positions;
use crate::features::{FeatureLayout, FeatureSet};
use crate::fit::sparse::columns::{frozen_columns, prior_for};
use crate::fit::sparse::problem::SparseLoss;
use crate::fit::sparse::{LabelScale, ScaleK, TuneConfig, TuneProgress, TuneReport, TuneSolver, tune};
use crate::weights::Weights;

/// The optimiser, as the command line names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SolverArg {
    /// Limited-memory BFGS (argmin), stopping on --tol; the default.
    Lbfgs,
    /// Newton's method with the analytic Hessian (material-sized problems only).
    Newton,
    /// The 2015 article's fixed-step gradient descent from 0 (material-sized problems only).
    Gd,
    /// Adam over mini-batches (--epochs, --batch, --lr), the usual choice of engine tuners (whole-evaluation tuner only).
    Adam,
}

/// Options of the whole-evaluation tuner.
#[derive(Debug, Clone, Args)]
pub struct TunerArgs {
    /// Texel's scaling constant K of P = 1/(1+10^(-K·eval/400)): `auto` fits it on the starting weights first, or a number.
    #[arg(long, default_value = "auto", value_name = "auto|K", allow_hyphen_values = true)]
    pub k: String,

    /// Weights the ridge (--lambda) pulls toward and the tuner starts from: a weights file or a preset [default: the engine's own weights for these feature sets].
    #[arg(long, value_name = "WEIGHTS")]
    pub prior: Option<String>,

    /// Keep these feature sets or columns at their starting values, comma separated (e.g. material_tapered,mg_K_g1).
    #[arg(long, value_delimiter = ',', value_name = "SET|COLUMN,...")]
    pub freeze: Vec<String>,

    /// Weight W of evaluation labels in the target: W·σ(eval) + (1−W)·result (labels from --eval-labels, EPD `ce` or `| eval |`).
    #[arg(long, default_value_t = 0.0, value_name = "W", allow_negative_numbers = true, value_parser = unit_interval)]
    pub eval_weight: f64,

    /// The scale of the evaluation labels, K_label in W·σ(K_label·eval): `model` (the model's K: the evaluation is fitted
    /// to the labels' centipawns as they are), `auto` (the labels' own K, fitted against the results; it is always
    /// reported), or a number.
    #[arg(long, default_value = "model", value_name = "model|auto|K", allow_hyphen_values = true)]
    pub label_k: String,

    /// Adam: passes over the training positions.
    #[arg(long, default_value_t = 50, value_name = "N", allow_negative_numbers = true, value_parser = at_least(1))]
    pub epochs: u64,

    /// Adam: positions per mini-batch.
    #[arg(long, default_value_t = 16384, value_name = "N", allow_negative_numbers = true, value_parser = at_least_usize(1))]
    pub batch: usize,

    /// Adam: step size in centipawns (annealed to 0 over the epochs by a cosine).
    #[arg(long, default_value_t = 1.0, value_name = "CP", allow_negative_numbers = true, value_parser = positive)]
    pub lr: f64,

    /// Skip the standard errors (they cost a pass over pairs of terms).
    #[arg(long)]
    pub no_stderr: bool,

    /// Also write the tuned terms as source code an engine can paste: rust, c or json (named --emit-code because --emit chooses positions).
    #[arg(long, value_name = "LANG", requires = "emit_out")]
    pub emit_code: Option<crate::tables::Language>,

    /// Where --emit-code writes.
    #[arg(long, value_name = "FILE", requires = "emit_code")]
    pub emit_out: Option<PathBuf>,

    /// After tuning, play the tuned weights against the weights they started from (the prior) for up to this many
    /// game pairs at --verify-nodes, until the SPRT [0, 10] decides, and print the Elo with its interval.
    #[arg(long, value_name = "PAIRS", allow_negative_numbers = true, value_parser = at_least(1))]
    pub verify: Option<u64>,

    /// Nodes per move in the --verify games.
    #[arg(long, default_value_t = 10_000, value_name = "N", allow_negative_numbers = true, value_parser = at_least(1), requires = "verify")]
    pub verify_nodes: u64,

    /// Draw the tuned piece-square tables as heat maps (PNG and SVG) into this folder.
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
}

/// The whole-evaluation settings every run needs besides these options.
pub struct TunerSettings {
    /// From --loss.
    pub loss: SparseLoss,
    /// From --lambda.
    pub lambda: f64,
    /// From --solver.
    pub solver: SolverArg,
    /// From --tol.
    pub tol: Option<f64>,
    /// From --cost-tol.
    pub cost_tol: Option<f64>,
    /// From --iters.
    pub iters: Option<u64>,
    /// From --holdout and --seed.
    pub holdout: Option<(f64, u64)>,
    /// From --seed.
    pub seed: u64,
    /// Leave out drawn games (--draws exclude).
    pub exclude_draws: bool,
    /// Worker threads.
    pub threads: usize,
}

impl TunerArgs {
    /// Checks `--emit-out` and the `--plot` folder (and its figures) before any work.
    /// Records the files the tuner reads (a `--prior` weights file), which
    /// no output may replace: call before any output is planned.
    pub fn plan_inputs(&self, plan: &mut crate::atomic::OutputPlan) {
        if let Some(prior) = &self.prior {
            plan.input(std::path::Path::new(prior));
        }
    }

    pub fn plan_outputs(&self, plan: &mut crate::atomic::OutputPlan) -> Result<()> {
        use crate::atomic::OutputKind;
        if let Some(path) = &self.emit_out {
            plan.output(path, OutputKind::Source)?;
        }
        if let Some(dir) = &self.plot {
            plan.folder(dir)?;
            // A folder still to be made holds nothing to replace (and its
            // files' folder does not exist yet, which the plan would refuse).
            if dir.is_dir() {
                for file in crate::analysis::plots::pst_heatmap_files(dir) {
                    plan.output(&file, OutputKind::Figure)?;
                }
            }
        }
        Ok(())
    }

    /// True when an option only the whole-evaluation tuner has was given.
    pub fn asks_for_tuner(&self) -> bool {
        self.prior.is_some()
            || !self.freeze.is_empty()
            || self.eval_weight != 0.0
            || self.k != "auto"
            || self.label_k != "model"
            || self.plot.is_some()
            || self.verify.is_some()
    }

    /// The tuner's configuration for `layout`.
    pub fn config(&self, layout: &FeatureLayout, settings: &TunerSettings) -> Result<TuneConfig> {
        let k: ScaleK = self.k.parse().map_err(|e| anyhow::anyhow!("--k {e}, not '{}'", self.k.trim()))?;
        let label_k = match self.label_k.trim() {
            "auto" => LabelScale::Auto,
            "model" => LabelScale::Model,
            text => match text.parse::<f64>() {
                Ok(k) if (crate::fit::sparse::MIN_K..=crate::fit::sparse::MAX_K).contains(&k) => LabelScale::Fixed(k),
                _ => bail!(
                    "--label-k must be 'model', 'auto' or a number from {} to {}, not '{text}'",
                    crate::fit::sparse::MIN_K,
                    crate::fit::sparse::MAX_K
                ),
            },
        };
        if self.plot.is_some() && !layout.contains(FeatureSet::Pst) {
            bail!("--plot draws the piece-square tables, and the layout '{}' has none", layout.spec());
        }
        if !(0.0..=1.0).contains(&self.eval_weight) {
            bail!("--eval-weight must be between 0 and 1");
        }
        if !(self.lr.is_finite() && self.lr > 0.0) {
            bail!("--lr must be a positive number of centipawns");
        }
        if self.epochs == 0 || self.batch == 0 {
            bail!("--epochs and --batch must be at least 1");
        }
        let prior_weights = self.prior.as_deref().map(Weights::resolve).transpose().context("--prior")?;
        let prior = prior_for(layout, prior_weights.as_ref()).context("--prior")?;
        let frozen = frozen_columns(layout, &self.freeze).context("--freeze")?;
        let solver = match settings.solver {
            SolverArg::Lbfgs => TuneSolver::Lbfgs,
            SolverArg::Adam => TuneSolver::Adam { epochs: self.epochs, batch: self.batch, lr: self.lr },
            SolverArg::Newton | SolverArg::Gd => {
                bail!("--solver newton and gd are for the article's small models; the whole-evaluation tuner uses lbfgs or adam")
            }
        };
        let mut config = TuneConfig::new(prior);
        config.loss = settings.loss;
        config.k = k;
        config.lambda = settings.lambda;
        config.frozen = frozen;
        config.solver = solver;
        config.eval_weight = self.eval_weight;
        config.label_k = label_k;
        config.exclude_draws = settings.exclude_draws;
        if let Some(tol) = settings.tol {
            config.tol = tol;
        }
        if let Some(cost_tol) = settings.cost_tol {
            config.cost_tol = cost_tol;
        }
        if let Some(iters) = settings.iters {
            config.max_iters = iters;
        }
        config.holdout = settings.holdout;
        config.threads = settings.threads;
        config.standard_errors = !self.no_stderr;
        config.seed = settings.seed;
        Ok(config)
    }
}

/// Progress of a long fit: a bar on a terminal, otherwise a status line
/// every ten iterations or epochs (so a log is not silent for minutes).
fn progress_reporter(quiet: bool, limit: u64) -> Arc<dyn Fn(&TuneProgress) + Send + Sync> {
    if quiet {
        return Arc::new(|_| {});
    }
    if std::io::stderr().is_terminal() {
        let bar = ProgressBar::with_draw_target(Some(limit), ProgressDrawTarget::stderr_with_hz(5))
            .with_style(ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} {msg}").expect("valid template").progress_chars("=> "));
        return Arc::new(move |p: &TuneProgress| {
            bar.set_position(p.iteration);
            let holdout = p.holdout_loss.map_or(String::new(), |h| format!(", held out {h:.6}"));
            bar.set_message(format!("cost {:.6} (loss + penalty){holdout}", p.objective));
            if p.iteration >= p.limit {
                bar.finish_and_clear();
            }
        });
    }
    Arc::new(|p: &TuneProgress| {
        if p.iteration.is_multiple_of(10) {
            let holdout = p.holdout_loss.map_or(String::new(), |h| format!(", held out {h:.6}"));
            // The objective is the penalised cost, not the loss the report shows.
            eprintln!("pgntune: iteration {}/{}: cost {:.6} (loss + penalty){holdout}", p.iteration, p.limit, p.objective);
        }
    })
}

/// What to write and print after a tuning run.
pub struct TunerOutputs<'a> {
    /// --json.
    pub json: bool,
    /// --weights-out.
    pub weights_out: Option<&'a PathBuf>,
    /// --trace.
    pub trace: Option<&'a PathBuf>,
    /// -q.
    pub quiet: bool,
    /// A file goes to standard output (`-`): the report goes to standard error.
    pub report_to_stderr: bool,
}

/// Says on standard error what looks wrong with the tuned weights (even
/// under -q: weights that play badly must not pass in silence).
fn warn_implausible(report: &TuneReport) {
    const SHOWN: usize = 10;
    let found = crate::fit::sparse::plausible::check(report);
    if found.is_empty() {
        return;
    }
    let check = if report.layout.is_custom() { "test them in your engine" } else { "check them with `pgntune verify`" };
    eprintln!(
        "pgntune: warning: the tuned weights may play badly ({}); {check} before use:",
        crate::plural::count(found.len() as u64, "finding", "findings")
    );
    for finding in found.iter().take(SHOWN) {
        eprintln!("pgntune: warning:   {finding}");
    }
    if found.len() > SHOWN {
        eprintln!("pgntune: warning:   ... and {} more", found.len() - SHOWN);
    }
}

/// `--verify`: the tuned weights against their starting weights, with
/// the verdict on standard error (standard output keeps the report).
fn prove_over_the_board(report: &TuneReport, tuned: &crate::weights::Weights, pairs: u64, nodes: u64, threads: usize, quiet: bool) -> Result<()> {
    let start = TuneReport { weights: report.start.clone(), ..report.clone() }.weights("start");
    tuned.validate().context("--verify: the tuned weights cannot be played")?;
    let config = crate::play::prove::ProveConfig {
        pairs,
        nodes,
        threads: crate::thread_count(threads),
        sprt: crate::stats::SprtConfig::new(0.0, 10.0, 0.05, 0.05, crate::stats::EloModel::Normalized)?,
    };
    if !quiet {
        eprintln!(
            "pgntune: --verify: the tuned weights against their start, up to {} at {nodes} nodes per move",
            crate::plural::count(pairs, "pair", "pairs")
        );
    }
    let progress = super::matches::Progress::new(2 * pairs, quiet, "10,60s".parse().expect("a valid report interval"));
    let verdict = crate::play::prove::prove(tuned, &start, &config, &progress);
    progress.finish();
    let verdict = verdict.context("--verify")?;
    eprintln!("pgntune: verify: {verdict}");
    if verdict.outcome != crate::play::run::VerifyOutcome::AcceptedH1 {
        eprintln!("pgntune: warning: the tuned weights are not proven stronger than their start: do not use them as they are");
    }
    Ok(())
}

/// Tunes `positions` and prints and writes what was asked for.
pub fn run_tuner(positions: Positions, args: &TunerArgs, settings: &TunerSettings, outputs: &TunerOutputs, name: &str) -> Result<TuneReport> {
    if args.verify.is_some() && positions.layout().is_custom() {
        bail!(
            "--verify plays the tuned weights with pgntune's engine, which cannot evaluate an engine's own terms (a trace): test them in your engine"
        );
    }
    let config = args.config(positions.layout(), settings)?;
    if let Some(prior) = &args.prior {
        let weights = Weights::resolve(prior).context("--prior")?;
        if let Some(warning) = crate::fit::sparse::columns::left_out_warning("--prior", positions.layout(), &weights)? {
            eprintln!("pgntune: warning: {warning}");
        }
    }
    // Mixing in evaluations that no position has would fit the results
    // alone and call it a mix.
    if config.eval_weight > 0.0 && positions.labelled() == 0 {
        bail!(
            "--eval-weight {}: none of the {} positions has an evaluation label ([%eval] or wv= comments, or an eval column)",
            config.eval_weight,
            positions.len()
        );
    }
    let limit = match config.solver {
        TuneSolver::Lbfgs => config.max_iters,
        TuneSolver::Adam { epochs, .. } => epochs,
    };
    let report = tune(Arc::new(positions), &config, progress_reporter(outputs.quiet, limit)).context("tuning")?;
    warn_implausible(&report);
    if report.layout.is_custom() && !outputs.quiet {
        eprintln!(
            "pgntune: note: of the plausibility checks, an engine's own terms get only the distance of each tuned term from its prior (the piece-value checks need pgntune's names P N B R Q)"
        );
    }
    let weights = report.weights(name);
    if let Some(path) = outputs.weights_out {
        weights.validate().context("--weights-out: the tuned weights cannot be played, so nothing was written")?;
        weights.save(path)?;
    }
    if let Some(path) = outputs.trace {
        AtomicFile::write_all(path, report.trace_csv().as_bytes())?;
    }
    if let (Some(language), Some(path)) = (args.emit_code, &args.emit_out) {
        AtomicFile::write_all(path, crate::tables::emit(&weights, language)?.as_bytes())?;
    }
    if let Some(dir) = &args.plot {
        for file in crate::analysis::plots::pst_heatmaps(&weights, dir)? {
            if !outputs.quiet {
                eprintln!("pgntune: wrote {}", file.display());
            }
        }
    }
    let mut text = if outputs.json { format!("{}\n", serde_json::to_string_pretty(&report.to_json())?) } else { report.to_text() };
    if let Some(path) = outputs.weights_out.filter(|p| !outputs.json && !is_stdout(p)) {
        text.push_str(&format!("\nEvery value: pgntune weights show {}\n", path.display()));
    }
    super::print_report(&text, outputs.report_to_stderr)?;
    if let Some(pairs) = args.verify {
        prove_over_the_board(&report, &weights, pairs, args.verify_nodes, settings.threads, outputs.quiet)?;
    }
    Ok(report)
}
