//! The parallel pipeline: one reader thread parses the inputs (through a
//! tee when a caller copies the text), a rayon pool replays batches, and
//! the sink gets them back in input order within a bounded number in
//! flight.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::config::ExtractConfig;
use super::report::{ExtractError, ExtractStats};
use super::rows::{BatchOutput, GameBatch, Replayer, process_batch};
use crate::dataset::{DatasetError, RowBatch, Schema};
use crate::pgn::input::{self, ByteCounters, InputSource};
use crate::pgn::record::{GameRecord, Joiner, RecordVisitor};

/// Games handed to a worker at a time.
const GAMES_PER_BATCH: usize = 256;
/// Tag lines up to this length are always read whole. pgn-reader keeps this
/// many bytes buffered ahead before every tag, moving its buffer to do so:
/// 64 KiB made extraction spend a quarter of its time in memmove, while
/// 4 KiB costs nothing measurable and is far beyond real tag lines.
const TAG_LINE_BYTES: usize = 4096;

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
    let (result_tx, result_rx) = std::sync::mpsc::channel::<Message>();
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
/// a caller can copy games out byte for byte ([`crate::pgn::split`]). Positions
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
