//! The whole-evaluation side of `pgntune fit` and `pgntune tune`: the
//! tuner's options, its progress, and its plausibility warnings.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::values::{at_least, at_least_usize, positive, unit_interval};
use crate::fit::sparse::plausible::Implausible;
use crate::fit::sparse::{LabelScale, ScaleK, TuneProgress, TuneReport};
use crate::tune::VerifyAfter;

/// The optimiser, as the command line names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SolverArg {
    /// Newton's method for the article's small models (L-BFGS when it does not converge), L-BFGS for the whole-evaluation tuner.
    Auto,
    /// Limited-memory BFGS (argmin), stopping on --tol.
    Lbfgs,
    /// Newton's method with the analytic Hessian (the article's small models only).
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
    pub k: ScaleK,

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
    pub label_k: LabelScale,

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

    /// `--verify`, as the library takes it.
    pub fn verify_after(&self) -> Option<VerifyAfter> {
        self.verify.map(|pairs| VerifyAfter { pairs, nodes: self.verify_nodes })
    }
}

/// Progress of a long fit: a bar on a terminal, otherwise a status line
/// every ten iterations or epochs (so a log is not silent for minutes).
pub(super) fn progress_reporter(quiet: bool, limit: u64) -> Arc<dyn Fn(&TuneProgress) + Send + Sync> {
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

/// Says on standard error what looks wrong with the tuned weights (even
/// under -q: weights that play badly must not pass in silence).
pub(super) fn warn_implausible(report: &TuneReport, found: &[Implausible]) {
    const SHOWN: usize = 10;
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
