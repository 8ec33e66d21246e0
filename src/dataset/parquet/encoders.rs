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

use polars::prelude::{CompatLevel, PolarsError, PolarsResult};
use polars_parquet::write::{CompressedPage, Encoding, ParquetType, WriteOptions, array_to_columns, compress};

use super::compact::{ListLeaf, list_pages};
use super::{FrameLists, frame_of};
use crate::dataset::{RowBatch, Schema};

/// What every encoder needs to know of the file: the rows' schema, its
/// leaf types, their encodings and the write options (compression,
/// statistics).
pub(super) struct Plan {
    pub(super) schema: Schema,
    pub(super) fields: Vec<ParquetType>,
    pub(super) encodings: Vec<Vec<Encoding>>,
    pub(super) options: WriteOptions,
    /// The compact shape's `term` and `count` columns, the first two of
    /// the file, encoded from the batch by [`list_pages`]; `None` for the
    /// other shapes, whose columns all go through polars.
    pub(super) compact_lists: Option<[ListLeaf; 2]>,
}

/// One row group, ready to be appended to the file.
pub(super) struct EncodedGroup {
    pub(super) rows: u64,
    /// Compressed pages per leaf column, in schema order.
    pub(super) columns: Vec<Vec<CompressedPage>>,
}

/// Turns `rows` into one row group of compressed pages, as polars'
/// `write_batch` would for the frame of the rows.
fn encode(plan: &Plan, rows: &RowBatch) -> PolarsResult<Vec<EncodedGroup>> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let mut columns = Vec::new();
    let (lists, polars_fields) = match &plan.compact_lists {
        Some([term, count]) => {
            columns.push(list_pages(term, rows, |e| i32::from(e.term), plan.options)?);
            columns.push(list_pages(count, rows, |e| i32::from(e.value), plan.options)?);
            (FrameLists::Omitted, 2)
        }
        None => (FrameLists::Included, 0),
    };
    let mut frame = frame_of(rows, &plan.schema, lists)?;
    frame.rechunk_mut();
    let fields = plan.fields[polars_fields..].iter().zip(&plan.encodings[polars_fields..]);
    for chunk in frame.iter_chunks(CompatLevel::newest(), false) {
        for (array, (field, encoding)) in chunk.columns().iter().zip(fields.clone()) {
            for pages in array_to_columns(array, field.clone(), plan.options, encoding)? {
                let compressed = pages.map(|page| Ok(compress(page?, Vec::new(), plan.options.compression)?));
                columns.push(compressed.collect::<PolarsResult<Vec<CompressedPage>>>()?);
            }
        }
    }
    Ok(vec![EncodedGroup { rows: rows.len() as u64, columns }])
}

type Job = (u64, RowBatch);
type Done = (u64, PolarsResult<Vec<EncodedGroup>>);

/// Encodes batches of rows on `threads` threads (none at all for one: then
/// each batch is encoded when it is submitted, on the caller's thread) and
/// hands the row groups back in submission order.
pub(super) struct Encoders {
    plan: Arc<Plan>,
    /// `None` once finished (closing it stops the threads).
    jobs: Option<crossbeam_channel::Sender<Job>>,
    done: crossbeam_channel::Receiver<Done>,
    threads: Vec<JoinHandle<()>>,
    /// Frames submitted so far, and the first not yet handed back.
    submitted: u64,
    next: u64,
    /// Encoded out of order, waiting for an earlier batch.
    waiting: BTreeMap<u64, PolarsResult<Vec<EncodedGroup>>>,
}

impl Encoders {
    pub(super) fn new(plan: Plan, threads: usize) -> Encoders {
        let plan = Arc::new(plan);
        // A batch queued per thread besides the one it encodes: enough to
        // keep every thread busy, and it bounds the rows held in memory.
        let (jobs, job_rx) = crossbeam_channel::bounded::<Job>(threads);
        let (done_tx, done) = crossbeam_channel::unbounded::<Done>();
        let threads = if threads <= 1 { 0 } else { threads };
        let threads = (0..threads)
            .map(|_| {
                let (plan, job_rx, done_tx) = (Arc::clone(&plan), job_rx.clone(), done_tx.clone());
                std::thread::spawn(move || {
                    for (seq, rows) in job_rx {
                        if done_tx.send((seq, encode(&plan, &rows))).is_err() {
                            return;
                        }
                    }
                })
            })
            .collect();
        Encoders { plan, jobs: Some(jobs), done, threads, submitted: 0, next: 0, waiting: BTreeMap::new() }
    }

    /// Queues `rows` (waiting while every thread is busy and the queue is
    /// full), then passes every row group that is ready, in order, to `write`.
    pub(super) fn submit(&mut self, rows: RowBatch, write: &mut dyn FnMut(EncodedGroup) -> PolarsResult<()>) -> PolarsResult<()> {
        let seq = self.submitted;
        self.submitted += 1;
        if self.threads.is_empty() {
            let encoded = encode(&self.plan, &rows);
            self.waiting.insert(seq, encoded);
        } else {
            self.jobs.as_ref().ok_or_else(stopped)?.send((seq, rows)).map_err(|_| stopped())?;
        }
        while let Ok((seq, encoded)) = self.done.try_recv() {
            self.waiting.insert(seq, encoded);
        }
        self.hand_back(write)
    }

    /// Waits for every submitted batch and passes the rest of the row
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
    /// finish the batch at hand and end.
    fn drop(&mut self) {
        self.jobs = None;
        while self.done.try_recv().is_ok() {}
        let _ = self.join();
    }
}

fn stopped() -> PolarsError {
    PolarsError::ComputeError("a Parquet encoder thread stopped unexpectedly".into())
}
