//! Reading text datasets safely: every line-based reader (CSV, TSV, `.mat`,
//! Octave text, `.ijv`, `.svm`, `.epd`) reads its file through
//! [`TextReader`], which
//!
//! * drops a UTF-8 byte order mark at the start (editors on Windows write
//!   one; read as text it made the first line, a header or a position,
//!   unreadable), and
//! * refuses a line longer than [`MAX_LINE`]: a file without newlines
//!   (`/dev/zero`, a binary file) was read into memory until the process
//!   died.

use std::io::{self, Read};

/// The longest line a text dataset may have: 1 MiB. The widest legitimate
/// row, a `.svm` or CSV line of the whole evaluation with every column
/// non-zero and tags, is a few tens of kilobytes.
pub const MAX_LINE: usize = 1 << 20;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The error a [`TextReader`] gives for a line over [`MAX_LINE`].
#[derive(Debug, thiserror::Error)]
#[error("line {line} is longer than 1 MiB (no line break): not a text dataset")]
pub struct LineTooLong {
    /// The line, counted from 1.
    pub line: u64,
}

/// A reader that drops a leading byte order mark and fails on a line
/// longer than [`MAX_LINE`].
#[derive(Debug)]
pub struct TextReader<R> {
    inner: R,
    /// Bytes of the current line read so far.
    line_length: usize,
    /// The current line, from 1.
    line: u64,
    /// Bytes of a possible byte order mark still to check (at the start).
    start: Option<Vec<u8>>,
}

impl<R: Read> TextReader<R> {
    /// Wraps `inner`, which is at the start of the file.
    pub fn new(inner: R) -> TextReader<R> {
        TextReader { inner, line_length: 0, line: 1, start: Some(Vec::new()) }
    }

    /// Reads the first bytes to tell whether they are a byte order mark;
    /// returns what follows it (or the bytes themselves) to hand out first.
    fn skip_bom(&mut self) -> io::Result<Vec<u8>> {
        let mut head = self.start.take().unwrap_or_default();
        while head.len() < BOM.len() && BOM.starts_with(&head) {
            let mut byte = [0u8; 1];
            if self.inner.read(&mut byte)? == 0 {
                break;
            }
            head.push(byte[0]);
        }
        if head == BOM {
            head.clear();
        }
        Ok(head)
    }

    /// Counts the lines of `bytes` (just read) and fails on one too long.
    fn count(&mut self, bytes: &[u8]) -> io::Result<()> {
        for &b in bytes {
            if b == b'\n' {
                self.line += 1;
                self.line_length = 0;
            } else {
                self.line_length += 1;
                if self.line_length > MAX_LINE {
                    return Err(io::Error::new(io::ErrorKind::InvalidData, LineTooLong { line: self.line }));
                }
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for TextReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.start.is_some() {
            let head = self.skip_bom()?;
            if !head.is_empty() {
                // At most three bytes, and `buf` is never that small in practice; a
                // small buffer gets them over several calls.
                let n = head.len().min(buf.len());
                buf[..n].copy_from_slice(&head[..n]);
                if n < head.len() {
                    self.start = Some(head[n..].to_vec());
                }
                self.count(&buf[..n])?;
                return Ok(n);
            }
        }
        let n = self.inner.read(buf)?;
        self.count(&buf[..n])?;
        Ok(n)
    }
}

/// The message for an I/O error met on line `line` of a text dataset:
/// the line's own error when it is too long (which names the line), else
/// the error after the line number.
pub fn line_error(line: u64, error: &io::Error) -> String {
    match error.get_ref().and_then(|e| e.downcast_ref::<LineTooLong>()) {
        Some(too_long) => too_long.to_string(),
        None => format!("line {line}: {error}"),
    }
}

/// A CSV reader's error as one line: a line that is not UTF-8 (a binary
/// file, most often) is named as that, where the csv crate speaks of
/// records, fields and byte indices; a line too long names its line.
pub fn csv_message(error: &csv::Error) -> String {
    match error.kind() {
        csv::ErrorKind::Utf8 { pos: Some(pos), .. } => format!("line {}: not text (UTF-8): not a CSV or TSV dataset", pos.line()),
        csv::ErrorKind::Io(e) if e.get_ref().is_some_and(|inner| inner.is::<LineTooLong>()) => e.to_string(),
        _ => error.to_string(),
    }
}

/// A CSV reader's error on `path`, as [`DatasetError::Csv`](super::DatasetError::Csv): the
/// message of [`csv_message`], and the error itself as the source unless
/// the message replaces its text (a line that is not UTF-8).
pub fn csv_error(path: &std::path::Path, error: csv::Error) -> super::DatasetError {
    let message = csv_message(&error);
    let rewritten = matches!(error.kind(), csv::ErrorKind::Utf8 { pos: Some(_), .. });
    super::DatasetError::Csv { path: path.display().to_string(), message, source: (!rewritten).then_some(error) }
}

/// Opens `path` for reading as a text dataset.
pub fn open(path: &std::path::Path) -> io::Result<TextReader<std::fs::File>> {
    std::fs::File::open(path).map(TextReader::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        TextReader::new(bytes).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn a_byte_order_mark_is_dropped_and_nothing_else() {
        assert_eq!(read_all(b"\xEF\xBB\xBFa,b\n1,2\n").unwrap(), b"a,b\n1,2\n");
        assert_eq!(read_all(b"a,b\n").unwrap(), b"a,b\n");
        assert_eq!(read_all(b"\xEF\xBB").unwrap(), b"\xEF\xBB");
        assert_eq!(read_all(b"").unwrap(), b"");
        assert_eq!(read_all(b"\xEF\xBB\xBF").unwrap(), b"");
    }

    #[test]
    fn a_line_too_long_is_an_error_naming_it() {
        let mut text = b"short\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_LINE + 1));
        let err = read_all(&text).unwrap_err();
        assert_eq!(line_error(7, &err), "line 2 is longer than 1 MiB (no line break): not a text dataset");
        let mut ok = vec![b'x'; MAX_LINE];
        ok.push(b'\n');
        assert_eq!(read_all(&ok).unwrap().len(), MAX_LINE + 1);
        // Endless input stops.
        let err = TextReader::new(io::repeat(0)).read_to_end(&mut Vec::new()).unwrap_err();
        assert!(line_error(1, &err).starts_with("line 1 is longer"), "{err}");
    }
}
