//! Opening PGN inputs: files or standard input, plain or compressed.
//!
//! Compression is recognised by the stream's magic bytes, not by the file
//! name, so a `.pgn` that is really gzip (or a `.gz` that is really plain
//! text) is read correctly.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where a PGN stream comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputSource {
    /// Standard input (`-` on the command line).
    Stdin,
    /// A file on disk.
    File(PathBuf),
    /// Bytes in memory, with a name for messages (tests, embedding).
    Memory {
        /// Shown in reports instead of a path.
        name: String,
        /// The PGN bytes (possibly compressed).
        data: Arc<[u8]>,
    },
}

impl InputSource {
    /// `-` means standard input; anything else is a path.
    pub fn from_arg(arg: &str) -> InputSource {
        if arg == "-" { InputSource::Stdin } else { InputSource::File(PathBuf::from(arg)) }
    }

    /// The size on disk, when known (for progress bars).
    pub fn size_hint(&self) -> Option<u64> {
        match self {
            InputSource::Stdin => None,
            InputSource::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
            InputSource::Memory { data, .. } => Some(data.len() as u64),
        }
    }
}

impl fmt::Display for InputSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputSource::Stdin => f.write_str("<stdin>"),
            InputSource::File(path) => write!(f, "{}", path.display()),
            InputSource::Memory { name, .. } => f.write_str(name),
        }
    }
}

/// The compression of a stream, from its first bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain text.
    None,
    /// gzip (RFC 1952), possibly several concatenated members.
    Gzip,
    /// Zstandard, possibly several frames.
    Zstd,
    /// bzip2, possibly several concatenated streams.
    Bzip2,
}

impl Compression {
    /// Recognises the magic bytes at the start of a stream.
    pub fn detect(head: &[u8]) -> Compression {
        match head {
            [0x1f, 0x8b, ..] => Compression::Gzip,
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
            [b'B', b'Z', b'h', b'1'..=b'9', ..] => Compression::Bzip2,
            _ => Compression::None,
        }
    }
}

/// Why an input could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The path is a directory.
    #[error("{path}: is a directory, not a PGN file")]
    Directory { path: String },
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
}

/// Byte counters shared with a progress display: raw bytes (as stored, for
/// the progress bar) and decompressed PGN bytes (for MB/s).
#[derive(Clone, Debug, Default)]
pub struct ByteCounters {
    /// Bytes read from the file or pipe, before decompression.
    pub raw: Arc<AtomicU64>,
    /// Bytes of PGN text after decompression.
    pub text: Arc<AtomicU64>,
}

/// Counts bytes passing through, and remembers whether an error came from
/// the underlying stream (as opposed to the PGN parser above it).
pub struct CountingReader<R> {
    inner: R,
    counter: Arc<AtomicU64>,
    failed: Arc<std::sync::atomic::AtomicBool>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.counter.fetch_add(n as u64, Ordering::Relaxed);
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) => {
                self.failed.store(true, Ordering::Relaxed);
                Err(e)
            }
        }
    }
}

/// An opened, decompressed PGN stream.
pub struct PgnStream {
    /// The decompressed text.
    pub reader: Box<dyn Read + Send>,
    /// Set when the underlying stream (file, pipe, decompressor) failed.
    pub stream_failed: Arc<std::sync::atomic::AtomicBool>,
    /// What the stream was compressed with.
    pub compression: Compression,
}

/// Opens `source` and wraps it in the decompressor its magic bytes call for.
pub fn open(source: &InputSource, counters: &ByteCounters) -> Result<PgnStream, OpenError> {
    let name = source.to_string();
    let io_err = |source: io::Error| OpenError::Io { path: name.clone(), source };
    let raw: Box<dyn Read + Send> = match source {
        InputSource::Stdin => Box::new(io::stdin()),
        InputSource::File(path) => {
            if path.is_dir() {
                return Err(OpenError::Directory { path: name });
            }
            Box::new(File::open(Path::new(path)).map_err(io_err)?)
        }
        InputSource::Memory { data, .. } => Box::new(io::Cursor::new(data.clone())),
    };
    let failed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let counted = CountingReader { inner: raw, counter: counters.raw.clone(), failed: failed.clone() };
    let mut buffered = BufReader::with_capacity(1 << 16, counted);
    let compression = Compression::detect(buffered.fill_buf().map_err(io_err)?);
    let decoded: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(buffered),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(buffered)),
        Compression::Zstd => Box::new(zstd::Decoder::with_buffer(buffered).map_err(io_err)?),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(buffered)),
    };
    // Decompressor errors are stream errors too: count the text and flag any failure.
    let text = CountingReader { inner: decoded, counter: counters.text.clone(), failed: failed.clone() };
    Ok(PgnStream { reader: Box::new(text), stream_failed: failed, compression })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_magic_bytes() {
        assert_eq!(Compression::detect(&[0x1f, 0x8b, 8, 0]), Compression::Gzip);
        assert_eq!(Compression::detect(&[0x28, 0xb5, 0x2f, 0xfd]), Compression::Zstd);
        assert_eq!(Compression::detect(b"BZh9"), Compression::Bzip2);
        assert_eq!(Compression::detect(b"[Event \"x\"]"), Compression::None);
        assert_eq!(Compression::detect(b""), Compression::None);
    }
}
