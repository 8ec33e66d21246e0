//! The extraction pipeline: PGN inputs → [`RowBatch`]es, in input order.
//!
//! One reader thread decompresses and parses (pgn-reader never checks
//! legality), handing batches of [`GameRecord`]s to a rayon pool that
//! replays them with shakmaty and computes feature rows. The caller's sink
//! receives the batches in input order, so the output is the same bytes
//! whatever the thread count. With one thread everything runs inline.
//! In-flight batches are limited, so memory stays bounded for any input.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::Ordering;
use std::time::Instant;

use shakmaty::{Chess, EnPassantMode, fen::Fen};

use super::filter::{FilterConfig, QuietFilter};
use super::input::{self, ByteCounters, InputSource, OpenError};
use super::record::{GameRecord, Joiner, RecordVisitor, ResultCheck};
use super::replay::{self, StartError};
use crate::dataset::{DatasetError, GameResult, RowBatch, Schema};
use crate::features::{FeatureLayout, TermScratch, TermValue};

/// Games handed to a worker at a time.
const GAMES_PER_BATCH: usize = 256;
/// Problems kept in full for the report; the rest are only counted.
pub const PROBLEMS_KEPT: usize = 10;
/// Tag lines up to this length are always read whole. pgn-reader keeps this
/// many bytes buffered ahead before every tag, moving its buffer to do so:
/// 64 KiB made extraction spend a quarter of its time in memmove, while
/// 4 KiB costs nothing measurable and is far beyond real tag lines.
const TAG_LINE_BYTES: usize = 4096;

/// What to do with games whose `[Result]` is `*` or missing.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum UnknownResult {
    /// Skip them (counted).
    #[default]
    Skip,
    /// Keep them as draws, as the original pgnlearn program did.
    Draw,
}

/// What to do with a game that has an illegal, ambiguous or null move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum BadGames {
    /// Keep the positions before the bad move.
    #[default]
    Cut,
    /// Drop the whole game.
    Skip,
}

/// Everything that decides which rows come out.
#[derive(Clone, Debug)]
pub struct ExtractConfig {
    /// The features of each row.
    pub layout: FeatureLayout,
    /// Which positions become rows.
    pub filter: FilterConfig,
    /// Games without a known result.
    pub unknown_result: UnknownResult,
    /// Games with a bad move.
    pub bad_games: BadGames,
    /// PGN tags to copy into every row.
    pub tags: Vec<String>,
    /// Whether every row carries its FEN.
    pub fen: bool,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// How candidate positions become rows: the quiet filter, or the leaf
    /// of the bundled engine's quiescence search with this evaluation.
    pub quiet: QuietMode,
    /// Keep at most this many positions per game, chosen by `seed`.
    pub sample: Option<usize>,
    /// Seed of `sample`.
    pub seed: u64,
    /// Drop positions seen before (same Zobrist key), in input order.
    pub dedupe: bool,
    /// Read evaluation labels from move comments (`[%eval ...]`, `wv=`).
    pub labels: bool,
    /// The id of the first game read (ids count on from it): a shard's
    /// first game in the whole collection (see [`super::split`]), so that
    /// shards extracted apart get the ids of one extraction of them all.
    pub game_base: u64,
}

/// Which positions of a game become rows.
#[derive(Clone, Debug, Default)]
pub enum QuietMode {
    /// The quiet filter of [`FilterConfig`] (the 2015 pgnlearn rule by default).
    #[default]
    Plies,
    /// Every position after the opening plies is replaced by the end of the
    /// bundled engine's quiescence-search principal variation (with this
    /// evaluation); positions in check or with a mate score are skipped.
    Qsearch(Box<crate::engine::Evaluator>),
}

impl Default for ExtractConfig {
    fn default() -> Self {
        ExtractConfig {
            layout: FeatureLayout::default(),
            filter: FilterConfig::default(),
            unknown_result: UnknownResult::Skip,
            bad_games: BadGames::Cut,
            tags: Vec::new(),
            fen: false,
            threads: 0,
            quiet: QuietMode::Plies,
            sample: None,
            seed: 1,
            dedupe: false,
            labels: false,
            game_base: 0,
        }
    }
}

impl ExtractConfig {
    /// The worker threads to use: `threads`, or one per core when it is 0.
    pub fn thread_count(&self) -> usize {
        crate::thread_count(self.threads)
    }

    /// The columns of the rows this configuration produces.
    pub fn schema(&self) -> Schema {
        Schema { tags: self.tags.clone(), fen: self.fen, eval: self.labels, ..Schema::new(self.layout.clone()) }
    }
}

/// A game that could not be (fully) used, for the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The input it came from.
    pub file: String,
    /// 1-based game number within that input.
    pub game: u64,
    /// 1-based ply of the problem, when it is a move.
    pub ply: Option<u32>,
    /// What went wrong, with the offending text.
    pub message: String,
}

impl Problem {
    /// The problem of a game the PGN reader could not read (an unterminated
    /// tag or comment, a file cut short), if it is one: in the same words
    /// for every command that reads games.
    pub fn unreadable(file: &str, game: &GameRecord) -> Option<Problem> {
        let message = game.parse_error.as_ref()?;
        let why = if message == super::record::UNTERMINATED_TAG {
            " (a tag line without its closing quote, or too long to read: over 4 KB; the game is skipped)"
        } else {
            ""
        };
        Some(Problem { file: file.to_string(), game: game.number, ply: None, message: format!("unreadable PGN: {message}{why}") })
    }

    /// The problem of a game the input ended inside (see
    /// [`GameRecord::unfinished`]), if it is one: its moves are used, but
    /// the file may have been cut short, and the user should know.
    pub fn unfinished(file: &str, game: &GameRecord) -> Option<Problem> {
        game.unfinished.then(|| Problem {
            file: file.to_string(),
            game: game.number,
            ply: None,
            message: format!(
                "the file ends inside this game, after {} plies and before its result marker: was it cut short? (the moves read are used)",
                game.moves.len()
            ),
        })
    }

    /// Counts `self` into `count` and keeps it in `kept` while it holds
    /// fewer than [`PROBLEMS_KEPT`]: a damaged file reports its first few
    /// problems in full and how many more there were.
    pub fn note(self, kept: &mut Vec<Problem>, count: &mut u64) {
        *count += 1;
        if kept.len() < PROBLEMS_KEPT {
            kept.push(self);
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: game {}", self.file, self.game)?;
        if let Some(ply) = self.ply {
            write!(f, ", ply {ply}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Counts of what happened to the games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtractStats {
    /// Games found in the inputs.
    pub games_read: u64,
    /// Of them, games that are surely PGN: those with at least one tag
    /// pair, and bare move lists that end in a termination marker and
    /// begin with a legal move. Bytes that are not PGN at all can still
    /// parse as a game of stray tokens, never like these.
    pub games_recognised: u64,
    /// Games that contributed positions (including games cut at a bad move).
    pub games_used: u64,
    /// Skipped: `[Result]` is `*` or missing.
    pub skipped_unknown_result: u64,
    /// Skipped: `[Result]` is not a result at all (`2-0`, say).
    pub skipped_bad_result: u64,
    /// Games whose `[Result]` tag and movetext marker disagree; the tag
    /// is used (each is also a problem, named in a warning).
    pub result_disagreements: u64,
    /// Skipped: a variant pgntune does not replay.
    pub skipped_variant: u64,
    /// Skipped: a `[FEN]` that is not a legal position.
    pub skipped_bad_fen: u64,
    /// Skipped: a bad move, with `--bad-games skip`.
    pub skipped_bad_moves: u64,
    /// Skipped: text the PGN reader could not parse (unterminated tag or comment).
    pub skipped_unreadable: u64,
    /// Used, but cut short at an illegal, ambiguous or null move.
    pub games_cut: u64,
    /// Rows emitted.
    pub rows: u64,
    /// Rows dropped as repeats of earlier positions (`dedupe`).
    pub duplicates: u64,
    /// Candidate positions skipped by the quiescence search (in check, or a mate score).
    pub skipped_positions: u64,
    /// All problems found (bad moves, bad FENs, unreadable games).
    pub problem_count: u64,
    /// The first [`PROBLEMS_KEPT`] problems, in input order.
    pub problems: Vec<Problem>,
    /// Bytes read from the inputs as stored (compressed or not).
    pub input_bytes: u64,
    /// Bytes of PGN text after decompression.
    pub text_bytes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl ExtractStats {
    /// True when the inputs had content but not one PGN game: none
    /// recognised (see `games_recognised`) and none that gave positions
    /// (binary or foreign files).
    /// Empty inputs are an empty collection, not an error.
    pub fn found_no_game(&self) -> bool {
        self.text_bytes > 0 && self.games_recognised == 0 && self.games_used == 0
    }

    /// Games skipped for any reason.
    pub fn games_skipped(&self) -> u64 {
        self.skipped_unknown_result
            + self.skipped_bad_result
            + self.skipped_variant
            + self.skipped_bad_fen
            + self.skipped_bad_moves
            + self.skipped_unreadable
    }

    fn merge(&mut self, other: &ExtractStats) {
        self.games_read += other.games_read;
        self.games_recognised += other.games_recognised;
        self.games_used += other.games_used;
        self.skipped_unknown_result += other.skipped_unknown_result;
        self.skipped_bad_result += other.skipped_bad_result;
        self.result_disagreements += other.result_disagreements;
        self.skipped_variant += other.skipped_variant;
        self.skipped_bad_fen += other.skipped_bad_fen;
        self.skipped_bad_moves += other.skipped_bad_moves;
        self.skipped_unreadable += other.skipped_unreadable;
        self.games_cut += other.games_cut;
        self.rows += other.rows;
        self.duplicates += other.duplicates;
        self.skipped_positions += other.skipped_positions;
        self.problem_count += other.problem_count;
        for p in &other.problems {
            if self.problems.len() < PROBLEMS_KEPT {
                self.problems.push(p.clone());
            }
        }
    }

    /// The one-line summary printed at the end of a run.
    pub fn summary_line(&self) -> String {
        let mut skipped = Vec::new();
        for (n, why) in [
            (self.skipped_unknown_result, "unknown result"),
            (self.skipped_bad_result, "unreadable result"),
            (self.skipped_variant, "variant"),
            (self.skipped_bad_fen, "bad FEN"),
            (self.skipped_bad_moves, "bad moves"),
            (self.skipped_unreadable, "unreadable"),
        ] {
            if n > 0 {
                skipped.push(format!("{n} {why}"));
            }
        }
        let skipped = if skipped.is_empty() { "none".to_string() } else { skipped.join(", ") };
        let cut = if self.games_cut > 0 { format!(" ({} cut at a bad move)", self.games_cut) } else { String::new() };
        let dropped = if self.duplicates > 0 { format!(" ({} repeated positions dropped)", self.duplicates) } else { String::new() };
        let disagree = if self.result_disagreements > 0 {
            format!(
                "; {} whose Result tag and result marker disagree (the tag used)",
                crate::plural::count(self.result_disagreements, "game", "games")
            )
        } else {
            String::new()
        };
        let mb_per_s = if self.seconds > 0.0 { self.text_bytes as f64 / 1e6 / self.seconds } else { 0.0 };
        format!(
            "games read {}, used {}{cut}, skipped {skipped}{disagree}; rows {}{dropped}; {:.2} s, {:.1} MB/s",
            self.games_read, self.games_used, self.rows, self.seconds, mb_per_s
        )
    }
}

/// Why extraction stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// An input could not be opened.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// An input failed while being read (I/O error, corrupt compressed stream).
    #[error("{path}: {source}")]
    Read {
        /// The input.
        path: String,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The rows could not be written.
    #[error(transparent)]
    Sink(#[from] DatasetError),
    /// The worker threads could not be started.
    #[error("cannot start worker threads: {0}")]
    Threads(String),
}

/// Receives progress while extraction runs: input bytes read (as stored) and games read.
pub trait Progress: Sync {
    /// Called about once per batch.
    fn update(&self, input_bytes: u64, games: u64);
}

/// A [`Progress`] that shows nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn update(&self, _: u64, _: u64) {}
}

/// A batch of games on its way to a worker.
struct GameBatch {
    seq: u64,
    games: Vec<GameRecord>,
}

/// What a worker made of a batch.
struct BatchOutput {
    seq: u64,
    rows: RowBatch,
    stats: ExtractStats,
}

/// Extracts rows from `inputs`, calling `sink` with each batch in input order.
pub fn extract<S>(inputs: &[InputSource], config: &ExtractConfig, progress: &dyn Progress, mut sink: S) -> Result<ExtractStats, ExtractError>
where
    S: FnMut(&RowBatch) -> Result<(), DatasetError>,
{
    let started = Instant::now();
    let counters = ByteCounters::default();
    let names: Vec<String> = inputs.iter().map(|i| i.to_string()).collect();
    let schema = config.schema();
    let threads = config.thread_count();
    let mut stats = ExtractStats::default();
    let mut seen: Option<rustc_hash::FxHashSet<u64>> = config.dedupe.then(Default::default);
    // Gives back the batch's rows, cleared, for the next batch to fill.
    let mut deliver = |mut out: BatchOutput| -> Result<RowBatch, ExtractError> {
        // Repeats are dropped here, in input order, so that which copy
        // survives does not depend on the threads.
        if let Some(seen) = &mut seen {
            let keep: Vec<bool> = out.rows.keys.iter().map(|&k| seen.insert(k)).collect();
            let dropped = keep.iter().filter(|&&k| !k).count() as u64;
            out.rows.retain_from(0, &keep);
            out.stats.duplicates += dropped;
            out.stats.rows -= dropped;
        }
        stats.merge(&out.stats);
        if !out.rows.is_empty() {
            sink(&out.rows)?;
        }
        out.rows.clear();
        Ok(out.rows)
    };

    if threads <= 1 {
        // Inline: each game is replayed as soon as it is read, while its
        // moves are still in cache; rows go out every GAMES_PER_BATCH games.
        let mut replayer = Replayer::new(config, &names, &schema);
        read_games(inputs, config, &counters, progress, |game| {
            replayer.process(&game);
            if replayer.games == GAMES_PER_BATCH {
                // The same buffers for every batch: fresh ones grew from
                // nothing each time, and their pages were zeroed anew.
                replayer.rows = deliver(replayer.take(0))?;
            }
            Ok(true)
        })?;
        deliver(replayer.take(0))?;
    } else {
        run_parallel(inputs, config, &counters, progress, &names, &schema, &mut deliver)?;
    }

    stats.input_bytes = counters.raw.load(Ordering::Relaxed);
    stats.text_bytes = counters.text.load(Ordering::Relaxed);
    stats.seconds = started.elapsed().as_secs_f64();
    Ok(stats)
}

/// The parallel pipeline. The reading loop runs on one of the pool's
/// threads; when the queue of batches is full it replays batches itself
/// instead of waiting, so `threads` threads do all the work and none of
/// them sits idle or spins against the reader for a core.
fn run_parallel(
    inputs: &[InputSource],
    config: &ExtractConfig,
    counters: &ByteCounters,
    progress: &dyn Progress,
    names: &[String],
    schema: &Schema,
    deliver: &mut dyn FnMut(BatchOutput) -> Result<RowBatch, ExtractError>,
) -> Result<(), ExtractError> {
    let threads = config.thread_count();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| ExtractError::Threads(e.to_string()))?;
    #[allow(clippy::large_enum_variant)] // nearly every message is a Batch: boxing it would only add allocations
    enum Message {
        Batch(BatchOutput),
        Done(u64),
        Failed(ExtractError),
    }
    let (result_tx, result_rx) = crossbeam_channel::unbounded::<Message>();
    // Tickets bound the batches in flight (queued, being replayed, or waiting
    // to be written in order), and with them the memory used.
    let in_flight = 4 * threads;
    let (ticket_tx, ticket_rx) = crossbeam_channel::bounded::<()>(in_flight);
    for _ in 0..in_flight {
        let _ = ticket_tx.send(());
    }
    // Delivered batches' row buffers, cleared, go back to the workers: a
    // fresh buffer per batch grew from nothing, and under mimalloc had its
    // pages zeroed anew by the kernel (a twentieth of a two-thread run).
    let (spare_tx, spare_rx) = crossbeam_channel::bounded::<RowBatch>(in_flight);

    std::thread::scope(|scope| {
        // The consumer owns the ticket sender: if it stops early (an output
        // error), dropping it wakes a reader waiting for a ticket.
        let ticket_tx = ticket_tx;
        let reader_tx = result_tx.clone();
        let spare_rx = &spare_rx;
        scope.spawn(move || {
            pool.scope_fifo(|batches_scope| {
                let mut batches = 0u64;
                let mut games = Vec::with_capacity(GAMES_PER_BATCH);
                let mut send = |games: Vec<GameRecord>| -> bool {
                    if !acquire_ticket(&ticket_rx) {
                        return false; // the consumer has stopped
                    }
                    let batch = GameBatch { seq: batches, games };
                    batches += 1;
                    let tx = reader_tx.clone();
                    batches_scope.spawn_fifo(move |_| {
                        let _ = tx.send(Message::Batch(process_batch(batch, config, names, schema, spare_rx.try_recv().ok())));
                    });
                    true
                };
                let mut outcome = read_games(inputs, config, counters, progress, |game| {
                    games.push(game);
                    Ok(games.len() < GAMES_PER_BATCH || send(std::mem::replace(&mut games, Vec::with_capacity(GAMES_PER_BATCH))))
                });
                if outcome.is_ok() && !games.is_empty() && !send(games) {
                    outcome = Ok(());
                }
                let _ = reader_tx.send(match outcome {
                    Ok(()) => Message::Done(batches),
                    Err(e) => Message::Failed(e),
                });
            });
        });
        drop(result_tx);

        let mut pending: BTreeMap<u64, BatchOutput> = BTreeMap::new();
        let mut next = 0u64;
        let mut total: Option<u64> = None;
        while total != Some(next) {
            match result_rx.recv() {
                Ok(Message::Batch(out)) => {
                    pending.insert(out.seq, out);
                    while let Some(out) = pending.remove(&next) {
                        let _ = spare_tx.try_send(deliver(out)?);
                        next += 1;
                        let _ = ticket_tx.send(());
                    }
                }
                Ok(Message::Done(n)) => total = Some(n),
                Ok(Message::Failed(e)) => return Err(e),
                Err(_) => return Err(ExtractError::Threads("a worker thread stopped unexpectedly".into())),
            }
        }
        Ok(())
    })
}

/// Takes a ticket for one more batch in flight. While none is free, the
/// calling pool thread replays queued batches; it blocks only when there is
/// nothing left to help with. False when the consumer has stopped.
fn acquire_ticket(tickets: &crossbeam_channel::Receiver<()>) -> bool {
    loop {
        match tickets.try_recv() {
            Ok(()) => return true,
            Err(crossbeam_channel::TryRecvError::Disconnected) => return false,
            Err(crossbeam_channel::TryRecvError::Empty) => {
                if rayon::yield_now() != Some(rayon::Yield::Executed) {
                    return tickets.recv().is_ok();
                }
            }
        }
    }
}

/// Reads every input in order, calling `emit` with each game.
/// `emit` returns `Ok(false)` to stop early.
fn read_games<E>(
    inputs: &[InputSource],
    config: &ExtractConfig,
    counters: &ByteCounters,
    progress: &dyn Progress,
    emit: E,
) -> Result<(), ExtractError>
where
    E: FnMut(GameRecord) -> Result<bool, ExtractError>,
{
    read_games_tapped(inputs, config, counters, progress, None, emit)
}

/// Every input's text (decompressed) as the PGN reader reads it, so that
/// a caller can copy games out byte for byte ([`super::split`]). Positions
/// count over the inputs' texts one after another.
#[derive(Debug, Default)]
pub(crate) struct Tap {
    /// Text read and not yet taken by the caller.
    pub text: Vec<u8>,
    /// Bytes the caller has taken from the front of `text` so far.
    pub drained: u64,
    /// Where each input's text ended, for the inputs read to their end.
    pub ends: Vec<u64>,
}

/// Passes what it reads on to a tap as well, and marks the input's end.
struct Tee<'a> {
    inner: Box<dyn io::Read + Send>,
    tap: &'a std::cell::RefCell<Tap>,
    ended: bool,
}

impl io::Read for Tee<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut tap = self.tap.borrow_mut();
        tap.text.extend_from_slice(&buf[..n]);
        if n == 0 && !buf.is_empty() && !self.ended {
            self.ended = true;
            let end = tap.drained + tap.text.len() as u64;
            tap.ends.push(end);
        }
        Ok(n)
    }
}

/// [`read_games`], with every input's text also appended to `tap`. Games
/// get their [`GameRecord::start`] offsets either way; the game index
/// starts at `config.game_base`.
pub(crate) fn read_games_tapped<E>(
    inputs: &[InputSource],
    config: &ExtractConfig,
    counters: &ByteCounters,
    progress: &dyn Progress,
    tap: Option<&std::cell::RefCell<Tap>>,
    mut emit: E,
) -> Result<(), ExtractError>
where
    E: FnMut(GameRecord) -> Result<bool, ExtractError>,
{
    let mut index = 0u64;
    let mut complete: Vec<GameRecord> = Vec::new();
    for (input_no, source) in inputs.iter().enumerate() {
        let stream = input::open(source, counters)?;
        let text: Box<dyn io::Read + '_> = match tap {
            Some(tap) => Box::new(Tee { inner: stream.reader, tap, ended: false }),
            None => stream.reader,
        };
        let mut reader = pgn_reader::Reader::build(text).set_supported_tag_line_length(TAG_LINE_BYTES).finish();
        let mut visitor = RecordVisitor::new(input_no, &config.tags).with_evals(config.labels);
        let mut joiner = Joiner::default();
        let (text_before, games_before) = (counters.text.load(Ordering::Relaxed), index);
        let read_error = |error: io::Error| ExtractError::Read { path: source.to_string(), source: error };
        let mut more = true;
        while more {
            // Where the next stretch of text begins: what was read, less what is still buffered.
            if let Err(error) = reader.has_more() {
                return Err(read_error(error));
            }
            let start = counters.text.load(Ordering::Relaxed) - text_before - reader.buffer().len() as u64;
            match reader.read_game(&mut visitor) {
                Ok(None) => {
                    joiner.finish(&mut complete);
                    // An input with text but not a single game is not PGN
                    // (a binary file, say): an unreadable "game" says so.
                    if complete.is_empty() && index == games_before && counters.text.load(Ordering::Relaxed) > text_before {
                        complete.push(GameRecord {
                            input: input_no,
                            number: 1,
                            parse_error: Some("no PGN game in this input".into()),
                            ..GameRecord::default()
                        });
                    }
                    more = false;
                }
                Ok(Some(records)) => {
                    for (i, record) in records.into_iter().enumerate() {
                        joiner.push(GameRecord { start: (i == 0).then_some(start), ..record }, &mut complete);
                    }
                }
                Err(error) if stream.stream_failed.load(Ordering::Relaxed) || error.kind() != io::ErrorKind::InvalidData => {
                    return Err(read_error(error));
                }
                // pgn-reader lost its place: after an unterminated tag it
                // recovers at the next line; an unterminated comment runs to
                // the end of the input. Either way the game is unreadable.
                Err(parse_error) => {
                    let lost =
                        GameRecord { input: input_no, parse_error: Some(parse_error.to_string()), start: Some(start), ..GameRecord::default() };
                    joiner.push(lost, &mut complete);
                }
            }
            for record in complete.drain(..) {
                index += 1;
                if index.is_multiple_of(GAMES_PER_BATCH as u64) {
                    progress.update(counters.raw.load(Ordering::Relaxed), index);
                }
                if !emit(GameRecord { index: config.game_base + index - 1, ..record })? {
                    return Ok(());
                }
            }
        }
    }
    progress.update(counters.raw.load(Ordering::Relaxed), index);
    Ok(())
}

/// Turns games into rows and counts what happened to them.
struct Replayer<'a> {
    config: &'a ExtractConfig,
    names: &'a [String],
    schema: &'a Schema,
    rows: RowBatch,
    stats: ExtractStats,
    games: usize,
    /// The engine whose quiescence search picks positions, in qsearch mode.
    engine: Option<crate::engine::Engine>,
    scratch: TermScratch,
    terms: Vec<TermValue>,
    /// The quiet filter, restarted for each game.
    filter: QuietFilter<'a>,
}

impl<'a> Replayer<'a> {
    /// `schema` is `config.schema()`, made once per extraction: it names
    /// every column, hundreds of strings for a whole evaluation.
    fn new(config: &'a ExtractConfig, names: &'a [String], schema: &'a Schema) -> Self {
        Replayer {
            config,
            names,
            rows: RowBatch::new(schema),
            schema,
            stats: ExtractStats::default(),
            games: 0,
            // No hash table: a one-entry table cleared per position keeps
            // the choice a function of the position alone.
            engine: match &config.quiet {
                QuietMode::Plies => None,
                QuietMode::Qsearch(evaluator) => Some(crate::engine::Engine::new((**evaluator).clone(), 0)),
            },
            scratch: TermScratch::default(),
            terms: Vec::new(),
            filter: QuietFilter::new(&config.filter, &config.layout),
        }
    }

    fn process(&mut self, game: &GameRecord) {
        let file = &self.names[game.input];
        let first = self.rows.len();
        process_game(
            game,
            self.config,
            file,
            &mut self.rows,
            &mut self.stats,
            &mut self.engine,
            &mut self.scratch,
            &mut self.terms,
            &mut self.filter,
        );
        if let Some(k) = self.config.sample {
            let n = self.rows.len() - first;
            if n > k {
                let keep = sample_rows(n, k, self.config.seed, game.index);
                self.rows.retain_from(first, &keep);
                self.stats.rows -= (n - k) as u64;
            }
        }
        self.games += 1;
    }

    /// The rows and counts so far, leaving the replayer empty.
    fn take(&mut self, seq: u64) -> BatchOutput {
        self.games = 0;
        BatchOutput { seq, rows: std::mem::replace(&mut self.rows, RowBatch::new(self.schema)), stats: std::mem::take(&mut self.stats) }
    }
}

/// Replays a batch of games into rows. Pure: the same batch always gives the same output.
/// `rows`, when given, is an empty batch of the same schema whose buffers
/// are reused.
fn process_batch(batch: GameBatch, config: &ExtractConfig, names: &[String], schema: &Schema, rows: Option<RowBatch>) -> BatchOutput {
    let mut replayer = Replayer::new(config, names, schema);
    if let Some(rows) = rows {
        debug_assert!(rows.is_empty());
        replayer.rows = rows;
    }
    for game in &batch.games {
        replayer.process(game);
    }
    replayer.take(batch.seq)
}

fn note_problem(stats: &mut ExtractStats, file: &str, game: &GameRecord, ply: Option<u32>, message: String) {
    Problem { file: file.to_string(), game: game.number, ply, message }.note(&mut stats.problems, &mut stats.problem_count);
}

#[allow(clippy::too_many_arguments)] // the worker's reusable state, passed apart to keep borrows simple
fn process_game(
    game: &GameRecord,
    config: &ExtractConfig,
    file: &str,
    rows: &mut RowBatch,
    stats: &mut ExtractStats,
    engine: &mut Option<crate::engine::Engine>,
    scratch: &mut TermScratch,
    leaf_terms: &mut Vec<TermValue>,
    filter: &mut QuietFilter<'_>,
) {
    stats.games_read += 1;
    stats.games_recognised += u64::from(game.has_tags);
    if let Some(problem) = Problem::unreadable(file, game) {
        stats.skipped_unreadable += 1;
        problem.note(&mut stats.problems, &mut stats.problem_count);
        return;
    }
    match game.check_result() {
        // Not a result at all: the game is skipped whatever
        // --unknown-result says, and its marker is missing for the same
        // reason (`2-0` is no marker either), not because the file was cut.
        ResultCheck::Unreadable(tag) => {
            stats.skipped_bad_result += 1;
            let tag = super::decode_text(tag);
            note_problem(stats, file, game, None, format!("[Result \"{tag}\"] is not a result (1-0, 0-1, 1/2-1/2 or *); skipped"));
            return;
        }
        ResultCheck::Disagree { tag, marker } => {
            stats.result_disagreements += 1;
            let tag = super::decode_text(tag);
            let message = format!("[Result \"{tag}\"] disagrees with the result marker {marker} at the end of the moves; the tag is used");
            note_problem(stats, file, game, None, message);
        }
        ResultCheck::Agree => {}
    }
    if let Some(problem) = Problem::unfinished(file, game) {
        problem.note(&mut stats.problems, &mut stats.problem_count);
    }
    let start = match replay::start_position(game) {
        Ok(pos) => pos,
        Err(StartError::Variant(_)) => {
            stats.skipped_variant += 1;
            return;
        }
        Err(e @ StartError::Fen(_)) => {
            stats.skipped_bad_fen += 1;
            note_problem(stats, file, game, None, e.to_string());
            return;
        }
    };
    let result = match game.result.as_deref().and_then(GameResult::from_tag) {
        Some(result) => result,
        None if config.unknown_result == UnknownResult::Draw => GameResult::Draw,
        None => {
            stats.skipped_unknown_result += 1;
            // Bytes that are no PGN at all look like this: say where they
            // are. A bare list of moves that ends in `*` and begins with a
            // legal move is a game, of unknown result.
            if !game.has_tags {
                if game.terminated && game.moves.first().is_some_and(|m| replay::resolve(&start, m.san).is_ok()) {
                    stats.games_recognised += 1;
                } else {
                    note_problem(stats, file, game, None, "no tags and no result: not a PGN game; skipped".into());
                }
            }
            return;
        }
    };

    let first_row = rows.len();
    let kept_tags: Vec<String> = game.kept_tags.iter().map(|t| t.as_deref().map(super::decode_text).unwrap_or_default()).collect();
    filter.restart();
    let mut pos = start;
    let bad = replay::replay(&mut pos, &game.moves, config.filter.max_plies, |pos, m, ply| {
        let eval = game.evals.get(ply as usize - 1).copied().unwrap_or(f32::NAN);
        let push = |rows: &mut RowBatch, terms: &[TermValue], phase: u8, at: &Chess| {
            rows.push_features(terms, phase);
            rows.results.push(result);
            rows.games.push(game.index);
            rows.plies.push(ply);
            for (column, value) in rows.tags.iter_mut().zip(&kept_tags) {
                column.push(value.clone());
            }
            if config.fen {
                rows.fens.push(Fen::from_position(at, EnPassantMode::Legal).to_string());
            }
            if config.labels {
                rows.evals.push(eval);
            }
            if config.dedupe {
                rows.keys.push(crate::engine::position_hash(at));
            }
        };
        match engine {
            Some(engine) => {
                if ply <= config.filter.skip_plies {
                    return;
                }
                match engine.quiescence_leaf(pos) {
                    Some((leaf, _, _)) => {
                        let phase = config.layout.terms_of(&leaf, scratch, leaf_terms);
                        push(rows, leaf_terms, phase, &leaf);
                    }
                    None => stats.skipped_positions += 1,
                }
            }
            None => {
                if let Some(row) = filter.after_move(pos, m, ply) {
                    push(rows, row.terms, row.phase, pos);
                }
            }
        }
    });
    if let Some(bad) = bad {
        note_problem(stats, file, game, Some(bad.ply), format!("{} '{}'", bad.kind, bad.text));
        if config.bad_games == BadGames::Skip {
            rows.truncate(first_row);
            stats.skipped_bad_moves += 1;
            return;
        }
        stats.games_cut += 1;
    }
    stats.games_used += 1;
    stats.rows += (rows.len() - first_row) as u64;
}

/// Which `k` of a game's `n` candidate rows to keep: a seeded choice that
/// depends only on the seed and the game's index, in the rows' order.
fn sample_rows(n: usize, k: usize, seed: u64, game: u64) -> Vec<bool> {
    use rand::SeedableRng;
    use rand::seq::index::sample;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed ^ game.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut keep = vec![false; n];
    for i in sample(&mut rng, n, k) {
        keep[i] = true;
    }
    keep
}
