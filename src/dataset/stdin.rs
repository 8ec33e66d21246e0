//! `-` as a dataset input: standard input, copied to a temporary file
//! first and read from there like any other dataset.
//!
//! A copy, not a stream, because readers need a file: Parquet and `.ijv`
//! seek (a footer, a size line at the end), and `fit` reads its inputs
//! twice when their columns decide between the whole-evaluation tuner and
//! the dense fitter. The copy is made in bounded memory and removed when
//! the [`SpooledInput`] is dropped, or on SIGINT and SIGTERM. A pipe has
//! no file name, so the format is told from the first bytes.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use shakmaty::fen::Epd;

use super::{DatasetError, Format};
use crate::atomic::Registration;

/// How the dataset on standard input is named in messages.
pub const SHOWN: &str = "standard input";

/// How much of standard input is read to tell its format.
const HEAD: usize = 64 << 10;

/// Standard input, copied to a temporary file named for its format.
#[derive(Debug)]
pub struct SpooledInput {
    path: PathBuf,
    // Dropped in order: the registrations, then the folder and its file.
    _file: Registration,
    _folder: Registration,
    _dir: tempfile::TempDir,
}

impl SpooledInput {
    /// The temporary file, to read as the dataset.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The format told from the first bytes (`None` for an engine's trace,
    /// which pgntune reads but does not write).
    pub fn format(&self) -> Option<Format> {
        Format::from_path(&self.path)
    }
}

/// The paths of every spooled input of this process, for [`unspool`]
/// (a message may be printed after its input was dropped).
static SPOOLED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// `message` with the temporary files' paths replaced by [`SHOWN`]: the
/// user gave `-`, not a file in /tmp. The command line shows every error
/// through this.
pub fn unspool(message: &str) -> String {
    let spooled = SPOOLED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    spooled.iter().fold(message.to_string(), |text, path| text.replace(path.as_str(), SHOWN))
}

/// Copies standard input to a temporary file, telling its format from its
/// first bytes.
pub fn spool_stdin() -> Result<SpooledInput, DatasetError> {
    use std::io::IsTerminal;
    let stdin = io::stdin();
    if stdin.is_terminal() {
        return Err(invalid("is a terminal: pipe a dataset into pgntune, or name the file"));
    }
    spool(stdin.lock())
}

/// [`spool_stdin`] over any reader (tests).
pub fn spool(mut input: impl Read) -> Result<SpooledInput, DatasetError> {
    let io = |source| DatasetError::Io { path: SHOWN.into(), source };
    let mut head = Vec::with_capacity(HEAD);
    input.by_ref().take(HEAD as u64).read_to_end(&mut head).map_err(io)?;
    if head.is_empty() {
        return Err(invalid("is empty: no dataset to read"));
    }
    let extension = sniff(&head).ok_or_else(|| {
        if head.trim_ascii_start().starts_with(b"[") {
            return invalid("looks like PGN games, not a dataset: `pgntune extract -` or `pgntune tune -` reads games");
        }
        invalid(
            "cannot tell the dataset's format from its first bytes (pgntune's CSV, TSV, Parquet, .mat, Octave text, .ijv, .svm, EPD, or an engine's trace); save it to a named file",
        )
    })?;
    let dir = tempfile::Builder::new().prefix("pgntune-stdin.").tempdir().map_err(io)?;
    let folder = crate::atomic::register_folder(dir.path());
    let path = dir.path().join(format!("standard-input.{extension}"));
    let file_registration = crate::atomic::register(&path);
    SPOOLED.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(path.display().to_string());
    let mut file = io::BufWriter::with_capacity(1 << 16, std::fs::File::create(&path).map_err(io)?);
    file.write_all(&head).map_err(io)?;
    io::copy(&mut input, &mut file).map_err(io)?;
    file.flush().map_err(io)?;
    Ok(SpooledInput { path, _file: file_registration, _folder: folder, _dir: dir })
}

fn invalid(message: &str) -> DatasetError {
    DatasetError::Invalid { path: SHOWN.into(), message: message.into() }
}

/// The extension the dataset readers take as `format`.
fn extension(format: Format) -> &'static str {
    match format {
        Format::Mat => "mat",
        Format::Csv => "csv",
        Format::Tsv => "tsv",
        Format::Parquet => "parquet",
        Format::Octave => "txt",
        Format::Epd => "epd",
        Format::Ijv => "ijv",
        Format::Svm => "svm",
    }
}

/// The file extension of a dataset that starts with `head`, if it is one
/// pgntune reads (see [`sniff_format`]; `trace` for an engine's trace).
pub fn sniff(head: &[u8]) -> Option<&'static str> {
    if head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head).starts_with(super::trace::HEADER.as_bytes()) {
        return Some("trace");
    }
    sniff_format(head).map(extension)
}

/// The dataset format of a file that starts with `head`, if it is one
/// pgntune writes: marks first (Parquet's magic, the headers pgntune
/// writes), then the shape of the first line.
pub fn sniff_format(head: &[u8]) -> Option<Format> {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if head.starts_with(b"PAR1") {
        return Some(Format::Parquet);
    }
    if head.starts_with(b"# Created by") || head.starts_with(b"# name:") {
        return Some(Format::Octave);
    }
    if head.starts_with(super::svm::HEADER.as_bytes()) {
        return Some(Format::Svm);
    }
    if head.starts_with(b"% pgntune sparse rows") {
        return Some(Format::Ijv);
    }
    let text = std::str::from_utf8(head).or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()])).ok()?;
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'));
    let first = lines.next()?;
    for (separator, format) in [(',', Format::Csv), ('\t', Format::Tsv)] {
        let fields: Vec<&str> = first.split(separator).map(str::trim).collect();
        if fields.len() > 1 && fields.iter().any(|f| matches!(*f, "result" | "wins")) {
            return Some(format);
        }
    }
    if first.split_whitespace().take(4).collect::<Vec<_>>().join(" ").parse::<Epd>().is_ok() {
        return Some(Format::Epd);
    }
    let integers = |line: &str| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        (fields.len() >= 2 && fields.iter().all(|f| f.parse::<i64>().is_ok())).then_some(fields.len())
    };
    integers(first).is_some().then_some(Format::Mat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_from_their_first_bytes() {
        assert_eq!(sniff_format(b"P,N,B,R,Q,result,game,ply\n1,0,0,0,0,1,0,3\n"), Some(Format::Csv));
        assert_eq!(sniff_format(b"\xEF\xBB\xBFP\tN\tresult\n"), Some(Format::Tsv));
        assert_eq!(sniff_format(b"P,N,wins,draws,losses\n"), Some(Format::Csv));
        assert_eq!(sniff_format(b" 1  0  0  0  0  2\n"), Some(Format::Mat));
        assert_eq!(sniff_format(b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 \"1-0\";\n"), Some(Format::Epd));
        assert_eq!(sniff_format(b"PAR1\x15\x04"), Some(Format::Parquet));
        assert_eq!(sniff_format(b"# Created by pgntune\n# name: X\n"), Some(Format::Octave));
        assert_eq!(sniff_format(b"% pgntune sparse rows: i j v\n"), Some(Format::Ijv));
        assert_eq!(sniff_format(format!("{}: label\n", super::super::svm::HEADER).as_bytes()), Some(Format::Svm));
        assert_eq!(sniff_format(b"[Event \"x\"]\n1. e4 e5 1-0\n"), None, "a PGN is no dataset");
        assert_eq!(sniff_format(b"\x00\x01\x02\xff\xfe"), None);
        assert_eq!(sniff_format(b"hello world\n"), None);
    }

    #[test]
    fn a_spooled_input_is_a_file_in_its_format_removed_when_dropped() {
        let spooled = spool(&b"P,N,B,R,Q,result,game,ply\n1,0,0,0,0,1,0,3\n"[..]).unwrap();
        assert_eq!(spooled.format(), Some(Format::Csv));
        assert_eq!(Format::from_path(spooled.path()), Some(Format::Csv));
        assert_eq!(std::fs::read(spooled.path()).unwrap(), b"P,N,B,R,Q,result,game,ply\n1,0,0,0,0,1,0,3\n");
        let message = format!("{}: line 2: bad", spooled.path().display());
        assert_eq!(unspool(&message), "standard input: line 2: bad");
        let path = spooled.path().to_path_buf();
        drop(spooled);
        assert!(!path.exists() && !path.parent().unwrap().exists());
        // Longer than the part read to tell the format: all of it is copied.
        let mut big = b"P,result\n".to_vec();
        big.extend(std::iter::repeat_n(b"1,1\n".as_slice(), 100_000).flatten());
        let spooled = spool(&big[..]).unwrap();
        assert_eq!(std::fs::read(spooled.path()).unwrap(), big);
        assert!(matches!(spool(&b""[..]), Err(DatasetError::Invalid { .. })));
        assert!(spool(&b"\x00\x01binary"[..]).unwrap_err().to_string().starts_with("standard input: cannot tell"));
        let trace = spool(format!("{}\n# term pawn single 100\n1 24 1:1\n", super::super::trace::HEADER).as_bytes()).unwrap();
        assert_eq!(trace.path().extension().unwrap(), "trace");
        assert!(spool(&b"[Event \"x\"]\n"[..]).unwrap_err().to_string().contains("looks like PGN"));
    }
}
