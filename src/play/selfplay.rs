//! `pgntune selfplay` as a library call: training games by self-play with
//! varied piece values, written to one (optionally compressed) PGN file.
//!
//! While it runs, the games so far are kept in `OUT.games.pgn` with a state
//! in `OUT.state.json`, so an interrupted run continues where it stopped;
//! both are removed once `OUT` is written. Games for a stream (standard
//! output) go to a temporary file instead, and such a run cannot be resumed.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::config::{MatchConfig, RunKind};
use super::run::{Execution, PreparedFiles, RunError, prepare_resume};
use super::state::MatchState;
use super::tournament::{MatchError, Timing, play_match};
use crate::atomic::{AtomicFile, Destination, HEAD_BYTES, OutputKind, OutputPlan, Recognise, Registration, register};

/// The games of `selfplay --out` (plain or compressed PGN) as an output:
/// recognised by the event of its first game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SelfplayGames;

impl Recognise for SelfplayGames {
    fn describe(&self) -> &'static str {
        "self-play games"
    }

    fn recognises(&self, path: &Path) -> bool {
        crate::atomic::head(path).is_ok() && is_selfplay_pgn(path)
    }
}

/// PGN (plain or compressed) whose first game was played by pgntune.
fn is_selfplay_pgn(path: &Path) -> bool {
    use std::io::Read;

    use crate::pgn::input::{ByteCounters, InputSource, open};
    let Ok(stream) = open(&InputSource::File(path.to_path_buf()), &ByteCounters::default()) else { return false };
    let mut text = Vec::new();
    if stream.reader.take(HEAD_BYTES).read_to_end(&mut text).is_err() && text.is_empty() {
        return false;
    }
    text.starts_with(b"[Event \"pgntune selfplay\"]")
}

/// A new self-play run.
#[derive(Clone, Debug)]
pub struct SelfplayConfig {
    /// The games: one bundled engine twice, with `vary_weights` set.
    pub config: MatchConfig,
    /// The output PGN; compressed when the name ends in `.zst`, `.gz` or `.bz2`.
    pub out: PathBuf,
    /// Replace an earlier run's state and games, or an `out` that does not
    /// hold self-play games.
    pub force: bool,
}

/// How a self-play run starts.
#[derive(Clone, Debug)]
pub enum SelfplayStart {
    /// A new run.
    New(Box<SelfplayConfig>),
    /// An interrupted run, from its state.
    Resume(PathBuf),
}

/// What a self-play run wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfplayReport {
    /// Games in the output.
    pub games: u64,
    /// The output.
    pub out: PathBuf,
    /// Timing of the games played in this run.
    pub timing: Timing,
}

/// The file of the games so far beside `out`, and the state.
fn working_files(out: &Path) -> (PathBuf, PathBuf) {
    (PathBuf::from(format!("{}.games.pgn", out.display())), PathBuf::from(format!("{}.state.json", out.display())))
}

/// Plays (or continues) a self-play run, writes its games to the output
/// and removes the working files.
pub fn run_selfplay(start: SelfplayStart, execution: &Execution<'_>) -> Result<SelfplayReport, RunError> {
    // The temporary file of a streamed run lives (and is removed on a
    // signal) until the output is written.
    let mut _temporary: Option<(tempfile::NamedTempFile, Registration)> = None;
    let (state, files, fresh) = match start {
        SelfplayStart::Resume(path) => {
            let (state, files) = prepare_resume(&path, RunKind::Selfplay)?;
            (state, files, false)
        }
        SelfplayStart::New(sp) => {
            if sp.config.vary_weights.is_none() || sp.config.engines.len() != 2 {
                return Err(RunError::Unsuitable("self-play is one bundled engine against itself with varied weights"));
            }
            sp.config.check().map_err(MatchError::from)?;
            // Other compressions' names would get plain text (as .bz2 did).
            if sp.out.extension().and_then(|e| e.to_str()).is_some_and(|e| UNWRITTEN_COMPRESSIONS.contains(&e.to_ascii_lowercase().as_str())) {
                return Err(RunError::Unsuitable("self-play compresses its games as .gz, .zst or .bz2; name the output one of those, or .pgn"));
            }
            let mut plan = OutputPlan::new(sp.force).allow_stdout();
            for path in sp.config.input_files() {
                plan.input(&path);
            }
            let destination = plan.output(&sp.out, SelfplayGames)?;
            let (games, files) = if destination == Destination::File {
                let (games, state) = working_files(&sp.out);
                // The state first, as a match does: a file there that is no
                // state of pgntune's is refused as such, and only a real one
                // is an earlier run to continue with --resume.
                plan.output(&state, OutputKind::State)?;
                if state.exists() && !sp.force {
                    return Err(RunError::EarlierRun { state, kind: RunKind::Selfplay });
                }
                plan.output(&games, OutputKind::MatchGames)?;
                (games, PreparedFiles::locked(state)?)
            } else {
                let temp = tempfile::Builder::new()
                    .prefix(".pgntune-selfplay.")
                    .suffix(".pgn")
                    .tempfile()
                    .map_err(|source| RunError::Io { path: std::env::temp_dir(), source })?;
                let games = temp.path().to_path_buf();
                let registration = register(&games);
                _temporary = Some((temp, registration));
                (games, PreparedFiles::none())
            };
            let config = MatchConfig { kind: RunKind::Selfplay, pgn_out: Some(games), selfplay_out: Some(sp.out.clone()), ..sp.config };
            (MatchState::new(config), files, true)
        }
    };
    let out = state.config.selfplay_out.clone().expect("a selfplay state has its output");
    let games = state.config.pgn_out.clone().expect("a selfplay state has its games file");
    let (state, timing) = match (play_match(state, files.state.as_deref(), fresh, execution.threads, execution.progress), &files.state) {
        (Ok(done), _) => done,
        (Err(e), Some(path)) => return Err(RunError::Kept { state: path.clone(), source: Box::new(e.into()) }),
        (Err(e), None) => return Err(e.into()),
    };
    let text = std::fs::read(&games).map_err(|source| RunError::Io { path: games.clone(), source })?;
    write_compressed(&out, &text)?;
    let _ = std::fs::remove_file(&games);
    if let Some(path) = &files.state {
        let _ = std::fs::remove_file(path);
    }
    Ok(SelfplayReport { games: state.committed, out, timing })
}

/// Writes `bytes` to `path` (atomically, or streamed to standard output),
/// zstd- or gzip-compressed by its extension.
/// Extensions of compressions `write_compressed` does not write.
const UNWRITTEN_COMPRESSIONS: &[&str] = &["xz", "lzma", "lz4", "lz", "br", "zip", "7z", "bz", "z"];

fn write_compressed(path: &Path, bytes: &[u8]) -> Result<(), RunError> {
    let io = |source| RunError::Io { path: path.to_path_buf(), source };
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let data = match ext {
        "zst" => zstd::encode_all(bytes, 19).map_err(io)?,
        "gz" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            e.write_all(bytes).map_err(io)?;
            e.finish().map_err(io)?
        }
        "bz2" => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
            e.write_all(bytes).map_err(io)?;
            e.finish().map_err(io)?
        }
        _ => bytes.to_vec(),
    };
    Ok(AtomicFile::write_all(path, &data)?)
}
