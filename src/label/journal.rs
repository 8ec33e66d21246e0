//! The journal of a labelling run: one line per position done, appended
//! as workers finish them, so that a run of hours that is killed resumes
//! where it stopped. It lives beside the output under a hidden name, is
//! tied to its run by a hash of everything the labels depend on (the
//! positions, the engine and its options, the limit), and is removed once
//! the output is written.
//!
//! ```text
//! pgntune label journal 1 run 5c1f0e2a9b3d7e41 positions 24000
//! 17→35→-
//! 3→-120→r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3
//! 18→skip→mate score
//! ```
//!
//! (`→` stands for a tab.) A line is the position's index, then its label (centipawns, white's
//! view) and the FEN of the position the label belongs to when it is not
//! the dataset's own (`-`), or `skip` and why. A line cut short by a kill
//! is dropped when the journal is read again.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::LabelError;

const MAGIC: &str = "pgntune label journal 1";

/// What became of one position.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// A label, and the FEN of the resolved position when it differs from
    /// the dataset's.
    Labelled {
        /// Centipawns from white's side.
        label: f32,
        /// The position labelled, when it is not the row's own.
        leaf: Option<String>,
    },
    /// Not labelled, and why (one word or a short phrase).
    Skipped(String),
}

/// An open journal, appended to.
pub struct Journal {
    file: File,
    path: PathBuf,
}

/// The journal's path for an output: hidden, beside it.
pub fn path_for(output: &Path) -> PathBuf {
    let name = output.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    output.with_file_name(format!(".{name}.label-journal"))
}

/// FNV-1a, 64 bits: a hash that does not change between builds, so a
/// journal written by one pgntune is recognised by the next.
pub fn fnv1a(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The hash FNV-1a starts from.
pub const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

impl Journal {
    /// Opens the journal at `path` for run `run` of `total` positions:
    /// the entries of an earlier, interrupted run of the same labels, or
    /// a new journal. A journal of another run is an error unless `force`
    /// (then it is started anew).
    pub fn open(path: &Path, run: u64, total: usize, force: bool) -> Result<(Journal, Vec<Option<Entry>>), LabelError> {
        let io = |source| LabelError::Journal { path: path.display().to_string(), source };
        let header = format!("{MAGIC} run {run:016x} positions {total}");
        let mut entries = vec![None; total];
        if path.exists() {
            let file = File::open(path).map_err(io)?;
            let mut reader = BufReader::new(file);
            let mut first = String::new();
            reader.read_line(&mut first).map_err(io)?;
            if first.trim_end() == header {
                let mut whole = first.len() as u64;
                let mut line = String::new();
                loop {
                    line.clear();
                    let n = reader.read_line(&mut line).map_err(io)?;
                    // A last line without its newline was cut short by a kill.
                    if n == 0 || !line.ends_with('\n') {
                        break;
                    }
                    let Some((index, entry)) = parse(line.trim_end_matches('\n')).filter(|(i, _)| *i < total) else {
                        return Err(LabelError::BadJournal { path: path.display().to_string(), line: line.trim_end().to_string() });
                    };
                    entries[index] = Some(entry);
                    whole += n as u64;
                }
                let mut file = OpenOptions::new().write(true).open(path).map_err(io)?;
                file.set_len(whole).map_err(io)?;
                file.seek(SeekFrom::End(0)).map_err(io)?;
                return Ok((Journal { file, path: path.to_path_buf() }, entries));
            }
            if !force {
                return Err(LabelError::OtherRun { path: path.display().to_string() });
            }
        }
        let mut file = File::create(path).map_err(io)?;
        writeln!(file, "{header}").and_then(|()| file.flush()).map_err(io)?;
        Ok((Journal { file, path: path.to_path_buf() }, entries))
    }

    /// Appends `entries` as whole lines, in one write.
    pub fn append(&mut self, entries: &[(usize, Entry)]) -> Result<(), LabelError> {
        let mut text = String::new();
        for (index, entry) in entries {
            match entry {
                Entry::Labelled { label, leaf } => text.push_str(&format!("{index}\t{label}\t{}\n", leaf.as_deref().unwrap_or("-"))),
                Entry::Skipped(why) => text.push_str(&format!("{index}\tskip\t{why}\n")),
            }
        }
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|source| LabelError::Journal { path: self.path.display().to_string(), source })
    }

    /// Removes the journal: its run is complete and written.
    pub fn remove(self) -> Result<(), LabelError> {
        drop(self.file);
        std::fs::remove_file(&self.path).map_err(|source| LabelError::Journal { path: self.path.display().to_string(), source })
    }
}

fn parse(line: &str) -> Option<(usize, Entry)> {
    let mut fields = line.splitn(3, '\t');
    let index = fields.next()?.parse().ok()?;
    let value = fields.next()?;
    let rest = fields.next()?;
    if value == "skip" {
        return Some((index, Entry::Skipped(rest.to_string())));
    }
    let label: f32 = value.parse().ok().filter(|v: &f32| v.is_finite())?;
    let leaf = (rest != "-").then(|| rest.to_string());
    Some((index, Entry::Labelled { label, leaf }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_resumes_its_own_run_and_drops_a_cut_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".out.epd.label-journal");
        let (mut journal, entries) = Journal::open(&path, 7, 4, false).unwrap();
        assert!(entries.iter().all(Option::is_none));
        journal.append(&[(2, Entry::Labelled { label: -35.5, leaf: None }), (0, Entry::Skipped("mate".into()))]).unwrap();
        drop(journal);
        // A kill in the middle of a write leaves a line without its end.
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"3\t12").unwrap();
        let (mut journal, entries) = Journal::open(&path, 7, 4, false).unwrap();
        assert_eq!(entries[2], Some(Entry::Labelled { label: -35.5, leaf: None }));
        assert_eq!(entries[0], Some(Entry::Skipped("mate".into())));
        assert_eq!(entries[3], None);
        journal.append(&[(3, Entry::Labelled { label: 12.0, leaf: Some("8/8/8/8/8/8/8/K6k w - - 0 1".into()) })]).unwrap();
        drop(journal);
        let (_, entries) = Journal::open(&path, 7, 4, false).unwrap();
        assert_eq!(entries[3], Some(Entry::Labelled { label: 12.0, leaf: Some("8/8/8/8/8/8/8/K6k w - - 0 1".into()) }));
        // Another run's journal is not resumed, nor replaced without force.
        assert!(matches!(Journal::open(&path, 8, 4, false), Err(LabelError::OtherRun { .. })));
        let (_, entries) = Journal::open(&path, 8, 4, true).unwrap();
        assert!(entries.iter().all(Option::is_none));
    }
}
