//! Files to remove if the process is interrupted: temporary outputs and
//! lock files. [`remove_on_signals`] installs a thread that, on SIGINT or
//! SIGTERM, removes every registered file and exits with 128 + the signal
//! (130 and 143, as a shell reports a process killed by them).
//!
//! The work is done on an ordinary thread (signal-hook forwards the signal
//! to it through a pipe), not in a signal handler, so it may take the
//! registry's lock and call `remove_file`. While it runs, the registry is
//! closed: a file registered after it started is removed at once.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

struct Registry {
    next: u64,
    /// Registered paths, in registration order; `true` for a folder.
    files: Vec<(u64, PathBuf, bool)>,
    /// Set once a signal arrived: the process is exiting.
    closed: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { next: 0, files: Vec::new(), closed: false });

fn registry() -> MutexGuard<'static, Registry> {
    // Nothing panics while holding the lock; a poisoned lock still holds a valid list.
    REGISTRY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A file that is removed if the process is interrupted, for as long as
/// this value lives. Dropping it only forgets the file (it does not remove it).
#[derive(Debug)]
pub struct Registration(u64);

/// Registers `path` for removal on SIGINT or SIGTERM.
pub fn register(path: &Path) -> Registration {
    enter(path, false)
}

/// Registers a folder the process made: on SIGINT or SIGTERM it is removed
/// after the files, if it is empty then (a folder someone else put a file
/// into stays). Folders go deepest first when registered outermost first.
pub fn register_folder(path: &Path) -> Registration {
    enter(path, true)
}

fn enter(path: &Path, folder: bool) -> Registration {
    let mut registry = registry();
    let id = registry.next;
    registry.next += 1;
    if registry.closed {
        // The signal thread has already swept: do its work for this path.
        remove(path, folder);
    } else {
        registry.files.push((id, path.to_path_buf(), folder));
    }
    Registration(id)
}

/// Removes a registered file, or a registered folder if it is empty.
fn remove(path: &Path, folder: bool) {
    let _ = if folder { std::fs::remove_dir(path) } else { std::fs::remove_file(path) };
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut registry = registry();
        // `remove`, not `swap_remove`: the sweep relies on the order.
        if let Some(i) = registry.files.iter().position(|(id, _, _)| *id == self.0) {
            registry.files.remove(i);
        }
    }
}

/// From now on, SIGINT and SIGTERM remove the registered files and end the
/// process with exit code 130 or 143. Installing twice is harmless.
pub fn remove_on_signals() -> std::io::Result<()> {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    if INSTALLED.get().is_some() {
        return Ok(());
    }
    let mut signals = Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new().name("signals".into()).spawn(move || {
        if let Some(signal) = signals.forever().next() {
            let mut registry = registry();
            registry.closed = true;
            // Files first, then the folders that held them, deepest first.
            for (_, path, _) in registry.files.iter().filter(|(_, _, folder)| !folder) {
                remove(path, false);
            }
            for (_, path, _) in registry.files.iter().rev().filter(|(_, _, folder)| *folder) {
                remove(path, true);
            }
            // The lock stays held: nothing registers after the sweep.
            std::process::exit(128 + signal);
        }
    })?;
    let _ = INSTALLED.set(());
    Ok(())
}

/// The files registered now (for tests).
pub fn registered() -> Vec<PathBuf> {
    registry().files.iter().map(|(_, p, _)| p.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registrations_come_and_go() {
        let path = PathBuf::from("/nonexistent/registered-for-a-test");
        let registration = register(&path);
        assert!(registered().contains(&path));
        drop(registration);
        assert!(!registered().contains(&path));
    }
}
