//! One run per match state at a time.
//!
//! The state file itself is replaced (renamed over) after every game, so
//! it cannot carry the lock; a hidden `.NAME.lock` beside it does. The
//! lock is the kernel's (`flock`): it goes away with the process, even
//! after `kill -9`, so a stale lock file never blocks a resume. The file is
//! removed when the run ends (and on SIGINT/SIGTERM).

use std::fs::{File, OpenOptions, TryLockError};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::atomic::{Registration, register};

/// Held while a match runs on a state.
#[derive(Debug)]
pub struct StateLock {
    path: PathBuf,
    _file: File,
    _registration: Registration,
}

/// Why a state could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds it.
    #[error("{state}: another pgntune is running this match now (wait for it to finish, or stop it first)")]
    Busy {
        /// The state file.
        state: String,
    },
    /// The lock file could not be made.
    #[error("{path}: cannot lock the match state: {source}")]
    Io {
        /// The lock file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl StateLock {
    /// Locks the state `state` (which need not exist yet), or fails at once
    /// if another process has it.
    pub fn acquire(state: &Path) -> Result<StateLock, LockError> {
        let name = state.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let path = state.with_file_name(format!(".{name}.lock"));
        let io = |source| LockError::Io { path: path.display().to_string(), source };
        loop {
            let file = OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => return Err(LockError::Busy { state: state.display().to_string() }),
                Err(TryLockError::Error(e)) => return Err(io(e)),
            }
            // A run that just ended removed the file it held: this lock is
            // on a file no one else will find. Lock the one at the path.
            let held = file.metadata().map_err(io)?;
            match std::fs::metadata(&path) {
                Ok(on_disk) if on_disk.dev() == held.dev() && on_disk.ino() == held.ino() => {
                    let registration = register(&path);
                    return Ok(StateLock { path, _file: file, _registration: registration });
                }
                _ => continue,
            }
        }
    }
}

impl Drop for StateLock {
    fn drop(&mut self) {
        // Removed while still locked, so that no one locks a file on its way out.
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_state_is_refused_until_the_first_ends() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("m.state.json");
        let first = StateLock::acquire(&state).unwrap();
        let err = StateLock::acquire(&state).unwrap_err();
        assert!(err.to_string().contains("another pgntune is running this match"), "{err}");
        drop(first);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "the lock file is removed");
        let again = StateLock::acquire(&state).unwrap();
        drop(again);
    }
}
