//! Row groups encoded and compressed on background threads, written in order.
//!
//! polars' `BatchedWriter::write_batch` encodes a row group's pages (the
//! Dremel levels of the list columns, then the values) and compresses them
//! lazily, while it writes them under its file lock: all of that ran on the
//! one thread that also receives the extracted rows, and with a whole
//! evaluation it was three quarters of `extract`'s time. Here a row group
//! is turned into compressed pages by the same polars functions
//! (`array_to_columns`, then `compress` page by page) on one of a few
//! encoder threads, and the writing thread only appends finished pages, in
//! the order the rows came: the file has the same bytes as polars' own
//! writer makes, whatever the number of threads.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::thread::JoinHandle;

use polars::prelude::{CompatLevel, DataFrame, PolarsError, PolarsResult};
use polars_parquet::write::{CompressedPage, Encoding, ParquetType, WriteOptions, array_to_columns, compress};

/// What every encoder needs to know of the file: its leaf types, their
/// encodings and the write options (compression, statistics).
pub(super) struct Plan {
    pub(super) fields: Vec<ParquetType>,
    pub(super) encodings: Vec<Vec<Encoding>>,
    pub(super) options: WriteOptions,
}

/// One row group, ready to be appended to the file.
pub(super) struct EncodedGroup {
    pub(super) rows: u64,
    /// Compressed pages per leaf column, in schema order.
    pub(super) columns: Vec<Vec<CompressedPage>>,
}

/// Turns `frame` into row groups of compressed pages, one per chunk (a
/// frame built from one batch has one), as `write_batch` would.
fn encode(plan: &Plan, frame: &DataFrame) -> PolarsResult<Vec<EncodedGroup>> {
    let mut groups = Vec::new();
    for batch in frame.iter_chunks(CompatLevel::newest(), false) {
        if batch.is_empty() {
            continue;
        }
        let mut columns = Vec::new();
        for ((array, field), encoding) in batch.columns().iter().zip(&plan.fields).zip(&plan.encodings) {
            for pages in array_to_columns(array, field.clone(), plan.options, encoding)? {
                let compressed = pages.map(|page| Ok(compress(page?, Vec::new(), plan.options.compression)?));
                columns.push(compressed.collect::<PolarsResult<Vec<CompressedPage>>>()?);
            }
        }
        groups.push(EncodedGroup { rows: batch.len() as u64, columns });
    }
    Ok(groups)
}

type Job = (u64, DataFrame);
type Done = (u64, PolarsResult<Vec<EncodedGroup>>);

/// Encodes frames on `threads` threads (none at all for one: then each
/// frame is encoded when it is submitted, on the caller's thread) and hands
/// the row groups back in submission order.
pub(super) struct Encoders {
    plan: Arc<Plan>,
    /// `None` once finished (closing it stops the threads).
    jobs: Option<crossbeam_channel::Sender<Job>>,
    done: crossbeam_channel::Receiver<Done>,
    threads: Vec<JoinHandle<()>>,
    /// Frames submitted so far, and the first not yet handed back.
    submitted: u64,
    next: u64,
    /// Encoded out of order, waiting for an earlier frame.
    waiting: BTreeMap<u64, PolarsResult<Vec<EncodedGroup>>>,
}

impl Encoders {
    pub(super) fn new(plan: Plan, threads: usize) -> Encoders {
        let plan = Arc::new(plan);
        // A frame queued per thread besides the one it encodes: enough to
        // keep every thread busy, and it bounds the rows held in memory.
        let (jobs, job_rx) = crossbeam_channel::bounded::<Job>(threads);
        let (done_tx, done) = crossbeam_channel::unbounded::<Done>();
        let threads = if threads <= 1 { 0 } else { threads };
        let threads = (0..threads)
            .map(|_| {
                let (plan, job_rx, done_tx) = (Arc::clone(&plan), job_rx.clone(), done_tx.clone());
                std::thread::spawn(move || {
                    for (seq, frame) in job_rx {
                        if done_tx.send((seq, encode(&plan, &frame))).is_err() {
                            return;
                        }
                    }
                })
            })
            .collect();
        Encoders { plan, jobs: Some(jobs), done, threads, submitted: 0, next: 0, waiting: BTreeMap::new() }
    }

    /// Queues `frame` (waiting while every thread is busy and the queue is
    /// full), then passes every row group that is ready, in order, to `write`.
    pub(super) fn submit(&mut self, frame: DataFrame, write: &mut dyn FnMut(EncodedGroup) -> PolarsResult<()>) -> PolarsResult<()> {
        let seq = self.submitted;
        self.submitted += 1;
        if self.threads.is_empty() {
            let encoded = encode(&self.plan, &frame);
            self.waiting.insert(seq, encoded);
        } else {
            self.jobs.as_ref().ok_or_else(stopped)?.send((seq, frame)).map_err(|_| stopped())?;
        }
        while let Ok((seq, encoded)) = self.done.try_recv() {
            self.waiting.insert(seq, encoded);
        }
        self.hand_back(write)
    }

    /// Waits for every submitted frame and passes the rest of the row
    /// groups, in order, to `write`.
    pub(super) fn finish(&mut self, write: &mut dyn FnMut(EncodedGroup) -> PolarsResult<()>) -> PolarsResult<()> {
        self.jobs = None;
        while self.next < self.submitted {
            if !self.waiting.contains_key(&self.next) {
                let (seq, encoded) = self.done.recv().map_err(|_| stopped())?;
                self.waiting.insert(seq, encoded);
            }
            self.hand_back(write)?;
        }
        self.join()
    }

    fn hand_back(&mut self, write: &mut dyn FnMut(EncodedGroup) -> PolarsResult<()>) -> PolarsResult<()> {
        while let Some(encoded) = self.waiting.remove(&self.next) {
            self.next += 1;
            for group in encoded? {
                write(group)?;
            }
        }
        Ok(())
    }

    fn join(&mut self) -> PolarsResult<()> {
        let mut result = Ok(());
        for handle in self.threads.drain(..) {
            if handle.join().is_err() {
                result = Err(stopped());
            }
        }
        result
    }
}

impl Drop for Encoders {
    /// Stops the threads of an unfinished writer (an error elsewhere): they
    /// finish the frame at hand and end.
    fn drop(&mut self) {
        self.jobs = None;
        while self.done.try_recv().is_ok() {}
        let _ = self.join();
    }
}

fn stopped() -> PolarsError {
    PolarsError::ComputeError("a Parquet encoder thread stopped unexpectedly".into())
}
