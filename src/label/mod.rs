//! `pgntune label`: every position of a dataset scored by a search, the
//! bundled engine's or any UCI engine's (Stockfish, ...), so that any
//! collection becomes training data. A search score is a far less noisy
//! target than the result of a game decided many moves later; the tuner
//! mixes the two (`--eval-weight`).
//!
//! The run is one library call, [`run`]: a [`LabelConfig`] in, a
//! [`LabelReport`] out.
//!
//! * Each worker owns one searcher (an engine process for UCI) and asks it
//!   for one position at a time, after `ucinewgame`: a label depends on
//!   the position, the engine and the limit alone, never on the number of
//!   workers or on which worker searched it.
//! * Scores are turned to white's view; a mate is ±[`MATE_LABEL`]; with
//!   `wdl` an engine's win/draw/loss estimate becomes the label, on the
//!   Elo scale (`400·log10(E / (1 − E))` for the expected score `E`).
//! * With `resolve_pv`, each position is replaced by the last position of
//!   the search's principal variation, which the score belongs to; mates
//!   and leaves in check are skipped, and counted.
//! * An engine that crashes, hangs past the deadline, or answers what
//!   cannot be read is restarted and the position tried again; when the
//!   second try fails too, the position is skipped and reported.
//! * Every position done goes to a journal at once ([`journal`]); a killed
//!   run started again with the same arguments resumes from it. The
//!   output is written, atomically, only when every position is done.

pub mod journal;
pub mod teacher;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::{Chess, Color, EnPassantMode, Position};

use crate::atomic::{OutputPlan, PlanError};
use crate::dataset::fens::{PositionRow, read_positions};
use crate::dataset::{DatasetError, Format, RowBatch, Schema, SparseShape, create_writer};
use crate::engine::Score;
use crate::features::{FeatureLayout, TermScratch};
use crate::pgn::labels::MATE_LABEL;
use crate::pgn::replay::position_from_fen;
use crate::play::limits::MoveLimits;
use crate::play::player::PlayerError;
use journal::{Entry, Journal};
pub use teacher::{Searcher, Teacher, Verdict};

/// Positions a worker takes at a time (and journals together).
const CHUNK: usize = 8;

/// Everything a labelling run needs.
#[derive(Clone, Debug)]
pub struct LabelConfig {
    /// The positions: EPD, or CSV/TSV/Parquet written by `extract --fen`.
    pub dataset: PathBuf,
    /// Where the labelled rows go; its format from its extension.
    pub output: PathBuf,
    /// The feature sets of the rows written.
    pub layout: FeatureLayout,
    /// Who searches.
    pub teacher: Teacher,
    /// The limit of each search: depth or nodes.
    pub limits: MoveLimits,
    /// Workers, each with its own engine (0: one per core).
    pub threads: usize,
    /// Label with the engine's win/draw/loss estimate where it gives one.
    pub wdl: bool,
    /// Replace each position by the leaf of the search's principal variation.
    pub resolve_pv: bool,
    /// The Parquet shape of a wide layout's rows.
    pub sparse_shape: SparseShape,
    /// How long one search may take before the engine counts as hung.
    pub timeout: Duration,
    /// Replace an output pgntune did not write, and a journal of another run.
    pub force: bool,
}

/// What a run did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LabelReport {
    /// Positions in the dataset.
    pub positions: usize,
    /// Rows written (labelled positions).
    pub labelled: usize,
    /// Positions an earlier, interrupted run had done already.
    pub resumed: usize,
    /// Positions skipped, by reason.
    pub skipped: BTreeMap<String, usize>,
    /// Labels from the engine's win/draw/loss estimate.
    pub wdl_labels: usize,
    /// Engine restarts after a crash, a hang or an unreadable answer.
    pub restarts: usize,
    /// The positions given up on, with the engine's failure.
    pub failures: Vec<String>,
    /// Who labelled (engine, options) and at what limit.
    pub teacher: String,
    /// The engine's own name (`id name`), for UCI engines.
    pub engine_id: Option<String>,
    /// The limit, as text.
    pub limit: String,
    /// Workers used.
    pub threads: usize,
    /// Wall time of this run, in seconds.
    pub seconds: f64,
    /// Time from asking for a search to its answer, all workers, seconds.
    pub search_seconds: f64,
    /// The part of it the engines report as their own search time.
    pub engine_seconds: f64,
    /// Time spent clearing the engines between positions (`ucinewgame`
    /// and its `isready`), which makes each label independent of the last.
    pub reset_seconds: f64,
    /// Notes for the user (an engine option it does not list, tags that
    /// the output cannot hold, ...).
    pub warnings: Vec<String>,
}

/// Why a labelling run failed.
#[derive(Debug, thiserror::Error)]
pub enum LabelError {
    /// An unusable setting.
    #[error("{0}")]
    Config(String),
    /// An output that may not be written.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The dataset cannot be read, or the output written.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// The engine does not start.
    #[error("the engine {teacher} does not start: {source}")]
    Start {
        /// The engine.
        teacher: String,
        /// Why.
        #[source]
        source: PlayerError,
    },
    /// The journal cannot be read or written.
    #[error("{path}: {source}")]
    Journal {
        /// The journal.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A journal line pgntune did not write.
    #[error("{path}: not a line of a labelling journal: '{line}' (remove the file to start afresh)")]
    BadJournal {
        /// The journal.
        path: String,
        /// The line.
        line: String,
    },
    /// The engines' hash tables need more memory than there is.
    #[error(
        "--hash {hash_mb} MB for each of {threads} engines needs {total} MB, more than the {available} MB of memory available; give a smaller --hash or fewer --threads"
    )]
    TooMuchHash {
        /// The table per engine, in MB.
        hash_mb: usize,
        /// Engines.
        threads: usize,
        /// Their product, in MB.
        total: usize,
        /// Memory available, MB.
        available: u64,
    },
    /// A journal of other labels (another dataset, engine or limit).
    #[error("{path}: the journal of another labelling run (other positions, engine or limit); remove it, or give --force to start afresh")]
    OtherRun {
        /// The journal.
        path: String,
    },
}

/// Hears how far a run has got.
pub trait LabelProgress: Sync {
    /// `done` of `total` positions are done (`resumed` of them by an earlier run).
    fn update(&self, done: usize, total: usize, resumed: usize);
}

impl LabelProgress for () {
    fn update(&self, _: usize, _: usize, _: usize) {}
}

/// The limit as text, for reports and the record.
fn limit_text(limits: &MoveLimits) -> String {
    match (limits.depth, limits.nodes) {
        (Some(d), Some(n)) => format!("depth {d}, {n} nodes"),
        (Some(d), None) => format!("depth {d}"),
        (None, Some(n)) => format!("{n} nodes"),
        (None, None) => "no limit".into(),
    }
}

/// The memory the system says is available (`MemAvailable` of
/// `/proc/meminfo`), in MB, where it says so.
fn available_mb() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// Checks that `threads` hash tables of `hash_mb` fit in the memory
/// available: an allocation the system grants but cannot back ends the
/// process later, at the first touch of a page, by the out-of-memory killer.
pub fn check_hash_memory(hash_mb: usize, threads: usize) -> Result<(), LabelError> {
    let total = hash_mb.saturating_mul(threads);
    match available_mb() {
        Some(available) if total as u64 > available => Err(LabelError::TooMuchHash { hash_mb, threads, total, available }),
        _ => Ok(()),
    }
}

/// Checks a configuration before any work.
fn check(config: &LabelConfig) -> Result<Format, LabelError> {
    if config.limits.depth.is_none() && config.limits.nodes.is_none() {
        return Err(LabelError::Config("give a search limit: --depth or --nodes".into()));
    }
    if config.limits.depth.is_some_and(|d| !(1..=60).contains(&d)) {
        return Err(LabelError::Config("--depth must be from 1 to 60".into()));
    }
    if config.limits.nodes == Some(0) {
        return Err(LabelError::Config("--nodes must be at least 1".into()));
    }
    if crate::atomic::is_stdout(&config.output) {
        return Err(LabelError::Config(
            "-o -: label writes a file (its format from the extension), not standard output: its rows appear only when every position is labelled"
                .into(),
        ));
    }
    let format = Format::resolve(&config.output, None)?;
    if !format.keeps_evals() {
        return Err(LabelError::Config(format!(
            "{}: {} holds no evaluation labels, which label writes; write .csv, .tsv, .parquet, .ijv, .svm or .epd",
            config.output.display(),
            format.describe()
        )));
    }
    Ok(format)
}

/// The hash that ties a journal to its run: the positions and results,
/// who labels, the limit and the options that change the labels.
fn run_id(rows: &[PositionRow], config: &LabelConfig) -> u64 {
    let mut hash = journal::FNV_START;
    let settings = serde_json::to_string(&(&config.teacher, &config.limits, config.wdl, config.resolve_pv)).expect("settings serialise");
    hash = journal::fnv1a(hash, settings.as_bytes());
    for row in rows {
        hash = journal::fnv1a(hash, Fen::from_position(&row.position, EnPassantMode::Legal).to_string().as_bytes());
        hash = journal::fnv1a(hash, &[row.result as u8]);
    }
    hash
}

/// The label of a search's verdict, in centipawns from the side to move's
/// view, and whether it came from the engine's win/draw/loss estimate.
fn side_label(verdict: &Verdict, wdl: bool) -> (f32, bool) {
    if let (true, Some([w, d, l])) = (wdl, verdict.wdl) {
        let total = f64::from(w + d + l).max(1.0);
        let expected = (f64::from(w) + f64::from(d) / 2.0) / total;
        let cp = if expected >= 1.0 {
            f64::from(MATE_LABEL)
        } else if expected <= 0.0 {
            -f64::from(MATE_LABEL)
        } else {
            (400.0 * (expected / (1.0 - expected)).log10()).clamp(-f64::from(MATE_LABEL), f64::from(MATE_LABEL))
        };
        return ((cp * 100.0).round() as f32 / 100.0, true);
    }
    let cp = match verdict.score {
        Score::Cp(cp) => (cp as f32).clamp(-MATE_LABEL, MATE_LABEL),
        Score::Mate(n) if n > 0 => MATE_LABEL,
        Score::Mate(_) => -MATE_LABEL,
    };
    (cp, false)
}

/// What a search says of one position, as a journal entry.
fn entry_of(position: &Chess, verdict: &Verdict, config: &LabelConfig) -> (Entry, bool) {
    let (side, from_wdl) = side_label(verdict, config.wdl);
    let label = if position.turn() == Color::White { side } else { -side };
    if !config.resolve_pv {
        return (Entry::Labelled { label, leaf: None }, from_wdl);
    }
    if matches!(verdict.score, Score::Mate(_)) {
        return (Entry::Skipped("mate score".into()), false);
    }
    let mut leaf = position.clone();
    for &m in &verdict.pv {
        leaf.play_unchecked(m);
    }
    if leaf.is_check() {
        return (Entry::Skipped("leaf in check".into()), false);
    }
    let fen = (!verdict.pv.is_empty()).then(|| Fen::from_position(&leaf, EnPassantMode::Legal).to_string());
    (Entry::Labelled { label, leaf: fen }, from_wdl)
}

/// The entry of a position without legal moves, which no engine searches.
fn game_over(position: &Chess, config: &LabelConfig) -> Entry {
    if config.resolve_pv {
        return Entry::Skipped("game over".into());
    }
    let label = match (position.is_check(), position.turn()) {
        (false, _) => 0.0,
        (true, Color::White) => -MATE_LABEL,
        (true, Color::Black) => MATE_LABEL,
    };
    Entry::Labelled { label, leaf: None }
}

/// What a worker sends back for a chunk.
struct Done {
    entries: Vec<(usize, Entry)>,
    wdl: usize,
    restarts: usize,
    failures: Vec<String>,
    search: Duration,
    engine: Duration,
    reset: Duration,
}

/// Labels every position of the configuration's dataset and writes them.
pub fn run(config: &LabelConfig, progress: &dyn LabelProgress) -> Result<LabelReport, LabelError> {
    let started = Instant::now();
    let format = check(config)?;
    let hash_mb = match &config.teacher {
        Teacher::Bundled { hash_mb, .. } => Some(*hash_mb),
        Teacher::Uci { program, .. } => program.hash_mb,
    };
    if let Some(mb) = hash_mb {
        check_hash_memory(mb, crate::thread_count(config.threads))?;
    }
    let mut plan = OutputPlan::new(config.force);
    plan.input(&config.dataset);
    // A weights file the engine reads is an input no output may replace.
    if let Some(file) = config.teacher.weights_file() {
        plan.input(file);
    }
    plan.output(&config.output, format)?;
    // `-` is standard input, copied to a file only now that the outputs
    // are known to be fine (a pipe is read once).
    let spooled = if crate::atomic::is_stdout(&config.dataset) { Some(crate::dataset::stdin::spool_stdin()?) } else { None };
    let dataset = read_positions(spooled.as_ref().map_or(config.dataset.as_path(), |s| s.path()))?;
    let rows = &dataset.rows;
    if rows.is_empty() {
        return Err(LabelError::Config(format!("{}: no positions to label", config.dataset.display())));
    }
    let threads = crate::thread_count(config.threads).min(rows.len());
    let journal_path = journal::path_for(&config.output);
    let (mut journal, mut entries) = Journal::open(&journal_path, run_id(rows, config), rows.len(), config.force)?;
    let resumed = entries.iter().filter(|e| e.is_some()).count();
    let pending: Vec<usize> = (0..rows.len()).filter(|&i| entries[i].is_none()).collect();
    let mut report = LabelReport {
        positions: rows.len(),
        resumed,
        teacher: config.teacher.describe(),
        limit: limit_text(&config.limits),
        threads,
        ..LabelReport::default()
    };
    progress.update(resumed, rows.len(), resumed);

    let mut count = resumed;
    let cursor = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let start_error: Mutex<Option<LabelError>> = Mutex::new(None);
    let warnings: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let engine_id: Mutex<Option<String>> = Mutex::new(None);
    let (tx, rx) = channel::<Done>();
    std::thread::scope(|scope| {
        for _ in 0..threads.min(pending.len().div_ceil(CHUNK)).max(1) {
            let tx = tx.clone();
            let (cursor, failed, start_error, warnings, engine_id, pending) = (&cursor, &failed, &start_error, &warnings, &engine_id, &pending);
            scope.spawn(move || {
                let mut warn = |w: String| warnings.lock().expect("not poisoned").push(w);
                let start = |warn: &mut dyn FnMut(String)| config.teacher.start(config.wdl, warn);
                let mut searcher = match start(&mut warn) {
                    Ok((searcher, id)) => {
                        *engine_id.lock().expect("not poisoned") = id;
                        searcher
                    }
                    Err(source) => {
                        failed.store(true, Ordering::SeqCst);
                        start_error.lock().expect("not poisoned").get_or_insert(LabelError::Start { teacher: config.teacher.describe(), source });
                        return;
                    }
                };
                while !failed.load(Ordering::SeqCst) {
                    let at = cursor.fetch_add(CHUNK, Ordering::SeqCst);
                    if at >= pending.len() {
                        break;
                    }
                    let mut done = Done {
                        entries: Vec::new(),
                        wdl: 0,
                        restarts: 0,
                        failures: Vec::new(),
                        search: Duration::ZERO,
                        engine: Duration::ZERO,
                        reset: Duration::ZERO,
                    };
                    for &index in &pending[at..(at + CHUNK).min(pending.len())] {
                        let position = &rows[index].position;
                        if position.legal_moves().is_empty() {
                            done.entries.push((index, game_over(position, config)));
                            continue;
                        }
                        let mut last_error = None;
                        let mut entry = None;
                        for _try in 0..2 {
                            match searcher.search(position, &config.limits, config.timeout) {
                                Ok(verdict) => {
                                    // Only searches whose engine reports its time count, so that
                                    // the share outside the engine compares like with like.
                                    if let Some(engine) = verdict.engine_time {
                                        done.search += verdict.search_time;
                                        done.engine += engine;
                                    }
                                    done.reset += verdict.reset_time;
                                    let (e, from_wdl) = entry_of(position, &verdict, config);
                                    done.wdl += usize::from(from_wdl);
                                    entry = Some(e);
                                    break;
                                }
                                Err(e) => {
                                    last_error = Some(e);
                                    done.restarts += 1;
                                    // The old process goes (killed on drop); a fresh one takes the retry.
                                    match start(&mut |_| {}) {
                                        Ok((fresh, _)) => searcher = fresh,
                                        Err(source) => {
                                            failed.store(true, Ordering::SeqCst);
                                            start_error
                                                .lock()
                                                .expect("not poisoned")
                                                .get_or_insert(LabelError::Start { teacher: config.teacher.describe(), source });
                                            let _ = tx.send(done);
                                            return;
                                        }
                                    }
                                }
                            }
                        }
                        let entry = entry.unwrap_or_else(|| {
                            let fen = Fen::from_position(position, EnPassantMode::Legal);
                            let why = last_error.map_or_else(String::new, |e| e.to_string());
                            done.failures.push(format!("position {} ({fen}): {why}", index + 1));
                            Entry::Skipped("engine failed".into())
                        });
                        done.entries.push((index, entry));
                    }
                    if tx.send(done).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        count = resumed;
        let mut journal_error = None;
        for done in rx {
            if journal_error.is_none()
                && let Err(e) = journal.append(&done.entries)
            {
                failed.store(true, Ordering::SeqCst);
                journal_error = Some(e);
            }
            count += done.entries.len();
            report.wdl_labels += done.wdl;
            report.restarts += done.restarts;
            report.failures.extend(done.failures);
            report.search_seconds += done.search.as_secs_f64();
            report.engine_seconds += done.engine.as_secs_f64();
            report.reset_seconds += done.reset.as_secs_f64();
            for (index, entry) in done.entries {
                entries[index] = Some(entry);
            }
            progress.update(count, rows.len(), resumed);
        }
        if let Some(e) = journal_error {
            start_error.lock().expect("not poisoned").get_or_insert(e);
        }
    });
    if let Some(error) = start_error.into_inner().expect("not poisoned") {
        // A journal with nothing in it keeps nothing worth resuming.
        if count == 0 {
            journal.remove()?;
        }
        return Err(error);
    }
    report.engine_id = engine_id.into_inner().expect("not poisoned");
    report.warnings = warnings.into_inner().expect("not poisoned");
    report.warnings.dedup();
    write_rows(config, format, &dataset, &entries, &mut report)?;
    journal.remove()?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Writes the labelled rows in the dataset's order.
fn write_rows(
    config: &LabelConfig,
    format: Format,
    dataset: &crate::dataset::fens::Positions,
    entries: &[Option<Entry>],
    report: &mut LabelReport,
) -> Result<(), LabelError> {
    // The tags the dataset kept go on, so that a labelled set can still be
    // grouped or split by player, event or date.
    let tags = if format.keeps_tags() { dataset.tags.clone() } else { Vec::new() };
    if tags.len() < dataset.tags.len() {
        report.warnings.push(format!(
            "{}: {} holds no tags: the tags of {} ({}) are not written",
            config.output.display(),
            format.describe(),
            config.dataset.display(),
            dataset.tags.join(", ")
        ));
    }
    let engine = report.engine_id.as_ref().map_or(String::new(), |id| format!(" [{id}]"));
    let provenance = format!("{}{engine} at {}{}", report.teacher, report.limit, if config.resolve_pv { ", PV leaves" } else { "" });
    let schema =
        Schema { eval: true, fen: true, tags, provenance: Some(provenance), sparse_shape: config.sparse_shape, ..Schema::new(config.layout.clone()) };
    let mut writer = create_writer(&config.output, format, &schema, config.threads)?;
    let mut batch = RowBatch::new(&schema);
    let (mut scratch, mut terms) = (TermScratch::default(), Vec::new());
    for (row, entry) in dataset.rows.iter().zip(entries) {
        let (label, leaf) = match entry {
            Some(Entry::Labelled { label, leaf }) => (*label, leaf),
            Some(Entry::Skipped(why)) => {
                *report.skipped.entry(why.clone()).or_default() += 1;
                continue;
            }
            None => unreachable!("every position is done before the rows are written"),
        };
        let leaf_position;
        let position = match leaf {
            Some(fen) => {
                let parsed: Fen = fen.parse().map_err(|e| LabelError::Config(format!("journal: bad FEN '{fen}': {e}")))?;
                leaf_position = position_from_fen(parsed).map_err(|e| LabelError::Config(format!("journal: bad FEN '{fen}': {e}")))?;
                &leaf_position
            }
            None => &row.position,
        };
        let phase = config.layout.terms_of(position, &mut scratch, &mut terms);
        batch.push_features(&terms, phase);
        batch.results.push(row.result);
        batch.games.push(row.game);
        batch.plies.push(row.ply);
        batch.evals.push(label);
        batch.fens.push_display(Fen::from_position(position, EnPassantMode::Legal));
        for (column, value) in batch.tags.iter_mut().zip(&row.tags) {
            column.push(value);
        }
        report.labelled += 1;
    }
    writer.write(&batch)?;
    writer.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests;
