//! Checking a command's outputs before it does any work.
//!
//! A command registers its input files, then each output; each output is
//! checked at once, so a bad output path fails before anything is read,
//! truncated or started:
//!
//! * `-` is standard output, for commands that allow it, and only once;
//! * links are followed to the file they name;
//! * an output must not be one of the inputs nor another output (same
//!   device and inode, or, for a file that does not exist yet, the same
//!   folder and name);
//! * a pipe or a device is written as a stream;
//! * a regular file's folder must exist and be writable, and an existing
//!   non-empty file is replaced only if it is an earlier output of the same
//!   kind (see [`Recognise::recognises`]) or with `--force`.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::{Recognise, is_stdout, resolve_links};

/// Which file a path names: its device and inode when it exists, else the
/// canonical folder and the name it would have.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Identity {
    Inode(u64, u64),
    Path(PathBuf),
}

/// Where an output goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    /// A regular file (or a new one), written under a temporary name and renamed.
    File,
    /// A pipe or a device, written as a stream.
    Stream,
    /// Standard output.
    Stdout,
}

/// Why an output cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The output is one of the inputs.
    #[error("{output}: this output is also the input {input}; writing it would destroy the input")]
    SameAsInput {
        /// The output as given.
        output: String,
        /// The input it is.
        input: String,
    },
    /// Two outputs are the same file.
    #[error("{output}: this output is also the output {other}; give each output its own file")]
    SameAsOutput {
        /// The output as given.
        output: String,
        /// The other output.
        other: String,
    },
    /// The output exists and is not an earlier output of its kind.
    #[error("{path}: {why}")]
    Foreign {
        /// The output.
        path: String,
        /// Why it may not be replaced, and what to do.
        why: String,
    },
    /// The output is a folder.
    #[error("{path}: is a directory")]
    IsDirectory {
        /// The output.
        path: String,
    },
    /// The output's folder does not exist.
    #[error("{path}: the folder {folder} does not exist")]
    NoFolder {
        /// The output.
        path: String,
        /// Its folder.
        folder: String,
    },
    /// The output's folder cannot be written.
    #[error("{path}: cannot create files in {folder}: {source}")]
    NotWritable {
        /// The output.
        path: String,
        /// Its folder.
        folder: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `-` where standard output is taken or not possible.
    #[error("{what}: {why}")]
    Stdout {
        /// The option.
        what: String,
        /// Why not.
        why: String,
    },
    /// The path could not be examined.
    #[error("{path}: {source}")]
    Io {
        /// The output.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// The inputs and outputs of one command, checked as they are added.
#[derive(Debug, Default)]
pub struct OutputPlan {
    force: bool,
    stdout_allowed: bool,
    stdout_taken: Option<String>,
    inputs: Vec<(String, Identity)>,
    outputs: Vec<(String, Identity)>,
}

/// The first two of `paths` that name the same file (through links and
/// different spellings alike), as given. Reading a file twice counts its
/// games or rows twice: the estimates look twice as sure as they are.
/// Paths that cannot be examined are skipped (reading them reports it).
pub fn repeated_file<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Option<(String, String)> {
    let mut seen: Vec<(&Path, (u64, u64))> = Vec::new();
    for path in paths {
        let Ok(meta) = std::fs::metadata(path) else { continue };
        let identity = (meta.dev(), meta.ino());
        if let Some((first, _)) = seen.iter().find(|(_, i)| *i == identity) {
            return Some((name(first), name(path)));
        }
        seen.push((path, identity));
    }
    None
}

fn name(path: &Path) -> String {
    path.display().to_string()
}

/// The canonical form of a folder that may not exist yet: its nearest
/// existing ancestor canonicalised, the rest appended.
fn canonical_folder(dir: &Path) -> PathBuf {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(canonical) = existing.canonicalize() {
            return rest.iter().rev().fold(canonical, |p, c| p.join(c));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(last)) => {
                rest.push(last.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Fails unless a file can be created in `folder` (tried, not guessed
/// from permission bits: root, ACLs and read-only mounts all count).
fn check_writable(path: &Path, folder: &Path) -> Result<(), PlanError> {
    // Registered before it is made, as the outputs' temporary files are
    // (see `AtomicFile::create`): a signal in between left it behind.
    let mut registration = None;
    tempfile::Builder::new()
        .prefix(".pgntune-check.")
        .make_in(folder, |probe| {
            registration = Some(super::register(probe));
            std::fs::OpenOptions::new().write(true).create_new(true).open(probe)
        })
        .map(drop)
        .map_err(|source| PlanError::NotWritable { path: name(path), folder: name(folder), source })
}

impl OutputPlan {
    /// A plan; with `force`, existing files of any kind may be replaced.
    pub fn new(force: bool) -> OutputPlan {
        OutputPlan { force, ..OutputPlan::default() }
    }

    /// Allows `-` (standard output) as one of the outputs.
    pub fn allow_stdout(mut self) -> OutputPlan {
        self.stdout_allowed = true;
        self
    }

    /// Records an input. `-` is standard input: when it is a redirected
    /// file, that file counts too. Inputs that cannot be examined are
    /// skipped here (reading them reports the problem).
    pub fn input(&mut self, path: &Path) {
        let meta = if is_stdout(path) {
            use std::os::fd::AsFd;
            std::io::stdin().as_fd().try_clone_to_owned().ok().and_then(|fd| std::fs::File::from(fd).metadata().ok())
        } else {
            std::fs::metadata(path).ok()
        };
        if let Some(meta) = meta.filter(|m| m.is_file()) {
            let shown = if is_stdout(path) { "standard input".to_string() } else { name(path) };
            self.inputs.push((shown, Identity::Inode(meta.dev(), meta.ino())));
        }
    }

    /// Checks the output `path`, which will hold `kind`, and says where it goes.
    pub fn output(&mut self, path: &Path, kind: impl Recognise) -> Result<Destination, PlanError> {
        let shown = name(path);
        if is_stdout(path) {
            if !self.stdout_allowed {
                return Err(PlanError::Stdout { what: shown, why: "standard output ('-') is not possible for this output; give a file name".into() });
            }
            if let Some(other) = &self.stdout_taken {
                return Err(PlanError::Stdout { what: shown, why: format!("standard output already takes {other}") });
            }
            self.stdout_taken = Some(kind.describe().to_string());
            return Ok(Destination::Stdout);
        }
        let io = |source| PlanError::Io { path: shown.clone(), source };
        let resolved = resolve_links(path).map_err(io)?;
        let (identity, destination) = match std::fs::metadata(&resolved) {
            Ok(meta) if meta.is_dir() => return Err(PlanError::IsDirectory { path: shown }),
            Ok(meta) => {
                let identity = Identity::Inode(meta.dev(), meta.ino());
                if meta.is_file() {
                    check_writable(path, &folder_of(&resolved))?;
                    (identity, Destination::File)
                } else {
                    (identity, Destination::Stream)
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let folder = folder_of(&resolved);
                if !folder.is_dir() {
                    return Err(PlanError::NoFolder { path: shown, folder: name(&folder) });
                }
                check_writable(path, &folder)?;
                let file = resolved.file_name().map(PathBuf::from).unwrap_or_default();
                (Identity::Path(canonical_folder(&folder).join(file)), Destination::File)
            }
            Err(e) => return Err(io(e)),
        };
        self.claim(&shown, identity)?;
        if destination == Destination::File && !self.force {
            let len = std::fs::metadata(&resolved).map(|m| m.len()).unwrap_or(0);
            if len > 0 && !kind.recognises(&resolved) {
                let why = match kind.never_replaced_because() {
                    Some(reason) => format!("exists, and {reason}; pass --force to replace it, or choose another file"),
                    None => format!("exists and is not {} written by pgntune; pass --force to replace it", kind.describe()),
                };
                return Err(PlanError::Foreign { path: shown, why });
            }
        }
        Ok(destination)
    }

    /// Checks a folder outputs will be written into (created if missing):
    /// it must be a folder, or not exist in a writable folder that does. A
    /// missing parent is refused, as for a file: a typo in the path would
    /// otherwise build a tree of folders nobody asked for.
    pub fn folder(&mut self, dir: &Path) -> Result<(), PlanError> {
        let shown = name(dir);
        if is_stdout(dir) {
            // `-` means standard output everywhere else: a folder named so
            // would be a surprise, and files cannot be streamed into a pipe.
            return Err(PlanError::Stdout {
                what: shown,
                why: "this output is a folder of files, and standard output ('-') cannot hold files; give a folder name (./- for one named '-')"
                    .into(),
            });
        }
        let resolved = resolve_links(dir).map_err(|source| PlanError::Io { path: shown.clone(), source })?;
        if resolved.exists() {
            if !resolved.is_dir() {
                return Err(PlanError::Io { path: shown, source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory") });
            }
            return check_writable(dir, &resolved);
        }
        let parent = folder_of(&resolved);
        if !parent.is_dir() {
            return Err(PlanError::NoFolder { path: shown, folder: name(&parent) });
        }
        check_writable(dir, &parent)
    }

    /// Records that `shown` writes the file `identity`, unless it is taken.
    fn claim(&mut self, shown: &str, identity: Identity) -> Result<(), PlanError> {
        if let Some((input, _)) = self.inputs.iter().find(|(_, i)| *i == identity) {
            return Err(PlanError::SameAsInput { output: shown.to_string(), input: input.clone() });
        }
        if let Some((other, _)) = self.outputs.iter().find(|(_, i)| *i == identity) {
            return Err(PlanError::SameAsOutput { output: shown.to_string(), other: other.clone() });
        }
        self.outputs.push((shown.to_string(), identity));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atomic::OutputKind;
    use crate::dataset::Format;

    #[test]
    fn an_output_that_is_an_input_or_another_output_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let pgn = dir.path().join("victim.pgn");
        std::fs::write(&pgn, "[Event \"x\"]\n").unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&pgn, &link).unwrap();
        let mut plan = OutputPlan::new(true);
        plan.input(&pgn);
        assert!(matches!(plan.output(&pgn, OutputKind::ScoreTable), Err(PlanError::SameAsInput { .. })));
        assert!(matches!(plan.output(&link, OutputKind::ScoreTable), Err(PlanError::SameAsInput { .. })), "a link to the input");
        let out = dir.path().join("new.csv");
        assert_eq!(plan.output(&out, Format::Csv).unwrap(), Destination::File);
        let again = dir.path().join(".").join("new.csv");
        assert!(matches!(plan.output(&again, OutputKind::ScoreTable), Err(PlanError::SameAsOutput { .. })), "the same new file by another name");
    }

    #[test]
    fn existing_files_need_force_unless_recognised() {
        let dir = tempfile::tempdir().unwrap();
        let mine = dir.path().join("mine.csv");
        std::fs::write(&mine, "name,score\nx,1\n").unwrap();
        let err = OutputPlan::new(false).output(&mine, Format::Csv).unwrap_err();
        assert!(err.to_string().contains("pass --force"), "{err}");
        assert!(OutputPlan::new(true).output(&mine, Format::Csv).is_ok());
        let rows = dir.path().join("rows.csv");
        std::fs::write(&rows, "P,N,B,R,Q,result,game,ply\n").unwrap();
        // Written by hand: the user's. Written by pgntune: its mark says so.
        assert!(OutputPlan::new(false).output(&rows, Format::Csv).is_err());
        crate::atomic::AtomicFile::write_all(&rows, b"P,N,B,R,Q,result,game,ply\n").unwrap();
        assert!(OutputPlan::new(false).output(&rows, Format::Csv).is_ok());
        let empty = dir.path().join("empty.csv");
        std::fs::write(&empty, "").unwrap();
        assert!(OutputPlan::new(false).output(&empty, Format::Csv).is_ok());
    }

    #[test]
    fn a_file_named_twice_is_found_however_it_is_spelt() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.pgn"), dir.path().join("b.pgn"));
        std::fs::write(&a, "1").unwrap();
        std::fs::write(&b, "1").unwrap();
        let link = dir.path().join("l.pgn");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        let dotted = dir.path().join(".").join("a.pgn");
        assert_eq!(repeated_file([a.as_path(), b.as_path()]), None, "same bytes, two files");
        assert_eq!(repeated_file([a.as_path(), b.as_path(), link.as_path()]), Some((name(&a), name(&link))));
        assert_eq!(repeated_file([dotted.as_path(), a.as_path()]), Some((name(&dotted), name(&a))));
        assert_eq!(repeated_file([dir.path().join("missing").as_path(), b.as_path()]), None);
    }

    #[test]
    fn folders_devices_and_standard_output() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(OutputPlan::new(false).output(dir.path(), OutputKind::Trace), Err(PlanError::IsDirectory { .. })));
        assert!(matches!(OutputPlan::new(false).output(&dir.path().join("no/x.csv"), OutputKind::Trace), Err(PlanError::NoFolder { .. })));
        assert_eq!(OutputPlan::new(false).output(Path::new("/dev/null"), OutputKind::Trace).unwrap(), Destination::Stream);
        assert!(OutputPlan::new(false).output(Path::new("-"), OutputKind::Trace).is_err(), "not allowed unless asked");
        let mut plan = OutputPlan::new(false).allow_stdout();
        assert_eq!(plan.output(Path::new("-"), OutputKind::Trace).unwrap(), Destination::Stdout);
        assert!(plan.output(Path::new("-"), OutputKind::ScoreTable).is_err(), "standard output only once");
        assert!(OutputPlan::new(false).folder(&dir.path().join("figures")).is_ok());
        // Only the folder itself is made, never missing parents.
        assert!(matches!(OutputPlan::new(false).folder(&dir.path().join("figures/a")), Err(PlanError::NoFolder { .. })));
        assert!(matches!(OutputPlan::new(false).allow_stdout().folder(Path::new("-")), Err(PlanError::Stdout { .. })), "a folder is never '-'");
        let file = dir.path().join("f");
        std::fs::write(&file, "").unwrap();
        assert!(OutputPlan::new(false).folder(&file).is_err());
    }
}
