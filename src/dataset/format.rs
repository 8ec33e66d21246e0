//! Output formats and the writer interface.

use std::path::Path;

use super::{DatasetError, RowBatch, Schema};

/// A dataset file format.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// pgnlearn's text matrix: `%2d` per feature, then the result as 0/1/2.
    Mat,
    /// Comma-separated values with a header line.
    Csv,
    /// Tab-separated values with a header line (R: `read.table(header=TRUE)`).
    Tsv,
    /// Apache Parquet, typed columns.
    Parquet,
    /// Octave's text format: `load` gives matrices `X` and `y`.
    Octave,
    /// EPD, one labelled position per line (`c9 "1-0";`), for Texel tuners.
    Epd,
    /// Sparse `i j v` triplets for Octave's `spconvert` and R's `sparseMatrix`.
    Ijv,
    /// LIBSVM lines, `label index:value ...`, for Spark MLlib and other learners (game ids in comment lines).
    Svm,
}

impl Format {
    /// The format a file name's extension implies (`.mat`, `.csv`, `.tsv`,
    /// `.parquet`, `.epd`, `.ijv`, `.svm`, and `.txt`/`.oct` for Octave's
    /// text). The one table of extensions: writers, readers and `analyze`
    /// all ask here.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "mat" => Some(Format::Mat),
            "csv" => Some(Format::Csv),
            "tsv" | "tab" => Some(Format::Tsv),
            "parquet" | "pq" => Some(Format::Parquet),
            "epd" => Some(Format::Epd),
            "ijv" => Some(Format::Ijv),
            "svm" | "libsvm" => Some(Format::Svm),
            "txt" | "oct" => Some(Format::Octave),
            _ => None,
        }
    }

    /// True when the format keeps the tags `extract --tags` asks for.
    pub fn keeps_tags(self) -> bool {
        matches!(self, Format::Csv | Format::Tsv | Format::Parquet)
    }

    /// True when the format keeps each row's evaluation label
    /// (`extract --eval-labels`, `label`): all but pgnlearn's `.mat`
    /// numbers and Octave's `X`/`y` text.
    pub fn keeps_evals(self) -> bool {
        !matches!(self, Format::Mat | Format::Octave)
    }

    /// True when the format keeps each row's FEN (`extract --fen`).
    pub fn keeps_fens(self) -> bool {
        self.keeps_tags() || self == Format::Epd
    }

    /// The format for `path`: `explicit` if given, else from the extension.
    pub fn resolve(path: &Path, explicit: Option<Format>) -> Result<Format, DatasetError> {
        explicit.or_else(|| Format::from_path(path)).ok_or_else(|| DatasetError::UnknownFormat { path: path.display().to_string() })
    }
}

/// Something rows are written to, batch by batch, in order.
pub trait RowWriter: Send {
    /// Appends the rows of `batch`.
    fn write(&mut self, batch: &RowBatch) -> Result<(), DatasetError>;

    /// Completes the file and gives it its final name.
    fn finish(self: Box<Self>) -> Result<(), DatasetError>;
}

/// Opens a writer for `path` in `format`. The file appears under its name
/// only when [`RowWriter::finish`] succeeds. `threads` is for formats that
/// encode in parallel (Parquet; 0: one per core); the bytes do not depend on it.
pub fn create_writer(path: &Path, format: Format, schema: &Schema, threads: usize) -> Result<Box<dyn RowWriter>, DatasetError> {
    Ok(match format {
        Format::Mat => Box::new(super::mat::MatWriter::create(path, schema)?),
        Format::Csv => Box::new(super::delimited::DelimitedWriter::create(path, schema, b',')?),
        Format::Tsv => Box::new(super::delimited::DelimitedWriter::create(path, schema, b'\t')?),
        Format::Parquet => Box::new(super::parquet::ParquetRowWriter::create(path, schema, threads)?),
        Format::Octave => Box::new(super::octave::OctaveWriter::create(path, schema)?),
        Format::Epd => Box::new(super::epd::EpdWriter::create(path, schema)?),
        Format::Ijv => Box::new(super::triplets::TripletWriter::create(path, schema)?),
        Format::Svm => Box::new(super::svm::SvmWriter::create(path, schema)?),
    })
}
