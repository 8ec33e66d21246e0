//! Rows of (features, result): the data between extraction and fitting.
//!
//! Extraction produces [`RowBatch`]es in input order; writers in the format
//! modules turn them into files, and [`load`] reads those files back for
//! fitting.

mod batch;
pub mod columns;
mod delimited;
pub mod epd;
pub mod fens;
pub mod format;
pub mod load;
mod mat;
pub mod merged;
pub(crate) mod number_text;
mod octave;
pub mod parquet;
pub mod positions;
mod recognise;
pub mod score_table;
pub mod stdin;
pub mod svm;
pub mod text;
mod text_column;
pub mod trace;
pub mod triplets;

pub use batch::{GameResult, RowBatch, Schema, SparseShape};
pub use text_column::TextColumn;

pub use format::{Format, RowWriter, create_writer};

/// Errors while writing or reading a dataset.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// A dataset's feature columns are not those of any pgntune layout
    /// (the dense fitter can still fit them; training positions cannot be).
    #[error("{path}: its columns ({shown}) are not pgntune feature sets")]
    NotFeatureSets {
        /// The file.
        path: String,
        /// The first columns, as shown.
        shown: String,
    },
    /// The output could not be written.
    #[error(transparent)]
    Output(#[from] crate::atomic::OutputError),
    /// An I/O error on a named file.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The output format could not be determined from the file name.
    #[error("{path}: unknown output format (name it .mat, .csv, .tsv, .parquet, .epd, .ijv or .svm)")]
    UnknownFormat {
        /// The path as given.
        path: String,
    },
    /// A dataset file that does not have the expected shape or content.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong, with line or row number when known.
        message: String,
    },
    /// A CSV or TSV file the csv crate could not read: the message is one
    /// line ([`text::csv_message`]), and the csv crate's error is kept as
    /// the source where the message is its own text. A line that is not
    /// UTF-8 is named so instead, without the crate's record and byte
    /// indices, so that error has no source.
    #[error("{path}: {message}")]
    Csv {
        /// The file.
        path: String,
        /// What is wrong, with the line number when known.
        message: String,
        /// The csv crate's error.
        #[source]
        source: Option<csv::Error>,
    },
    /// An error from polars (Parquet).
    #[error("{path}: {source}")]
    Polars {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: polars::error::PolarsError,
    },
}
