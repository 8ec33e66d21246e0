//! Output files that appear complete or not at all, and the checks every
//! command makes on its outputs before it starts work.
//!
//! Every file pgntune writes goes through [`AtomicFile`]. A regular file
//! (or a name that does not exist yet) is written under a temporary name in
//! the target's directory and renamed over the target only on
//! [`AtomicFile::commit`]; a failed or interrupted run leaves the requested
//! name untouched and no temporary file behind (it is removed when dropped,
//! and on SIGINT or SIGTERM once [`remove_on_signals`] is installed). A
//! symbolic link is written through: its target is replaced, the link
//! stays. A named pipe, a device or `-` (standard output) is written
//! directly, never renamed over.
//!
//! [`OutputPlan`] checks all of a command's outputs before any work: that
//! none is one of the inputs or another output (same device and inode,
//! after following links), that its folder exists and is writable, and that
//! an existing file may be replaced (an earlier output of the same kind, or
//! `--force`).

mod cleanup;
mod plan;
mod recognise;

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

pub use cleanup::{Registration, register, register_folder, registered, remove_on_signals};
pub use plan::{Destination, OutputPlan, PlanError, repeated_file};
pub use recognise::{FIGURE_PNG_MARK, FIGURE_SVG_MARK, HEAD_BYTES, OutputKind, Recognise, complete_lines, contains, head};

/// The name that means standard output.
pub const STDOUT: &str = "-";

/// How many symbolic links are followed before giving up (as the kernel's ELOOP).
const MAX_LINKS: usize = 40;

/// An output file that appears under its name only when committed.
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    sink: Sink,
}

#[derive(Debug)]
enum Sink {
    /// A temporary file renamed over `path` on commit.
    Replace { path: PathBuf, writer: BufWriter<NamedTempFile>, _registration: Registration },
    /// A pipe, a device or standard output, written as it goes.
    Stream { writer: BufWriter<File> },
}

/// Why an output could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct OutputError {
    /// The requested output path.
    pub path: String,
    /// What went wrong.
    #[source]
    pub source: io::Error,
}

impl OutputError {
    /// An error about `path`.
    pub fn new(path: &Path, source: io::Error) -> OutputError {
        OutputError { path: path.display().to_string(), source }
    }
}

/// True for `-`, standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == STDOUT
}

/// `path` as a message names it: `standard output` for `-` ("written to -"
/// read as a file named `-`).
pub fn shown(path: &Path) -> String {
    if is_stdout(path) { "standard output".to_string() } else { path.display().to_string() }
}

/// `path` with every symbolic link at its end followed (a link to a link,
/// ...), so that writing replaces the file a link points to and not the
/// link. A dangling link resolves to the path it names. Links in the
/// folders above are left alone: they do not change which file is written.
pub fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(io::Error::new(io::ErrorKind::InvalidInput, "too many levels of symbolic links"))
}

/// The extended attribute that marks a file pgntune wrote. Some formats
/// (pgnlearn's `.mat`, CSV) have no room for a mark of their own, so a
/// user's hand-written file in them looks exactly like an earlier output;
/// the attribute tells them apart. A copy without it (`cp` drops it) or a
/// file system without extended attributes counts as the user's: refused
/// without `--force`, the safe side.
pub const WRITTEN_MARK: &str = "user.pgntune.written";

/// Marks `file` as written by pgntune (see [`WRITTEN_MARK`]); a file
/// system that keeps no attributes keeps no mark, which only costs a
/// `--force` later.
fn mark_as_written(file: &File) {
    #[cfg(target_os = "linux")]
    let _ = rustix::fs::fsetxattr(file, WRITTEN_MARK, b"1", rustix::fs::XattrFlags::empty());
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// True when the file at `path` carries pgntune's mark ([`WRITTEN_MARK`]).
pub fn carries_written_mark(path: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        let mut value = [0u8; 8];
        rustix::fs::getxattr(path, WRITTEN_MARK, &mut value[..]).is_ok_and(|n| value[..n] == *b"1")
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = path;
        false
    }
}

/// A second handle on standard output, as a `File` (for writers that need one).
fn stdout_file() -> io::Result<File> {
    Ok(File::from(io::stdout().as_fd().try_clone_to_owned()?))
}

impl AtomicFile {
    /// Starts writing `target`. Fails at once if its directory is missing or
    /// not writable, so that bad output paths are reported before any work.
    pub fn create(target: &Path) -> Result<AtomicFile, OutputError> {
        let err = |e| OutputError::new(target, e);
        if is_stdout(target) {
            let writer = BufWriter::with_capacity(1 << 16, stdout_file().map_err(err)?);
            return Ok(AtomicFile { target: target.to_path_buf(), sink: Sink::Stream { writer } });
        }
        let path = resolve_links(target).map_err(err)?;
        let existing = match std::fs::metadata(&path) {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(err(e)),
        };
        if let Some(meta) = &existing {
            if meta.is_dir() {
                return Err(err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory")));
            }
            if !meta.is_file() {
                // A pipe or a device: write into it; renaming would replace it.
                let file = OpenOptions::new().write(true).open(&path).map_err(err)?;
                return Ok(AtomicFile { target: target.to_path_buf(), sink: Sink::Stream { writer: BufWriter::with_capacity(1 << 16, file) } });
            }
        }
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // A replaced file keeps its permissions; a new one gets the usual
        // 0666 minus the umask, like any file a program creates (temporary
        // files would be 0600).
        use std::os::unix::fs::PermissionsExt;
        let mode = existing.as_ref().map_or(0o666, |m| m.permissions().mode() & 0o7777);
        // The name is registered before the file is made: a signal between
        // making and registering left the file behind (the signal's sweep
        // holds the registry until the process exits, so a registration
        // that waits for it never makes its file). Splits, which make a
        // file per shard, lost that race nearly every time.
        let mut registration = None;
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".partial")
            .make_in(&dir, |temp_path| {
                use std::os::unix::fs::OpenOptionsExt;
                registration = Some(register(temp_path));
                OpenOptions::new().read(true).write(true).create_new(true).mode(mode).open(temp_path)
            })
            .map_err(err)?;
        let registration = registration.expect("made by the closure that registers it");
        mark_as_written(temp.as_file());
        Ok(AtomicFile {
            target: target.to_path_buf(),
            sink: Sink::Replace { path, writer: BufWriter::with_capacity(1 << 16, temp), _registration: registration },
        })
    }

    /// The path the file will have once committed (as it was requested).
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// A second handle on the file being written, for writers that must own
    /// their `Write` (the Parquet writer). Whatever is buffered is flushed
    /// first; do not mix writes through both handles.
    pub fn clone_handle(&mut self) -> io::Result<File> {
        match &mut self.sink {
            Sink::Replace { writer, .. } => {
                writer.flush()?;
                writer.get_ref().as_file().try_clone()
            }
            Sink::Stream { writer } => {
                writer.flush()?;
                writer.get_ref().try_clone()
            }
        }
    }

    /// Flushes and renames the file to its target name (a stream is only flushed).
    ///
    /// There is no fsync: the rename protects against interrupted and failed
    /// runs (the data is in the page cache either way), which is the
    /// promise; surviving power loss would cost a disk flush per output.
    pub fn commit(self) -> Result<(), OutputError> {
        let target = self.target;
        match self.sink {
            Sink::Replace { path, writer, _registration } => {
                let temp = writer.into_inner().map_err(|e| OutputError::new(&target, e.into_error()))?;
                temp.persist(&path).map_err(|e| OutputError::new(&target, e.error))?;
            }
            Sink::Stream { mut writer } => writer.flush().map_err(|e| OutputError::new(&target, e))?,
        }
        Ok(())
    }

    /// Flushes and closes the file under its temporary name, without
    /// renaming it yet: for outputs that must appear together or not at
    /// all (the shards and manifest of a split), each closed as soon as it
    /// is written so that thousands of them do not hold a descriptor each.
    /// Dropping the [`StagedFile`] removes the temporary file. A stream is
    /// only flushed: it cannot be taken back.
    pub fn stage(self) -> Result<StagedFile, OutputError> {
        let target = self.target;
        let pending = match self.sink {
            Sink::Replace { path, writer, _registration } => {
                let temp = writer.into_inner().map_err(|e| OutputError::new(&target, e.into_error()))?;
                let len = temp.as_file().metadata().map_err(|e| OutputError::new(&target, e))?.len();
                Some(Pending { path, temp: temp.into_temp_path(), len, _registration })
            }
            Sink::Stream { mut writer } => {
                writer.flush().map_err(|e| OutputError::new(&target, e))?;
                None
            }
        };
        Ok(StagedFile { target, pending })
    }

    /// Writes `contents` to `target` atomically in one go.
    pub fn write_all(target: &Path, contents: &[u8]) -> Result<(), OutputError> {
        let mut file = AtomicFile::create(target)?;
        file.write_all(contents).map_err(|e| OutputError::new(target, e))?;
        file.commit()
    }

    fn writer(&mut self) -> &mut dyn Write {
        match &mut self.sink {
            Sink::Replace { writer, .. } => writer,
            Sink::Stream { writer } => writer,
        }
    }
}

/// An output written in full and closed under its temporary name
/// ([`AtomicFile::stage`]): [`StagedFile::commit`] renames it to its
/// name, dropping it removes it (and a signal does, as for an [`AtomicFile`]).
#[derive(Debug)]
pub struct StagedFile {
    target: PathBuf,
    /// `None` for a stream, already written where it goes.
    pending: Option<Pending>,
}

#[derive(Debug)]
struct Pending {
    path: PathBuf,
    temp: tempfile::TempPath,
    len: u64,
    _registration: Registration,
}

impl StagedFile {
    /// The path the file will have once committed (as it was requested).
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Its size in bytes (0 for a stream).
    pub fn len(&self) -> u64 {
        self.pending.as_ref().map_or(0, |p| p.len)
    }

    /// True when it holds no byte.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Renames the file to its target name.
    pub fn commit(self) -> Result<(), OutputError> {
        if let Some(Pending { path, temp, _registration, .. }) = self.pending {
            temp.persist(&path).map_err(|e| OutputError::new(&self.target, e.error))?;
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_appears_until_commit() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"hello").unwrap();
        assert!(!target.exists());
        f.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"hello");
    }

    #[test]
    fn dropped_file_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"half").unwrap();
        drop(f);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_link_is_written_through_and_a_pipe_is_streamed_into() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.csv");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink("target.csv", &link).unwrap();
        AtomicFile::write_all(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
        assert_eq!(std::fs::read(&target).unwrap(), b"new");

        let fifo = dir.path().join("fifo.csv");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        AtomicFile::write_all(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo(), "the pipe stays a pipe");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3, "no temporary file left");
    }

    #[test]
    fn a_staged_file_appears_on_commit_and_leaves_nothing_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let (kept, dropped) = (dir.path().join("kept.txt"), dir.path().join("dropped.txt"));
        std::fs::write(&dropped, "earlier").unwrap();
        let stage = |target: &Path| {
            let mut f = AtomicFile::create(target).unwrap();
            f.write_all(b"staged").unwrap();
            f.stage().unwrap()
        };
        let (a, b) = (stage(&kept), stage(&dropped));
        assert_eq!((a.len(), b.len()), (6, 6));
        assert!(!kept.exists(), "nothing appears before the commit");
        a.commit().unwrap();
        assert_eq!(std::fs::read(&kept).unwrap(), b"staged");
        drop(b);
        assert_eq!(std::fs::read(&dropped).unwrap(), b"earlier", "a dropped file leaves the earlier one alone");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no temporary file left");
    }

    #[test]
    fn missing_directory_fails_early() {
        let err = AtomicFile::create(Path::new("/nonexistent-dir/x.csv")).unwrap_err();
        assert!(err.to_string().starts_with("/nonexistent-dir/x.csv:"), "{err}");
    }
}
