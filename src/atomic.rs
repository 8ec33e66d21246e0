//! Output files that appear complete or not at all.
//!
//! Every file pgntune writes goes through [`AtomicFile`]: it is written under
//! a temporary name in the target's directory and renamed over the target
//! only on [`AtomicFile::commit`]. A failed or interrupted run leaves the
//! requested name untouched (the temporary file is removed when dropped).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// An output file that appears under its name only when committed.
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    writer: BufWriter<NamedTempFile>,
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

impl AtomicFile {
    /// Starts writing `target`. Fails at once if its directory is missing or
    /// not writable, so that bad output paths are reported before any work.
    pub fn create(target: &Path) -> Result<AtomicFile, OutputError> {
        if target.is_dir() {
            return Err(OutputError::new(target, io::Error::new(io::ErrorKind::IsADirectory, "is a directory")));
        }
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // Temporary files are created 0600; outputs get the usual 0666 minus
        // the umask, like any file a program creates.
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".partial")
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
            .tempfile_in(&dir)
            .map_err(|e| OutputError::new(target, e))?;
        Ok(AtomicFile { target: target.to_path_buf(), writer: BufWriter::with_capacity(1 << 16, temp) })
    }

    /// The path the file will have once committed.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// A second handle on the temporary file, for writers that must own
    /// their `Write` (the Parquet writer). Whatever is buffered is flushed
    /// first; do not mix writes through both handles.
    pub fn clone_handle(&mut self) -> io::Result<File> {
        self.writer.flush()?;
        self.writer.get_ref().as_file().try_clone()
    }

    /// Flushes and renames the file to its target name.
    ///
    /// There is no fsync: the rename protects against interrupted and failed
    /// runs (the data is in the page cache either way), which is the
    /// promise; surviving power loss would cost a disk flush per output.
    pub fn commit(self) -> Result<(), OutputError> {
        let target = self.target;
        let temp = self.writer.into_inner().map_err(|e| OutputError::new(&target, e.into_error()))?;
        temp.persist(&target).map_err(|e| OutputError::new(&target, e.error))?;
        Ok(())
    }

    /// Writes `contents` to `target` atomically in one go.
    pub fn write_all(target: &Path, contents: &[u8]) -> Result<(), OutputError> {
        let mut file = AtomicFile::create(target)?;
        file.write_all(contents).map_err(|e| OutputError::new(target, e))?;
        file.commit()
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
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
    fn missing_directory_fails_early() {
        let err = AtomicFile::create(Path::new("/nonexistent-dir/x.csv")).unwrap_err();
        assert!(err.to_string().starts_with("/nonexistent-dir/x.csv:"), "{err}");
    }
}
