//! Cutting PGN collections into shards of whole games: the unit a cluster
//! distributes (PGN cannot be cut at arbitrary bytes).
//!
//! The games are read by the very reader extraction uses
//! ([`super::extract`]), so a shard holds exactly the games extraction
//! would see there, and the text between two cuts is copied byte for byte.
//! A cut goes where a game begins a stretch of text the PGN reader reads
//! on its own ([`GameRecord::start`]); games that termination markers
//! split out of one stretch (tagless games one per line) stay with it, so
//! a shard can hold a few more than N games. A shard continues into the
//! next input only when the input before ends cleanly (its last game
//! terminated, nothing after the marker); otherwise a new shard begins.
//! Extracting the shards one after another gives the rows of extracting
//! the inputs, game ids included, and extracting each shard apart with
//! `--game-base` set to its `first_game` gives them too.
//!
//! The manifest (`manifest.json` in the folder) lists every shard: file,
//! first game (0-based over the whole collection), games, text bytes,
//! stored bytes, and per source file the range of its games (1-based, as
//! extraction's messages count them).

use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::extract::{ExtractConfig, ExtractError, Problem, Progress, Tap, read_games_tapped};
use super::input::{ByteCounters, InputSource};
use super::record::GameRecord;
use crate::atomic::{AtomicFile, OutputError, OutputPlan, PlanError, StagedFile};

mod output;
pub use output::SplitOutput;

/// The manifest's name in the shard folder.
pub const MANIFEST: &str = "manifest.json";
/// The manifest's `format` value.
pub const MANIFEST_FORMAT: &str = "pgntune split 1";

/// How shards are stored.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum ShardCompression {
    /// Zstandard (level 3): fast to write and to read.
    #[default]
    Zstd,
    /// gzip.
    Gzip,
    /// Plain PGN text.
    None,
}

impl ShardCompression {
    /// The file name ending.
    pub fn extension(self) -> &'static str {
        match self {
            ShardCompression::Zstd => ".pgn.zst",
            ShardCompression::Gzip => ".pgn.gz",
            ShardCompression::None => ".pgn",
        }
    }
}

/// What to split and where.
#[derive(Clone, Debug)]
pub struct SplitConfig {
    /// The collections, in order.
    pub inputs: Vec<InputSource>,
    /// Games per shard.
    pub games_per_shard: u64,
    /// The folder for the shards and the manifest (created if missing).
    pub out_dir: PathBuf,
    /// How shards are stored.
    pub compression: ShardCompression,
    /// Replace files in the folder that pgntune did not write.
    pub force: bool,
}

/// A source file's games in a shard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRange {
    /// The input, as given.
    pub file: String,
    /// Its first game in the shard (1-based within the input).
    pub first: u64,
    /// Its last game in the shard.
    pub last: u64,
}

/// One shard in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardEntry {
    /// Its number, from 0.
    pub shard: u64,
    /// Its file name, in the manifest's folder.
    pub file: String,
    /// Its first game's index in the whole collection (0-based): `extract --game-base`.
    pub first_game: u64,
    /// Games in it.
    pub games: u64,
    /// Bytes of PGN text.
    pub text_bytes: u64,
    /// Bytes as stored.
    pub bytes: u64,
    /// Where its games come from.
    pub sources: Vec<SourceRange>,
}

/// The manifest of a split.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`MANIFEST_FORMAT`].
    pub format: String,
    /// Games in all shards.
    pub games: u64,
    /// Bytes of PGN text in all shards.
    pub text_bytes: u64,
    /// The N asked for.
    pub games_per_shard: u64,
    /// How the shards are stored.
    pub compression: ShardCompression,
    /// The shards, in order.
    pub shards: Vec<ShardEntry>,
}

impl Manifest {
    /// Reads a manifest (checking its format).
    pub fn load(path: &Path) -> Result<Manifest, SplitError> {
        let text = std::fs::read_to_string(path).map_err(|source| SplitError::Io { path: path.to_path_buf(), source })?;
        let manifest: Manifest = serde_json::from_str(&text).map_err(|source| SplitError::ManifestJson { path: path.to_path_buf(), source })?;
        if manifest.format != MANIFEST_FORMAT {
            return Err(SplitError::Manifest { path: path.to_path_buf(), message: format!("format '{}', not '{MANIFEST_FORMAT}'", manifest.format) });
        }
        Ok(manifest)
    }
}

/// What a split did.
#[derive(Clone, Debug)]
pub struct SplitReport {
    /// The manifest written.
    pub manifest: Manifest,
    /// Where.
    pub manifest_path: PathBuf,
    /// Shards of an earlier split into the folder that this one did not rewrite, removed.
    pub removed: Vec<PathBuf>,
    /// The first games the PGN reader could not read (copied into their
    /// shards all the same, where extraction reports them again).
    pub problems: Vec<Problem>,
    /// How many there were.
    pub problem_count: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Why a split failed.
#[derive(Debug, thiserror::Error)]
pub enum SplitError {
    /// An output would destroy a file.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// Reading the inputs failed.
    #[error(transparent)]
    Read(#[from] ExtractError),
    /// A shard or the manifest could not be written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// An input has text but no game.
    #[error("{input}: no PGN game found (not a PGN file?)")]
    NoGame {
        /// The input.
        input: String,
    },
    /// The inputs hold no text at all.
    #[error("{input}: empty, no game to split")]
    Empty {
        /// The input, or how many.
        input: String,
    },
    /// A file could not be read or made.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A manifest that is not one (its format is another).
    #[error("{}: not a pgntune split manifest: {message}", path.display())]
    Manifest {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A manifest whose JSON cannot be read or written.
    #[error("{}: not a pgntune split manifest: {source}", path.display())]
    ManifestJson {
        /// The file.
        path: PathBuf,
        /// serde_json's error.
        #[source]
        source: serde_json::Error,
    },
    /// No games per shard.
    #[error("a shard needs at least one game")]
    NoGames,
}

/// A shard being written.
struct ShardFile {
    entry: ShardEntry,
    path: PathBuf,
    sink: Sink,
    /// The last byte written (to separate inputs by a line break).
    last: Option<u8>,
}

enum Sink {
    Plain(AtomicFile),
    Zstd(zstd::Encoder<'static, AtomicFile>),
    Gzip(flate2::write::GzEncoder<AtomicFile>),
}

impl ShardFile {
    fn create(dir: &Path, shard: u64, first_game: u64, compression: ShardCompression, plan: &mut OutputPlan) -> Result<ShardFile, SplitError> {
        let file = format!("shard-{shard:05}{}", compression.extension());
        let path = dir.join(&file);
        plan.output(&path, SplitOutput::Shard)?;
        let out = AtomicFile::create(&path)?;
        let io = |source| SplitError::Io { path: path.clone(), source };
        let sink = match compression {
            ShardCompression::None => Sink::Plain(out),
            ShardCompression::Zstd => Sink::Zstd(zstd::Encoder::new(out, 3).map_err(io)?),
            ShardCompression::Gzip => Sink::Gzip(flate2::write::GzEncoder::new(out, flate2::Compression::default())),
        };
        let entry = ShardEntry { shard, file, first_game, games: 0, text_bytes: 0, bytes: 0, sources: Vec::new() };
        Ok(ShardFile { entry, path, sink, last: None })
    }

    fn write(&mut self, text: &[u8]) -> Result<(), SplitError> {
        if text.is_empty() {
            return Ok(());
        }
        let written = match &mut self.sink {
            Sink::Plain(f) => f.write_all(text),
            Sink::Zstd(f) => f.write_all(text),
            Sink::Gzip(f) => f.write_all(text),
        };
        written.map_err(|source| SplitError::Io { path: self.path.clone(), source })?;
        self.entry.text_bytes += text.len() as u64;
        self.last = text.last().copied();
        Ok(())
    }

    /// Counts game `number` of `input` into the shard.
    fn count(&mut self, input: &str, number: u64) {
        self.entry.games += 1;
        match self.entry.sources.last_mut() {
            Some(range) if range.file == input => range.last = number,
            _ => self.entry.sources.push(SourceRange { file: input.to_string(), first: number, last: number }),
        }
    }

    /// Ends the shard's stream and closes it under its temporary name: it
    /// appears only once the whole split has succeeded.
    fn finish(self) -> Result<(ShardEntry, StagedFile), SplitError> {
        let io = |source| SplitError::Io { path: self.path.clone(), source };
        let file = match self.sink {
            Sink::Plain(f) => f,
            Sink::Zstd(f) => f.finish().map_err(io)?,
            Sink::Gzip(f) => f.finish().map_err(io)?,
        };
        let staged = file.stage()?;
        Ok((ShardEntry { bytes: staged.len(), ..self.entry }, staged))
    }
}

/// True when `text` ends with a game termination marker (and white space):
/// then whatever follows reads as a new game.
fn ends_cleanly(text: &[u8]) -> bool {
    let text = text.trim_ascii_end();
    [b"1-0".as_slice(), b"0-1", b"1/2-1/2", b"*"].iter().any(|m| text.ends_with(m))
}

/// Checks the folder and the files in it that this split may replace: an
/// earlier manifest, and files named like shards (replaced only when the
/// earlier manifest lists them, or with `force`). Returns the earlier
/// manifest's shard files.
fn check_folder(config: &SplitConfig, plan: &mut OutputPlan) -> Result<Vec<String>, SplitError> {
    let manifest = config.out_dir.join(MANIFEST);
    plan.output(&manifest, SplitOutput::Manifest)?;
    let earlier = Manifest::load(&manifest).map(|m| m.shards.into_iter().map(|s| s.file).collect()).unwrap_or_default();
    let entries = std::fs::read_dir(&config.out_dir).map_err(|source| SplitError::Io { path: config.out_dir.clone(), source })?;
    for entry in entries {
        let entry = entry.map_err(|source| SplitError::Io { path: config.out_dir.clone(), source })?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_shard_name(&name) {
            // Checked now (an input among them, a user's file), claimed when written.
            let mut probe = OutputPlan::new(config.force);
            for input in &config.inputs {
                if let InputSource::File(path) = input {
                    probe.input(path);
                }
            }
            probe.output(&entry.path(), SplitOutput::Shard)?;
        }
    }
    Ok(earlier)
}

/// The folders a split made for its output (outermost first): removed
/// again, if still empty, when the split fails, so that a failed run leaves
/// nothing of its own making.
struct CreatedFolders(Vec<(PathBuf, crate::atomic::Registration)>);

impl CreatedFolders {
    /// Creates `dir` and the folders above it that are missing.
    fn create(dir: &Path) -> Result<CreatedFolders, SplitError> {
        let mut missing = Vec::new();
        let mut at = Some(dir);
        while let Some(folder) = at.filter(|f| !f.as_os_str().is_empty() && std::fs::symlink_metadata(f).is_err()) {
            missing.push(folder.to_path_buf());
            at = folder.parent();
        }
        missing.reverse();
        // Registered before they exist, so that a signal at any moment finds them.
        let registered = missing.into_iter().map(|f| (f.clone(), crate::atomic::register_folder(&f))).collect();
        let created = CreatedFolders(registered);
        std::fs::create_dir_all(dir).map_err(|source| SplitError::Io { path: dir.to_path_buf(), source })?;
        Ok(created)
    }

    /// The split succeeded: the folders stay.
    fn keep(mut self) {
        self.0.clear();
    }
}

impl Drop for CreatedFolders {
    fn drop(&mut self) {
        // Deepest first. `remove_dir` removes only an empty folder: one that
        // someone else put a file into meanwhile stays, with its parents.
        for (folder, _) in self.0.iter().rev() {
            if std::fs::remove_dir(folder).is_err() {
                break;
            }
        }
    }
}

/// `shard-NNNNN.pgn`, `.pgn.zst` or `.pgn.gz`.
fn is_shard_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("shard-") else { return false };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && [".pgn", ".pgn.zst", ".pgn.gz"].contains(&&rest[digits..])
}

/// Cuts `config.inputs` into shards and writes the manifest.
///
/// All or nothing: the shards are written under temporary names and
/// renamed, manifest last, only once every input has been read; a split
/// that fails leaves the folder as it found it (an earlier split in it
/// included) and removes the folders it made. The price is room on disk
/// for the new shards beside the earlier ones until the end.
pub fn split(config: &SplitConfig, progress: &dyn Progress) -> Result<SplitReport, SplitError> {
    let started = Instant::now();
    if config.games_per_shard == 0 {
        return Err(SplitError::NoGames);
    }
    let mut plan = OutputPlan::new(config.force);
    for input in &config.inputs {
        match input {
            InputSource::File(path) => plan.input(path),
            InputSource::Stdin => plan.input(Path::new(crate::atomic::STDOUT)),
            InputSource::Memory { .. } => {}
        }
    }
    plan.folder(&config.out_dir)?;
    let created = CreatedFolders::create(&config.out_dir)?;
    // `write_shards` has dropped (removed) every shard it staged by the time it returns an error.
    let report = write_shards(config, progress, plan)?;
    created.keep();
    Ok(SplitReport { seconds: started.elapsed().as_secs_f64(), ..report })
}

fn write_shards(config: &SplitConfig, progress: &dyn Progress, mut plan: OutputPlan) -> Result<SplitReport, SplitError> {
    let earlier = check_folder(config, &mut plan)?;
    let names: Vec<String> = config.inputs.iter().map(|i| i.to_string()).collect();
    let tap = RefCell::new(Tap::default());
    let counters = ByteCounters::default();
    // The shards written, each staged until the whole split has succeeded.
    let mut shards: Vec<(ShardEntry, StagedFile)> = Vec::new();
    let (mut problems, mut problem_count) = (Vec::new(), 0u64);
    let mut open: Option<ShardFile> = None;
    // The input being read, and whether its text so far ended cleanly at its last game.
    let mut input: Option<usize> = None;
    let mut last_clean = true;
    let mut games = 0u64;
    // Whether any game had tags or moves: random bytes read as PGN give
    // "games" with neither, which must not become shards.
    let mut any_real_game = false;

    let mut failure: Option<SplitError> = None;
    // Moves the tap's text up to `to` into the open shard (or drops it: text before a first game).
    let take = |open: &mut Option<ShardFile>, to: u64| -> Result<(), SplitError> {
        let mut tap = tap.borrow_mut();
        let n = (to - tap.drained) as usize;
        if let Some(shard) = open.as_mut() {
            shard.write(&tap.text[..n])?;
        }
        tap.text.drain(..n);
        tap.drained = to;
        Ok(())
    };
    let mut on_game = |record: GameRecord| -> Result<(), SplitError> {
        if input != Some(record.input) {
            if let Some(previous) = input {
                // The previous input's tail belongs to its last game.
                let end = tap.borrow().ends[previous];
                let clean = last_clean && {
                    let tap = tap.borrow();
                    ends_cleanly(&tap.text[..(end - tap.drained) as usize])
                };
                take(&mut open, end)?;
                if !clean && let Some(shard) = open.take() {
                    shards.push(shard.finish()?);
                }
                if let Some(shard) = open.as_mut()
                    && shard.last != Some(b'\n')
                {
                    shard.write(b"\n")?;
                }
            }
            if record.start.is_none() {
                // Only the placeholder for text without a single game starts an input without an offset.
                return Err(SplitError::NoGame { input: names[record.input].clone() });
            }
            input = Some(record.input);
        }
        let base = if record.input == 0 { 0 } else { tap.borrow().ends[record.input - 1] };
        if let Some(start) = record.start {
            take(&mut open, base + start)?;
            if open.as_ref().is_some_and(|s| s.entry.games >= config.games_per_shard) {
                shards.push(open.take().expect("checked").finish()?);
            }
            if open.is_none() {
                open = Some(ShardFile::create(&config.out_dir, shards.len() as u64, games, config.compression, &mut plan)?);
            }
        }
        open.as_mut().expect("a game begins a shard").count(&names[record.input], record.number);
        // Copied all the same (the shard holds the text as it is), but said,
        // as extraction says it: a file cut short ends in such a game.
        let problem = Problem::unreadable(&names[record.input], &record).or_else(|| Problem::unfinished(&names[record.input], &record));
        if let Some(problem) = problem {
            problem.note(&mut problems, &mut problem_count);
        }
        games += 1;
        any_real_game |= record.has_tags || !record.moves.is_empty();
        last_clean = record.terminated && record.parse_error.is_none();
        Ok(())
    };
    let read_config = ExtractConfig::default();
    let read = read_games_tapped(&config.inputs, &read_config, &counters, progress, Some(&tap), |record| match on_game(record) {
        Ok(()) => Ok(true),
        Err(e) => {
            failure = Some(e);
            Ok(false)
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    read?;
    let inputs_named = || if names.len() == 1 { names[0].clone() } else { format!("the {} inputs", names.len()) };
    if games > 0 && !any_real_game {
        return Err(SplitError::NoGame { input: inputs_named() });
    }
    // Extraction takes empty inputs for an empty collection (a header and
    // no row, which every later step reads), but a manifest of no shard
    // gives a cluster nothing to run and mostly means a wrong file or an
    // empty pipe: say so.
    if games == 0 {
        return Err(SplitError::Empty { input: inputs_named() });
    }
    if let Some(last) = input {
        let end = tap.borrow().ends[last];
        take(&mut open, end)?;
    }
    if let Some(shard) = open.take() {
        shards.push(shard.finish()?);
    }
    let (entries, staged): (Vec<ShardEntry>, Vec<StagedFile>) = shards.into_iter().unzip();
    let manifest = Manifest {
        format: MANIFEST_FORMAT.to_string(),
        games: entries.iter().map(|s| s.games).sum(),
        text_bytes: entries.iter().map(|s| s.text_bytes).sum(),
        games_per_shard: config.games_per_shard,
        compression: config.compression,
        shards: entries,
    };
    let manifest_path = config.out_dir.join(MANIFEST);
    let mut text = serde_json::to_string_pretty(&manifest).map_err(|source| SplitError::ManifestJson { path: manifest_path.clone(), source })?;
    text.push('\n');
    let mut manifest_file = AtomicFile::create(&manifest_path)?;
    manifest_file.write_all(text.as_bytes()).map_err(|source| SplitError::Io { path: manifest_path.clone(), source })?;
    let manifest_file = manifest_file.stage()?;
    // All is written: only renames in the folder are left, the manifest
    // last, so that it never names a shard that is not there yet.
    for shard in staged {
        shard.commit()?;
    }
    manifest_file.commit()?;
    // An earlier split's shards beyond this one's would be mistaken for part of it.
    let mut removed = Vec::new();
    for file in earlier.iter().filter(|f| is_shard_name(f) && !manifest.shards.iter().any(|s| &s.file == *f)) {
        let path = config.out_dir.join(file);
        if path.exists() {
            std::fs::remove_file(&path).map_err(|source| SplitError::Io { path: path.clone(), source })?;
            removed.push(path);
        }
    }
    Ok(SplitReport { manifest, manifest_path, removed, problems, problem_count, seconds: 0.0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::extract::NoProgress;

    /// The library call alone (no command line): five games in shards of
    /// two make three shards whose manifest accounts for every game, and a
    /// second split into the same folder does not need --force.
    #[test]
    fn the_config_splits_whole_games_into_numbered_shards() {
        let dir = tempfile::tempdir().unwrap();
        let pgn = dir.path().join("five.pgn");
        let game = |n: u32| format!("[Event \"g{n}\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n");
        std::fs::write(&pgn, (1..=5).map(game).collect::<String>()).unwrap();
        let config = SplitConfig {
            inputs: vec![InputSource::File(pgn.clone())],
            games_per_shard: 2,
            out_dir: dir.path().join("shards"),
            compression: ShardCompression::None,
            force: false,
        };
        let report = split(&config, &NoProgress).unwrap();
        let games: Vec<u64> = report.manifest.shards.iter().map(|s| s.games).collect();
        assert_eq!(games, [2, 2, 1]);
        let firsts: Vec<u64> = report.manifest.shards.iter().map(|s| s.first_game).collect();
        assert_eq!(firsts, [0, 2, 4]);
        let again = split(&config, &NoProgress).unwrap();
        assert_eq!(again.manifest, report.manifest);
    }

    /// Bytes that are not PGN give no shard and the error that says so
    /// (pgn-reader reads them as "games" with neither tags nor moves).
    #[test]
    fn text_without_a_game_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let junk = dir.path().join("junk.pgn");
        // A result token among binary bytes: one "game" to pgn-reader.
        std::fs::write(&junk, b"\x01\x02 * \x03").unwrap();
        let out_dir = dir.path().join("shards");
        let config = SplitConfig {
            inputs: vec![InputSource::File(junk)],
            games_per_shard: 10,
            out_dir: out_dir.clone(),
            compression: ShardCompression::None,
            force: false,
        };
        let err = split(&config, &NoProgress).unwrap_err();
        assert!(matches!(err, SplitError::NoGame { .. }), "{err}");
        assert_eq!(std::fs::read_dir(&out_dir).map(|d| d.count()).unwrap_or(0), 0, "a shard was left behind");
        assert!(!out_dir.exists(), "the folder made for the shards was left behind");
    }

    /// Nothing to split is an error of its own, and the folder made for it goes again.
    #[test]
    fn an_empty_input_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("shards");
        let empty = InputSource::Memory { name: "empty.pgn".into(), data: std::sync::Arc::from(&b""[..]) };
        let config =
            SplitConfig { inputs: vec![empty], games_per_shard: 10, out_dir: out_dir.clone(), compression: ShardCompression::None, force: false };
        let err = split(&config, &NoProgress).unwrap_err();
        assert!(matches!(&err, SplitError::Empty { input } if input == "empty.pgn"), "{err}");
        assert!(!out_dir.exists(), "the folder made for the shards was left behind");
    }
}
