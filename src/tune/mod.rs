//! `pgntune tune` and `pgntune fit` as one library call, [`run`]: a
//! [`TuneJob`] in (what to learn from, how, and what to write), a
//! [`TuneOutcome`] out.
//!
//! The input is games (replayed and turned into rows in memory) or
//! datasets already extracted. The fitter follows from the rows and the
//! options ([`FitOptions::wants_tuner`]): the 2015 article's dense fitter
//! for its small material models, the whole-evaluation tuner for tapered,
//! large or custom (trace) layouts and for any option only it has. A run
//! of the tuner checks the weights' plausibility, writes what was asked
//! for, and with `verify` plays them against their start until an SPRT
//! decides. What the user sees on the way comes through a
//! [`TuneObserver`]; the library itself never prints.

pub mod error;
pub mod evaluate;
pub mod options;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::atomic::AtomicFile;
use crate::dataset::DatasetError;
use crate::dataset::load::{LoadOptions, LoadReport, load, load_positions};
use crate::dataset::positions::Positions;
use crate::features::FeatureLayout;
use crate::fit::sparse::plausible::Implausible;
use crate::fit::sparse::{TuneProgress, TuneReport, TuneSolver, tune};
use crate::fit::{FitReport, RowMerger, fit};
use crate::pgn::extract::{ExtractConfig, ExtractStats, Progress};
use crate::pgn::{InputSource, extract};
use crate::play::run::VerifyReport;
use crate::play::tournament::MatchProgress;
use crate::tables::Language;
pub use error::TuneRunError;
pub use options::{BadLabelScale, FitOptions, Solver};

/// What a run learns from.
#[derive(Clone, Debug)]
pub enum TuneInput {
    /// PGN games, replayed and extracted in memory (`tune`).
    Games {
        /// The inputs.
        sources: Vec<InputSource>,
        /// How rows are made of them.
        extract: ExtractConfig,
    },
    /// Datasets written by `extract`, EPD files, pgnlearn's `.mat`, or
    /// traces of an engine's own terms (`fit`).
    Datasets {
        /// The files.
        paths: Vec<PathBuf>,
        /// How EPD files are read.
        load: LoadOptions,
    },
}

/// The files a run writes, each only when asked for.
#[derive(Clone, Debug, Default)]
pub struct TuneOutputs {
    /// The weights, in the format the bundled engine reads.
    pub weights_out: Option<PathBuf>,
    /// A CSV row per iteration.
    pub trace: Option<PathBuf>,
    /// The weights as source code.
    pub emit: Option<(Language, PathBuf)>,
    /// A folder for heat maps of the tuned piece-square tables.
    pub plot: Option<PathBuf>,
    /// The name written into the weights.
    pub name: String,
}

/// `verify`: the tuned weights against their start after the fit.
#[derive(Copy, Clone, Debug)]
pub struct VerifyAfter {
    /// At most this many game pairs.
    pub pairs: u64,
    /// Nodes per move.
    pub nodes: u64,
}

/// Everything one `fit` or `tune` run needs.
#[derive(Clone, Debug)]
pub struct TuneJob {
    /// The rows' source.
    pub input: TuneInput,
    /// How to fit.
    pub options: FitOptions,
    /// What to write.
    pub outputs: TuneOutputs,
    /// Prove the tuned weights over the board.
    pub verify: Option<VerifyAfter>,
}

/// What was fitted, by which fitter.
#[derive(Clone, Debug)]
pub enum Fitted {
    /// The article's dense fitter.
    Article {
        /// Its report.
        report: Box<FitReport>,
        /// The feature sets of its columns (none for columns that are not
        /// pgntune's sets).
        features: Vec<String>,
    },
    /// The whole-evaluation tuner.
    WholeEvaluation {
        /// Its report.
        report: Box<TuneReport>,
        /// What looks wrong with the weights (empty when nothing does).
        implausible: Vec<Implausible>,
    },
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct TuneOutcome {
    /// The fit.
    pub fitted: Fitted,
    /// The verdict of `verify`, when asked for.
    pub verdict: Option<VerifyReport>,
}

/// What the user sees while a run goes on (the command line prints it;
/// every method has a silent default).
pub trait TuneObserver: Sync {
    /// Progress of reading games.
    fn reading(&self) -> &dyn Progress;
    /// The games are read (the bar can go).
    fn read_finished(&self) {}
    /// What the extraction found.
    fn extracted(&self, _stats: &ExtractStats) {}
    /// Lines the datasets' readers skipped.
    fn loaded(&self, _report: &LoadReport) {}
    /// Something the user should know (shown even when quiet).
    fn warning(&self, _text: &str) {}
    /// The tuner's progress, `limit` iterations or epochs at most.
    fn tuning(&self, _limit: u64) -> Arc<dyn Fn(&TuneProgress) + Send + Sync> {
        Arc::new(|_| {})
    }
    /// The tuned weights were checked: what looks wrong with them (shown
    /// before any file is written, which may fail on the same weights).
    fn checked(&self, _report: &TuneReport, _implausible: &[Implausible]) {}
    /// A figure was written.
    fn wrote(&self, _path: &Path) {}
    /// The fit is done: its report (before any verification starts).
    fn fitted(&self, _fitted: &Fitted) -> std::io::Result<()> {
        Ok(())
    }
    /// The verification starts; its match progress.
    fn proving(&self, pairs: u64, nodes: u64) -> Box<dyn MatchProgress + '_>;
}

/// The name written into the weights: the stem of `--weights-out` (what
/// the user called them: `tuned.toml` plays as "tuned" in matches), else
/// the first input's (`OpenRating.pgn` gives "OpenRating").
pub fn weights_name(weights_out: Option<&Path>, first_input: &Path) -> String {
    let stem = |p: &Path| {
        p.file_name().and_then(|n| n.to_str()).and_then(|n| n.split('.').next()).filter(|s| !s.is_empty() && *s != "-").map(str::to_string)
    };
    weights_out.and_then(stem).or_else(|| stem(first_input)).unwrap_or_else(|| "weights".to_string())
}

/// Runs `job`: reads its input, fits it, writes its outputs, and proves
/// the tuned weights when asked.
pub fn run(job: &TuneJob, observer: &dyn TuneObserver) -> Result<TuneOutcome, TuneRunError> {
    match &job.input {
        TuneInput::Games { sources, extract } => run_on_games(job, sources, extract, observer),
        TuneInput::Datasets { paths, load } => run_on_datasets(job, paths, load, observer),
    }
}

/// Options only the tuner has, besides those of [`FitOptions`].
fn extra_tuner_options(job: &TuneJob) -> bool {
    job.outputs.plot.is_some() || job.verify.is_some()
}

fn run_on_games(job: &TuneJob, sources: &[InputSource], config: &ExtractConfig, observer: &dyn TuneObserver) -> Result<TuneOutcome, TuneRunError> {
    let names: Vec<String> = sources.iter().map(|s| s.to_string()).collect();
    let mut config = config.clone();
    if job.options.wants_tuner(&config.layout, extra_tuner_options(job)) {
        // Checked before the extraction: a bad --prior or --freeze must
        // not cost a whole extraction first.
        job.options.tuner_config(&config.layout, job.outputs.plot.is_some())?;
        // Labels are read when they are used.
        config.labels |= job.options.eval_weight > 0.0;
        let mut positions = Positions::new(config.layout.clone())?;
        let stats = extract(sources, &config, observer.reading(), |batch| {
            positions.push_batch(batch, 0);
            Ok(())
        });
        finish_reading(stats, &names, observer)?;
        positions.shrink_to_fit();
        return tune_positions(job, positions, observer);
    }
    let fit_config = job.options.article_config()?;
    let mut merger = RowMerger::new(config.layout.columns(), job.options.needs_games());
    let stats = extract(sources, &config, observer.reading(), |batch| {
        merger.add_batch(batch, &config.layout);
        Ok(())
    });
    let stats = finish_reading(stats, &names, observer)?;
    let mut rows = merger.finish();
    // Games without quiet positions still count as games read and used.
    rows.game_count = Some(stats.games_used);
    let report = fit(&rows, &fit_config).map_err(TuneRunError::FitExtracted)?;
    let features: Vec<String> = config.layout.sets().map(|s| s.name().to_string()).collect();
    finish_article(job, report, features, observer)
}

/// The end of reading games: the bar goes, and a run that found no game
/// stops with the inputs named.
fn finish_reading(
    stats: Result<ExtractStats, crate::pgn::extract::ExtractError>,
    names: &[String],
    observer: &dyn TuneObserver,
) -> Result<ExtractStats, TuneRunError> {
    observer.read_finished();
    let stats = stats?;
    if let Some(nothing) = stats.nothing_found(names) {
        return Err(TuneRunError::Config(nothing));
    }
    observer.extracted(&stats);
    Ok(stats)
}

fn run_on_datasets(job: &TuneJob, paths: &[PathBuf], load_options: &LoadOptions, observer: &dyn TuneObserver) -> Result<TuneOutcome, TuneRunError> {
    let options = &job.options;
    let extra = extra_tuner_options(job);
    // pgnlearn's .mat files hold the article's material rows: the dense fitter's.
    let pgnlearn = paths.iter().all(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("mat")));
    if !pgnlearn || options.asks_for_tuner(extra) {
        match load_positions(paths, load_options) {
            Ok((positions, report)) => {
                observer.loaded(&report);
                if options.wants_tuner(positions.layout(), extra) {
                    return tune_positions(job, positions, observer);
                }
            }
            // Columns that are not pgntune feature sets: the dense fitter takes any.
            Err(DatasetError::NotFeatureSets { .. }) if !options.asks_for_tuner(extra) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let config = options.article_config()?;
    let rows = load(paths, options.needs_games())?;
    if rows.is_empty() {
        // Said with the files: the fit's own error cannot name them.
        let files: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        let hold = if files.len() == 1 { "file holds" } else { "files hold" };
        return Err(TuneRunError::Config(format!("{}: no rows to fit (the {hold} none)", files.join(", "))));
    }
    let features = article_features(&rows.columns, job.outputs.weights_out.is_some())?;
    let report = fit(&rows, &config).map_err(TuneRunError::Fit)?;
    finish_article(job, report, features, observer)
}

/// The article's fit done: its report shown, then its files written.
fn finish_article(job: &TuneJob, report: FitReport, features: Vec<String>, observer: &dyn TuneObserver) -> Result<TuneOutcome, TuneRunError> {
    let fitted = Fitted::Article { report: Box::new(report), features };
    observer.fitted(&fitted).map_err(TuneRunError::Report)?;
    if let Fitted::Article { report, features } = &fitted {
        write_article_files(report, features, &job.outputs)?;
    }
    Ok(TuneOutcome { fitted, verdict: None })
}

/// The feature sets of an article fit's `columns`, for its weights file
/// (`weights_out`: one is asked for, and the engine reads sets, not
/// columns, so columns that are not pgntune's sets are refused).
pub fn article_features(columns: &[String], weights_out: bool) -> Result<Vec<String>, TuneRunError> {
    Ok(match FeatureLayout::from_columns(columns) {
        Some(layout) => layout.sets().map(|s| s.name().to_string()).collect(),
        None if weights_out => {
            return Err(TuneRunError::Config(format!(
                "--weights-out: the columns {} are not pgntune feature sets, so the engine could not use the weights",
                columns.join(" ")
            )));
        }
        None => Vec::new(),
    })
}

/// Writes an article fit's files (`fit`, `tune` and `analyze`): none when
/// the weights cannot be played (a fit on too few games can give a piece
/// a negative value).
pub fn write_article_files(report: &FitReport, features: &[String], outputs: &TuneOutputs) -> Result<(), TuneRunError> {
    let weights = report.weights(features, &outputs.name);
    if let Some(path) = &outputs.weights_out {
        weights.validate().map_err(|source| TuneRunError::Unplayable { output: "--weights-out", fitted: "fitted", source: Box::new(source) })?;
        weights.save(path)?;
    }
    if let Some(path) = &outputs.trace {
        AtomicFile::write_all(path, report.trace_csv().as_bytes())?;
    }
    if let Some((language, path)) = &outputs.emit {
        weights.validate().map_err(|source| TuneRunError::Unplayable { output: "--emit-out", fitted: "fitted", source: Box::new(source) })?;
        AtomicFile::write_all(path, crate::tables::emit(&weights, *language)?.as_bytes())?;
    }
    Ok(())
}

/// The whole-evaluation tuner on `positions`, its files, and `verify`.
fn tune_positions(job: &TuneJob, positions: Positions, observer: &dyn TuneObserver) -> Result<TuneOutcome, TuneRunError> {
    let options = &job.options;
    let outputs = &job.outputs;
    if job.verify.is_some() && positions.layout().is_custom() {
        return Err(TuneRunError::Config(
            "--verify plays the tuned weights with pgntune's engine, which cannot evaluate an engine's own terms (a trace): test them in your engine"
                .into(),
        ));
    }
    let config = options.tuner_config(positions.layout(), outputs.plot.is_some())?;
    if let Some(prior) = &options.prior
        && let Some(warning) = crate::fit::sparse::columns::left_out_warning("--prior", positions.layout(), prior).map_err(TuneRunError::Prior)?
    {
        observer.warning(&warning);
    }
    // Mixing in evaluations that no position has would fit the results
    // alone and call it a mix.
    if config.eval_weight > 0.0 && positions.labelled() == 0 {
        return Err(TuneRunError::Config(format!(
            "--eval-weight {}: none of the {} positions has an evaluation label ([%eval] or wv= comments, or an eval column)",
            config.eval_weight,
            positions.len()
        )));
    }
    let limit = match config.solver {
        TuneSolver::Lbfgs => config.max_iters,
        TuneSolver::Adam { epochs, .. } => epochs,
    };
    let report = tune(Arc::new(positions), &config, observer.tuning(limit)).map_err(TuneRunError::Tune)?;
    let implausible = crate::fit::sparse::plausible::check(&report);
    observer.checked(&report, &implausible);
    let weights = report.weights(&outputs.name);
    if let Some(path) = &outputs.weights_out {
        weights.validate().map_err(|source| TuneRunError::Unplayable { output: "--weights-out", fitted: "tuned", source: Box::new(source) })?;
        weights.save(path)?;
    }
    if let Some(path) = &outputs.trace {
        AtomicFile::write_all(path, report.trace_csv().as_bytes())?;
    }
    if let Some((language, path)) = &outputs.emit {
        AtomicFile::write_all(path, crate::tables::emit(&weights, *language)?.as_bytes())?;
    }
    if let Some(dir) = &outputs.plot {
        for file in crate::analysis::plots::pst_heatmaps(&weights, dir)? {
            observer.wrote(&file);
        }
    }
    let fitted = Fitted::WholeEvaluation { report: Box::new(report), implausible };
    observer.fitted(&fitted).map_err(TuneRunError::Report)?;
    let verdict = match (job.verify, &fitted) {
        (Some(verify), Fitted::WholeEvaluation { report, .. }) => Some(prove(report, &weights, verify, options.threads, observer)?),
        _ => None,
    };
    Ok(TuneOutcome { fitted, verdict })
}

/// `verify`: the tuned weights against their starting weights.
fn prove(
    report: &TuneReport,
    tuned: &crate::weights::Weights,
    verify: VerifyAfter,
    threads: usize,
    observer: &dyn TuneObserver,
) -> Result<VerifyReport, TuneRunError> {
    let start = TuneReport { weights: report.start.clone(), ..report.clone() }.weights("start");
    tuned.validate().map_err(|e| TuneRunError::VerifyUnplayable(Box::new(e)))?;
    let sprt = crate::stats::SprtConfig::new(0.0, 10.0, 0.05, 0.05, crate::stats::EloModel::Normalized).expect("the bounds [0, 10] are valid");
    let config = crate::play::prove::ProveConfig { pairs: verify.pairs, nodes: verify.nodes, threads: crate::thread_count(threads), sprt };
    let progress = observer.proving(verify.pairs, verify.nodes);
    let verdict = crate::play::prove::prove(tuned, &start, &config, progress.as_ref());
    drop(progress);
    verdict.map_err(TuneRunError::Verify)
}

#[cfg(test)]
mod tests;
